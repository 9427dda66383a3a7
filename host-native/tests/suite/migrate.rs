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

/// Serves `file` over stdio under profile memory-mcp for these tool calls; returns each
/// call's `structuredContent` and the server's stderr.
fn calls(file: &Path, calls: &[(&str, serde_json::Value)]) -> (Vec<serde_json::Value>, String) {
    calls_as("memory-mcp", file, calls)
}

/// [`calls`] under `profile`.
fn calls_as(
    profile: &str,
    file: &Path,
    calls: &[(&str, serde_json::Value)],
) -> (Vec<serde_json::Value>, String) {
    let mut messages = vec![crate::common::initialize(0)];
    for (i, (tool, args)) in calls.iter().enumerate() {
        messages.push(crate::common::call(i as u64 + 1, tool, args.clone()));
    }
    let (replies, stderr) = crate::common::serve_as(profile, file, &messages);
    let results = (1..=calls.len() as u64)
        .map(|id| {
            let reply = replies.iter().find(|r| r["id"] == id).expect("a reply");
            reply["result"]["structuredContent"].clone()
        })
        .collect();
    (results, stderr)
}

#[test]
fn a_memory_mcp_files_tag_aliases_and_saved_searches_come_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.jsonl");
    fs::write(&file, MEMORY_MCP).unwrap();
    let aliases = r#"{"alias":"maths","canonical":"math","createdAt":"2024-03-02T00:00:00.000Z"}"#;
    fs::write(dir.path().join("memory-tag-aliases.jsonl"), aliases).unwrap();
    let searches = r#"{"name":"maths people","query":"program","tags":["maths"],"createdAt":"2024-03-02T00:00:00.000Z","useCount":0}"#;
    fs::write(dir.path().join("memory-saved-searches.jsonl"), searches).unwrap();
    let (results, stderr) = calls(
        &file,
        &[
            ("resolve_tag", serde_json::json!({"tag": "maths"})),
            ("list_saved_searches", serde_json::json!({})),
        ],
    );
    assert_eq!(results[0]["resolved"], "math", "{stderr}");
    assert_eq!(results[1]["searches"][0]["name"], "maths people");
    assert!(
        stderr.contains("read 1 tag aliases from memory-tag-aliases.jsonl"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("memory-tag-aliases.jsonl")).unwrap(),
        aliases,
        "the side files stay as they were"
    );
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

/// Runs SQL on a new database at `path`.
fn database(path: &Path, sql: &str) {
    let db = rusqlite::Connection::open(path).unwrap();
    db.execute_batch(sql).unwrap();
}

/// A Rust seed 3.x database: Ada and Babbage who knows her, and a deleted entity.
const RUST_SEED_3: &str = "CREATE TABLE entity (id INTEGER PRIMARY KEY, name_hash INTEGER NOT NULL, name TEXT NOT NULL,
             type_id INTEGER NOT NULL, obs_count INTEGER NOT NULL DEFAULT 0, out_deg INTEGER NOT NULL DEFAULT 0,
             in_deg INTEGER NOT NULL DEFAULT 0, created_us INTEGER NOT NULL, updated_us INTEGER NOT NULL,
             flags INTEGER NOT NULL DEFAULT 0) STRICT;
         CREATE TABLE observation (id INTEGER PRIMARY KEY, entity_id INTEGER NOT NULL, idx INTEGER NOT NULL,
             body TEXT NOT NULL, created_us INTEGER NOT NULL) STRICT;
         CREATE TABLE relation (from_id INTEGER NOT NULL, to_id INTEGER NOT NULL, type_id INTEGER NOT NULL,
             created_us INTEGER NOT NULL) STRICT;
         CREATE TABLE type_dict (id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, name TEXT NOT NULL,
             count INTEGER NOT NULL DEFAULT 0) STRICT;
         INSERT INTO type_dict VALUES (1, 0, 'person', 2), (2, 1, 'knows', 1);
         INSERT INTO entity VALUES (1, 0, 'Ada', 1, 2, 1, 0, 1700000000000000, 1700000060000000, 0),
                                   (2, 0, 'Gone', 1, 0, 0, 0, 1700000000000000, 1700000000000000, 1),
                                   (3, 0, 'Babbage', 1, 0, 0, 1, 1700000000000000, 1700000000000000, 0);
         INSERT INTO observation VALUES (1, 1, 1, 'second', 1700000060000000), (2, 1, 0, 'first', 1700000000000000);
         INSERT INTO relation VALUES (1, 3, 2, 1700000000000000), (2, 3, 2, 1700000000000000);";

