//! The richer model through the tools: times from the host's clock, provenance, tags,
//! importance, parents, status, observation kinds and supersession, ended relations and
//! reflections — shown only when asked, refused with the field and the rule when wrong,
//! and rebuilt exactly by replay and by compaction.

use crate::common::*;
use mcp_memory_core::record::{Agent, Record};
use mcp_memory_core::{Log, Server};
use serde_json::{Value, json};

const T0: u64 = 1_700_000_000_000;
const T0_ISO: &str = "2023-11-14T22:13:20.000Z";
const T1: u64 = T0 + 60_000;
const T1_ISO: &str = "2023-11-14T22:14:20.000Z";

fn open_detailed<L: Log>(m: &mut Server<L>, names: &[&str], include: &[&str]) -> Value {
    call_ok(m, "open_nodes", json!({"names": names, "include": include}))
}

fn decoded(bytes: &[u8]) -> Record<'_> {
    Record::decode(bytes).expect("decodes")
}

#[test]
fn changes_carry_the_hosts_time_and_who_made_them_and_replay_keeps_both() {
    let (mut m, log) = initialized_at(T0);
    m.set_actor(Some("ada".into()));
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &["x"])]}),
    );
    at(&mut m, T1);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["y"]}]}),
    );
    let records = log.records();
    let (first, second) = (decoded(&records[0]), decoded(&records[1]));
    let stamp = first.stamp.expect("stamped");
    assert_eq!(stamp.at, T0);
    match stamp.by {
        Agent::New(p) => {
            assert_eq!(
                (p.client, p.version, p.actor),
                ("claude-code", "2.1.0", Some("ada"))
            );
            assert!(p.session.ends_with(".0"), "{}", p.session);
        }
        other => panic!("the first change names its agent: {other:?}"),
    }
    let second = second.stamp.expect("stamped");
    assert_eq!(
        (second.at, second.by),
        (T1, Agent::Known(0)),
        "then refers to it"
    );

    let shown = open_detailed(&mut m, &["A"], &["metadata"]);
    let a = &shown["entities"][0];
    assert_eq!(
        (a["createdAt"].as_str(), a["updatedAt"].as_str()),
        (Some(T0_ISO), Some(T1_ISO))
    );
    assert_eq!(
        a["facts"][0],
        json!({"id": 1, "text": "x", "kind": "generic", "createdAt": T0_ISO})
    );
    assert_eq!(a["facts"][1]["createdAt"], T1_ISO);
    assert_eq!(
        (a["status"].as_str(), &a["tags"]),
        (Some("active"), &json!([]))
    );
    // Replay and compaction rebuild the same, times included.
    assert_eq!(
        open_detailed(&mut open(log.reopened()), &["A"], &["metadata"]),
        shown
    );
    m.memory_mut().compact().expect("compacts");
    assert_eq!(
        open_detailed(&mut open(log.reopened()), &["A"], &["metadata"]),
        shown
    );
}

#[test]
fn a_clock_that_goes_back_never_stamps_a_change_earlier_than_the_last() {
    let (mut m, log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    at(&mut m, T0 - 5_000);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("B", "t", &[])]}),
    );
    assert_eq!(decoded(&log.records()[1]).stamp.map(|s| s.at), Some(T0));
}

#[test]
fn without_include_every_read_answers_as_the_reference_does() {
    let (mut m, _log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
        {"name": "A", "entityType": "t", "observations": ["x"], "tags": ["Work"], "importance": 7, "status": "open"},
        {"name": "B", "entityType": "t", "observations": [], "parentId": "A"}]}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [
        {"from": "A", "to": "B", "relationType": "r", "context": "at work"}]}),
    );
    let want = graph_of(
        &[entity("A", "t", &["x"]), entity("B", "t", &[])],
        &[relation("A", "B", "r")],
    );
    assert_eq!(graph(&mut m), want);
    assert_eq!(
        call_ok(&mut m, "open_nodes", json!({"names": ["A", "B"]})),
        want
    );
    let detailed = open_detailed(&mut m, &["A", "B"], &["metadata"]);
    assert_eq!(detailed["entities"][0]["tags"], json!(["work"]));
    assert_eq!(detailed["entities"][0]["importance"], json!(7));
    assert_eq!(detailed["entities"][0]["status"], "open");
    assert_eq!(detailed["entities"][1]["parentId"], "A");
    assert_eq!(detailed["relations"][0]["context"], "at work");
    assert_eq!(detailed["relations"][0]["createdAt"], T0_ISO);
}

