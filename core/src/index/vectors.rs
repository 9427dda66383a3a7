//! Entity vectors for semantic search, and the brute-force scan for the nearest ones.
//!
//! An entity's vector is the embedding ([`crate::embed`]) of its name, type and current
//! observations, stored as `i8` codes with one `f32` scale: `dims + 4` bytes an entity (260
//! with the shipped table). A query is quantised the same way, so a cosine is an integer dot
//! product (explicit simd128 in WebAssembly, where every host runs the core; vectorised by
//! the compiler natively) times the two scales. Scanning every entity costs `dims`
//! multiply-adds each: a semantic `search` takes 1.6-1.8 ms (p50) end to end over stdio at
//! 40K entities and 10-14 ms at 200K on a 2-core VM (tests/bench/searchbench.py, where
//! the scan of 52 MB dominates), so no approximate index is kept; past ~200K entities one
//! would pay off.

use alloc::rc::Rc;
use alloc::vec;
use alloc::vec::Vec;

use crate::embed::{Embedder, Table};
use crate::graph::{Entity, EntityId, Graph};

use super::lazy::Build;

/// The vectors of a graph's entities, by slot.
pub struct VectorIndex {
    table: Rc<Table>,
    /// Slot `s`'s codes are `codes[s * dims..][..dims]` (`dims`: the table's).
    codes: Vec<i8>,
    /// Slot `s`'s scale; 0 for a slot without a vector (empty, deleted, or no known token).
    scales: Vec<f32>,
}

/// A quantised query vector.
pub struct Query {
    codes: Vec<i8>,
    scale: f32,
}

impl Build for VectorIndex {
    fn add_all<'g>(
        &mut self,
        graph: &'g Graph,
        entities: impl Iterator<Item = (EntityId, &'g Entity)>,
    ) {
        let table = Rc::clone(&self.table);
        let mut embedder = table.embedder();
        for (id, e) in entities {
            self.put(graph, id.slot(), e, &mut embedder);
        }
    }
}

impl VectorIndex {
    /// An index of no entity yet, sized for `graph`'s (grown with [`Build::add_all`]).
    pub fn new(graph: &Graph, table: Rc<Table>) -> VectorIndex {
        let dims = table.dims();
        // Sized once (slots of the last entity): a vector grown as it fills would leave
        // holes a WebAssembly heap never gives back.
        let slots = graph
            .entities()
            .last()
            .map_or(0, |(id, _)| id.slot() as usize + 1);
        VectorIndex {
            table,
            codes: Vec::with_capacity(slots * dims),
            scales: Vec::with_capacity(slots),
        }
    }

    /// The vectors saved indexes restate: `codes` (`dims` a slot) and `scales` by slot.
    pub(crate) fn saved(table: Rc<Table>, codes: Vec<i8>, scales: Vec<f32>) -> VectorIndex {
        VectorIndex {
            table,
            codes,
            scales,
        }
    }

    /// The table the vectors are of.
    pub(crate) fn table(&self) -> &Rc<Table> {
        &self.table
    }

    /// Slot `slot`'s codes and scale (a scale of 0: no vector).
    pub(crate) fn row(&self, slot: u32) -> (&[i8], f32) {
        match self.scales.get(slot as usize) {
            Some(&scale) => (self.codes(slot as usize), scale),
            None => (&[], 0.0),
        }
    }

    /// Embeds `e` (name, type, current observations) as slot `slot`'s vector.
    pub fn set(&mut self, graph: &Graph, slot: u32, e: &Entity) {
        let table = Rc::clone(&self.table);
        self.put(graph, slot, e, &mut table.embedder());
    }

    /// [`VectorIndex::set`] with `embedder`'s scratch space.
    fn put(&mut self, graph: &Graph, slot: u32, e: &Entity, embedder: &mut Embedder<'_>) {
        let s = graph.strings();
        for sym in e.fields() {
            embedder.add(s.resolve(sym));
        }
        let (slot, dims) = (slot as usize, self.dims());
        if self.scales.len() <= slot {
            self.scales.resize(slot + 1, 0.0);
            self.codes.resize((slot + 1) * dims, 0);
        }
        self.scales[slot] = embedder.finish_codes(&mut self.codes[slot * dims..][..dims]);
    }

    fn dims(&self) -> usize {
        self.table.dims()
    }

    /// Slot `slot`'s codes.
    fn codes(&self, slot: usize) -> &[i8] {
        &self.codes[slot * self.dims()..][..self.dims()]
    }

    /// Forgets slot `slot`'s vector.
    pub fn clear(&mut self, slot: u32) {
        if let Some(scale) = self.scales.get_mut(slot as usize) {
            *scale = 0.0;
        }
    }

    /// The query vector of `text`, or `None` if no token of it has a row.
    pub fn query(&self, text: &str) -> Option<Query> {
        Query::of(&self.table, text)
    }

    /// Slot `slot`'s vector as a query (to find its neighbours), if it has one.
    pub fn query_of(&self, slot: u32) -> Option<Query> {
        let scale = *self.scales.get(slot as usize).filter(|&&s| s > 0.0)?;
        Some(Query {
            codes: self.codes(slot as usize).to_vec(),
            scale,
        })
    }

    /// How many slots have a vector.
    pub fn count(&self) -> usize {
        self.scales.iter().filter(|&&s| s > 0.0).count()
    }

    /// The dimensions of a vector.
    pub fn dimensions(&self) -> usize {
        self.dims()
    }

