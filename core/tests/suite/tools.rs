//! One test per tool rule of the reference server (as `tests/scenarios` records it), per
//! deliberate difference from it, and per rule of the log and notification contract.

use crate::common::*;
use mcp_memory_core::frame;
use mcp_memory_core::mcp::PIECE_BYTES;
use mcp_memory_core::memory::{DAY_MS, LogOp};
use mcp_memory_core::model::{Entity, Observations};
use mcp_memory_core::record::{OP_NAMES, Op, Record, is_checkpoint};
use mcp_memory_core::{Contents, Error, Server};
use serde_json::{Value, json};

const GRAPH_URI: &str = "memory://knowledge-graph";

fn search(memory: &mut Server<MemLog>, query: &str) -> Value {
    call_ok(memory, "search_nodes", json!({ "query": query }))
}

/// Names of the entities search_nodes' substring match (the reference's set) finds; its
/// ranked word matches come after them and are tested with the search engine.
fn substring(memory: &Server<MemLog>, query: &str) -> Vec<String> {
    let graph = memory.memory().graph();
    let indexes = memory.memory().indexes();
    mcp_memory_core::tools::reference::query::reference_matches(graph, indexes, query)
        .into_iter()
        .map(|id| graph.text(graph.entity(id).name).to_string())
        .collect()
}

/// No names.
const NONE: [&str; 0] = [];

fn open_nodes(memory: &mut Server<MemLog>, names: &[&str]) -> Value {
    call_ok(memory, "open_nodes", json!({ "names": names }))
}

fn decoded(bytes: &[u8]) -> Record<'_> {
    Record::decode(bytes).expect("the core writes records it can read")
}

// ---------------------------------------------------------------------------------------------
// create_entities
// ---------------------------------------------------------------------------------------------

#[test]
fn create_entities_skips_existing_name_without_merging() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("A", "person", &["x"])]);
    let got = create(
        &mut m,
        &[entity("A", "robot", &["y"]), entity("B", "t", &[])],
    );
    assert_eq!(got, json!({"entities": [entity("B", "t", &[])]}));
    assert_eq!(
        graph(&mut m),
        graph_of(&[entity("A", "person", &["x"]), entity("B", "t", &[])], &[])
    );
}

/// Deliberate difference: the reference appends both.
#[test]
fn create_entities_creates_only_first_of_same_name_in_one_call() {
    let (mut m, log) = fresh();
    let got = create(
        &mut m,
        &[
            entity("A", "first", &["1"]),
            entity("B", "t", &[]),
            entity("A", "second", &["2"]),
        ],
    );
    let want = [entity("A", "first", &["1"]), entity("B", "t", &[])];
    assert_eq!(got, json!({ "entities": want }));
    assert_eq!(graph(&mut m), graph_of(&want, &[]));
    // The record holds what was created, not the request.
    assert_eq!(
        decoded(&log.records()[0]).ops,
        vec![Op::CreateEntities(vec![
            Entity {
                name: "A",
                entity_type: "first",
                observations: vec!["1"],
            },
            Entity {
                name: "B",
                entity_type: "t",
                observations: vec![],
            },
        ])]
    );
}

#[test]
fn create_entities_keeps_duplicate_observations_and_input_order() {
    let (mut m, _) = fresh();
    let input = [
        entity("C", "t", &["z", "a", "z", ""]),
        entity("A", "t", &[]),
    ];
    assert_eq!(create(&mut m, &input), json!({ "entities": input }));
    assert_eq!(graph(&mut m), graph_of(&input, &[]));
}

#[test]
fn create_entities_compares_names_exactly() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[entity("Alice", "t", &[]), entity("\u{e9}", "t", &[])],
    );
    let near = [
        entity("alice", "t", &[]),
        entity("ALICE", "t", &[]),
        entity(" Alice", "t", &[]),
        entity("Alice ", "t", &[]),
        entity("e\u{301}", "t", &[]), // NFD twin of the NFC name
        entity("", "t", &[]),
    ];
    assert_eq!(create(&mut m, &near), json!({ "entities": near }));
    assert_eq!(graph(&mut m)["entities"].as_array().unwrap().len(), 8);
}

#[test]
fn create_entities_with_nothing_new_returns_empty_array() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &[])]);
    let result = call(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &["new"])]}),
    );
    assert_eq!(text(&result), "[]");
    assert_eq!(result["structuredContent"], json!({"entities": []}));
    assert_eq!(log.len(), 1, "a no-op appends no record");
    let result = call(&mut m, "create_entities", json!({"entities": []}));
    assert_eq!(text(&result), "[]");
}

#[test]
fn tool_result_envelope_matches_reference_bytes() {
    let (mut m, _) = fresh();
    let line = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{
        "name":"create_entities","arguments":{"entities":[{"name":"A","entityType":"t","observations":["o","é"]}]}}})
    .to_string();
    let out = m.handle(&line);
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0],
        concat!(
            r#"{"result":{"content":[{"type":"text","text":"[\n  {\n    \"name\": \"A\",\n    \"entityType\": \"t\",\n    \"observations\": [\n      \"o\",\n      \"é\"\n    ]\n  }\n]"}],"#,
            r#""structuredContent":{"entities":[{"name":"A","entityType":"t","observations":["o","é"]}]}},"jsonrpc":"2.0","id":7}"#
        )
    );
    let line = r#"{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"read_graph","arguments":{}}}"#;
    let out = m.handle(line);
    assert_eq!(
        out[0],
        concat!(
            r#"{"result":{"content":[{"type":"text","text":"{\n  \"entities\": [\n    {\n      \"name\": \"A\",\n      \"entityType\": \"t\",\n      \"observations\": [\n        \"o\",\n        \"é\"\n      ]\n    }\n  ],\n  \"relations\": []\n}"}],"#,
            r#""structuredContent":{"entities":[{"name":"A","entityType":"t","observations":["o","é"]}],"relations":[]}},"jsonrpc":"2.0","id":"r"}"#
        )
    );
}

#[test]
fn a_long_answer_comes_in_pieces_that_make_the_whole_answer() {
    let (mut m, _) = fresh();
    let long = "x".repeat(1000);
    for batch in 0..10 {
        let entities: Vec<Value> = (0..100)
            .map(|i| json!({"name": format!("E{batch}-{i}"), "entityType": "t", "observations": [long]}))
            .collect();
        create(&mut m, &entities);
    }
    let read = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}"#;
    let whole = m.handle(read);
    assert!(whole[0].len() > 3 * PIECE_BYTES, "{} bytes", whole[0].len());
    let (mut first, continued) = m.handle_pieces(0, 0, read);
    assert!(continued);
    assert_eq!(first.len(), 1);
    let mut pieces = 1;
    while let Some(piece) = m.next_piece() {
        assert!(piece.len() < PIECE_BYTES + 4096, "{} bytes", piece.len());
        first[0].push_str(&piece);
        pieces += 1;
    }
    assert_eq!(first, whole);
    assert!(pieces > 3, "{pieces} pieces");
    // Any other message drops what is left of an answer.
    let (_, continued) = m.handle_pieces(0, 0, read);
    assert!(continued);
    let (small, continued) = m.handle_pieces(0, 0, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert!(!continued);
    assert_eq!(small, [r#"{"result":{},"jsonrpc":"2.0","id":2}"#]);
    assert_eq!(m.next_piece(), None);
}

// ---------------------------------------------------------------------------------------------
// create_relations
// ---------------------------------------------------------------------------------------------

#[test]
fn create_relations_skips_existing_triple() {
    let (mut m, _) = fresh();
    relate(&mut m, &[relation("A", "B", "knows")]);
    let got = relate(
        &mut m,
        &[
            relation("A", "B", "knows"),
            relation("A", "B", "likes"),
            relation("B", "A", "knows"),
            relation("a", "B", "knows"),
        ],
    );
    let new = [
        relation("A", "B", "likes"),
        relation("B", "A", "knows"),
        relation("a", "B", "knows"),
    ];
    assert_eq!(got, json!({ "relations": new }));
    assert_eq!(graph(&mut m)["relations"].as_array().unwrap().len(), 4);
}

/// Deliberate difference: the reference appends both.
#[test]
fn create_relations_creates_only_one_of_equal_triples_in_one_call() {
    let (mut m, _) = fresh();
    let got = relate(
        &mut m,
        &[
            relation("A", "B", "k"),
            relation("C", "D", "k"),
            relation("A", "B", "k"),
        ],
    );
    let want = [relation("A", "B", "k"), relation("C", "D", "k")];
    assert_eq!(got, json!({ "relations": want }));
    assert_eq!(graph(&mut m), graph_of(&[], &want));
}

#[test]
fn create_relations_accepts_dangling_and_self_relations() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("A", "t", &[])]);
    let rels = [
        relation("X", "Y", "r"),
        relation("A", "A", "self"),
        relation("", "", ""),
    ];
    assert_eq!(relate(&mut m, &rels), json!({ "relations": rels }));
    assert_eq!(graph(&mut m), graph_of(&[entity("A", "t", &[])], &rels));
}

