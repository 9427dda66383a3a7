//! Random tool calls for property tests, and their application to a [`Memory`] and to the
//! reference [`Model`] at once, checking that every reply is the reference's.

use mcp_memory_core::{Log, Server};
use proptest::prelude::*;
use serde_json::{Value, json};

use super::model::{Ent, Model, Rel};
use super::{
    assert_search_superset, call_err, call_raw, js_pretty, reference_success_line, request,
};

const GRAPH_URI: &str = "memory://knowledge-graph";

/// Names: case variants, Unicode case traps, the empty string, a leading space,
/// NFC/NFD twins, and a name no call ever creates an entity for but relations may use.
pub const NAMES: &[&str] = &[
    "Alice",
    "alice",
    "ΟΔΟΣ",
    "οδοσ",
    "İstanbul",
    "",
    " Alice",
    "\u{e9}",
    "e\u{301}",
    "Ghost",
];

/// Entity and relation types.
pub const TYPES: &[&str] = &["person", "Person", "", "knows"];

/// Observations: case variants, sigmas, sharp s, emoji, escapes and the empty string.
pub const OBSERVATIONS: &[&str] = &[
    "x",
    "X",
    "",
    "ς",
    "σ",
    "straße",
    "STRASSE",
    "😀",
    "line\nbreak \"quoted\" \\ /",
    "i\u{307}",
    "\u{212a}elvin",
    "ctl \u{0}\u{1}\u{8}\u{b}\u{c}\u{1f}\u{7f} \u{2028}\u{2029}\t\r </script> \u{fffd}\u{7f}",
];

/// Search queries: every pool string plus short fragments.
pub fn queries() -> Vec<&'static str> {
    let mut q: Vec<&str> = NAMES
        .iter()
        .chain(TYPES)
        .chain(OBSERVATIONS)
        .copied()
        .collect();
    q.extend(["s", "i", "I", "ss", "SS", "k", "K", "Σ", "e", "ALI", " "]);
    // Longer fragments, including ones whose lowercase form differs in length or crosses a
    // combining mark (İ lowercases to two code points).
    q.extend([
        "LINE",
        "quoted\"",
        "traß",
        "STRAß",
        "aße",
        "\u{307}st",
        "i\u{307}s",
        "İSTAN",
        "οδος",
        "ΟΔΟ",
        "😀",
        "\u{212a}elv",
        "lvin",
        "reak \"",
        " Ali",
    ]);
    q
}

/// One tool call, with strings as indexes into the pools.
#[derive(Clone, Debug)]
pub enum Op {
    /// create_entities.
    CreateEntities(Vec<(usize, usize, Vec<usize>)>),
    /// create_relations.
    CreateRelations(Vec<(usize, usize, usize)>),
    /// add_observations.
    AddObservations(Vec<(usize, Vec<usize>)>),
    /// delete_entities.
    DeleteEntities(Vec<usize>),
    /// delete_observations.
    DeleteObservations(Vec<(usize, Vec<usize>)>),
    /// delete_relations.
    DeleteRelations(Vec<(usize, usize, usize)>),
    /// read_graph.
    ReadGraph,
    /// search_nodes.
    SearchNodes(usize),
    /// open_nodes.
    OpenNodes(Vec<usize>),
    /// A call with invalid arguments (index into [`INVALID`]).
    Invalid(usize),
}

