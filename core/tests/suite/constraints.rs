//! A query's operators hold in every mode (issue 42): whatever ranks the hits — words,
//! meaning, or both — each satisfies the query's phrases, fields, exclusions and explicit
//! `AND` / `OR`. Random memories of short words, random queries with operators, and an
//! oracle that reads the entities' text directly. The same for the TypeScript seed's
//! hybrid_search and its filters (types, tags, importance).

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::index::search::text::token_list;
use mcp_memory_core::testing::MemLog;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Words of three letters, none a prefix of another and none within a typo of another's
/// reach (words under four letters match exactly or as prefixes only), all known to the
/// embedding table.
const WORDS: [&str; 8] = ["red", "zoo", "ant", "bee", "cat", "dog", "elk", "fox"];

/// An entity's fields as token lists: name, type, each observation.
struct Text {
    name: Vec<String>,
    kind: Vec<String>,
    observations: Vec<Vec<String>>,
}

impl Text {
    fn of(e: &Value) -> Text {
        let tokens = |v: &Value| token_list(v.as_str().unwrap());
        Text {
            name: tokens(&e["name"]),
            kind: tokens(&e["entityType"]),
            observations: e["observations"]
                .as_array()
                .unwrap()
                .iter()
                .map(tokens)
                .collect(),
        }
    }

    fn fields(&self) -> impl Iterator<Item = &Vec<String>> {
        [&self.name, &self.kind]
            .into_iter()
            .chain(&self.observations)
    }

    fn has(&self, w: &str) -> bool {
        self.fields().any(|f| f.iter().any(|t| t == w))
    }

    fn has_phrase(&self, a: &str, b: &str) -> bool {
        self.fields()
            .any(|f| f.windows(2).any(|p| p[0] == a && p[1] == b))
    }
}

/// A query with an operator, and the constraint every hit must satisfy.
#[derive(Debug, Clone)]
enum Q {
    Phrase(usize, usize, usize),
    Typed(usize, usize),
    Not(usize, usize, bool),
    And(usize, usize),
    Or(usize, usize),
}

impl Q {
    fn text(&self) -> String {
        match *self {
            Q::Phrase(a, b, c) => format!("\"{} {}\" {}", WORDS[a], WORDS[b], WORDS[c]),
            Q::Typed(t, w) => format!("type:{} {}", WORDS[t], WORDS[w]),
            Q::Not(a, b, minus) if minus => format!("{} -{}", WORDS[a], WORDS[b]),
            Q::Not(a, b, _) => format!("{} NOT {}", WORDS[a], WORDS[b]),
            Q::And(a, b) => format!("{} AND {}", WORDS[a], WORDS[b]),
            Q::Or(a, b) => format!("{} OR {}", WORDS[a], WORDS[b]),
        }
    }

    fn holds(&self, e: &Text) -> bool {
        match *self {
            Q::Phrase(a, b, _) => e.has_phrase(WORDS[a], WORDS[b]),
            Q::Typed(t, _) => e.kind.iter().any(|k| k == WORDS[t]),
            Q::Not(_, b, _) => !e.has(WORDS[b]),
            Q::And(a, b) => e.has(WORDS[a]) && e.has(WORDS[b]),
            Q::Or(a, b) => e.has(WORDS[a]) || e.has(WORDS[b]),
        }
    }
}

fn query() -> impl Strategy<Value = Q> {
    let w = || 0..WORDS.len();
    prop_oneof![
        (w(), w(), w()).prop_map(|(a, b, c)| Q::Phrase(a, b, c)),
        (w(), w()).prop_map(|(t, x)| Q::Typed(t, x)),
        (w(), w(), any::<bool>()).prop_map(|(a, b, m)| Q::Not(a, b, m)),
        (w(), w()).prop_map(|(a, b)| Q::And(a, b)),
        (w(), w()).prop_map(|(a, b)| Q::Or(a, b)),
    ]
}

fn words(n: std::ops::Range<usize>) -> impl Strategy<Value = String> {
    prop::collection::vec(0..WORDS.len(), n)
        .prop_map(|ws| ws.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" "))
}

