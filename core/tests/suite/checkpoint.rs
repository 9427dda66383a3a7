//! Checkpoints: the graph restated in the log so that opening starts at the last one. A
//! log with checkpoints must open, read back its history and verify exactly as the same log
//! without them; an unreadable or torn checkpoint costs time, never data.

use std::path::PathBuf;

use crate::common::*;
use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::graph::Graph;
use mcp_memory_core::memory::{CHECKPOINT_MIN_TAIL, CLOSE_MIN_TAIL, Memory};
use mcp_memory_core::record::{CHECKPOINT, Checkpoint, is_checkpoint};
use mcp_memory_core::testing::MemDir;
use mcp_memory_core::verify::{Problem, Report, Verdict, verify};
use mcp_memory_core::{Contents, Server, frame};
use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The entries of a committed fixture log.
fn fixture_entries(name: &str) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(fixture(name)).expect("a committed fixture");
    let scan = frame::scan(&bytes).expect("scans");
    scan.records.iter().map(|r| r.to_vec()).collect()
}

/// Everything a graph holds, as JSON.
fn state_of(graph: &Graph) -> Value {
    serde_json::to_value(graph.state()).expect("states serialize")
}

fn replayed(entries: &[Vec<u8>]) -> Graph {
    Graph::replay(entries).expect("replays").graph
}

/// Every op's effect (times, kinds, superseded observations, tags, parents, ended
/// relations, reflections, agents) survives a checkpoint, which re-encodes to its bytes;
/// the graph writes exactly what its rows (`Checkpoint`) encode to.
#[test]
fn a_checkpoint_restates_every_part_of_the_graph() {
    for name in [
        "v2-every-op.mcpmem",
        "v2-forget.mcpmem",
        "v2-restore.mcpmem",
        "v2-saved.mcpmem",
        "v1-every-record.mcpmem",
    ] {
        let graph = replayed(&fixture_entries(name));
        let bytes = graph.checkpoint();
        assert!(is_checkpoint(&bytes));
        let decoded = Checkpoint::decode(&bytes).expect("decodes");
        assert_eq!(
            decoded.encode(),
            bytes,
            "{name}: written as the rows encode"
        );
        let loaded = Graph::from_checkpoint(&bytes).expect("loads");
        assert_eq!(state_of(&loaded), state_of(&graph), "{name}");
        assert_eq!(loaded.checkpoint(), bytes, "{name}");
        assert_eq!(loaded.last_at(), graph.last_at(), "{name}");
        let strings = loaded.strings().len();
        assert_eq!(strings, graph.strings().len(), "{name}: each string once");
    }
}

/// The frozen checkpoint of the v2 fixture's graph loads to that fixture's expected state.
#[test]
fn frozen_checkpoint_loads_to_the_v2_state() {
    let entries = fixture_entries("v2-checkpoint.mcpmem");
    assert_eq!(entries.len(), 1);
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("v2-every-op.expected.json")).unwrap(),
    )
    .unwrap();
    let graph = replayed(&entries);
    assert_eq!(state_of(&graph), expected);
    assert_eq!(graph.checkpoint(), entries[0], "the encoding is frozen");
}

/// The frozen checkpoint of the `saved` fixture's graph (tag aliases and saved searches,
/// in the checkpoint's tail) loads to that fixture's expected state.
#[test]
fn frozen_checkpoint_with_a_tail_loads_to_the_saved_state() {
    let entries = fixture_entries("v2-checkpoint-saved.mcpmem");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("v2-saved.expected.json")).unwrap())
            .unwrap();
    let graph = replayed(&entries);
    assert_eq!(state_of(&graph), expected);
    assert_eq!(graph.checkpoint(), entries[0], "the encoding is frozen");
    let rows = Checkpoint::decode(&entries[0]).expect("decodes");
    assert_eq!(rows.more.len(), 2, "aliases, then searches");
}

