//! The reference's tools under profile `memory-mcp` answer as the TypeScript seed's do
//! (issue 41, TypeScript 2-7): its entity shape in every answer, the relations between
//! the entities returned, a batch refused when a relation's end is missing, its delete
//! answers, its query and batch checks, times given on create kept.

use crate::common::*;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;
const T0_ISO: &str = "2027-01-15T08:00:00.000Z";

fn ts() -> mcp_memory_core::Server<MemLog> {
    profiled(MemLog::new(), "memory-mcp", T0)
}

/// The graph of the issue's example: three people and a project, six relations.
fn team() -> mcp_memory_core::Server<MemLog> {
    let mut m = ts();
    let person = |n: &str| json!({"name": n, "entityType": "person", "observations": [format!("{n} works here")]});
    create(
        &mut m,
        &[
            person("Alice Chen"),
            person("Dave Kim"),
            person("Bob Ray"),
            json!({"name": "Project Phoenix", "entityType": "project", "observations": ["A rewrite"]}),
        ],
    );
    relate(
        &mut m,
        &[
            relation("Alice Chen", "Project Phoenix", "leads"),
            relation("Bob Ray", "Project Phoenix", "works_on"),
            relation("Alice Chen", "Dave Kim", "mentors"),
            relation("Bob Ray", "Alice Chen", "reports_to"),
            relation("Dave Kim", "Bob Ray", "pairs_with"),
            relation("Project Phoenix", "Bob Ray", "owned_by"),
        ],
    );
    m
}

#[test]
fn every_answer_has_its_entity_shape() {
    let mut m = ts();
    let made = create(
        &mut m,
        &[
            json!({"name": "Ada", "entityType": "person", "observations": ["wrote a program"],
                 "tags": ["Math", "math"], "importance": 9}),
        ],
    );
    let want = json!({"name": "Ada", "entityType": "person", "observations": ["wrote a program"],
                      "createdAt": T0_ISO, "lastModified": T0_ISO, "tags": ["math"], "importance": 9});
    assert_eq!(made, json!({"entities": [want]}));
    for (tool, args) in [
        ("read_graph", json!({})),
        ("open_nodes", json!({"names": ["Ada"]})),
        ("search_nodes", json!({"query": "program"})),
    ] {
        let got = call_ok(&mut m, tool, args);
        assert_eq!(got, json!({"entities": [want], "relations": []}), "{tool}");
    }
    // The text is the object as it prints it, two spaces, its keys in its order.
    let result = call(&mut m, "open_nodes", json!({"names": ["Ada"]}));
    assert!(text(&result).starts_with(
        "{\n  \"entities\": [\n    {\n      \"name\": \"Ada\",\n      \"entityType\""
    ));
}

#[test]
fn times_given_on_create_are_kept() {
    let mut m = ts();
    let made = create(
        &mut m,
        &[
            json!({"name": "Old", "entityType": "note", "observations": [],
                 "createdAt": "2020-05-01T00:00:00.000Z"}),
        ],
    );
    assert_eq!(made["entities"][0]["createdAt"], "2020-05-01T00:00:00.000Z");
    assert_eq!(made["entities"][0]["lastModified"], T0_ISO);
    let found = call_ok(
        &mut m,
        "search_by_date_range",
        json!({"startDate": "2020-01-01T00:00:00.000Z", "endDate": "2020-12-31T00:00:00.000Z"}),
    );
    assert_eq!(entity_names(&found), ["Old"]);
}

#[test]
fn reads_return_the_relations_between_the_entities_returned() {
    let mut m = team();
    let opened = call_ok(
        &mut m,
        "open_nodes",
        json!({"names": ["Alice Chen", "Project Phoenix", "Dave Kim"]}),
    );
    let triples: Vec<String> = opened["relations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {} {}", r["from"], r["relationType"], r["to"]))
        .collect();
    assert_eq!(
        triples,
        [
            r#""Alice Chen" "leads" "Project Phoenix""#,
            r#""Alice Chen" "mentors" "Dave Kim""#
        ]
    );
    let found = call_ok(&mut m, "search_nodes", json!({"query": "works here"}));
    assert_eq!(entity_names(&found), ["Alice Chen", "Dave Kim", "Bob Ray"]);
    assert_eq!(found["relations"].as_array().unwrap().len(), 3);
}

