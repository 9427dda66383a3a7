//! The seed systems' memory files open as the memory (converted in place, the original kept
//! as `.bak`) and `export` writes them back in their own format.

use std::fs;
use std::path::Path;
use std::process::Command;

use mcp_memory_core::testing::seed_record;

/// Runs the binary on `file` with these arguments; returns stdout, failing on a non-zero
/// exit.
fn run(file: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .arg("-f")
        .arg(file)
        .args(args)
        .output()
        .expect("the binary starts");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A memory.jsonl as the TypeScript "Memory MCP" server writes it.
const MEMORY_MCP: &str = concat!(
    r#"{"type":"entity","name":"Ada","entityType":"person","observations":["wrote the first program","liked Babbage's engine"],"createdAt":"2024-03-01T10:00:00.000Z","lastModified":"2024-03-02T11:30:00.000Z","tags":["math","history"],"importance":9,"parentId":"Mathematicians"}"#,
    "\n",
    r#"{"type":"entity","name":"Mathematicians","entityType":"group","observations":[],"createdAt":"2024-03-01T09:00:00.000Z","lastModified":"2024-03-01T09:00:00.000Z"}"#,
    "\n",
    r#"{"type":"relation","from":"Ada","to":"Mathematicians","relationType":"member_of","createdAt":"2024-03-01T10:00:00.000Z","lastModified":"2024-03-01T10:00:00.000Z"}"#
);

#[test]
fn a_memory_mcp_file_opens_with_its_times_tags_importance_and_parents_and_goes_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.jsonl");
    fs::write(&file, MEMORY_MCP).unwrap();
    let back = run(&file, &["export", "--format", "memory-mcp"]);
    assert_eq!(back, MEMORY_MCP, "the seed's own format, byte for byte");
    assert_eq!(
        fs::read_to_string(dir.path().join("memory.jsonl.bak")).unwrap(),
        MEMORY_MCP,
        "the original is kept"
    );
    // The reference's format drops what the reference does not know.
    let reference = run(&file, &["export"]);
    assert!(reference.starts_with(
        r#"{"type":"entity","name":"Ada","entityType":"person","observations":["wrote the first program","liked Babbage's engine"]}"#
    ));
    assert!(!reference.contains("createdAt"));
}

#[test]
fn a_rust_seed_log_opens_as_the_memory_and_the_original_is_kept() {
    let mut log = b"MCPMEMV2".to_vec();
    seed_record(
        &mut log,
        0,
        &["Ada", "person"],
        Some(&["wrote the first program"]),
    );
    seed_record(&mut log, 0, &["Babbage", "person"], Some(&[]));
    seed_record(&mut log, 1, &["Ada", "Babbage", "worked_with"], None);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.bin");
    fs::write(&file, &log).unwrap();
    assert_eq!(
        run(&file, &["export"]),
        concat!(
            r#"{"type":"entity","name":"Ada","entityType":"person","observations":["wrote the first program"]}"#,
            "\n",
            r#"{"type":"entity","name":"Babbage","entityType":"person","observations":[]}"#,
            "\n",
            r#"{"type":"relation","from":"Ada","to":"Babbage","relationType":"worked_with"}"#
        )
    );
    assert_eq!(fs::read(dir.path().join("memory.bin.bak")).unwrap(), log);
}
