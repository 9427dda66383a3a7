//! The TypeScript seed's query tools in its argument and result shapes: `search_auto` (its
//! cost model choosing a search), `analyze_query` (its rules reading a query: persons,
//! places, organisations, times, question type, complexity; a plan) and `smart_search`
//! (hybrid search refined until adequate), on this server's searches.
//!
//! Every answer is a function of the call and the memory: no clock (`search_auto` has no
//! `executionTimeMs`), no randomness.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::search::{
    CAP, Matched, Ranked, boolean_ids, fuzzy_ids, js_f64, matched, query_of, ranked_ids,
};
use super::semantic::{Hit, Scores, hybrid_plain};
use super::{EntityJson, answer};
use crate::graph::EntityId;
use crate::json::round4;
use crate::tools::Ctx;
use crate::tools::filter::Filter;
use crate::tools::parse;

/// Whether `c` is a regular-expression word character (`\w`).
fn word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Where `word` (ASCII, lowercase) occurs in `text` (lowercase) as a whole word (`\b`).
/// `query` lowercased when every character keeps its place (a byte offset in one is the
/// same character's in the other; `İ` or `K` (the kelvin sign) move them), else `None`.
fn lower_in_place(query: &str) -> Option<String> {
    let lower = query.to_lowercase();
    let places = |s: &str| s.char_indices().map(|(i, _)| i).collect::<Vec<_>>();
    (lower.len() == query.len() && places(&lower) == places(query)).then_some(lower)
}

fn word_at(text: &str, word: &str, from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = text.get(at..)?.find(word) {
        let start = at + i;
        let end = start + word.len();
        let before = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !word_char(c));
        let after = text[end..].chars().next().is_none_or(|c| !word_char(c));
        if before && after {
            return Some(start);
        }
        at = start + 1;
        while !text.is_char_boundary(at) {
            at += 1;
        }
    }
    None
}

/// Whether `text` (lowercase) holds one of `words` as a whole word.
fn has_word(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| word_at(text, w, 0).is_some())
}

/// The query's words as JavaScript's `split(/\s+/)` makes them (an empty first one when it
/// starts with white space).
fn js_words(query: &str) -> Vec<&str> {
    let mut words: Vec<&str> = query.split_whitespace().collect();
    if query.starts_with(char::is_whitespace) {
        words.insert(0, "");
    }
    if query.ends_with(char::is_whitespace) && !query.trim().is_empty() {
        words.push("");
    }
    words
}

/// `word` without what is not an ASCII letter.
fn letters(word: &str) -> String {
    word.chars().filter(char::is_ascii_alphabetic).collect()
}

/// A number (not negative) rounded to the nearest whole one, halves up (`Math.round`).
fn round(x: f64) -> f64 {
    (x + 0.5) as u64 as f64
}

