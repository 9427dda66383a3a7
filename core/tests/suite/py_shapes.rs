//! The Python seed's ("MCP Memory v2") shapes under profile `mcp-memory-py`: every tool it
//! lists called with the seed's arguments within its schemas, and what each shape means
//! (`../shared/spec/seed-tools.md` §2, docs/compatibility.md).

use crate::common::*;
use mcp_memory_core::model::Relation;
use mcp_memory_core::testing::MemLog;
use mcp_memory_core::tools::mcp_memory_py::{entity_id, observation_id, relation_id};
use serde_json::{Value, json};

/// A memory of profile `mcp-memory-py` with the embedding table, at [`T0`].
fn py_at(log: MemLog) -> mcp_memory_core::Server<MemLog> {
    let mut m = py(log, T0);
    load_table(&mut m);
    m
}

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;

fn rid(from: &str, relation_type: &str, to: &str) -> u64 {
    relation_id(&Relation {
        from,
        to,
        relation_type,
    })
}

/// Ada and Babbage, Ada contiene Notes (so Notes parte_de Ada).
fn seeded() -> (mcp_memory_core::Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = py_at(log.clone());
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
            {"name": "Ada", "entityType": "Persona", "observations": ["wrote the first program"]},
            {"name": "Babbage", "observations": ["designed the engine"]},
            {"name": "Notes"},
        ]}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [
            {"from": "Ada", "to": "Babbage", "relationType": "colabora_con", "context": "1843"},
            {"from": "Ada", "to": "Notes", "relationType": "contiene"},
        ]}),
    );
    (m, log)
}

#[test]
fn every_listed_tool_answers_the_seeds_shapes_within_its_schemas() {
    let (mut m, log) = seeded();
    let old = [
        entity_line("Lovelace", "Persona", &["translated Menabrea"]),
        relation_line("Lovelace", "Ada", "es"),
    ];
    log.put_named("~/old/memory.jsonl", old.join("\n").as_bytes());
    let calls = vec![
        (
            "create_entities",
            json!({"entities": [{"name": "Engine", "entityType": "Recurso", "observations": ["never finished"], "status": "pausado"}]}),
        ),
        (
            "create_relations",
            json!({"relations": [{"from": "Babbage", "to": "Engine", "relationType": "diseño"}]}),
        ),
        (
            "add_observations",
            json!({"name": "Engine", "observations": ["steam powered"], "kind": "spec"}),
        ),
        (
            "delete_observations",
            json!({"name": "Engine", "observations": ["steam powered"]}),
        ),
        ("search_nodes", json!({"query": "engine"})),
        (
            "search_semantic",
            json!({"query": "who built the calculating machine", "limit": 3}),
        ),
        (
            "open_nodes",
            json!({"names": ["Ada", "Engine"], "kinds": ["generic"], "include_superseded": true}),
        ),
        (
            "add_reflection",
            json!({"target_type": "entity", "target_id": entity_id("Ada"), "author": "sofia", "content": "She saw further than the engine", "mood": "insight"}),
        ),
        (
            "search_reflections",
            json!({"query": "engine", "author": "sofia", "target_type": "entity", "limit": 5}),
        ),
        (
            "end_relation",
            json!({"relation_id": rid("Babbage", "diseño", "Engine")}),
        ),
        ("find_split_candidates", json!({"limit": 5})),
        ("analyze_entity_split", json!({"entity_name": "Ada"})),
        ("propose_entity_split_tool", json!({"entity_name": "Ada"})),
        (
            "find_duplicate_observations",
            json!({"entity_name": "Ada", "threshold": 0.9, "containment_threshold": 0.8}),
        ),
        (
            "consolidation_report",
            json!({"stale_days": 30, "limit": 5}),
        ),
        (
            "execute_entity_split_tool",
            json!({"entity_name": "Babbage", "approved_splits": [{"name": "Babbage - Engine", "observations": ["designed the engine"]}], "parent_entity_name": "Ada"}),
        ),
        (
            "delete_relations",
            json!({"relations": [{"from": "Ada", "to": "Babbage", "relationType": "colabora_con"}]}),
        ),
        ("delete_entities", json!({"entityNames": ["Engine"]})),
        ("migrate", json!({"source_path": "~/old/memory.jsonl"})),
    ];
    for (name, result) in call_every_listed_tool(&mut m, calls) {
        if name != "delete_relations" && name != "delete_entities" {
            let text: Value = serde_json::from_str(text(&result)).expect("the text is JSON");
            assert_eq!(
                text, result["structuredContent"],
                "{name}: the text is the object"
            );
        }
    }
}

