//! The search tools with arbitrary query strings, on a small fixed graph full of case and
//! Unicode edge cases.
//!
//! Input: byte 0 chooses how the query travels (as UTF-8 text in the JSON, or as `\uXXXX`
//! escapes of UTF-16 units taken from the bytes, lone surrogates included, which the
//! server reads as U+FFFD); byte 1 chooses paging for `search`; the rest is the query.
//!
//! Oracles:
//! - `search_nodes` and `search` never answer with a JSON-RPC error or `isError: true`;
//! - `search_nodes` returns first exactly the entities whose name, type or an observation
//!   contains the query after JavaScript `toLowerCase` on both sides (Rust's `to_lowercase`,
//!   as the core's tests model it); after them, possibly ranked word matches; each entity
//!   once, with its data, and the relations touching them in graph order; its
//!   structuredContent equals its text;
//! - `search`: hits are entities of the graph, each once, scores finite, non-negative and
//!   non-increasing, `total` at least the hits shown, and a page at offset `o` of a query
//!   equals the hits `o..` of the first page with the same `offset + limit`.

#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use mcp_memory_core::tools::limits::MAX_NAME_BYTES;
use mcp_memory_core::{Contents, Server};
use mcp_memory_fuzz::{MemLog, check_exchange, classify};
use serde_json::{Value, json};

/// Entities: (name, type, observations). Names differ only by case or normalization in
/// places, so lowercase semantics matter.
const ENTITIES: &[(&str, &str, &[&str])] = &[
    (
        "Alice",
        "person",
        &["likes tea", "plays chess", "Lives in İstanbul"],
    ),
    ("alice", "Person", &["lowercase twin"]),
    ("Bob", "person", &["ΣΑΣ ΟΔΟΣ", "works at Acme"]),
    ("Acme", "company", &["founded 1999", "\u{212A}elvin scale"]),
    ("Straße", "street", &["STRASSE", "ẞ capital sharp s"]),
    (
        "café",
        "place",
        &["cafe\u{301} with a combining accent", "😀 emoji"],
    ),
    (
        "ǅemal",
        "person",
        &["Ǆ Ǉ Ǌ title-case digraphs", "ﬃ ligature"],
    ),
    ("", "empty name", &[""]),
    (
        "quote\"back\\slash",
        "odd",
        &["tab\there", "new\nline", "\u{0}nul"],
    ),
    ("İ", "dotted", &["ı dotless", "i̇ combining dot"]),
    ("ὈΔΥΣΣΕΎΣ", "greek", &["ὀδυσσεύς", "σς"]),
    (
        "name:alice",
        "syntax",
        &["OR AND NOT -x \"phrase\" type:person"],
    ),
];

const RELATIONS: &[(&str, &str, &str)] = &[
    ("Alice", "Bob", "knows"),
    ("Bob", "Acme", "works_at"),
    ("alice", "Alice", "twin_of"),
    ("café", "Straße", "on"),
    ("Nobody", "Acme", "dangling"),
    ("ὈΔΥΣΣΕΎΣ", "ὈΔΥΣΣΕΎΣ", "self"),
];

struct Fixture {
    memory: Server<MemLog>,
    next_id: u64,
}

impl Fixture {
    fn new() -> Self {
        let (memory, _) =
            Server::open(MemLog::holding(Contents::Records(Vec::new()))).expect("open");
        let mut f = Fixture { memory, next_id: 0 };
        let entities: Vec<Value> = ENTITIES
            .iter()
            .map(|(n, t, o)| json!({"name": n, "entityType": t, "observations": o}))
            .collect();
        let relations: Vec<Value> = RELATIONS
            .iter()
            .map(|(a, b, r)| json!({"from": a, "to": b, "relationType": r}))
            .collect();
        f.call(
            "create_entities",
            &json!({"entities": entities}).to_string(),
        );
        f.call(
            "create_relations",
            &json!({"relations": relations}).to_string(),
        );
        f
    }

    /// Calls a tool with arguments given as JSON text; returns its successful result.
    fn call(&mut self, tool: &str, arguments: &str) -> Value {
        self.next_id += 1;
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments}}}}}"#,
            self.next_id
        );
        let out = self.memory.handle(&line);
        let exchange = check_exchange(&line, &classify(&line), &out);
        let result = exchange
            .tool_result()
            .unwrap_or_else(|| panic!("JSON-RPC error for {line:?}: {out:?}"));
        assert!(
            result.get("isError").is_none(),
            "{tool} failed for {line:?}: {out:?}"
        );
        result["structuredContent"].clone()
    }
}

thread_local! {
    /// One memory for every input: searches do not change it (the search index is built by
    /// the first one and reused, as in a long-running server).
    static FIXTURE: RefCell<Fixture> = RefCell::new(Fixture::new());
}

