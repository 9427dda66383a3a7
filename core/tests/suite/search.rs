//! The ranked `search` tool: the relevance test set (`tests/relevance/queries.json`), and
//! its behaviour under changes, odd queries and paging. Its speed and memory at 40,000
//! entities: `cargo bench -p mcp-memory-core --bench search_ops`.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::embed::Table;
use mcp_memory_core::graph::{EntityId, Graph};
use mcp_memory_core::index::Indexes;
use mcp_memory_core::index::search::{self, Options, SearchIndex};
use mcp_memory_core::model::{Entity, Observations, Relation};
use mcp_memory_core::record::{self, Record};
use proptest::prelude::*;
use serde_json::{Value, json};

const RELEVANCE: &str = include_str!("../../../tests/relevance/queries.json");

fn search_args(memory: &mut Server<MemLog>, args: Value) -> Value {
    call_ok(memory, "search", args)
}

fn search(memory: &mut Server<MemLog>, query: &str) -> Value {
    search_args(memory, json!({ "query": query }))
}

/// Names of the hits, best first.
fn names(result: &Value) -> Vec<String> {
    result["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["name"].as_str().expect("name").to_string())
        .collect()
}

fn found(memory: &mut Server<MemLog>, query: &str) -> Vec<String> {
    names(&search(memory, query))
}

// ---------------------------------------------------------------------------------------------
// Relevance
// ---------------------------------------------------------------------------------------------

#[test]
fn relevance_test_set() {
    let set: Value = serde_json::from_str(RELEVANCE).expect("queries.json is JSON");
    let (mut m, _) = fresh();
    create(&mut m, set["entities"].as_array().expect("entities"));
    let mut failures = Vec::new();
    let queries = set["queries"].as_array().expect("queries");
    for q in queries {
        let query = q["query"].as_str().expect("query");
        let top = q["top"].as_u64().expect("top") as usize;
        let mut args = json!({ "query": query, "limit": 100 });
        if let Some(t) = q.get("entityType") {
            args["entityType"] = t.clone();
        }
        let result = search_args(&mut m, args);
        let hits = names(&result);
        let total = result["total"].as_u64().expect("total");
        if std::env::var_os("RELEVANCE_VERBOSE").is_some() {
            let top: Vec<String> = result["hits"].as_array().expect("hits")[..hits.len().min(5)]
                .iter()
                .map(|h| format!("{} {} {}", h["name"], h["score"], h["matched"]))
                .collect();
            println!("{query:?} ({total}): {}", top.join(" | "));
        }
        let mut fail = |why: String| failures.push(format!("{query:?}: {why}; got {hits:?}"));
        for want in q["expect"].as_array().expect("expect") {
            let want = want.as_str().expect("name");
            if !hits.iter().take(top).any(|h| h == want) {
                fail(format!("{want:?} not in the top {top}"));
            }
        }
        for not in q
            .get("absent")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if hits.iter().any(|h| h == not.as_str().expect("name")) {
                fail(format!("{not} is hit"));
            }
        }
        if let Some(want) = q.get("total").and_then(Value::as_u64)
            && total != want
        {
            fail(format!("total {total}, not {want}"));
        }
        if let Some(min) = q.get("minTotal").and_then(Value::as_u64)
            && total < min
        {
            fail(format!("total {total} below {min}"));
        }
        if let Some(t) = q.get("allType").and_then(Value::as_str) {
            for h in result["hits"].as_array().expect("hits") {
                if h["entityType"] != t {
                    fail(format!("{} is a {}", h["name"], h["entityType"]));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} queries failed:\n{}",
        failures.len(),
        queries.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Result shape
// ---------------------------------------------------------------------------------------------

#[test]
fn hits_report_entity_score_and_matched_fields() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("Alice", "person", &["works with Bob"]),
            entity("Bob", "person", &["likes tea"]),
        ],
    );
    let result = call(&mut m, "search", json!({"query": "bob"}));
    let structured = &result["structuredContent"];
    let text = text(&result);
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        *structured,
        "the text is the structured content"
    );
    assert_eq!(structured["total"], 2);
    let hits = structured["hits"].as_array().unwrap();
    assert_eq!(hits[0]["name"], "Bob");
    assert_eq!(hits[0]["entityType"], "person");
    assert_eq!(hits[0]["observations"], json!(["likes tea"]));
    assert_eq!(hits[0]["matched"], json!(["name"]));
    assert_eq!(hits[1]["matched"], json!(["observations"]));
    let (a, b) = (
        hits[0]["score"].as_f64().unwrap(),
        hits[1]["score"].as_f64().unwrap(),
    );
    assert!(a > b && b > 0.0);
    for s in [a, b] {
        assert_eq!(
            (s * 10_000.0).round() / 10_000.0,
            s,
            "rounded to 4 decimals"
        );
    }
    let both = search(&mut m, "person bob");
    assert_eq!(both["hits"][0]["matched"], json!(["name", "entityType"]));
}

