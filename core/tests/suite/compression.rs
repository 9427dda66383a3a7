//! The TypeScript Memory MCP's merge_entities, compress_graph and find_all_paths, called
//! with its argument shapes; and under profile `all`, each of the two shapes these names
//! have answered in the shape its arguments fit.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;
const MINUTE: u64 = 60_000;

/// A memory listing the TypeScript seed's tools, with three people, a project and their
/// relations, made a minute apart.
fn people() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = profiled(log.clone(), "memory-mcp", T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
            entity("Ann", "person", &["likes tea", "lives in Oslo"]),
            entity("Annie", "person", &["likes tea", "plays chess"]),
            entity("Bob", "person", &["likes coffee"]),
            entity("Proj", "project", &["a project"]),
        ]}),
    );
    at(&mut m, T0 + MINUTE);
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [
            relation("Ann", "Proj", "works_on"),
            relation("Annie", "Proj", "works_on"),
            relation("Annie", "Bob", "knows"),
            relation("Ann", "Annie", "same_as"),
        ]}),
    );
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "Annie", "tags": ["friend"]}),
    );
    call_ok(
        &mut m,
        "set_importance",
        json!({"entityName": "Annie", "importance": 7}),
    );
    call_ok(
        &mut m,
        "set_entity_parent",
        json!({"entityName": "Bob", "parentName": "Annie"}),
    );
    (m, log)
}

#[test]
fn merge_entities_merges_into_the_first_and_moves_relations_and_children() {
    let (mut m, log) = people();
    at(&mut m, T0 + 2 * MINUTE);
    let result = call(
        &mut m,
        "merge_entities",
        json!({"entityNames": ["Ann", "Annie"]}),
    );
    let merged = json!({
        "name": "Ann", "entityType": "person",
        "observations": ["likes tea", "lives in Oslo", "plays chess"],
        "createdAt": "2027-01-15T08:00:00.000Z", "lastModified": "2027-01-15T08:02:00.000Z",
        "tags": ["friend"], "importance": 7,
    });
    assert_text(&result, &merged, "name");
    assert_eq!(result["structuredContent"], merged);
    let g = graph(&mut m);
    assert_eq!(entity_names(&g), ["Ann", "Bob", "Proj"]);
    // Two works_on relations became one; the same_as loop was dropped.
    assert_eq!(
        triples(&g),
        json!([
            relation("Ann", "Proj", "works_on"),
            relation("Ann", "Bob", "knows")
        ])
    );
    let bob = call_ok(&mut m, "get_parent", json!({"entityName": "Bob"}));
    assert_eq!(bob["parent"]["name"], "Ann", "children follow");
    // Each observation kept the time it was added; replay gives the same graph.
    let again = graph(&mut profiled(log.reopened(), "memory-mcp", T0));
    assert_eq!(again, g);
}

#[test]
fn merge_entities_takes_a_new_name_or_keeps_the_one_named() {
    let (mut m, _) = people();
    let merged = call_ok(
        &mut m,
        "merge_entities",
        json!({"entityNames": ["Ann", "Annie"], "targetName": "Anne"}),
    );
    assert_eq!(merged["name"], "Anne");
    let g = graph(&mut m);
    assert_eq!(entity_names(&g), ["Bob", "Proj", "Anne"]);
    assert_eq!(triples(&g)[0], relation("Anne", "Proj", "works_on"));

    let (mut m, _) = people();
    let merged = call_ok(
        &mut m,
        "merge_entities",
        json!({"entityNames": ["Ann", "Annie"], "targetName": "Annie"}),
    );
    assert_eq!(merged["name"], "Annie");
    assert_eq!(
        merged["observations"],
        json!(["likes tea", "plays chess", "lives in Oslo"])
    );
}

#[test]
fn merge_entities_refuses_taken_names_missing_entities_and_one_entity() {
    let (mut m, log) = people();
    let before = log.len();
    assert_eq!(
        call_err(
            &mut m,
            "merge_entities",
            json!({"entityNames": ["Ann", "Annie"], "targetName": "Bob"})
        ),
        "targetName: an entity named \"Bob\" exists and is not among entityNames; merge it too, or choose a free name"
    );
    assert_eq!(
        call_err(
            &mut m,
            "merge_entities",
            json!({"entityNames": ["Ann", "Zed"]})
        ),
        "Entity \"Zed\" not found"
    );
    assert_eq!(
        call_err(
            &mut m,
            "merge_entities",
            json!({"entityNames": ["Ann", "Ann"]})
        ),
        "entityNames: name at least two different entities to merge"
    );
    assert!(
        call_err(&mut m, "merge_entities", json!({"entityNames": ["Ann"]})).contains("entityNames")
    );
    assert_eq!(log.len(), before, "nothing changed");
}

#[test]
fn compress_graph_merges_each_group_and_its_dry_run_changes_nothing() {
    let (mut m, log) = people();
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Ann B", "person", &["likes tea", "lives in Oslo"])]}),
    );
    let before = log.len();
    let preview = call(
        &mut m,
        "compress_graph",
        json!({"threshold": 0.7, "dryRun": true}),
    );
    let report = &preview["structuredContent"];
    assert_eq!(
        report["mergedEntities"],
        json!([{"kept": "Ann", "merged": ["Ann B"]}])
    );
    assert_eq!(report["duplicatesFound"], 2);
    assert_eq!(report["entitiesMerged"], 1);
    assert_eq!(report["observationsCompressed"], 2);
    assert!(report["spaceFreed"].as_i64().unwrap() > 0);
    assert!(
        text(&preview).starts_with("{\n  \"duplicatesFound\""),
        "the seed's key order"
    );
    assert_eq!(log.len(), before, "a dry run logs nothing");
    let done = call_ok(&mut m, "compress_graph", json!({"threshold": 0.7}));
    assert_eq!(&done, report, "the dry run said what happens");
    assert_eq!(log.len(), before + 1, "one change");
    assert_eq!(
        entity_names(&graph(&mut m)),
        ["Ann", "Annie", "Bob", "Proj"]
    );
    let none = call_ok(&mut m, "compress_graph", json!({"threshold": 0.7}));
    assert_eq!(none["mergedEntities"], json!([]));
    assert_eq!(log.len(), before + 1);
}

