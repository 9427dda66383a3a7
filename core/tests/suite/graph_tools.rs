//! The read-only graph tools (`core/src/tools/ours/graph.json`): lookups, statistics, traversal
//! and export, through `Memory::handle` like a client calls them.

use std::collections::{HashMap, HashSet, VecDeque};

use crate::common::*;
use mcp_memory_core::Server;
use serde_json::{Value, json};

const GRAPH_JSON: &str = include_str!("../../src/tools/ours/graph.json");

/// Calls a tool that must succeed; checks that its text is its structuredContent as JSON.
fn ok(memory: &mut Server<MemLog>, tool: &str, args: Value) -> Value {
    let result = call(memory, tool, args.clone());
    let structured = call_ok(memory, tool, args);
    let from_text: Value = serde_json::from_str(text(&result)).expect("the text is JSON");
    assert_eq!(
        from_text, structured,
        "{tool}: text and structuredContent differ"
    );
    assert!(
        text(&result).starts_with("{\n  \""),
        "{tool}: the text is indented like JSON.stringify(x, null, 2)"
    );
    structured
}

/// The sample graph most tests use. Relations, in creation order:
/// r0 Alice works_at Acme, r1 Bob works_at Acme, r2 Alice knows Bob, r3 Carol knows Alice,
/// r4 Alice mentors Ghost (Ghost is no entity: a dangling endpoint).
fn sample() -> Server<MemLog> {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("Alice", "person", &["likes tea"]),
            entity("Bob", "person", &[]),
            entity("Acme", "company", &["founded 1990"]),
            entity("Carol", "person", &["x"]),
        ],
    );
    relate(&mut m, &[r(0), r(1), r(2), r(3), r(4)]);
    m
}

/// The sample graph's relations by number.
fn r(i: usize) -> Value {
    match i {
        0 => relation("Alice", "Acme", "works_at"),
        1 => relation("Bob", "Acme", "works_at"),
        2 => relation("Alice", "Bob", "knows"),
        3 => relation("Carol", "Alice", "knows"),
        4 => relation("Alice", "Ghost", "mentors"),
        _ => unreachable!(),
    }
}

fn alice() -> Value {
    entity("Alice", "person", &["likes tea"])
}
fn bob() -> Value {
    entity("Bob", "person", &[])
}
fn acme() -> Value {
    entity("Acme", "company", &["founded 1990"])
}
fn carol() -> Value {
    entity("Carol", "person", &["x"])
}

/// A ring a0 -> a1 -> ... -> a{n-1} -> a0 of "next" relations.
fn ring(n: usize) -> Server<MemLog> {
    let (mut m, _) = fresh();
    let names: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let entities: Vec<Value> = names.iter().map(|n| entity(n, "node", &[])).collect();
    create(&mut m, &entities);
    let relations: Vec<Value> = (0..n)
        .map(|i| relation(&names[i], &names[(i + 1) % n], "next"))
        .collect();
    relate(&mut m, &relations);
    m
}

/// A chain c0 -> c1 -> ... -> c{n-1}.
fn chain(n: usize) -> Server<MemLog> {
    let (mut m, _) = fresh();
    let entities: Vec<Value> = (0..n)
        .map(|i| entity(&format!("c{i}"), "node", &[]))
        .collect();
    create(&mut m, &entities);
    let relations: Vec<Value> = (1..n)
        .map(|i| relation(&format!("c{}", i - 1), &format!("c{i}"), "next"))
        .collect();
    relate(&mut m, &relations);
    m
}

// ---------------------------------------------------------------------------------------------
// get_entity, batch_get_entities, entity_exists
// ---------------------------------------------------------------------------------------------

#[test]
fn get_entity_returns_the_entity_with_its_observations() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "get_entity", json!({"name": "Alice"})),
        json!({ "entity": alice() })
    );
    assert_eq!(
        ok(&mut m, "get_entity", json!({"name": "Bob"})),
        json!({ "entity": bob() })
    );
}

#[test]
fn get_entity_of_a_missing_or_dangling_name_is_an_error() {
    let mut m = sample();
    for name in ["Nobody", "alice", "Ghost", ""] {
        assert_eq!(
            call_err(&mut m, "get_entity", json!({ "name": name })),
            format!("Entity with name {name} not found")
        );
    }
}

#[test]
fn get_entity_without_a_name_fails_schema_validation() {
    let mut m = sample();
    assert_eq!(
        call_err(&mut m, "get_entity", json!({})),
        "MCP error -32602: Input validation error: Invalid arguments for tool get_entity: \
         Invalid input: expected string, received undefined at name"
    );
}

#[test]
fn batch_get_entities_answers_in_request_order_with_null_for_missing_names() {
    let mut m = sample();
    assert_eq!(
        ok(
            &mut m,
            "batch_get_entities",
            json!({"names": ["Bob", "Nobody", "Alice", "Ghost", "Bob"]})
        ),
        json!({"entities": [bob(), null, alice(), null, bob()]})
    );
    assert_eq!(
        ok(&mut m, "batch_get_entities", json!({"names": []})),
        json!({"entities": []})
    );
}

#[test]
fn entity_exists_is_true_only_for_an_entity_with_the_exact_name() {
    let mut m = sample();
    for (name, exists) in [
        ("Alice", true),
        ("alice", false),
        ("Ghost", false),
        ("Nobody", false),
    ] {
        assert_eq!(
            ok(&mut m, "entity_exists", json!({ "name": name })),
            json!({ "exists": exists }),
            "{name}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// graph_stats, list_entity_types, list_relation_types
// ---------------------------------------------------------------------------------------------

#[test]
fn graph_stats_counts_entities_relations_observations_and_types() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "graph_stats", json!({})),
        json!({"entityCount": 4, "relationCount": 5, "observationCount": 3,
               "entityTypeCount": 2, "relationTypeCount": 3})
    );
    let (mut empty, _) = fresh();
    assert_eq!(
        ok(&mut empty, "graph_stats", json!({})),
        json!({"entityCount": 0, "relationCount": 0, "observationCount": 0,
               "entityTypeCount": 0, "relationTypeCount": 0})
    );
}

#[test]
fn graph_stats_follows_deletions() {
    let mut m = sample();
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["Alice"]}));
    assert_eq!(
        ok(&mut m, "graph_stats", json!({})),
        json!({"entityCount": 3, "relationCount": 1, "observationCount": 2,
               "entityTypeCount": 2, "relationTypeCount": 1})
    );
}

#[test]
fn list_types_rank_by_count_then_name() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "list_entity_types", json!({})),
        json!({"types": [{"type": "person", "count": 3}, {"type": "company", "count": 1}]})
    );
    assert_eq!(
        ok(&mut m, "list_relation_types", json!({})),
        json!({"types": [{"type": "knows", "count": 2}, {"type": "works_at", "count": 2},
                         {"type": "mentors", "count": 1}]})
    );
    let (mut empty, _) = fresh();
    assert_eq!(
        ok(&mut empty, "list_relation_types", json!({})),
        json!({ "types": [] })
    );
}

// ---------------------------------------------------------------------------------------------
// search_relations
// ---------------------------------------------------------------------------------------------