// ---------------------------------------------------------------------------------------------
// add_observations
// ---------------------------------------------------------------------------------------------

#[test]
fn add_observations_to_missing_entity_changes_nothing() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &["x"])]);
    let before = graph(&mut m);
    let (records, appends, syncs) = (log.len(), log.appends(), log.syncs());
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"observations": [
            {"entityName": "A", "contents": ["earlier item"]},
            {"entityName": "Missing", "contents": ["x"]},
            {"entityName": "A", "contents": ["later item"]},
        ]}),
    );
    assert_eq!(err, "Entity with name Missing not found");
    assert_eq!(
        graph(&mut m),
        before,
        "not even the earlier item's additions"
    );
    assert_eq!(
        (log.len(), log.appends(), log.syncs()),
        (records, appends, syncs),
        "no record was appended"
    );
    // Nothing leaked into a later replay either.
    let mut replayed = open(log.reopened());
    assert_eq!(graph(&mut replayed), before);
}

#[test]
fn add_observations_error_inserts_name_raw() {
    let (mut m, _) = fresh();
    let name = "a \"b\"\n\\c";
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": name, "contents": []}]}),
    );
    assert_eq!(err, format!("Entity with name {name} not found"));
}

#[test]
fn add_observations_entity_name_is_case_sensitive() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("Alice", "t", &[])]);
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "alice", "contents": ["x"]}]}),
    );
    assert_eq!(err, "Entity with name alice not found");
}

#[test]
fn add_observations_skips_present_observations() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &["x", "Y"])]);
    let got = call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["x", "y", "Y", ""]}]}),
    );
    assert_eq!(
        got,
        json!({"results": [{"entityName": "A", "addedObservations": ["y", ""]}]})
    );
    assert_eq!(
        graph(&mut m)["entities"][0]["observations"],
        json!(["x", "Y", "y", ""])
    );
    // The record holds only what was added.
    assert_eq!(
        decoded(&log.records()[1]).ops,
        vec![Op::AddObservations(vec![Observations {
            entity: "A",
            contents: vec!["y", ""],
        }])]
    );
    // Nothing new at all: a no-op with an empty addition, and no record.
    let got = call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["x"]}]}),
    );
    assert_eq!(
        got,
        json!({"results": [{"entityName": "A", "addedObservations": []}]})
    );
    assert_eq!(log.len(), 2);
}

#[test]
fn add_observations_second_item_sees_first_items_additions() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("A", "t", &["x"]), entity("B", "t", &[])]);
    let got = call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [
            {"entityName": "A", "contents": ["y"]},
            {"entityName": "B", "contents": ["y"]},
            {"entityName": "A", "contents": ["y", "z"]},
        ]}),
    );
    assert_eq!(
        got,
        json!({"results": [
            {"entityName": "A", "addedObservations": ["y"]},
            {"entityName": "B", "addedObservations": ["y"]},
            {"entityName": "A", "addedObservations": ["z"]},
        ]})
    );
    assert_eq!(
        graph(&mut m),
        graph_of(
            &[entity("A", "t", &["x", "y", "z"]), entity("B", "t", &["y"])],
            &[]
        )
    );
}

/// As in the reference: duplicates inside one `contents` are checked against the entity as
/// it was before the item, so both are added.
#[test]
fn add_observations_keeps_duplicates_inside_contents() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("A", "t", &["x"])]);
    let got = call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["n", "x", "n"]}]}),
    );
    assert_eq!(
        got,
        json!({"results": [{"entityName": "A", "addedObservations": ["n", "n"]}]})
    );
    assert_eq!(
        graph(&mut m)["entities"][0]["observations"],
        json!(["x", "n", "n"])
    );
}

#[test]
fn add_observations_changes_only_first_same_name_entity() {
    let (mut m, _) = from_jsonl(&[
        entity_line("A", "first", &["x"]),
        entity_line("A", "second", &[]),
    ]);
    let got = call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["x", "y"]}]}),
    );
    assert_eq!(
        got,
        json!({"results": [{"entityName": "A", "addedObservations": ["y"]}]})
    );
    assert_eq!(
        graph(&mut m),
        graph_of(
            &[
                entity("A", "first", &["x", "y"]),
                entity("A", "second", &[])
            ],
            &[]
        )
    );
}

// ---------------------------------------------------------------------------------------------
// delete_entities
// ---------------------------------------------------------------------------------------------

#[test]
fn delete_entities_removes_every_same_name_entity() {
    let (mut m, _) = from_jsonl(&[
        entity_line("A", "first", &[]),
        entity_line("B", "t", &[]),
        entity_line("A", "second", &[]),
    ]);
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["A"]}));
    assert_eq!(graph(&mut m), graph_of(&[entity("B", "t", &[])], &[]));
}

#[test]
fn delete_entities_cascades_to_incoming_outgoing_and_self_relations() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("A", "t", &[]),
            entity("B", "t", &[]),
            entity("C", "t", &[]),
        ],
    );
    relate(
        &mut m,
        &[
            relation("A", "B", "out"),
            relation("C", "A", "in"),
            relation("A", "A", "self"),
            relation("B", "C", "other"),
        ],
    );
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["A"]}));
    assert_eq!(
        graph(&mut m),
        graph_of(
            &[entity("B", "t", &[]), entity("C", "t", &[])],
            &[relation("B", "C", "other")]
        )
    );
}

/// The cascade uses the requested names, so a name with no entity still takes its
/// dangling relations with it.
#[test]
fn delete_entities_cascades_on_missing_names() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &[])]);
    relate(
        &mut m,
        &[
            relation("X", "Y", "dangling"),
            relation("A", "X", "to ghost"),
            relation("A", "Y", "kept"),
        ],
    );
    let records = log.len();
    let got = call_ok(&mut m, "delete_entities", json!({"entityNames": ["X"]}));
    assert_eq!(
        got,
        json!({"success": true, "message": "Entities deleted successfully"})
    );
    assert_eq!(
        graph(&mut m),
        graph_of(&[entity("A", "t", &[])], &[relation("A", "Y", "kept")])
    );
    assert_eq!(log.len(), records + 1, "the cascade is logged");
}

