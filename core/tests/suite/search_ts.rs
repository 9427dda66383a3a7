//! The TypeScript seed's search family, called with its argument shapes: ranked, boolean
//! and fuzzy search, suggestions (filters, orders, caps, parse errors naming a position).

use crate::common::*;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

fn names(list: &Value) -> Vec<&str> {
    (list.as_array().expect("a list").iter())
        .map(|e| e["name"].as_str().expect("a name"))
        .collect()
}

fn memory() -> mcp_memory_core::Server<MemLog> {
    let mut m = open(MemLog::new());
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
            entity("Alice Smith", "person", &["works at Acme on search", "likes rust"]),
            entity("Bob", "person", &["works at Acme", "plays chess"]),
            entity("Acme", "company", &["makes search engines"]),
            entity("Carol", "robot", &["rust rust rust"]),
        ]}),
    );
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "Bob", "tags": ["Urgent"]}),
    );
    call_ok(
        &mut m,
        "set_importance",
        json!({"entityName": "Alice Smith", "importance": 8}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("Alice Smith", "Acme", "works_at"), relation("Bob", "Acme", "works_at"), relation("Acme", "Nobody", "owns")]}),
    );
    m
}

#[test]
fn ranked_search_orders_by_relevance_with_matched_fields_and_filters() {
    let mut m = memory();
    let r = call_ok(&mut m, "search_nodes_ranked", json!({"query": "rust"}));
    let list = r["results"].as_array().unwrap();
    let order: Vec<&str> = list
        .iter()
        .map(|h| h["entity"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["Carol", "Alice Smith"], "{r}");
    assert!(list[0]["score"].as_f64().unwrap() > list[1]["score"].as_f64().unwrap());
    assert_eq!(
        list[1]["matchedFields"],
        json!({"observations": ["likes rust"]})
    );
    let full = call(&mut m, "search_nodes_ranked", json!({"query": "rust"}));
    let text: Value = serde_json::from_str(text(&full)).unwrap();
    assert!(text.is_array(), "the text is the seed's array");
    let r = call_ok(
        &mut m,
        "search_nodes_ranked",
        json!({"query": "rust", "minImportance": 5}),
    );
    assert_eq!(r["results"].as_array().unwrap().len(), 1);
    let r = call_ok(
        &mut m,
        "search_nodes_ranked",
        json!({"query": "acme", "limit": 1}),
    );
    assert_eq!(r["results"].as_array().unwrap().len(), 1);
    let e = call_err(&mut m, "search_nodes_ranked", json!({"query": ""}));
    assert!(e.contains("query"), "{e}");
}

#[test]
fn boolean_search_reads_operators_fields_tags_and_parentheses() {
    let mut m = memory();
    let q = |m: &mut _, q: &str| call_ok(m, "boolean_search", json!({"query": q}));
    assert_eq!(
        names(&q(&mut m, "acme AND NOT type:company")["entities"]),
        ["Alice Smith", "Bob"]
    );
    assert_eq!(names(&q(&mut m, "tag:urgent")["entities"]), ["Bob"]);
    assert_eq!(
        names(&q(&mut m, "urgent")["entities"]),
        ["Bob"],
        "a plain term looks in tags"
    );
    assert_eq!(
        names(&q(&mut m, "chess or (name:carol)")["entities"]),
        ["Bob", "Carol"]
    );
    assert_eq!(
        names(&q(&mut m, "\"works at\" rust")["entities"]),
        ["Alice Smith"]
    );
    let r = q(&mut m, "works");
    assert_eq!(r["relations"], json!([]), "{r}");
    let r = q(&mut m, "acme");
    assert_eq!(r["relations"].as_array().unwrap().len(), 2);
    assert_eq!(r["total"], 3);
    for (query, want) in [
        ("a AND", "Unexpected end of query at character 6"),
        ("(a", "Expected closing parenthesis at character 3"),
        ("a )", "Unexpected token \")\" at character 3"),
    ] {
        let e = call_err(&mut m, "boolean_search", json!({"query": query}));
        assert!(e.contains(want), "{query}: {e}");
    }
    let many = vec!["x"; 22].join(" ");
    let e = call_err(&mut m, "boolean_search", json!({"query": many}));
    assert!(e.contains("too complex"), "{e}");
}

#[test]
fn fuzzy_search_tolerates_typos_within_the_threshold() {
    let mut m = memory();
    let f = |m: &mut _, a: Value| call_ok(m, "fuzzy_search", a);
    assert_eq!(
        names(&f(&mut m, json!({"query": "chezz"}))["entities"]),
        Vec::<&str>::new()
    );
    assert_eq!(
        names(&f(&mut m, json!({"query": "chess"}))["entities"]),
        ["Bob"]
    );
    assert_eq!(
        names(&f(&mut m, json!({"query": "chezs", "threshold": 0.6}))["entities"]),
        ["Bob"]
    );
    assert_eq!(
        names(&f(&mut m, json!({"query": "robto", "threshold": 0.5}))["entities"]),
        ["Carol"]
    );
    let all = f(&mut m, json!({"query": "zzzz", "threshold": 0}));
    assert_eq!(all["total"], 4);
    let tagged = f(&mut m, json!({"query": "acme", "tags": ["URGENT"]}));
    assert_eq!(names(&tagged["entities"]), ["Bob"]);
    let e = call_err(
        &mut m,
        "fuzzy_search",
        json!({"query": "x", "threshold": 2}),
    );
    assert!(e.contains("threshold"), "{e}");
}

#[test]
fn suggestions_are_close_names_and_types_closest_first() {
    let mut m = memory();
    let s = call_ok(&mut m, "get_search_suggestions", json!({"query": "bobb"}));
    assert_eq!(s["suggestions"], json!(["Bob"]));
    let s = call_ok(&mut m, "get_search_suggestions", json!({"query": "persn"}));
    assert_eq!(s["suggestions"], json!(["person"]));
    let s = call_ok(&mut m, "get_search_suggestions", json!({"query": "bob"}));
    assert_eq!(
        s["suggestions"],
        json!([]),
        "an exact match is no suggestion"
    );
}

/// A memory with the embedding table loaded.
fn with_table() -> mcp_memory_core::Server<MemLog> {
    let mut m = memory();
    load_table(&mut m);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Dana", "person", &["writes computer programs for a living"])]}),
    );
    m
}