#[test]
fn search_relations_matches_every_given_filter_exactly_in_creation_order() {
    let mut m = sample();
    let cases = [
        (json!({"from": "Alice"}), vec![r(0), r(2), r(4)], 3),
        (json!({"to": "Alice"}), vec![r(3)], 1),
        (json!({"relationType": "knows"}), vec![r(2), r(3)], 2),
        (json!({"from": "Alice", "to": "Bob"}), vec![r(2)], 1),
        (
            json!({"to": "Acme", "relationType": "works_at"}),
            vec![r(0), r(1)],
            2,
        ),
        (json!({"to": "Ghost"}), vec![r(4)], 1),
        (json!({"from": "alice"}), vec![], 0),
        (json!({"from": "Nobody"}), vec![], 0),
        (json!({"relationType": "likes tea"}), vec![], 0),
        (json!({"from": "Bob", "relationType": "knows"}), vec![], 0),
        (json!({}), (0..5).map(r).collect(), 5),
    ];
    for (args, relations, total) in cases {
        assert_eq!(
            ok(&mut m, "search_relations", args.clone()),
            json!({"relations": relations, "total": total}),
            "{args}"
        );
    }
}

#[test]
fn search_relations_pages_with_offset_and_limit_and_reports_the_total() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "search_relations", json!({"limit": 2, "offset": 3})),
        json!({"relations": [r(3), r(4)], "total": 5})
    );
    assert_eq!(
        ok(
            &mut m,
            "search_relations",
            json!({"to": "Acme", "limit": 1, "offset": 1})
        ),
        json!({"relations": [r(1)], "total": 2})
    );
    assert_eq!(
        ok(&mut m, "search_relations", json!({"limit": 0})),
        json!({"relations": [], "total": 5})
    );
    assert_eq!(
        ok(&mut m, "search_relations", json!({"offset": 9})),
        json!({"relations": [], "total": 5})
    );
}

#[test]
fn search_relations_defaults_to_pages_of_100() {
    let (mut m, _) = fresh();
    let relations: Vec<Value> = (0..150)
        .map(|i| relation("hub", &format!("n{i}"), "has"))
        .collect();
    relate(&mut m, &relations);
    let page = ok(&mut m, "search_relations", json!({"from": "hub"}));
    assert_eq!(page["total"], 150);
    assert_eq!(page["relations"].as_array().unwrap().len(), 100);
    assert_eq!(page["relations"][99], relations[99]);
}

#[test]
fn search_relations_rejects_negative_paging() {
    let mut m = sample();
    assert_eq!(
        call_err(&mut m, "search_relations", json!({"limit": -1})),
        "limit must be at least 0"
    );
    assert_eq!(
        call_err(&mut m, "search_relations", json!({"offset": -5})),
        "offset must be at least 0"
    );
}

// ---------------------------------------------------------------------------------------------
// describe_entity, degree
// ---------------------------------------------------------------------------------------------

fn directed(relation: Value, direction: &str) -> Value {
    let mut r = relation;
    r["direction"] = json!(direction);
    r
}

#[test]
fn describe_entity_lists_relations_with_direction_neighbors_and_degree() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "describe_entity", json!({"name": "Alice"})),
        json!({
            "entity": alice(),
            "relations": [directed(r(0), "outgoing"), directed(r(2), "outgoing"),
                          directed(r(3), "incoming"), directed(r(4), "outgoing")],
            "neighbors": ["Acme", "Bob", "Carol", "Ghost"],
            "degree": {"out": 3, "in": 1, "total": 4}
        })
    );
    assert_eq!(
        ok(&mut m, "describe_entity", json!({"name": "Acme"})),
        json!({
            "entity": acme(),
            "relations": [directed(r(0), "incoming"), directed(r(1), "incoming")],
            "neighbors": ["Alice", "Bob"],
            "degree": {"out": 0, "in": 2, "total": 2}
        })
    );
}

#[test]
fn describe_entity_of_an_isolated_entity_has_no_relations() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("Lone", "t", &["o"])]);
    assert_eq!(
        ok(&mut m, "describe_entity", json!({"name": "Lone"})),
        json!({"entity": entity("Lone", "t", &["o"]), "relations": [], "neighbors": [],
               "degree": {"out": 0, "in": 0, "total": 0}})
    );
}

#[test]
fn describe_entity_lists_a_self_relation_both_ways_and_not_as_a_neighbor() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("Me", "t", &[])]);
    relate(
        &mut m,
        &[
            relation("Me", "Me", "reflects"),
            relation("Me", "You", "sees"),
        ],
    );
    assert_eq!(
        ok(&mut m, "describe_entity", json!({"name": "Me"})),
        json!({
            "entity": entity("Me", "t", &[]),
            "relations": [directed(relation("Me", "Me", "reflects"), "outgoing"),
                          directed(relation("Me", "Me", "reflects"), "incoming"),
                          directed(relation("Me", "You", "sees"), "outgoing")],
            "neighbors": ["You"],
            "degree": {"out": 2, "in": 1, "total": 3}
        })
    );
    assert_eq!(
        ok(&mut m, "degree", json!({"name": "Me"})),
        json!({"name": "Me", "degree": 3})
    );
}

#[test]
fn describe_entity_of_a_missing_or_dangling_name_is_an_error() {
    let mut m = sample();
    for name in ["Nobody", "Ghost"] {
        assert_eq!(
            call_err(&mut m, "describe_entity", json!({ "name": name })),
            format!("Entity with name {name} not found")
        );
    }
}

#[test]
fn degree_counts_outgoing_incoming_or_both() {
    let mut m = sample();
    for (name, direction, degree) in [
        ("Alice", Some("out"), 3),
        ("Alice", Some("in"), 1),
        ("Alice", Some("both"), 4),
        ("Alice", None, 4),
        ("Acme", Some("out"), 0),
        ("Acme", Some("in"), 2),
        ("Ghost", None, 1),
        ("Ghost", Some("out"), 0),
    ] {
        let mut args = json!({ "name": name });
        if let Some(d) = direction {
            args["direction"] = json!(d);
        }
        assert_eq!(
            ok(&mut m, "degree", args),
            json!({"name": name, "degree": degree}),
            "{name} {direction:?}"
        );
    }
}

#[test]
fn degree_of_an_unknown_name_or_direction_is_an_error() {
    let mut m = sample();
    // "likes tea" is a stored string (an observation), but no entity or endpoint.
    for name in ["Nobody", "likes tea"] {
        assert_eq!(
            call_err(&mut m, "degree", json!({ "name": name })),
            format!("Entity with name {name} not found")
        );
    }
    assert_eq!(
        call_err(
            &mut m,
            "degree",
            json!({"name": "Alice", "direction": "up"})
        ),
        r#"direction must be "out", "in" or "both""#
    );
}

// ---------------------------------------------------------------------------------------------
// find_path
// ---------------------------------------------------------------------------------------------

#[test]
fn find_path_follows_relations_either_way_and_returns_them_as_stored() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "find_path", json!({"from": "Carol", "to": "Acme"})),
        json!({"found": true, "path": ["Carol", "Alice", "Acme"], "relations": [r(3), r(0)]})
    );
    assert_eq!(
        ok(&mut m, "find_path", json!({"from": "Acme", "to": "Carol"})),
        json!({"found": true, "path": ["Acme", "Alice", "Carol"], "relations": [r(0), r(3)]})
    );
}

#[test]
fn find_path_passes_through_and_ends_at_dangling_names() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "find_path", json!({"from": "Ghost", "to": "Bob"})),
        json!({"found": true, "path": ["Ghost", "Alice", "Bob"], "relations": [r(4), r(2)]})
    );
    let (mut m, _) = fresh();
    create(&mut m, &[entity("A", "t", &[]), entity("B", "t", &[])]);
    relate(&mut m, &[relation("A", "X", "r"), relation("B", "X", "r")]);
    assert_eq!(
        ok(&mut m, "find_path", json!({"from": "A", "to": "B"})),
        json!({"found": true, "path": ["A", "X", "B"],
               "relations": [relation("A", "X", "r"), relation("B", "X", "r")]})
    );
}

