//! Request limits: a call over one fails whole, naming the limit and where, and changes
//! nothing; a call at the limit passes.

use crate::common::*;
use mcp_memory_core::tools::limits::{
    MAX_ITEMS, MAX_MESSAGE_BYTES, MAX_NAME_BYTES, MAX_OBSERVATION_BYTES,
};
use serde_json::{Value, json};

#[test]
fn a_name_over_1_kib_is_refused_naming_where_and_one_at_the_limit_passes() {
    let (mut m, log) = fresh();
    let long = "n".repeat(MAX_NAME_BYTES + 1);
    let err = call_err(
        &mut m,
        "create_entities",
        json!({"entities": [entity("ok", "t", &[]), entity(&long, "t", &[])]}),
    );
    assert_eq!(
        err,
        "Request limit exceeded in create_entities: entities[1].name: a name of 1025 bytes exceeds the limit of 1024 bytes"
    );
    assert_eq!(log.len(), 0, "nothing of the call was stored");
    let at_limit = "n".repeat(MAX_NAME_BYTES);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity(&at_limit, "t", &[])]}),
    );
    let err = call_err(
        &mut m,
        "create_relations",
        json!({"relations": [relation("a", "b", &long)]}),
    );
    assert!(
        err.contains("relations[0].relationType: a name of 1025 bytes"),
        "{err}"
    );
}

#[test]
fn an_observation_over_64_kib_is_refused() {
    let (mut m, log) = fresh();
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    let big = "o".repeat(MAX_OBSERVATION_BYTES + 1);
    let err = call_err(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["fine", big]}]}),
    );
    assert!(
        err.contains("observations[0].contents[1]: an observation of 65537 bytes"),
        "{err}"
    );
    assert_eq!(log.len(), 1);
    let fits = "o".repeat(MAX_OBSERVATION_BYTES);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": [fits]}]}),
    );
}

#[test]
fn more_than_1000_items_in_one_list_are_refused() {
    let (mut m, log) = fresh();
    let many: Vec<Value> = (0..=MAX_ITEMS)
        .map(|i| entity(&format!("e{i}"), "t", &[]))
        .collect();
    let err = call_err(&mut m, "create_entities", json!({"entities": many}));
    assert_eq!(
        err,
        "Request limit exceeded in create_entities: entities: 1001 items exceed the limit of 1000 per request"
    );
    assert_eq!(log.len(), 0);
    let names: Vec<String> = (0..=MAX_ITEMS).map(|i| format!("e{i}")).collect();
    let err = call_err(&mut m, "open_nodes", json!({"names": names}));
    assert!(err.contains("names: 1001 items"), "{err}");
}

#[test]
fn a_message_over_16_mib_gets_an_invalid_request_error() {
    let (mut m, log) = fresh();
    let padding = "p".repeat(MAX_MESSAGE_BYTES);
    let message = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "create_entities", "arguments": {"entities": [], "pad": padding}}});
    let replies = m.handle(&message.to_string());
    let reply: Value = serde_json::from_str(&replies[0]).unwrap();
    assert_eq!(reply["id"], 5);
    assert_eq!(reply["error"]["code"], -32600);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("exceeds the limit of 16777216 bytes")
    );
    assert_eq!(log.len(), 0);
}