/// Each once, in first-seen order.
fn unique(list: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for x in list {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// A time the query names: a relative one, or dates.
#[derive(Serialize, Clone)]
#[serde(untagged)]
enum Temporal {
    Relative {
        relative: &'static str,
    },
    Dates {
        start: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        end: Option<String>,
    },
}

/// A name the query mentions, and what it is taken for.
#[derive(Serialize)]
struct Mention {
    name: String,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// What the seed's analyser reads in a query.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Analysis {
    query: String,
    entities: Vec<Mention>,
    persons: Vec<String>,
    locations: Vec<String>,
    organizations: Vec<String>,
    temporal_range: Option<Temporal>,
    question_type: &'static str,
    complexity: &'static str,
    confidence: f64,
    required_info_types: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sub_queries: Option<Vec<String>>,
}

/// Relative times the analyser knows, in the order it tries them.
const RELATIVE: [&str; 12] = [
    "yesterday",
    "today",
    "tomorrow",
    "last week",
    "last month",
    "last year",
    "this week",
    "this month",
    "this year",
    "next week",
    "next month",
    "next year",
];

/// Question types and the words (substrings) that show them, in the order tried.
const QUESTIONS: [(&str, &[&str]); 6] = [
    ("factual", &["what", "who", "where", "which"]),
    ("temporal", &["when", "how long", "since", "until"]),
    (
        "comparative",
        &["compare", "difference", "vs", "versus", "better", "worse"],
    ),
    (
        "aggregation",
        &["how many", "count", "total", "sum", "average"],
    ),
    (
        "multi-hop",
        &["and then", "which means", "therefore", "related to"],
    ),
    (
        "conceptual",
        &[
            "explain",
            "why",
            "how does",
            "what is the meaning",
            "understand",
        ],
    ),
];

/// Reads `query` by the seed's rules.
fn analyze(query: &str) -> Analysis {
    let lower = query.to_lowercase();
    let words = js_words(query);
    let upper = |w: &str| w.starts_with(|c: char| c.is_ascii_uppercase());
    let mut persons = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let titled = ["Mr.", "Mrs.", "Ms.", "Dr.", "Prof."]
            .iter()
            .any(|p| w.starts_with(p));
        if titled && let Some(next) = words.get(i + 1) {
            persons.push(letters(next));
        }
        let mut cs = w.chars();
        let capitalised = cs.next().is_some_and(|c| c.is_ascii_uppercase())
            && w.len() > 1
            && cs.all(|c| c.is_ascii_lowercase());
        if capitalised && i > 0 && !upper(words[i - 1]) {
            persons.push(w.to_string());
        }
    }
    let mut locations = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let lw = w.to_lowercase();
        if ["in", "at", "from", "to", "near"].contains(&lw.as_str())
            && let Some(next) = words.get(i + 1).filter(|n| upper(n))
        {
            locations.push(letters(next));
        }
    }
    let mut organizations = Vec::new();
    for ind in ["Inc.", "Corp.", "LLC", "Ltd.", "Company", "Co."] {
        let mut from = 0;
        while let Some(i) = query[from..].find(ind) {
            let at = from + i;
            let head = query[..at].trim_end();
            let run = head.len()
                - head
                    .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                    .len();
            let letters = &head[head.len() - run..];
            if let Some(u) = letters.find(|c: char| c.is_ascii_uppercase()) {
                let start = head.len() - run + u;
                organizations.push(query[start..at + ind.len()].to_string());
            }
            from = at + ind.len();
        }
    }
    let (persons, locations, organizations) =
        (unique(persons), unique(locations), unique(organizations));
    let question_type = (QUESTIONS.iter())
        .find(|(_, kws)| kws.iter().any(|k| lower.contains(k)))
        .map_or("factual", |(t, _)| t);
    let conjunction = has_word(&lower, &["and", "or", "but", "then", "therefore"]);
    let clauses = query.contains([',', ';']);
    let n = words.len();
    let complexity = if n > 20 || (conjunction && clauses) {
        "high"
    } else if n > 10 || conjunction || clauses {
        "medium"
    } else {
        "low"
    };
    let entities: Vec<Mention> = (persons.iter().map(|p| (p, "person")))
        .chain(locations.iter().map(|l| (l, "location")))
        .chain(organizations.iter().map(|o| (o, "organization")))
        .map(|(name, kind)| Mention {
            name: name.clone(),
            kind,
        })
        .collect();
    let mut confidence: f64 = 0.5;
    confidence += match complexity {
        "low" => 0.3,
        "medium" => 0.1,
        _ => 0.0,
    };
    if !entities.is_empty() {
        confidence += 0.1;
    }
    if question_type == "conceptual" {
        confidence -= 0.2;
    }
    let kinds: [(&str, &[&str]); 6] = [
        ("person", &["who", "person", "people", "name"]),
        ("location", &["where", "location", "place", "city"]),
        ("temporal", &["when", "date", "time", "year", "month"]),
        ("quantity", &["how many", "count", "number", "total"]),
        ("reason", &["why", "reason", "because"]),
        ("entity", &["what", "which", "project", "task"]),
    ];
    Analysis {
        query: query.to_string(),
        entities,
        persons,
        locations,
        organizations,
        temporal_range: temporal(query, &lower),
        question_type,
        complexity,
        confidence: confidence.clamp(0.0, 1.0),
        required_info_types: (kinds.iter())
            .filter(|(_, ws)| has_word(&lower, ws))
            .map(|(k, _)| *k)
            .collect(),
        sub_queries: split_query(query),
    }
}

