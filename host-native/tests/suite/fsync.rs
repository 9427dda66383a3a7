//! A failed fsync is never forgotten: with background durability the flusher keeps the
//! file dirty when fsync fails (so a later fsync covers those bytes once the disk recovers)
//! and the next change's reply says the changes may not be durable; nothing acknowledged is
//! lost. The disk's failures are injected through `FsDisk::open_with_fsync`.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcp_memory::disk::{Durability, FsDisk};
use mcp_memory::engine::{Options, Server};
use mcp_memory_core::filelog::FileLog;
use serde_json::{Value, json};

/// Whether the disk is full.
static FULL: AtomicBool = AtomicBool::new(false);
/// The file's length at the last fsync that succeeded (what it made durable).
static SYNCED_LEN: AtomicU64 = AtomicU64::new(0);

/// An fsync that fails with ENOSPC while [`FULL`], and records what it covered otherwise.
fn flaky_fsync(file: &File) -> io::Result<()> {
    if FULL.load(Ordering::SeqCst) {
        return Err(io::Error::from_raw_os_error(libc::ENOSPC));
    }
    file.sync_data()?;
    SYNCED_LEN.store(file.metadata()?.len(), Ordering::SeqCst);
    Ok(())
}

fn open(path: &std::path::Path, fsync: mcp_memory::disk::Fsync) -> Server {
    let disk = FsDisk::open_with_fsync(path, Durability::Background, fsync).expect("open");
    Server::open(Box::new(FileLog::new(disk)), &Options::default())
        .expect("the memory opens")
        .0
}

/// Creates one entity; returns the tool result.
fn create(server: &mut Server, name: &str) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "create_entities",
        "arguments": {"entities": [{"name": name, "entityType": "t", "observations": []}]}}});
    let replies = server.handle_whole(0, &call.to_string()).expect("no trap");
    let reply: Value = serde_json::from_str(replies.last().expect("a reply")).expect("JSON");
    reply["result"].clone()
}

/// Waits (up to a few flush intervals) until `done` holds.
fn wait_for(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(10), "never: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_failed_background_fsync_fails_the_next_reply_and_is_retried_once_the_disk_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.mcpmem");
    let mut server = open(&path, flaky_fsync);
    assert!(create(&mut server, "A").get("isError").is_none());
    let len = || std::fs::metadata(&path).unwrap().len();
    wait_for("A is fsynced", || {
        SYNCED_LEN.load(Ordering::SeqCst) == len()
    });

    FULL.store(true, Ordering::SeqCst);
    let acknowledged = create(&mut server, "B");
    assert!(acknowledged.get("isError").is_none(), "{acknowledged}");
    // The flusher's round after B fails; give it two flush intervals.
    std::thread::sleep(Duration::from_millis(2_500));
    let reply = create(&mut server, "C");
    assert_eq!(reply["isError"], true, "{reply}");
    let text = reply["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("The change was written but may not be durable: cannot sync")
            && text.contains("No space left on device"),
        "{text}"
    );
    assert!(SYNCED_LEN.load(Ordering::SeqCst) < len());
    // The flusher tries C's bytes and fails again; then nothing more is written.
    std::thread::sleep(Duration::from_millis(2_500));

    // The disk recovers: with nothing more written, the flusher syncs B and C after all,
    // and the failure it had not reported yet is moot.
    FULL.store(false, Ordering::SeqCst);
    wait_for(
        "the bytes written while the disk was full are fsynced",
        || SYNCED_LEN.load(Ordering::SeqCst) == len(),
    );
    let later = create(&mut server, "D");
    assert!(later.get("isError").is_none(), "{later}");
    drop(server);

    let mut reopened = open(&path, File::sync_data);
    let read = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "read_graph", "arguments": {}}});
    let replies = reopened
        .handle_whole(0, &read.to_string())
        .expect("no trap");
    let graph: Value = serde_json::from_str(&replies[0]).unwrap();
    let names: Vec<&str> = graph["result"]["structuredContent"]["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["A", "B", "C", "D"]);
}
