//! Several writers on one log (two MCP clients on one memory file): each memory catches up
//! with the others' records before it answers, so none works on a stale graph.

use crate::common::model::Model;
use crate::common::ops;
use crate::common::*;
use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::model::Entity;
use mcp_memory_core::record::{Op, Record};
use proptest::prelude::*;
use serde_json::json;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    /// Calls spread over three memories on one log answer exactly as one reference server
    /// receiving all of them in order: every memory sees every other's changes.
    #[test]
    fn interleaved_writers_answer_as_one_server(calls in prop::collection::vec((0..3usize, ops::op()), 1..60)) {
        // One memory file, three processes.
        let dir = MemDir::new();
        let mut memories: Vec<_> = (1..=3)
            .map(|pid| open(FileLog::new(dir.open("memory.mcpmem", pid))))
            .collect();
        let mut model = Model::default();
        for (who, op) in &calls {
            ops::apply(&mut memories[*who], &mut model, op);
            // As a host does after each reply: the next process may write.
            memories[*who].memory_mut().log_mut().unlock();
        }
        for m in &mut memories {
            prop_assert_eq!(graph(m), model.read_graph());
        }
    }
}

fn create_record(name: &str) -> Vec<u8> {
    Record::from(Op::CreateEntities(vec![Entity {
        name,
        entity_type: "t",
        observations: vec![],
    }]))
    .encode()
}

#[test]
fn another_writers_record_is_seen_and_subscribers_hear_of_it() {
    let log = MemLog::new();
    let mut m = open(log.clone());
    request(
        &mut m,
        "resources/subscribe",
        json!({"uri": "memory://knowledge-graph"}),
    );
    log.append_as_other_writer(create_record("Elsewhere"));
    let out = call_all(&mut m, "open_nodes", json!({"names": ["Elsewhere"]}));
    assert_eq!(out.len(), 2, "notification, then the reply: {out:?}");
    assert_eq!(out[0]["method"], "notifications/resources/updated");
    assert_eq!(
        out[1]["result"]["structuredContent"]["entities"][0]["name"],
        "Elsewhere"
    );
    // Nothing new: no notification.
    let out = call_all(&mut m, "read_graph", json!({}));
    assert_eq!(out.len(), 1, "{out:?}");
}

#[test]
fn a_log_replaced_by_another_writer_is_reread_whole() {
    let log = MemLog::new();
    let mut m = open(log.clone());
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Mine", "t", &[])]}),
    );
    log.replace_as_other_writer(vec![create_record("Theirs")]);
    assert_eq!(graph(&mut m), graph_of(&[entity("Theirs", "t", &[])], &[]));
}

#[test]
fn resources_read_catches_up_but_ping_does_not_touch_the_log() {
    let log = MemLog::new();
    let mut m = open(log.clone());
    request(&mut m, "ping", json!({}));
    request(&mut m, "tools/list", json!({}));
    assert_eq!(log.refreshes(), 0);
    log.append_as_other_writer(create_record("Elsewhere"));
    let read = request(
        &mut m,
        "resources/read",
        json!({"uri": "memory://knowledge-graph"}),
    );
    assert!(
        read["result"]["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Elsewhere")
    );
    assert_eq!(log.refreshes(), 1);
}

/// A record this version cannot decode must stop the memory from writing on top of a log it
/// does not understand, and later appends must not be applied over the gap.
#[test]
fn an_unknown_record_from_another_writer_makes_tools_fail_until_the_log_is_replaced() {
    let log = MemLog::new();
    let mut m = open(log.clone());
    log.append_as_other_writer(vec![200, 1, 0]);
    let err = call_err(&mut m, "read_graph", json!({}));
    assert!(err.contains("newer mcp-memory"), "{err}");
    log.append_as_other_writer(create_record("After"));
    let err = call_err(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Mine", "t", &[])]}),
    );
    assert!(err.contains("newer mcp-memory"), "{err}");
    assert_eq!(
        log.appends(),
        0,
        "nothing written after the unreadable record"
    );
    log.replace_as_other_writer(vec![create_record("Fresh")]);
    assert_eq!(graph(&mut m), graph_of(&[entity("Fresh", "t", &[])], &[]));
}

/// A failing refresh is reported on the call and changes nothing.
#[test]
fn unreadable_log_fails_the_call_without_changing_anything() {
    let log = MemLog::new();
    let mut m = open(log.clone());
    log.fail_next_refresh("EIO");
    let err = call_err(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    assert_eq!(err, "cannot read the memory log: EIO");
    assert_eq!(log.appends(), 0);
}