#[test]
fn delete_entities_of_missing_or_no_names_succeeds_silently() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &[])]);
    let before = graph(&mut m);
    for names in [json!([]), json!(["nope", "a", ""])] {
        let result = call(&mut m, "delete_entities", json!({ "entityNames": names }));
        assert_eq!(text(&result), "Entities deleted successfully");
        assert_eq!(
            result["structuredContent"],
            json!({"success": true, "message": "Entities deleted successfully"})
        );
    }
    assert_eq!(graph(&mut m), before);
    assert_eq!(log.len(), 1, "no-ops append nothing");
}

// ---------------------------------------------------------------------------------------------
// delete_observations
// ---------------------------------------------------------------------------------------------

#[test]
fn delete_observations_removes_every_occurrence() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("A", "t", &["x", "y", "x", "z", "x", "X"])]);
    call_ok(
        &mut m,
        "delete_observations",
        json!({"deletions": [{"entityName": "A", "observations": ["x", "x"]}]}),
    );
    assert_eq!(
        graph(&mut m)["entities"][0]["observations"],
        json!(["y", "z", "X"])
    );
}

#[test]
fn delete_observations_changes_only_first_same_name_entity() {
    let (mut m, _) = from_jsonl(&[
        entity_line("A", "first", &["x", "y"]),
        entity_line("A", "second", &["x"]),
    ]);
    call_ok(
        &mut m,
        "delete_observations",
        json!({"deletions": [{"entityName": "A", "observations": ["x"]}]}),
    );
    assert_eq!(
        graph(&mut m),
        graph_of(
            &[entity("A", "first", &["y"]), entity("A", "second", &["x"])],
            &[]
        )
    );
}

#[test]
fn delete_observations_of_missing_entity_or_observation_succeeds_silently() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &["x"])]);
    let before = graph(&mut m);
    let result = call(
        &mut m,
        "delete_observations",
        json!({"deletions": [
            {"entityName": "Nope", "observations": ["x"]},
            {"entityName": "A", "observations": ["X", "nothing", ""]},
        ]}),
    );
    assert_eq!(text(&result), "Observations deleted successfully");
    assert_eq!(
        result["structuredContent"],
        json!({"success": true, "message": "Observations deleted successfully"})
    );
    assert_eq!(graph(&mut m), before);
    assert_eq!(log.len(), 1);
}

// ---------------------------------------------------------------------------------------------
// delete_relations
// ---------------------------------------------------------------------------------------------

#[test]
fn delete_relations_removes_duplicate_triples() {
    let (mut m, _) = from_jsonl(&[
        relation_line("A", "B", "k"),
        relation_line("A", "B", "l"),
        relation_line("A", "B", "k"),
    ]);
    let result = call(
        &mut m,
        "delete_relations",
        json!({"relations": [relation("A", "B", "k")]}),
    );
    assert_eq!(text(&result), "Relations deleted successfully");
    assert_eq!(graph(&mut m), graph_of(&[], &[relation("A", "B", "l")]));
}

#[test]
fn delete_relations_ignores_near_misses() {
    let (mut m, log) = fresh();
    relate(&mut m, &[relation("A", "B", "k")]);
    call_ok(
        &mut m,
        "delete_relations",
        json!({"relations": [
            relation("a", "B", "k"),
            relation("A", "B", "K"),
            relation("B", "A", "k"),
            relation("A", "B", "k "),
        ]}),
    );
    assert_eq!(graph(&mut m), graph_of(&[], &[relation("A", "B", "k")]));
    assert_eq!(log.len(), 1);
}

// ---------------------------------------------------------------------------------------------
// read_graph
// ---------------------------------------------------------------------------------------------

#[test]
fn read_graph_keeps_file_order_duplicates_and_dangling_relations() {
    let (mut m, _) = from_jsonl(&[
        relation_line("Z", "Q", "dangling"),
        entity_line("B", "t", &[]),
        entity_line("A", "t", &["1"]),
        entity_line("B", "dup", &[]),
        relation_line("B", "A", "r"),
        relation_line("Z", "Q", "dangling"),
    ]);
    create(&mut m, &[entity("0", "t", &[])]);
    assert_eq!(
        graph(&mut m),
        graph_of(
            &[
                entity("B", "t", &[]),
                entity("A", "t", &["1"]),
                entity("B", "dup", &[]),
                entity("0", "t", &[]),
            ],
            &[
                relation("Z", "Q", "dangling"),
                relation("B", "A", "r"),
                relation("Z", "Q", "dangling"),
            ]
        )
    );
}

#[test]
fn read_graph_ignores_extra_arguments() {
    let (mut m, _) = fresh();
    assert_eq!(
        call_ok(&mut m, "read_graph", json!({"junk": [1, 2], "query": 5})),
        graph_of(&[], &[])
    );
}

// ---------------------------------------------------------------------------------------------
// search_nodes
// ---------------------------------------------------------------------------------------------

fn search_fixture() -> Server<MemLog> {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("Alice", "person", &["Likes TEA"]),
            entity("Bob", "robot", &[]),
            entity("Carol", "person", &["plays chess"]),
        ],
    );
    m
}

#[test]
fn search_nodes_matches_name_type_or_observation_substring() {
    let m = search_fixture();
    assert_eq!(substring(&m, "LIC"), ["Alice"], "name");
    assert_eq!(substring(&m, "ROB"), ["Bob"], "type");
    assert_eq!(substring(&m, "tea"), ["Alice"], "observation");
    assert_eq!(substring(&m, "ess"), ["Carol"], "mid-word");
    assert_eq!(substring(&m, "o"), ["Alice", "Bob", "Carol"]);
    assert_eq!(substring(&m, "zzz"), NONE);
    assert_eq!(substring(&m, "alice bob"), NONE, "no tokenizing");
}

#[test]
fn search_nodes_lowercases_final_sigma_like_javascript() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("ΟΔΟΣ", "t", &[])]);
    // JS lowercases ΟΔΟΣ to οδος: final sigma ς, not σ.
    assert_eq!(substring(&m, "ς"), ["ΟΔΟΣ"]);
    assert_eq!(substring(&m, "ΟΔΟΣ"), ["ΟΔΟΣ"]);
    assert_eq!(substring(&m, "οδος"), ["ΟΔΟΣ"]);
    assert_eq!(substring(&m, "σ"), NONE);
    assert_eq!(substring(&m, "Σ"), NONE, "a lone Σ lowercases to σ");
    assert_eq!(substring(&m, "οδοσ"), NONE);
}

#[test]
fn search_nodes_lowercases_dotted_capital_i_like_javascript() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("İstanbul", "city", &[])]);
    // İ lowercases to i + U+0307, which contains i.
    for q in ["I", "i", "İ", "İSTANBUL", "i\u{307}stanbul"] {
        assert_eq!(substring(&m, q), ["İstanbul"], "query {q:?}");
    }
    for q in ["istanbul", "ı", "ISTANBUL"] {
        assert_eq!(substring(&m, q), NONE, "query {q:?}");
    }
}

#[test]
fn search_nodes_neither_case_folds_nor_normalizes() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("straße", "t", &[]),
            entity("Kelvin", "t", &[]),
            entity("caf\u{e9}", "t", &[]),
        ],
    );
    assert_eq!(substring(&m, "SS"), NONE, "lowercase, not case fold");
    assert_eq!(substring(&m, "ẞ"), ["straße"], "ẞ lowercases to ß");
    assert_eq!(substring(&m, "\u{212a}"), ["Kelvin"], "Kelvin sign is K");
    assert_eq!(substring(&m, "CAF\u{c9}"), ["caf\u{e9}"]);
    assert_eq!(substring(&m, "cafe\u{301}"), NONE, "NFD does not match NFC");
}

