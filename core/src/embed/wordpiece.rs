//! BERT-uncased tokenisation, as the `tokenizers` library does it for all-MiniLM-L6-v2
//! (`BertNormalizer`, `BertPreTokenizer`, `WordPiece`): the ids the table's rows are
//! numbered by.
//!
//! 1. Normalise, a character at a time: drop NUL, U+FFFD and other characters (`Cc`, `Cf`,
//!    `Co`, `Cn`) except tab, newline and return; any whitespace becomes a space; a CJK
//!    ideograph gets a space on each side; canonical decomposition with nonspacing marks
//!    (`Mn`) dropped; lowercase (`char::to_lowercase`).
//! 2. Split into words at whitespace, and make every punctuation character (ASCII
//!    punctuation, or general category `P*`) a word of its own.
//! 3. WordPiece each word: the longest vocabulary entry that starts it, then the longest
//!    `##`-prefixed entry that starts the rest, and so on; a word with a piece that matches
//!    nothing, or of more than 100 characters, is `[UNK]`.

use alloc::string::String;
use alloc::vec::Vec;
use core::hash::BuildHasher;

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use rustc_hash::FxBuildHasher;
use unicode_normalization::char::decompose_canonical;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// Words longer than this many characters are `[UNK]` whole.
const MAX_WORD_CHARS: usize = 100;

/// A WordPiece vocabulary: token ids by text.
pub struct Vocab {
    /// The tokens, one after another.
    text: String,
    /// Where token `i` starts in `text`; token `i` ends where `i + 1` starts.
    starts: Vec<u32>,
    /// Token ids, found by their text's hash.
    ids: HashTable<u32>,
    /// The id of `[UNK]`.
    unk: u32,
}

impl Vocab {
    /// The vocabulary of `lines` (token `i` is line `i`), or `None` if it has no `[UNK]`.
    pub fn new<'a>(lines: impl Iterator<Item = &'a str>) -> Option<Vocab> {
        let (mut text, mut starts) = (String::new(), Vec::new());
        for line in lines {
            starts.push(text.len() as u32);
            text.push_str(line);
        }
        starts.push(text.len() as u32);
        let hash = |id: &u32| FxBuildHasher.hash_one(piece(&text, &starts, *id));
        let mut ids = HashTable::with_capacity(starts.len() - 1);
        for id in 0..starts.len() as u32 - 1 {
            let token = piece(&text, &starts, id);
            let same = |i: &u32| piece(&text, &starts, *i) == token;
            if let Entry::Vacant(slot) = ids.entry(hash(&id), same, hash) {
                slot.insert(id);
            }
        }
        let mut v = Vocab {
            text,
            starts,
            ids,
            unk: 0,
        };
        v.unk = v.id("[UNK]")?;
        Some(v)
    }

    /// How many tokens it has.
    pub(crate) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// The id of `[UNK]`, which stands for a word no pieces make up.
    pub fn unk(&self) -> u32 {
        self.unk
    }

    /// Token `id`'s text.
    pub fn token(&self, id: u32) -> &str {
        piece(&self.text, &self.starts, id)
    }

    /// The id of `token`, if the vocabulary has it.
    pub fn id(&self, token: &str) -> Option<u32> {
        let hash = FxBuildHasher.hash_one(token);
        self.ids.find(hash, |&i| self.token(i) == token).copied()
    }

    /// Appends the ids of `text`'s tokens to `out` (no `[CLS]` or `[SEP]`). `buf` is scratch
    /// space.
    pub fn tokenize(&self, text: &str, buf: &mut String, out: &mut Vec<u32>) {
        normalize(text, buf);
        let mut piece = String::new();
        for word in words(buf) {
            self.word(word, &mut piece, out);
        }
    }

    /// WordPiece of one word.
    fn word(&self, word: &str, piece: &mut String, out: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            out.push(self.unk);
            return;
        }
        let before = out.len();
        let mut start = 0;
        while start < word.len() {
            let rest = &word[start..];
            let found = rest
                .char_indices()
                .map(|(i, c)| i + c.len_utf8())
                .rev()
                .find_map(|end| {
                    piece.clear();
                    if start > 0 {
                        piece.push_str("##");
                    }
                    piece.push_str(&rest[..end]);
                    self.id(piece).map(|id| (id, end))
                });
            let Some((id, end)) = found else {
                out.truncate(before);
                out.push(self.unk);
                return;
            };
            out.push(id);
            start += end;
        }
    }
}

fn piece<'t>(text: &'t str, starts: &[u32], id: u32) -> &'t str {
    let i = id as usize;
    &text[starts[i] as usize..starts[i + 1] as usize]
}

/// Step 1 of the module's docs: `text` normalised into `out`.
fn normalize(text: &str, out: &mut String) {
    out.clear();
    out.reserve(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            match c {
                '\t' | '\n' | '\r' | ' ' => out.push(' '),
                c if c.is_ascii_control() => {}
                c => out.push(c.to_ascii_lowercase()),
            }
            continue;
        }
        if c == '\u{fffd}' || is_other(c) {
            continue;
        }
        if c.is_whitespace() {
            out.push(' ');
            continue;
        }
        let chinese = is_chinese(c);
        if chinese {
            out.push(' ');
        }
        decompose_canonical(c, |d| {
            if d.general_category() != GeneralCategory::NonspacingMark {
                out.extend(d.to_lowercase());
            }
        });
        if chinese {
            out.push(' ');
        }
    }
}

/// `Cc`, `Cf`, `Co` or `Cn`.
fn is_other(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::PrivateUse
            | GeneralCategory::Unassigned
    )
}

/// The CJK ideographs BERT puts spaces around.
fn is_chinese(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B920..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        // Every ASCII character of category P* is ASCII punctuation (not all of it is: `$`,
        // `+`, `^` and others are symbols, which BERT splits off too).
        return c.is_ascii_punctuation();
    }
    c.general_category_group() == GeneralCategoryGroup::Punctuation
}

/// Step 2 of the module's docs: the words of normalised text.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    core::iter::from_fn(move || {
        rest = rest.trim_start_matches(char::is_whitespace);
        let first = rest.chars().next()?;
        let len = if is_punctuation(first) {
            first.len_utf8()
        } else {
            rest.find(|c: char| c.is_whitespace() || is_punctuation(c))
                .unwrap_or(rest.len())
        };
        let (word, after) = rest.split_at(len);
        rest = after;
        Some(word)
    })
}
