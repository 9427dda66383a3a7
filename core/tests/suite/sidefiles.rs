//! The TypeScript seed's side files (`memory-tag-aliases.jsonl`, `memory-saved-searches.jsonl`)
//! convert with its memory file: its aliases and saved searches are there after the first
//! open, lines breaking its rules are skipped and counted, and a second open reads them no
//! more.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::sidefiles;
use mcp_memory_core::testing::{MemDir, MemDisk};
use serde_json::json;

/// The memory file: two engineers, Ada tagged `work` (as `Work`) and important.
const MEMORY: &str = concat!(
    r#"{"type":"entity","name":"Ada","entityType":"person","observations":["an engineer"],"createdAt":"2024-03-01T10:00:00.000Z","lastModified":"2024-03-01T10:00:00.000Z","tags":["work"],"importance":8}"#,
    "\n",
    r#"{"type":"entity","name":"Bob","entityType":"person","observations":["an engineer"],"createdAt":"2024-03-01T10:00:00.000Z","lastModified":"2024-03-01T10:00:00.000Z"}"#,
);

/// As the seed writes them (`lines.join('\n')`), with lines it would have skipped or that
/// break its own rules.
const ALIASES: &str = concat!(
    r#"{"alias":"JOB","canonical":"work","description":"what pays","createdAt":"2024-03-02T00:00:00.000Z"}"#,
    "\n",
    r#"{"alias":"office","canonical":"work","createdAt":"2024-03-03T00:00:00.000Z"}"#,
    "\n{not json\n",
    r#"{"alias":"job","canonical":"career","createdAt":"2024-03-04T00:00:00.000Z"}"#,
    "\n",
    r#"{"alias":"gig","canonical":"job","createdAt":"2024-03-04T00:00:00.000Z"}"#,
    "\n",
    r#"{"alias":"same","canonical":"SAME","createdAt":"2024-03-04T00:00:00.000Z"}"#,
);

const SEARCHES: &str = concat!(
    r#"{"name":"colleagues","query":"engineer","tags":["Work"],"createdAt":"2024-03-05T00:00:00.000Z","useCount":0}"#,
    "\n",
    r#"{"name":"everyone","description":"all of them","query":"engineer","createdAt":"2024-03-05T00:00:00.000Z","lastUsed":"2024-03-06T00:00:00.000Z","useCount":3}"#,
    "\n",
    r#"{"name":"colleagues","query":"engineer","tags":["work"],"minImportance":5,"createdAt":"2024-03-07T00:00:00.000Z","useCount":1}"#,
    "\n",
    r#"{"name":"bad","query":"x","minImportance":11,"createdAt":"2024-03-07T00:00:00.000Z","useCount":0}"#,
    "\n",
);

/// Process `pid` opening `name` in `dir`, as a host opens it: under the file's lock.
fn opened(dir: &MemDir, name: &str, pid: u32) -> (Server<FileLog<MemDisk>>, Vec<String>) {
    let mut log = FileLog::new(dir.open(name, pid));
    log.lock().expect("the lock");
    let (mut m, warnings) = open_with_warnings(log);
    m.memory_mut().log_mut().unlock();
    (m, warnings)
}

fn seed_dir() -> MemDir {
    let dir = MemDir::new();
    dir.put("memory.jsonl", MEMORY.as_bytes());
    dir.put("memory-tag-aliases.jsonl", ALIASES.as_bytes());
    dir.put("memory-saved-searches.jsonl", SEARCHES.as_bytes());
    dir
}

#[test]
fn the_side_files_are_named_after_the_memory_file_as_the_seed_names_them() {
    for (file, stem) in [
        ("memory.jsonl", "memory"),
        ("kb.v2.jsonl", "kb.v2"),
        ("memory", "memory"),
        (".memory", ".memory"),
    ] {
        assert_eq!(
            sidefiles::names(file),
            [
                format!("{stem}-tag-aliases.jsonl"),
                format!("{stem}-saved-searches.jsonl")
            ]
        );
    }
}

#[test]
fn a_memory_mcp_file_converts_with_its_tag_aliases_and_saved_searches() {
    let dir = seed_dir();
    let (mut m, warnings) = opened(&dir, "memory.jsonl", 1);
    let said = warnings.join("\n");
    assert!(
        said.contains("read 2 tag aliases from memory-tag-aliases.jsonl; 4 line(s) skipped (the first: line 3: "),
        "{said}"
    );
    assert!(
        said.contains("read 2 saved searches from memory-saved-searches.jsonl; 1 line(s) skipped (the first: line 4: `minImportance` must be from 0 to 10)"),
        "{said}"
    );

    let aliases = call_ok(&mut m, "list_tag_aliases", json!({}));
    assert_eq!(
        aliases["aliases"],
        json!([
            {"alias": "job", "canonical": "work", "description": "what pays", "createdAt": "2024-03-02T00:00:00.000Z"},
            {"alias": "office", "canonical": "work", "createdAt": "2024-03-03T00:00:00.000Z"},
        ]),
        "an alias named twice, of an alias, or of itself is skipped"
    );
    let resolved = call_ok(&mut m, "resolve_tag", json!({"tag": "Office"}));
    assert_eq!(resolved["resolved"], "work");

    let searches = call_ok(&mut m, "list_saved_searches", json!({}));
    assert_eq!(
        searches["searches"],
        json!([
            {"name": "everyone", "description": "all of them", "query": "engineer",
             "createdAt": "2024-03-05T00:00:00.000Z", "useCount": 3, "lastUsed": "2024-03-06T00:00:00.000Z"},
            {"name": "colleagues", "query": "engineer", "tags": ["work"], "minImportance": 5,
             "createdAt": "2024-03-07T00:00:00.000Z", "useCount": 1},
        ]),
        "a name saved twice keeps its last line, the one the seed runs"
    );
    at(&mut m, 1_800_000_000_000);
    let found = call_ok(
        &mut m,
        "execute_saved_search",
        json!({"name": "colleagues"}),
    );
    let names: Vec<&str> = found["entities"]
        .as_array()
        .expect("entities")
        .iter()
        .map(|e| e["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["Ada"], "its tag and importance filters hold");
    m.memory_mut().log_mut().unlock();
    drop(m);

    // Opened again: the log has them; the side files are left as they were and not read.
    let (mut m, warnings) = opened(&dir, "memory.jsonl", 2);
    assert!(
        !warnings.iter().any(|w| w.contains("tag aliases")),
        "{warnings:?}"
    );
    let searches = call_ok(&mut m, "list_saved_searches", json!({}));
    assert_eq!(searches["searches"][1]["useCount"], 2);
    assert_eq!(
        dir.file("memory-tag-aliases.jsonl").as_deref(),
        Some(ALIASES.as_bytes())
    );
    assert_eq!(
        dir.file("memory-saved-searches.jsonl").as_deref(),
        Some(SEARCHES.as_bytes())
    );
}

#[test]
fn side_files_of_another_memory_file_are_not_read() {
    let dir = seed_dir();
    dir.put("other.jsonl", MEMORY.as_bytes());
    let (mut m, warnings) = opened(&dir, "other.jsonl", 1);
    assert!(
        !warnings.iter().any(|w| w.contains("from memory-")),
        "{warnings:?}"
    );
    let aliases = call_ok(&mut m, "list_tag_aliases", json!({}));
    assert_eq!(aliases["aliases"], json!([]), "{aliases}");
}