#[test]
fn find_path_in_a_cycle_terminates_and_takes_the_short_way_round() {
    let mut m = ring(6);
    assert_eq!(
        ok(&mut m, "find_path", json!({"from": "a0", "to": "a4"})),
        json!({"found": true, "path": ["a0", "a5", "a4"],
               "relations": [relation("a5", "a0", "next"), relation("a4", "a5", "next")]})
    );
    assert_eq!(
        ok(&mut m, "find_path", json!({"from": "a0", "to": "a2"})),
        json!({"found": true, "path": ["a0", "a1", "a2"],
               "relations": [relation("a0", "a1", "next"), relation("a1", "a2", "next")]})
    );
}

#[test]
fn find_path_from_a_name_to_itself_is_that_name_alone() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "find_path", json!({"from": "Bob", "to": "Bob"})),
        json!({"found": true, "path": ["Bob"], "relations": []})
    );
}

#[test]
fn find_path_reports_not_found_when_unreachable_or_longer_than_max_depth() {
    let mut m = chain(5); // c0 .. c4: c0 to c4 is 4 relations
    let want = |found: bool| {
        if found {
            json!({"found": true, "path": ["c0", "c1", "c2", "c3", "c4"],
                   "relations": [relation("c0", "c1", "next"), relation("c1", "c2", "next"),
                                 relation("c2", "c3", "next"), relation("c3", "c4", "next")]})
        } else {
            json!({"found": false, "path": [], "relations": []})
        }
    };
    for (max, found) in [(1, false), (3, false), (4, true), (16, true)] {
        assert_eq!(
            ok(
                &mut m,
                "find_path",
                json!({"from": "c0", "to": "c4", "maxDepth": max})
            ),
            want(found),
            "maxDepth {max}"
        );
    }
    create(&mut m, &[entity("island", "t", &[])]);
    assert_eq!(
        ok(&mut m, "find_path", json!({"from": "c0", "to": "island"})),
        json!({"found": false, "path": [], "relations": []})
    );
}

#[test]
fn find_path_defaults_to_a_depth_of_6() {
    let mut m = chain(8);
    let found = |m: &mut Server<MemLog>, to: &str| {
        ok(m, "find_path", json!({"from": "c0", "to": to}))["found"].clone()
    };
    assert_eq!(found(&mut m, "c6"), json!(true));
    assert_eq!(found(&mut m, "c7"), json!(false));
}

#[test]
fn find_path_rejects_a_max_depth_out_of_bounds_and_unknown_names() {
    let mut m = sample();
    let err = |m: &mut Server<MemLog>, args: Value| call_err(m, "find_path", args);
    assert_eq!(
        err(
            &mut m,
            json!({"from": "Alice", "to": "Bob", "maxDepth": 17})
        ),
        "maxDepth must be at most 16"
    );
    assert_eq!(
        err(&mut m, json!({"from": "Alice", "to": "Bob", "maxDepth": 0})),
        "maxDepth must be at least 1"
    );
    assert_eq!(
        err(
            &mut m,
            json!({"from": "Alice", "to": "Bob", "maxDepth": -3})
        ),
        "maxDepth must be at least 1"
    );
    assert_eq!(
        err(
            &mut m,
            json!({"from": "Alice", "to": "Bob", "maxDepth": 2.5})
        ),
        "MCP error -32602: Input validation error: Invalid arguments for tool find_path: \
         Invalid input: expected int, received number at maxDepth"
    );
    assert_eq!(
        err(&mut m, json!({"from": "Nobody", "to": "Bob"})),
        "Entity with name Nobody not found"
    );
    assert_eq!(
        err(&mut m, json!({"from": "Alice", "to": "Nobody"})),
        "Entity with name Nobody not found"
    );
}

// ---------------------------------------------------------------------------------------------
// find_all_paths
// ---------------------------------------------------------------------------------------------

/// s -x-> a -x-> t, s -direct-> t, t -back-> s, s -y-> b -y-> t.
fn diamond() -> Server<MemLog> {
    let (mut m, _) = fresh();
    let entities: Vec<Value> = ["s", "a", "b", "t"]
        .iter()
        .map(|n| entity(n, "node", &[]))
        .collect();
    create(&mut m, &entities);
    relate(
        &mut m,
        &[
            relation("s", "a", "x"),
            relation("a", "t", "x"),
            relation("s", "t", "direct"),
            relation("t", "s", "back"),
            relation("s", "b", "y"),
            relation("b", "t", "y"),
        ],
    );
    m
}

fn path(names: &[&str], relations: &[Value]) -> Value {
    json!({"path": names, "relations": relations})
}

fn diamond_paths() -> Vec<Value> {
    vec![
        path(&["s", "t"], &[relation("s", "t", "direct")]),
        path(&["s", "t"], &[relation("t", "s", "back")]),
        path(
            &["s", "a", "t"],
            &[relation("s", "a", "x"), relation("a", "t", "x")],
        ),
        path(
            &["s", "b", "t"],
            &[relation("s", "b", "y"), relation("b", "t", "y")],
        ),
    ]
}

#[test]
fn find_all_paths_lists_simple_paths_shortest_first_counting_parallel_relations() {
    let mut m = diamond();
    assert_eq!(
        ok(&mut m, "find_all_paths", json!({"from": "s", "to": "t"})),
        json!({"paths": diamond_paths(), "truncated": false})
    );
    assert_eq!(
        ok(
            &mut m,
            "find_all_paths",
            json!({"from": "s", "to": "t", "maxDepth": 1})
        ),
        json!({"paths": diamond_paths()[..2], "truncated": false})
    );
}

#[test]
fn find_all_paths_stops_at_max_paths_and_says_it_was_truncated() {
    let mut m = diamond();
    assert_eq!(
        ok(
            &mut m,
            "find_all_paths",
            json!({"from": "s", "to": "t", "maxPaths": 3})
        ),
        json!({"paths": diamond_paths()[..3], "truncated": true})
    );
    // Exactly as many paths as allowed: nothing was left out.
    assert_eq!(
        ok(
            &mut m,
            "find_all_paths",
            json!({"from": "s", "to": "t", "maxPaths": 4})
        ),
        json!({"paths": diamond_paths(), "truncated": false})
    );
}

#[test]
fn find_all_paths_in_a_cycle_never_repeats_a_name() {
    let mut m = ring(6);
    assert_eq!(
        ok(
            &mut m,
            "find_all_paths",
            json!({"from": "a0", "to": "a3", "maxDepth": 10})
        ),
        json!({"paths": [
            path(&["a0", "a1", "a2", "a3"], &[relation("a0", "a1", "next"),
                 relation("a1", "a2", "next"), relation("a2", "a3", "next")]),
            path(&["a0", "a5", "a4", "a3"], &[relation("a5", "a0", "next"),
                 relation("a4", "a5", "next"), relation("a3", "a4", "next")]),
        ], "truncated": false})
    );
    assert_eq!(
        ok(&mut m, "find_all_paths", json!({"from": "a0", "to": "a0"})),
        json!({"paths": [path(&["a0"], &[])], "truncated": false})
    );
}

#[test]
fn find_all_paths_with_nothing_within_reach_is_empty() {
    let mut m = chain(6);
    assert_eq!(
        ok(&mut m, "find_all_paths", json!({"from": "c0", "to": "c5"})),
        json!({"paths": [], "truncated": false})
    );
}