/// A checkpoint's tail holds only what a checkpoint restates there: an empty tail, or one
/// holding another op, is refused (loading and decoding alike), never half applied.
#[test]
fn a_tail_holding_anything_else_is_refused() {
    let graph = replayed(&fixture_entries("v2-every-op.mcpmem"));
    let rows = graph.checkpoint();
    for tail in [
        vec![0u8],
        postcard_ops(&[mcp_memory_core::record::Op::DeleteEntities(vec!["Alice"])]),
        postcard_ops(&[mcp_memory_core::record::Op::PutTagAliases(vec![])]),
    ] {
        let mut bytes = rows.clone();
        bytes.extend(&tail);
        assert!(Graph::from_checkpoint(&bytes).is_err(), "{tail:?}");
        assert!(Checkpoint::decode(&bytes).is_err(), "{tail:?}");
    }
}

/// The postcard encoding of a list of ops (a checkpoint's tail).
fn postcard_ops(ops: &[mcp_memory_core::record::Op<'_>]) -> Vec<u8> {
    postcard::to_allocvec(ops).expect("ops serialize")
}

/// A memory with a few hundred KB of changes.
fn busy_memory() -> (Server<MemLog>, MemLog) {
    let (mut m, log) = initialized_at(1_700_000_000_000);
    let long = "an observation long enough to fill the log quickly ".repeat(20);
    for i in 0..300 {
        at(&mut m, 1_700_000_000_000 + i * 1000);
        let name = format!("E{i}");
        let obs = format!("{i} {long}");
        call_ok(
            &mut m,
            "create_entities",
            json!({"entities": [entity(&name, "t", &[&obs])]}),
        );
        if i > 0 {
            let prev = format!("E{}", i - 1);
            call_ok(
                &mut m,
                "create_relations",
                json!({"relations": [relation(&name, &prev, "follows")]}),
            );
        }
        if i % 7 == 0 {
            call_ok(&mut m, "delete_entities", json!({"entityNames": [name]}));
        }
    }
    (m, log)
}

/// Past a quarter of a megabyte of changes the memory appends a checkpoint; the log opens
/// from it to the same graph, and its history reads as without it.
#[test]
fn a_growing_log_gains_checkpoints_that_open_to_the_same_graph() {
    let (mut m, log) = busy_memory();
    let entries = log.records();
    let checkpoints: Vec<usize> = (0..entries.len())
        .filter(|&i| is_checkpoint(&entries[i]))
        .collect();
    assert!(!checkpoints.is_empty(), "a checkpoint was written");
    let tail: usize = entries[checkpoints[checkpoints.len() - 1] + 1..]
        .iter()
        .map(Vec::len)
        .sum();
    let last = entries[*checkpoints.last().unwrap()].len();
    assert!(
        (tail as u64) < CHECKPOINT_MIN_TAIL.max(last as u64 / 4),
        "the changes after the last checkpoint stay below the threshold ({tail} bytes)"
    );
    let want = graph(&mut m);
    assert_eq!(graph(&mut open(log.reopened())), want);
    let changes: Vec<Vec<u8>> = entries
        .iter()
        .filter(|e| !is_checkpoint(e))
        .cloned()
        .collect();
    let without = MemLog::holding(Contents::Records(changes));
    assert_eq!(graph(&mut open(without.reopened())), want);
    let history = |m: &mut Server<MemLog>| call_ok(m, "history", json!({"limit": 1000}));
    let asof =
        |m: &mut Server<MemLog>| call_ok(m, "read_graph", json!({"asOf": "2023-11-14T22:15:00Z"}));
    let mut with = open(log.reopened());
    let mut plain = open(without.reopened());
    assert_eq!(history(&mut with), history(&mut plain));
    assert_eq!(asof(&mut with), asof(&mut plain));
}

/// Compaction writes the graph at the horizon as a checkpoint, the changes since, and a
/// checkpoint of the graph now when those are many; the history reads the same.
#[test]
fn compaction_keeps_history_between_checkpoints() {
    let (mut m, log) = busy_memory();
    let before = call_ok(&mut m, "history", json!({"limit": 1000}));
    let want = graph(&mut m);
    m.memory_mut().set_history(280 * 1000);
    m.memory_mut().compact().expect("compacts");
    let entries = log.records();
    assert!(is_checkpoint(&entries[0]), "the state at the horizon");
    assert!(is_checkpoint(entries.last().unwrap()), "the state now");
    assert_eq!(entries.iter().filter(|e| is_checkpoint(e)).count(), 2);
    let mut again = open(log.reopened());
    assert_eq!(graph(&mut again), want);
    let after = call_ok(&mut again, "history", json!({"limit": 1000}));
    let kept = after["changes"].as_array().unwrap();
    assert!(!kept.is_empty());
    let all = before["changes"].as_array().unwrap();
    assert_eq!(
        kept[..],
        all[..kept.len()],
        "the newest changes, as they were"
    );
}

/// A busy memory's graph, and its log with the last checkpoint (after other entries) cut
/// in half.
fn busy_log_with_an_unreadable_last_checkpoint() -> (Value, Vec<Vec<u8>>) {
    let (mut m, log) = busy_memory();
    let want = graph(&mut m);
    let mut entries = log.records();
    let last = entries.iter().rposition(|e| is_checkpoint(e)).unwrap();
    assert!(last > 0, "changes precede the last checkpoint");
    let half = entries[last].len() / 2;
    entries[last].truncate(half);
    (want, entries)
}

/// A checkpoint after other entries that cannot be read is passed over with a warning
/// (the entries before it build the same graph); as the first entry it cannot be.
#[test]
fn an_unreadable_checkpoint_falls_back_to_the_changes_before_it() {
    let (want, entries) = busy_log_with_an_unreadable_last_checkpoint();
    let (mut m, warnings) = open_with_warnings(MemLog::holding(Contents::Records(entries)));
    assert_eq!(graph(&mut m), want);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("checkpoint") && w.contains("rebuilt")),
        "{warnings:?}"
    );
    let broken = vec![vec![CHECKPOINT, 1, 2, 3]];
    let err = Memory::open(MemLog::holding(Contents::Records(broken)))
        .err()
        .expect("nothing restates a broken first checkpoint");
    assert!(err.to_string().contains("record 0"), "{err}");
}

