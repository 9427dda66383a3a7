//! The TypeScript Memory MCP's saved searches, called with its argument shapes: saved,
//! listed, run (as search_nodes with the saved filters, counting the run), updated and
//! deleted, with its errors; kept across restarts.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::testing::MemLog;
use serde_json::json;

/// 2027-01-15T08:00:00.000Z and a minute later.
const T0: u64 = 1_800_000_000_000;
const T1: u64 = T0 + 60_000;

/// Three engineers (A important and tagged `work`, B tagged `work`, C neither) and a search
/// saved for important colleagues.
fn saved() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = open(log.clone());
    at(&mut m, T0);
    let ents = json!({"entities": [
        {"name": "A", "entityType": "person", "observations": ["an engineer"]},
        {"name": "B", "entityType": "person", "observations": ["an engineer"]},
        {"name": "C", "entityType": "person", "observations": ["an engineer"]},
    ]});
    call_ok(&mut m, "create_entities", ents);
    call_ok(
        &mut m,
        "add_tags_to_multiple_entities",
        json!({"entityNames": ["A", "B"], "tags": ["work"]}),
    );
    call_ok(
        &mut m,
        "set_importance",
        json!({"entityName": "A", "importance": 8}),
    );
    let made = call(
        &mut m,
        "save_search",
        json!({"name": " colleagues ", "query": "engineer", "tags": ["Work"], "minImportance": 5}),
    );
    assert_eq!(
        text(&made),
        "{\n  \"name\": \"colleagues\",\n  \"query\": \"engineer\",\n  \"tags\": [\n    \"work\"\n  ],\n  \
         \"minImportance\": 5,\n  \"createdAt\": \"2027-01-15T08:00:00.000Z\",\n  \"useCount\": 0\n}"
    );
    (m, log)
}

#[test]
fn running_a_saved_search_applies_its_filters_and_counts_the_run() {
    let (mut m, log) = saved();
    at(&mut m, T1);
    let before = log.len();
    let found = call_ok(
        &mut m,
        "execute_saved_search",
        json!({"name": "colleagues"}),
    );
    assert_eq!(entity_names(&found), ["A"]);
    assert_eq!(log.len(), before + 1, "the run is counted");
    let list = call_ok(&mut m, "list_saved_searches", json!({}));
    let q = &list["searches"][0];
    assert_eq!(q["useCount"], 1);
    assert_eq!(q["lastUsed"], "2027-01-15T08:01:00.000Z");
}

#[test]
fn updates_change_what_they_name_and_null_clears() {
    let (mut m, _) = saved();
    let updated = call_ok(
        &mut m,
        "update_saved_search",
        json!({"name": "colleagues", "updates": {"minImportance": null, "description": "all"}}),
    );
    assert!(updated.get("minImportance").is_none(), "{updated}");
    assert_eq!(updated["description"], "all");
    assert_eq!(updated["tags"], json!(["work"]));
    let found = call_ok(
        &mut m,
        "execute_saved_search",
        json!({"name": "colleagues"}),
    );
    assert_eq!(entity_names(&found), ["A", "B"]);
    let err = call_err(
        &mut m,
        "update_saved_search",
        json!({"name": "colleagues", "updates": {"useCount": 9}}),
    );
    assert!(
        err.starts_with("updates: unknown field `useCount`"),
        "{err}"
    );
    let err = call_err(
        &mut m,
        "update_saved_search",
        json!({"name": "colleagues", "updates": {"minImportance": 11}}),
    );
    assert!(
        err.starts_with("updates.minImportance: importance must be from 0 to 10"),
        "{err}"
    );
}

#[test]
fn missing_and_duplicate_names_get_the_seeds_errors_and_change_nothing() {
    let (mut m, log) = saved();
    let before = log.len();
    let err = call_err(
        &mut m,
        "save_search",
        json!({"name": "colleagues", "query": "x"}),
    );
    assert_eq!(err, "Saved search with name \"colleagues\" already exists");
    for tool in ["execute_saved_search", "update_saved_search"] {
        let err = call_err(&mut m, tool, json!({"name": "nope", "updates": {}}));
        assert_eq!(err, "Saved search \"nope\" not found", "{tool}");
    }
    let gone = call(&mut m, "delete_saved_search", json!({"name": "nope"}));
    assert_eq!(text(&gone), "Saved search \"nope\" not found");
    assert_eq!(gone["structuredContent"]["deleted"], false);
    assert_eq!(log.len(), before);
    let deleted = call(&mut m, "delete_saved_search", json!({"name": "colleagues"}));
    assert_eq!(
        text(&deleted),
        "Saved search \"colleagues\" deleted successfully"
    );
    assert_eq!(
        call_ok(&mut m, "list_saved_searches", json!({})),
        json!({"searches": []})
    );
}

#[test]
fn saved_searches_survive_a_restart() {
    let (mut m, log) = saved();
    call_ok(
        &mut m,
        "execute_saved_search",
        json!({"name": "colleagues"}),
    );
    let before = call(&mut m, "list_saved_searches", json!({}));
    drop(m);
    let mut again = open(log.reopened());
    assert_eq!(call(&mut again, "list_saved_searches", json!({})), before);
}