/// The time `query` names, if any: a relative time, else its first dates (`YYYY-MM-DD`).
fn temporal(query: &str, lower: &str) -> Option<Temporal> {
    if let Some(r) = RELATIVE.iter().find(|r| lower.contains(*r)) {
        return Some(Temporal::Relative { relative: r });
    }
    let b = query.as_bytes();
    let shape = |i: usize| {
        b.len() >= i + 10
            && (0..10).all(|k| match k {
                4 | 7 => b[i + k] == b'-',
                _ => b[i + k].is_ascii_digit(),
            })
    };
    let mut dates = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if shape(i) {
            dates.push(query[i..i + 10].to_string());
            i += 10;
        } else {
            i += 1;
        }
    }
    let mut dates = dates.into_iter();
    let start = dates.next()?;
    Some(Temporal::Dates {
        start,
        end: dates.next(),
    })
}

/// The parts of `query` between its conjunctions (`and then`, `and`, `but`, `or`), when
/// there are several.
fn split_query(query: &str) -> Option<Vec<String>> {
    // Lowercasing that moves the characters: read it as one part.
    let lower = lower_in_place(query)?;
    let mut parts = Vec::new();
    let (mut last, mut at) = (0, 0);
    while at < lower.len() {
        let found = ["and then", "and", "but", "or"]
            .iter()
            .find_map(|w| (word_at(&lower, w, at) == Some(at)).then_some(w.len()));
        if let Some(len) = found {
            parts.push(query[last..at].trim().to_string());
            at += len;
            last = at;
        } else {
            at += lower[at..].chars().next().map_or(1, char::len_utf8);
        }
    }
    parts.push(query[last..].trim().to_string());
    parts.retain(|p| !p.is_empty());
    (parts.len() > 1).then_some(parts)
}

/// A step of a plan.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SubQuery {
    id: String,
    query: String,
    target_layer: &'static str,
    priority: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    depends_on: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filters: Option<PlanFilters>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlanFilters {
    date_range: PlanRange,
}

#[derive(Serialize)]
struct PlanRange {
    start: String,
    end: String,
}

/// The seed's plan of a query.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Plan {
    original_query: String,
    sub_queries: Vec<SubQuery>,
    execution_strategy: &'static str,
    merge_strategy: &'static str,
    #[serde(serialize_with = "js_f64")]
    estimated_complexity: f64,
}