#[test]
fn create_entities_upserts_keeping_the_type_and_setting_only_a_given_status() {
    let (mut m, _) = seeded();
    let out = call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
            {"name": "Ada", "observations": ["wrote the first program", "met Babbage"]},
            {"name": "Babbage", "entityType": "Persona", "status": "archivado"},
        ]}),
    );
    assert_eq!(
        out["entities"],
        json!([
            {"id": entity_id("Ada"), "name": "Ada", "entityType": "Persona", "status": "activo",
             "observations": ["wrote the first program", "met Babbage"]},
            {"id": entity_id("Babbage"), "name": "Babbage", "entityType": "Generic", "status": "archivado",
             "observations": ["designed the engine"]},
        ])
    );
    let opened = call_ok(&mut m, "open_nodes", json!({"names": ["Babbage", "Ada"]}));
    assert_eq!(opened["entities"][0]["status"], "archivado");
    assert_eq!(
        opened["entities"][1]["observations"][1]["content"],
        "met Babbage"
    );
}

#[test]
fn create_relations_needs_both_ends_brings_the_inverse_and_reports_what_held() {
    let (mut m, log) = seeded();
    let before = log.records().len();
    let err = call_err(
        &mut m,
        "create_relations",
        json!({"relations": [
            {"from": "Ada", "to": "Babbage", "relationType": "conoce"},
            {"from": "Ada", "to": "Nobody", "relationType": "conoce"},
        ]}),
    );
    assert_eq!(err, "relations[1].to: no entity is named \"Nobody\"");
    assert_eq!(
        log.records().len(),
        before,
        "a refused call changes nothing"
    );
    let out = call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [
            {"from": "Ada", "to": "Babbage", "relationType": "colabora_con"},
            {"from": "Babbage", "to": "Ada", "relationType": "parte_de"},
        ]}),
    );
    assert_eq!(out["relations"][0]["existed"], true);
    assert_eq!(out["relations"][1]["existed"], false);
    assert_eq!(
        out["inverses"],
        json!([{"id": rid("Ada", "contiene", "Babbage"), "from": "Ada", "to": "Babbage",
                "relationType": "contiene", "context": "Inversa automática de parte_de", "existed": false}])
    );
    let notes = call_ok(&mut m, "open_nodes", json!({"names": ["Notes"]}));
    assert_eq!(
        notes["entities"][0]["relations"],
        json!([
            {"id": rid("Ada", "contiene", "Notes"), "relation_type": "contiene", "target_name": "Ada",
             "direction": "to", "context": null, "active": true, "ended_at": null},
            {"id": rid("Notes", "parte_de", "Ada"), "relation_type": "parte_de", "target_name": "Ada",
             "direction": "from", "context": "Inversa automática de contiene", "active": true, "ended_at": null},
        ])
    );
}

#[test]
fn add_observations_supersedes_and_open_nodes_filters_kinds_and_history() {
    let (mut m, _) = seeded();
    let ada = call_ok(&mut m, "open_nodes", json!({"names": ["Ada"]}));
    let first = ada["entities"][0]["observations"][0]["id"].clone();
    at(&mut m, T0 + 60_000);
    let out = call_ok(
        &mut m,
        "add_observations",
        json!({"name": "Ada", "observations": ["wrote the first published program"], "kind": "hallazgo", "supersedes": first}),
    );
    assert_eq!(
        out["entity"]["observations"],
        json!(["wrote the first published program"])
    );
    let current = call_ok(&mut m, "open_nodes", json!({"names": ["Ada"]}));
    let obs = &current["entities"][0]["observations"];
    assert_eq!(obs.as_array().map(Vec::len), Some(1));
    assert_eq!(obs[0]["kind"], "hallazgo");
    assert_eq!(obs[0]["supersedes"], first);
    let all = call_ok(
        &mut m,
        "open_nodes",
        json!({"names": ["Ada"], "include_superseded": true, "kinds": ["generic"]}),
    );
    let obs = &all["entities"][0]["observations"];
    assert_eq!(obs.as_array().map(Vec::len), Some(1));
    assert_eq!(obs[0]["content"], "wrote the first program");
    assert_eq!(obs[0]["superseded_at"], "2027-01-15 08:01:00");
    let every = call_ok(&mut m, "open_nodes", json!({"names": ["Ada"], "kinds": []}));
    assert_eq!(every, current, "an empty kinds list is every kind");
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"name": "Ada", "observations": ["x"], "supersedes": 999}),
    );
    assert!(err.starts_with("supersedes: "), "{err}");
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"name": "Nobody", "observations": ["x"]}),
    );
    assert_eq!(err, "name: no entity is named \"Nobody\"");
}

