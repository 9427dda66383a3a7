//! `mcp-memory verify` and `mcp-memory repair` as processes, on damaged files. Each test is
//! named after the failure it guards against. The npm CLI passes the same checks, and
//! npm/test/cli.test.mjs compares the two CLIs' output.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_memory_core::frame::FRAME_HEADER_LEN;
use mcp_memory_core::model::{Entity, Relation};
use mcp_memory_core::record::{Op, Record};
use mcp_memory_core::testing::{frame_offset, log_of};
use serde_json::Value;

/// What one run of the binary produced.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary with these arguments.
fn run(args: &[&Path]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .args(args)
        .output()
        .expect("the binary starts");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

fn p(s: &str) -> &Path {
    Path::new(s)
}

fn verify(file: &Path) -> Run {
    run(&[p("verify"), file])
}

/// Three records: two entities, then a relation between them.
fn payloads() -> Vec<Vec<u8>> {
    let entity = |name| Entity {
        name,
        entity_type: "t",
        observations: vec!["seen"],
    };
    vec![
        Record::from(Op::CreateEntities(vec![entity("A")])).encode(),
        Record::from(Op::CreateEntities(vec![entity("B")])).encode(),
        Record::from(Op::CreateRelations(vec![Relation {
            from: "A",
            to: "B",
            relation_type: "r",
        }]))
        .encode(),
    ]
}

/// A temporary directory holding `name` with these bytes.
fn file_with(name: &str, bytes: &[u8]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    fs::write(&file, bytes).unwrap();
    (dir, file)
}

/// The memory in `file` as the reference's JSONL (through `export`, which opens it).
fn exported(file: &Path) -> String {
    let out = run(&[p("-f"), file, p("export")]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    out.stdout
}

#[test]
fn clean_log_verifies_with_exit_0_and_counts() {
    let bytes = log_of(&payloads());
    let (_dir, file) = file_with("m.mcpmem", &bytes);
    let out = verify(&file);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        out.stdout,
        format!(
            "{}: mcp-memory log, {} bytes: clean\n\
             records: 3 (create_entities 2, create_relations 1)\n\
             graph: 2 entities, 1 relations, 2 observations\n",
            file.display(),
            bytes.len()
        )
    );
}

#[test]
fn torn_tail_exits_3_naming_its_offset_and_verify_does_not_cut_it() {
    let payloads = payloads();
    let full = log_of(&payloads);
    let torn = &full[..full.len() - 2];
    let (_dir, file) = file_with("m.mcpmem", torn);
    let out = verify(&file);
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    let last = frame_offset(&payloads, 2);
    assert!(
        out.stdout.contains(&format!(
            "\ntorn tail at offset {last}: the last record is incomplete"
        )),
        "{}",
        out.stdout
    );
    assert_eq!(fs::read(&file).unwrap(), torn, "verify never writes");
}

#[test]
fn corrupt_frame_exits_1_naming_offset_and_record_in_text_and_json() {
    let payloads = payloads();
    let mut bytes = log_of(&payloads);
    let second = frame_offset(&payloads, 1);
    bytes[second + FRAME_HEADER_LEN] ^= 0xff;
    let (_dir, file) = file_with("m.mcpmem", &bytes);
    let out = verify(&file);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stdout.contains(&format!(
            "\nfirst problem: corrupt record at byte offset {second} (record 1): checksum mismatch\n"
        )),
        "{}",
        out.stdout
    );
    let out = run(&[p("verify"), p("--json"), &file]);
    assert_eq!(out.code, Some(1));
    let json: Value = serde_json::from_str(&out.stdout).expect("one JSON object");
    assert_eq!(json["verdict"], "damaged");
    assert_eq!(json["problem"]["offset"], second);
    assert_eq!(json["problem"]["record"], 1);
    assert_eq!(json["validLength"], second);
    assert_eq!(fs::read(&file).unwrap(), bytes);
}

#[test]
fn record_of_an_unknown_kind_exits_1_naming_it() {
    let mut payloads = payloads();
    payloads.insert(1, vec![200, 1, 0]);
    let (_dir, file) = file_with("m.mcpmem", &log_of(&payloads));
    let out = verify(&file);
    assert_eq!(out.code, Some(1));
    let at = frame_offset(&payloads, 1);
    assert!(
        out.stdout.contains(&format!(
            "\nfirst problem: record 1 at byte offset {at}: undecodable record"
        )),
        "{}",
        out.stdout
    );
}