/// The plan of `query` by its analysis (the seed's planner).
fn plan(query: &str, a: &Analysis) -> Plan {
    let layer = if a.temporal_range.is_some() || a.required_info_types.contains(&"temporal") {
        "symbolic"
    } else if a.complexity == "high" || a.question_type == "comparative" {
        "semantic"
    } else {
        "hybrid"
    };
    let sub_queries: Vec<SubQuery> = match &a.sub_queries {
        Some(parts) => (parts.iter().enumerate())
            .map(|(i, p)| SubQuery {
                id: format!("sq_{i}"),
                query: p.clone(),
                target_layer: layer,
                priority: if i == 0 { 1 } else { 2 },
                depends_on: (i > 0).then(|| alloc::vec![format!("sq_{}", i - 1)]),
                filters: None,
            })
            .collect(),
        None => alloc::vec![SubQuery {
            id: "sq_0".to_string(),
            query: query.to_string(),
            target_layer: layer,
            priority: 1,
            depends_on: None,
            filters: a.temporal_range.as_ref().map(|t| {
                let (start, end) = match t {
                    Temporal::Relative { .. } => (String::new(), String::new()),
                    Temporal::Dates { start, end } => {
                        (start.clone(), end.clone().unwrap_or_default())
                    }
                };
                PlanFilters {
                    date_range: PlanRange { start, end },
                }
            }),
        }],
    };
    let dependent = sub_queries.iter().any(|s| s.depends_on.is_some());
    let mut complexity = sub_queries.len() as f64;
    for s in &sub_queries {
        complexity += s.depends_on.as_ref().map_or(0.0, |d| d.len() as f64 * 0.5);
        complexity += if s.filters.is_some() { 0.5 } else { 0.0 };
    }
    Plan {
        original_query: query.to_string(),
        execution_strategy: if dependent {
            "sequential"
        } else if sub_queries.len() > 1 {
            "parallel"
        } else {
            "iterative"
        },
        sub_queries,
        merge_strategy: match a.question_type {
            "aggregation" => "union",
            "comparative" => "intersection",
            _ => "weighted",
        },
        estimated_complexity: complexity.min(10.0),
    }
}

/// `analyze_query`: what a query asks, by rules (no model).
pub fn analyze_query(_: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        query: &'a str,
        #[serde(default)]
        include_plan: bool,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        query: &'a str,
        analysis: Analysis,
        #[serde(skip_serializing_if = "Option::is_none")]
        plan: Option<Plan>,
    }
    let args: Args = parse(a)?;
    if args.query.is_empty() {
        return Err("query: must not be empty".to_string());
    }
    let analysis = analyze(args.query);
    Ok(answer(&Out {
        query: args.query,
        plan: args.include_plan.then(|| plan(args.query, &analysis)),
        analysis,
    }))
}

// ---------------------------------------------------------------------------------------
// search_auto

/// The searches `search_auto` chooses among, in the seed's order.
const METHODS: [&str; 5] = ["basic", "ranked", "boolean", "fuzzy", "semantic"];

/// What the cost model sees in a query.
struct Shape {
    words: usize,
    operators: bool,
    wildcard: bool,
    quotes: bool,
    complexity: &'static str,
}

impl Shape {
    fn of(query: &str, entities: usize) -> Shape {
        let operators = ["AND", "OR", "NOT"].iter().any(|op| {
            let mut from = 0;
            while let Some(i) = query[from..].find(op) {
                let (s, e) = (from + i, from + i + op.len());
                let before = query[..s].chars().next_back().is_none_or(|c| !word_char(c));
                let after = query[e..].chars().next().is_none_or(|c| !word_char(c));
                if before && after {
                    return true;
                }
                from = e;
            }
            false
        });
        Shape {
            words: js_words(query.trim()).len(),
            operators,
            wildcard: query.contains('*'),
            quotes: query.contains('"'),
            complexity: if entities <= 100 {
                "low"
            } else if entities >= 1000 {
                "high"
            } else {
                "medium"
            },
        }
    }

    /// The seed's score of a method for this query (the highest is chosen).
    fn score(&self, method: &str) -> i32 {
        let (short, long) = (self.words <= 2, self.words >= 5);
        let mut s = 50;
        match method {
            "basic" => {
                s += if short && !self.operators && !self.wildcard {
                    30
                } else {
                    0
                };
                s += if self.complexity == "low" { 20 } else { 0 };
                s += 10;
            }
            "ranked" => {
                s += if self.words >= 2 { 25 } else { 0 };
                s += if self.quotes { 15 } else { 0 };
                s += if !self.operators { 10 } else { 0 };
                s += 15;
            }
            "boolean" => s += if self.operators { 50 } else { -10 },
            "fuzzy" => {
                s += if self.wildcard { 25 } else { 0 };
                s += if short { 15 } else { 0 };
                s -= if long { 15 } else { 0 };
                s -= if self.complexity == "high" { 20 } else { 0 };
            }
            _ => {
                s += if long { 30 } else { 0 };
                s += if !self.operators && !self.wildcard {
                    15
                } else {
                    0
                };
                s -= match self.complexity {
                    "high" => 30,
                    "medium" => 10,
                    _ => 0,
                };
            }
        }
        s
    }