#[test]
fn find_all_paths_rejects_caps_beyond_its_limits() {
    let mut m = diamond();
    let err = |m: &mut Server<MemLog>, extra: Value| {
        let mut args = json!({"from": "s", "to": "t"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        call_err(m, "find_all_paths", args)
    };
    assert_eq!(
        err(&mut m, json!({"maxDepth": 11})),
        "maxDepth must be at most 10"
    );
    assert_eq!(
        err(&mut m, json!({"maxPaths": 101})),
        "maxPaths must be at most 100"
    );
    assert_eq!(
        err(&mut m, json!({"maxPaths": 0})),
        "maxPaths must be at least 1"
    );
    assert_eq!(
        call_err(
            &mut m,
            "find_all_paths",
            json!({"from": "s", "to": "nowhere"})
        ),
        "Entity with name nowhere not found"
    );
}

#[test]
fn find_all_paths_on_a_dense_graph_stops_within_its_budget() {
    // A complete graph on 14 names has ~10^8 simple paths of length up to 10 between two names.
    let (mut m, _) = fresh();
    let n = 14;
    let mut relations = Vec::new();
    for i in 0..n {
        for j in (i + 1)..n {
            relations.push(relation(&format!("k{i}"), &format!("k{j}"), "r"));
        }
    }
    relate(&mut m, &relations);
    let got = ok(
        &mut m,
        "find_all_paths",
        json!({"from": "k0", "to": "k1", "maxDepth": 10, "maxPaths": 100}),
    );
    assert_eq!(got["truncated"], json!(true));
    assert_eq!(got["paths"].as_array().unwrap().len(), 100);
    assert_eq!(
        got["paths"][0],
        path(&["k0", "k1"], &[relation("k0", "k1", "r")])
    );
}

// ---------------------------------------------------------------------------------------------
// find_path / find_all_paths against brute force on random graphs
// ---------------------------------------------------------------------------------------------

/// A relation as (from, to, relationType).
type Relation = (String, String, String);

/// A random graph: some names are entities, some only relation endpoints; self-relations and
/// relations both ways occur. Returns the memory, every name used and the relations.
fn random_graph(seed: u64) -> (Server<MemLog>, Vec<String>, Vec<Relation>) {
    let mut rng = CrashRng::new(seed);
    let (mut m, _) = fresh();
    let n = 6 + rng.up_to(10);
    let names: Vec<String> = (0..n).map(|i| format!("v{i}")).collect();
    let entities: Vec<Value> = names
        .iter()
        .filter(|_| !rng.one_in(4))
        .map(|n| entity(n, "t", &[]))
        .collect();
    create(&mut m, &entities);
    let mut triples = Vec::new();
    for _ in 0..(n + rng.up_to(2 * n)) {
        let from = names[rng.up_to(n - 1)].clone();
        let to = names[rng.up_to(n - 1)].clone();
        let kind = format!("r{}", rng.up_to(2));
        let t = (from, to, kind);
        if !triples.contains(&t) {
            triples.push(t);
        }
    }
    let relations: Vec<Value> = triples.iter().map(|(f, t, k)| relation(f, t, k)).collect();
    relate(&mut m, &relations);
    (m, names, triples)
}

/// Each name's steps (relation index, other end), self-relations left out, in creation order.
fn adjacency(triples: &[Relation]) -> HashMap<&str, Vec<(usize, &str)>> {
    let mut adj: HashMap<&str, Vec<(usize, &str)>> = HashMap::new();
    for (i, (f, t, _)) in triples.iter().enumerate() {
        if f != t {
            adj.entry(f).or_default().push((i, t));
            adj.entry(t).or_default().push((i, f));
        }
    }
    adj
}

fn bfs_distance(adj: &HashMap<&str, Vec<(usize, &str)>>, s: &str, t: &str) -> Option<usize> {
    let mut dist = HashMap::from([(s, 0)]);
    let mut queue = VecDeque::from([s]);
    while let Some(u) = queue.pop_front() {
        if u == t {
            return Some(dist[u]);
        }
        for &(_, w) in adj.get(u).map(Vec::as_slice).unwrap_or(&[]) {
            if !dist.contains_key(w) {
                dist.insert(w, dist[u] + 1);
                queue.push_back(w);
            }
        }
    }
    None
}

/// Every simple path from s to t of 1..=max relations: shortest first, then depth-first in
/// relation creation order.
fn all_simple_paths(
    adj: &HashMap<&str, Vec<(usize, &str)>>,
    s: &str,
    t: &str,
    max: usize,
) -> Vec<(Vec<String>, Vec<usize>)> {
    fn go(
        adj: &HashMap<&str, Vec<(usize, &str)>>,
        t: &str,
        left: usize,
        names: &mut Vec<String>,
        rels: &mut Vec<usize>,
        out: &mut Vec<(Vec<String>, Vec<usize>)>,
    ) {
        let at = names.last().unwrap().clone();
        for &(rel, w) in adj.get(at.as_str()).map(Vec::as_slice).unwrap_or(&[]) {
            if names.iter().any(|n| n == w) {
                continue;
            }
            names.push(w.to_string());
            rels.push(rel);
            if w == t {
                if left == 1 {
                    out.push((names.clone(), rels.clone()));
                }
            } else if left > 1 {
                go(adj, t, left - 1, names, rels, out);
            }
            names.pop();
            rels.pop();
        }
    }
    let mut out = Vec::new();
    for len in 1..=max {
        go(
            adj,
            t,
            len,
            &mut vec![s.to_string()],
            &mut Vec::new(),
            &mut out,
        );
    }
    out
}

#[test]
fn find_path_is_a_shortest_valid_path_on_random_graphs() {
    for seed in 0..60 {
        let (mut m, names, triples) = random_graph(seed);
        let adj = adjacency(&triples);
        let known: Vec<&String> = names
            .iter()
            .filter(|n| {
                adj.contains_key(n.as_str())
                    || triples.iter().any(|(f, _, _)| f == *n)
                    || ok(&mut m, "entity_exists", json!({"name": n}))["exists"] == json!(true)
            })
            .collect();
        for s in &known {
            for t in &known {
                let got = ok(
                    &mut m,
                    "find_path",
                    json!({"from": s, "to": t, "maxDepth": 16}),
                );
                let want = if s == t {
                    Some(0)
                } else {
                    bfs_distance(&adj, s, t)
                };
                let ctx = format!("seed {seed}: {s} -> {t}: {got}");
                assert_eq!(got["found"], json!(want.is_some()), "{ctx}");
                let path: Vec<&str> = got["path"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                let rels = got["relations"].as_array().unwrap();
                let Some(len) = want else {
                    assert!(path.is_empty() && rels.is_empty(), "{ctx}");
                    continue;
                };
                assert_eq!(rels.len(), len, "{ctx}");
                assert_eq!(path.len(), len + 1, "{ctx}");
                assert_eq!((path[0], path[len]), (s.as_str(), t.as_str()), "{ctx}");
                for (i, rel) in rels.iter().enumerate() {
                    let (f, to) = (rel["from"].as_str().unwrap(), rel["to"].as_str().unwrap());
                    assert!(
                        (f, to) == (path[i], path[i + 1]) || (f, to) == (path[i + 1], path[i]),
                        "{ctx}"
                    );
                    let triple = (
                        f.to_string(),
                        to.to_string(),
                        rel["relationType"].as_str().unwrap().to_string(),
                    );
                    assert!(triples.contains(&triple), "{ctx}");
                }
                // Short maxDepth: found exactly when the shortest path fits.
                if len > 1 {
                    let short = ok(
                        &mut m,
                        "find_path",
                        json!({"from": s, "to": t, "maxDepth": len - 1}),
                    );
                    assert_eq!(short["found"], json!(false), "{ctx}");
                }
            }
        }
    }
}

#[test]
fn find_all_paths_equals_brute_force_on_random_graphs() {
    for seed in 0..40 {
        let (mut m, names, triples) = random_graph(seed);
        let adj = adjacency(&triples);
        for s in names.iter().filter(|n| adj.contains_key(n.as_str())) {
            for t in names
                .iter()
                .filter(|n| adj.contains_key(n.as_str()) && *n != s)
            {
                for (max_depth, max_paths) in [(4, 100), (6, 5)] {
                    let got = ok(
                        &mut m,
                        "find_all_paths",
                        json!({"from": s, "to": t, "maxDepth": max_depth, "maxPaths": max_paths}),
                    );
                    let all = all_simple_paths(&adj, s, t, max_depth);
                    let want: Vec<Value> = all
                        .iter()
                        .take(max_paths)
                        .map(|(names, rels)| {
                            let rels: Vec<Value> = rels
                                .iter()
                                .map(|&i| {
                                    let (f, t, k) = &triples[i];
                                    relation(f, t, k)
                                })
                                .collect();
                            json!({"path": names, "relations": rels})
                        })
                        .collect();
                    assert_eq!(
                        got,
                        json!({"paths": want, "truncated": all.len() > max_paths}),
                        "seed {seed}: {s} -> {t} ({max_depth}, {max_paths})"
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// extract_subgraph
// ---------------------------------------------------------------------------------------------

#[test]
fn extract_subgraph_returns_reached_entities_and_relations_among_them() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "extract_subgraph", json!({"names": ["Bob"]})),
        json!({"entities": [alice(), bob(), acme()], "relations": [r(0), r(1), r(2)],
               "truncated": false})
    );
    assert_eq!(
        ok(
            &mut m,
            "extract_subgraph",
            json!({"names": ["Bob"], "depth": 2})
        ),
        json!({"entities": [alice(), bob(), acme(), carol()],
               "relations": [r(0), r(1), r(2), r(3), r(4)], "truncated": false})
    );
}

#[test]
fn extract_subgraph_at_depth_0_is_the_seeds_and_relations_among_them() {
    let mut m = sample();
    assert_eq!(
        ok(
            &mut m,
            "extract_subgraph",
            json!({"names": ["Bob", "Alice", "Bob"], "depth": 0})
        ),
        json!({"entities": [alice(), bob()], "relations": [r(2)], "truncated": false})
    );
    assert_eq!(
        ok(
            &mut m,
            "extract_subgraph",
            json!({"names": ["Carol", "Acme"], "depth": 0})
        ),
        json!({"entities": [acme(), carol()], "relations": [], "truncated": false})
    );
}

#[test]
fn extract_subgraph_shows_dangling_names_only_in_relations() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "extract_subgraph", json!({"names": ["Ghost"]})),
        json!({"entities": [alice()], "relations": [r(4)], "truncated": false})
    );
}

#[test]
fn extract_subgraph_stops_at_max_entities() {
    let mut m = sample();
    // Bob, then Acme (r1 is Bob's first relation); Alice would be the third.
    assert_eq!(
        ok(
            &mut m,
            "extract_subgraph",
            json!({"names": ["Bob"], "maxEntities": 2})
        ),
        json!({"entities": [bob(), acme()], "relations": [r(1)], "truncated": true})
    );
    assert_eq!(
        ok(
            &mut m,
            "extract_subgraph",
            json!({"names": ["Carol", "Bob"], "maxEntities": 1, "depth": 0})
        ),
        json!({"entities": [carol()], "relations": [], "truncated": true})
    );
    // Reaching exactly the cap is not a truncation.
    assert_eq!(
        ok(
            &mut m,
            "extract_subgraph",
            json!({"names": ["Carol"], "maxEntities": 2})
        ),
        json!({"entities": [alice(), carol()], "relations": [r(3)], "truncated": false})
    );
}

#[test]
fn extract_subgraph_in_a_cycle_reaches_each_name_once() {
    let mut m = ring(5);
    let got = ok(
        &mut m,
        "extract_subgraph",
        json!({"names": ["a0"], "depth": 16}),
    );
    assert_eq!(got["entities"].as_array().unwrap().len(), 5);
    assert_eq!(got["relations"].as_array().unwrap().len(), 5);
}

#[test]
fn extract_subgraph_rejects_unknown_seeds_and_depth_over_16() {
    let mut m = sample();
    assert_eq!(
        call_err(
            &mut m,
            "extract_subgraph",
            json!({"names": ["Alice", "Nobody"]})
        ),
        "Entity with name Nobody not found"
    );
    assert_eq!(
        call_err(
            &mut m,
            "extract_subgraph",
            json!({"names": ["Alice"], "depth": 17})
        ),
        "depth must be at most 16"
    );
    assert_eq!(
        call_err(
            &mut m,
            "extract_subgraph",
            json!({"names": ["Alice"], "maxEntities": 0})
        ),
        "maxEntities must be at least 1"
    );
}

// ---------------------------------------------------------------------------------------------
// get_neighbors
// ---------------------------------------------------------------------------------------------

fn neighbor(name: &str, distance: usize, entity: Value) -> Value {
    json!({"name": name, "distance": distance, "entity": entity})
}

#[test]
fn get_neighbors_lists_names_with_distance_and_entity_null_when_dangling() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "get_neighbors", json!({"name": "Alice"})),
        json!({"name": "Alice",
               "neighbors": [neighbor("Acme", 1, acme()), neighbor("Bob", 1, bob()),
                             neighbor("Carol", 1, carol()), neighbor("Ghost", 1, json!(null))],
               "relations": [r(0), r(2), r(3), r(4)]})
    );
}

