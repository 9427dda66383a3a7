//! A trigram index for substring search over entities' lowercased text.
//!
//! Every 3-byte window of an entity's lowercased name, type and observations (windows never
//! span two fields) is hashed to one of [`BUCKETS`] buckets, and the entity is listed under
//! each bucket its windows reach. A needle can only occur in entities listed under the
//! buckets of all its windows, so the intersection of those lists is a small candidate set
//! that the caller verifies. Two trigrams sharing a bucket only add candidates, never lose
//! one. Windows holding a space are not indexed (they are the commonest and least telling;
//! skipping them saves a third of the work); a needle with no other window gets no
//! candidates, and the caller scans.
//!
//! Buckets are a flat array, so indexing an entity is a few hundred pushes without hashing;
//! lists are kept sorted by slot, so candidates come out in graph order. A list that grows
//! dense (more than one slot in [`DENSE`]) becomes a bitmap of slots, so listing or
//! unlisting an entity under a common trigram costs the same at any size, instead of moving
//! a list as long as the graph.

use alloc::vec::Vec;
use smallvec::SmallVec;

use crate::intern::Lower;
use memchr::memmem::Finder;

/// Number of buckets (a power of two).
pub const BUCKETS: usize = 1 << 16;

/// A list holding more than one slot in this many becomes a bitmap (which is then smaller).
pub const DENSE: u32 = 32;

/// Lists shorter than this stay lists, however few slots the graph has.
const MIN_BITMAP_LEN: usize = 256;

/// Entities (arena slots) listed under one bucket: ascending slots, or a bitmap of them.
#[derive(Debug, Clone)]
pub(crate) enum Posting {
    List(SmallVec<[u32; 4]>),
    Bits { words: Vec<u64>, len: usize },
}

/// Whether a list of `len` slots spanning `span` is dense enough to be a bitmap.
pub(crate) fn is_dense(len: usize, span: u32) -> bool {
    len >= MIN_BITMAP_LEN && len as u64 * u64::from(DENSE) > u64::from(span)
}

impl Posting {
    fn new() -> Self {
        Posting::List(SmallVec::new())
    }

    fn len(&self) -> usize {
        match self {
            Posting::List(list) => list.len(),
            Posting::Bits { len, .. } => *len,
        }
    }

    fn contains(&self, slot: u32) -> bool {
        match self {
            Posting::List(list) => list.binary_search(&slot).is_ok(),
            Posting::Bits { words, .. } => words
                .get(slot as usize / 64)
                .is_some_and(|w| w & (1 << (slot % 64)) != 0),
        }
    }

    /// Lists `slot` (once).
    fn add(&mut self, slot: u32) {
        match self {
            Posting::List(list) => {
                match list.last() {
                    // Already listed by an earlier window of this entity.
                    Some(&last) if last == slot => return,
                    // An older entity gaining text: keep the list sorted.
                    Some(&last) if last > slot => match list.binary_search(&slot) {
                        Ok(_) => return,
                        Err(at) => list.insert(at, slot),
                    },
                    // The newest entity: the common case.
                    _ => list.push(slot),
                }
                let span = list.last().map_or(0, |&l| l + 1);
                if is_dense(list.len(), span) {
                    let mut words = alloc::vec![0u64; (span as usize).div_ceil(64)];
                    for &s in list.iter() {
                        words[s as usize / 64] |= 1 << (s % 64);
                    }
                    *self = Posting::Bits {
                        words,
                        len: list.len(),
                    };
                }
            }
            Posting::Bits { words, len } => {
                let at = slot as usize / 64;
                if at >= words.len() {
                    words.resize(at + 1, 0);
                }
                let bit = 1 << (slot % 64);
                if words[at] & bit == 0 {
                    words[at] |= bit;
                    *len += 1;
                }
            }
        }
    }

    /// Unlists `slot` if listed.
    fn remove(&mut self, slot: u32) {
        match self {
            Posting::List(list) => {
                if let Ok(at) = list.binary_search(&slot) {
                    list.remove(at);
                }
            }
            Posting::Bits { words, len } => {
                if let Some(w) = words.get_mut(slot as usize / 64) {
                    let bit = 1 << (slot % 64);
                    if *w & bit != 0 {
                        *w &= !bit;
                        *len -= 1;
                    }
                }
            }
        }
    }

    /// The slots, ascending.
    pub(crate) fn slots(&self) -> Vec<u32> {
        match self {
            Posting::List(list) => list.to_vec(),
            Posting::Bits { words, len } => {
                let mut out = Vec::with_capacity(*len);
                for (i, &w) in words.iter().enumerate() {
                    let mut w = w;
                    while w != 0 {
                        out.push(i as u32 * 64 + w.trailing_zeros());
                        w &= w - 1;
                    }
                }
                out
            }
        }
    }
}

