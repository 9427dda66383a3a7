//! `verify` and `repair` (core/src/verify.rs): each test is named after the failure mode it
//! checks. Repairs must verify clean and replay to the graph of the input's valid prefix.

use mcp_memory_core::frame::{self, FRAME_HEADER_LEN, TornKind};
use mcp_memory_core::graph::Graph;
use mcp_memory_core::jsonl;
use mcp_memory_core::model::{Entity, Observations, Relation};
use mcp_memory_core::record::{Op, Record};
use mcp_memory_core::testing::{frame_offset, log_of};
use mcp_memory_core::verify::{
    GraphCounts, Problem, RecordCounts, RepairError, Report, Verdict, repair, verify,
};

fn entity<'a>(name: &'a str, observations: Vec<&'a str>) -> Entity<'a> {
    Entity {
        name,
        entity_type: "t",
        observations,
    }
}

/// Five records of five kinds: 3 entities (one deleted later), 1 relation, 4 observations.
fn payloads() -> Vec<Vec<u8>> {
    let knows = Relation {
        from: "a",
        to: "b",
        relation_type: "knows",
    };
    vec![
        Record::from(Op::CreateEntities(vec![
            entity("a", vec!["x"]),
            entity("b", vec![]),
        ]))
        .encode(),
        Record::from(Op::CreateRelations(vec![knows])).encode(),
        Record::from(Op::AddObservations(vec![Observations {
            entity: "b",
            contents: vec!["y", "z"],
        }]))
        .encode(),
        Record {
            stamp: None,
            ops: vec![
                Op::CreateEntities(vec![entity("c", vec!["w"])]),
                Op::DeleteRelations(vec![knows]),
            ],
        }
        .encode(),
        Record::from(Op::DeleteEntities(vec!["c"])).encode(),
    ]
}

/// The graph these payloads replay to, in the reference's JSONL (to compare graphs).
fn graph_of<'a>(payloads: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut graph = Graph::default();
    for p in payloads {
        graph.apply(&Record::decode(p).expect("test records decode"), &mut ());
    }
    jsonl::export(&graph)
}

/// The graph a log file opens to.
fn graph_of_log(bytes: &[u8]) -> Vec<u8> {
    graph_of(frame::scan(bytes).expect("opens").records)
}

fn log_report(report: &Report) -> &mcp_memory_core::verify::LogReport {
    match report {
        Report::Log(log) => log,
        other => panic!("expected a log report, got {other:?}"),
    }
}

/// Repairs `bytes` and checks the result: it verifies clean, replays to the graph of the
/// first `kept` payloads, and says what it kept and dropped.
fn assert_repairs_to_prefix(bytes: &[u8], payloads: &[Vec<u8>], kept: usize) {
    let repaired = repair(bytes).expect("repairable");
    let report = verify(&repaired.bytes);
    assert_eq!(report.verdict(), Verdict::Clean, "{report}");
    assert_eq!(log_report(&report).records.total(), kept);
    assert_eq!(
        graph_of_log(&repaired.bytes),
        graph_of(payloads[..kept].iter().map(Vec::as_slice))
    );
    let summary = repaired.to_string();
    assert!(
        summary.starts_with(&format!("kept: {kept} records")),
        "{summary}"
    );
    assert!(summary.contains("dropped: "), "{summary}");
}

#[test]
fn clean_log_reports_records_by_kind_and_the_graph() {
    let payloads = payloads();
    let bytes = log_of(&payloads);
    let report = verify(&bytes);
    assert_eq!(report.verdict(), Verdict::Clean);
    assert_eq!(report.verdict().exit_code(), 0);
    let log = log_report(&report);
    assert_eq!(log.bytes, bytes.len());
    assert_eq!(log.valid_len, bytes.len());
    assert_eq!(
        log.records,
        RecordCounts {
            records: 5,
            stamped: 0,
            ops: [
                2, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
            ],
            checkpoints: 0,
        }
    );
    assert_eq!(
        log.graph,
        GraphCounts {
            entities: 2,
            relations: 0,
            observations: 3
        }
    );
    assert_eq!(
        report.to_string(),
        format!(
            "mcp-memory log, {} bytes: clean\n\
             records: 5 (create_entities 2, create_relations 1, add_observations 1, delete_entities 1, delete_relations 1)\n\
             graph: 2 entities, 0 relations, 3 observations",
            bytes.len()
        )
    );
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["verdict"], "clean");
    assert_eq!(json["exitCode"], 0);
    assert_eq!(json["records"]["total"], 5);
    assert_eq!(json["graph"]["observations"], 3);
    assert_eq!(json["problem"], serde_json::Value::Null);
}

