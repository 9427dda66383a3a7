//! The archive: the TypeScript Memory MCP's archive_entities with its criteria and dry run,
//! and list_archived / restore_archived bringing entities back as they were, across a
//! restart and a checkpoint.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::testing::MemLog;
use serde_json::json;

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;
const DAY: u64 = 86_400_000;

/// Old (made at T0, rated 2), Mid (a day later, tagged draft), New (ten days later, rated
/// 9), related in a chain.
fn memory() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = profiled(log.clone(), "memory-mcp", T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Old", "note", &["first"])]}),
    );
    call_ok(
        &mut m,
        "set_importance",
        json!({"entityName": "Old", "importance": 2}),
    );
    at(&mut m, T0 + DAY);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Mid", "note", &["second"])]}),
    );
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "Mid", "tags": ["Draft"]}),
    );
    at(&mut m, T0 + 10 * DAY);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("New", "note", &["third"])]}),
    );
    call_ok(
        &mut m,
        "set_importance",
        json!({"entityName": "New", "importance": 9}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("Old", "Mid", "next"), relation("Mid", "New", "next")]}),
    );
    (m, log)
}

#[test]
fn archive_entities_takes_any_criterion_and_a_dry_run_changes_nothing() {
    let (mut m, log) = memory();
    let before = log.len();
    let older = call_ok(
        &mut m,
        "archive_entities",
        json!({"olderThan": "2027-01-16T12:00:00Z", "dryRun": true}),
    );
    assert_eq!(older, json!({"archived": 2, "entityNames": ["Old", "Mid"]}));
    let minor = call_ok(
        &mut m,
        "archive_entities",
        json!({"importanceLessThan": 5, "dryRun": true}),
    );
    assert_eq!(
        minor["entityNames"],
        json!(["Old"]),
        "unrated entities are not less important"
    );
    let tagged = call_ok(
        &mut m,
        "archive_entities",
        json!({"tags": ["DRAFT"], "importanceLessThan": 5, "dryRun": true}),
    );
    assert_eq!(tagged["entityNames"], json!(["Old", "Mid"]));
    let none = call_ok(&mut m, "archive_entities", json!({}));
    assert_eq!(none, json!({"archived": 0, "entityNames": []}));
    assert_eq!(log.len(), before, "nothing logged");
    assert!(
        call_err(
            &mut m,
            "archive_entities",
            json!({"olderThan": "last week"})
        )
        .contains("olderThan")
    );
}

#[test]
fn archived_entities_leave_with_their_relations_and_come_back_as_they_were() {
    let (mut m, log) = memory();
    let whole = graph(&mut m);
    let done = call_ok(&mut m, "archive_entities", json!({"tags": ["draft"]}));
    assert_eq!(done["entityNames"], json!(["Mid"]));
    let g = graph(&mut m);
    assert_eq!(entity_names(&g), ["Old", "New"]);
    assert_eq!(g["relations"], json!([]), "its relations left with it");
    let listed = call_ok(&mut m, "list_archived", json!({}));
    assert_eq!(
        listed,
        json!({"archived": [{"name": "Mid", "entityType": "note", "observations": 1,
                             "relations": 2, "archivedAt": "2027-01-25T08:00:00.000Z"}],
               "total": 1})
    );
    // The archive outlives a restart.
    let mut m = open(log.reopened());
    m.set_tools("memory-mcp", "").unwrap();
    assert_eq!(call_ok(&mut m, "list_archived", json!({}))["total"], 1);
    assert!(
        call_err(&mut m, "restore_archived", json!({"entityNames": ["Old"]}))
            .contains("not archived")
    );
    let back = call_ok(&mut m, "restore_archived", json!({"entityNames": ["Mid"]}));
    assert_eq!(
        back,
        json!({"restored": 1, "entityNames": ["Mid"], "relationsRestored": 2})
    );
    let g = graph(&mut m);
    assert_eq!(g["relations"], whole["relations"]);
    let mid = call_ok(&mut m, "open_nodes", json!({"names": ["Mid"]}));
    assert_eq!(mid["entities"][0]["observations"], json!(["second"]));
    let tagged = call_ok(
        &mut m,
        "search_nodes",
        json!({"query": "Mid", "tags": ["draft"]}),
    );
    assert_eq!(entity_names(&tagged), ["Mid"], "its tags came back");
    assert_eq!(call_ok(&mut m, "list_archived", json!({}))["total"], 0);
}

#[test]
fn a_name_taken_again_is_not_restored_over() {
    let (mut m, log) = memory();
    call_ok(&mut m, "archive_entities", json!({"tags": ["draft"]}));
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Mid", "note", &["another"])]}),
    );
    let before = log.len();
    assert_eq!(
        call_err(&mut m, "restore_archived", json!({"entityNames": ["Mid"]})),
        "Entity \"Mid\" exists: delete or rename it before restoring the archived one"
    );
    assert_eq!(log.len(), before);
}

#[test]
fn the_archive_survives_compaction() {
    let (mut m, log) = memory();
    call_ok(
        &mut m,
        "archive_entities",
        json!({"olderThan": "2027-01-16T12:00:00Z"}),
    );
    m.set_tools("all", "").unwrap();
    call_ok(&mut m, "compact", json!({}));
    let mut m = open(log.reopened());
    m.set_tools("memory-mcp", "").unwrap();
    let listed = call_ok(&mut m, "list_archived", json!({"query": "NOTE"}));
    assert_eq!(listed["total"], 2);
    call_ok(
        &mut m,
        "restore_archived",
        json!({"entityNames": ["Old", "Mid"]}),
    );
    let g = graph(&mut m);
    assert_eq!(entity_names(&g), ["New", "Old", "Mid"]);
    assert_eq!(g["relations"].as_array().unwrap().len(), 2);
}
