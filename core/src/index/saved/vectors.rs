//! The vectors' section: their dimensions, then each entity's codes, then each entity's
//! scale, in order (two arrays, each read back with one copy).
//!
//! ```text
//! preamble = dimensions u32 | entities u32
//! codes    = dimensions × i8, an entity's
//! scale    = f32, an entity's (0: no vector)
//! ```

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::vec::Vec;

use super::touched::Touched;
use super::{Bad, Bytes, Put, Reading, Step, Writer};
use crate::embed::Table;
use crate::graph::Graph;
use crate::index::vectors::VectorIndex;
use crate::log::LogError;

/// Writes `index`'s records for `graph`'s entities, in order.
pub(super) fn write(
    index: &VectorIndex,
    graph: &Graph,
    w: &mut Writer<'_>,
) -> Result<(), LogError> {
    let dims = index.dimensions();
    w.out().u32(dims as u32);
    w.out().u32(graph.entity_count() as u32);
    w.record()?;
    for (id, _) in graph.entities() {
        let (codes, _) = index.row(id.slot());
        let out = w.out();
        match codes.len() == dims {
            true => out.extend_from_slice(bytemuck::cast_slice(codes)),
            false => out.resize(out.len() + dims, 0),
        }
        w.record()?;
    }
    for (id, _) in graph.entities() {
        let (_, scale) = index.row(id.slot());
        w.out().u32(scale.to_bits());
        w.record()?;
    }
    Ok(())
}

/// Reads the section back into vectors of `table`.
pub(super) struct Reader {
    table: Rc<Table>,
    /// Entities in the checkpoint: as many rows.
    entities: u32,
    /// Entities whose codes, and then whose scales, are still to come; `None` before the
    /// preamble.
    left: Option<(usize, usize)>,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl Reader {
    pub(super) fn new(table: Rc<Table>, entities: u32) -> Reader {
        Reader {
            table,
            entities,
            left: None,
            codes: Vec::new(),
            scales: Vec::new(),
        }
    }
}

impl Reading for Reader {
    type Index = VectorIndex;

    fn chunk(&mut self, mut b: Bytes<'_>) -> Result<(), Bad> {
        let dims = self.table.dims();
        while !b.is_empty() {
            match self.left {
                None => {
                    let (saved_dims, n) = (b.u32()?, b.u32()?);
                    if saved_dims as usize != dims {
                        return Err("vectors of other dimensions");
                    }
                    // Checked before it sizes anything: the section's hash is known at its
                    // end.
                    if n != self.entities {
                        return Err("vectors for another number of entities");
                    }
                    let n = n as usize;
                    // Sized once: a vector grown as it fills leaves holes a WebAssembly
                    // heap never gives back.
                    self.codes.reserve_exact(n * dims);
                    self.scales.reserve_exact(n);
                    self.left = Some((n, n));
                }
                Some((rows, scales)) if rows > 0 => {
                    let n = (b.0.len() / dims).clamp(1, rows);
                    self.codes
                        .extend_from_slice(bytemuck::cast_slice(b.take(n * dims)?));
                    self.left = Some((rows - n, scales));
                }
                Some((0, scales)) if scales > 0 => {
                    let n = (b.0.len() / 4).clamp(1, scales);
                    let from = self.scales.len();
                    self.scales.resize(from + n, 0.0);
                    let raw = b.take(n * 4)?;
                    bytemuck::cast_slice_mut::<f32, u8>(&mut self.scales[from..])
                        .copy_from_slice(raw);
                    let fine = self.scales[from..]
                        .iter()
                        .fold(true, |ok, s| ok & (s.is_finite() && *s >= 0.0));
                    if !fine {
                        return Err("a vector's scale out of range");
                    }
                    self.left = Some((0, scales - n));
                }
                Some(_) => return Err("records past the section's end"),
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<VectorIndex, Bad> {
        if self.left != Some((0, 0)) {
            return Err("a section cut short");
        }
        Ok(VectorIndex::saved(self.table, self.codes, self.scales))
    }

    fn up_to_date(index: &mut VectorIndex, touched: &Touched, graph: &Graph) {
        touched.apply_vectors(index, graph);
    }

    fn done(index: Box<VectorIndex>) -> Step {
        Step::Vectors(index)
    }
}