#[test]
fn empty_file_is_clean_and_repairs_to_itself() {
    let report = verify(b"");
    assert_eq!(report, Report::Empty);
    assert_eq!(report.verdict(), Verdict::Clean);
    let repaired = repair(b"").unwrap();
    assert!(repaired.bytes.is_empty());
    assert_eq!(repaired.dropped, 0);
}

#[test]
fn header_only_log_is_clean_and_empty() {
    let report = verify(&frame::header());
    assert_eq!(report.verdict(), Verdict::Clean);
    assert_eq!(log_report(&report).records.total(), 0);
}

#[test]
fn torn_tail_of_each_kind_is_reported_with_its_offset_and_keeps_the_prefix() {
    let payloads = payloads();
    let full = log_of(&payloads);
    let last = frame_offset(&payloads, 4);
    let mut checksum = full.clone();
    *checksum.last_mut().unwrap() ^= 1;
    let mut zeros = full.clone();
    zeros.extend_from_slice(&[0; 64]);
    let cases: [(&str, Vec<u8>, TornKind, usize, usize); 5] = [
        ("header", full[..5].to_vec(), TornKind::Header, 0, 0),
        (
            "frame header",
            full[..last + 7].to_vec(),
            TornKind::FrameHeader,
            last,
            4,
        ),
        (
            "payload",
            full[..full.len() - 1].to_vec(),
            TornKind::Payload,
            last,
            4,
        ),
        ("checksum", checksum, TornKind::Checksum, last, 4),
        ("zeros", zeros, TornKind::Zeros, full.len(), 5),
    ];
    for (name, bytes, kind, offset, kept) in cases {
        let report = verify(&bytes);
        assert_eq!(report.verdict(), Verdict::TornTail, "{name}: {report}");
        assert_eq!(report.verdict().exit_code(), 3);
        let log = log_report(&report);
        let torn = log.torn.expect("a torn tail");
        assert_eq!((torn.kind, torn.offset), (kind, offset), "{name}");
        assert_eq!(log.problem, None, "{name}");
        assert_eq!(log.valid_len, offset, "{name}");
        assert_eq!(log.records.total(), kept, "{name}");
        let text = report.to_string();
        assert!(
            text.contains(&format!("torn tail at offset {offset}: ")),
            "{name}: {text}"
        );
        assert_repairs_to_prefix(&bytes, &payloads, kept);
    }
}

#[test]
fn torn_header_repairs_to_a_new_empty_log() {
    let repaired = repair(&frame::header()[..5]).unwrap();
    assert_eq!(repaired.bytes, frame::header());
    assert_eq!(repaired.dropped, 5);
}

#[test]
fn corrupt_crc_mid_file_is_the_first_problem_with_offset_and_record() {
    let payloads = payloads();
    let mut bytes = log_of(&payloads);
    let second = frame_offset(&payloads, 1);
    bytes[second + FRAME_HEADER_LEN] ^= 0x40;
    let report = verify(&bytes);
    assert_eq!(report.verdict(), Verdict::Damaged);
    assert_eq!(report.verdict().exit_code(), 1);
    let log = log_report(&report);
    assert_eq!(
        log.problem,
        Some(Problem::Corrupt {
            offset: second,
            record: 1,
            reason: "checksum mismatch"
        })
    );
    assert_eq!(log.valid_len, second);
    assert_eq!(log.records.total(), 1);
    let text = report.to_string();
    assert!(
        text.contains(&format!(
            "first problem: corrupt record at byte offset {second} (record 1): checksum mismatch"
        )),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["problem"]["offset"], second);
    assert_eq!(json["problem"]["record"], 1);
    assert_eq!(json["exitCode"], 1);
    assert_repairs_to_prefix(&bytes, &payloads, 1);
}