#[test]
fn get_neighbors_follows_the_asked_direction_to_the_asked_depth() {
    let mut m = sample();
    assert_eq!(
        ok(
            &mut m,
            "get_neighbors",
            json!({"name": "Carol", "direction": "out", "depth": 2})
        ),
        json!({"name": "Carol",
               "neighbors": [neighbor("Alice", 1, alice()), neighbor("Acme", 2, acme()),
                             neighbor("Bob", 2, bob()), neighbor("Ghost", 2, json!(null))],
               "relations": [r(0), r(2), r(3), r(4)]})
    );
    assert_eq!(
        ok(
            &mut m,
            "get_neighbors",
            json!({"name": "Acme", "direction": "in", "depth": 2})
        ),
        json!({"name": "Acme",
               "neighbors": [neighbor("Alice", 1, alice()), neighbor("Bob", 1, bob()),
                             neighbor("Carol", 2, carol())],
               "relations": [r(0), r(1), r(2), r(3)]})
    );
    assert_eq!(
        ok(
            &mut m,
            "get_neighbors",
            json!({"name": "Acme", "direction": "out"})
        ),
        json!({"name": "Acme", "neighbors": [], "relations": []})
    );
}

#[test]
fn get_neighbors_follows_only_the_asked_relation_type() {
    let mut m = sample();
    assert_eq!(
        ok(
            &mut m,
            "get_neighbors",
            json!({"name": "Bob", "relationType": "knows", "depth": 3})
        ),
        json!({"name": "Bob",
               "neighbors": [neighbor("Alice", 1, alice()), neighbor("Carol", 2, carol())],
               "relations": [r(2), r(3)]})
    );
    assert_eq!(
        ok(
            &mut m,
            "get_neighbors",
            json!({"name": "Bob", "relationType": "hates"})
        ),
        json!({"name": "Bob", "neighbors": [], "relations": []})
    );
}