#[test]
fn update_entities_sets_and_clears_metadata_and_keeps_what_it_leaves_out() {
    let (mut m, _log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[]), entity("P", "t", &[])]}),
    );
    call_ok(
        &mut m,
        "update_entities",
        json!({"entities": [
        {"name": "A", "tags": ["X", "x", "y"], "importance": 3.5, "parentId": "P", "status": "archived"}]}),
    );
    call_ok(
        &mut m,
        "update_entities",
        json!({"entities": [{"name": "A", "importance": null}]}),
    );
    let a = &open_detailed(&mut m, &["A"], &["metadata"])["entities"][0];
    assert_eq!(a["tags"], json!(["x", "y"]));
    assert!(a.get("importance").is_none(), "cleared: {a}");
    assert_eq!(
        (a["parentId"].as_str(), a["status"].as_str()),
        (Some("P"), Some("archived"))
    );
    call_ok(
        &mut m,
        "update_entities",
        json!({"entities": [{"name": "A", "parentId": null}]}),
    );
    let a = &open_detailed(&mut m, &["A"], &["metadata"])["entities"][0];
    assert!(a.get("parentId").is_none(), "cleared: {a}");
}

#[test]
fn bad_metadata_is_refused_naming_the_field_and_the_rule_and_changes_nothing() {
    let (mut m, log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
        entity("A", "t", &["x"]), entity("B", "t", &[]), entity("C", "t", &[])]}),
    );
    call_ok(
        &mut m,
        "update_entities",
        json!({"entities": [
        {"name": "B", "parentId": "A"}, {"name": "C", "parentId": "B"}]}),
    );
    let before = (log.len(), graph(&mut m));
    let long = "a".repeat(65);
    let cases = [
        (
            "update_entities",
            json!({"entities": [{"name": "A", "tags": [""]}]}),
            "entities[0].tags[0]: a tag must be 1 to 64 characters long (this one has 0)",
        ),
        (
            "update_entities",
            json!({"entities": [{"name": "A", "tags": [long]}]}),
            "entities[0].tags[0]: a tag must be 1 to 64 characters long (this one has 65)",
        ),
        (
            "update_entities",
            json!({"entities": [{"name": "A", "importance": 11}]}),
            "entities[0].importance: importance must be from 0 to 10 (got 11)",
        ),
        (
            "update_entities",
            json!({"entities": [{"name": "A", "importance": "high"}]}),
            "entities[0].importance: importance must be a number from 0 to 10 or null (got string)",
        ),
        (
            "update_entities",
            json!({"entities": [{"name": "A", "parentId": "C"}]}),
            "entities[0].parentId: \"C\" cannot be the parent of \"A\": that would make a cycle (A → C → B → A)",
        ),
        (
            "update_entities",
            json!({"entities": [{"name": "A", "parentId": "A"}]}),
            "entities[0].parentId: \"A\" cannot be the parent of \"A\": that would make a cycle (A → A)",
        ),
        (
            "update_entities",
            json!({"entities": [{"name": "A", "parentId": "Nobody"}]}),
            "entities[0].parentId: no entity is named \"Nobody\"",
        ),
        (
            "update_entities",
            json!({"entities": [{"name": "Nobody", "status": "x"}]}),
            "Entity with name Nobody not found",
        ),
        (
            "create_entities",
            json!({"entities": [{"name": "D", "entityType": "t", "observations": [], "importance": -1}]}),
            "entities[0].importance must be at least 0",
        ),
        (
            "create_entities",
            json!({"entities": [
            {"name": "D", "entityType": "t", "observations": [], "parentId": "E"},
            {"name": "E", "entityType": "t", "observations": [], "parentId": "D"}]}),
            "entities[1].parentId: \"D\" cannot be the parent of \"E\": that would make a cycle (E → D → E)",
        ),
        (
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": ["y"], "supersedes": "nope"}]}),
            "observations[0].supersedes: \"A\" has no current observation \"nope\" to supersede",
        ),
        (
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": ["y"], "supersedes": 9}]}),
            "observations[0].supersedes: \"A\" has no current observation 9 to supersede",
        ),
        (
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": ["y", "z"], "supersedes": 1}]}),
            "observations[0].contents: with supersedes, give exactly one observation (the one that replaces it); got 2",
        ),
        (
            "end_relations",
            json!({"relations": [relation("A", "B", "r")]}),
            "relations[0]: no holding relation \"A\" --\"r\"--> \"B\" to end",
        ),
        (
            "add_reflection",
            json!({"content": "x", "entity": "A", "session": "current"}),
            "a reflection is about one thing: give at most one of entity, relation and session",
        ),
        (
            "add_reflection",
            json!({"content": "x", "entity": "Nobody"}),
            "entity: no entity is named \"Nobody\"",
        ),
    ];
    for (tool, args, want) in cases {
        assert_eq!(call_err(&mut m, tool, args.clone()), want, "{tool} {args}");
    }
    assert_eq!((log.len(), graph(&mut m)), before, "nothing changed");
}