/// Entities, and relations between them (by index), so that hybrid's context (entities
/// sharing a related entity with the best hits) has something to add.
fn memory() -> impl Strategy<Value = (Vec<Value>, Vec<Value>)> {
    let one = (
        words(1..3),
        words(1..2),
        prop::collection::vec(words(1..5), 0..3),
    );
    let pairs = prop::collection::vec((0..14usize, 0..14usize), 0..20);
    (prop::collection::vec(one, 2..14), pairs).prop_map(|(es, pairs)| {
        let entities: Vec<Value> = (es.into_iter().enumerate())
            .map(|(i, (name, kind, obs))| {
                json!({"name": format!("{name} {i}"), "entityType": kind, "observations": obs})
            })
            .collect();
        let relations = (pairs.into_iter())
            .filter(|&(a, b)| a != b && a < entities.len() && b < entities.len())
            .map(|(a, b)| {
                json!({"from": entities[a]["name"], "to": entities[b]["name"], "relationType": "near"})
            })
            .collect();
        (entities, relations)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// Every hit of every mode satisfies the query's operators, and the type filter.
    #[test]
    fn every_hit_of_every_mode_satisfies_the_operators((entities, relations) in memory(), q in query(), typed in prop::option::of(0..WORDS.len())) {
        let mut m: Server<MemLog> = open(MemLog::new());
        load_table(&mut m);
        create(&mut m, &entities);
        relate(&mut m, &relations);
        let texts: Vec<(String, Text)> = entities
            .iter()
            .map(|e| (e["name"].as_str().unwrap().to_string(), Text::of(e)))
            .collect();
        for mode in ["lexical", "semantic", "hybrid"] {
            let mut args = json!({"query": q.text(), "mode": mode, "limit": 50});
            if let Some(t) = typed {
                args["entityType"] = json!(WORDS[t]);
            }
            let found = call_ok(&mut m, "search", args);
            for hit in found["hits"].as_array().unwrap() {
                let name = hit["name"].as_str().unwrap();
                let (_, text) = texts.iter().find(|(n, _)| n == name).unwrap();
                prop_assert!(q.holds(text), "{mode}: {:?} found {name:?}, which breaks it", q.text());
                if let Some(t) = typed {
                    prop_assert_eq!(&text.kind, &vec![WORDS[t].to_string()], "{}: type filter", mode);
                }
                prop_assert!(hit["score"].as_f64().unwrap() > 0.0 || mode == "semantic", "{mode}: a hit scored 0: {hit}");
            }
        }
    }
}

/// Tags the TypeScript seed's filters choose among.
const TAGS: [&str; 3] = ["alpha", "beta", "gamma"];

/// Entities with a type, tags and an importance (or none: the seed counts 5).
fn tagged() -> impl Strategy<Value = Vec<Value>> {
    let one = (
        words(1..3),
        0..3usize,
        prop::collection::vec(words(1..4), 0..3),
        prop::collection::vec(0..TAGS.len(), 0..3),
        prop::option::of(0..=10u8),
    );
    prop::collection::vec(one, 2..14).prop_map(|es| {
        (es.into_iter().enumerate())
            .map(|(i, (name, kind, obs, tags, importance))| {
                let mut e = json!({"name": format!("{name} {i}"), "entityType": WORDS[kind],
                    "observations": obs, "tags": tags.iter().map(|&t| TAGS[t]).collect::<Vec<_>>()});
                if let Some(x) = importance {
                    e["importance"] = json!(x);
                }
                e
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// Every result of the TypeScript seed's hybrid_search (meaning, words and filters
    /// fused) meets every filter: types, tags (any of them), importance (5 when unset).
    #[test]
    fn every_hit_of_hybrid_search_meets_its_filters(
        entities in tagged(),
        q in words(1..3),
        kind in prop::option::of(0..3usize),
        tag in prop::option::of(0..TAGS.len()),
        importance in prop::option::of((0..=10u8, 0..=10u8)),
    ) {
        let mut m: Server<MemLog> = open(MemLog::new());
        load_table(&mut m);
        create(&mut m, &entities);
        let mut filters = json!({});
        if let Some(k) = kind {
            filters["entityTypes"] = json!([WORDS[k].to_uppercase()]);
        }
        if let Some(t) = tag {
            filters["tags"] = json!([TAGS[t]]);
        }
        if let Some((a, b)) = importance {
            filters["minImportance"] = json!(a.min(b));
            filters["maxImportance"] = json!(a.max(b));
        }
        let found = call_ok(&mut m, "hybrid_search", json!({"query": q, "filters": filters, "limit": 50}));
        for hit in found["results"].as_array().unwrap() {
            let e = entities.iter().find(|e| e["name"] == hit["name"]).unwrap();
            if let Some(k) = kind {
                prop_assert_eq!(&e["entityType"], WORDS[k], "type filter: {}", hit);
            }
            if let Some(t) = tag {
                prop_assert!(e["tags"].as_array().unwrap().contains(&json!(TAGS[t])), "tag filter: {}", hit);
            }
            if let Some((a, b)) = importance {
                let i = e["importance"].as_u64().unwrap_or(5) as u8;
                prop_assert!(a.min(b) <= i && i <= a.max(b), "importance filter: {}", hit);
            }
        }
    }
}
