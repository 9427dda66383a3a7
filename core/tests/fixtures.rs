//! Frozen file-format fixtures: a log written by format version 1, holding every record
//! variant, must keep opening to the same graph as records evolve. The fixture files are
//! committed and never regenerated; a change that breaks these tests breaks users' files.

mod common;

use std::path::PathBuf;

use common::*;
use mcp_memory_core::frame;
use mcp_memory_core::model::{Entity, Observations, Relation};
use mcp_memory_core::record::Record;
use mcp_memory_core::{Contents, Server};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

const LOG: &str = "v1-every-record.mcpmem";
const EXPECTED: &str = "v1-every-record.expected.json";
/// Added with the `Batch` variant (still format version 1: new variants are append-only).
const BATCH_LOG: &str = "v1-batch.mcpmem";
const BATCH_EXPECTED: &str = "v1-batch.expected.json";

/// Which variant a record is. Exhaustive on purpose: a new variant does not compile here
/// until someone decides how the fixtures cover it (with a new fixture file, never by
/// rewriting this one).
fn variant(record: &Record<'_>) -> usize {
    match record {
        Record::CreateEntities(_) => 0,
        Record::CreateRelations(_) => 1,
        Record::AddObservations(_) => 2,
        Record::DeleteEntities(_) => 3,
        Record::DeleteObservations(_) => 4,
        Record::DeleteRelations(_) => 5,
        Record::Batch(_) => 6,
    }
}
const VARIANTS: usize = 7;

fn triple<'a>(from: &'a str, to: &'a str, relation_type: &'a str) -> Relation<'a> {
    Relation {
        from,
        to,
        relation_type,
    }
}

/// Every record variant, with Unicode, escapes-to-be and empty strings.
fn every_record() -> Vec<Record<'static>> {
    vec![
        Record::CreateEntities(vec![
            Entity {
                name: "Alice",
                entity_type: "person",
                observations: vec!["likes tea", "ΟΔΟΣ 😀"],
            },
            Entity {
                name: "",
                entity_type: "",
                observations: vec![""],
            },
            Entity {
                name: "Bob",
                entity_type: "person",
                observations: vec![],
            },
            Entity {
                name: "İstanbul",
                entity_type: "city",
                observations: vec!["x", "x"],
            },
            Entity {
                name: "Temp",
                entity_type: "t",
                observations: vec!["gone"],
            },
        ]),
        Record::CreateRelations(vec![
            triple("Alice", "Bob", "knows"),
            triple("Alice", "", ""),
            triple("Bob", "İstanbul", "lives_in"),
            triple("Ghost", "Alice", "haunts"),
            triple("Temp", "Alice", "r"),
            triple("Alice", "Bob", "likes"),
        ]),
        Record::AddObservations(vec![
            Observations {
                entity: "Alice",
                contents: vec!["drinks coffee", "line\nbreak \"quoted\""],
            },
            Observations {
                entity: "Bob",
                contents: vec!["\u{e9}", "e\u{301}"],
            },
        ]),
        Record::DeleteEntities(vec!["Temp", "Ghost"]),
        Record::DeleteObservations(vec![
            Observations {
                entity: "Alice",
                contents: vec!["likes tea"],
            },
            Observations {
                entity: "İstanbul",
                contents: vec!["x"],
            },
        ]),
        Record::DeleteRelations(vec![triple("Alice", "Bob", "likes")]),
    ]
}

/// A merge-shaped batch after plain records: the records of `Batch` fixture.
fn batch_records() -> Vec<Record<'static>> {
    vec![
        Record::CreateEntities(vec![
            Entity {
                name: "Alice",
                entity_type: "person",
                observations: vec!["likes tea"],
            },
            Entity {
                name: "alice",
                entity_type: "person",
                observations: vec!["likes tea", "plays chess"],
            },
        ]),
        Record::CreateRelations(vec![
            triple("alice", "Bob", "knows"),
            triple("Alice", "alice", "same_as"),
        ]),
        Record::Batch(vec![
            Record::AddObservations(vec![Observations {
                entity: "Alice",
                contents: vec!["plays chess"],
            }]),
            Record::CreateRelations(vec![triple("Alice", "Bob", "knows")]),
            Record::DeleteEntities(vec!["alice"]),
        ]),
        Record::Batch(vec![]),
    ]
}