/// Questions in words: stopwords are not searched, a possessive is its word, and the
/// entity holding most of the words ranks first even when none holds them all.
#[test]
fn a_question_in_words_finds_the_turn_that_answers_it() {
    let (mut m, _) = fresh();
    create(&mut m, &caroline_turns());
    assert_eq!(
        found(&mut m, "What did Caroline say about the adoption agency?")[0],
        "turn-1"
    );
    assert_eq!(
        found(&mut m, "What's Caroline's news about the agency?")[0],
        "turn-1"
    );
    assert!(
        !found(&mut m, "what did the").is_empty(),
        "stopwords alone are searched as written"
    );
}

/// Close together beats far apart: the same words, in one sentence or spread out.
#[test]
fn query_words_close_together_rank_above_the_same_words_far_apart() {
    let (mut m, _) = fresh();
    let filler = "one two three four five six seven eight nine ten";
    create(
        &mut m,
        &[
            entity("far", "t", &[&format!("adoption {filler} agency")]),
            entity("near", "t", &[&format!("adoption agency {filler}")]),
        ],
    );
    let result = search_args(&mut m, json!({"query": "adoption agency", "explain": true}));
    assert_eq!(names(&result), ["near", "far"]);
    let (near, far) = (&result["hits"][0]["explain"], &result["hits"][1]["explain"]);
    assert_eq!(near["proximity"], json!(1.25), "{near}");
    assert_eq!(far["proximity"], json!(1.0), "{far}");
    assert_eq!(
        near["bm25"], far["bm25"],
        "the same words, the same first-stage score"
    );
}

/// `explain` says, per hit, what each word scored where and how the score was made.
#[test]
fn explain_gives_each_words_score_and_fields_and_adds_up() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("Ada Lovelace", "person", &["wrote the first program"]),
            entity(
                "Charles Babbage",
                "person",
                &["designed the analytical engine"],
            ),
        ],
    );
    let result = search_args(&mut m, json!({"query": "Ada program", "explain": true}));
    let hit = &result["hits"][0];
    assert_eq!(hit["name"], "Ada Lovelace");
    let words = hit["explain"]["words"].as_array().unwrap();
    assert_eq!(words[0]["word"], "ada");
    assert_eq!(words[0]["matched"], json!(["name"]));
    assert_eq!(words[1]["word"], "program");
    assert_eq!(words[1]["matched"], json!(["observations"]));
    let sum: f64 = words.iter().map(|w| w["score"].as_f64().unwrap()).sum();
    let bm25 = hit["explain"]["bm25"].as_f64().unwrap();
    assert!((sum - bm25).abs() < 1e-3, "words {sum} vs bm25 {bm25}");
    let score = hit["score"].as_f64().unwrap();
    let proximity = hit["explain"]["proximity"].as_f64().unwrap();
    assert!((bm25 * proximity - score).abs() < 1e-3, "{hit}");
    let plain = search_args(&mut m, json!({"query": "Ada program"}));
    assert!(plain["hits"][0].get("explain").is_none(), "only when asked");
}