#[test]
fn frame_that_decodes_as_no_known_record_is_damage_at_its_offset() {
    let mut payloads = payloads();
    payloads.insert(2, vec![200, 1, 0]);
    let bytes = log_of(&payloads);
    let report = verify(&bytes);
    assert_eq!(report.verdict(), Verdict::Damaged);
    let log = log_report(&report);
    let offset = frame_offset(&payloads, 2);
    match &log.problem {
        Some(Problem::Undecodable {
            offset: at,
            record: 2,
            ..
        }) => assert_eq!(*at, offset),
        other => panic!("expected an undecodable record 2, got {other:?}"),
    }
    assert_eq!(log.valid_len, offset);
    assert_eq!(log.records.total(), 2);
    assert_eq!(log.torn, None);
    let text = report.to_string();
    assert!(
        text.contains(&format!(
            "record 2 at byte offset {offset}: undecodable record"
        )),
        "{text}"
    );
    assert_repairs_to_prefix(&bytes, &payloads, 2);
}

#[test]
fn garbage_after_valid_frames_is_corruption_where_the_frames_end() {
    let payloads = payloads();
    let mut bytes = log_of(&payloads);
    let end = bytes.len();
    bytes.extend_from_slice(b"this is not a frame, and it goes on for a while");
    let report = verify(&bytes);
    assert_eq!(report.verdict(), Verdict::Damaged);
    let log = log_report(&report);
    assert_eq!(
        log.problem,
        Some(Problem::Corrupt {
            offset: end,
            record: 5,
            reason: "record length check failed"
        })
    );
    assert_eq!(log.valid_len, end);
    let repaired = repair(&bytes).unwrap();
    assert_eq!(repaired.bytes, log_of(&payloads));
    assert_eq!(repaired.dropped, bytes.len() - end);
    assert_repairs_to_prefix(&bytes, &payloads, 5);
}

#[test]
fn newer_version_is_unsupported_and_not_repaired() {
    let mut bytes = log_of(&payloads());
    bytes[8] = 2;
    let report = verify(&bytes);
    assert_eq!(report.verdict(), Verdict::Unsupported);
    assert_eq!(report.verdict().exit_code(), 1);
    assert_eq!(
        log_report(&report).problem,
        Some(Problem::UnsupportedVersion(2))
    );
    assert_eq!(repair(&bytes), Err(RepairError::UnsupportedVersion(2)));
}

#[test]
fn clean_log_repairs_to_an_identical_copy() {
    let bytes = log_of(&payloads());
    let repaired = repair(&bytes).unwrap();
    assert_eq!(repaired.bytes, bytes);
    assert_eq!(repaired.dropped, 0);
    assert!(
        repaired
            .to_string()
            .ends_with("dropped: nothing (the log is clean)")
    );
}

#[test]
fn a_repair_cutting_the_checkpoint_the_header_names_names_none() {
    let mut payloads = payloads();
    payloads.push(Graph::default().checkpoint());
    let bytes = log_of(&payloads);
    let at = frame_offset(&payloads, 5);
    assert_eq!(frame::checkpoint_at(&bytes), Some(at as u64));
    let repaired = repair(&bytes[..bytes.len() - 1]).unwrap();
    assert_eq!(repaired.bytes.len(), at);
    assert_eq!(frame::checkpoint_at(&repaired.bytes), None);
    assert_eq!(
        repaired.bytes[frame::HEADER_LEN..],
        bytes[frame::HEADER_LEN..at]
    );
}

const ENTITY_A: &str =
    r#"{"type":"entity","name":"A","entityType":"t","observations":["o1","o2"]}"#;
const ENTITY_B: &str = r#"{"type":"entity","name":"B","entityType":"t","observations":[]}"#;
const RELATION: &str = r#"{"type":"relation","from":"A","to":"B","relationType":"r"}"#;