/// Observation ids are unique in the memory, as the seed's row ids are: an id of Babbage's
/// observation names none of Ada's, and superseding with it changes nothing (per-entity
/// ids made it supersede Ada's first observation).
#[test]
fn supersedes_with_another_entitys_observation_id_is_refused() {
    let (mut m, log) = seeded();
    let opened = call_ok(&mut m, "open_nodes", json!({"names": ["Ada", "Babbage"]}));
    let ada = &opened["entities"][0]["observations"][0]["id"];
    let babbage = &opened["entities"][1]["observations"][0]["id"];
    assert_ne!(ada, babbage);
    assert_eq!(*ada, json!(observation_id("Ada", 1)));
    let before = log.records();
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"name": "Ada", "observations": ["x"], "supersedes": babbage}),
    );
    assert!(
        err.starts_with(&format!(
            "supersedes: {babbage} is not the id of a current observation of \"Ada\""
        )),
        "{err}"
    );
    assert_eq!(log.records(), before, "nothing changed");
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"name": "Ada", "observations": ["x"], "supersedes": 1}),
    );
    assert!(err.starts_with("supersedes: 1 is not"), "{err}");
}

/// The seed's `EntityInput.name` has `min_length=1`.
#[test]
fn an_empty_entity_name_is_refused() {
    let (mut m, log) = seeded();
    let before = log.records();
    let err = call_err(
        &mut m,
        "create_entities",
        json!({"entities": [{"name": "Lovelace"}, {"name": ""}]}),
    );
    assert_eq!(err, "entities[1].name: a name needs at least one character");
    assert_eq!(log.records(), before);
}

#[test]
fn end_relation_ends_the_pair_and_a_second_time_is_a_notice() {
    let (mut m, log) = seeded();
    at(&mut m, T0 + 1_000);
    let id = rid("Notes", "parte_de", "Ada");
    let out = call_ok(&mut m, "end_relation", json!({"relation_id": id}));
    assert_eq!(out["relation"]["active"], false);
    assert_eq!(out["relation"]["ended_at"], "2027-01-15 08:00:01");
    assert_eq!(out["inverse_expired_id"], rid("Ada", "contiene", "Notes"));
    let records = log.records().len();
    let again = call_ok(&mut m, "end_relation", json!({"relation_id": id}));
    assert_eq!(
        again["notice"],
        format!("Relation {id} is already inactive")
    );
    assert_eq!(log.records().len(), records, "a notice changes nothing");
    let err = call_err(&mut m, "end_relation", json!({"relation_id": 7}));
    assert!(
        err.starts_with("relation_id: no relation has id 7"),
        "{err}"
    );
    // The ended pair is history, shown by open_nodes, and survives a restart.
    drop(m);
    let mut m = py_at(log.reopened());
    let ada = call_ok(&mut m, "open_nodes", json!({"names": ["Ada"]}));
    let ended: Vec<&Value> = ada["entities"][0]["relations"]
        .as_array()
        .expect("relations")
        .iter()
        .filter(|r| r["active"] == false)
        .collect();
    assert_eq!(ended.len(), 2, "{ada}");
    assert!(ended.iter().all(|r| r["ended_at"] == "2027-01-15 08:00:01"));
}