/// The query as JSON text, and the string the server must read from it.
fn encode(mode: u8, bytes: &[u8]) -> (String, String) {
    if mode.is_multiple_of(4) {
        // UTF-16 units as escapes: lone surrogates become U+FFFD on the server's side.
        let units: Vec<u16> = bytes
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)]))
            .collect();
        let text: String = units.iter().map(|u| format!("\\u{u:04x}")).collect();
        (format!("\"{text}\""), String::from_utf16_lossy(&units))
    } else {
        let query = String::from_utf8_lossy(bytes).into_owned();
        (
            serde_json::to_string(&query).expect("strings serialize"),
            query,
        )
    }
}

fn contains_lower(haystack: &str, needle_lower: &str) -> bool {
    haystack.to_lowercase().contains(needle_lower)
}

fn check_search_nodes(f: &mut Fixture, literal: &str, query: &str) {
    let result = f.call("search_nodes", &format!(r#"{{"query":{literal}}}"#));
    let q = query.to_lowercase();
    let expected: Vec<&str> = ENTITIES
        .iter()
        .filter(|(n, t, o)| {
            contains_lower(n, &q)
                || contains_lower(t, &q)
                || o.iter().any(|o| contains_lower(o, &q))
        })
        .map(|(n, _, _)| *n)
        .collect();
    // The reference's set comes first (best match first); after it, search_nodes may add
    // ranked word matches (a question in words), each once.
    let found: Vec<&str> = result["entities"]
        .as_array()
        .expect("entities")
        .iter()
        .map(|e| e["name"].as_str().expect("name"))
        .collect();
    assert!(
        found.len() >= expected.len(),
        "search_nodes({query:?}) missed matches: found {found:?}, expected {expected:?}"
    );
    let (mut first, extra) = (found[..expected.len()].to_vec(), &found[expected.len()..]);
    first.sort_unstable();
    let mut want = expected.clone();
    want.sort_unstable();
    assert_eq!(
        first, want,
        "search_nodes({query:?}) does not start with the substring matches: {found:?}"
    );
    let mut distinct = found.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        found.len(),
        "search_nodes({query:?}) repeats an entity: {found:?}"
    );
    assert!(
        extra.len() <= 100,
        "search_nodes({query:?}) added {} word matches",
        extra.len()
    );
    let relations: Vec<Value> = RELATIONS
        .iter()
        .filter(|(a, b, _)| found.contains(a) || found.contains(b))
        .map(|(a, b, r)| json!({"from": a, "to": b, "relationType": r}))
        .collect();
    assert_eq!(
        result["relations"],
        Value::Array(relations),
        "search_nodes({query:?}) relations"
    );
    for e in result["entities"].as_array().expect("entities") {
        let (_, t, o) = ENTITIES
            .iter()
            .find(|(n, _, _)| e["name"] == *n)
            .expect("known");
        assert_eq!(e["entityType"], *t);
        assert_eq!(e["observations"], json!(o));
    }
}

fn hits(result: &Value) -> Vec<(String, f64)> {
    result["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| {
            (
                h["name"].as_str().expect("name").to_string(),
                h["score"].as_f64().expect("score"),
            )
        })
        .collect()
}

fn check_search(f: &mut Fixture, literal: &str, query: &str, paging: u8) {
    let want = 1 + usize::from(paging % 16); // offset + limit
    let offset = usize::from(paging / 16) % want;
    let first = f.call(
        "search",
        &format!(r#"{{"query":{literal},"limit":{want}}}"#),
    );
    let all = hits(&first);
    let total = first["total"].as_u64().expect("total") as usize;
    assert!(
        all.len() <= want && all.len() <= total,
        "search({query:?}): {first}"
    );
    assert_eq!(
        all.len(),
        want.min(total),
        "search({query:?}) page size: {first}"
    );
    let mut names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    for (name, score) in &all {
        assert!(
            ENTITIES.iter().any(|(n, _, _)| n == name),
            "search({query:?}) invented {name:?}"
        );
        assert!(
            score.is_finite() && *score >= 0.0,
            "search({query:?}) score {score}"
        );
    }
    assert!(
        all.windows(2).all(|w| w[0].1 >= w[1].1),
        "search({query:?}) not best first: {first}"
    );
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), all.len(), "search({query:?}) repeats a hit");
    let page = f.call(
        "search",
        &format!(
            r#"{{"query":{literal},"limit":{},"offset":{offset}}}"#,
            want - offset
        ),
    );
    assert_eq!(
        page["total"], first["total"],
        "search({query:?}) total depends on paging"
    );
    assert_eq!(
        hits(&page)[..],
        all[offset.min(all.len())..],
        "search({query:?}) page at {offset}"
    );
}

fuzz_target!(|data: &[u8]| {
    let (mode, paging, query) = match data {
        [m, p, rest @ ..] => (*m, *p, rest),
        _ => return,
    };
    let (literal, query) = encode(mode, query);
    FIXTURE.with(|f| {
        let mut f = f.borrow_mut();
        check_search_nodes(&mut f, &literal, &query);
        check_search(&mut f, &literal, &query, paging);
        // A typed search with the query as the type filter: never an error either (within
        // the request limit on names, which entityType is).
        if query.len() <= MAX_NAME_BYTES {
            f.call(
                "search",
                &format!(r#"{{"query":"a","entityType":{literal}}}"#),
            );
        }
    });
});