#[test]
fn get_neighbors_starts_from_a_dangling_name_and_survives_cycles() {
    let mut m = sample();
    assert_eq!(
        ok(&mut m, "get_neighbors", json!({"name": "Ghost"})),
        json!({"name": "Ghost", "neighbors": [neighbor("Alice", 1, alice())],
               "relations": [r(4)]})
    );
    let mut m = ring(4);
    let got = ok(&mut m, "get_neighbors", json!({"name": "a0", "depth": 16}));
    let names: Vec<(String, u64)> = got["neighbors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap().to_string(),
                n["distance"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("a1".to_string(), 1),
            ("a3".to_string(), 1),
            ("a2".to_string(), 2)
        ]
    );
    assert_eq!(got["relations"].as_array().unwrap().len(), 4);
}

#[test]
fn get_neighbors_rejects_bad_depth_direction_and_unknown_names() {
    let mut m = sample();
    let err = |m: &mut Server<MemLog>, args: Value| call_err(m, "get_neighbors", args);
    assert_eq!(
        err(&mut m, json!({"name": "Alice", "depth": 17})),
        "depth must be at most 16"
    );
    assert_eq!(
        err(&mut m, json!({"name": "Alice", "depth": 0})),
        "depth must be at least 1"
    );
    assert_eq!(
        err(&mut m, json!({"name": "Alice", "direction": "sideways"})),
        r#"direction must be "out", "in" or "both""#
    );
    assert_eq!(
        err(&mut m, json!({"name": "Nobody"})),
        "Entity with name Nobody not found"
    );
}

// ---------------------------------------------------------------------------------------------
// Duplicate names (imported reference files)
// ---------------------------------------------------------------------------------------------

fn duplicates() -> Server<MemLog> {
    from_jsonl(&[
        entity_line("A", "first", &["1"]),
        entity_line("A", "second", &["2"]),
        entity_line("B", "t", &[]),
        relation_line("A", "B", "r"),
    ])
    .0
}

#[test]
fn duplicate_names_resolve_to_the_oldest_entity() {
    let mut m = duplicates();
    let first = entity("A", "first", &["1"]);
    let b = entity("B", "t", &[]);
    assert_eq!(
        ok(&mut m, "get_entity", json!({"name": "A"})),
        json!({ "entity": first })
    );
    assert_eq!(
        ok(&mut m, "batch_get_entities", json!({"names": ["A"]})),
        json!({ "entities": [first] })
    );
    assert_eq!(
        ok(&mut m, "describe_entity", json!({"name": "A"})),
        json!({"entity": first, "relations": [directed(relation("A", "B", "r"), "outgoing")],
               "neighbors": ["B"], "degree": {"out": 1, "in": 0, "total": 1}})
    );
    assert_eq!(
        ok(&mut m, "extract_subgraph", json!({"names": ["B"]})),
        json!({"entities": [first, b], "relations": [relation("A", "B", "r")],
               "truncated": false})
    );
    assert_eq!(
        ok(&mut m, "get_neighbors", json!({"name": "B"})),
        json!({"name": "B", "neighbors": [neighbor("A", 1, first)],
               "relations": [relation("A", "B", "r")]})
    );
}

#[test]
fn duplicate_names_count_as_entities_but_draw_as_one_node() {
    let mut m = duplicates();
    assert_eq!(
        ok(&mut m, "graph_stats", json!({})),
        json!({"entityCount": 3, "relationCount": 1, "observationCount": 2,
               "entityTypeCount": 3, "relationTypeCount": 1})
    );
    assert_eq!(
        ok(&mut m, "list_entity_types", json!({})),
        json!({"types": [{"type": "first", "count": 1}, {"type": "second", "count": 1},
                         {"type": "t", "count": 1}]})
    );
    let read_graph = call(&mut m, "read_graph", json!({}));
    assert_eq!(export(&mut m, json!({"format": "json"})), text(&read_graph));
    assert_eq!(
        export(&mut m, json!({"format": "mermaid"})),
        "graph LR\n    n0[\"A\"]\n    n1[\"B\"]\n    n0 -->|\"r\"| n1\n"
    );
    assert_eq!(
        export(&mut m, json!({"format": "dot"})),
        "digraph memory {\n  \"A\" [entityType=\"first\"];\n  \"B\" [entityType=\"t\"];\n  \
         \"A\" -> \"B\" [label=\"r\"];\n}\n"
    );
}

// ---------------------------------------------------------------------------------------------
// export_graph
// ---------------------------------------------------------------------------------------------

/// export_graph's output text, checking the format is echoed.
fn export(memory: &mut Server<MemLog>, args: Value) -> String {
    let got = ok(memory, "export_graph", args.clone());
    assert_eq!(got["format"], args["format"]);
    got["output"].as_str().expect("output").to_string()
}

#[test]
fn export_graph_as_json_is_the_read_graph_text() {
    let mut m = sample();
    let read_graph = call(&mut m, "read_graph", json!({}));
    assert_eq!(export(&mut m, json!({"format": "json"})), text(&read_graph));
    let people: Value = serde_json::from_str(&export(
        &mut m,
        json!({"format": "json", "entityType": "person"}),
    ))
    .unwrap();
    assert_eq!(people, graph_of(&[alice(), bob(), carol()], &[r(2), r(3)]));
    let none: Value = serde_json::from_str(&export(
        &mut m,
        json!({"format": "json", "entityType": "robot"}),
    ))
    .unwrap();
    assert_eq!(none, graph_of(&[], &[]));
}

#[test]
fn export_graph_as_mermaid_numbers_nodes_and_labels_edges() {
    let mut m = sample();
    assert_eq!(
        export(&mut m, json!({"format": "mermaid"})),
        "graph LR\n\
         \x20   n0[\"Alice\"]\n\
         \x20   n1[\"Bob\"]\n\
         \x20   n2[\"Acme\"]\n\
         \x20   n3[\"Carol\"]\n\
         \x20   n4[\"Ghost\"]\n\
         \x20   n0 -->|\"works_at\"| n2\n\
         \x20   n1 -->|\"works_at\"| n2\n\
         \x20   n0 -->|\"knows\"| n1\n\
         \x20   n3 -->|\"knows\"| n0\n\
         \x20   n0 -->|\"mentors\"| n4\n"
    );
    assert_eq!(
        export(
            &mut m,
            json!({"format": "mermaid", "entityType": "company"})
        ),
        "graph LR\n    n0[\"Acme\"]\n"
    );
}

#[test]
fn export_graph_as_dot_quotes_names_as_ids() {
    let mut m = sample();
    assert_eq!(
        export(&mut m, json!({"format": "dot"})),
        "digraph memory {\n\
         \x20 \"Alice\" [entityType=\"person\"];\n\
         \x20 \"Bob\" [entityType=\"person\"];\n\
         \x20 \"Acme\" [entityType=\"company\"];\n\
         \x20 \"Carol\" [entityType=\"person\"];\n\
         \x20 \"Alice\" -> \"Acme\" [label=\"works_at\"];\n\
         \x20 \"Bob\" -> \"Acme\" [label=\"works_at\"];\n\
         \x20 \"Alice\" -> \"Bob\" [label=\"knows\"];\n\
         \x20 \"Carol\" -> \"Alice\" [label=\"knows\"];\n\
         \x20 \"Alice\" -> \"Ghost\" [label=\"mentors\"];\n\
         }\n"
    );
    assert_eq!(
        export(&mut m, json!({"format": "dot", "entityType": "person"})),
        "digraph memory {\n\
         \x20 \"Alice\" [entityType=\"person\"];\n\
         \x20 \"Bob\" [entityType=\"person\"];\n\
         \x20 \"Carol\" [entityType=\"person\"];\n\
         \x20 \"Alice\" -> \"Bob\" [label=\"knows\"];\n\
         \x20 \"Carol\" -> \"Alice\" [label=\"knows\"];\n\
         }\n"
    );
}