/// A question asked in words matches no substring; search_nodes then adds the best ranked
/// word matches (stopwords dropped), after whatever the substring match found, each once.
#[test]
fn search_nodes_answers_a_question_in_words_after_the_reference_set() {
    let (mut m, _) = fresh();
    let mut entities = caroline_turns();
    entities.push(entity(
        "agency",
        "organisation",
        &["adoption agency in town"],
    ));
    create(&mut m, &entities);
    let got = search(&mut m, "What did Caroline say about the adoption agency?");
    let mut names = entity_names(&got);
    names[..2].sort();
    assert_eq!(
        names[..2],
        ["agency", "turn-1"],
        "what holds most of the words, first"
    );
    assert!(
        !names.contains(&"turn-2".to_string()),
        "no word in common: {names:?}"
    );
    let got = search(&mut m, "agency");
    assert_eq!(
        entity_names(&got)[..2],
        ["agency", "turn-1"],
        "the reference's set first"
    );
    assert_eq!(
        entity_names(&got).len(),
        2,
        "nothing matches the word outside it"
    );
    let limited = call_ok(
        &mut m,
        "search_nodes",
        json!({"query": "Caroline adoption", "limit": 1}),
    );
    assert_eq!(entity_names(&limited), ["turn-1"]);
}

/// One word with at least `limit` substring matches is the reference's answer alone.
#[test]
fn search_nodes_adds_nothing_to_a_word_that_matches_enough_substrings() {
    let (mut m, _) = fresh();
    let many: Vec<Value> = (0..25)
        .map(|i| entity(&format!("tea-{i}"), "t", &[]))
        .chain([entity("other", "t", &["teapot collection"])])
        .collect();
    call_in_chunks(&mut m, "create_entities", "entities", many);
    let got = call_ok(&mut m, "search_nodes", json!({"query": "tea-1"}));
    assert_eq!(
        entity_names(&got).len(),
        11,
        "tea-1 and tea-10..19, then up to 20 ranked matches"
    );
    let got = call_ok(&mut m, "search_nodes", json!({"query": "tea"}));
    assert_eq!(
        entity_names(&got).len(),
        26,
        "26 substring matches, no more"
    );
}

#[test]
fn search_nodes_empty_query_matches_every_entity() {
    let (mut m, _) = fresh();
    let all = [
        entity("", "", &[]),
        entity("A", "t", &["x"]),
        entity("ΟΔΟΣ", "", &[""]),
    ];
    create(&mut m, &all);
    relate(&mut m, &[relation("A", "", "r")]);
    assert_eq!(
        search(&mut m, ""),
        graph_of(&all, &[relation("A", "", "r")])
    );
}

#[test]
fn search_nodes_includes_relations_to_unmatched_and_missing_nodes() {
    let mut m = search_fixture();
    let rels = [
        relation("Alice", "Bob", "knows"),
        relation("Bob", "Carol", "knows"),
        relation("Ghost", "Alice", "haunts"),
        relation("Carol", "Ghost", "fears"),
        relation("Alice", "Alice", "self"),
    ];
    relate(&mut m, &rels);
    let got = search(&mut m, "lic");
    assert_eq!(
        got,
        graph_of(
            &[entity("Alice", "person", &["Likes TEA"])],
            &[rels[0].clone(), rels[2].clone(), rels[4].clone()]
        )
    );
}

// ---------------------------------------------------------------------------------------------
// open_nodes
// ---------------------------------------------------------------------------------------------

#[test]
fn open_nodes_returns_relations_with_either_endpoint_among_found_names_only() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("A", "t", &[]),
            entity("B", "t", &[]),
            entity("C", "t", &[]),
        ],
    );
    let rels = [
        relation("A", "B", "out"),
        relation("C", "A", "in"),
        relation("B", "C", "neither"),
        relation("X", "A", "from ghost"),
        relation("X", "B", "ghost only"),
    ];
    relate(&mut m, &rels);
    assert_eq!(
        open_nodes(&mut m, &["A", "X"]),
        graph_of(
            &[entity("A", "t", &[])],
            &[rels[0].clone(), rels[1].clone(), rels[3].clone()]
        )
    );
    // A missing name brings nothing, not even its dangling relations.
    assert_eq!(open_nodes(&mut m, &["X"]), graph_of(&[], &[]));
}

#[test]
fn open_nodes_dedups_names_and_keeps_graph_order() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("A", "t", &[]),
            entity("B", "t", &[]),
            entity("C", "t", &[]),
        ],
    );
    relate(&mut m, &[relation("A", "B", "r")]);
    assert_eq!(
        open_nodes(&mut m, &["C", "A", "A", "missing", "a"]),
        graph_of(
            &[entity("A", "t", &[]), entity("C", "t", &[])],
            &[relation("A", "B", "r")]
        )
    );
    assert_eq!(open_nodes(&mut m, &[]), graph_of(&[], &[]));
}

#[test]
fn open_nodes_returns_every_same_name_entity() {
    let (mut m, _) = from_jsonl(&[
        entity_line("A", "first", &[]),
        entity_line("B", "t", &[]),
        entity_line("A", "second", &[]),
    ]);
    assert_eq!(
        open_nodes(&mut m, &["A"]),
        graph_of(
            &[entity("A", "first", &[]), entity("A", "second", &[])],
            &[]
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Errors and validation
// ---------------------------------------------------------------------------------------------

#[test]
fn validation_errors_match_reference_texts() {
    let (mut m, log) = fresh();
    let prefix = "MCP error -32602: Input validation error: Invalid arguments for tool";
    let cases = [
        (
            "create_entities",
            json!({"entities": [{"name": 1, "entityType": "t", "observations": []}]}),
            "create_entities: Invalid input: expected string, received number at entities[0].name",
        ),
        (
            "create_entities",
            json!({}),
            "create_entities: Invalid input: expected array, received undefined at entities",
        ),
        (
            "create_entities",
            json!({"entities": [{"name": "A", "entityType": null, "observations": [1, "x"]}]}),
            "create_entities: Invalid input: expected string, received null at entities[0].entityType\nInvalid input: expected string, received number at entities[0].observations[0]",
        ),
        (
            "create_relations",
            json!({"relations": [{"from": "A", "to": "B"}]}),
            "create_relations: Invalid input: expected string, received undefined at relations[0].relationType",
        ),
        (
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": [true]}]}),
            "add_observations: Invalid input: expected string, received boolean at observations[0].contents[0]",
        ),
        (
            "delete_entities",
            json!({"entityNames": "A"}),
            "delete_entities: Invalid input: expected array, received string at entityNames",
        ),
        (
            "delete_observations",
            json!({"deletions": [{"entityName": "A", "observations": {}}]}),
            "delete_observations: Invalid input: expected array, received object at deletions[0].observations",
        ),
        (
            "delete_relations",
            json!({"relations": [7]}),
            "delete_relations: Invalid input: expected object, received number at relations[0]",
        ),
        (
            "search_nodes",
            json!({"query": ["x"]}),
            "search_nodes: Invalid input: expected string, received array at query",
        ),
        (
            "open_nodes",
            json!({"names": [null]}),
            "open_nodes: Invalid input: expected string, received null at names[0]",
        ),
    ];
    for (tool, args, issues) in cases {
        assert_eq!(call_err(&mut m, tool, args), format!("{prefix} {issues}"));
    }
    assert_eq!(log.len(), 0, "failed validation appends nothing");
}

#[test]
fn omitted_arguments_are_an_empty_object() {
    let (mut m, _) = fresh();
    let reply = request(&mut m, "tools/call", json!({"name": "read_graph"}));
    assert_eq!(reply["result"]["structuredContent"], graph_of(&[], &[]));
    let reply = request(&mut m, "tools/call", json!({"name": "create_entities"}));
    assert_eq!(
        text(&reply["result"]),
        "MCP error -32602: Input validation error: Invalid arguments for tool create_entities: Invalid input: expected array, received undefined at entities"
    );
}

#[test]
fn non_object_arguments_are_a_jsonrpc_error() {
    let (mut m, _) = fresh();
    for args in [json!([]), json!(null), json!("x")] {
        let reply = request(
            &mut m,
            "tools/call",
            json!({"name": "read_graph", "arguments": args}),
        );
        assert!(reply.get("result").is_none(), "{reply}");
        assert_eq!(reply["error"]["code"], json!(-32603));
        let issues: Value =
            serde_json::from_str(reply["error"]["message"].as_str().unwrap()).unwrap();
        assert_eq!(issues[0]["path"], json!(["params", "arguments"]));
        assert_eq!(issues[0]["expected"], "record");
    }
}

#[test]
fn extra_properties_are_stripped() {
    let (mut m, _) = fresh();
    let got = call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [{"name": "A", "entityType": "t", "observations": [], "extra": 1}],
               "also": true}),
    );
    assert_eq!(got, json!({"entities": [entity("A", "t", &[])]}));
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [{"from": "A", "to": "B", "relationType": "r", "weight": 2}]}),
    );
    assert_eq!(
        graph(&mut m),
        graph_of(&[entity("A", "t", &[])], &[relation("A", "B", "r")])
    );
}

