//! The TypeScript seed's side files: `<stem>-tag-aliases.jsonl` and
//! `<stem>-saved-searches.jsonl` beside its memory file `<stem>.jsonl`, one JSON object per
//! line. Converting its memory file reads them too, into the records its tag alias and saved
//! search tools write here ([`Op::PutTagAliases`], [`Op::PutSavedSearches`]).
//!
//! The seed skips lines it cannot parse without a word; here each skipped line is counted
//! and the first reason said. Its loose spots are closed as the tools close them: an alias
//! of itself, of an alias, or of a tag that already has aliases is skipped; a saved search
//! named twice keeps its last line (the one the seed runs).

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Deserialize;

use crate::log::SideFile;
use crate::model::{Millis, SavedSearch, TagAlias};
use crate::record::{Op, Record};
use crate::time;

/// How a side file's name ends, after the memory file's name without its extension.
const TAG_ALIASES: &str = "-tag-aliases.jsonl";
const SAVED_SEARCHES: &str = "-saved-searches.jsonl";

/// The names of the side files that belong to the memory file `name`, as the seed derives
/// them (Node's `path.basename(name, path.extname(name))` and a suffix).
pub fn names(name: &str) -> [String; 2] {
    let stem = match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    };
    [
        format!("{stem}{TAG_ALIASES}"),
        format!("{stem}{SAVED_SEARCHES}"),
    ]
}

/// What the side files hold, as records, and notes on what was skipped or read.
#[derive(Debug, Default)]
pub struct Read {
    /// Records that put the aliases and saved searches in a memory (none if there were none).
    pub records: Vec<Vec<u8>>,
    /// One sentence per side file read.
    pub notes: Vec<String>,
}

/// Reads the side files (those named as [`names`] says; others are ignored).
pub fn read(files: &[SideFile]) -> Read {
    let mut out = Read::default();
    for file in files {
        let text = String::from_utf8_lossy(&file.bytes);
        let (what, count, skipped, record) = if file.name.ends_with(TAG_ALIASES) {
            let mut aliases = Aliases::default();
            let skipped = each_line(&text, |line| aliases.add(line));
            let record = Record::from(Op::PutTagAliases(aliases.borrowed())).encode();
            ("tag aliases", aliases.kept.len(), skipped, record)
        } else if file.name.ends_with(SAVED_SEARCHES) {
            let mut searches: Vec<SearchLine> = Vec::new();
            let skipped = each_line(&text, |line| {
                let search = SearchLine::parse(line)?;
                searches.retain(|s| s.s.name != search.s.name);
                searches.push(search);
                Ok(())
            });
            let list = searches.iter().map(SearchLine::borrowed).collect();
            let record = Record::from(Op::PutSavedSearches(list)).encode();
            ("saved searches", searches.len(), skipped, record)
        } else {
            continue;
        };
        let mut note = format!("read {count} {what} from {}", file.name);
        if let Some((n, first)) = skipped {
            note.push_str(&format!("; {n} line(s) skipped (the first: {first})"));
        }
        out.notes.push(note);
        if count > 0 {
            out.records.push(record);
        }
    }
    out
}

/// Calls `take` on each non-blank line; returns how many it refused and the first reason
/// (with its 1-based line number), if any.
fn each_line(
    text: &str,
    mut take: impl FnMut(&str) -> Result<(), String>,
) -> Option<(usize, String)> {
    let mut skipped: Option<(usize, String)> = None;
    for (i, line) in text.split('\n').enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if let Err(why) = take(line) {
            let first = skipped.get_or_insert_with(|| (0, format!("line {}: {why}", i + 1)));
            first.0 += 1;
        }
    }
    skipped
}

/// Why a line is not the JSON object wanted: serde's words without its position (a line is
/// one line; its number is said).
fn json_error(e: serde_json::Error) -> String {
    let words = e.to_string();
    match words.rsplit_once(" at line ") {
        Some((what, _)) => format!("{what} (column {})", e.column()),
        None => words,
    }
}