#[test]
fn a_superseding_observation_replaces_the_old_one_which_stays_as_history() {
    let (mut m, log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &["likes tea", "tall"])]}),
    );
    at(&mut m, T1);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [
        {"entityName": "A", "contents": ["likes coffee"], "supersedes": "likes tea", "kind": "preference"}]}),
    );
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [
        {"entityName": "A", "contents": ["very tall"], "supersedes": 2}]}),
    );
    // Reads show current observations; search no longer finds the superseded text.
    assert_eq!(
        graph(&mut m),
        graph_of(&[entity("A", "t", &["likes coffee", "very tall"])], &[])
    );
    let found = call_ok(&mut m, "search_nodes", json!({"query": "tea"}));
    assert_eq!(entity_names(&found), Vec::<String>::new());
    let a = &open_detailed(&mut m, &["A"], &["metadata"])["entities"][0];
    assert_eq!(
        a["facts"][0],
        json!({"id": 3, "text": "likes coffee", "kind": "preference", "createdAt": T1_ISO, "supersedes": 1})
    );
    assert!(a.get("superseded").is_none(), "history only when asked");
    let h = open_detailed(&mut m, &["A"], &["history"]);
    let past = &h["entities"][0]["superseded"];
    assert_eq!(
        past[0],
        json!({"id": 1, "text": "likes tea", "kind": "generic", "createdAt": T0_ISO, "supersededAt": T1_ISO})
    );
    assert_eq!(past[1]["text"], "tall");
    assert_eq!(
        open_detailed(&mut open(log.reopened()), &["A"], &["history"]),
        h
    );
}