#[test]
fn jsonl_with_a_bad_line_names_the_first_and_counts_what_the_reader_accepts() {
    let file = format!(
        "{ENTITY_A}\n{{not json\n{ENTITY_B}\n\n{{\"type\":\"other\"}}\n{{\"type\":\"entity\",\"name\":5}}\n{RELATION}\n"
    );
    let report = verify(file.as_bytes());
    assert_eq!(report.verdict(), Verdict::Damaged);
    assert_eq!(report.verdict().exit_code(), 1);
    let Report::Jsonl(jsonl) = &report else {
        panic!("expected a JSONL report, got {report:?}");
    };
    assert_eq!(jsonl.lines, 6);
    assert_eq!(jsonl.skipped, 1);
    assert_eq!(jsonl.refused, [2, 6]);
    assert_eq!(
        jsonl.graph,
        GraphCounts {
            entities: 2,
            relations: 1,
            observations: 2
        }
    );
    assert_eq!(jsonl.problem.as_ref().map(|p| p.line), Some(2));
    let text = report.to_string();
    assert!(
        text.starts_with("reference JSONL file (not an mcp-memory log)"),
        "{text}"
    );
    assert!(text.contains("first problem: line 2: not JSON"), "{text}");
    assert!(
        text.contains("lines: 6 (2 entities, 1 relations, 1 skipped, 2 refused)"),
        "{text}"
    );

    let repaired = repair(file.as_bytes()).unwrap();
    let expected = format!("{ENTITY_A}\n{ENTITY_B}\n\n{{\"type\":\"other\"}}\n{RELATION}\n");
    assert_eq!(String::from_utf8(repaired.bytes.clone()).unwrap(), expected);
    assert_eq!(repaired.dropped, file.len() - expected.len());
    let again = verify(&repaired.bytes);
    assert_eq!(again.verdict(), Verdict::Clean, "{again}");
    let Report::Jsonl(again) = again else {
        panic!("a repaired JSONL file stays JSONL");
    };
    assert_eq!(again.graph, jsonl.graph);
    let summary = repaired.to_string();
    assert!(
        summary.contains("dropped: 2 lines, ") && summary.contains(": line 2, 6\n"),
        "{summary}"
    );
}

#[test]
fn clean_jsonl_reports_the_reader_warnings() {
    let file = format!("{ENTITY_A}\n[1]\n{RELATION}");
    let report = verify(file.as_bytes());
    assert_eq!(report.verdict(), Verdict::Clean);
    assert!(
        report.to_string().ends_with(
            "\nwarning: 1 line(s) that are neither an entity nor a relation were skipped"
        ),
        "{report}"
    );
    assert_eq!(repair(file.as_bytes()).unwrap().bytes, file.as_bytes());
}

#[test]
fn jsonl_parse_still_refuses_the_first_bad_line() {
    let file = format!("{ENTITY_A}\n{{\"type\":\"relation\",\"from\":1}}\n{{bad\n");
    assert_eq!(jsonl::parse(file.as_bytes()).unwrap_err().line, 2);
}

/// Regression: verify read the Rust seed's log as a reference JSONL file and called it
/// damaged, though opening converts it.
#[test]
fn a_rust_seed_log_is_reported_as_what_it_is_and_what_it_converts_to() {
    let mut log = b"MCPMEMV2".to_vec();
    mcp_memory_core::testing::seed_record(&mut log, 0, &["Ada", "person"], Some(&["x", "y"]));
    mcp_memory_core::testing::seed_record(&mut log, 1, &["Ada", "Ada", "knows"], None);
    let report = verify(&log);
    assert_eq!(report.verdict(), Verdict::Clean);
    assert_eq!(
        report.to_string(),
        format!(
            "Rust mcp-memory 1.x/2.0 log (not an mcp-memory log), {} bytes: clean (opening converts it to a log)\ngraph: 1 entities, 1 relations, 2 observations",
            log.len()
        )
    );
    let repaired = repair(&log).expect("a seed log that converts is kept whole");
    assert_eq!(repaired.bytes, log);
    log.truncate(log.len() - 3);
    let torn = verify(&log);
    assert_eq!(torn.verdict(), Verdict::Clean, "opening drops a torn tail");
    assert!(torn.to_string().contains("\nwarning: "), "{torn}");
    let json: serde_json::Value = serde_json::from_str(&torn.to_json()).unwrap();
    assert_eq!(json["format"], "rust-seed-log");
    assert_eq!(json["graph"]["entities"], 1);
}