/// With `expand`, an entity related to a strong hit is found through the relation and says
/// so; hubs pass nothing on; without `expand` nothing changes.
#[test]
fn expansion_ranks_entities_related_to_strong_hits() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("Aiko", "person", &["lives in Osaka"]),
            entity("fact-1", "fact", &["adopted a tortoise named Shell"]),
            entity("Unrelated", "thing", &["nothing here"]),
        ],
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [{"from": "fact-1", "to": "Aiko", "relationType": "about"}]}),
    );
    assert_eq!(found(&mut m, "tortoise"), ["fact-1"]);
    let result = search_args(
        &mut m,
        json!({"query": "tortoise", "expand": true, "explain": true}),
    );
    assert_eq!(names(&result), ["fact-1", "Aiko"]);
    assert_eq!(result["total"], json!(2));
    let expansion = &result["hits"][1]["explain"]["expansion"];
    assert_eq!(expansion["from"], "fact-1");
    assert_eq!(expansion["relationType"], "about");
    let (top, share) = (
        result["hits"][0]["score"].as_f64().unwrap(),
        expansion["score"].as_f64().unwrap(),
    );
    assert!((share - 0.3 * top).abs() < 1e-3, "{result}");
    assert_eq!(
        result["hits"][1]["matched"],
        json!([]),
        "found through the relation only"
    );

    // A hub: 40 facts about one entity; a hit on the hub passes nothing on.
    let facts: Vec<Value> = (0..40)
        .map(|i| entity(&format!("hubfact-{i}"), "fact", &["x"]))
        .collect();
    create(&mut m, &facts);
    let relations: Vec<Value> = (0..40)
        .map(|i| json!({"from": format!("hubfact-{i}"), "to": "Aiko", "relationType": "about"}))
        .collect();
    call_ok(
        &mut m,
        "create_relations",
        json!({ "relations": relations }),
    );
    let result = search_args(&mut m, json!({"query": "Osaka", "expand": true}));
    assert_eq!(names(&result), ["Aiko"], "a hub spreads nothing");
}

#[test]
fn the_tool_is_listed_read_only() {
    let (mut m, _) = fresh();
    let list = request(&mut m, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let tool = tools
        .iter()
        .find(|t| t["name"] == "search")
        .expect("listed");
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    assert_eq!(tool["inputSchema"]["required"], json!(["query"]));
    let err = call_err(&mut m, "search", json!({"query": 5}));
    assert!(err.contains("expected string"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Changes
// ---------------------------------------------------------------------------------------------

#[test]
fn the_index_follows_every_change() {
    let (mut m, log) = fresh();
    create(
        &mut m,
        &[
            entity("Alice", "person", &["plays chess"]),
            entity("Bob", "person", &[]),
        ],
    );
    assert_eq!(found(&mut m, "chess"), ["Alice"]); // builds the index
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "Bob", "contents": ["plays chess badly", "owns a zeppelin"]}]}),
    );
    assert_eq!(found(&mut m, "zeppelin"), ["Bob"]);
    assert_eq!(found(&mut m, "chess"), ["Alice", "Bob"]);
    assert_eq!(found(&mut m, "\"chess badly\""), ["Bob"]);
    call_ok(
        &mut m,
        "delete_observations",
        json!({"deletions": [{"entityName": "Bob", "observations": ["plays chess badly"]}]}),
    );
    assert_eq!(found(&mut m, "chess"), ["Alice"]);
    assert_eq!(found(&mut m, "badly"), Vec::<String>::new());
    assert_eq!(
        found(&mut m, "zeppelin"),
        ["Bob"],
        "the kept observation stays"
    );
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["Alice"]}));
    assert_eq!(found(&mut m, "chess"), Vec::<String>::new());
    assert_eq!(found(&mut m, "alice"), Vec::<String>::new());
    create(&mut m, &[entity("Carol", "robot", &["plays chess"])]);
    assert_eq!(found(&mut m, "chess"), ["Carol"]);
    assert_eq!(found(&mut m, "type:robot"), ["Carol"]);

    // A restart replays the log and builds the index afresh: the same answers.
    let queries = [
        "chess",
        "zeppelin",
        "person",
        "bob",
        "pla",
        "-bob",
        "carol OR bob",
    ];
    let live: Vec<Value> = queries.iter().map(|q| search(&mut m, q)).collect();
    let mut again = open(log.reopened());
    let replayed: Vec<Value> = queries.iter().map(|q| search(&mut again, q)).collect();
    assert_eq!(live, replayed);
}