#[test]
fn semantic_tools_need_the_table_and_say_so() {
    let mut m = memory();
    for (tool, args) in [
        ("semantic_search", json!({"query": "x"})),
        ("find_similar_entities", json!({"entityName": "Bob"})),
        ("index_embeddings", json!({})),
    ] {
        let e = call_err(&mut m, tool, args);
        assert!(e.contains("no embedding table"), "{tool}: {e}");
    }
    let h = call_ok(&mut m, "hybrid_search", json!({"query": "chess"}));
    assert_eq!(h["results"][0]["name"], "Bob", "{h}");
    assert_eq!(h["results"][0]["matchedLayers"], json!(["lexical"]));
}

#[test]
fn semantic_search_and_similar_entities_rank_by_meaning() {
    let mut m = with_table();
    let r = call_ok(
        &mut m,
        "semantic_search",
        json!({"query": "software developer", "limit": 2}),
    );
    assert_eq!(r["count"], 2);
    assert_eq!(r["results"][0]["entity"]["name"], "Dana", "{r}");
    let r = call_ok(
        &mut m,
        "semantic_search",
        json!({"query": "software developer", "minSimilarity": 0.99}),
    );
    assert_eq!(r["count"], 0, "{r}");
    let s = call_ok(
        &mut m,
        "find_similar_entities",
        json!({"entityName": "Bob", "limit": 3}),
    );
    let similar: Vec<&str> = (s["similarEntities"].as_array().unwrap().iter())
        .map(|x| x["entity"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(similar.len(), 3);
    assert!(!similar.contains(&"Bob"), "{s}");
    let e = call_err(
        &mut m,
        "find_similar_entities",
        json!({"entityName": "Nobody"}),
    );
    assert!(e.contains("Entity \"Nobody\" not found"), "{e}");
    let i = call_ok(&mut m, "index_embeddings", json!({"forceReindex": true}));
    assert_eq!(i["totalEntities"], 5);
    assert_eq!(i["indexed"], 5);
    assert_eq!(i["stats"]["indexedCount"], 5);
}

#[test]
fn hybrid_search_fuses_layers_and_filters_restrict() {
    let mut m = with_table();
    let h = call_ok(&mut m, "hybrid_search", json!({"query": "rust programs"}));
    assert_eq!(
        h["weights"],
        json!({"semantic": 0.5, "lexical": 0.3, "symbolic": 0.2})
    );
    let first = &h["results"][0];
    assert!(first["scores"]["combined"].as_f64().unwrap() > 0.0, "{h}");
    let h = call_ok(
        &mut m,
        "hybrid_search",
        json!({"query": "acme", "filters": {"entityTypes": ["PERSON"], "minImportance": 6}}),
    );
    let names: Vec<&str> = (h["results"].as_array().unwrap().iter())
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Alice Smith"],
        "importance 5 by default, Bob fails: {h}"
    );
    assert_eq!(
        h["results"][0]["matchedLayers"],
        json!(["semantic", "lexical", "symbolic"])
    );
    let e = call_err(
        &mut m,
        "hybrid_search",
        json!({"query": "x", "filters": {"dateRange": {"start": "yesterday"}}}),
    );
    assert!(e.contains("filters.dateRange.start"), "{e}");
    let none = call_ok(
        &mut m,
        "hybrid_search",
        json!({"query": "acme", "weights": {"semantic": 0, "lexical": 0, "symbolic": 0}}),
    );
    assert_eq!(none["resultCount"], 0);
}

#[test]
fn search_auto_picks_by_the_cost_model_and_runs_it() {
    let mut m = memory();
    let r = call_ok(&mut m, "search_auto", json!({"query": "acme"}));
    assert_eq!(r["selectedMethod"], "basic");
    assert_eq!(
        r["selectionReason"],
        "Basic search selected for small graph size - fast and efficient"
    );
    assert_eq!(r["estimates"].as_array().unwrap().len(), 5);
    assert_eq!(r["estimates"][0]["estimatedTimeMs"], 0.04);
    assert_eq!(r["estimates"][0]["isRecommended"], true);
    assert_eq!(r["results"][0]["score"], 1);
    assert_eq!(r["results"][1]["score"], 0.99);
    assert!(r.get("executionTimeMs").is_none());
    let r = call_ok(
        &mut m,
        "search_auto",
        json!({"query": "acme AND NOT type:company"}),
    );
    assert_eq!(r["selectedMethod"], "boolean");
    assert_eq!(r["results"].as_array().unwrap().len(), 2);
    let r = call_ok(
        &mut m,
        "search_auto",
        json!({"query": "search engines rust", "limit": 1}),
    );
    assert_eq!(r["selectedMethod"], "ranked", "{r}");
    assert_eq!(r["results"].as_array().unwrap().len(), 1);
}

#[test]
fn analyze_query_reads_persons_times_types_and_plans() {
    let mut m = memory();
    let a = call_ok(
        &mut m,
        "analyze_query",
        json!({"query": "When did Alice meet Dr. Bob in Paris last week and then call Acme Inc.?", "includePlan": true}),
    );
    let an = &a["analysis"];
    assert_eq!(
        an["persons"],
        json!(["Alice", "Bob", "Paris", "Acme"]),
        "capitalised words, as the seed reads them"
    );
    assert_eq!(an["locations"], json!(["Paris"]));
    assert_eq!(an["organizations"], json!(["Acme Inc."]));
    assert_eq!(an["temporalRange"], json!({"relative": "last week"}));
    assert_eq!(an["questionType"], "temporal");
    assert_eq!(an["complexity"], "medium");
    assert_eq!(an["requiredInfoTypes"], json!(["temporal"]));
    assert_eq!(an["subQueries"].as_array().unwrap().len(), 2);
    assert_eq!(a["plan"]["executionStrategy"], "sequential");
    assert_eq!(a["plan"]["subQueries"][1]["dependsOn"], json!(["sq_0"]));
    assert_eq!(a["plan"]["subQueries"][0]["targetLayer"], "symbolic");
    let b = call_ok(
        &mut m,
        "analyze_query",
        json!({"query": "rust 2026-01-02 to 2026-02-03"}),
    );
    assert_eq!(
        b["analysis"]["temporalRange"],
        json!({"start": "2026-01-02", "end": "2026-02-03"})
    );
    assert_eq!(b["analysis"]["complexity"], "low");
    assert_eq!(b["analysis"]["confidence"], 0.8);
    assert!(b.get("plan").is_none());
}

#[test]
fn smart_search_refines_until_adequate() {
    let mut m = memory();
    let r = call_ok(
        &mut m,
        "smart_search",
        json!({"query": "who works at acme", "maxIterations": 2}),
    );
    assert!(r["reflection"]["iterations"].as_u64().unwrap() >= 1, "{r}");
    assert!(r["plan"].is_object());
    let names: Vec<&str> = (r["results"].as_array().unwrap().iter())
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"Bob"), "{r}");
    assert!(r["results"][0].get("tags").is_none());
    let r = call_ok(
        &mut m,
        "smart_search",
        json!({"query": "zzqx", "includePlan": false, "adequacyThreshold": 0}),
    );
    assert_eq!(r["reflection"]["adequate"], true);
    assert_eq!(r["reflection"]["iterations"], 1);
    assert!(r.get("plan").is_none());
}

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;
const DAY: u64 = 86_400_000;

