//! The Python seed's `migrate` (profile `mcp-memory-py`): a reference memory.jsonl read
//! through the log by the path the user names, merged with the seed's counts; idempotent;
//! refusals name `source_path` and change nothing.

use crate::common::*;
use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::testing::{MemDir, MemDisk, MemLog};
use mcp_memory_core::{Log, Server};
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;

/// Ada (a person who knows Babbage) and Babbage, as the reference writes them.
fn reference_file() -> Vec<u8> {
    [
        entity_line("Ada", "Persona", &["wrote the first program"]),
        entity_line("Babbage", "Persona", &["designed the engine"]),
        relation_line("Ada", "Babbage", "conoce"),
    ]
    .join("\n")
    .into_bytes()
}

/// The memory's graph as reference JSONL lines.
fn exported<L: Log>(m: &mut Server<L>) -> String {
    let bytes = m.memory_mut().export_jsonl().expect("export");
    String::from_utf8(bytes).expect("UTF-8")
}

fn counts(entities: u64, relations: u64, errors: u64, skipped: u64) -> Value {
    json!({
        "entities_imported": entities,
        "relations_imported": relations,
        "errors": errors,
        "skipped": skipped,
    })
}

#[test]
fn imports_a_reference_file_and_a_second_run_skips_everything() {
    let log = MemLog::new();
    log.put_named("memory.jsonl", &reference_file());
    let mut m = py(log.clone(), T0);
    let out = call_ok(&mut m, "migrate", json!({"source_path": "memory.jsonl"}));
    assert_eq!(out, counts(2, 1, 0, 0));
    let graph = exported(&mut m);
    assert_eq!(graph.as_bytes(), reference_file().as_slice());
    let records = log.records().len();
    let again = call_ok(&mut m, "migrate", json!({"source_path": "memory.jsonl"}));
    assert_eq!(again, counts(0, 0, 0, 3), "nothing new: all skipped");
    assert_eq!(log.records().len(), records, "a second run logs nothing");
    assert_eq!(exported(&mut m), graph);
}

#[test]
fn merges_into_what_the_memory_has_counting_errors_and_skips_as_the_seed_does() {
    let log = MemLog::new();
    let file = [
        entity_line("Ada", "Otro", &["wrote the first program", "met Babbage"]),
        entity_line("Babbage", "Persona", &["designed the engine"]),
        "{not json".to_string(),
        r#"{"type":"entity","name":"Odd","entityType":7,"observations":[]}"#.to_string(),
        r#"{"type":"note","text":"neither"}"#.to_string(),
        entity_line("", "Persona", &["nameless"]),
        r#"{"type":"entity","entityType":"Persona"}"#.to_string(),
        r#"{"type":"relation","from":"Ada","to":"Babbage"}"#.to_string(),
        relation_line("Ada", "Babbage", "conoce"),
        relation_line("Ada", "Nobody", "conoce"),
        relation_line("Ada", "Babbage", ""),
        relation_line("Ada", "Babbage", "conoce"),
        String::new(),
    ]
    .join("\n");
    log.put_named("/tmp/old.jsonl", file.as_bytes());
    let mut m = py(log, T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [{"name": "Ada", "entityType": "Persona", "observations": ["wrote the first program"]}]}),
    );
    let out = call_ok(&mut m, "migrate", json!({"source_path": "/tmp/old.jsonl"}));
    // Ada gains an observation (and keeps her type), Babbage is new; one relation is new.
    // Errors: the line that is not JSON and the one whose type is a number. Skipped: the
    // note, the entities with an empty name and with none, the relation to Nobody, the
    // ones with an empty type and with none, the repeated relation.
    assert_eq!(out, counts(2, 1, 2, 7));
    let opened = call_ok(&mut m, "open_nodes", json!({"names": ["Ada"]}));
    assert_eq!(opened["entities"][0]["entityType"], "Persona");
    let observations: Vec<&str> = (opened["entities"][0]["observations"].as_array())
        .expect("observations")
        .iter()
        .map(|o| o["content"].as_str().expect("content"))
        .collect();
    assert_eq!(observations, ["wrote the first program", "met Babbage"]);
    let again = call_ok(&mut m, "migrate", json!({"source_path": "/tmp/old.jsonl"}));
    assert_eq!(again, counts(0, 0, 2, 10));
}

