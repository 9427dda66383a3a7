//! String interning with reference counts.
//!
//! Every string the graph stores (names, types, observations, relation types) lives here once.
//! The graph holds [`Sym`] handles; a string is freed when its last holder releases it, so a
//! long-running server does not keep deleted text alive.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::hash::BuildHasher;
use core::num::NonZeroU32;
use hashbrown::HashTable;

use crate::hash::Hasher;

/// Handle of an interned string. Equal handles mean equal strings. Never zero, so an
/// `Option<Sym>` takes no more room than a `Sym`.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Ord, PartialOrd, Debug)]
pub struct Sym(NonZeroU32);

impl Sym {
    /// The handle of slot `slot`.
    fn of(slot: u32) -> Sym {
        Sym(NonZeroU32::MIN.saturating_add(slot))
    }

    /// The handle's slot number.
    fn slot(self) -> u32 {
        self.0.get() - 1
    }

    /// The handle's slot number (dense, reused after a string is freed).
    pub fn index(self) -> usize {
        self.slot() as usize
    }
}

struct Slot {
    text: Box<str>,
    /// `text` lowercased like JavaScript's `toLowerCase`, for non-ASCII text where that
    /// differs from `text`. ASCII text is lowered on the fly (cheaper than a copy).
    lower: Option<Box<str>>,
    ascii: bool,
    refs: u32,
}

/// A stored string as case-insensitive search sees it: lowercased like JavaScript's
/// `String.prototype.toLowerCase` (full Unicode mapping, final sigma; not case folding).
#[derive(Copy, Clone, Debug)]
pub enum Lower<'a> {
    /// ASCII text: its lowercase form is these bytes with `A`–`Z` lowered.
    Ascii(&'a [u8]),
    /// Text that is its own lowercase form (or the stored lowercase copy).
    Text(&'a str),
}

/// A reference-counted string table.
#[derive(Default)]
pub struct Interner {
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    /// Slot numbers by their strings' hashes. Hashes are not kept: four bytes an entry
    /// instead of sixteen (a million strings' table is 8 MiB, not 32), and a table reserved
    /// ahead (as loading reserves it) never rehashes.
    table: HashTable<u32>,
    hasher: Hasher,
}

impl Interner {
    /// Returns the handle for `text`, adding one reference (and the string, if new).
    pub fn intern(&mut self, text: &str) -> Sym {
        let hash = self.hasher.hash_one(text);
        let slots = &self.slots;
        if let Some(&i) = self.table.find(hash, |&i| same(slot_text(slots, i), text)) {
            if let Some(slot) = self.slots[i as usize].as_mut() {
                slot.refs += 1;
            }
            return Sym::of(i);
        }
        let ascii = text.is_ascii();
        let lower = if ascii {
            None
        } else {
            let lower = text.to_lowercase();
            (lower != text).then(|| lower.into_boxed_str())
        };
        let slot = Slot {
            lower,
            ascii,
            text: text.into(),
            refs: 1,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(slot);
                i
            }
            None => {
                self.slots.push(Some(slot));
                (self.slots.len() - 1) as u32
            }
        };
        let (slots, hasher) = (&self.slots, &self.hasher);
        self.table
            .insert_unique(hash, i, |&i| hasher.hash_one(slot_text(slots, i)));
        Sym::of(i)
    }

    /// Makes room for `more` new strings.
    pub fn reserve(&mut self, more: usize) {
        self.slots.reserve(more);
        let (slots, hasher) = (&self.slots, &self.hasher);
        self.table
            .reserve(more, |&i| hasher.hash_one(slot_text(slots, i)));
    }

    /// Returns the handle for `text`, adding `refs` references (at least one).
    pub fn intern_with_refs(&mut self, text: &str, refs: u32) -> Sym {
        let sym = self.intern(text);
        if let Some(slot) = self.slots[sym.index()].as_mut() {
            slot.refs += refs.saturating_sub(1);
        }
        sym
    }

    /// Adds `n` references to a held string.
    pub fn add_refs(&mut self, sym: Sym, n: u32) {
        if let Some(slot) = self.slots[sym.index()].as_mut() {
            slot.refs += n;
        }
    }

    /// The handle of slot `slot`, which holds a string.
    pub fn sym_at(&self, slot: usize) -> Sym {
        Sym::of(slot as u32)
    }

    /// How many references a held string has.
    #[cfg(test)]
    pub(crate) fn refs(&self, sym: Sym) -> u32 {
        self.slots[sym.index()].as_ref().map_or(0, |s| s.refs)
    }

    /// Drops one reference; the string is freed when none remain.
    pub fn release(&mut self, sym: Sym) {
        let Some(slot) = self.slots[sym.index()].as_mut() else {
            return;
        };
        slot.refs -= 1;
        if slot.refs > 0 {
            return;
        }
        let hash = self.hasher.hash_one(&*slot.text);
        if let Ok(entry) = self.table.find_entry(hash, |&i| i == sym.slot()) {
            entry.remove();
        }
        self.slots[sym.index()] = None;
        self.free.push(sym.slot());
    }

    /// The handle of `text` if it is interned, without adding a reference.
    pub fn lookup(&self, text: &str) -> Option<Sym> {
        let hash = self.hasher.hash_one(text);
        let slots = &self.slots;
        self.table
            .find(hash, |&i| same(slot_text(slots, i), text))
            .map(|&i| Sym::of(i))
    }

    /// The string behind a handle.
    pub fn resolve(&self, sym: Sym) -> &str {
        slot_text(&self.slots, sym.slot())
    }

    /// The string lowercased like JavaScript's `String.prototype.toLowerCase`.
    pub fn lower(&self, sym: Sym) -> Lower<'_> {
        match &self.slots[sym.index()] {
            Some(slot) if slot.ascii => Lower::Ascii(slot.text.as_bytes()),
            Some(slot) => Lower::Text(slot.lower.as_deref().unwrap_or(&slot.text)),
            None => Lower::Text(""),
        }
    }

    /// One more than the largest handle's [`Sym::index`] (handles index a table this long).
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Number of distinct strings held.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when no string is held.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