#[test]
fn unknown_tool_is_a_tool_error() {
    let (mut m, log) = fresh();
    let reply = request(
        &mut m,
        "tools/call",
        json!({"name": "drop_graph", "arguments": {}}),
    );
    assert!(reply.get("error").is_none(), "{reply}");
    assert_eq!(
        reply["result"],
        json!({"content": [{"type": "text", "text": "MCP error -32602: Tool drop_graph not found"}],
               "isError": true})
    );
    assert_eq!(log.appends(), 0);
}

// ---------------------------------------------------------------------------------------------
// The log contract
// ---------------------------------------------------------------------------------------------

#[test]
fn every_change_appends_one_record_and_syncs_before_reply() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &[])]);
    assert_eq!((log.len(), log.syncs()), (1, 1));
    relate(&mut m, &[relation("A", "A", "r")]);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["o"]}]}),
    );
    call_ok(
        &mut m,
        "delete_observations",
        json!({"deletions": [{"entityName": "A", "observations": ["o"]}]}),
    );
    call_ok(
        &mut m,
        "delete_relations",
        json!({"relations": [relation("A", "A", "r")]}),
    );
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["A"]}));
    assert_eq!(
        (log.len(), log.syncs()),
        (6, 6),
        "one record and one sync each"
    );
    let kinds: Vec<&str> = log
        .records()
        .iter()
        .map(|r| {
            let record = decoded(r);
            assert!(record.stamp.is_some(), "every change is stamped");
            match record.ops.as_slice() {
                [op] => OP_NAMES[op.index()],
                _ => "batch",
            }
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "create_entities",
            "create_relations",
            "add_observations",
            "delete_observations",
            "delete_relations",
            "delete_entities"
        ]
    );
}

#[test]
fn reads_append_nothing() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &["x"])]);
    graph(&mut m);
    search(&mut m, "a");
    open_nodes(&mut m, &["A"]);
    request(&mut m, "resources/read", json!({"uri": GRAPH_URI}));
    request(&mut m, "tools/list", json!({}));
    assert_eq!((log.appends(), log.syncs()), (1, 1));
}

#[test]
fn failing_log_append_reports_error_and_leaves_graph_unchanged() {
    let (mut m, log) = fresh();
    request(&mut m, "resources/subscribe", json!({"uri": GRAPH_URI}));
    create(&mut m, &[entity("A", "t", &["x"])]);
    relate(&mut m, &[relation("A", "B", "r")]);
    let before = graph(&mut m);
    let (records, syncs) = (log.len(), log.syncs());
    let calls = [
        (
            "create_entities",
            json!({"entities": [entity("N", "t", &[])]}),
        ),
        (
            "create_relations",
            json!({"relations": [relation("A", "N", "r")]}),
        ),
        (
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": ["y"]}]}),
        ),
        ("delete_entities", json!({"entityNames": ["A"]})),
        (
            "delete_observations",
            json!({"deletions": [{"entityName": "A", "observations": ["x"]}]}),
        ),
        (
            "delete_relations",
            json!({"relations": [relation("A", "B", "r")]}),
        ),
    ];
    for (tool, args) in calls {
        log.fail_next_append("No space left on device (os error 28)");
        let out = call_all(&mut m, tool, args);
        assert_eq!(out.len(), 1, "no notification for a failed change: {out:?}");
        let result = &out[0]["result"];
        assert_eq!(result["isError"], json!(true), "{tool}: {result}");
        assert_eq!(
            text(result),
            "The change was not saved: No space left on device (os error 28)"
        );
        assert_eq!(graph(&mut m), before, "{tool} changed the graph");
    }
    assert_eq!((log.len(), log.syncs()), (records, syncs));
    // The memory still works afterwards.
    create(&mut m, &[entity("N", "t", &[])]);
    assert_eq!(log.len(), records + 1);
}

/// A failed sync is reported; the change was appended, so the graph must hold it too,
/// or the live memory and its replay would disagree.
#[test]
fn failing_sync_reports_error_and_keeps_graph_equal_to_log() {
    let (mut m, log) = fresh();
    log.fail_next_sync("EIO");
    let err = call_err(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    assert_eq!(err, "The change was written but may not be durable: EIO");
    let live = graph(&mut m);
    let mut replayed = open(log.reopened());
    assert_eq!(graph(&mut replayed), live);
    assert_eq!(live, graph_of(&[entity("A", "t", &[])], &[]));
}

// ---------------------------------------------------------------------------------------------
// Resource notifications
// ---------------------------------------------------------------------------------------------

fn updated() -> Value {
    json!({"method": "notifications/resources/updated", "params": {"uri": GRAPH_URI}, "jsonrpc": "2.0"})
}

/// One call of each mutation tool, each a no-op on an empty graph.
fn noop_mutations() -> Vec<(&'static str, Value)> {
    vec![
        ("create_entities", json!({"entities": []})),
        ("create_relations", json!({"relations": []})),
        ("add_observations", json!({"observations": []})),
        ("delete_entities", json!({"entityNames": ["nobody"]})),
        (
            "delete_observations",
            json!({"deletions": [{"entityName": "nobody", "observations": ["x"]}]}),
        ),
        (
            "delete_relations",
            json!({"relations": [relation("a", "b", "c")]}),
        ),
    ]
}

#[test]
fn notification_only_when_subscribed_to_graph_uri() {
    let (mut m, _) = fresh();
    let out = call_all(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    assert_eq!(out.len(), 1, "{out:?}");
    request(
        &mut m,
        "resources/subscribe",
        json!({"uri": "memory://other"}),
    );
    let out = call_all(
        &mut m,
        "create_entities",
        json!({"entities": [entity("B", "t", &[])]}),
    );
    assert_eq!(out.len(), 1, "subscribed to another URI: {out:?}");
}

#[test]
fn notification_precedes_reply_when_subscribed() {
    let (mut m, _) = fresh();
    let ack = request(&mut m, "resources/subscribe", json!({"uri": GRAPH_URI}));
    assert_eq!(ack["result"], json!({}));
    let raw = m.handle(
        &json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
            "name":"create_entities","arguments":{"entities":[entity("A","t",&[])]}}})
        .to_string(),
    );
    assert_eq!(raw.len(), 2, "{raw:?}");
    assert_eq!(
        raw[0],
        r#"{"method":"notifications/resources/updated","params":{"uri":"memory://knowledge-graph"},"jsonrpc":"2.0"}"#
    );
    assert!(raw[1].starts_with(r#"{"result":"#), "{}", raw[1]);
}

#[test]
fn notification_sent_for_noop_mutations() {
    let (mut m, log) = fresh();
    request(&mut m, "resources/subscribe", json!({"uri": GRAPH_URI}));
    for (tool, args) in noop_mutations() {
        let out = call_all(&mut m, tool, args);
        assert_eq!(out.len(), 2, "{tool}: {out:?}");
        assert_eq!(out[0], updated(), "{tool}");
    }
    assert_eq!(log.appends(), 0, "no-ops append nothing");
}

#[test]
fn no_notification_for_failed_calls_or_reads() {
    let (mut m, _) = fresh();
    request(&mut m, "resources/subscribe", json!({"uri": GRAPH_URI}));
    let quiet = [
        (
            "add_observations",
            json!({"observations": [{"entityName": "nobody", "contents": ["x"]}]}),
        ),
        ("create_entities", json!({"entities": [{"name": 1}]})),
        ("delete_entities", json!({})),
        ("no_such_tool", json!({})),
        ("read_graph", json!({})),
        ("search_nodes", json!({"query": ""})),
        ("open_nodes", json!({"names": []})),
    ];
    for (tool, args) in quiet {
        let out = call_all(&mut m, tool, args);
        assert_eq!(out.len(), 1, "{tool}: {out:?}");
    }
}

/// A change that reached the log but not stable storage is in the graph: subscribers must
/// hear of it even though the call reports an error; a refused append changed nothing.
#[test]
fn notification_follows_the_graph_when_durability_fails() {
    let (mut m, log) = fresh();
    request(&mut m, "resources/subscribe", json!({"uri": GRAPH_URI}));
    log.fail_next_sync("EIO");
    let out = call_all(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[0], updated());
    assert_eq!(out[1]["result"]["isError"], json!(true));
    log.fail_next_append("ENOSPC");
    let out = call_all(
        &mut m,
        "create_entities",
        json!({"entities": [entity("B", "t", &[])]}),
    );
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["result"]["isError"], json!(true));
}

