//! The TypeScript Memory MCP's analytics, called with its argument shapes: graph stats,
//! shortest paths, connected components and centrality, in its result shapes and orders.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;

/// a → b → c → d (works_at, knows, knows), e ← d (knows); x alone; and a relation to a
/// name no entity has. Entities made a second apart, relations after.
fn chain() -> Server<MemLog> {
    let mut m = open(MemLog::new());
    for (i, (name, kind)) in [
        ("a", "person"),
        ("b", "company"),
        ("c", "person"),
        ("d", "person"),
        ("e", "person"),
        ("x", "thing"),
    ]
    .iter()
    .enumerate()
    {
        at(&mut m, T0 + i as u64 * 1000);
        call_ok(
            &mut m,
            "create_entities",
            json!({"entities": [{"name": name, "entityType": kind, "observations": []}]}),
        );
    }
    at(&mut m, T0 + 10_000);
    let rels = [
        ("a", "b", "works_at"),
        ("b", "c", "knows"),
        ("c", "d", "knows"),
        ("e", "d", "knows"),
        ("a", "ghost", "knows"),
    ]
    .map(|(f, t, r)| json!({"from": f, "to": t, "relationType": r}));
    call_ok(&mut m, "create_relations", json!({"relations": rels}));
    m
}

/// The keys of the result's text, in order (its top-level object).
fn keys(result: &Value) -> Vec<String> {
    let text = text(result);
    text.lines()
        .filter(|l| l.starts_with("  \"") && !l.starts_with("   "))
        .map(|l| l.trim().split('"').nth(1).unwrap().to_string())
        .collect()
}

#[test]
fn graph_stats_count_by_type_and_date_the_oldest_and_newest() {
    let mut m = chain();
    let result = call(&mut m, "get_graph_stats", json!({}));
    let s = &result["structuredContent"];
    assert_eq!(s["totalEntities"], 6);
    assert_eq!(s["totalRelations"], 5);
    assert_eq!(
        s["entityTypesCounts"],
        json!({"person": 4, "company": 1, "thing": 1})
    );
    assert!(
        text(&result).contains("\"person\": 4,\n    \"company\": 1"),
        "first-seen order"
    );
    assert_eq!(
        s["oldestEntity"],
        json!({"name": "a", "date": "2027-01-15T08:00:00.000Z"})
    );
    assert_eq!(s["newestEntity"]["name"], "x");
    assert_eq!(
        s["oldestRelation"]["relationType"], "works_at",
        "ties: the first"
    );
    assert_eq!(s["newestRelation"]["relationType"], "works_at");
    assert_eq!(
        keys(&result),
        [
            "totalEntities",
            "totalRelations",
            "entityTypesCounts",
            "relationTypesCounts",
            "oldestEntity",
            "newestEntity",
            "oldestRelation",
            "newestRelation",
            "entityDateRange",
            "relationDateRange"
        ]
    );
    let mut empty = open(MemLog::new());
    let result = call(&mut empty, "get_graph_stats", json!({}));
    assert_eq!(
        keys(&result),
        [
            "totalEntities",
            "totalRelations",
            "entityTypesCounts",
            "relationTypesCounts"
        ]
    );
}

#[test]
fn shortest_paths_follow_the_direction_and_types_asked() {
    let mut m = chain();
    let found = call_ok(
        &mut m,
        "find_shortest_path",
        json!({"source": "a", "target": "e"}),
    );
    assert_eq!(found["path"], json!(["a", "b", "c", "d", "e"]));
    assert_eq!(found["length"], 4);
    assert_eq!(
        found["relations"][3]["from"], "e",
        "the stored relation, as it runs"
    );
    let outgoing = call(
        &mut m,
        "find_shortest_path",
        json!({"source": "a", "target": "e", "direction": "outgoing"}),
    );
    assert_eq!(text(&outgoing), "No path found between \"a\" and \"e\"");
    assert_eq!(outgoing["structuredContent"]["path"], json!([]));
    let typed = call(
        &mut m,
        "find_shortest_path",
        json!({"source": "a", "target": "c", "relationTypes": ["KNOWS"]}),
    );
    assert_eq!(text(&typed), "No path found between \"a\" and \"c\"");
    let same = call_ok(
        &mut m,
        "find_shortest_path",
        json!({"source": "c", "target": "c"}),
    );
    assert_eq!(same, json!({"path": ["c"], "length": 0, "relations": []}));
    let missing = call(
        &mut m,
        "find_shortest_path",
        json!({"source": "a", "target": "nobody"}),
    );
    assert_eq!(text(&missing), "No path found between \"a\" and \"nobody\"");
}

#[test]
fn components_are_largest_first_and_leave_out_names_without_entities() {
    let mut m = chain();
    let found = call_ok(&mut m, "get_connected_components", json!({}));
    assert_eq!(
        found,
        json!({"components": [["a", "b", "c", "d", "e"], ["x"]], "count": 2, "largestComponentSize": 5})
    );
}

#[test]
fn centrality_ranks_best_first_with_ties_in_graph_order() {
    let mut m = chain();
    let degree = call(
        &mut m,
        "get_centrality",
        json!({"topN": 3, "direction": "in"}),
    );
    let s = &degree["structuredContent"];
    assert_eq!(s["algorithm"], "degree");
    assert_eq!(s["totalEntities"], 6);
    // In-degree over n - 1 = 5: d has two, b and c one each; the relation to "ghost" is
    // left out.
    assert_eq!(
        s["topEntities"],
        json!([{"name": "d", "score": 0.4}, {"name": "b", "score": 0.2}, {"name": "c", "score": 0.2}])
    );
    let betweenness = call_ok(
        &mut m,
        "get_centrality",
        json!({"algorithm": "betweenness", "topN": 1}),
    );
    // c lies between {a, b} and {d, e}: 4 pairs, both ways, over (n-1)(n-2)/2 = 10.
    assert_eq!(
        betweenness["topEntities"],
        json!([{"name": "c", "score": 0.8}])
    );
    assert!(
        betweenness.get("sampledSources").is_none(),
        "every source on a small graph"
    );
    let text_form = call(
        &mut m,
        "get_centrality",
        json!({"algorithm": "betweenness", "topN": 1}),
    );
    assert!(
        text(&text_form).contains("\"score\": 0.8"),
        "JavaScript's numbers"
    );
    let pagerank = call_ok(
        &mut m,
        "get_centrality",
        json!({"algorithm": "pagerank", "topN": 6}),
    );
    let top = &pagerank["topEntities"];
    assert_eq!(top[0]["name"], "d", "{pagerank}");
    let total: f64 = top
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["score"].as_f64().unwrap())
        .sum();
    assert!((total - 1.0).abs() < 1e-3, "{total}");
}