/// An optional ISO 8601 time field, 0 if absent.
fn millis(field: &str, value: Option<&str>) -> Result<Millis, String> {
    value.map_or(Ok(0), |t| {
        time::parse(t).map_err(|e| format!("`{field}`: {e}"))
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AliasLine {
    alias: String,
    canonical: String,
    description: Option<String>,
    created_at: Option<String>,
}

/// The aliases kept so far, in file order (alias and canonical tag lowercased), with their
/// times.
#[derive(Default)]
struct Aliases {
    kept: Vec<(AliasLine, Millis)>,
}

impl Aliases {
    fn add(&mut self, line: &str) -> Result<(), String> {
        let mut a: AliasLine = serde_json::from_str(line).map_err(json_error)?;
        a.alias = a.alias.to_lowercase();
        a.canonical = a.canonical.to_lowercase();
        let (alias, canonical) = (&a.alias, &a.canonical);
        if alias.is_empty() || canonical.is_empty() {
            return Err("an empty tag".into());
        }
        if alias == canonical {
            return Err(format!("\"{alias}\" is an alias of itself"));
        }
        if self.kept.iter().any(|(k, _)| &k.alias == alias) {
            return Err(format!("\"{alias}\" is an alias already"));
        }
        if self.kept.iter().any(|(k, _)| &k.canonical == alias) {
            return Err(format!("\"{alias}\" has aliases of its own"));
        }
        if self.kept.iter().any(|(k, _)| &k.alias == canonical) {
            return Err(format!("\"{canonical}\" is itself an alias"));
        }
        let created = millis("createdAt", a.created_at.as_deref())?;
        self.kept.push((a, created));
        Ok(())
    }

    fn borrowed<'a>(&'a self) -> Vec<TagAlias<'a>> {
        let each = |(a, created): &'a (AliasLine, Millis)| TagAlias {
            alias: &a.alias,
            canonical: &a.canonical,
            description: a.description.as_deref(),
            created: *created,
        };
        self.kept.iter().map(each).collect()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SearchJson {
    name: String,
    description: Option<String>,
    query: String,
    #[serde(default)]
    tags: Vec<String>,
    min_importance: Option<f64>,
    max_importance: Option<f64>,
    entity_type: Option<String>,
    created_at: Option<String>,
    last_used: Option<String>,
    #[serde(default)]
    use_count: u32,
}

/// A saved search line, checked (its tags lowercased, once each), with its times.
struct SearchLine {
    s: SearchJson,
    created: Millis,
    last_used: Millis,
}

impl SearchLine {
    fn parse(line: &str) -> Result<Self, String> {
        let mut s: SearchJson = serde_json::from_str(line).map_err(json_error)?;
        if s.name.is_empty() {
            return Err("an empty `name`".into());
        }
        let bounds = [
            ("minImportance", s.min_importance),
            ("maxImportance", s.max_importance),
        ];
        for (field, bound) in bounds {
            if bound.is_some_and(|x| !(0.0..=10.0).contains(&x)) {
                return Err(format!("`{field}` must be from 0 to 10"));
            }
        }
        let mut tags: Vec<String> = Vec::new();
        for tag in s.tags.iter().map(|t| t.to_lowercase()) {
            if !tag.is_empty() && !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        s.tags = tags;
        Ok(SearchLine {
            created: millis("createdAt", s.created_at.as_deref())?,
            last_used: millis("lastUsed", s.last_used.as_deref())?,
            s,
        })
    }

    fn borrowed(&self) -> SavedSearch<'_> {
        let s = &self.s;
        SavedSearch {
            name: &s.name,
            description: s.description.as_deref(),
            query: &s.query,
            tags: s.tags.iter().map(String::as_str).collect(),
            min_importance: s.min_importance,
            max_importance: s.max_importance,
            entity_type: s.entity_type.as_deref(),
            created: self.created,
            use_count: s.use_count,
            last_used: self.last_used,
        }
    }
}
