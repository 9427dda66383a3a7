//! The TypeScript seed's `normalize_observations` in its argument and result shapes:
//! pronouns read as the entity's name, relative dates ("yesterday", "last week", "3 days
//! ago") as ISO dates, keywords listed. Unlike the seed, which anchors every date on the
//! call's clock, each observation's dates are anchored on the time that observation was
//! added (an observation whose time is not known keeps its words). `persist` rewrites the
//! observations in place — their ids, times and order kept — as one logged change.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{answer, named};
use crate::graph::{Entity, Graph};
use crate::memory::Change;
use crate::model::{Millis, Restore};
use crate::record::Op;
use crate::time::DAY_MS;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::parse;

/// Most entities an answer lists (the rest are counted).
const LISTED: usize = 100;

/// What to do (the seed's options and defaults).
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "camelCase")]
struct Options {
    #[serde(default = "yes")]
    resolve_coreferences: bool,
    #[serde(default = "yes")]
    anchor_timestamps: bool,
    #[serde(default)]
    extract_keywords: bool,
}

fn yes() -> bool {
    true
}

impl Default for Options {
    fn default() -> Self {
        Options {
            resolve_coreferences: true,
            anchor_timestamps: true,
            extract_keywords: false,
        }
    }
}

/// One observation normalized.
#[derive(Serialize)]
struct Normalized<'a> {
    original: &'a str,
    normalized: String,
    changes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    keywords: Option<Vec<String>>,
}

/// An entity's observations normalized.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntityResult<'a> {
    entity_name: &'a str,
    /// The observations that changed.
    changes: Vec<Normalized<'a>>,
    /// Every observation, normalized.
    normalized: Vec<String>,
}

/// Pronouns read as the entity's name, and those read as its possessive.
const SUBJECT: [&str; 7] = ["he", "him", "she", "they", "them", "it", "her"];
const POSSESSIVE: [&str; 6] = ["his", "hers", "their", "theirs", "its", "her"];

/// Words after which `her` is an object, not a possessive.
const NOT_NOUN: [&str; 16] = [
    "and", "or", "to", "with", "in", "at", "on", "for", "about", "from", "by", "that", "as", "but",
    "so", "because",
];

/// The words of `text` and where they start: runs of letters (and `'`).
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, &text[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    out
}

/// `text` with its pronouns read as `name` (persons: he, she, they and theirs; other
/// entities: it, they and theirs), or `None` when it has none.
fn resolve(text: &str, name: &str, person: bool) -> Option<String> {
    let ws = words(text);
    let mut out = String::with_capacity(text.len() + 16);
    let mut last = 0;
    for (k, &(at, w)) in ws.iter().enumerate() {
        let lower = w.to_lowercase();
        let fits = |p: &&str| {
            *p == lower
                && match lower.as_str() {
                    "he" | "him" | "his" | "she" | "her" | "hers" => person,
                    "it" | "its" => !person,
                    _ => true,
                }
        };
        let next = ws.get(k + 1).map(|(_, n)| n.to_lowercase());
        let between = ws.get(k + 1).map_or("", |&(n, _)| &text[at + w.len()..n]);
        let possessive = match lower.as_str() {
            // "her car": possessive; "met her", "her and": object.
            "her" => {
                next.is_some_and(|n| {
                    !NOT_NOUN.contains(&n.as_str()) && !n.starts_with(|c: char| c.is_ascii_digit())
                }) && between.chars().all(char::is_whitespace)
            }
            _ => POSSESSIVE.iter().any(fits),
        };
        let with = if possessive && POSSESSIVE.iter().any(fits) {
            format!("{name}'s")
        } else if SUBJECT.iter().any(fits) {
            name.to_string()
        } else {
            continue;
        };
        out.push_str(&text[last..at]);
        out.push_str(&with);
        last = at + w.len();
    }
    (last > 0).then(|| {
        out.push_str(&text[last..]);
        out
    })
}

