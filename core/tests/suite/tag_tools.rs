//! The TypeScript Memory MCP's tag and importance tools, called with its argument shapes:
//! its result shapes (the text is its `JSON.stringify(x, null, 2)`), and what they change.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// A memory with entities A, B, C (A tagged `x`, `y`), answering every tool.
fn tagged() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = open(log.clone());
    at(&mut m, 1_800_000_000_000);
    let ents: Vec<Value> = ["A", "B", "C"]
        .iter()
        .map(|n| json!({"name": n, "entityType": "t", "observations": []}))
        .collect();
    call_ok(&mut m, "create_entities", json!({"entities": ents}));
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "A", "tags": ["X", "y"]}),
    );
    (m, log)
}

/// Each entity's tags, by name, as reads show them.
fn tags(m: &mut Server<MemLog>) -> Vec<(String, Vec<String>)> {
    let graph = call_ok(m, "read_graph", json!({"include": ["metadata"]}));
    let entities = graph["entities"].as_array().unwrap();
    entities
        .iter()
        .map(|e| {
            let tags = e["tags"].as_array().map_or_else(Vec::new, |t| {
                t.iter().map(|t| t.as_str().unwrap().to_string()).collect()
            });
            (e["name"].as_str().unwrap().to_string(), tags)
        })
        .collect()
}

fn of(pairs: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    let owned = |t: &[&str]| t.iter().map(|s| s.to_string()).collect();
    pairs
        .iter()
        .map(|(n, t)| (n.to_string(), owned(t)))
        .collect()
}

#[test]
fn add_tags_lowercases_and_answers_only_the_new_ones() {
    let (mut m, log) = tagged();
    let result = call(
        &mut m,
        "add_tags",
        json!({"entityName": "A", "tags": ["Y", "Z", "z"]}),
    );
    assert_text(
        &result,
        &json!({"entityName": "A", "addedTags": ["z"]}),
        "entityName",
    );
    assert_eq!(result["structuredContent"]["addedTags"], json!(["z"]));
    let before = log.len();
    let again = call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "A", "tags": ["x"]}),
    );
    assert_eq!(again["addedTags"], json!([]));
    assert_eq!(log.len(), before, "nothing new, nothing logged");
    let err = call_err(
        &mut m,
        "add_tags",
        json!({"entityName": "Nobody", "tags": ["x"]}),
    );
    assert_eq!(err, "Entity \"Nobody\" not found");
    assert_eq!(tags(&mut m)[0], of(&[("A", &["x", "y", "z"])])[0]);
}

#[test]
fn remove_tags_answers_those_the_entity_had() {
    let (mut m, _) = tagged();
    let result = call(
        &mut m,
        "remove_tags",
        json!({"entityName": "A", "tags": ["x", "w"]}),
    );
    assert_text(
        &result,
        &json!({"entityName": "A", "removedTags": ["x"]}),
        "entityName",
    );
    assert_eq!(tags(&mut m), of(&[("A", &["y"]), ("B", &[]), ("C", &[])]));
}

#[test]
fn set_importance_prints_numbers_as_javascript_does_and_refuses_out_of_range() {
    let (mut m, _) = tagged();
    let result = call(
        &mut m,
        "set_importance",
        json!({"entityName": "B", "importance": 7}),
    );
    assert_text(
        &result,
        &json!({"entityName": "B", "importance": 7}),
        "entityName",
    );
    assert!(
        !result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("7.0")
    );
    call_ok(
        &mut m,
        "set_importance",
        json!({"entityName": "C", "importance": 7.5}),
    );
    let err = call_err(
        &mut m,
        "set_importance",
        json!({"entityName": "C", "importance": 11}),
    );
    assert!(err.contains("importance"), "{err}");
    let graph = call_ok(&mut m, "read_graph", json!({"include": ["metadata"]}));
    assert_eq!(graph["entities"][1]["importance"], json!(7));
    assert_eq!(graph["entities"][2]["importance"], json!(7.5));
}

#[test]
fn add_tags_to_multiple_entities_skips_unknown_names_and_answers_an_array_as_text() {
    let (mut m, _) = tagged();
    let result = call(
        &mut m,
        "add_tags_to_multiple_entities",
        json!({"entityNames": ["A", "Nobody", "B", "B"], "tags": ["Y", "new"]}),
    );
    assert_text(
        &result,
        &json!([
            {"entityName": "A", "addedTags": ["new"]},
            {"entityName": "B", "addedTags": ["y", "new"]},
            {"entityName": "B", "addedTags": []},
        ]),
        "entityName",
    );
    let listed = &result["structuredContent"]["results"];
    assert_eq!(listed[0], json!({"entityName": "A", "addedTags": ["new"]}));
    assert_eq!(
        tags(&mut m),
        of(&[("A", &["x", "y", "new"]), ("B", &["y", "new"]), ("C", &[])])
    );
}

#[test]
fn replace_tag_renames_in_place_or_drops_the_old_where_the_new_is_there() {
    let (mut m, _) = tagged();
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "B", "tags": ["x"]}),
    );
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "C", "tags": ["z"]}),
    );
    let result = call(&mut m, "replace_tag", json!({"oldTag": "X", "newTag": "y"}));
    assert_text(
        &result,
        &json!({"affectedEntities": ["A", "B"], "count": 2}),
        "affectedEntities",
    );
    assert_eq!(
        tags(&mut m),
        of(&[("A", &["y"]), ("B", &["y"]), ("C", &["z"])])
    );
    let none = call_ok(
        &mut m,
        "replace_tag",
        json!({"oldTag": "gone", "newTag": "q"}),
    );
    assert_eq!(none, json!({"affectedEntities": [], "count": 0}));
}

#[test]
fn merge_tags_puts_the_target_in_place_of_both() {
    let (mut m, log) = tagged();
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "B", "tags": ["y", "t"]}),
    );
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "C", "tags": ["t"]}),
    );
    let result = call_ok(
        &mut m,
        "merge_tags",
        json!({"tag1": "x", "tag2": "Y", "targetTag": "t"}),
    );
    assert_eq!(result, json!({"affectedEntities": ["A", "B"], "count": 2}));
    let want = of(&[("A", &["t"]), ("B", &["t"]), ("C", &["t"])]);
    assert_eq!(tags(&mut m), want);
    assert_eq!(
        tags(&mut open(log.reopened())),
        want,
        "replay gives the same"
    );
}

/// A later line of a name in the TypeScript seed's file is that entity's new version (its
/// loader keeps the last line per name): graph-wide tools see one entity, with the last
/// line's tags.
#[test]
fn graph_wide_tools_see_the_last_version_of_an_entity_the_seed_appended() {
    let lines = [
        r#"{"type":"entity","name":"A","entityType":"t","observations":[],"tags":["keep"]}"#,
        r#"{"type":"entity","name":"A","entityType":"t","observations":["later"],"tags":["old"]}"#,
    ];
    let log = MemLog::foreign(lines.join("\n").as_bytes());
    let mut m = open(log.clone());
    let result = call_ok(
        &mut m,
        "replace_tag",
        json!({"oldTag": "old", "newTag": "new"}),
    );
    assert_eq!(result, json!({"affectedEntities": ["A"], "count": 1}));
    assert_eq!(tags(&mut m), of(&[("A", &["new"])]));
    let err = call_err(
        &mut m,
        "merge_tags",
        json!({"tag1": "", "tag2": "b", "targetTag": "c"}),
    );
    assert!(err.starts_with("tag1: a tag must be"), "{err}");
}