    /// The seed's time factor of a method for this query.
    fn factor(&self, method: &str) -> f64 {
        let mut f = 1.0 + (self.words as f64 - 1.0) * 0.1;
        if self.operators {
            f *= if method == "boolean" { 0.8 } else { 1.5 };
        }
        if self.wildcard {
            f *= if method == "fuzzy" { 0.9 } else { 1.3 };
        }
        if self.quotes {
            f *= if method == "ranked" { 0.9 } else { 1.1 };
        }
        f.clamp(0.5, 3.0)
    }

    /// Why the method was chosen, in the seed's words.
    fn reason(&self, method: &str) -> &'static str {
        match method {
            "basic" if self.complexity == "low" => {
                "Basic search selected for small graph size - fast and efficient"
            }
            "basic" => "Basic search selected for simple query pattern",
            "ranked" if self.words >= 2 => {
                "Ranked search selected for multi-word query - provides relevance ordering"
            }
            "ranked" => "Ranked search selected for best balance of speed and relevance",
            "boolean" if self.operators => {
                "Boolean search selected - query contains logical operators (AND/OR/NOT)"
            }
            "boolean" => "Boolean search selected for precise filtering",
            "fuzzy" if self.wildcard => "Fuzzy search selected - query contains wildcard patterns",
            "fuzzy" => "Fuzzy search selected for typo-tolerant matching",
            _ if self.words >= 5 => {
                "Semantic search selected - longer natural language query benefits from meaning-based matching"
            }
            _ => "Semantic search selected for conceptual/meaning-based matching",
        }
    }
}

/// One method's estimate, as the seed reports it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Estimate {
    method: &'static str,
    #[serde(serialize_with = "js_f64")]
    estimated_time_ms: f64,
    complexity: &'static str,
    entity_count: usize,
    recommendation: String,
    is_recommended: bool,
}

/// The seed's words on a method.
fn recommendation(method: &str, complexity: &str) -> String {
    let mut r = String::from(match method {
        "basic" => "Fast substring matching, best for simple queries",
        "ranked" => "TF-IDF relevance ranking, best for finding most relevant results",
        "boolean" => "Boolean operators (AND/OR/NOT), best for precise filtering",
        "fuzzy" => "Tolerant of typos and misspellings, best for uncertain queries",
        _ => "Meaning-based search using embeddings, best for conceptual queries",
    });
    if complexity == "high" && method == "semantic" {
        r.push_str(" - may be slow for large graphs");
    }
    if complexity == "low" {
        r.push_str(" - fast for small graphs");
    }
    r
}