#[test]
fn reference_jsonl_with_a_bad_line_exits_1_naming_the_line() {
    let (_dir, file) = file_with(
        "memory.jsonl",
        b"{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"t\",\"observations\":[]}\n{oops\n",
    );
    let out = verify(&file);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stdout
            .contains(": reference JSONL file (not an mcp-memory log), "),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("\nfirst problem: line 2: not JSON"),
        "{}",
        out.stdout
    );
}

#[test]
fn unreadable_file_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = verify(&dir.path().join("missing"));
    assert_eq!(out.code, Some(2));
    assert!(out.stdout.is_empty());
    assert!(
        out.stderr.starts_with("Error: cannot read "),
        "{}",
        out.stderr
    );
}

#[test]
fn repair_keeps_the_valid_prefix_in_a_new_file_with_the_input_mode() {
    let payloads = payloads();
    let mut bytes = log_of(&payloads);
    let third = frame_offset(&payloads, 2);
    bytes.extend_from_slice(b"garbage that is not a frame, and long enough");
    bytes[third + FRAME_HEADER_LEN] ^= 0xff;
    let (dir, file) = file_with("m.mcpmem", &bytes);
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let out = run(&[p("repair"), &file]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let repaired = dir.path().join("m.mcpmem.repaired");
    assert_eq!(
        out.stdout,
        format!(
            "{f}: wrote {r} ({f} is unchanged)\n\
             kept: 2 records, the first {third} bytes\n\
             dropped: {} bytes from offset {third}\n\
             because: corrupt record at byte offset {third} (record 2): checksum mismatch\n",
            bytes.len() - third,
            f = file.display(),
            r = repaired.display(),
        )
    );
    assert_eq!(fs::read(&file).unwrap(), bytes, "the input is unchanged");
    assert_eq!(fs::read(&repaired).unwrap(), &bytes[..third]);
    let mode = fs::metadata(&repaired).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert_eq!(verify(&repaired).code, Some(0));
    let (_prefix_dir, prefix) = file_with("prefix.mcpmem", &log_of(&payloads[..2]));
    assert_eq!(exported(&repaired), exported(&prefix));
}

#[test]
fn repair_refuses_an_existing_output_without_force_and_the_input_always() {
    let full = log_of(&payloads());
    let torn = &full[..full.len() - 1];
    let (dir, file) = file_with("m.mcpmem", torn);
    let out_file = dir.path().join("out.mcpmem");
    fs::write(&out_file, b"keep me").unwrap();
    let out = run(&[p("repair"), &file, p("-o"), &out_file]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr.contains("already exists; pass --force"),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read(&out_file).unwrap(), b"keep me");
    let out = run(&[p("repair"), &file, p("--output"), &file, p("--force")]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr.contains("is the file being repaired"),
        "{}",
        out.stderr
    );
    assert_eq!(fs::read(&file).unwrap(), torn);
    let out = run(&[p("repair"), &file, p("-o"), &out_file, p("--force")]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(verify(&out_file).code, Some(0));
}

#[test]
fn repair_of_reference_jsonl_keeps_the_lines_its_reader_accepts() {
    let good = "{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"t\",\"observations\":[\"o\"]}";
    let (dir, file) = file_with(
        "memory.jsonl",
        format!("{good}\n{{oops\n{{\"type\":\"relation\",\"from\":1}}\n").as_bytes(),
    );
    let out = run(&[p("repair"), &file]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout
            .contains("\nkept: 1 lines (1 entities, 0 relations, 0 skipped)\ndropped: 2 lines, "),
        "{}",
        out.stdout
    );
    let repaired = dir.path().join("memory.jsonl.repaired");
    assert_eq!(fs::read_to_string(&repaired).unwrap(), format!("{good}\n"));
    assert_eq!(verify(&repaired).code, Some(0));
}

#[test]
fn forget_removes_the_names_bytes_from_the_file_and_says_so() {
    let (_dir, file) = file_with(
        "memory.jsonl",
        concat!(
            r#"{"type":"entity","name":"Secret","entityType":"t","observations":["classified"]}"#,
            "\n",
            r#"{"type":"entity","name":"Other","entityType":"t","observations":[]}"#
        )
        .as_bytes(),
    );
    let out = run(&[p("-f"), &file, p("forget"), p("Secret")]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains(r#""gone": true"#), "{}", out.stdout);
    let bytes = fs::read(&file).unwrap();
    assert!(!bytes.windows(6).any(|w| w == b"Secret"));
    let out = run(&[p("-f"), &file, p("forget"), p("Nobody")]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr.contains("nothing is known of \"Nobody\""),
        "{}",
        out.stderr
    );
}