#[test]
fn normalize_observations_anchors_dates_on_each_observations_time() {
    let mut m = open(MemLog::new());
    at(&mut m, T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Alice", "person", &["She met Bob yesterday", "her car is red"])]}),
    );
    at(&mut m, T0 + 10 * DAY);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "Alice", "contents": ["he called her 3 days ago", "no change here"]}]}),
    );
    at(&mut m, T0 + 40 * DAY);
    let r = call_ok(
        &mut m,
        "normalize_observations",
        json!({"entityName": "Alice"}),
    );
    assert_eq!(r["persisted"], false);
    assert_eq!(
        r["results"][0]["normalized"],
        json!([
            "Alice met Bob 2027-01-14",
            "Alice's car is red",
            "Alice called Alice 2027-01-22",
            "no change here"
        ])
    );
    assert_eq!(
        r["results"][0]["changes"][0]["changes"],
        json!([
            "Resolved pronouns to 'Alice'",
            "'yesterday' -> '2027-01-14'"
        ])
    );
    let before = graph(&mut m);
    assert_eq!(
        before["entities"][0]["observations"][0], "She met Bob yesterday",
        "a read changes nothing"
    );
    let r = call_ok(
        &mut m,
        "normalize_observations",
        json!({"persist": true, "options": {"resolveCoreferences": false, "extractKeywords": true}}),
    );
    assert_eq!(r["entitiesChanged"], 1);
    assert_eq!(
        r["results"][0]["changes"][0]["keywords"],
        json!(["she", "met", "bob", "20270114"])
    );
    let after = graph(&mut m);
    assert_eq!(
        after["entities"][0]["observations"],
        json!([
            "She met Bob 2027-01-14",
            "her car is red",
            "he called her 2027-01-22",
            "no change here"
        ])
    );
    let again = call_ok(
        &mut m,
        "normalize_observations",
        json!({"persist": true, "options": {"resolveCoreferences": false}}),
    );
    assert_eq!(again["entitiesChanged"], 0, "dates already anchored");
    let e = call_err(
        &mut m,
        "normalize_observations",
        json!({"entityName": "Nobody"}),
    );
    assert!(e.contains("Entity \"Nobody\" not found"), "{e}");
}

#[test]
fn normalized_observations_keep_their_times_and_survive_a_restart() {
    let log = MemLog::new();
    let mut m = open(log.clone());
    at(&mut m, T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Rust", "language", &["it shipped today"])]}),
    );
    call_ok(&mut m, "normalize_observations", json!({"persist": true}));
    drop(m);
    let mut m = open(log.reopened());
    let g = graph(&mut m);
    assert_eq!(
        g["entities"][0]["observations"],
        json!(["Rust shipped 2027-01-15"])
    );
}

/// Regression: a query whose lowercase keeps its length but moves its characters (the
/// kelvin sign shrinks, `Ⱥ` grows) was sliced at offsets of its lowercase, which panicked
/// inside a character and brought the server down.
#[test]
fn a_query_whose_lowercase_moves_its_characters_is_answered() {
    let mut m = memory();
    for query in [
        "\u{212A} and \u{23A}\u{23A}",
        "\u{212A} only \u{23A}\u{23A}",
    ] {
        call_ok(
            &mut m,
            "analyze_query",
            json!({"query": query, "includePlan": true}),
        );
        call_ok(&mut m, "smart_search", json!({"query": query}));
    }
}