#[test]
fn unsubscribe_stops_notifications_for_graph_uri_only() {
    let (mut m, _) = fresh();
    request(&mut m, "resources/subscribe", json!({"uri": GRAPH_URI}));
    request(
        &mut m,
        "resources/unsubscribe",
        json!({"uri": "memory://other"}),
    );
    let out = call_all(&mut m, "delete_entities", json!({"entityNames": []}));
    assert_eq!(out.len(), 2, "unsubscribing another URI keeps this one");
    let ack = request(&mut m, "resources/unsubscribe", json!({"uri": GRAPH_URI}));
    assert_eq!(ack["result"], json!({}));
    let out = call_all(&mut m, "delete_entities", json!({"entityNames": []}));
    assert_eq!(out.len(), 1, "{out:?}");
}

/// The notices waiting are one: the graph's update, for `session`.
fn assert_one_update_for(m: &mut Server<MemLog>, session: u32) {
    let notices = m.take_notices();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert_eq!(notices[0].0, session);
    assert_eq!(
        serde_json::from_str::<Value>(&notices[0].1).unwrap(),
        updated()
    );
}

/// A poll (the host heard another process changed the log) tells every subscriber, as
/// notices; with no subscriber it does not even read the log.
#[test]
fn a_poll_catches_up_and_tells_subscribers_through_notices() {
    let (mut m, log) = fresh();
    // Another process's change: made on a copy of the log, appended to this one.
    let (mut other, other_log) = fresh();
    let mut change_elsewhere = |name: &str| {
        create(&mut other, &[entity(name, "t", &[])]);
        log.append_as_other_writer(other_log.records().last().unwrap().clone());
    };
    change_elsewhere("A");
    let refreshes = log.refreshes();
    m.poll();
    assert_eq!(log.refreshes(), refreshes, "no subscriber: nothing read");
    assert!(m.take_notices().is_empty());

    let subscribe = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe",
        "params": {"uri": GRAPH_URI}});
    assert_eq!(m.handle_in(7, 0, &subscribe.to_string()).len(), 1);
    for name in ["B", "C"] {
        m.poll();
        assert_one_update_for(&mut m, 7);
        m.poll();
        assert!(m.take_notices().is_empty(), "nothing new since");
        change_elsewhere(name);
    }
    assert_eq!(
        graph(&mut m)["entities"].as_array().map(Vec::len),
        Some(3),
        "the graph caught up"
    );
}

/// Several clients on one memory (network transports): a subscription belongs to the
/// session that made it, and another session's change reaches it as a notice.
#[test]
fn sessions_subscribe_separately_and_hear_each_others_changes_as_notices() {
    let (mut m, _) = fresh();
    let line = |id: u32, method: &str, params: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    };
    let subscribe = line(1, "resources/subscribe", json!({"uri": GRAPH_URI}));
    assert_eq!(m.handle_in(7, 0, &subscribe).len(), 1);
    let create = line(
        2,
        "tools/call",
        json!({"name": "create_entities", "arguments": {"entities": [entity("A", "t", &[])]}}),
    );
    let out = m.handle_in(3, 0, &create);
    assert_eq!(
        out.len(),
        1,
        "session 3 did not subscribe: only its reply: {out:?}"
    );
    assert_one_update_for(&mut m, 7);
    assert!(m.take_notices().is_empty(), "taken once");

    let out = m.handle_in(7, 0, &create);
    assert_eq!(
        out.len(),
        2,
        "the subscriber's own change: notification, then reply"
    );
    assert!(m.take_notices().is_empty(), "nobody else subscribed");

    m.handle_in(3, 0, &create);
    m.end_session(7);
    assert!(
        m.take_notices().is_empty(),
        "an ended session's notices are dropped"
    );
    m.handle_in(3, 0, &create);
    assert!(m.take_notices().is_empty(), "and it hears nothing more");
}

// ---------------------------------------------------------------------------------------------
// Reference memory files (deliberate difference 3)
// ---------------------------------------------------------------------------------------------

#[test]
fn foreign_file_with_bom_null_lines_or_missing_observations_is_repaired_with_warnings() {
    let file = format!(
        "\u{feff}{}\nnull\n{}\n{}",
        entity_line("A", "t", &["x"]),
        r#"{"type":"entity","name":"B","entityType":"t"}"#,
        relation_line("A", "B", "r")
    );
    let log = MemLog::foreign(file.as_bytes());
    let (mut m, warnings) = open_with_warnings(log.clone());
    assert_eq!(warnings.len(), 4, "{warnings:?}");
    assert!(warnings[0].contains("byte order mark"), "{warnings:?}");
    assert!(
        warnings.iter().any(|w| w.contains("1 line(s)")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("without `observations`"))
    );
    assert!(warnings[3].contains("converted"), "{warnings:?}");
    let want = graph_of(
        &[entity("A", "t", &["x"]), entity("B", "t", &[])],
        &[relation("A", "B", "r")],
    );
    assert_eq!(graph(&mut m), want);
    assert_eq!(log.replaces(), 1, "the file was converted to records");
    let mut replayed = open(log.reopened());
    assert_eq!(graph(&mut replayed), want);
    // Tools work, including add_observations on the entity that had no observations.
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "B", "contents": ["y"]}]}),
    );
}

fn assert_refused(file: &[u8], line: usize) {
    let log = MemLog::foreign(file);
    let (mut m, warnings) = open_with_warnings(log.clone());
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    for (tool, args) in [
        ("read_graph", json!({})),
        ("search_nodes", json!({"query": ""})),
        ("open_nodes", json!({"names": ["A"]})),
        (
            "create_entities",
            json!({"entities": [entity("N", "t", &[])]}),
        ),
        ("delete_entities", json!({"entityNames": ["A"]})),
    ] {
        let err = call_err(&mut m, tool, args);
        assert!(err.contains(&format!("line {line}:")), "{tool}: {err}");
        assert!(err.contains("left untouched"), "{tool}: {err}");
    }
    assert_eq!(log.replaces(), 0, "the file was not converted");
    assert_eq!(log.appends(), 0);
    assert_eq!(
        log.contents(),
        Contents::Foreign(file.to_vec().into()),
        "file untouched"
    );
}

