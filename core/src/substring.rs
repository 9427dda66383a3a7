//! A trigram index for substring search over entities' lowercased text.
//!
//! Every entity is listed under each 3-byte window of its lowercased name, type and
//! observations (windows never span two fields). A needle of three or more bytes can only
//! occur in entities listed under all of its windows, so the intersection of those lists is
//! a small candidate set that the caller verifies; shorter needles get no candidates and the
//! caller scans. Lists are kept sorted, so candidates come out in graph order.

use alloc::vec::Vec;
use hashbrown::HashMap;
use smallvec::SmallVec;

/// Entities (arena slots) listed under one trigram, ascending.
type Posting = SmallVec<[u32; 4]>;

/// Trigram → entities whose text contains it.
#[derive(Default)]
pub struct SubstringIndex {
    postings: HashMap<u32, Posting>,
}

/// The distinct trigrams of some texts, sorted.
pub fn trigrams<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
    let mut out = Vec::new();
    for text in texts {
        out.extend(
            text.as_bytes()
                .windows(3)
                .map(|w| (w[0] as u32) << 16 | (w[1] as u32) << 8 | w[2] as u32),
        );
    }
    out.sort_unstable();
    out.dedup();
    out
}

impl SubstringIndex {
    /// Lists `slot` under each of `grams`.
    pub fn add(&mut self, slot: u32, grams: &[u32]) {
        for &g in grams {
            let posting = self.postings.entry(g).or_default();
            match posting.last() {
                // New entities have the highest slot: appending is the common case.
                Some(&last) if last >= slot => {
                    if let Err(at) = posting.binary_search(&slot) {
                        posting.insert(at, slot);
                    }
                }
                _ => posting.push(slot),
            }
        }
    }

    /// Unlists `slot` from each of `grams`.
    pub fn remove(&mut self, slot: u32, grams: &[u32]) {
        for g in grams {
            if let Some(posting) = self.postings.get_mut(g) {
                if let Ok(at) = posting.binary_search(&slot) {
                    posting.remove(at);
                }
                if posting.is_empty() {
                    self.postings.remove(g);
                }
            }
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.postings.clear();
    }

    /// Slots that may contain `needle` (already lowercased), ascending; `None` when the
    /// needle is too short for the index and every entity is a candidate.
    pub fn candidates(&self, needle: &str) -> Option<Vec<u32>> {
        if needle.len() < 3 {
            return None;
        }
        let mut lists: Vec<&Posting> = Vec::new();
        for g in trigrams([needle]) {
            match self.postings.get(&g) {
                Some(p) => lists.push(p),
                None => return Some(Vec::new()),
            }
        }
        lists.sort_unstable_by_key(|p| p.len());
        let mut out: Vec<u32> = lists[0].to_vec();
        for list in &lists[1..] {
            out.retain(|slot| list.binary_search(slot).is_ok());
            if out.is_empty() {
                break;
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_the_entities_holding_every_window() {
        let mut idx = SubstringIndex::default();
        idx.add(0, &trigrams(["alice", "person"]));
        idx.add(1, &trigrams(["bob", "likes alice"]));
        idx.add(2, &trigrams(["carol", "al", "ice"]));
        assert_eq!(idx.candidates("alic"), Some(alloc::vec![0, 1]));
        assert_eq!(idx.candidates("zzz"), Some(alloc::vec![]));
        assert_eq!(idx.candidates("al"), None);
        idx.remove(0, &trigrams(["alice", "person"]));
        assert_eq!(idx.candidates("alic"), Some(alloc::vec![1]));
    }

    #[test]
    fn windows_do_not_span_fields() {
        let mut idx = SubstringIndex::default();
        idx.add(7, &trigrams(["ab", "cd"]));
        assert_eq!(idx.candidates("bcd"), Some(alloc::vec![]));
    }
}