/// A memory file whose last checkpoint passes its checksum but cannot be read opens from
/// the changes before it, with a warning, though the file log leaves that checkpoint out
/// of the entries it hands back (they restate the entries before them).
#[test]
fn an_unreadable_last_checkpoint_in_a_file_is_reported_and_replayed_around() {
    let (want, entries) = busy_log_with_an_unreadable_last_checkpoint();
    let bytes = frame::encode_log(entries.iter().map(Vec::as_slice));
    let dir = MemDir::with_file("memory.mcpmem", &bytes);
    let mut log = FileLog::new(dir.open("memory.mcpmem", 1));
    log.lock().expect("locks");
    let (mut m, warnings) = open_with_warnings(log);
    assert_eq!(graph(&mut m), want);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("the last checkpoint could not be read") && w.contains("rebuilt")),
        "{warnings:?}"
    );
}

/// A crash while a checkpoint is written (it is appended after the change it follows and
/// made durable with the next) leaves every acknowledged change: the torn checkpoint is a
/// torn tail.
#[test]
fn a_crash_during_a_checkpoint_loses_nothing_acknowledged() {
    let (_, log) = busy_memory();
    let mut entries = log.records();
    let last = entries.iter().rposition(|e| is_checkpoint(e)).unwrap();
    entries.truncate(last + 1);
    let want = state_of(&replayed(&entries[..last]));
    let bytes = frame::encode_log(entries.iter().map(Vec::as_slice));
    let len = frame::FRAME_HEADER_LEN + entries[last].len();
    let offset = bytes.len() - len;
    for cut in [1, 12, len / 3, len - 1] {
        let scanned = frame::scan(&bytes[..offset + cut]).expect("a torn tail, not corruption");
        assert!(scanned.torn.is_some(), "cut at {cut}");
        let entries: Vec<Vec<u8>> = scanned.records.iter().map(|r| r.to_vec()).collect();
        assert_eq!(entries.len(), last, "cut at {cut}");
        let (memory, warnings) =
            Memory::open(MemLog::holding(Contents::Records(entries))).expect("opens");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(state_of(memory.graph()), want, "cut at {cut}");
    }
}

