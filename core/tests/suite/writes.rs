//! The write tools beyond the reference's nine: upsert_entities, merge_entities, compact.
//! Each logs at most one record, so replay applies it whole or not at all.

use crate::common::*;
use mcp_memory_core::record::Record;
use serde_json::json;

fn replayed(log: &MemLog) -> serde_json::Value {
    graph(&mut open(log.reopened()))
}

#[test]
fn upsert_creates_new_names_and_adds_only_missing_observations_to_known_ones() {
    let (mut m, log) = fresh();
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "person", &["x"])]}),
    );
    let result = call_ok(
        &mut m,
        "upsert_entities",
        json!({"entities": [
            entity("A", "other type", &["x", "y", "y"]),
            entity("B", "place", &["p", "p"]),
            entity("B", "ignored type", &["p", "q"]),
        ]}),
    );
    assert_eq!(
        result,
        json!({"results": [
            {"name": "A", "created": false, "addedObservations": ["y"]},
            {"name": "B", "created": true, "addedObservations": ["p"]},
            {"name": "B", "created": false, "addedObservations": ["q"]},
        ]})
    );
    let want = graph_of(
        &[
            entity("A", "person", &["x", "y"]),
            entity("B", "place", &["p", "q"]),
        ],
        &[],
    );
    assert_eq!(graph(&mut m), want);
    assert_eq!(log.len(), 2, "one record for the whole upsert");
    assert_eq!(
        Record::decode(&log.records()[1]).map(|r| r.ops.len()),
        Ok(2),
        "a batch: new entities and added observations"
    );
    assert_eq!(replayed(&log), want);
}

#[test]
fn upsert_with_nothing_new_logs_nothing() {
    let (mut m, log) = fresh();
    call_ok(
        &mut m,
        "upsert_entities",
        json!({"entities": [entity("A", "t", &["x"])]}),
    );
    let again = call_ok(
        &mut m,
        "upsert_entities",
        json!({"entities": [entity("A", "t", &["x"])]}),
    );
    assert_eq!(
        again,
        json!({"results": [{"name": "A", "created": false, "addedObservations": []}]})
    );
    assert_eq!(log.len(), 1);
}

#[test]
fn merge_moves_observations_and_relations_drops_self_loops_and_repeats_and_deletes_source() {
    let (mut m, log) = fresh();
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
            entity("Alice", "person", &["likes tea"]),
            entity("alice", "person", &["likes tea", "plays chess"]),
            entity("Bob", "person", &[]),
        ]}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [
            relation("alice", "Bob", "knows"),
            relation("Alice", "Bob", "knows"),
            relation("Bob", "alice", "admires"),
            relation("Alice", "alice", "same_as"),
            relation("alice", "alice", "is"),
        ]}),
    );
    let result = call_ok(
        &mut m,
        "merge_entities",
        json!({"source": "alice", "target": "Alice"}),
    );
    assert_eq!(
        result,
        json!({"source": "alice", "target": "Alice", "addedObservations": 1,
               "redirectedRelations": 1, "droppedRelations": 3})
    );
    let want = graph_of(
        &[
            entity("Alice", "person", &["likes tea", "plays chess"]),
            entity("Bob", "person", &[]),
        ],
        &[
            relation("Alice", "Bob", "knows"),
            relation("Bob", "Alice", "admires"),
        ],
    );
    assert_eq!(graph(&mut m), want);
    assert_eq!(log.len(), 3, "the merge is one record");
    assert_eq!(replayed(&log), want);
}

#[test]
fn merge_of_missing_or_identical_entities_is_an_error_and_changes_nothing() {
    let (mut m, log) = fresh();
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    let err = call_err(
        &mut m,
        "merge_entities",
        json!({"source": "Z", "target": "A"}),
    );
    assert_eq!(err, "Entity with name Z not found");
    let err = call_err(
        &mut m,
        "merge_entities",
        json!({"source": "A", "target": "Z"}),
    );
    assert_eq!(err, "Entity with name Z not found");
    let err = call_err(
        &mut m,
        "merge_entities",
        json!({"source": "A", "target": "A"}),
    );
    assert!(err.contains("into itself"), "{err}");
    assert_eq!(log.len(), 1);
}

/// A merge cut short by a power cut is either all there after replay or not at all.
#[test]
fn merge_is_all_or_nothing_across_a_crash() {
    let log = CrashLog::new();
    let mut m = open(log.clone());
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &["a"]), entity("B", "t", &["b"])]}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("B", "C", "r")]}),
    );
    let before = graph(&mut m);
    log.set_sync_is_durable(false);
    call_ok(
        &mut m,
        "merge_entities",
        json!({"source": "B", "target": "A"}),
    );
    let after = graph(&mut m);
    let mut rng = CrashRng::new(7);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        let g = graph(&mut open(CrashLog::from_disk(&log.crash(&mut rng))));
        assert!(
            g == before || g == after,
            "a partial merge after a crash: {g}"
        );
        seen.insert(g == after);
    }
    assert_eq!(
        seen.len(),
        2,
        "crashes both before and after the merge record were tried"
    );
}

#[test]
fn compact_tool_rewrites_the_log_and_keeps_the_graph() {
    let (mut m, log) = fresh();
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &["x"]), entity("B", "t", &[])]}),
    );
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["B"]}));
    let before = graph(&mut m);
    assert_eq!(call_ok(&mut m, "compact", json!({})), json!({"records": 1}));
    assert_eq!(log.replaces(), 1);
    assert_eq!(log.len(), 1);
    assert_eq!(graph(&mut m), before);
    assert_eq!(replayed(&log), before);
}

#[test]
fn the_extra_tools_are_listed_after_the_reference_nine_with_output_schemas() {
    let (mut m, _) = fresh();
    let replies = m.handle(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let list: serde_json::Value = serde_json::from_str(&replies[0]).unwrap();
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names[..9], REFERENCE_TOOLS);
    for name in ["upsert_entities", "merge_entities", "compact"] {
        let tool = tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed"));
        for key in [
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ] {
            assert!(tool.get(key).is_some(), "{name} has {key}");
        }
    }
}
