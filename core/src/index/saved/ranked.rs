//! The ranked index's section: a preamble, the entities' figures, then the terms in text
//! order with their postings.
//!
//! ```text
//! preamble = entities u32 | terms u32 | field lengths 3 × u64 | observations u64
//! entity   = field lengths 3 × u32 | next observation position u32 | observations u32
//! term     = text length u32 | text | entities u32 | postings u32 | (slot u32 | position u32)*
//! ```

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::touched::Touched;
use super::{Bad, Bytes, Dense, Put, Reading, Step, Writer};
use crate::graph::Graph;
use crate::index::search::index::{DEAD, Doc, FIELDS, Occ, SearchIndex, Term};
use crate::log::LogError;

/// Writes `index`'s records, slots as `dense` places them.
pub(super) fn write(
    index: &SearchIndex,
    dense: &Dense,
    w: &mut Writer<'_>,
) -> Result<(), LogError> {
    index.with_sorted(|sorted, _| {
        let out = w.out();
        out.u32(dense.len);
        out.u32(sorted.len() as u32);
        for total in index.total_len {
            out.u64(total);
        }
        out.u64(index.total_obs);
        w.record()?;
        for (slot, doc) in index.docs.iter().enumerate() {
            if dense.place(slot as u32).is_none() {
                continue;
            }
            let out = w.out();
            for len in doc.len {
                out.u32(len);
            }
            out.u32(doc.next_obs);
            out.u32(doc.obs_count);
            w.record()?;
        }
        for &id in sorted {
            let term = &index.terms[id as usize];
            let out = w.out();
            out.u32(term.text.len() as u32);
            out.extend_from_slice(term.text.as_bytes());
            out.u32(term.df);
            out.u32(term.postings.len() as u32 - term.dead);
            for o in term.postings.iter().filter(|o| o.pos != DEAD) {
                out.u32(dense.place(o.doc).unwrap_or(u32::MAX));
                out.u32(o.pos);
            }
            w.record()?;
        }
        Ok(())
    })
}

/// The fewest bytes a term's record takes: its text's length, no text, its entities and
/// postings, one posting.
const TERM_MIN: u64 = 4 + 4 + 4 + 8;

/// Reads the section back.
pub(super) struct Reader {
    /// Entities and terms still to come; `None` before the preamble.
    left: Option<(u32, u32)>,
    /// Entities in the checkpoint: as many figures, every slot below.
    entities: u32,
    /// Bytes of the section: bounds how many terms it can hold.
    bytes: u64,
    docs: Vec<Doc>,
    terms: Vec<Term>,
    totals: ([u64; FIELDS], u64),
}

impl Reader {
    pub(super) fn new(entities: u32, bytes: u64) -> Reader {
        Reader {
            left: None,
            entities,
            bytes,
            docs: Vec::new(),
            terms: Vec::new(),
            totals: ([0; FIELDS], 0),
        }
    }
}

impl Reading for Reader {
    type Index = SearchIndex;

    fn chunk(&mut self, mut b: Bytes<'_>) -> Result<(), Bad> {
        while !b.is_empty() {
            let (docs, terms) = match self.left {
                None => {
                    let (entities, terms) = (b.u32()?, b.u32()?);
                    let lens = [b.u64()?, b.u64()?, b.u64()?];
                    self.totals = (lens, b.u64()?);
                    // Checked before they size anything: the section's hash is known only
                    // at its end.
                    if entities != self.entities || u64::from(terms) > self.bytes / TERM_MIN {
                        return Err("counts the section cannot hold");
                    }
                    self.docs.reserve_exact(entities as usize);
                    self.terms.reserve_exact(terms as usize);
                    self.left = Some((entities, terms));
                    continue;
                }
                Some(left) => left,
            };
            if docs > 0 {
                let [a, b2, c, next_obs, obs_count] =
                    [b.u32()?, b.u32()?, b.u32()?, b.u32()?, b.u32()?];
                self.docs.push(Doc::saved([a, b2, c], next_obs, obs_count));
                self.left = Some((docs - 1, terms));
            } else if terms > 0 {
                self.terms.push(term(&mut b, self.entities)?);
                self.left = Some((0, terms - 1));
            } else {
                return Err("records past the section's end");
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<SearchIndex, Bad> {
        if self.left != Some((0, 0)) {
            return Err("a section cut short");
        }
        let (lens, obs) = self.totals;
        SearchIndex::saved(self.terms, self.docs, lens, obs)
    }

    fn up_to_date(index: &mut SearchIndex, touched: &Touched, graph: &Graph) {
        touched.apply_ranked(index, graph);
    }

    fn done(index: Box<SearchIndex>) -> Step {
        Step::Ranked(index)
    }
}

/// One term's record: its postings, ascending (so each entity's are a run), none dead, of
/// saved entities, and as many entities as it says.
fn term(b: &mut Bytes<'_>, entities: u32) -> Result<Term, Bad> {
    let len = b.u32()? as usize;
    let text = core::str::from_utf8(b.take(len)?).map_err(|_| "a term that is not UTF-8")?;
    let (df, count) = (b.u32()?, b.u32()? as usize);
    let raw = b.take(count.checked_mul(8).ok_or("a record cut short")?)?;
    // As they lie in memory: a copy.
    let mut postings = alloc::vec![Occ { doc: 0, pos: 0 }; count];
    bytemuck::cast_slice_mut::<Occ, u8>(&mut postings).copy_from_slice(raw);
    // One pass with no early exit: in order, none dead, and as many runs as entities.
    let (mut ordered, mut runs) = (true, u32::from(count > 0));
    for w in postings.windows(2) {
        ordered &= w[0] < w[1];
        runs += u32::from(w[0].doc != w[1].doc);
    }
    let live = postings.iter().fold(true, |ok, o| ok & (o.pos != DEAD));
    if !ordered || !live || postings.last().is_some_and(|l| l.doc >= entities) {
        return Err("postings out of order or range");
    }
    if count == 0 || runs != df {
        return Err("a term whose entities do not add up");
    }
    Ok(Term::saved(Box::from(text), postings, df))
}