    /// The cosine of `q` and slot `slot`'s vector, if it has one.
    pub fn cosine(&self, q: &Query, slot: u32) -> Option<f32> {
        let slot = slot as usize;
        let scale = *self.scales.get(slot).filter(|&&s| s > 0.0)?;
        Some(q.cosine(self.codes(slot), scale))
    }

    /// The `k` slots nearest to `q` among those `keep` keeps, nearest first (ties: lower
    /// slot first), with their cosines; and how many slots with a vector `keep` kept.
    pub fn nearest(
        &self,
        q: &Query,
        k: usize,
        keep: impl Fn(u32) -> bool,
    ) -> (Vec<(u32, f32)>, usize) {
        self.nearest_above(q, k, f32::NEG_INFINITY, keep)
    }

    /// [`VectorIndex::nearest`] of the slots at least `bar` near (a cosine of `bar` or
    /// more), and how many of those `keep` kept.
    pub fn nearest_above(
        &self,
        q: &Query,
        k: usize,
        bar: f32,
        keep: impl Fn(u32) -> bool,
    ) -> (Vec<(u32, f32)>, usize) {
        let mut best: Vec<(u32, f32)> = Vec::with_capacity(k.min(self.scales.len()) + 1);
        let mut ranked = 0;
        let rows = self.codes.chunks_exact(self.dims()).zip(&self.scales);
        let all = bar == f32::NEG_INFINITY;
        for (slot, (codes, &scale)) in rows.enumerate() {
            let slot = slot as u32;
            if scale == 0.0 || !keep(slot) {
                continue;
            }
            if all && k == 0 {
                ranked += 1;
                continue;
            }
            let cos = q.cosine(codes, scale);
            if cos < bar {
                continue;
            }
            ranked += 1;
            if k == 0 {
                continue;
            }
            if best.len() == k && cos <= best[k - 1].1 {
                continue;
            }
            let at = best.partition_point(|&(_, c)| c >= cos);
            best.insert(at, (slot, cos));
            best.truncate(k);
        }
        (best, ranked)
    }
}

impl Query {
    /// The quantised vector of `text` embedded with `table`, or `None` if no token of it
    /// has a row.
    pub fn of(table: &Table, text: &str) -> Option<Query> {
        let mut embedder = table.embedder();
        embedder.add(text);
        let mut codes = vec![0; table.dims()];
        let scale = embedder.finish_codes(&mut codes);
        (scale > 0.0).then_some(Query { codes, scale })
    }

    /// The cosine of this vector and `other` (of the same table).
    pub fn cosine_to(&self, other: &Query) -> f32 {
        self.cosine(&other.codes, other.scale)
    }

    /// The cosine of this query and a vector of these codes and scale.
    #[inline(always)]
    fn cosine(&self, codes: &[i8], scale: f32) -> f32 {
        dot(&self.codes, codes) as f32 * self.scale * scale
    }
}

/// The dot product of two code vectors (codes within ±127, as [`crate::embed`] quantises
/// them): explicit SIMD in WebAssembly with simd128 (the component and the npm engine
/// are built with it), else in 16-lane blocks the compiler vectorises.
#[inline(always)]
fn dot(a: &[i8], b: &[i8]) -> i32 {
    let (a16, b16) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: i32 = (a16.remainder().iter().zip(b16.remainder()))
        .map(|(&x, &y)| i32::from(x) * i32::from(y))
        .sum();
    blocks(a16, b16) + tail
}

/// The dot product of whole 16-code blocks. Per block: the products of the low and the
/// high eight codes, added as `i16` (each ≤ 127², so two fit), then pairwise into four
/// `i32` lanes.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn blocks(a: core::slice::ChunksExact<'_, i8>, b: core::slice::ChunksExact<'_, i8>) -> i32 {
    use core::arch::wasm32::*;
    // Sixteen codes as one vector (the compiler makes this one load).
    let load = |c: &[i8]| {
        i8x16(
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12], c[13],
            c[14], c[15],
        )
    };
    let mut sum = i32x4_splat(0);
    for (x, y) in a.zip(b) {
        let (x, y) = (load(x), load(y));
        let products = i16x8_add(i16x8_extmul_low_i8x16(x, y), i16x8_extmul_high_i8x16(x, y));
        sum = i32x4_add(sum, i32x4_extadd_pairwise_i16x8(products));
    }
    i32x4_extract_lane::<0>(sum)
        + i32x4_extract_lane::<1>(sum)
        + i32x4_extract_lane::<2>(sum)
        + i32x4_extract_lane::<3>(sum)
}

/// The dot product of whole 16-code blocks, in 16 lanes the compiler vectorises.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn blocks(a: core::slice::ChunksExact<'_, i8>, b: core::slice::ChunksExact<'_, i8>) -> i32 {
    let mut lanes = [0i32; 16];
    for (x, y) in a.zip(b) {
        for i in 0..16 {
            lanes[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    lanes.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_products_of_any_length_match_the_plain_sum() {
        let a: Vec<i8> = (0..40).map(|i| (i * 37 % 255 - 127) as i8).collect();
        let b: Vec<i8> = (0..40).map(|i| (i * 91 % 255 - 127) as i8).collect();
        for n in 0..=40 {
            let plain: i32 = (a[..n].iter().zip(&b[..n]))
                .map(|(&x, &y)| i32::from(x) * i32::from(y))
                .sum();
            assert_eq!(dot(&a[..n], &b[..n]), plain, "length {n}");
        }
    }
}