/// `YYYY-MM-DD` of a time.
fn date(at: Millis) -> String {
    crate::time::iso(at)[..10].to_string()
}

/// `YYYY-MM` of the month `months` from the one of `at` (negative: before).
fn month(at: Millis, months: i64) -> String {
    let iso = crate::time::iso(at);
    let (y, m): (i64, i64) = (
        iso[..4].parse().unwrap_or(1970),
        iso[5..7].parse().unwrap_or(1),
    );
    let n = y * 12 + (m - 1) + months;
    format!("{:04}-{:02}", n.div_euclid(12), n.rem_euclid(12) + 1)
}

/// The year of `at`, plus `years`.
fn year(at: Millis, years: i64) -> String {
    let y: i64 = crate::time::iso(at)[..4].parse().unwrap_or(1970);
    (y + years).to_string()
}

/// Number words a relative date may use.
fn number(w: &str) -> Option<i64> {
    let words = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    match w {
        "a" | "an" => Some(1),
        _ => w
            .parse()
            .ok()
            .or_else(|| (words.iter().position(|x| *x == w)).map(|i| i as i64 + 1)),
    }
}

/// The date of the relative time of words `ws[k..]` (lowercase) anchored on `at`, and how
/// many words it took.
fn relative(ws: &[String], k: usize, at: Millis) -> Option<(String, usize)> {
    let w = |i: usize| ws.get(k + i).map(String::as_str);
    let shift = |days: i64| at.checked_add_signed(days * DAY_MS as i64).map(date);
    match (w(0)?, w(1)) {
        ("yesterday", _) => Some((shift(-1)?, 1)),
        ("today", _) => Some((date(at), 1)),
        ("tomorrow", _) => Some((shift(1)?, 1)),
        ("last" | "this" | "next", Some(unit)) => {
            let n = match w(0)? {
                "last" => -1,
                "this" => 0,
                _ => 1,
            };
            let text = match unit {
                "week" => format!("week of {}", shift(7 * n)?),
                "month" => month(at, n),
                "year" => year(at, n),
                _ => return None,
            };
            Some((text, 2))
        }
        (count, Some(unit)) if w(2) == Some("ago") => {
            let n = number(count)?;
            let days = match unit.trim_end_matches('s') {
                "day" => n,
                "week" => 7 * n,
                "month" => return Some((month(at, -n), 3)),
                "year" => return Some((year(at, -n), 3)),
                _ => return None,
            };
            Some((shift(-days)?, 3))
        }
        _ => None,
    }
}

/// `text` with its relative dates anchored on `at`, and what was replaced.
fn anchor(text: &str, at: Millis) -> (String, Vec<String>) {
    let ws = words(text);
    let lower: Vec<String> = ws.iter().map(|(_, w)| w.to_lowercase()).collect();
    let (mut out, mut changes, mut last, mut k) = (String::new(), Vec::new(), 0, 0);
    while k < ws.len() {
        match relative(&lower, k, at) {
            Some((with, n)) => {
                let (start, end) = (ws[k].0, ws[k + n - 1].0 + ws[k + n - 1].1.len());
                out.push_str(&text[last..start]);
                out.push_str(&with);
                changes.push(format!("'{}' -> '{with}'", &text[start..end]));
                last = end;
                k += n;
            }
            None => k += 1,
        }
    }
    out.push_str(&text[last..]);
    (out, changes)
}

/// Words that are no keywords.
const STOPWORDS: &[&str] = &[
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had",
    "do", "does", "did", "will", "would", "could", "should", "may", "might", "must", "shall",
    "can", "to", "of", "in", "for", "on", "with", "at", "by", "from", "as", "into", "through",
    "during", "before", "after", "above", "below", "between", "under", "again", "further", "then",
    "once", "here", "there", "when", "where", "why", "how", "all", "each", "few", "more", "most",
    "other", "some", "such", "no", "nor", "not", "only", "own", "same", "so", "than", "too",
    "very", "s", "t", "just", "don", "now", "and", "but", "or",
];