#[test]
fn duplicate_observations_are_indexed_and_deleted_together() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("A", "t", &["echo", "echo", "other"])]);
    assert_eq!(found(&mut m, "echo"), ["A"]);
    call_ok(
        &mut m,
        "delete_observations",
        json!({"deletions": [{"entityName": "A", "observations": ["echo"]}]}),
    );
    assert_eq!(found(&mut m, "echo"), Vec::<String>::new());
    assert_eq!(found(&mut m, "other"), ["A"]);
}

#[test]
fn a_repacked_graph_is_searched_correctly() {
    let (mut m, _) = fresh();
    for batch in 0..3 {
        let many: Vec<Value> = (batch * 1000..(batch + 1) * 1000)
            .map(|i| entity(&format!("e{i}"), "t", &[&format!("word{} common", i % 7)]))
            .collect();
        create(&mut m, &many);
    }
    assert_eq!(search(&mut m, "common")["total"], 3000);
    // Deleting most entities re-packs the arenas (renumbering ids).
    for batch in 0..3 {
        let doomed: Vec<String> = (batch * 1000..((batch + 1) * 1000).min(2900))
            .map(|i| format!("e{i}"))
            .collect();
        call_ok(&mut m, "delete_entities", json!({ "entityNames": doomed }));
    }
    assert_eq!(search(&mut m, "common")["total"], 100);
    assert_eq!(found(&mut m, "e2950"), ["e2950"]);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "e2999", "contents": ["unique marker"]}]}),
    );
    assert_eq!(found(&mut m, "marker"), ["e2999"]);
}

// ---------------------------------------------------------------------------------------------
// Odd queries
// ---------------------------------------------------------------------------------------------

#[test]
fn empty_and_punctuation_only_queries_find_nothing_without_error() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("A", "t", &["x y"])]);
    for q in [
        "", "   ", "?!...", "-", "--", "\"\"", "()", "NOT", "AND OR", "name:", "'",
    ] {
        let result = search(&mut m, q);
        assert_eq!(result, json!({"hits": [], "total": 0}), "{q:?}");
    }
}

#[test]
fn queries_that_do_not_parse_are_plain_words() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("Alice Jones", "person", &["likes red apples"]),
            entity("Bob", "person", &["likes apples"]),
        ],
    );
    for (q, plain) in [
        ("\"red apples", "red apples"),
        ("apples AND", "apples"),
        ("OR alice", "alice"),
        ("(alice", "alice"),
        ("alice)", "alice"),
        ("NOT", ""),
        ("red NOT", "red"),
    ] {
        assert_eq!(search(&mut m, q), search(&mut m, plain), "{q:?}");
    }
    assert_eq!(found(&mut m, "\"red apples"), ["Alice Jones"]);
}