#[test]
fn reflections_target_entities_and_relations_by_id_and_are_found_again() {
    let (mut m, _) = seeded();
    let on_relation = call_ok(
        &mut m,
        "add_reflection",
        json!({"target_type": "relation", "target_id": rid("Ada", "colabora_con", "Babbage"), "content": "a partnership of minds", "author": "nolan"}),
    );
    assert_eq!(
        on_relation["reflection"]["target"],
        "Ada --colabora_con--> Babbage"
    );
    call_ok(
        &mut m,
        "add_reflection",
        json!({"target_type": "entity", "target_id": entity_id("Ada"), "content": "the first programmer, in mind", "mood": "insight"}),
    );
    call_ok(
        &mut m,
        "add_reflection",
        json!({"target_type": "global", "content": "the memory of minds is young"}),
    );
    let err = call_err(
        &mut m,
        "add_reflection",
        json!({"target_type": "entity", "target_id": 12, "content": "x"}),
    );
    assert_eq!(err, "target_id: no entity has id 12");
    let err = call_err(
        &mut m,
        "add_reflection",
        json!({"target_type": "entity", "content": "x"}),
    );
    assert!(err.starts_with("target_id: "), "{err}");
    let ada = call_ok(&mut m, "open_nodes", json!({"names": ["Ada"]}));
    assert_eq!(
        ada["entities"][0]["reflections"][0]["content"],
        "the first programmer, in mind"
    );
    let found = call_ok(&mut m, "search_reflections", json!({"query": "minds"}));
    assert_eq!(found["total"], 2);
    let only = call_ok(
        &mut m,
        "search_reflections",
        json!({"query": "minds", "target_type": "relation"}),
    );
    assert_eq!(only["total"], 1);
    assert_eq!(only["results"][0]["author"], "nolan");
}

#[test]
fn search_nodes_is_a_bounded_substring_search_with_a_total() {
    let (mut m, _) = seeded();
    let out = call_ok(&mut m, "search_nodes", json!({"query": "ENGINE"}));
    assert_eq!(out["total"], 1);
    assert_eq!(out["entities"][0]["name"], "Babbage");
    let out = call_ok(&mut m, "search_nodes", json!({"query": "e", "limit": 1}));
    assert_eq!(out["entities"].as_array().map(Vec::len), Some(1));
    assert_eq!(out["total"], 3);
    let blank = call_ok(&mut m, "search_nodes", json!({"query": "  "}));
    assert_eq!(blank, json!({"entities": [], "total": 0}));
}

#[test]
fn under_all_the_nine_answer_as_the_reference_and_other_names_as_their_arguments_fit() {
    let mut m = open(MemLog::new());
    m.set_tools("all", "").expect("the profile");
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [{"name": "Ada", "entityType": "person", "observations": []}]}),
    );
    // The seed's add_observations is refused as the reference refuses it.
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"name": "Ada", "observations": ["counted"]}),
    );
    assert!(
        err.starts_with("MCP error -32602: Input validation error"),
        "{err}"
    );
    // add_reflection answers in both shapes.
    let ours = call_ok(
        &mut m,
        "add_reflection",
        json!({"entity": "Ada", "content": "ours"}),
    );
    assert_eq!(ours["reflection"]["about"], "entity");
    let seed = call_ok(
        &mut m,
        "add_reflection",
        json!({"target_type": "entity", "target_id": entity_id("Ada"), "content": "the seed's"}),
    );
    assert_eq!(seed["reflection"]["target_type"], "entity");
    assert_eq!(seed["reflection"]["target"], "Ada");
}

#[test]
fn search_semantic_ranks_by_meaning_and_words_then_by_status_and_time() {
    let mut m = py_at(MemLog::new());
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
            {"name": "Compiler", "entityType": "Sistema", "observations": ["translates source code into machine instructions"]},
            {"name": "Old compiler", "entityType": "Sistema", "observations": ["translates source code into machine instructions"], "status": "archivado"},
            {"name": "Bread", "entityType": "Recurso", "observations": ["a recipe with flour, water and yeast"]},
        ]}),
    );
    let out = call_ok(
        &mut m,
        "search_semantic",
        json!({"query": "software that turns programs into machine code"}),
    );
    let results = out["results"].as_array().expect("results");
    let names: Vec<&str> = results.iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(names[..2], ["Compiler", "Old compiler"], "{out}");
    let (active, archived) = (&results[0], &results[1]);
    assert_eq!(active["routing_strategy"], "hybrid_balanced");
    assert_eq!(
        active["scoring"]["temporal_factor"], 1.0,
        "changed just now"
    );
    // Found both ways: relevance is the cosine (1 - distance), times the status's factor.
    let score = |r: &Value| r["limbic_score"].as_f64().unwrap();
    let cosine = |r: &Value| 1.0 - r["distance"].as_f64().unwrap();
    assert!((score(active) - cosine(active)).abs() < 0.001, "{active}");
    assert!(
        (score(archived) - 0.5 * cosine(archived)).abs() < 0.001,
        "archivado halves: {archived}"
    );
    assert!(active["rrf_score"].is_number());
    // A year on, time has lowered every score but not the order.
    at(&mut m, T0 + 365 * 86_400_000);
    let later = call_ok(
        &mut m,
        "search_semantic",
        json!({"query": "software that turns programs into machine code", "limit": 1}),
    );
    assert_eq!(later["results"].as_array().map(Vec::len), Some(1));
    assert_eq!(later["results"][0]["name"], "Compiler");
    let factor = later["results"][0]["scoring"]["temporal_factor"]
        .as_f64()
        .unwrap();
    assert!((factor - 0.4164).abs() < 0.001, "{factor}");
}