/// `search_auto`: the search the seed's cost model picks for the query, run.
pub fn search_auto(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Args {
        limit: Option<u64>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out<'a> {
        selected_method: &'static str,
        selection_reason: &'static str,
        estimates: Vec<Estimate>,
        results: Vec<Ranked<'a>>,
    }
    let query = query_of(a)?;
    let limit = parse::<Args>(a)?.limit.map_or(10, |l| l as usize);
    let g = t.graph;
    let n = g.entity_count();
    let shape = Shape::of(query, n);
    let mut best = METHODS[0];
    for m in METHODS {
        if shape.score(m) > shape.score(best) {
            best = m;
        }
    }
    let base = |m: &str| match m {
        "basic" => 0.01,
        "ranked" => 0.05,
        "boolean" => 0.02,
        "fuzzy" => 0.1,
        _ => 0.5,
    };
    let estimates = (METHODS.iter())
        .map(|&m| Estimate {
            method: m,
            estimated_time_ms: round(base(m) * n as f64 * shape.factor(m) * 100.0) / 100.0,
            complexity: shape.complexity,
            entity_count: n,
            recommendation: recommendation(m, shape.complexity),
            is_recommended: m == best,
        })
        .collect();
    let words: Vec<String> = crate::index::search::text::token_list(query);
    let none = Filter::default();
    let scored: Vec<(EntityId, f64)> = match best {
        "ranked" => ranked_ids(t, query, None, limit)
            .into_iter()
            .map(|(id, s)| (id, round4(s.into())))
            .collect(),
        "semantic" => match t.indexes.vectors(g).ok() {
            Some(v) => match v.query(query) {
                Some(q) => (v.nearest(&q, limit, |_| true).0.into_iter())
                    .map(|(slot, cos)| (EntityId::from_slot(slot), round4(cos.into())))
                    .collect(),
                None => Vec::new(),
            },
            None => ranked_ids(t, query, None, limit)
                .into_iter()
                .map(|(id, s)| (id, round4(s.into())))
                .collect(),
        },
        method => {
            let ids = match method {
                "basic" => crate::tools::reference::query::reference_matches(g, t.indexes, query),
                "boolean" => boolean_ids(g, query, &none)?,
                _ => fuzzy_ids(g, query, 0.7, &none)?,
            };
            (ids.into_iter().take(CAP).enumerate())
                .map(|(i, id)| (id, 1.0 - i as f64 * 0.01))
                .collect()
        }
    };
    let lowered = alloc::vec![query.to_lowercase()];
    let results = (scored.into_iter().take(limit))
        .map(|(id, score)| {
            let e = g.entity(id);
            let on = if best == "basic" { &lowered } else { &words };
            Ranked {
                entity: EntityJson::of(g, e, false),
                score,
                matched_fields: if on.is_empty() {
                    Matched::default()
                } else {
                    matched(g, e, on)
                },
            }
        })
        .collect();
    Ok(answer(&Out {
        selected_method: best,
        selection_reason: shape.reason(best),
        estimates,
        results,
    }))
}

// ---------------------------------------------------------------------------------------
// smart_search

/// Results found with fewer than this many are not enough (the seed's `minResults`).
const MIN_RESULTS: f64 = 3.0;