/// Calls whose arguments fail validation: they must change nothing.
pub const INVALID: &[(&str, &str)] = &[
    (
        "create_entities",
        r#"{"entities":[{"name":1,"entityType":"t","observations":[]}]}"#,
    ),
    (
        "create_entities",
        r#"{"entities":[{"name":"Alice","entityType":"t"}]}"#,
    ),
    (
        "create_relations",
        r#"{"relations":[{"from":"Alice","to":null,"relationType":"r"}]}"#,
    ),
    (
        "add_observations",
        r#"{"observations":[{"entityName":"Alice","contents":"x"}]}"#,
    ),
    ("delete_entities", r#"{"entityNames":"Alice"}"#),
    (
        "delete_observations",
        r#"{"deletions":[{"entityName":"Alice"}]}"#,
    ),
    ("delete_relations", r#"{}"#),
    ("search_nodes", r#"{"query":5}"#),
    ("open_nodes", r#"{"names":[true]}"#),
];

fn name() -> impl Strategy<Value = usize> {
    0..NAMES.len()
}
fn ty() -> impl Strategy<Value = usize> {
    0..TYPES.len()
}
fn obs() -> impl Strategy<Value = usize> {
    0..OBSERVATIONS.len()
}
fn obs_list() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(obs(), 0..4)
}
fn triples() -> impl Strategy<Value = Vec<(usize, usize, usize)>> {
    prop::collection::vec((name(), name(), ty()), 0..4)
}

/// Any tool call, mutations weighted up.
pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        16 => mutation(),
        1 => Just(Op::ReadGraph),
        2 => (0..queries().len()).prop_map(Op::SearchNodes),
        2 => prop::collection::vec(name(), 0..3).prop_map(Op::OpenNodes),
        1 => (0..INVALID.len()).prop_map(Op::Invalid),
    ]
}

/// Only calls that may change the graph.
pub fn mutation() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => prop::collection::vec((name(), ty(), obs_list()), 0..4).prop_map(Op::CreateEntities),
        3 => triples().prop_map(Op::CreateRelations),
        3 => prop::collection::vec((name(), obs_list()), 0..3).prop_map(Op::AddObservations),
        2 => prop::collection::vec(name(), 0..3).prop_map(Op::DeleteEntities),
        2 => prop::collection::vec((name(), obs_list()), 0..3).prop_map(Op::DeleteObservations),
        2 => triples().prop_map(Op::DeleteRelations),
    ]
}

fn s(pool: &[&str], i: usize) -> String {
    pool[i].to_string()
}
fn strings(pool: &[&str], ix: &[usize]) -> Vec<String> {
    ix.iter().map(|&i| s(pool, i)).collect()
}
fn rels(list: &[(usize, usize, usize)]) -> Vec<Rel> {
    list.iter()
        .map(|&(f, t, r)| Rel {
            from: s(NAMES, f),
            to: s(NAMES, t),
            relation_type: s(TYPES, r),
        })
        .collect()
}
fn rels_json(list: &[Rel]) -> Value {
    Value::Array(list.iter().map(Rel::json).collect())
}
fn named_lists(list: &[(usize, Vec<usize>)]) -> Vec<(String, Vec<String>)> {
    list.iter()
        .map(|(n, o)| (s(NAMES, *n), strings(OBSERVATIONS, o)))
        .collect()
}

/// Calls a tool that must succeed, checks that the reply is byte for byte the reference's
/// for the structuredContent it carries, and returns that structuredContent. The text is
/// the pretty JSON of the structuredContent, or of its `inner` field, or the `message`.
fn ok_with_text<L: Log>(memory: &mut Server<L>, tool: &str, args: Value, inner: &str) -> Value {
    let (id, lines) = call_raw(memory, tool, args);
    let line = lines.last().expect("a reply");
    let reply: Value = serde_json::from_str(line).expect("reply is JSON");
    let result = &reply["result"];
    assert!(result.get("isError").is_none(), "{tool} failed: {result}");
    let structured = result["structuredContent"].clone();
    let text = match inner {
        "" => js_pretty(&structured),
        "message" => structured["message"].as_str().expect("message").to_string(),
        field => js_pretty(&structured[field]),
    };
    assert_eq!(
        *line,
        reference_success_line(id, &text, &structured),
        "{tool}: reply bytes"
    );
    structured
}

