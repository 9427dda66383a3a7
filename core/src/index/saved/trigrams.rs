//! The trigram index's section: the number of buckets, then each bucket's entities, as a
//! list or (where a list would be dense) a bitmap, as the index itself keeps them.
//!
//! ```text
//! preamble = buckets u32 (0, or all of them)
//! bucket   = 0 u8 | slots u32 | slot u32*          a list, ascending
//!          | 1 u8 | slots u32 | words u32 | u64*   a bitmap: bit s of word s / 64
//! ```

use alloc::boxed::Box;
use alloc::vec::Vec;
use smallvec::SmallVec;

use super::touched::Touched;
use super::{Bad, Bytes, Dense, Put, Reading, Step, Writer};
use crate::graph::Graph;
use crate::index::substring::{BUCKETS, Posting, SubstringIndex, is_dense};
use crate::log::LogError;

/// Writes `index`'s records, slots as `dense` places them.
pub(super) fn write(
    index: &SubstringIndex,
    dense: &Dense,
    w: &mut Writer<'_>,
) -> Result<(), LogError> {
    let buckets = index.buckets();
    w.out().u32(buckets.len() as u32);
    w.record()?;
    for posting in buckets {
        let slots: Vec<u32> = posting
            .slots()
            .iter()
            .filter_map(|&s| dense.place(s))
            .collect();
        let out = w.out();
        let span = slots.last().map_or(0, |&l| l + 1);
        if is_dense(slots.len(), span) {
            let mut words = alloc::vec![0u64; (span as usize).div_ceil(64)];
            for &s in &slots {
                words[s as usize / 64] |= 1 << (s % 64);
            }
            out.push(1);
            out.u32(slots.len() as u32);
            out.u32(words.len() as u32);
            words.iter().for_each(|&word| out.u64(word));
        } else {
            out.push(0);
            out.u32(slots.len() as u32);
            slots.iter().for_each(|&s| out.u32(s));
        }
        w.record()?;
    }
    Ok(())
}

/// Reads the section back.
pub(super) struct Reader {
    /// Buckets still to come; `None` before the preamble.
    left: Option<u32>,
    buckets: Vec<Posting>,
    /// Entities in the checkpoint: every slot is below.
    entities: u32,
}

impl Reader {
    pub(super) fn new(entities: u32) -> Reader {
        Reader {
            left: None,
            buckets: Vec::new(),
            entities,
        }
    }
}

impl Reading for Reader {
    type Index = SubstringIndex;

    fn chunk(&mut self, mut b: Bytes<'_>) -> Result<(), Bad> {
        while !b.is_empty() {
            let Some(left) = self.left else {
                let n = b.u32()?;
                // Checked before it sizes anything: the section's hash is known at its end.
                if n != 0 && n as usize != BUCKETS {
                    return Err("a trigram index of another size");
                }
                self.buckets.reserve_exact(n as usize);
                self.left = Some(n);
                continue;
            };
            if left == 0 {
                return Err("records past the section's end");
            }
            self.buckets.push(bucket(&mut b, self.entities)?);
            self.left = Some(left - 1);
        }
        Ok(())
    }

    fn finish(self) -> Result<SubstringIndex, Bad> {
        if self.left != Some(0) {
            return Err("a section cut short");
        }
        Ok(SubstringIndex::saved(self.buckets))
    }

    fn up_to_date(index: &mut SubstringIndex, touched: &Touched, graph: &Graph) {
        touched.apply_trigrams(index, graph);
    }

    fn done(index: Box<SubstringIndex>) -> Step {
        Step::Trigrams(index)
    }
}

/// One bucket's record: ascending slots, or a bitmap holding as many as it says, all below
/// `entities`.
fn bucket(b: &mut Bytes<'_>, entities: u32) -> Result<Posting, Bad> {
    let (tag, len) = (b.u8()?, b.u32()? as usize);
    match tag {
        0 => {
            let raw = b.take(len.checked_mul(4).ok_or("a record cut short")?)?;
            let mut list: SmallVec<[u32; 4]> = SmallVec::from_elem(0, len);
            bytemuck::cast_slice_mut::<u32, u8>(&mut list).copy_from_slice(raw);
            let ordered = list.windows(2).fold(true, |ok, w| ok & (w[0] < w[1]));
            if !ordered || list.last().is_some_and(|&l| l >= entities) {
                return Err("a bucket out of order");
            }
            Ok(Posting::List(list))
        }
        1 => {
            let n = b.u32()? as usize;
            let raw = b.take(n.checked_mul(8).ok_or("a record cut short")?)?;
            let mut words = alloc::vec![0u64; n];
            bytemuck::cast_slice_mut::<u64, u8>(&mut words).copy_from_slice(raw);
            let set: usize = words.iter().map(|w| w.count_ones() as usize).sum();
            let past = words.len() as u64 * 64 > u64::from(entities)
                && words.last().is_some_and(|&w| w >> (entities % 64) != 0);
            if set != len || n > (entities as usize).div_ceil(64) || past {
                return Err("a bitmap whose count does not add up");
            }
            Ok(Posting::Bits { words, len })
        }
        _ => Err("an unknown bucket"),
    }
}