#[test]
fn operators_and_filters() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("Red Apple", "fruit", &["grows on trees"]),
            entity("Green Pear", "fruit", &["red when ripe"]),
            entity("Apple Inc", "company", &["makes phones"]),
        ],
    );
    assert_eq!(found(&mut m, "name:red"), ["Red Apple"]);
    assert_eq!(found(&mut m, "obs:red"), ["Green Pear"]);
    assert_eq!(found(&mut m, "apple -type:company"), ["Red Apple"]);
    assert_eq!(found(&mut m, "apple NOT fruit"), ["Apple Inc"]);
    assert_eq!(found(&mut m, "phones OR trees").len(), 2);
    assert_eq!(found(&mut m, "\"apple red\""), Vec::<String>::new());
    assert_eq!(found(&mut m, "\"red apple\""), ["Red Apple"]);
    assert_eq!(found(&mut m, "(red OR green) pear"), ["Green Pear"]);
    assert_eq!(found(&mut m, "-fruit"), ["Apple Inc"], "only an exclusion");
    assert_eq!(
        found(&mut m, "apple -phone"),
        ["Red Apple", "Apple Inc"],
        "an exclusion is exact: 'phone' is not 'phones'"
    );
    assert_eq!(found(&mut m, "apple -phones"), ["Red Apple"]);
    let typed = search_args(&mut m, json!({"query": "apple", "entityType": "FRUIT"}));
    assert_eq!(names(&typed), ["Red Apple"]);
    let none = search_args(
        &mut m,
        json!({"query": "apple", "entityType": "fruit basket"}),
    );
    assert_eq!(none["total"], 0);
}

#[test]
fn a_phrase_does_not_span_two_observations_or_fields() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[entity("New", "York", &["ends with new", "york starts"])],
    );
    assert_eq!(found(&mut m, "\"new york\""), Vec::<String>::new());
    assert_eq!(found(&mut m, "\"with new\""), ["New"]);
}

// ---------------------------------------------------------------------------------------------
// Paging
// ---------------------------------------------------------------------------------------------

#[test]
fn limit_and_offset_page_through_the_ranking() {
    let (mut m, _) = fresh();
    let many: Vec<Value> = (0..150)
        .map(|i| {
            let obs = "topic ".repeat(1 + i % 5) + &format!("filler {i}");
            entity(&format!("n{i}"), "t", &[&obs])
        })
        .collect();
    create(&mut m, &many);
    let all = search_args(&mut m, json!({"query": "topic", "limit": 100}));
    assert_eq!(all["total"], 150);
    assert_eq!(all["hits"].as_array().unwrap().len(), 100);
    let rest = search_args(
        &mut m,
        json!({"query": "topic", "limit": 100, "offset": 100}),
    );
    assert_eq!(rest["hits"].as_array().unwrap().len(), 50);
    let mut paged = Vec::new();
    for page in 0..15 {
        let r = search_args(
            &mut m,
            json!({"query": "topic", "limit": 10, "offset": page * 10}),
        );
        assert_eq!(r["total"], 150);
        paged.extend(names(&r));
    }
    let mut whole = names(&all);
    whole.extend(names(&rest));
    assert_eq!(paged, whole);
    let scores: Vec<f64> = all["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first");
    // Ties keep insertion order: n4, n9, n14... have the same text length and tf.
    let top: Vec<String> = whole.iter().take(3).cloned().collect();
    assert_eq!(top, ["n4", "n9", "n14"]);
    let default = search(&mut m, "topic");
    assert_eq!(default["hits"].as_array().unwrap().len(), 10);
    let err = call_err(&mut m, "search", json!({"query": "topic", "limit": 1000}));
    assert_eq!(
        err, "limit must be at most 100",
        "a limit over the cap is refused, not clamped"
    );
    let past = search_args(&mut m, json!({"query": "topic", "offset": 500}));
    assert_eq!(past, json!({"hits": [], "total": 150}));
}

// ---------------------------------------------------------------------------------------------
// rank (the order for search_nodes)
// ---------------------------------------------------------------------------------------------

fn graph_of_names(items: &[(&str, &str, &[&str])]) -> Graph {
    let mut g = Graph::default();
    let entities = items
        .iter()
        .map(|&(name, entity_type, obs)| Entity {
            name,
            entity_type,
            observations: obs.to_vec(),
        })
        .collect();
    g.apply(&Record::from(record::Op::CreateEntities(entities)), &mut ());
    g
}

