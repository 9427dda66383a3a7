//! The file the `migrate` tool names, read by the native host (`FsDisk::read_named`): only a
//! regular file of at most 256 MiB, never the memory file or its companions, the path
//! resolved as MEMORY_FILE_PATH is; and the tool end to end through the component.

use std::ffi::CString;
use std::fs::{self, File};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use mcp_memory::disk::{Durability, FsDisk};
use mcp_memory::engine::{Options, Server};
use mcp_memory_core::filelog::{Disk, FileLog};
use serde_json::{Value, json};

const REFERENCE: &str = concat!(
    r#"{"type":"entity","name":"Ada","entityType":"Persona","observations":["wrote the first program"]}"#,
    "\n",
    r#"{"type":"entity","name":"Babbage","entityType":"Persona","observations":[]}"#,
    "\n",
    r#"{"type":"relation","from":"Ada","to":"Babbage","relationType":"conoce"}"#,
);

fn disk(dir: &Path) -> FsDisk {
    FsDisk::open(&dir.join("memory.mcpmem"), Durability::Sync).expect("open")
}

fn refusal(disk: &mut FsDisk, path: &Path) -> String {
    let path = path.to_str().expect("UTF-8 path");
    match disk.read_named(path) {
        Ok(bytes) => panic!("{path} was read ({} bytes)", bytes.len()),
        Err(e) => e.0,
    }
}

#[test]
fn reads_a_regular_file_and_refuses_what_is_not_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut d = disk(tmp.path());
    let old = tmp.path().join("old.jsonl");
    fs::write(&old, REFERENCE).expect("write");
    let read = d.read_named(old.to_str().expect("UTF-8"));
    assert_eq!(read.expect("read"), REFERENCE.as_bytes());

    let sub = tmp.path().join("sub");
    fs::create_dir(&sub).expect("mkdir");
    let err = refusal(&mut d, &sub);
    assert!(
        err.ends_with("it is a directory; migrate reads only a regular file"),
        "{err}"
    );

    let fifo = tmp.path().join("pipe");
    let c = CString::new(fifo.as_os_str().as_bytes()).expect("no NUL");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let err = refusal(&mut d, &fifo);
    assert!(err.contains("it is not a regular file"), "{err}");

    let huge = tmp.path().join("huge.jsonl");
    File::create(&huge)
        .and_then(|f| f.set_len((256 << 20) + 1))
        .expect("a sparse file");
    let err = refusal(&mut d, &huge);
    assert!(err.ends_with("it is larger than 256 MiB"), "{err}");

    let err = refusal(&mut d, &tmp.path().join("gone.jsonl"));
    assert!(err.starts_with("cannot read "), "{err}");
    assert!(err.contains("gone.jsonl"), "{err}");
}

#[test]
fn refuses_the_memory_file_and_its_companions_however_named() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut d = disk(tmp.path());
    let memory = tmp.path().join("memory.mcpmem");
    let itself = [
        memory.clone(),
        tmp.path().join("sub/../memory.mcpmem"),
        tmp.path().join("link.jsonl"),
    ];
    fs::create_dir(tmp.path().join("sub")).expect("mkdir");
    std::os::unix::fs::symlink(&memory, tmp.path().join("link.jsonl")).expect("symlink");
    for path in &itself {
        let err = refusal(&mut d, path);
        assert!(err.ends_with("it is the memory file itself"), "{err}");
    }
    for name in [
        "memory.mcpmem.lock",
        "memory.mcpmem.bak",
        "memory.mcpmem.bak.2",
        ".memory.mcpmem.1-2.tmp",
        "memory.mcpmem.indexes",
    ] {
        fs::write(tmp.path().join(name), REFERENCE).expect("write");
        let err = refusal(&mut d, &tmp.path().join(name));
        assert!(
            err.contains("it is a companion of the memory file"),
            "{name}: {err}"
        );
    }
    // A companion's name elsewhere is only a name.
    let elsewhere = tmp.path().join("sub/memory.mcpmem.bak");
    fs::write(&elsewhere, REFERENCE).expect("write");
    assert!(d.read_named(elsewhere.to_str().expect("UTF-8")).is_ok());
}

/// `path` (absolute) relative to the working directory.
fn relative_to_cwd(path: &Path) -> PathBuf {
    let cwd = std::env::current_dir().expect("cwd");
    let up = cwd
        .components()
        .filter(|c| matches!(c, Component::Normal(_)));
    let mut rel: PathBuf = up.map(|_| "..").collect();
    rel.push(path.strip_prefix("/").expect("absolute"));
    rel
}

#[test]
fn a_relative_path_is_resolved_as_memory_file_path_is() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut d = disk(tmp.path());
    let old = tmp.path().join("old.jsonl");
    fs::write(&old, REFERENCE).expect("write");
    let rel = relative_to_cwd(&old);
    assert!(rel.is_relative());
    let read = d.read_named(rel.to_str().expect("UTF-8"));
    assert_eq!(read.expect("read"), REFERENCE.as_bytes());
    let err = refusal(&mut d, &relative_to_cwd(&tmp.path().join("memory.mcpmem")));
    assert!(err.ends_with("it is the memory file itself"), "{err}");
}

fn call(server: &mut Server, name: &str, arguments: Value) -> Value {
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}});
    let replies = server
        .handle_whole(0, &message.to_string())
        .expect("handled");
    let reply: Value = serde_json::from_str(replies.last().expect("a reply")).expect("JSON");
    reply["result"].clone()
}

#[test]
fn migrate_reads_through_the_component_and_refuses_the_memory_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let log = FileLog::new(disk(tmp.path()));
    let options = Options {
        profile: "mcp-memory-py".to_string(),
        ..Options::default()
    };
    let (mut server, _) = Server::open(Box::new(log), &options).expect("opens");
    let old = tmp.path().join("old.jsonl");
    fs::write(&old, REFERENCE).expect("write");
    let args = json!({"source_path": old.to_str().expect("UTF-8")});
    let out = call(&mut server, "migrate", args.clone());
    assert_eq!(
        out["structuredContent"],
        json!({"entities_imported": 2, "relations_imported": 1, "errors": 0, "skipped": 0})
    );
    let again = call(&mut server, "migrate", args);
    assert_eq!(again["structuredContent"]["skipped"], 3);
    let memory = tmp.path().join("memory.mcpmem");
    let before = fs::read(&memory).expect("read");
    let err = call(&mut server, "migrate", json!({"source_path": memory}));
    assert_eq!(err["isError"], true);
    let text = err["content"][0]["text"].as_str().expect("text");
    assert!(text.starts_with("source_path '"), "{text}");
    assert!(text.contains("it is the memory file itself"), "{text}");
    assert_eq!(fs::read(&memory).expect("read"), before, "nothing changed");
}