#[test]
fn search_semantic_without_the_table_says_so() {
    let mut m = open(MemLog::new());
    m.set_tools("mcp-memory-py", "").expect("the profile");
    let err = call_err(&mut m, "search_semantic", json!({"query": "x"}));
    assert!(err.starts_with("Semantic search is not available"), "{err}");
}

/// Issue 41, Python 3: deleting an ended relation, or one of its ends, deletes it (there
/// the row goes); `open_nodes` no longer lists it, replay agrees, and `undo` of the
/// deletion brings it back ended.
#[test]
fn an_ended_relation_goes_with_its_deletion_or_its_ends() {
    let (mut m, log) = seeded();
    m.set_tools("mcp-memory-py", "+undo,+history")
        .expect("known tools");
    let ended = |m: &mut mcp_memory_core::Server<MemLog>, name: &str| -> Vec<Value> {
        let opened = call_ok(m, "open_nodes", json!({"names": [name]}));
        let relations = opened["entities"][0]["relations"].as_array().cloned();
        relations
            .unwrap_or_default()
            .into_iter()
            .filter(|r| r["active"] == false)
            .collect()
    };
    call_ok(
        &mut m,
        "end_relation",
        json!({"relation_id": rid("Ada", "contiene", "Notes")}),
    );
    let both = ended(&mut m, "Ada");
    assert_eq!(
        both.len(),
        2,
        "it and its inverse ended, kept as history: {both:?}"
    );
    let text = text(&call(
        &mut m,
        "delete_relations",
        json!({"relations": [{"from": "Ada", "to": "Notes", "relationType": "contiene"}]}),
    ))
    .to_string();
    assert_eq!(text, "Relations deleted successfully");
    let left = ended(&mut m, "Ada");
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["relation_type"], "parte_de");
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["Notes"]}));
    assert_eq!(ended(&mut m, "Ada"), Vec::<Value>::new(), "its end is gone");
    let replayed = &mut py_at(log.reopened());
    assert_eq!(ended(replayed, "Ada"), Vec::<Value>::new());

    let changes = call_ok(&mut m, "history", json!({}));
    let last = changes["changes"][0]["id"].clone();
    call_ok(&mut m, "undo", json!({"changeId": last}));
    assert_eq!(ended(&mut m, "Ada").len(), 1, "undo brings it back, ended");
}

/// Issue 41, Python 7: a session reflection given the seed's numeric id shows it back.
#[test]
fn a_session_reflection_shows_its_id() {
    let (mut m, _) = seeded();
    let out = call_ok(
        &mut m,
        "add_reflection",
        json!({"target_type": "session", "target_id": 42, "content": "a long session"}),
    );
    assert_eq!(out["reflection"]["target_id"], 42);
    assert_eq!(out["reflection"]["target"], "42");
}

/// Issue 41, Python 7: an argument its tool does not take is refused, as the seed's
/// FastMCP refuses it, naming it; nothing changes.
#[test]
fn an_unknown_argument_is_refused() {
    let (mut m, log) = seeded();
    let before = log.records().len();
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"name": "Ada", "observations": ["x"], "entity_name": "Ada"}),
    );
    assert_eq!(err, "entity_name is not an argument of this tool");
    assert_eq!(log.records().len(), before);
}

/// Issue 41, Python 7, as decided: a blank query finds nothing, `limit: 0` is refused (it
/// asks for nothing), a name given twice is one entity answered once.
#[test]
fn blank_and_empty_searches_and_a_name_twice() {
    let (mut m, _) = seeded();
    let blank = call_ok(&mut m, "search_nodes", json!({"query": "  "}));
    assert_eq!(blank["entities"], json!([]), "{blank}");
    let none = call_err(&mut m, "search_nodes", json!({"query": "a", "limit": 0}));
    assert_eq!(none, "limit must be at least 1");
    let twice = call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [{"name": "Twin", "observations": ["one"]}, {"name": "Twin", "observations": ["two"]}]}),
    );
    assert_eq!(twice["entities"].as_array().unwrap().len(), 1, "{twice}");
}