#[test]
fn refusals_name_source_path_and_change_nothing() {
    let log = MemLog::new();
    log.put_named("empty.jsonl", b"");
    log.put_named("notes.jsonl", b"{\"type\":\"note\"}\n\n[1,2]\n");
    log.put_named("binary.bin", &[0, 159, 146, 150, 255]);
    let mut m = py(log.clone(), T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [{"name": "Ada", "observations": ["x"]}]}),
    );
    let before = (log.records().len(), exported(&mut m));
    let missing = call_err(&mut m, "migrate", json!({"source_path": "gone.jsonl"}));
    assert_eq!(
        missing,
        "source_path 'gone.jsonl': cannot read gone.jsonl: no such file; nothing was imported"
    );
    for path in ["empty.jsonl", "notes.jsonl", "binary.bin"] {
        let err = call_err(&mut m, "migrate", json!({"source_path": path}));
        assert!(
            err.starts_with(&format!(
                "source_path '{path}': the file holds no entity or relation line"
            )),
            "{err}"
        );
    }
    let empty = call_err(&mut m, "migrate", json!({"source_path": ""}));
    assert!(empty.starts_with("source_path is required"), "{empty}");
    let untyped = call_err(&mut m, "migrate", json!({"source_path": 7}));
    assert!(untyped.contains("source_path"), "{untyped}");
    assert_eq!((log.records().len(), exported(&mut m)), before);
}

fn file_memory(dir: &MemDir) -> Server<FileLog<MemDisk>> {
    py(FileLog::new(dir.open("memory.jsonl", 1)), T0)
}

#[test]
fn a_file_log_reads_files_beside_it_but_never_the_memory_file_or_its_companions() {
    let dir = MemDir::new();
    let mut m = file_memory(&dir);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [{"name": "Ada", "observations": ["x"]}]}),
    );
    dir.put("memory.jsonl.bak", &reference_file());
    dir.put(".memory.jsonl.9-nonce9.tmp", &reference_file());
    // The lock is this process's own: a write holds it (nothing here releases it).
    assert!(dir.file("memory.jsonl.lock").is_some());
    let before = (dir.file("memory.jsonl"), exported(&mut m));
    let itself = call_err(&mut m, "migrate", json!({"source_path": "memory.jsonl"}));
    assert_eq!(
        itself,
        "source_path 'memory.jsonl': cannot read memory.jsonl: it is the memory file itself; nothing was imported"
    );
    for companion in [
        "memory.jsonl.bak",
        ".memory.jsonl.9-nonce9.tmp",
        "memory.jsonl.lock",
    ] {
        let err = call_err(&mut m, "migrate", json!({"source_path": companion}));
        assert!(
            err.contains("it is a companion of the memory file"),
            "{err}"
        );
        assert!(err.starts_with("source_path '"), "{err}");
    }
    assert_eq!((dir.file("memory.jsonl"), exported(&mut m)), before);
    dir.put("old.jsonl", &reference_file());
    let out = call_ok(&mut m, "migrate", json!({"source_path": "old.jsonl"}));
    assert_eq!(
        out,
        counts(2, 1, 0, 0),
        "Ada gains an observation; the rest is new"
    );
    // Another process opening the file sees the import.
    let mut other = py(FileLog::new(dir.open("memory.jsonl", 2)), T0);
    assert_eq!(exported(&mut other), exported(&mut m));
}

#[test]
fn a_memory_file_of_ours_imports_too() {
    let dir = MemDir::new();
    let mut source = file_memory(&dir);
    call_ok(
        &mut source,
        "create_entities",
        json!({"entities": [{"name": "Ada", "entityType": "Persona", "observations": ["x"]}, {"name": "Babbage"}]}),
    );
    call_ok(
        &mut source,
        "create_relations",
        json!({"relations": [{"from": "Ada", "to": "Babbage", "relationType": "conoce"}]}),
    );
    let ours = source.memory_mut().export_log().expect("export");
    let log = MemLog::new();
    log.put_named("memory.mcpmem", &ours);
    let mut m = py(log, T0);
    let out = call_ok(&mut m, "migrate", json!({"source_path": "memory.mcpmem"}));
    assert_eq!(out, counts(2, 1, 0, 0));
    assert_eq!(exported(&mut m), exported(&mut source));
    let again = call_ok(&mut m, "migrate", json!({"source_path": "memory.mcpmem"}));
    assert_eq!(again, counts(0, 0, 0, 3));
}

/// A log that reads no named files: the default [`Log::read_named`].
#[test]
fn a_host_that_reads_no_named_files_refuses_every_path() {
    let log = MemLog::new();
    log.put_named("memory.jsonl", &reference_file());
    log.read_no_named_files();
    let mut m = py(log, T0);
    let err = call_err(&mut m, "migrate", json!({"source_path": "memory.jsonl"}));
    assert_eq!(
        err,
        "source_path 'memory.jsonl': cannot read memory.jsonl: this host reads no named files; nothing was imported"
    );
}