#[test]
fn search_nodes_filters_and_caps_as_it_does() {
    let mut m = ts();
    let many: Vec<Value> = (0..60)
        .map(|i| {
            json!({"name": format!("n{i:02}"), "entityType": "note", "observations": ["same"],
                        "tags": if i % 2 == 0 { json!(["even"]) } else { json!([]) },
                        "importance": i % 10})
        })
        .collect();
    create(&mut m, &many);
    let all = call_ok(&mut m, "search_nodes", json!({"query": "SAME"}));
    assert_eq!(all["entities"].as_array().unwrap().len(), 50);
    assert_eq!(all["entities"][0]["name"], "n00");
    let even = call_ok(
        &mut m,
        "search_nodes",
        json!({"query": "same", "tags": ["EVEN"], "minImportance": 4, "maxImportance": 6}),
    );
    assert_eq!(
        entity_names(&even),
        [
            "n04", "n06", "n14", "n16", "n24", "n26", "n34", "n36", "n44", "n46", "n54", "n56"
        ]
    );
    let err = call_err(&mut m, "search_nodes", json!({"query": ""}));
    assert!(
        err.starts_with("query: must be 1 to 1000 characters"),
        "{err}"
    );
}

#[test]
fn a_relation_to_a_missing_entity_refuses_the_batch() {
    let mut m = ts();
    create(&mut m, &[entity("A", "t", &[]), entity("B", "t", &[])]);
    let before = graph(&mut m);
    let err = call_err(
        &mut m,
        "create_relations",
        json!({"relations": [relation("A", "B", "knows"), relation("A", "Nobody", "knows")]}),
    );
    assert_eq!(
        err,
        "Relations reference non-existent entities: Relation from \"A\" to \"Nobody\" references non-existent entities: Nobody"
    );
    assert_eq!(graph(&mut m), before);
    let made = relate(
        &mut m,
        &[relation("A", "B", "knows"), relation("A", "B", "knows")],
    );
    let made = made["relations"].as_array().unwrap();
    assert_eq!(made.len(), 1);
    assert_eq!(made[0]["createdAt"], T0_ISO);
}

#[test]
fn deletions_say_how_many_they_were_given() {
    let mut m = team();
    let deleted = call(
        &mut m,
        "delete_relations",
        json!({"relations": [relation("Alice Chen", "Dave Kim", "mentors")]}),
    );
    assert_eq!(text(&deleted), "Deleted 1 relations");
    let deleted = call(
        &mut m,
        "delete_entities",
        json!({"entityNames": ["Dave Kim", "Bob Ray"]}),
    );
    assert_eq!(text(&deleted), "Deleted 2 entities");
    assert_eq!(
        entity_names(&call_ok(&mut m, "read_graph", json!({}))),
        ["Alice Chen", "Project Phoenix"]
    );
    let err = call_err(&mut m, "delete_entities", json!({"entityNames": []}));
    assert_eq!(err, "entityNames: give at least one");
}

#[test]
fn items_are_checked_as_it_checks_them_and_nothing_changes() {
    let mut m = ts();
    let cases = [
        (
            json!({"name": " ", "entityType": "t", "observations": []}),
            "entities[1].name: cannot be empty",
        ),
        (
            json!({"name": "X", "entityType": "t", "observations": [""]}),
            "entities[1].observations[0]: cannot be empty",
        ),
        (
            json!({"name": "X", "entityType": "t", "observations": [], "importance": 2.5}),
            "entities[1].importance: must be a whole number",
        ),
        (
            json!({"name": "X", "entityType": "t", "observations": [], "createdAt": "yesterday"}),
            "entities[1].createdAt: \"yesterday\" is not a time",
        ),
    ];
    for (bad, want) in cases {
        let err = call_err(
            &mut m,
            "create_entities",
            json!({"entities": [entity("Fine", "t", &[]), bad]}),
        );
        assert!(err.starts_with(want), "{err}");
        assert_eq!(graph(&mut m)["entities"], json!([]));
    }
    let made = create(
        &mut m,
        &[json!({"name": "  Padded  ", "entityType": " t ", "observations": []})],
    );
    assert_eq!(made["entities"][0]["name"], "Padded");
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "Nobody", "contents": ["x"]}]}),
    );
    assert_eq!(err, "Entity \"Nobody\" not found");
}

/// Profile `all` answers the nine as the reference does: its shapes are the seed's only
/// under the seed's profile.
#[test]
fn under_profile_all_the_nine_answer_as_the_reference() {
    let mut m = profiled(MemLog::new(), "all", T0);
    let made = create(&mut m, &[entity("A", "t", &["x"])]);
    assert_eq!(made, json!({"entities": [entity("A", "t", &["x"])]}));
    let deleted = call(&mut m, "delete_entities", json!({"entityNames": ["A"]}));
    assert_eq!(text(&deleted), "Entities deleted successfully");
}