/// Writes a frozen log of `records` and the graph it replays to, refusing to overwrite.
fn write_fixture(log: &str, expected: &str, records: &[Record<'_>]) {
    let (log_path, expected_path) = (fixture(log), fixture(expected));
    assert!(
        !log_path.exists() && !expected_path.exists(),
        "{log} exists and must never be regenerated"
    );
    let payloads: Vec<Vec<u8>> = records.iter().map(Record::encode).collect();
    let bytes = frame::encode_log(payloads.iter().map(Vec::as_slice));
    let mut memory = open(MemLog::holding(Contents::Records(payloads)));
    let graph = serde_json::to_string_pretty(&graph(&mut memory)).unwrap() + "\n";
    std::fs::create_dir_all(log_path.parent().unwrap()).unwrap();
    std::fs::write(&log_path, bytes).unwrap();
    std::fs::write(&expected_path, graph).unwrap();
}

/// Writes the fixture files. Run once when a format version is introduced; the files are
/// then committed and never written again (this refuses to overwrite them).
#[test]
#[ignore = "writes the frozen fixture files; run once per format version, never again"]
fn write_v1_fixture() {
    write_fixture(LOG, EXPECTED, &every_record());
}

/// Writes the `Batch` fixture (once, like the v1 one).
#[test]
#[ignore = "writes the frozen fixture files; run once per new variant, never again"]
fn write_v1_batch_fixture() {
    write_fixture(BATCH_LOG, BATCH_EXPECTED, &batch_records());
}

/// A frozen batch log replays to its expected graph and its records re-encode to their bytes.
#[test]
fn v1_batch_log_replays_to_expected_graph_and_reencodes_identically() {
    let bytes = std::fs::read(fixture(BATCH_LOG)).expect("the committed batch fixture");
    let scan = frame::scan(&bytes).unwrap();
    assert_eq!(scan.torn, None);
    for (payload, written) in scan.records.iter().zip(&batch_records()) {
        let decoded = Record::decode(payload).expect("decodes");
        assert_eq!(&decoded, written);
        assert_eq!(decoded.encode(), *payload);
    }
    let records = scan.records.iter().map(|r| r.to_vec()).collect();
    let mut memory = open(MemLog::holding(Contents::Records(records)));
    let text = std::fs::read_to_string(fixture(BATCH_EXPECTED)).unwrap();
    let expected: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(graph(&mut memory), expected);
}

fn read_fixture() -> Vec<u8> {
    std::fs::read(fixture(LOG)).expect("the committed v1 fixture")
}

fn expected_graph() -> Value {
    let text = std::fs::read_to_string(fixture(EXPECTED)).expect("the committed expected graph");
    serde_json::from_str(&text).expect("expected graph is JSON")
}

#[test]
fn v1_log_scans_cleanly_and_holds_every_variant() {
    let bytes = read_fixture();
    assert!(frame::is_log(&bytes));
    let scan = frame::scan(&bytes).expect("a v1 log scans");
    assert_eq!(scan.torn, None);
    assert_eq!(scan.valid_len, bytes.len());
    let batch = std::fs::read(fixture(BATCH_LOG)).expect("the committed batch fixture");
    let batch = frame::scan(&batch).expect("a v1 log scans");
    let seen: std::collections::BTreeSet<usize> = scan
        .records
        .iter()
        .chain(&batch.records)
        .map(|r| variant(&Record::decode(r).expect("a v1 record decodes")))
        .collect();
    assert_eq!(seen.len(), VARIANTS, "the fixtures hold every variant");
}

#[test]
fn v1_log_replays_to_expected_graph() {
    let bytes = read_fixture();
    let scan = frame::scan(&bytes).unwrap();
    let records = scan.records.iter().map(|r| r.to_vec()).collect();
    let log = MemLog::holding(Contents::Records(records));
    let (mut memory, warnings) = Server::open(log).expect("a v1 log opens");
    assert!(warnings.is_empty(), "{warnings:?}");
    let expected = expected_graph();
    assert_eq!(graph(&mut memory), expected);
    assert_eq!(
        String::from_utf8(memory.memory_mut().export_jsonl().unwrap()).unwrap(),
        String::from_utf8(reference_jsonl(&expected)).unwrap()
    );
}

/// A v1 record decodes to the value it was written from and re-encodes to the same bytes,
/// so rewriting a log (compaction, conversion) never changes what old readers see.
#[test]
fn v1_records_decode_and_reencode_byte_identically() {
    let bytes = read_fixture();
    let scan = frame::scan(&bytes).unwrap();
    let records = every_record();
    assert_eq!(scan.records.len(), records.len());
    for (i, (payload, written)) in scan.records.iter().zip(&records).enumerate() {
        let decoded = Record::decode(payload).expect("decodes");
        assert_eq!(&decoded, written, "record {i}");
        assert_eq!(
            decoded.encode(),
            *payload,
            "record {i} re-encodes to its bytes"
        );
    }
}

/// The same log, cut at every byte after the header, replays to the expected graph of some
/// prefix of its records and never reports corruption.
#[test]
fn v1_log_cut_anywhere_is_a_torn_tail_not_corruption() {
    let bytes = read_fixture();
    let mut last = 0;
    for cut in frame::HEADER_LEN..=bytes.len() {
        let scan = frame::scan(&bytes[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        assert!(scan.records.len() >= last, "records only grow with the cut");
        last = scan.records.len();
        assert_eq!(scan.torn.is_none(), scan.valid_len == cut);
    }
    assert_eq!(last, every_record().len());
}

/// A record this version does not know (from a newer mcp-memory) stops the open with its
/// position instead of being skipped or guessed at.
#[test]
fn record_from_a_newer_version_is_refused_with_its_index() {
    let known = Record::DeleteEntities(vec!["A"]).encode();
    let newer = vec![200u8, 1, 0];
    let log = MemLog::holding(Contents::Records(vec![known, newer]));
    match Server::open(log) {
        Err(mcp_memory_core::OpenError::Record { index, .. }) => assert_eq!(index, 1),
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a log with an unknown record opened"),
    }
}
