//! The TypeScript Memory MCP's hierarchy tools, called with its argument shapes: its
//! result shapes (the text is its `JSON.stringify(x, null, 2)`), what they change, and
//! the cycles they refuse.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z and a minute later.
const T0: u64 = 1_800_000_000_000;
const T1: u64 = T0 + 60_000;

/// R above B and A (created in that order, so graph order is not breadth-first order), B
/// above D, A above C; X outside. Relations R→A, C→D (inside R's tree) and A→X.
fn tree() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = open(log.clone());
    at(&mut m, T0);
    let ents: Vec<Value> = ["R", "D", "C", "B", "A", "X"]
        .iter()
        .map(|n| json!({"name": n, "entityType": "t", "observations": [format!("{n} note")]}))
        .collect();
    call_ok(&mut m, "create_entities", json!({"entities": ents}));
    let rels = [("R", "A", "has"), ("C", "D", "knows"), ("A", "X", "links")]
        .map(|(f, t, r)| json!({"from": f, "to": t, "relationType": r}));
    call_ok(&mut m, "create_relations", json!({"relations": rels}));
    for (child, parent) in [("D", "B"), ("C", "A"), ("A", "R"), ("B", "R")] {
        call_ok(
            &mut m,
            "set_entity_parent",
            json!({"entityName": child, "parentName": parent}),
        );
    }
    (m, log)
}

/// The names of a list answer (text and structuredContent `entities` agree).
fn names(m: &mut Server<MemLog>, tool: &str, args: Value) -> Vec<String> {
    let result = call(m, tool, args);
    let listed: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(listed, result["structuredContent"]["entities"]);
    listed
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn set_entity_parent_answers_the_entity_in_the_seeds_shape_and_order() {
    let (mut m, _) = tree();
    at(&mut m, T1);
    let result = call(
        &mut m,
        "set_entity_parent",
        json!({"entityName": "X", "parentName": "A"}),
    );
    assert_eq!(
        text(&result),
        "{\n  \"name\": \"X\",\n  \"entityType\": \"t\",\n  \"observations\": [\n    \"X note\"\n  ],\n  \
         \"createdAt\": \"2027-01-15T08:00:00.000Z\",\n  \"lastModified\": \"2027-01-15T08:01:00.000Z\",\n  \
         \"parentId\": \"A\"\n}"
    );
    assert_eq!(result["structuredContent"]["parentId"], "A");
    let kids = names(&mut m, "get_children", json!({"entityName": "A"}));
    assert_eq!(kids, ["C", "X"], "graph order");
}

#[test]
fn a_parent_that_would_make_a_cycle_is_refused_and_nothing_changes() {
    let (mut m, log) = tree();
    let before = log.len();
    for (child, parent) in [("R", "C"), ("R", "R"), ("B", "D")] {
        let err = call_err(
            &mut m,
            "set_entity_parent",
            json!({"entityName": child, "parentName": parent}),
        );
        assert_eq!(
            err,
            format!("Setting parent \"{parent}\" for entity \"{child}\" would create a cycle")
        );
    }
    let err = call_err(
        &mut m,
        "move_entity",
        json!({"entityName": "A", "newParentName": "C"}),
    );
    assert!(err.contains("would create a cycle"), "{err}");
    assert_eq!(log.len(), before);
    let depth = call_ok(&mut m, "get_entity_depth", json!({"entityName": "C"}));
    assert_eq!(depth, json!({"entityName": "C", "depth": 2}));
}

#[test]
fn missing_entities_and_bad_parents_are_named() {
    let (mut m, log) = tree();
    let before = log.len();
    let err = call_err(
        &mut m,
        "set_entity_parent",
        json!({"entityName": "Nobody", "parentName": "R"}),
    );
    assert_eq!(err, "Entity \"Nobody\" not found");
    let err = call_err(
        &mut m,
        "set_entity_parent",
        json!({"entityName": "X", "parentName": "Nobody"}),
    );
    assert_eq!(err, "Entity \"Nobody\" not found");
    let err = call_err(
        &mut m,
        "move_entity",
        json!({"entityName": "X", "newParentName": 3}),
    );
    assert_eq!(err, "newParentName: must be an entity's name or null");
    for tool in ["get_children", "get_parent", "get_ancestors", "get_subtree"] {
        let err = call_err(&mut m, tool, json!({"entityName": "Nobody"}));
        assert_eq!(err, "Entity \"Nobody\" not found", "{tool}");
    }
    assert_eq!(log.len(), before);
}

#[test]
fn the_same_parent_again_logs_nothing_and_null_or_nothing_clears_it() {
    let (mut m, log) = tree();
    let before = log.len();
    let same = call_ok(
        &mut m,
        "move_entity",
        json!({"entityName": "C", "newParentName": "A"}),
    );
    assert_eq!(same["parentId"], "A");
    assert_eq!(log.len(), before, "no change, nothing logged");
    let cleared = call_ok(
        &mut m,
        "set_entity_parent",
        json!({"entityName": "C", "parentName": null}),
    );
    assert!(cleared.get("parentId").is_none(), "{cleared}");
    assert_eq!(log.len(), before + 1);
    call_ok(&mut m, "move_entity", json!({"entityName": "D"}));
    let roots = names(&mut m, "get_root_entities", json!({}));
    assert_eq!(roots, ["R", "D", "C", "X"]);
}

#[test]
fn reads_walk_the_tree_in_the_seeds_orders() {
    let (mut m, _) = tree();
    let down = names(&mut m, "get_descendants", json!({"entityName": "R"}));
    assert_eq!(
        down,
        ["B", "A", "D", "C"],
        "breadth first, children in graph order"
    );
    let up = names(&mut m, "get_ancestors", json!({"entityName": "D"}));
    assert_eq!(up, ["B", "R"], "parent first");
    assert_eq!(
        names(&mut m, "get_ancestors", json!({"entityName": "R"})),
        Vec::<String>::new()
    );
    assert_eq!(names(&mut m, "get_root_entities", json!({})), ["R", "X"]);

    let parent = call(&mut m, "get_parent", json!({"entityName": "A"}));
    assert_eq!(parent["structuredContent"]["parent"]["name"], "R");
    assert!(text(&parent).starts_with("{\n  \"name\": \"R\""));
    let none = call(&mut m, "get_parent", json!({"entityName": "R"}));
    assert_eq!(text(&none), "null");
    assert_eq!(none["structuredContent"], json!({"parent": null}));

    let subtree = call_ok(&mut m, "get_subtree", json!({"entityName": "R"}));
    let names: Vec<&str> = subtree["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["R", "B", "A", "D", "C"]);
    let triples: Vec<String> = subtree["relations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{}>{}", r["from"], r["to"]))
        .collect();
    assert_eq!(
        triples,
        ["\"R\">\"A\"", "\"C\">\"D\""],
        "only relations inside"
    );
    assert_eq!(
        subtree["relations"][0]["createdAt"],
        "2027-01-15T08:00:00.000Z"
    );
}

#[test]
fn parents_survive_a_restart() {
    let (mut m, log) = tree();
    let before = call_ok(&mut m, "get_subtree", json!({"entityName": "R"}));
    drop(m);
    let mut again = open(log.reopened());
    assert_eq!(
        call_ok(&mut again, "get_subtree", json!({"entityName": "R"})),
        before
    );
}
