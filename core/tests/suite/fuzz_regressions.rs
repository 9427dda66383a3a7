//! Inputs the fuzz targets (`fuzz/`) found to break the core, one test each, with the
//! message that did it.

use crate::common::{MemLog, call_ok, entity_names, open};
use serde_json::json;

/// fuzz `handle`: `read_graph {"maxTokens": 18446744073709551615}` panicked with "attempt to
/// multiply with overflow" (tools/view.rs: the budget is maxTokens × 3 characters), and in
/// release builds, where the product wraps, maxTokens = ⌈2^64 / 3⌉ became a budget of 2
/// characters ("maxTokens … is too small for even one entity"). On wasm32, where the hosts
/// run the core, `as usize` also truncated limit and offset to 32 bits (limit 2^32 became 0).
#[test]
fn huge_counts_in_bounded_reads_saturate() {
    let mut memory = open(MemLog::new());
    call_ok(
        &mut memory,
        "create_entities",
        json!({"entities": [{"name": "a", "entityType": "t", "observations": ["o"]}]}),
    );
    for max_tokens in [u64::MAX, u64::MAX / 3 + 1, 1 << 62] {
        for (tool, mut args) in [
            ("read_graph", json!({})),
            ("search_nodes", json!({"query": "a"})),
            ("open_nodes", json!({"names": ["a"]})),
        ] {
            args["maxTokens"] = json!(max_tokens);
            let page = call_ok(&mut memory, tool, args);
            assert_eq!(entity_names(&page), ["a"], "{tool} maxTokens {max_tokens}");
            assert!(page.get("nextCursor").is_none());
        }
    }
    let page = call_ok(&mut memory, "read_graph", json!({"limit": 1u64 << 32}));
    assert_eq!(entity_names(&page), ["a"]);
    let page = call_ok(&mut memory, "read_graph", json!({"offset": 1u64 << 32}));
    assert!(entity_names(&page).is_empty());
    assert_eq!(page["total"], 1);
}

/// A record payload of `depth` batches, each holding the next, around an empty deletion.
fn nested_batches(depth: usize) -> Vec<u8> {
    let mut payload = [6u8, 1].repeat(depth);
    payload.extend_from_slice(&[3, 0]);
    payload
}

/// Seen writing the fuzz `replay` target, confirmed by running it on a crafted input (longer
/// than the 4 KB libFuzzer generates by default): a record of batches nested 100,000 deep (a
/// 200 KB frame of `[6, 1]` repeated) overflowed the stack in `Record::decode` — a segfault
/// of a native process (the component's 1 MiB wasm stack holds fewer levels still) — where a
/// damaged file must get an error. No writer nests batches, so the reader refuses a batch
/// inside a batch.
#[test]
fn nested_batches_are_refused_not_recursed() {
    use mcp_memory_core::model::Relation;
    use mcp_memory_core::record::{Op, Record};
    use mcp_memory_core::{Contents, OpenError, Server, frame};

    let t = Relation {
        from: "a",
        to: "b",
        relation_type: "r",
    };
    let flat = Record {
        stamp: None,
        ops: vec![Op::DeleteEntities(vec!["x"]), Op::CreateRelations(vec![t])],
    };
    assert_eq!(Record::decode(&flat.encode()), Ok(flat.clone()));
    assert_eq!(
        Record::decode(&nested_batches(1)),
        Ok(Record {
            stamp: None,
            ops: vec![Op::DeleteEntities(vec![])]
        })
    );
    for depth in [2, 100_000] {
        let payload = nested_batches(depth);
        assert!(Record::decode(&payload).is_err(), "depth {depth}");
        let log = MemLog::holding(Contents::Records(vec![payload.clone()]));
        match Server::open(log) {
            Err(OpenError::Record { index: 0, .. }) => {}
            Err(e) => panic!("depth {depth}: {e}"),
            Ok(_) => panic!("depth {depth}: opened"),
        }
        let mut memory = open(MemLog::new());
        let file = frame::encode_log([payload.as_slice()]);
        assert!(memory.import(&file, 0).is_err(), "depth {depth}");
        assert!(memory.memory_mut().export_jsonl().unwrap().is_empty());
    }
}

/// fuzz `handle`: "replay None vs live Ok([]) for log Records([[8, 8, 8, 8, 8, 8, 8, 8]])".
/// Another writer appended a checkpoint (one that does not decode) to an empty log; the live
/// memory skipped it, as it skips every checkpoint another writer appends (they restate what
/// it applied), and went on with an empty graph, while a restart refused the log, whose first
/// entry is that checkpoint: the state. Appended to an empty log, records are now read as a
/// restart reads them: a checkpoint that decodes becomes the graph, one that does not makes
/// the memory unavailable.
#[test]
fn a_checkpoint_appended_to_an_empty_log_is_its_state() {
    use mcp_memory_core::graph::Graph;
    use mcp_memory_core::model::Entity;
    use mcp_memory_core::record::{Op, Record};

    let log = MemLog::new();
    let mut memory = open(log.clone());
    log.append_as_other_writer(vec![8; 8]);
    let error = crate::common::call_err(&mut memory, "read_graph", json!({}));
    assert!(
        error.contains("Another process wrote to the memory log"),
        "{error}"
    );

    let mut graph = Graph::default();
    let a = Entity {
        name: "a",
        entity_type: "t",
        observations: vec!["o"],
    };
    graph.apply(&Record::from(Op::CreateEntities(vec![a])), &mut ());
    let log = MemLog::new();
    let mut memory = open(log.clone());
    log.append_as_other_writer(graph.checkpoint());
    let page = call_ok(&mut memory, "read_graph", json!({}));
    assert_eq!(entity_names(&page), ["a"]);
}

/// fuzz `handle`, on the seed corpus's `mcp-memory-py-core` session ("export_log does not
/// reopen to the same graph"): a relation ended while the host had given no time ended at
/// 0, and a snapshot restates an ended relation with its end time, 0 meaning "holds" — so
/// the compacted log brought it back. An end time is now never 0.
#[test]
fn a_relation_ended_without_a_time_stays_ended_in_the_compacted_log() {
    use mcp_memory_core::{Contents, Server, frame};

    let mut memory = open(MemLog::new());
    call_ok(
        &mut memory,
        "create_relations",
        json!({"relations": [{"from": "a", "to": "b", "relationType": "r"}]}),
    );
    call_ok(
        &mut memory,
        "end_relations",
        json!({"relations": [{"from": "a", "to": "b", "relationType": "r"}]}),
    );
    let live = memory.memory_mut().export_jsonl().expect("exports");
    assert!(live.is_empty(), "the relation ended");
    let bytes = memory.memory_mut().export_log().expect("compacts");
    let scan = frame::scan(&bytes).expect("scans");
    let records = scan.records.iter().map(|r| r.to_vec()).collect();
    let (mut reopened, _) =
        Server::open(MemLog::holding(Contents::Records(records))).expect("opens");
    assert_eq!(reopened.memory_mut().export_jsonl().expect("exports"), live);
}