#[test]
fn rank_orders_a_given_set_by_relevance_stably() {
    let g = graph_of_names(&[
        ("Notes", "doc", &["mentions alice once"]),
        ("Malice", "word", &[]),
        ("Alice", "person", &[]),
        ("Bob", "person", &["friend of alice", "alice alice"]),
        ("Palace", "place", &["x"]),
    ]);
    let ids: Vec<EntityId> = g.entities().map(|(id, _)| id).collect();
    let name = |id: EntityId| g.text(g.entity(id).name).to_string();
    let index = SearchIndex::build(&g);
    let ranked: Vec<String> = search::rank(&index, &ids, "alice")
        .into_iter()
        .map(name)
        .collect();
    // Name match first, then observations by BM25; no token match ("Malice", "Palace")
    // keeps insertion order at the end.
    assert_eq!(ranked, ["Alice", "Bob", "Notes", "Malice", "Palace"]);
    // Only the given candidates, in the given order when nothing distinguishes them.
    let some = [ids[4], ids[1]];
    assert_eq!(search::rank(&index, &some, "alice"), some);
    assert_eq!(search::rank(&index, &some, ""), some);
    assert_eq!(search::rank(&index, &[], "alice"), Vec::<EntityId>::new());
    let prefix: Vec<String> = search::rank(&index, &ids, "ali")
        .into_iter()
        .map(name)
        .collect();
    assert_eq!(prefix[0], "Alice");
}

// ---------------------------------------------------------------------------------------------
// The incremental index equals a fresh one
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Op {
    Create(String, String, Vec<String>),
    Add(usize, Vec<String>),
    /// Deletes an entity's observations: one it has (by number), and these texts.
    DeleteObs(usize, usize, Vec<String>),
    Delete(usize),
    Relate(usize, usize),
}

fn text_strategy() -> impl Strategy<Value = String> {
    "(ab|ba|abc|cab|zoë|zoe|x|Ab-ab|)( (ab|ba|abc|x|zoë|Ab|y)){0,3}"
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (
            text_strategy(),
            "(t|u|T)",
            prop::collection::vec(text_strategy(), 0..3)
        )
            .prop_map(|(n, t, o)| Op::Create(n, t, o)),
        (0..8usize, prop::collection::vec(text_strategy(), 1..3)).prop_map(|(i, o)| Op::Add(i, o)),
        (
            0..8usize,
            0..4usize,
            prop::collection::vec(text_strategy(), 0..2)
        )
            .prop_map(|(i, k, o)| Op::DeleteObs(i, k, o)),
        (0..8usize).prop_map(Op::Delete),
        (0..8usize, 0..8usize).prop_map(|(a, b)| Op::Relate(a, b)),
    ]
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Names, scores and matched fields of a search.
fn outcome(g: &Graph, ix: &Indexes, query: &str) -> (Vec<(String, u32, u8)>, usize) {
    let options = Options {
        limit: 100,
        ..Options::default()
    };
    let r = search::search(g, ix.ranked(g), query, &options);
    let hits = r
        .hits
        .iter()
        .map(|f| {
            (
                g.text(g.entity(f.id).name).to_string(),
                f.score.to_bits(),
                f.fields,
            )
        })
        .collect();
    (hits, r.total)
}

/// The shipped embedding table.
fn table() -> Table {
    Table::parse(embedding_table_bytes().to_vec()).expect("the committed table parses")
}

/// Names of the entities the trigram index lists for a (lowercased) needle.
fn candidates(g: &Graph, ix: &Indexes, needle: &str) -> Option<Vec<String>> {
    let ids = ix.substring_candidates(g, needle)?;
    Some(
        ids.into_iter()
            .map(|id| g.text(g.entity(id).name).to_string())
            .collect(),
    )
}