/// Bucket → entities whose text has a window hashing to it.
#[derive(Default)]
pub struct SubstringIndex {
    /// Empty until the first entity is indexed, then [`BUCKETS`] long.
    buckets: Vec<Posting>,
}

/// The bucket of a trigram (three lowercase bytes in the low 24 bits).
fn bucket(trigram: u32) -> usize {
    (trigram.wrapping_mul(0x9E37_79B1) >> 16) as usize & (BUCKETS - 1)
}

/// Whether a trigram holds a space byte.
fn has_space(trigram: u32) -> bool {
    let x = trigram ^ 0x20_2020;
    (x.wrapping_sub(0x01_0101) & !x & 0x80_8080) != 0
}

/// The buckets of the indexed windows (those without a space) of a lowercased text.
fn windows(text: Lower<'_>) -> impl Iterator<Item = usize> + '_ {
    let (bytes, lower_ascii) = match text {
        Lower::Ascii(b) => (b, true),
        Lower::Text(t) => (t.as_bytes(), false),
    };
    bytes
        .iter()
        .map(move |&x| {
            if lower_ascii {
                x.to_ascii_lowercase()
            } else {
                x
            }
        })
        .scan(0u32, |window, x| {
            *window = (*window << 8 | x as u32) & 0xFF_FFFF;
            Some(*window)
        })
        .skip(2)
        .filter(|&w| !has_space(w))
        .map(bucket)
}

/// The distinct buckets the windows of some texts reach, sorted.
pub fn buckets_of<'a>(texts: impl IntoIterator<Item = Lower<'a>>) -> Vec<u32> {
    let mut out: Vec<u32> = texts
        .into_iter()
        .flat_map(|t| windows(t).map(|b| b as u32))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

impl SubstringIndex {
    /// The index saved indexes restate: `buckets` holds none, or every one (its reader
    /// checks the count before reading them).
    pub(crate) fn saved(buckets: Vec<Posting>) -> SubstringIndex {
        debug_assert!(matches!(buckets.len(), 0 | BUCKETS));
        SubstringIndex { buckets }
    }

    /// Every bucket's posting, in order (none before the first entity is indexed).
    pub(crate) fn buckets(&self) -> &[Posting] {
        &self.buckets
    }

    /// Lists `slot` under the buckets of every window of `texts`.
    pub fn add<'a>(&mut self, slot: u32, texts: impl IntoIterator<Item = Lower<'a>>) {
        if self.buckets.is_empty() {
            self.buckets.resize_with(BUCKETS, Posting::new);
        }
        for text in texts {
            for b in windows(text) {
                self.buckets[b].add(slot);
            }
        }
    }

    /// Unlists `slot` from these buckets (as returned by [`buckets_of`]).
    pub fn remove(&mut self, slot: u32, buckets: &[u32]) {
        for &b in buckets {
            if let Some(posting) = self.buckets.get_mut(b as usize) {
                posting.remove(slot);
            }
        }
    }

    /// Slots that may contain `needle` (already lowercased), ascending; `None` when the
    /// needle is too short for the index and every entity is a candidate.
    pub fn candidates(&self, needle: &str) -> Option<Vec<u32>> {
        let buckets = buckets_of([Lower::Text(needle)]);
        if buckets.is_empty() {
            return None;
        }
        if self.buckets.is_empty() {
            return Some(Vec::new());
        }
        let mut lists: Vec<&Posting> = buckets
            .into_iter()
            .map(|b| &self.buckets[b as usize])
            .collect();
        lists.sort_unstable_by_key(|p| p.len());
        let mut out: Vec<u32> = lists[0].slots();
        for list in &lists[1..] {
            if out.is_empty() {
                break;
            }
            out.retain(|&slot| list.contains(slot));
        }
        Some(out)
    }
}

/// A lowercased query, ready to test stored strings.
pub struct Needle<'a> {
    text: &'a str,
    finder: Finder<'a>,
}

impl<'a> Needle<'a> {
    /// A needle for text already lowercased like JavaScript's `toLowerCase`.
    pub fn new(lowercased: &'a str) -> Self {
        Needle {
            text: lowercased,
            finder: Finder::new(lowercased.as_bytes()),
        }
    }

    /// Whether the stored string, lowercased, contains the needle.
    pub fn found_in(&self, hay: Lower<'_>) -> bool {
        match hay {
            Lower::Text(t) => self.finder.find(t.as_bytes()).is_some(),
            // Lowered ASCII is ASCII: it cannot contain a needle that is not.
            Lower::Ascii(b) => self.text.is_ascii() && contains_lowered(b, self.text.as_bytes()),
        }
    }
}