#[test]
fn a_rust_seed_3_database_opens_as_the_memory_with_its_times() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.db");
    database(&file, RUST_SEED_3);
    let graph = run(&file, &["export", "--format", "memory-mcp"]);
    assert_eq!(
        graph,
        concat!(
            r#"{"type":"entity","name":"Ada","entityType":"person","observations":["first","second"],"createdAt":"2023-11-14T22:13:20.000Z","lastModified":"2023-11-14T22:14:20.000Z"}"#,
            "\n",
            r#"{"type":"entity","name":"Babbage","entityType":"person","observations":[],"createdAt":"2023-11-14T22:13:20.000Z","lastModified":"2023-11-14T22:13:20.000Z"}"#,
            "\n",
            r#"{"type":"relation","from":"Ada","to":"Babbage","relationType":"knows","createdAt":"2023-11-14T22:13:20.000Z","lastModified":"2023-11-14T22:13:20.000Z"}"#
        ),
        "deleted entities (flags) and their relations are not memory"
    );
    assert!(
        dir.path().join("memory.db.bak").exists(),
        "the database is kept"
    );
}

#[test]
fn a_python_seed_database_imports_with_status_kinds_supersession_ended_relations_and_reflections() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("memory.db");
    database(
        &db,
        "CREATE TABLE entities (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE,
             entity_type TEXT NOT NULL DEFAULT 'Generic', status TEXT NOT NULL DEFAULT 'activo',
             created_at TEXT NOT NULL DEFAULT (datetime('now')), updated_at TEXT NOT NULL DEFAULT (datetime('now')));
         CREATE TABLE observations (id INTEGER PRIMARY KEY AUTOINCREMENT, entity_id INTEGER NOT NULL,
             content TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'generic', supersedes INTEGER,
             superseded_at TEXT, similarity_flag INTEGER NOT NULL DEFAULT 0,
             created_at TEXT NOT NULL DEFAULT (datetime('now')));
         CREATE TABLE relations (id INTEGER PRIMARY KEY AUTOINCREMENT, from_entity INTEGER NOT NULL,
             to_entity INTEGER NOT NULL, relation_type TEXT NOT NULL, context TEXT,
             active INTEGER NOT NULL DEFAULT 1, ended_at TEXT,
             created_at TEXT NOT NULL DEFAULT (datetime('now')), UNIQUE(from_entity, to_entity, relation_type));
         CREATE TABLE reflections (id INTEGER PRIMARY KEY AUTOINCREMENT, target_type TEXT NOT NULL,
             target_id INTEGER, author TEXT NOT NULL DEFAULT 'sofia', content TEXT NOT NULL, mood TEXT,
             created_at TEXT NOT NULL DEFAULT (datetime('now')));
         CREATE TABLE entity_access (entity_id INTEGER PRIMARY KEY, access_count INTEGER NOT NULL DEFAULT 1,
             last_access TEXT NOT NULL DEFAULT (datetime('now')));
         INSERT INTO entities VALUES (1, 'Sofia', 'persona', 'activo', '2024-01-01 10:00:00', '2024-01-02 10:00:00'),
                                     (2, 'Proyecto', 'proyecto', 'archivado', '2024-01-01 10:00:00', '2024-01-01 10:00:00');
         INSERT INTO observations VALUES
             (10, 1, 'vive en Madrid', 'generic', NULL, '2024-01-02 10:00:00', 0, '2024-01-01 10:00:00'),
             (11, 2, 'usa Rust', 'tecnico', NULL, NULL, 0, '2024-01-01 10:00:00'),
             (12, 1, 'vive en Lisboa', 'hecho', 10, NULL, 0, '2024-01-02 10:00:00');
         INSERT INTO relations VALUES
             (1, 1, 2, 'dirige', 'desde 2023', 0, '2024-01-03 00:00:00', '2024-01-01 10:00:00'),
             (2, 1, 2, 'colabora_en', NULL, 1, NULL, '2024-01-01 10:00:00');
         INSERT INTO reflections VALUES (1, 'entity', 1, 'nolan', 'Sofia cambia de ciudad', 'curiosidad', '2024-01-02 11:00:00'),
                                        (2, 'global', NULL, 'sofia', 'memoria pequeña', NULL, '2024-01-02 12:00:00'),
                                        (3, 'entity', 9, 'nolan', 'Marta se fue', NULL, '2024-01-02 13:00:00');
         INSERT INTO entity_access VALUES (1, 3, '2024-01-02 10:00:00');
         CREATE TABLE reflection_embeddings (reflection_id INTEGER PRIMARY KEY, embedding BLOB);
         INSERT INTO reflection_embeddings VALUES (1, x'00'), (2, x'00');
         CREATE TABLE entity_embeddings_rowids (rowid INTEGER PRIMARY KEY, id TEXT);
         INSERT INTO entity_embeddings_rowids VALUES (1, NULL), (2, NULL), (3, NULL);
         PRAGMA writable_schema = ON;
         INSERT INTO sqlite_master VALUES ('table', 'entity_embeddings', 'entity_embeddings', 0,
             'CREATE VIRTUAL TABLE entity_embeddings USING vec0(embedding float[4])');
         PRAGMA writable_schema = OFF;
         PRAGMA journal_mode = WAL;",
    );
    let memory = dir.path().join("memory.mcpmem");
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .arg("-f")
        .arg(&memory)
        .arg("import")
        .arg(&db)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("read the Python MCP Memory v2 database: 2 entities, 3 observations, 2 relations, 3 reflections (1 about an entity or relation the database no longer holds, kept about it by its old id); skipped (not memory: embeddings are recomputed, access statistics and search logs are not kept): entity_embeddings (3 rows), reflection_embeddings (2 rows), entity_access (1 rows)"),
        "{stderr}"
    );
    // Issue 41, Python 9: the database is closed cleanly, nothing left beside it.
    for side in ["memory.db-wal", "memory.db-shm"] {
        assert!(!dir.path().join(side).exists(), "{side} left behind");
    }
    // A reflection about an entity the database no longer holds stays about it.
    let (found, _) = calls_as(
        "mcp-memory-py",
        &memory,
        &[("search_reflections", serde_json::json!({"query": "Marta"}))],
    );
    let marta = &found[0]["results"][0];
    assert_eq!(marta["target_type"], "entity", "{found:?}");
    assert_eq!(
        marta["target"], "#9 (an entity the database no longer holds)",
        "{found:?}"
    );
    // The memory as a Memory MCP file shows the current observations and relations.
    assert_eq!(
        run(&memory, &["export"]),
        concat!(
            r#"{"type":"entity","name":"Sofia","entityType":"persona","observations":["vive en Lisboa"]}"#,
            "\n",
            r#"{"type":"entity","name":"Proyecto","entityType":"proyecto","observations":["usa Rust"]}"#,
            "\n",
            r#"{"type":"relation","from":"Sofia","to":"Proyecto","relationType":"colabora_en"}"#
        )
    );
    // In detail: status, kinds, the superseded observation and the ended relation.
    let session = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open_nodes","arguments":{"names":["Sofia"],"include":["metadata","history"]}}}"#,
    ]
    .join("\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .arg("-f")
        .arg(&memory)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{session}\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let reply: serde_json::Value = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .nth(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .unwrap();
    let page = &reply["result"]["structuredContent"];
    let sofia = &page["entities"][0];
    assert_eq!(sofia["status"], "activo");
    assert_eq!(sofia["createdAt"], "2024-01-01T10:00:00.000Z");
    assert_eq!(
        sofia["facts"],
        serde_json::json!([{"id": 2, "text": "vive en Lisboa", "kind": "hecho", "createdAt": "2024-01-02T10:00:00.000Z", "supersedes": 1}])
    );
    assert_eq!(
        sofia["superseded"],
        serde_json::json!([{"id": 1, "text": "vive en Madrid", "kind": "generic", "createdAt": "2024-01-01T10:00:00.000Z", "supersededAt": "2024-01-02T10:00:00.000Z"}])
    );
    assert_eq!(
        page["endedRelations"],
        serde_json::json!([{"from": "Sofia", "to": "Proyecto", "relationType": "dirige", "createdAt": "2024-01-01T10:00:00.000Z", "context": "desde 2023", "endedAt": "2024-01-03T00:00:00.000Z"}])
    );
}

/// Regression: servers started together on one database (Claude Desktop, Code and Cursor at
/// login) converted it each, the second renaming the first one's log over the backup.
#[test]
fn a_database_opened_by_processes_starting_together_is_converted_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.db");
    database(&file, RUST_SEED_3);
    let original = fs::read(&file).unwrap();
    let starts: Vec<_> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
                .env_remove("MEMORY_FILE_PATH")
                .arg("-f")
                .arg(&file)
                .args(["export", "--format", "jsonl"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("the binary starts")
        })
        .collect();
    let mut exports = Vec::new();
    for child in starts {
        let out = child.wait_with_output().expect("it ends");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        exports.push(out.stdout);
    }
    assert!(exports.iter().all(|e| *e == exports[0] && !e.is_empty()));
    assert_eq!(
        fs::read(dir.path().join("memory.db.bak")).unwrap(),
        original
    );
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains(".bak.") && !n.contains("converting")),
        "{names:?}"
    );
}

/// Regression: verify read a seed database as a reference JSONL file and called it damaged.
#[test]
fn verify_says_a_seed_database_converts_and_what_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.db");
    database(&file, RUST_SEED_3);
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .arg("verify")
        .arg(&file)
        .output()
        .expect("the binary starts");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("SQLite database of a seed memory server (not an mcp-memory log): clean (opening converts it to a log)"),
        "{text}"
    );
    assert!(text.contains("2 entities"), "{text}");
    assert!(seeddb_untouched(&file));
}

/// Whether the database is still a database (verify never converts).
fn seeddb_untouched(file: &Path) -> bool {
    fs::read(file).unwrap().starts_with(b"SQLite format 3\0")
        && !file.with_extension("db.bak").exists()
}