/// Applies `op` to the memory and to the model and asserts the memory answers exactly as
/// the model. Returns whether the model changed.
pub fn apply<L: Log>(memory: &mut Server<L>, model: &mut Model, op: &Op) -> bool {
    let before = model.read_graph();
    match op {
        Op::CreateEntities(list) => {
            let input: Vec<Ent> = list
                .iter()
                .map(|(n, t, o)| Ent {
                    name: s(NAMES, *n),
                    entity_type: s(TYPES, *t),
                    observations: strings(OBSERVATIONS, o),
                })
                .collect();
            let args = json!({"entities": input.iter().map(Ent::json).collect::<Vec<_>>()});
            let got = ok_with_text(memory, "create_entities", args, "entities");
            let created = model.create_entities(&input);
            let want: Vec<Value> = created.iter().map(Ent::json).collect();
            assert_eq!(got, json!({"entities": want}), "create_entities {input:?}");
        }
        Op::CreateRelations(list) => {
            let input = rels(list);
            let args = json!({"relations": rels_json(&input)});
            let got = ok_with_text(memory, "create_relations", args, "relations");
            let created = model.create_relations(&input);
            assert_eq!(
                got,
                json!({"relations": rels_json(&created)}),
                "create_relations {input:?}"
            );
        }
        Op::AddObservations(list) => {
            let items = named_lists(list);
            let args = json!({"observations": items.iter()
                .map(|(n, c)| json!({"entityName": n, "contents": c}))
                .collect::<Vec<_>>()});
            match model.add_observations(&items) {
                Ok(results) => {
                    let got = ok_with_text(memory, "add_observations", args, "results");
                    let want: Vec<Value> = results
                        .iter()
                        .map(|(n, a)| json!({"entityName": n, "addedObservations": a}))
                        .collect();
                    assert_eq!(got, json!({"results": want}), "add_observations {items:?}");
                }
                Err(message) => {
                    assert_eq!(call_err(memory, "add_observations", args), message);
                }
            }
        }
        Op::DeleteEntities(list) => {
            let names = strings(NAMES, list);
            let got = ok_with_text(
                memory,
                "delete_entities",
                json!({"entityNames": names}),
                "message",
            );
            assert_eq!(
                got,
                json!({"success": true, "message": "Entities deleted successfully"})
            );
            model.delete_entities(&names);
        }
        Op::DeleteObservations(list) => {
            let items = named_lists(list);
            let args = json!({"deletions": items.iter()
                .map(|(n, o)| json!({"entityName": n, "observations": o}))
                .collect::<Vec<_>>()});
            let got = ok_with_text(memory, "delete_observations", args, "message");
            assert_eq!(
                got,
                json!({"success": true, "message": "Observations deleted successfully"})
            );
            model.delete_observations(&items);
        }
        Op::DeleteRelations(list) => {
            let input = rels(list);
            let got = ok_with_text(
                memory,
                "delete_relations",
                json!({"relations": rels_json(&input)}),
                "message",
            );
            assert_eq!(
                got,
                json!({"success": true, "message": "Relations deleted successfully"})
            );
            model.delete_relations(&input);
        }
        Op::ReadGraph => {
            let got = ok_with_text(memory, "read_graph", json!({}), "");
            assert_eq!(got, model.read_graph(), "read_graph");
            // The resource holds the same text as read_graph.
            let reply = request(memory, "resources/read", json!({"uri": GRAPH_URI}));
            assert_eq!(
                reply["result"],
                json!({"contents": [{"uri": GRAPH_URI, "mimeType": "application/json",
                                     "text": js_pretty(&got)}]}),
                "resources/read"
            );
        }
        Op::SearchNodes(q) => {
            let query = queries()[*q];
            let got = ok_with_text(memory, "search_nodes", json!({"query": query}), "");
            assert_search_superset(
                &got,
                &model.search_nodes(query),
                &format!("search_nodes {query:?}"),
            );
        }
        Op::OpenNodes(list) => {
            let names = strings(NAMES, list);
            let got = ok_with_text(memory, "open_nodes", json!({"names": names}), "");
            assert_eq!(got, model.open_nodes(&names), "open_nodes {names:?}");
        }
        Op::Invalid(i) => {
            let (tool, args) = INVALID[*i];
            let args: Value = serde_json::from_str(args).expect("valid JSON");
            let message = call_err(memory, tool, args);
            assert!(
                message.starts_with(&format!(
                    "MCP error -32602: Input validation error: Invalid arguments for tool {tool}: Invalid input: expected "
                )),
                "{message}"
            );
        }
    }
    model.read_graph() != before
}