/// `smart_search`: hybrid search, its query refined (words for what the results lack
/// added) until the results are adequate or `maxIterations` ran.
pub fn smart_search(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        query: &'a str,
        max_iterations: Option<u64>,
        adequacy_threshold: Option<f64>,
        include_plan: Option<bool>,
        limit: Option<u64>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Brief {
        question_type: &'static str,
        complexity: &'static str,
        persons: Vec<String>,
        temporal_range: Option<Temporal>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Reflection {
        iterations: usize,
        adequate: bool,
        adequacy_score: f64,
        refinements: Vec<String>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out<'a> {
        query: &'a str,
        analysis: Brief,
        #[serde(skip_serializing_if = "Option::is_none")]
        plan: Option<Plan>,
        reflection: Reflection,
        result_count: usize,
        results: Vec<Hit<'a>>,
    }
    let args: Args = parse(a)?;
    let query = args.query;
    if query.is_empty() {
        return Err("query: must not be empty".to_string());
    }
    let most = args.max_iterations.map_or(3, |m| m as usize);
    let threshold = args.adequacy_threshold.unwrap_or(0.7);
    let limit = args.limit.map_or(10, |l| l as usize);
    let analysis = analyze(query);
    let g = t.graph;
    let mut all: Vec<(EntityId, Scores)> = Vec::new();
    let (mut current, mut refinements) = (query.to_string(), Vec::new());
    let (mut iterations, mut adequacy) = (0, 0.0);
    while iterations < most {
        iterations += 1;
        let grown = (1..iterations).fold(limit as f64, |x, _| x * 1.5);
        let depth = round(grown) as usize;
        for hit in hybrid_plain(t, &current, depth) {
            if !all.iter().any(|(id, _)| *id == hit.0) {
                all.push(hit);
            }
        }
        let mut types: Vec<&str> = all
            .iter()
            .map(|(id, _)| g.text(g.entity(*id).entity_type))
            .collect();
        types.sort_unstable();
        types.dedup();
        let n = all.len() as f64;
        let mean = if all.is_empty() {
            0.0
        } else {
            all.iter().map(|(_, s)| s.combined).sum::<f64>() / n
        };
        adequacy = (n / MIN_RESULTS).min(1.0) * 0.4
            + (types.len() as f64 / 3.0).min(1.0) * 0.3
            + mean * 0.3;
        if adequacy >= threshold {
            break;
        }
        let refined = refine(g, &current, &all, &analysis);
        if refined == current {
            break;
        }
        refinements.push(refined.clone());
        current = refined;
    }
    all.sort_by(|x, y| y.1.combined.total_cmp(&x.1.combined));
    let count = all.len();
    let results = all
        .into_iter()
        .take(limit)
        .map(|r| Hit::of(g, r, false))
        .collect();
    Ok(answer(&Out {
        query,
        plan: (args.include_plan != Some(false)).then(|| plan(query, &analysis)),
        analysis: Brief {
            question_type: analysis.question_type,
            complexity: analysis.complexity,
            persons: analysis.persons.clone(),
            temporal_range: analysis.temporal_range.clone(),
        },
        reflection: Reflection {
            iterations,
            adequate: adequacy >= threshold,
            adequacy_score: adequacy,
            refinements,
        },
        result_count: count,
        results,
    }))
}

/// The next query (the seed's refinement): words for the kinds of information the query
/// asks for and the results lack, else broader words; the same query when none help.
fn refine(
    g: &crate::graph::Graph,
    query: &str,
    found: &[(EntityId, Scores)],
    a: &Analysis,
) -> String {
    let mut covered: Vec<String> = Vec::new();
    for (id, _) in found {
        let e = g.entity(*id);
        let ty = g.text(e.entity_type).to_lowercase();
        if ["person", "people", "user", "employee"].contains(&ty.as_str()) {
            covered.push("person".into());
        }
        if ["location", "place", "city", "country", "address"].contains(&ty.as_str()) {
            covered.push("location".into());
        }
        if e.created != 0 || e.updated != 0 {
            covered.push("temporal".into());
        }
        covered.push("entity".into());
        covered.push(ty);
    }
    let missing = (a.required_info_types.iter()).filter(|k| !covered.iter().any(|c| c == *k));
    let additions: Vec<&str> = missing
        .filter_map(|k| match *k {
            "person" => Some("person people who"),
            "location" => Some("location place where"),
            "temporal" => Some("when date time"),
            "quantity" => Some("count number how many"),
            "reason" => Some("reason why because"),
            _ => None,
        })
        .take(2)
        .collect();
    if !additions.is_empty() {
        return format!("{query} {}", additions.join(" "));
    }
    let types: Vec<String> = (found.iter())
        .map(|(id, _)| g.text(g.entity(*id).entity_type).to_lowercase())
        .collect();
    if a.required_info_types.contains(&"person") && !types.iter().any(|t| t == "person") {
        return format!("{query} person people");
    }
    if a.temporal_range.is_some() && found.len() < 3 {
        return format!("{query} recent history timeline");
    }
    let Some(lower) = lower_in_place(query) else {
        return query.to_string();
    };
    let mut broader = String::new();
    let mut last = 0;
    let mut at = 0;
    while at < lower.len() {
        let hit = ["only", "just", "exactly", "specific"]
            .iter()
            .find(|w| word_at(&lower, w, at) == Some(at));
        match hit {
            Some(w) => {
                broader.push_str(&query[last..at]);
                at += w.len();
                last = at;
            }
            None => at += lower[at..].chars().next().map_or(1, char::len_utf8),
        }
    }
    broader.push_str(&query[last..]);
    if broader != query {
        return broader.trim().to_string();
    }
    query.to_string()
}