/// Byte equality, eight bytes at a time. In WebAssembly `==` on slices calls a byte-by-byte
/// `memcmp`, and replay compares an interned string for every name it meets.
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let (wa, wb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (wa.remainder(), wb.remainder());
    let word = |c: &[u8]| u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    wa.zip(wb).all(|(x, y)| word(x) == word(y)) && ra == rb
}

fn slot_text(slots: &[Option<Slot>], i: u32) -> &str {
    slots[i as usize].as_ref().map_or("", |s| &s.text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_text_same_handle_and_refcounted_free() {
        let mut i = Interner::default();
        let a = i.intern("Alice");
        let b = i.intern("Alice");
        assert_eq!(a, b);
        assert_eq!(i.len(), 1);
        i.release(a);
        assert_eq!(i.lookup("Alice"), Some(a));
        i.release(b);
        assert_eq!(i.lookup("Alice"), None);
        assert!(i.is_empty());
    }

    #[test]
    fn word_wise_equality_is_byte_equality() {
        let texts = [
            "",
            "a",
            "abcdefgh",
            "abcdefgi",
            "abcdefghi",
            "abcdefghj",
            "é",
            "e\u{301}",
        ];
        for a in texts {
            for b in texts {
                assert_eq!(same(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn freed_slot_is_reused_without_confusing_lookups() {
        let mut i = Interner::default();
        let a = i.intern("a");
        let _b = i.intern("b");
        i.release(a);
        let c = i.intern("c");
        assert_eq!(c.index(), a.index());
        assert_eq!(i.resolve(c), "c");
        assert_eq!(i.lookup("a"), None);
        assert_eq!(i.lookup("b").map(|s| i.resolve(s)), Some("b"));
    }

    #[test]
    fn lowercase_follows_javascript_special_casing() {
        let mut i = Interner::default();
        let text = |l: Lower<'_>| match l {
            Lower::Ascii(b) => alloc::string::String::from_utf8(b.to_ascii_lowercase()).unwrap(),
            Lower::Text(t) => t.into(),
        };
        let odos = i.intern("ΟΔΟΣ");
        assert_eq!(text(i.lower(odos)), "οδος"); // final sigma
        let ist = i.intern("İstanbul");
        assert_eq!(text(i.lower(ist)), "i\u{307}stanbul");
        let ascii = i.intern("Mixed Case");
        assert!(matches!(i.lower(ascii), Lower::Ascii(b"Mixed Case")));
        assert_eq!(text(i.lower(ascii)), "mixed case");
    }
}