#[test]
fn an_ended_relation_leaves_the_graph_and_stays_as_history() {
    let (mut m, log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[]), entity("B", "t", &[])]}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("A", "B", "works_at"), relation("A", "B", "knows")]}),
    );
    at(&mut m, T1);
    let ended = call_ok(
        &mut m,
        "end_relations",
        json!({"relations": [relation("A", "B", "works_at")]}),
    );
    assert_eq!(ended, json!({"ended": [relation("A", "B", "works_at")]}));
    assert_eq!(
        graph(&mut m)["relations"],
        json!([relation("A", "B", "knows")])
    );
    let h = open_detailed(&mut m, &["A"], &["history"]);
    assert_eq!(
        h["endedRelations"],
        json!([{"from": "A", "to": "B", "relationType": "works_at",
        "createdAt": T0_ISO, "endedAt": T1_ISO}])
    );
    // A relation may hold again after it ended.
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("A", "B", "works_at")]}),
    );
    assert_eq!(graph(&mut m)["relations"].as_array().map(Vec::len), Some(2));
    m.memory_mut().compact().expect("compacts");
    assert_eq!(
        open_detailed(&mut open(log.reopened()), &["A"], &["history"]),
        open_detailed(&mut m, &["A"], &["history"])
    );
}

#[test]
fn a_reflection_is_numbered_and_its_author_is_the_client_unless_given() {
    let (mut m, log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    let first = call_ok(
        &mut m,
        "add_reflection",
        json!({"content": "A matters", "entity": "A", "mood": "curious"}),
    );
    assert_eq!(
        first,
        json!({"reflection": {"id": 1, "about": "entity", "entity": "A",
        "author": "claude-code", "mood": "curious", "content": "A matters"}})
    );
    let second = call_ok(
        &mut m,
        "add_reflection",
        json!({"content": "a session note", "session": "current", "author": "ada"}),
    );
    assert_eq!(second["reflection"]["id"], 2);
    assert_eq!(second["reflection"]["author"], "ada");
    let graph = open(log.reopened());
    let reflections = graph.memory().graph().reflections();
    assert_eq!(reflections.len(), 2);
    assert_eq!(reflections[1].created, T0);
}

#[test]
fn forget_removes_every_trace_and_compacts_so_the_bytes_leave_the_file() {
    let (mut m, log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
        entity("Secret", "t", &["classified"]), entity("Keep", "t", &["mentions Secret"]),
        {"name": "Child", "entityType": "t", "observations": [], "parentId": "Secret"}]}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("Keep", "Secret", "knows"), relation("Secret", "Keep", "ended")]}),
    );
    call_ok(
        &mut m,
        "end_relations",
        json!({"relations": [relation("Secret", "Keep", "ended")]}),
    );
    call_ok(
        &mut m,
        "add_reflection",
        json!({"content": "about the secret", "entity": "Secret"}),
    );
    let before = log.len();
    assert_eq!(
        call_err(&mut m, "forget", json!({"entityNames": ["Nobody"]})),
        "entityNames: nothing is known of \"Nobody\" (no entity, no relation)"
    );
    assert_eq!(log.len(), before, "nothing changed");
    let report = call_ok(&mut m, "forget", json!({"entityNames": ["Secret"]}));
    assert_eq!(report["forgotten"], json!(["Secret"]));
    assert_eq!(
        report["gone"], false,
        "another entity's observation mentions it: {report}"
    );
    assert_eq!(
        report["stillInFile"],
        json!([{"name": "Secret", "records": 1}])
    );
    let bytes = log.records().concat();
    assert!(
        !bytes.windows(10).any(|w| w == b"classified"),
        "its observation left the file"
    );
    assert!(
        !bytes.windows(16).any(|w| w == b"about the secret"),
        "the reflection too"
    );
    let h = open_detailed(&mut m, &["Keep", "Child"], &["metadata", "history"]);
    assert_eq!(h["relations"], json!([]));
    assert!(
        h.get("endedRelations").is_none_or(|e| e == &json!([])),
        "{h}"
    );
    assert!(h["entities"][1].get("parentId").is_none(), "{h}");
    call_ok(
        &mut m,
        "update_entities",
        json!({"entities": [{"name": "Keep", "tags": ["x"]}]}),
    );
    call_ok(
        &mut m,
        "delete_observations",
        json!({"deletions": [{"entityName": "Keep", "observations": ["mentions Secret"]}]}),
    );
    let report = call_ok(&mut m, "forget", json!({"entityNames": ["Child"]}));
    assert_eq!(
        (report["gone"].as_bool(), &report["stillInFile"]),
        (Some(true), &json!([]))
    );
    assert_eq!(
        graph(&mut open(log.reopened())),
        graph_of(&[entity("Keep", "t", &[])], &[])
    );
}