#[test]
fn export_graph_rejects_an_unknown_format() {
    let mut m = sample();
    assert_eq!(
        call_err(&mut m, "export_graph", json!({"format": "svg"})),
        r#"format must be "json", "mermaid" or "dot""#
    );
}

/// Names that break naive Mermaid or DOT writers.
const HOSTILE: [&str; 26] = [
    "say \"hi\"",
    "back\\slash",
    "trailing\\",
    "\\\"",
    "two\nlines",
    "cr\r\nlf",
    "]bracket[",
    "pi|pe",
    "-->",
    "a --> b",
    "#35;",
    "semi;colon",
    "%%{init: {}}%%",
    "`tick`",
    "<b>bold</b>",
    "é 日本 😀",
    "",
    " ",
    "  spaced  ",
    "tab\there",
    "line\u{2028}sep",
    "end",
    "graph",
    "style:x#1;",
    "{(round)}",
    "nul\u{0}bell\u{7}",
];

/// A memory whose entities, types and relation types are the hostile names: entity i is
/// related to entity i + 1 by a relation typed with name i, and to a dangling hostile name.
fn hostile() -> Server<MemLog> {
    let (mut m, _) = fresh();
    let entities: Vec<Value> = HOSTILE.iter().map(|n| entity(n, n, &[n])).collect();
    create(&mut m, &entities);
    let mut relations: Vec<Value> = (0..HOSTILE.len())
        .map(|i| relation(HOSTILE[i], HOSTILE[(i + 1) % HOSTILE.len()], HOSTILE[i]))
        .collect();
    relations.push(relation(HOSTILE[0], "dangling \"]|\n", "to\\ghost"));
    relate(&mut m, &relations);
    m
}

/// Decodes a Mermaid label written by export_graph, checking that it holds nothing raw that
/// could end or bend it: no quote, every `#` starts a `#<digits>;` code, no brackets, pipes,
/// angle brackets, semicolons, colons, percent signs, backticks, control or space characters
/// but inner plain spaces.
fn mermaid_label(label: &str) -> String {
    assert!(!label.is_empty(), "Mermaid rejects an empty label");
    if label == " " {
        return String::new();
    }
    assert!(
        !label.starts_with(' ') && !label.ends_with(' '),
        "edge spaces are coded: {label:?}"
    );
    let mut out = String::new();
    let mut chars = label.chars();
    while let Some(c) = chars.next() {
        match c {
            '#' => {
                let code: String = chars.by_ref().take_while(|&d| d != ';').collect();
                assert!(
                    !code.is_empty() && code.chars().all(|d| d.is_ascii_digit()),
                    "bad entity code in {label:?}"
                );
                out.push(char::from_u32(code.parse().unwrap()).unwrap());
            }
            '"' | '[' | ']' | '(' | ')' | '{' | '}' | '|' | '<' | '>' | ';' | ':' | '%' | '`'
            | '\\' | '&' => panic!("raw {c:?} in Mermaid label {label:?}"),
            c if c.is_control() || (c.is_whitespace() && c != ' ') => {
                panic!("raw {c:?} in Mermaid label {label:?}")
            }
            c => out.push(c),
        }
    }
    out
}

/// Parses export_graph's Mermaid output: the labels of nodes n0, n1, … and the edges.
fn parse_mermaid(text: &str) -> (Vec<String>, Vec<(usize, String, usize)>) {
    let mut lines = text.split('\n');
    assert_eq!(lines.next(), Some("graph LR"));
    assert!(text.ends_with('\n'));
    let (mut nodes, mut edges) = (Vec::new(), Vec::new());
    let id = |s: &str| -> usize {
        let digits = s.strip_prefix('n').expect("node ids are n<number>");
        assert!(digits.chars().all(|c| c.is_ascii_digit()), "node id {s:?}");
        digits.parse().unwrap()
    };
    for line in lines.filter(|l| !l.is_empty()) {
        let line = line.strip_prefix("    ").expect("indented statement");
        if let Some((node, rest)) = line.split_once("[\"") {
            let label = rest.strip_suffix("\"]").expect("node label ends with \"]");
            assert_eq!(id(node), nodes.len(), "nodes are numbered in order");
            nodes.push(mermaid_label(label));
        } else {
            let (from, rest) = line.split_once(" -->|\"").expect("an edge");
            let (label, to) = rest.split_once("\"| ").expect("edge label ends with \"|");
            edges.push((id(from), mermaid_label(label), id(to)));
        }
    }
    for &(f, _, t) in &edges {
        assert!(
            f < nodes.len() && t < nodes.len(),
            "edges join declared nodes"
        );
    }
    (nodes, edges)
}

#[test]
fn export_graph_as_mermaid_escapes_hostile_names_so_the_output_parses() {
    let mut m = hostile();
    let (nodes, edges) = parse_mermaid(&export(&mut m, json!({"format": "mermaid"})));
    let mut want: Vec<String> = HOSTILE.iter().map(|s| s.to_string()).collect();
    want.push("dangling \"]|\n".into());
    assert_eq!(nodes, want);
    let n = HOSTILE.len();
    let mut want_edges: Vec<(usize, String, usize)> = (0..n)
        .map(|i| (i, HOSTILE[i].to_string(), (i + 1) % n))
        .collect();
    want_edges.push((0, "to\\ghost".into(), n));
    assert_eq!(edges, want_edges);
}

/// A token of DOT as Graphviz scans it.
#[derive(Debug, PartialEq)]
enum Dot {
    /// A quoted string: its content as Graphviz keeps it (`\"` read as `"`, all else as is).
    Quoted(String),
    Word(String),
    Punct(&'static str),
}

/// Scans DOT text like Graphviz's lexer: fails on an unterminated string.
fn dot_tokens(text: &str) -> Vec<Dot> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '"' => {
                let mut s = String::new();
                loop {
                    match chars.next().expect("unterminated quoted string") {
                        '"' => break,
                        '\\' => match chars.next().expect("unterminated quoted string") {
                            '"' => s.push('"'),
                            '\n' => {}
                            other => {
                                s.push('\\');
                                s.push(other);
                            }
                        },
                        '\n' => panic!("a raw line break inside a quoted string"),
                        other => s.push(other),
                    }
                }
                out.push(Dot::Quoted(s));
            }
            '-' => {
                assert_eq!(chars.next(), Some('>'), "only -> edges");
                out.push(Dot::Punct("->"));
            }
            '{' => out.push(Dot::Punct("{")),
            '}' => out.push(Dot::Punct("}")),
            '[' => out.push(Dot::Punct("[")),
            ']' => out.push(Dot::Punct("]")),
            '=' => out.push(Dot::Punct("=")),
            ';' => out.push(Dot::Punct(";")),
            c if c.is_ascii_alphanumeric() => {
                let mut w = String::from(c);
                while let Some(&d) = chars.peek() {
                    if !d.is_ascii_alphanumeric() {
                        break;
                    }
                    w.push(d);
                    chars.next();
                }
                out.push(Dot::Word(w));
            }
            other => panic!("unexpected {other:?} outside a quoted string"),
        }
    }
    out
}