/// A writer skips a checkpoint another appended (it restates what the writer applied),
/// and loads one that replaced the log.
#[test]
fn other_writers_checkpoints_are_skipped_or_loaded() {
    let (mut m, log) = initialized_at(1_700_000_000_000);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &["x"])]}),
    );
    let want = graph(&mut m);
    let graph_now = replayed(&log.records());
    log.append_as_other_writer(graph_now.checkpoint());
    assert_eq!(graph(&mut m), want);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["y"]}]}),
    );
    let want = graph(&mut m);
    log.replace_as_other_writer(vec![replayed(&log.records()).checkpoint()]);
    assert_eq!(graph(&mut m), want);
    assert_eq!(graph(&mut open(log.reopened())), want);
}

/// `verify` checks each checkpoint against the changes before it.
#[test]
fn verify_counts_checkpoints_and_catches_one_that_does_not_restate() {
    let (_, log) = busy_memory();
    let entries = log.records();
    let bytes = frame::encode_log(entries.iter().map(Vec::as_slice));
    let report = verify(&bytes);
    assert_eq!(report.verdict(), Verdict::Clean, "{report}");
    let Report::Log(clean) = &report else {
        panic!("a log")
    };
    let count = entries.iter().filter(|e| is_checkpoint(e)).count();
    assert_eq!(clean.records.checkpoints, count);
    assert!(
        report.to_string().contains(&format!("checkpoints {count}")),
        "{report}"
    );

    let mut wrong = entries.clone();
    let at = wrong.iter().position(|e| is_checkpoint(e)).unwrap();
    wrong[at] = Graph::default().checkpoint();
    let report = verify(&frame::encode_log(wrong.iter().map(Vec::as_slice)));
    assert_eq!(report.verdict(), Verdict::Damaged);
    let Report::Log(damaged) = &report else {
        panic!("a log")
    };
    assert!(
        matches!(damaged.problem, Some(Problem::Checkpoint { record, .. }) if record == at),
        "{report}"
    );
}

/// Closing a memory checkpoints the changes since the last checkpoint if they reach
/// `CLOSE_MIN_TAIL` (the next start then replays nothing), and writes nothing otherwise.
#[test]
fn closing_checkpoints_many_changes_and_nothing_else() {
    let (mut m, log) = initialized_at(1_700_000_000_000);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &["x"])]}),
    );
    m.memory_mut().close();
    assert!(
        !log.records().iter().any(|e| is_checkpoint(e)),
        "a small change"
    );
    let long = "y".repeat(1000);
    for i in 0..(CLOSE_MIN_TAIL / 1000 + 1) {
        let text = format!("{i} {long}");
        call_ok(
            &mut m,
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": [text]}]}),
        );
    }
    let (appends, syncs) = (log.appends(), log.syncs());
    m.memory_mut().close();
    assert_eq!((log.appends(), log.syncs()), (appends + 1, syncs + 1));
    assert!(is_checkpoint(log.records().last().unwrap()));
    m.memory_mut().close();
    assert_eq!(log.appends(), appends + 1, "nothing new to checkpoint");
    let want = graph(&mut m);
    assert_eq!(graph(&mut open(log.reopened())), want);
}