/// Names and cosines (bits) of every entity with a vector, nearest to `text` first.
fn nearest(g: &Graph, ix: &Indexes, text: &str) -> Vec<(String, u32)> {
    let v = ix.vectors(g).expect("a table");
    let Some(q) = v.query(text) else {
        return Vec::new();
    };
    let (hits, _) = v.nearest(&q, 100, |_| true);
    let name = |slot| g.text(g.entity(EntityId::from_slot(slot)).name).to_string();
    hits.into_iter()
        .map(|(slot, cos)| (name(slot), cos.to_bits()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    /// Whatever the history, indexes kept up to date since an early search, or built a
    /// slice at a time between changes (`warm`), answer exactly (same hits, bit-identical
    /// scores) like ones built afresh at the end: ranked search, substring candidates and
    /// nearest vectors.
    #[test]
    fn incremental_index_equals_a_fresh_one(
        ops in prop::collection::vec(op(), 1..40),
        early in 0..40usize,
        warm_from in 0..40usize,
        slices in prop::collection::vec(0..3usize, 40),
        budget in 1..40usize,
    ) {
        let queries = ["ab", "a", "abc", "zoe", "ab ba", "\"ab ba\"", "ab -x", "abx",
                       "type:t", "name:ab", "ab OR y", "-ab", "cba"];
        let (mut live, mut live_ix) = (Graph::default(), Indexes::default());
        live_ix.set_table(table());
        let mut records: Vec<Vec<u8>> = Vec::new();
        for (step, op) in ops.iter().enumerate() {
            if step == early {
                outcome(&live, &live_ix, "ab");
            }
            if step >= warm_from {
                for _ in 0..slices[step] {
                    live_ix.warm(&live, budget);
                }
            }
            let names: Vec<String> = live.entities().map(|(_, e)| live.text(e.name).to_string()).collect();
            let pick = |i: &usize| names.get(i % names.len().max(1)).cloned().unwrap_or_default();
            let (a, b, mut gone);
            let record = match op {
                Op::Create(n, t, o) => Record::from(record::Op::CreateEntities(vec![Entity {
                    name: n, entity_type: t, observations: strs(o) }])),
                Op::Add(i, o) => { a = pick(i); Record::from(record::Op::AddObservations(vec![Observations {
                    entity: &a, contents: strs(o) }])) }
                Op::DeleteObs(i, k, o) => {
                    a = pick(i);
                    let had = live.named(&a).first().map(|&id| &live.entity(id).observations);
                    gone = o.clone();
                    if let Some(&sym) = had.and_then(|obs| obs.get(k % obs.len().max(1))) {
                        gone.push(live.text(sym).to_string());
                    }
                    Record::from(record::Op::DeleteObservations(vec![Observations {
                        entity: &a, contents: strs(&gone) }]))
                }
                Op::Delete(i) => { a = pick(i); Record::from(record::Op::DeleteEntities(vec![&a])) }
                Op::Relate(i, j) => { a = pick(i); b = pick(j); Record::from(record::Op::CreateRelations(vec![Relation {
                    from: &a, to: &b, relation_type: "r" }])) }
            };
            live.apply(&record, &mut live_ix);
            records.push(record.encode());
        }
        let mut replayed = Graph::default();
        for r in &records {
            replayed.apply(&Record::decode(r).unwrap(), &mut ());
        }
        let mut fresh = Indexes::default();
        fresh.set_table(table());
        for q in queries {
            prop_assert_eq!(outcome(&live, &live_ix, q), outcome(&replayed, &fresh, q), "query {:?}", q);
            let needle = q.to_lowercase();
            prop_assert_eq!(candidates(&live, &live_ix, &needle), candidates(&replayed, &fresh, &needle), "needle {:?}", needle);
            prop_assert_eq!(nearest(&live, &live_ix, q), nearest(&replayed, &fresh, q), "meaning {:?}", q);
        }
    }
}