#[test]
fn find_all_paths_walks_depth_first_in_the_seeds_order() {
    let (mut m, _) = people();
    let found = call_ok(
        &mut m,
        "find_all_paths",
        json!({"source": "Ann", "target": "Proj"}),
    );
    let paths: Vec<Value> = found["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].clone())
        .collect();
    assert_eq!(
        paths,
        [json!(["Ann", "Proj"]), json!(["Ann", "Annie", "Proj"])]
    );
    assert_eq!(found["count"], 2);
    assert_eq!(found["truncated"], false);
    assert_eq!(found["paths"][1]["length"], 2);
    assert_eq!(found["paths"][1]["relations"][1]["from"], "Annie");
    assert!(found["paths"][1]["relations"][1]["createdAt"].is_string());
    let out = call_ok(
        &mut m,
        "find_all_paths",
        json!({"source": "Ann", "target": "Proj", "direction": "outgoing", "maxDepth": 1}),
    );
    assert_eq!(out["count"], 1);
    let typed = call_ok(
        &mut m,
        "find_all_paths",
        json!({"source": "Bob", "target": "Proj", "relationTypes": ["KNOWS", "works_on"]}),
    );
    assert_eq!(typed["paths"][0]["path"], json!(["Bob", "Annie", "Proj"]));
    let missing = call_ok(
        &mut m,
        "find_all_paths",
        json!({"source": "Ann", "target": "Zed"}),
    );
    assert_eq!(
        missing,
        json!({"paths": [], "count": 0, "truncated": false})
    );
    assert!(
        call_err(
            &mut m,
            "find_all_paths",
            json!({"source": "Ann", "target": "Proj", "maxDepth": 11})
        )
        .contains("maxDepth")
    );
}

/// The listing of a memory with `profile`, by name.
fn listed(m: &mut Server<MemLog>, name: &str) -> Value {
    let reply = send(m, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let tools = reply[0]["result"]["tools"].as_array().unwrap().clone();
    let mut named = tools.into_iter().filter(|t| t["name"] == name);
    let tool = named.next().expect("listed");
    assert!(named.next().is_none(), "listed once");
    tool
}

#[test]
fn each_profile_lists_its_seeds_shape_and_all_takes_both() {
    let (mut m, _) = people();
    let props = |t: &Value| -> Vec<String> {
        let mut keys: Vec<String> = t["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(
        props(&listed(&mut m, "merge_entities")),
        ["entityNames", "targetName"]
    );
    assert!(props(&listed(&mut m, "find_all_paths")).contains(&"source".to_string()));
    // The Rust seed's shape is not answered under memory-mcp.
    assert!(
        call_err(
            &mut m,
            "merge_entities",
            json!({"source": "Ann", "target": "Annie"})
        )
        .contains("entityNames")
    );
    m.set_tools("rust", "").unwrap();
    assert_eq!(
        props(&listed(&mut m, "merge_entities")),
        ["source", "target"]
    );
    m.set_tools("all", "").unwrap();
    let both = listed(&mut m, "merge_entities");
    assert_eq!(
        props(&both),
        ["entityNames", "source", "target", "targetName"]
    );
    assert!(both["description"].as_str().unwrap().contains("TypeScript"));
    // Each shape answers in its own.
    let ours = call_ok(
        &mut m,
        "find_all_paths",
        json!({"from": "Ann", "to": "Proj"}),
    );
    assert!(ours.get("count").is_none());
    let theirs = call_ok(
        &mut m,
        "find_all_paths",
        json!({"source": "Ann", "target": "Proj"}),
    );
    assert_eq!(theirs["count"], 2);
    let merged = call_ok(
        &mut m,
        "merge_entities",
        json!({"source": "Annie", "target": "Ann"}),
    );
    assert_eq!(merged["source"], "Annie");
    let merged = call_ok(
        &mut m,
        "merge_entities",
        json!({"entityNames": ["Ann", "Bob"]}),
    );
    assert_eq!(merged["name"], "Ann");
    // `--tools` names both shapes: each profile adds its own.
    m.set_tools("memory-mcp", "-merge_entities").unwrap();
    assert!(
        call_err(
            &mut m,
            "merge_entities",
            json!({"entityNames": ["Ann", "Proj"]})
        )
        .contains("not found")
    );
    m.set_tools("reference", "+merge_entities").unwrap();
    assert_eq!(
        props(&listed(&mut m, "merge_entities")),
        ["source", "target"]
    );
}

/// A graph's relations as triples (without the times the seed's shape adds).
fn triples(g: &Value) -> Value {
    let triple = |r: &Value| {
        relation(
            r["from"].as_str().unwrap(),
            r["to"].as_str().unwrap(),
            r["relationType"].as_str().unwrap(),
        )
    };
    Value::Array(
        g["relations"]
            .as_array()
            .unwrap()
            .iter()
            .map(triple)
            .collect(),
    )
}