#[test]
fn reflections_are_found_by_their_words_best_first_and_filtered() {
    let (mut m, _log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Ada", "person", &[])]}),
    );
    call_ok(
        &mut m,
        "add_reflection",
        json!({"content": "Ada's engine notes are brilliant", "entity": "Ada", "author": "nolan"}),
    );
    at(&mut m, T1);
    call_ok(
        &mut m,
        "add_reflection",
        json!({"content": "The engine, the engine: always the Engine", "mood": "curious"}),
    );
    call_ok(
        &mut m,
        "add_reflection",
        json!({"content": "nothing to do with it"}),
    );
    let found = call_ok(&mut m, "search_reflections", json!({"query": "engine"}));
    let ids: Vec<u64> = found["reflections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [2, 1], "more matches rank higher: {found}");
    assert_eq!(found["total"], 2);
    assert_eq!(found["reflections"][1]["author"], "nolan");
    let about = call_ok(
        &mut m,
        "search_reflections",
        json!({"query": "engine", "entity": "Ada"}),
    );
    assert_eq!(about["total"], 1);
    let newest = call_ok(&mut m, "search_reflections", json!({"limit": 1}));
    assert_eq!(
        (
            newest["total"].as_u64(),
            newest["reflections"][0]["id"].as_u64()
        ),
        (Some(3), Some(3))
    );
    let moody = call_ok(&mut m, "search_reflections", json!({"mood": "curious"}));
    assert_eq!(moody["reflections"][0]["id"], 2);
    let the = call_ok(&mut m, "search_reflections", json!({"query": "the"}));
    assert_eq!(
        the["total"], 1,
        "a query of stopwords only searches them: {the}"
    );
}

/// Regression: importing a Memory MCP file into a memory that is not empty dropped the new
/// entities' times, tags, importance and parents (only reference fields were merged).
#[test]
fn importing_into_a_memory_that_is_not_empty_keeps_the_files_times_and_metadata() {
    let (mut m, _log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Here", "t", &["already"])]}),
    );
    let file = concat!(
        r#"{"type":"entity","name":"Ada","entityType":"person","observations":["wrote programs"],"createdAt":"2024-03-01T10:00:00.000Z","lastModified":"2024-03-02T11:30:00.000Z","tags":["math"],"importance":9,"parentId":"Here"}"#,
        "\n",
        r#"{"type":"entity","name":"Plain","entityType":"t","observations":[]}"#,
        "\n",
        r#"{"type":"relation","from":"Ada","to":"Here","relationType":"knows","createdAt":"2024-03-01T10:00:00.000Z","lastModified":"2024-03-01T10:00:00.000Z"}"#
    );
    let summary = m.import(file.as_bytes(), T1).expect("imports");
    assert!(
        summary.starts_with(
            "imported 2 new entities, 0 new observations on existing entities, 1 new relations"
        ),
        "{summary}"
    );
    let read = open_detailed(&mut m, &["Here", "Ada", "Plain"], &["metadata"]);
    let ada = &read["entities"][1];
    assert_eq!(ada["createdAt"], "2024-03-01T10:00:00.000Z");
    assert_eq!(ada["updatedAt"], "2024-03-02T11:30:00.000Z");
    assert_eq!(ada["tags"], json!(["math"]));
    assert_eq!(ada["importance"], 9);
    assert_eq!(ada["parentId"], "Here");
    assert_eq!(
        read["entities"][2]["createdAt"], T1_ISO,
        "no times in the file: the import's"
    );
    assert_eq!(
        read["relations"][0]["createdAt"],
        "2024-03-01T10:00:00.000Z"
    );
}