/// The seed's keywords of a text: lowercase words of three letters or more, not
/// stopwords, each once.
fn keywords(text: &str) -> Vec<String> {
    let cleaned: String = (text.to_lowercase().chars())
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c.is_whitespace())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for w in cleaned.split_whitespace() {
        if w.len() > 2 && !STOPWORDS.contains(&w) && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    }
    out
}

/// Entity `e`'s observations normalized.
fn normalize<'g>(g: &'g Graph, e: &Entity, o: Options) -> EntityResult<'g> {
    let name = g.text(e.name);
    let person = g.text(e.entity_type).eq_ignore_ascii_case("person");
    let mut result = EntityResult {
        entity_name: name,
        changes: Vec::new(),
        normalized: Vec::new(),
    };
    for (&obs, meta) in e.observations.iter().zip(&e.facts) {
        let original = g.text(obs);
        let mut text = original.to_string();
        let mut changes = Vec::new();
        if o.resolve_coreferences
            && let Some(resolved) = resolve(&text, name, person)
        {
            text = resolved;
            changes.push(format!("Resolved pronouns to '{name}'"));
        }
        let at = if meta.created != 0 {
            meta.created
        } else {
            e.created
        };
        if o.anchor_timestamps && at != 0 {
            let (anchored, replaced) = anchor(&text, at);
            text = anchored;
            changes.extend(replaced);
        }
        if !changes.is_empty() {
            result.changes.push(Normalized {
                original,
                normalized: text.clone(),
                changes,
                keywords: o.extract_keywords.then(|| keywords(&text)),
            });
        }
        result.normalized.push(text);
    }
    result
}

/// `normalize_observations`: pronouns and relative dates read, for one entity or all;
/// with `persist`, written back.
pub fn normalize_observations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        entity_name: Option<&'a str>,
        options: Option<Options>,
        #[serde(default)]
        persist: bool,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out<'a> {
        entities_processed: usize,
        persisted: bool,
        /// Entities with an observation changed, of which at most 100 are listed.
        entities_changed: usize,
        results: Vec<EntityResult<'a>>,
    }
    let args: Args = parse(a)?;
    let g = t.graph;
    let options = args.options.unwrap_or_default();
    let ids = match args.entity_name {
        Some(name) => g.named(name).to_vec().into_iter().take(1).collect(),
        None => g.entities().map(|(id, _)| id).collect::<Vec<_>>(),
    };
    if let (Some(name), true) = (args.entity_name, ids.is_empty()) {
        named(g, name)?;
    }
    let mut changed = Vec::new();
    for &id in &ids {
        let r = normalize(g, g.entity(id), options);
        if !r.changes.is_empty() {
            changed.push((id, r));
        }
    }
    let mut change = Change::NONE;
    if args.persist && !changed.is_empty() {
        let mut names: Vec<&str> = changed.iter().map(|(_, r)| r.entity_name).collect();
        names.sort_unstable();
        names.dedup();
        let mut put = Vec::new();
        for &name in &names {
            for &id in g.named(name) {
                let e = g.entity(id);
                let mut state = g.entity_state(e);
                if let Some((_, r)) = changed.iter().find(|(c, _)| *c == id) {
                    for (fact, text) in state.facts.iter_mut().zip(&r.normalized) {
                        fact.text = text;
                    }
                    if t.now != 0 {
                        state.updated = t.now;
                    }
                }
                put.push(state);
            }
        }
        change = Change::of(alloc::vec![Op::Restore(Restore {
            entities: names,
            relations: Vec::new(),
            put_entities: put,
            put_relations: Vec::new(),
        })]);
    }
    let result = answer(&Out {
        entities_processed: ids.len(),
        persisted: args.persist,
        entities_changed: changed.len(),
        results: changed.into_iter().take(LISTED).map(|(_, r)| r).collect(),
    });
    Ok(Plan { change, result })
}
