//! The TypeScript Memory MCP's hygiene reads and date search, called with its argument
//! shapes: validate_graph's issues and warnings, find_duplicates' groups, and
//! search_by_date_range's range, filters and cap.

use crate::common::*;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;
const DAY: u64 = 86_400_000;

fn entity_with(name: &str, kind: &str, observations: &[&str]) -> Value {
    json!({"name": name, "entityType": kind, "observations": observations})
}

#[test]
fn validate_graph_reports_orphans_missing_parents_and_lonely_entities() {
    let mut m = open(MemLog::new());
    at(&mut m, T0);
    let ents = json!({"entities": [
        entity_with("a", "t", &["x"]),
        entity_with("b", "t", &[]),
        entity_with("p", "t", &["x"]),
    ]});
    call_ok(&mut m, "create_entities", ents);
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [{"from": "a", "to": "ghost", "relationType": "knows"}]}),
    );
    call_ok(
        &mut m,
        "set_entity_parent",
        json!({"entityName": "b", "parentName": "p"}),
    );
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["p"]}));
    let report = call_ok(&mut m, "validate_graph", json!({}));
    assert_eq!(report["isValid"], false);
    let kinds: Vec<&str> = report["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["orphaned_relation", "missing_parent"]);
    assert_eq!(
        report["issues"][0]["message"],
        "Relation has non-existent target entity: \"ghost\""
    );
    assert_eq!(
        report["summary"],
        json!({"totalErrors": 2, "totalWarnings": 2, "orphanedRelationsCount": 1, "entitiesWithoutRelationsCount": 1})
    );
    let warnings: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        warnings,
        [
            "Entity \"b\" has no relations to other entities",
            "Entity \"b\" has no observations"
        ]
    );
    let bounded = call_ok(&mut m, "validate_graph", json!({"limit": 1}));
    assert_eq!(bounded["issues"].as_array().unwrap().len(), 1);
    assert_eq!(
        bounded["summary"]["totalErrors"], 2,
        "the summary counts all"
    );
}

#[test]
fn find_duplicates_groups_entities_of_one_type_alike_by_the_seeds_score() {
    let mut m = open(MemLog::new());
    let ents = json!({"entities": [
        entity_with("Jon Smith", "person", &["engineer at acme", "lives in oslo"]),
        entity_with("Acme", "company", &["engineer at acme", "lives in oslo"]),
        entity_with("John Smith", "person", &["engineer at acme", "lives in oslo"]),
        entity_with("Mary", "person", &["engineer at acme"]),
        entity_with("J. Smith", "PERSON", &["Engineer at ACME", "lives in oslo", "likes tea"]),
    ]});
    call_ok(&mut m, "create_entities", ents);
    let found = call(&mut m, "find_duplicates", json!({}));
    // Jon/John: name 0.9, observations equal: (0.36 + 0.2 + 0.3) / 0.9 = 0.96. J. Smith:
    // name 1 - 2/9, observations 2 of 3: (0.31 + 0.2 + 0.2) / 0.9 = 0.79, under 0.8.
    // Acme is another type.
    assert_eq!(
        found["structuredContent"],
        json!({"groups": [["Jon Smith", "John Smith"]]})
    );
    assert_eq!(
        text(&found),
        "[\n  [\n    \"Jon Smith\",\n    \"John Smith\"\n  ]\n]"
    );
    let looser = call_ok(&mut m, "find_duplicates", json!({"threshold": 0.7}));
    assert_eq!(
        looser,
        json!({"groups": [["Jon Smith", "John Smith", "J. Smith"]]})
    );
}

#[test]
fn a_low_threshold_on_a_large_type_is_refused_not_run_for_minutes() {
    let mut m = open(MemLog::new());
    let ents: Vec<Value> = (0..2100)
        .map(|i| entity_with(&format!("e{i}"), "t", &[]))
        .collect();
    call_in_chunks(&mut m, "create_entities", "entities", ents);
    let err = call_err(&mut m, "find_duplicates", json!({"threshold": 0.5}));
    assert!(err.starts_with("threshold: below about 0.67"), "{err}");
    assert!(
        err.contains("2100 entities of one type make 2203950 pairs"),
        "{err}"
    );
}

#[test]
fn date_range_search_filters_by_creation_time_type_and_tags() {
    let mut m = open(MemLog::new());
    for day in 0..4u64 {
        at(&mut m, T0 + day * DAY);
        let name = format!("d{day}");
        call_ok(
            &mut m,
            "create_entities",
            json!({"entities": [entity_with(&name, if day == 2 { "event" } else { "note" }, &[])]}),
        );
    }
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "d1", "tags": ["work"]}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [{"from": "d1", "to": "d2", "relationType": "before"}]}),
    );
    let names = |found: &Value| entity_names(found);
    let found = call_ok(
        &mut m,
        "search_by_date_range",
        json!({"startDate": "2027-01-16", "endDate": "2027-01-17T08:00:00Z"}),
    );
    assert_eq!(names(&found), ["d1", "d2"], "both ends inclusive");
    assert_eq!(found["total"], 2);
    assert_eq!(
        found["entities"][0]["createdAt"],
        "2027-01-16T08:00:00.000Z"
    );
    assert_eq!(
        found["relations"],
        json!([]),
        "the relation was made after the range"
    );
    let all = call_ok(
        &mut m,
        "search_by_date_range",
        json!({"startDate": "2027-01-16"}),
    );
    assert_eq!(all["relations"][0]["from"], "d1");
    let typed = call_ok(
        &mut m,
        "search_by_date_range",
        json!({"entityType": "event"}),
    );
    assert_eq!(names(&typed), ["d2"]);
    let tagged = call_ok(&mut m, "search_by_date_range", json!({"tags": ["WORK"]}));
    assert_eq!(names(&tagged), ["d1"]);
    let err = call_err(
        &mut m,
        "search_by_date_range",
        json!({"startDate": "last tuesday"}),
    );
    assert!(
        err.starts_with("startDate: \"last tuesday\" is not a time"),
        "{err}"
    );
}

#[test]
fn date_range_search_answers_at_most_fifty_and_counts_all() {
    let mut m = open(MemLog::new());
    at(&mut m, T0);
    let ents: Vec<Value> = (0..60)
        .map(|i| entity_with(&format!("e{i}"), "t", &[]))
        .collect();
    call_ok(&mut m, "create_entities", json!({ "entities": ents }));
    let found = call_ok(&mut m, "search_by_date_range", json!({}));
    assert_eq!(found["entities"].as_array().unwrap().len(), 50);
    assert_eq!(found["total"], 60);
    assert_eq!(found["entities"][49]["name"], "e49", "the memory's order");
}