#[test]
fn foreign_file_with_non_json_line_is_refused_and_left_untouched() {
    let file = format!("{}\n{{not json\n", entity_line("A", "t", &[]));
    assert_refused(file.as_bytes(), 2);
}

#[test]
fn foreign_file_with_wrongly_typed_fields_is_refused_and_left_untouched() {
    for (bad, line) in [
        (
            r#"{"type":"entity","name":5,"entityType":"t","observations":[]}"#,
            2,
        ),
        (
            r#"{"type":"entity","name":"B","entityType":"t","observations":[1,"x"]}"#,
            2,
        ),
        (
            r#"{"type":"entity","name":"B","entityType":"t","observations":"x"}"#,
            2,
        ),
        (r#"{"type":"relation","from":"A","to":"B"}"#, 2),
    ] {
        let file = format!(
            "{}\n{bad}\n{}",
            entity_line("A", "t", &[]),
            entity_line("C", "t", &[])
        );
        assert_refused(file.as_bytes(), line);
    }
}

#[test]
fn failed_foreign_conversion_fails_tools_and_leaves_file_untouched() {
    let file = entity_line("A", "t", &[]);
    let log = MemLog::foreign(file.as_bytes());
    log.fail_next_replace("read-only file system");
    let (mut m, warnings) = open_with_warnings(log.clone());
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].contains("read-only file system"),
        "{warnings:?}"
    );
    let err = call_err(&mut m, "read_graph", json!({}));
    assert!(err.contains("read-only file system"), "{err}");
    assert_eq!(log.contents(), Contents::Foreign(file.into_bytes().into()));
}

// ---------------------------------------------------------------------------------------------
// import (the hosts' import command)
// ---------------------------------------------------------------------------------------------

#[test]
fn import_jsonl_merges_new_names_missing_observations_and_new_relations() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &["x"])]);
    relate(&mut m, &[relation("A", "B", "r")]);
    let file = [
        entity_line("A", "other type", &["x", "y"]),
        entity_line("C", "t", &["z"]),
        relation_line("A", "B", "r"),
        relation_line("C", "A", "s"),
        entity_line("C", "dup", &["w"]),
    ]
    .join("\n");
    let summary = m.import(file.as_bytes(), 0).expect("imports");
    assert!(summary.starts_with("imported 1 new entities"), "{summary}");
    assert!(summary.contains("1 new relations"), "{summary}");
    let want = graph_of(
        &[entity("A", "t", &["x", "y"]), entity("C", "t", &["z", "w"])],
        &[relation("A", "B", "r"), relation("C", "A", "s")],
    );
    assert_eq!(graph(&mut m), want);
    let mut replayed = open(log.reopened());
    assert_eq!(graph(&mut replayed), want, "the import was logged");
}

/// Importing into an empty memory is opening the file: duplicates stay, as a conversion keeps them.
#[test]
fn import_into_an_empty_memory_brings_the_files_graph_exactly() {
    let file = [
        entity_line("A", "t", &["x", "x"]),
        entity_line("A", "dup", &["y"]),
        relation_line("A", "B", "r"),
        relation_line("A", "B", "r"),
    ]
    .join("\n");
    let (mut converted, _) = from_jsonl(std::slice::from_ref(&file));
    let (mut m, log) = fresh();
    let summary = m.import(file.as_bytes(), 0).expect("imports");
    assert!(
        summary.starts_with("imported 2 entities and 2 relations"),
        "{summary}"
    );
    assert_eq!(graph(&mut m), graph(&mut converted));
    assert_eq!(
        graph(&mut open(log.reopened())),
        graph(&mut converted),
        "logged"
    );
}

/// An import is one record: a crash or a refused append can never leave half of it.
#[test]
fn import_is_one_record_and_a_refused_append_leaves_nothing_half_imported() {
    let file = [
        entity_line("A", "t", &["x"]),
        entity_line("B", "t", &["y"]),
        relation_line("A", "B", "r"),
    ]
    .join("\n");
    let more = [entity_line("A", "t", &["z"]), entity_line("C", "t", &[])].join("\n");
    let (mut m, log) = fresh();
    m.import(file.as_bytes(), 0)
        .expect("imports into the empty memory");
    assert_eq!(log.appends(), 1, "into an empty memory: one record");
    m.import(more.as_bytes(), 0).expect("merges");
    assert_eq!(log.appends(), 2, "a merge: one record");
    let before = graph(&mut m);
    log.fail_next_append("disk full");
    let err = m
        .import(
            [entity_line("D", "t", &["w"]), relation_line("D", "A", "s")]
                .join("\n")
                .as_bytes(),
            0,
        )
        .unwrap_err();
    assert!(
        matches!(&err, Error::Log { op: LogOp::Append, error } if error.0 == "disk full"),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "The change was not saved: disk full");
    assert_eq!(
        graph(&mut m),
        before,
        "nothing of the refused import applies"
    );
    assert_eq!(graph(&mut open(log.reopened())), before);
}

#[test]
fn import_jsonl_of_unreadable_file_changes_nothing() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &[])]);
    let file = format!("{}\n{{oops", entity_line("B", "t", &[]));
    let err = m.import(file.as_bytes(), 0).unwrap_err();
    assert!(
        matches!(&err, Error::ImportRefused(r) if r.starts_with("line 2:")),
        "{err:?}"
    );
    assert_eq!(graph(&mut m), graph_of(&[entity("A", "t", &[])], &[]));
    assert_eq!(log.len(), 1);
}

#[test]
fn export_log_is_a_log_file_that_imports_into_the_same_graph() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[entity("A", "t", &["x", "x"]), entity("B", "u", &[])],
    );
    relate(&mut m, &[relation("A", "B", "r"), relation("B", "Z", "s")]);
    let file = m.memory_mut().export_log().expect("exports");
    assert!(frame::is_log(&file));
    let (mut other, log) = fresh();
    let summary = other.import(&file, 0).expect("imports");
    assert!(
        summary.starts_with(
            "copied the log's 2 records into the empty memory: 2 entities and 2 relations"
        ),
        "{summary}"
    );
    assert_eq!(graph(&mut other), graph(&mut m));
    assert_eq!(graph(&mut open(log.reopened())), graph(&mut m), "logged");
    let records: Vec<Vec<u8>> = (frame::scan(&file).unwrap().records.iter())
        .map(|r| r.to_vec())
        .collect();
    assert_eq!(log.records(), records, "the file's records, as they were");

    // A memory that has logged something merges the file in (one new record).
    let (mut third, log) = fresh();
    create(&mut third, &[entity("C", "t", &[])]);
    let summary = third.import(&file, 0).expect("imports");
    assert!(summary.starts_with("imported 2 new entities"), "{summary}");
    assert_eq!(log.len(), 2);
}

#[test]
fn import_of_a_log_with_a_torn_tail_keeps_the_whole_records_and_says_so() {
    let (mut m, _) = fresh();
    create(&mut m, &[entity("A", "t", &[])]);
    let mut file = m.memory_mut().export_log().expect("exports");
    let whole = file.len();
    let mut more = Vec::new();
    frame::encode_frame(b"half a record", &mut more);
    file.extend_from_slice(&more[..more.len() - 3]);
    let (mut other, _) = fresh();
    let summary = other.import(&file, 0).expect("imports");
    assert!(
        summary.contains(&format!("torn tail at offset {whole}")),
        "{summary}"
    );
    assert_eq!(graph(&mut other), graph_of(&[entity("A", "t", &[])], &[]));
}