/// What Graphviz shows for a quoted string used as a label (`\\` is a backslash, `\n` a line
/// break, `&#N;` a character).
fn dot_shown(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                other => panic!("unexpected escape \\{other:?} in {s:?}"),
            },
            '&' if chars.peek() == Some(&'#') => {
                chars.next();
                let code: String = chars.by_ref().take_while(|&d| d != ';').collect();
                out.push(char::from_u32(code.parse().unwrap()).unwrap());
            }
            c => out.push(c),
        }
    }
    out
}

/// Parses export_graph's DOT output: node statements (id, entityType) and edges (from, to,
/// label), as shown.
fn parse_dot(text: &str) -> (Vec<(String, String)>, Vec<Relation>) {
    let tokens = dot_tokens(text);
    let word = |w: &str| Dot::Word(w.into());
    assert_eq!(
        tokens[..3],
        [word("digraph"), word("memory"), Dot::Punct("{")]
    );
    assert_eq!(tokens.last(), Some(&Dot::Punct("}")));
    let body = &tokens[3..tokens.len() - 1];
    let quoted = |t: &Dot| match t {
        Dot::Quoted(s) => dot_shown(s),
        other => panic!("expected a quoted string, got {other:?}"),
    };
    let (mut nodes, mut edges) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < body.len() {
        if body[i + 1] == Dot::Punct("->") {
            assert_eq!(body[i + 3..i + 5], [Dot::Punct("["), word("label")]);
            assert_eq!(body[i + 5], Dot::Punct("="));
            assert_eq!(body[i + 7..i + 9], [Dot::Punct("]"), Dot::Punct(";")]);
            edges.push((quoted(&body[i]), quoted(&body[i + 2]), quoted(&body[i + 6])));
            i += 9;
        } else {
            assert_eq!(
                body[i + 1..i + 4],
                [Dot::Punct("["), word("entityType"), Dot::Punct("=")]
            );
            assert_eq!(body[i + 5..i + 7], [Dot::Punct("]"), Dot::Punct(";")]);
            nodes.push((quoted(&body[i]), quoted(&body[i + 4])));
            i += 7;
        }
    }
    (nodes, edges)
}

#[test]
fn export_graph_as_dot_escapes_hostile_names_so_the_output_parses() {
    let mut m = hostile();
    let text = export(&mut m, json!({"format": "dot"}));
    let (nodes, edges) = parse_dot(&text);
    let want: Vec<(String, String)> = HOSTILE
        .iter()
        .map(|s| (s.to_string(), s.to_string()))
        .collect();
    assert_eq!(nodes, want);
    let n = HOSTILE.len();
    let mut want_edges: Vec<Relation> = (0..n)
        .map(|i| {
            (
                HOSTILE[i].to_string(),
                HOSTILE[(i + 1) % n].to_string(),
                HOSTILE[i].to_string(),
            )
        })
        .collect();
    want_edges.push((
        HOSTILE[0].to_string(),
        "dangling \"]|\n".into(),
        "to\\ghost".into(),
    ));
    assert_eq!(edges, want_edges);
    // Distinct names stay distinct node IDs.
    let ids: HashSet<&String> = nodes.iter().map(|(id, _)| id).collect();
    assert_eq!(ids.len(), HOSTILE.len());
}

#[test]
fn export_graph_as_json_round_trips_hostile_names() {
    let mut m = hostile();
    let read_graph = call(&mut m, "read_graph", json!({}));
    assert_eq!(export(&mut m, json!({"format": "json"})), text(&read_graph));
}

// ---------------------------------------------------------------------------------------------
// The catalog: listing, schemas, read-only
// ---------------------------------------------------------------------------------------------

fn graph_tool_names() -> Vec<String> {
    let defs: Value = serde_json::from_str(GRAPH_JSON).unwrap();
    defs["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn tools_list_lists_the_graph_tools_after_the_nine() {
    let (mut m, _) = fresh();
    let list = request(&mut m, "tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names[..9], REFERENCE_TOOLS);
    let ours = graph_tool_names();
    assert_eq!(ours.len(), 14);
    let start = names
        .iter()
        .position(|n| *n == ours[0])
        .expect("graph tools are listed");
    assert!(start >= 9);
    assert_eq!(names[start..start + ours.len()], ours);
}

/// One call of each graph tool on the sample graph.
fn sample_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("get_entity", json!({"name": "Alice"})),
        ("batch_get_entities", json!({"names": ["Alice", "Nobody"]})),
        ("entity_exists", json!({"name": "Alice"})),
        ("graph_stats", json!({})),
        ("search_relations", json!({"from": "Alice", "limit": 2})),
        ("describe_entity", json!({"name": "Alice"})),
        ("degree", json!({"name": "Ghost", "direction": "in"})),
        ("find_path", json!({"from": "Carol", "to": "Ghost"})),
        ("find_all_paths", json!({"from": "Carol", "to": "Acme"})),
        ("extract_subgraph", json!({"names": ["Ghost"], "depth": 2})),
        ("get_neighbors", json!({"name": "Alice", "depth": 2})),
        ("list_entity_types", json!({})),
        ("list_relation_types", json!({})),
        ("export_graph", json!({"format": "mermaid"})),
    ]
}

#[test]
fn every_graph_tool_is_read_only_and_its_results_match_its_output_schema() {
    let (mut m, _) = fresh();
    let list = request(&mut m, "tools/list", json!({}));
    let tools: HashMap<String, Value> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_string(), t.clone()))
        .collect();
    let calls = sample_calls();
    let called: Vec<&str> = calls.iter().map(|(n, _)| *n).collect();
    assert_eq!(called, graph_tool_names(), "one sample call per tool");
    let mut m = sample();
    for (name, args) in calls {
        let tool = &tools[name];
        assert!(
            !tool["title"].as_str().unwrap().is_empty()
                && tool["description"].as_str().unwrap().len() > 40,
            "{name} has a title and a description"
        );
        assert_eq!(
            tool["annotations"],
            json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true,
                   "openWorldHint": false}),
            "{name}"
        );
        // Not run as a task: `forbidden`, which is what no `execution` means.
        let tasks = tool["execution"]["taskSupport"].as_str();
        assert_eq!(tasks.unwrap_or("forbidden"), "forbidden", "{name}");
        for schema in ["inputSchema", "outputSchema"] {
            assert_eq!(tool[schema]["type"], "object", "{name} {schema}");
        }
        assert_eq!(
            schema_violation(&tool["inputSchema"], &args, "arguments"),
            None,
            "{name}"
        );
        let structured = ok(&mut m, name, args);
        assert_eq!(
            schema_violation(&tool["outputSchema"], &structured, name),
            None
        );
    }
}

#[test]
fn the_schema_check_catches_a_wrong_result() {
    let schema: Value =
        serde_json::from_str::<Value>(GRAPH_JSON).unwrap()["tools"][1]["outputSchema"].clone();
    assert_eq!(
        schema_violation(&schema, &json!({"entities": [null, alice()]}), "r"),
        None
    );
    assert!(schema_violation(&schema, &json!({"entities": [7]}), "r").is_some());
    assert!(schema_violation(&schema, &json!({"entities": [], "extra": 1}), "r").is_some());
    assert!(schema_violation(&schema, &json!({}), "r").is_some());
}

#[test]
fn graph_tools_append_nothing_to_the_log() {
    let log = MemLog::new();
    let mut m = open(log.clone());
    create(&mut m, &[entity("Alice", "person", &[])]);
    relate(&mut m, &[relation("Alice", "Ghost", "r")]);
    let appends = log.appends();
    for (name, args) in sample_calls() {
        call(&mut m, name, args);
    }
    assert_eq!(log.appends(), appends);
}