/// Whether ASCII `hay`, with `A`–`Z` lowered, contains `needle` (lowercase ASCII).
fn contains_lowered(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    if hay.len() < needle.len() {
        return false;
    }
    let last_start = hay.len() - needle.len();
    let mut at = 0;
    while let Some(i) = memchr::memchr2(first, first.to_ascii_uppercase(), &hay[at..=last_start]) {
        let start = at + i;
        if hay[start + 1..start + needle.len()].eq_ignore_ascii_case(rest) {
            return true;
        }
        at = start + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_the_entities_holding_every_window() {
        let mut idx = SubstringIndex::default();
        idx.add(0, [Lower::Ascii(b"Alice"), Lower::Text("person")]);
        idx.add(1, [Lower::Text("bob"), Lower::Ascii(b"likes ALICE")]);
        idx.add(2, ["carol", "al", "ice"].map(Lower::Text));
        assert_eq!(idx.candidates("alic"), Some(alloc::vec![0, 1]));
        assert_eq!(idx.candidates("zzz"), Some(alloc::vec![]));
        assert_eq!(idx.candidates("al"), None);
        idx.remove(0, &buckets_of(["alice", "person"].map(Lower::Text)));
        assert_eq!(idx.candidates("alic"), Some(alloc::vec![1]));
    }

    #[test]
    fn needles_match_lowered_ascii_and_stored_text() {
        let n = Needle::new("ice b");
        assert!(n.found_in(Lower::Ascii(b"ALICE Bob")));
        assert!(!n.found_in(Lower::Ascii(b"ALICEBob")));
        assert!(n.found_in(Lower::Text("alice bob")));
        assert!(Needle::new("").found_in(Lower::Ascii(b"")));
        assert!(!Needle::new("é").found_in(Lower::Ascii(b"E")));
        assert!(Needle::new("x").found_in(Lower::Ascii(b"X")));
        assert!(!Needle::new("xy").found_in(Lower::Ascii(b"X")));
    }

    #[test]
    fn windows_with_spaces_are_not_indexed() {
        assert!(has_space(0x20_6162) && has_space(0x61_2062) && has_space(0x61_6220));
        assert!(!has_space(0x61_6263) && !has_space(0x00_0000) && !has_space(0x21_2121));
        let mut idx = SubstringIndex::default();
        idx.add(0, [Lower::Text("a b c")]);
        assert_eq!(idx.candidates("a b"), None, "only space windows: scan");
        assert_eq!(idx.candidates(" b c"), None);
        idx.add(1, [Lower::Text("xyz abc")]);
        assert_eq!(idx.candidates("z ab"), None, "every window holds a space");
        assert_eq!(idx.candidates("xyz a"), Some(alloc::vec![1]));
    }

    #[test]
    fn windows_do_not_span_fields() {
        let mut idx = SubstringIndex::default();
        idx.add(7, ["ab", "cd"].map(Lower::Text));
        assert_eq!(idx.candidates("bcd"), Some(alloc::vec![]));
    }

    #[test]
    fn an_older_entity_gaining_text_stays_in_order() {
        let mut idx = SubstringIndex::default();
        idx.add(1, [Lower::Text("xyz")]);
        idx.add(3, [Lower::Ascii(b"XYZ")]);
        idx.add(2, [Lower::Text("xyz")]);
        assert_eq!(idx.candidates("xyz"), Some(alloc::vec![1, 2, 3]));
    }

    /// A list that grows dense becomes a bitmap; listing, unlisting and candidates answer
    /// as the list did (ascending, each slot once), for new and older entities alike.
    #[test]
    fn a_dense_list_becomes_a_bitmap_that_answers_as_the_list_did() {
        let mut idx = SubstringIndex::default();
        let n = 2 * MIN_BITMAP_LEN as u32;
        for slot in (0..n).filter(|s| s % 3 != 0) {
            idx.add(slot, [Lower::Text("common xyz")]);
        }
        let bucket = buckets_of([Lower::Text("xyz")])[0] as usize;
        assert!(matches!(idx.buckets[bucket], Posting::Bits { .. }));
        // Older entities gaining the text, one already listed, and one past the end.
        for slot in [0, 3, 4, n + 100] {
            idx.add(slot, [Lower::Text("xyz")]);
        }
        idx.remove(1, &buckets_of([Lower::Text("xyz")]));
        idx.remove(1, &buckets_of([Lower::Text("xyz")]));
        let mut expected: Vec<u32> = (0..n).filter(|s| s % 3 != 0 && *s != 1).collect();
        expected.extend([0, 3, n + 100]);
        expected.sort_unstable();
        assert_eq!(idx.candidates("xyz"), Some(expected.clone()));
        assert_eq!(idx.buckets[bucket].len(), expected.len());
        // Intersections mixing a bitmap and a short list.
        idx.add(7, [Lower::Text("qqxyz")]);
        assert_eq!(idx.candidates("qqxyz"), Some(alloc::vec![7]));
    }
}