#[test]
fn import_of_a_corrupt_log_changes_nothing() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &[])]);
    let mut file = m.memory_mut().export_log().expect("exports");
    file.extend_from_slice(&file.clone()[frame::HEADER_LEN..]);
    let flip = frame::HEADER_LEN + 14;
    file[flip] ^= 0xff;
    let err = m.import(&file, 0).unwrap_err();
    assert!(
        matches!(&err, Error::ImportRefused(r) if r.contains("corrupt record at byte offset")),
        "{err:?}"
    );
    assert_eq!(log.len(), 1);
}

/// search_nodes answers the reference's set, best match first: a name beats an observation,
/// a whole word beats the start of one, and a match inside a word comes last.
#[test]
fn search_nodes_orders_the_reference_set_by_relevance() {
    let (mut m, _) = fresh();
    create(
        &mut m,
        &[
            entity("Ann", "person", &["collects steam engines"]),
            entity("Bo", "person", &["drinks green tea daily"]),
            entity("Tea", "drink", &[]),
            entity("Cy", "person", &["owns a teapot"]),
        ],
    );
    assert_eq!(
        entity_names(&search(&mut m, "tea")),
        ["Tea", "Bo", "Cy", "Ann"]
    );
}

// ---------------------------------------------------------------------------------------------
// compact
// ---------------------------------------------------------------------------------------------

#[test]
fn compact_replaces_the_log_with_the_graph_and_drops_deleted_text() {
    let (mut m, log) = fresh();
    create(
        &mut m,
        &[
            entity("A", "t", &["keep"]),
            entity("Gone", "t", &["secret"]),
        ],
    );
    relate(
        &mut m,
        &[relation("A", "Gone", "r"), relation("A", "B", "s")],
    );
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["Gone"]}));
    let before = graph(&mut m);
    assert_eq!(log.len(), 3);
    assert_eq!(
        m.memory_mut().compact(),
        Ok(1),
        "the graph as one checkpoint"
    );
    assert_eq!(log.replaces(), 1);
    assert!(
        !log.records().concat().windows(6).any(|w| w == b"secret"),
        "deleted text is gone from the log"
    );
    assert_eq!(graph(&mut m), before);
    assert_eq!(
        graph(&mut open(log.reopened())),
        before,
        "replay gives the same graph"
    );
}

/// Adds `text` to entity A and deletes it again.
fn add_and_delete(m: &mut Server<MemLog>, text: &str) {
    call_ok(
        m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": [text]}]}),
    );
    call_ok(
        m,
        "delete_observations",
        json!({"deletions": [{"entityName": "A", "observations": [text]}]}),
    );
}

/// A log that is mostly deleted text past the threshold rewrites itself without a `compact`
/// call; one that is mostly live data is left alone.
#[test]
fn mostly_dead_log_is_compacted_automatically_and_a_live_one_is_not() {
    let big = "x".repeat(60_000);
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &["keep"])]);
    for i in 0..40 {
        add_and_delete(&mut m, &format!("{i} {big}"));
    }
    assert!(log.replaces() >= 1, "2.4 MB written, all of it deleted");
    let size: usize = log.records().iter().map(Vec::len).sum();
    assert!(
        size < 1 << 20,
        "the log shrank to its live part ({size} bytes)"
    );
    let want = graph_of(&[entity("A", "t", &["keep"])], &[]);
    assert_eq!(graph(&mut m), want);
    assert_eq!(graph(&mut open(log.reopened())), want);

    let (mut live, log) = fresh();
    create(&mut live, &[entity("A", "t", &[])]);
    for i in 0..40 {
        let text = format!("{i} {big}");
        call_ok(
            &mut live,
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": [text]}]}),
        );
    }
    // Nothing is dead but the checkpoints later ones superseded, which compaction drops.
    let records = log.records();
    let total: usize = records.iter().map(Vec::len).sum();
    assert!(
        total < 3 * 40 * big.len(),
        "live changes, and checkpoints of at most their size ({total} bytes)"
    );
    assert!(records.iter().filter(|r| is_checkpoint(r)).count() <= 2);
    let want = graph(&mut live);
    assert_eq!(graph(&mut open(log.reopened())), want);
}

/// The log of a memory keeping history (its changes have times) that only grew: `count`
/// observations of 60 KB added to one entity.
fn grown_with_history(count: usize) -> MemLog {
    let big = "x".repeat(60_000);
    let (mut m, log) = fresh();
    at(&mut m, 1_800_000_000_000);
    create(&mut m, &[entity("A", "t", &[])]);
    for i in 0..count {
        call_ok(
            &mut m,
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": [format!("{i} {big}")]}]}),
        );
    }
    log
}

/// Reopening a live log past the threshold does not make its first change pay for a look
/// at the whole log (at 40K entities that read and replayed it all: 0.2 s).
#[test]
fn the_first_change_after_opening_does_not_read_the_whole_log() {
    let log = grown_with_history(40);
    let reopened = log.reopened();
    let mut m = open(reopened.clone());
    at(&mut m, 1_800_000_001_000);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["one more"]}]}),
    );
    assert_eq!(reopened.entries_reads(), 0);
}

/// A memory that only grows, with history kept, never has a dead half: after the first
/// look it does not read the whole log again to find that out (it did at every doubling,
/// holding the whole log in memory each time: 6 MiB more peak during a 40K bulk load).
#[test]
fn a_growing_memory_keeping_history_reads_its_whole_log_once() {
    let log = grown_with_history(80);
    let size: usize = log.records().iter().map(Vec::len).sum();
    assert!(
        size > 8 << 20,
        "past three doublings of the first look ({size})"
    );
    assert_eq!(log.entries_reads(), 1);
    assert_eq!(log.replaces(), 0);
}

/// Changes that age past the history kept become dead: the estimate that spares a growing
/// memory its looks does not keep an aging one from compacting.
#[test]
fn history_older_than_kept_is_compacted_away_automatically() {
    let big = "x".repeat(60_000);
    let (mut m, log) = fresh();
    m.memory_mut().set_history(DAY_MS);
    create(&mut m, &[entity("A", "t", &["keep"])]);
    for i in 0..40u64 {
        at(&mut m, 1_800_000_000_000 + i * DAY_MS / 4);
        add_and_delete(&mut m, &format!("{i} {big}"));
    }
    assert!(
        log.replaces() >= 1,
        "2.4 MB written and deleted over ten days"
    );
    let size: usize = log.records().iter().map(Vec::len).sum();
    assert!(
        size < 2 * 8 * big.len(),
        "at most two days of changes (and a checkpoint) are left ({size} bytes)"
    );
    let want = graph_of(&[entity("A", "t", &["keep"])], &[]);
    assert_eq!(graph(&mut open(log.reopened())), want);
}

#[test]
fn compact_that_the_log_refuses_leaves_log_and_graph_as_they_were() {
    let (mut m, log) = fresh();
    create(&mut m, &[entity("A", "t", &[])]);
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["A"]}));
    log.fail_next_replace("disk full");
    let err = m.memory_mut().compact().unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Log {
                op: LogOp::Replace,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "the log was not compacted: disk full");
    assert_eq!(log.len(), 2);
    assert_eq!(graph(&mut open(log.reopened())), graph_of(&[], &[]));
}

/// An export must not pass off a memory whose file could not be read as an empty one.
#[test]
fn export_of_an_unavailable_memory_is_an_error_not_an_empty_file() {
    let mut m = open(MemLog::foreign(b"{not json\n"));
    let err = m.memory_mut().export_jsonl().unwrap_err();
    assert!(
        matches!(&err, Error::Unavailable(r) if r.contains("line 1")),
        "{err:?}"
    );
}
