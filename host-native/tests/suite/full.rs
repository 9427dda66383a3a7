//! Storage that fills up, for real: a memory file on a size-limited tmpfs, filled by writes
//! in both durability modes. The write that finds no room fails with an error naming the
//! file and the cause and changes nothing; nothing acknowledged is lost (a fresh server
//! after a SIGKILL reads exactly what was acknowledged); writes go through again once there
//! is room. Mounting needs root: elsewhere the test says it is skipped.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::net::{self, Line, entity_names, tool_text};
use crate::common::{call, initialize};

/// A tmpfs of a few MiB mounted at a directory, unmounted when dropped.
struct Tmpfs {
    at: PathBuf,
}

impl Tmpfs {
    /// Mounts one of `size` (`mount`'s `size=` option) at `at`, or `None` when this process
    /// is not root (only root mounts; as root a failure to mount fails the test).
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: mounting a tmpfs needs root");
            return None;
        }
        std::fs::create_dir_all(at).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .status()
            .unwrap();
        assert!(status.success(), "mount a tmpfs at {}", at.display());
        Some(Tmpfs { at: at.to_owned() })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.at).status();
    }
}

/// An entity with one observation of 8 KiB.
fn create(id: u64, name: &str) -> Value {
    let text = format!("{name} {}", "x".repeat(8 << 10));
    call(
        id,
        "create_entities",
        json!({"entities": [{"name": name, "entityType": "t", "observations": [text]}]}),
    )
}

/// The names of the entities the server on `client` holds, sorted.
fn names(client: &mut Line, id: u64) -> Vec<String> {
    let mut names = entity_names(client, id);
    names.sort();
    names
}

fn served(file: &Path, durability: &str) -> (net::Server, Line) {
    let server = net::start(
        &["-f".as_ref(), file.as_os_str()],
        &["--transport", "tcp", "--durability", durability],
    );
    let mut client = Line::connect(&server.addr);
    client.request(&initialize(0));
    (server, client)
}

fn fill_fail_and_resume(durability: &str) {
    let dir = tempfile::tempdir().unwrap();
    let Some(tmpfs) = Tmpfs::mount(&dir.path().join("small"), "2m") else {
        return;
    };
    // Room to make later: a file that takes a quarter of it.
    let filler = tmpfs.at.join("filler");
    std::fs::write(&filler, vec![0u8; 512 << 10]).unwrap();
    let file = tmpfs.at.join("memory.mcpmem");
    let (mut server, mut client) = served(&file, durability);
    let mut acknowledged = Vec::new();
    let mut id = 1;
    let refusal = loop {
        let name = format!("E{id}");
        let (text, failed) = tool_text(&client.request(&create(id, &name)));
        id += 1;
        if failed {
            break text;
        }
        acknowledged.push(name);
        assert!(id < 1000, "2 MiB never filled up");
    };
    assert!(
        refusal.contains("memory.mcpmem") && refusal.contains("No space left on device"),
        "the error names the file and the cause: {refusal}"
    );
    // Not a page left (the refused write may have left room for a lock file's few bytes).
    let last_pages = tmpfs.at.join("last-pages");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&last_pages).unwrap();
        while f.write_all(&[0u8; 4096]).and_then(|()| f.flush()).is_ok() {}
    }
    // Still full: the next ones fail the same way, after the lock was let go too (a lock
    // file that could not be written was once left empty, and every later write then
    // failed as "locked by another process" until it went stale), and none is in the memory.
    for _ in 0..2 {
        std::thread::sleep(Duration::from_millis(50));
        let (again, failed) = tool_text(&client.request(&create(id, "late")));
        assert!(
            failed && again.contains("No space left on device"),
            "{durability}: {again}"
        );
        id += 1;
    }
    acknowledged.sort();
    assert_eq!(
        names(&mut client, id),
        acknowledged,
        "{durability}: no phantom write"
    );
    id += 1;
    // Room again: writes go through.
    std::fs::remove_file(&filler).unwrap();
    std::fs::remove_file(&last_pages).unwrap();
    let (text, failed) = tool_text(&client.request(&create(id, "after")));
    assert!(!failed, "{durability}: a write once there is room: {text}");
    id += 1;
    acknowledged.push("after".to_string());
    acknowledged.sort();
    if durability == "background" {
        // What the background flusher makes durable within its bound.
        std::thread::sleep(Duration::from_millis(1500));
    }
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let (_fresh, mut reader) = served(&file, durability);
    assert_eq!(
        names(&mut reader, id),
        acknowledged,
        "{durability}: a fresh server reads what was acknowledged, nothing else"
    );
    eprintln!(
        "{durability}: {} writes acknowledged before the tmpfs was full; refused with: {refusal}",
        acknowledged.len() - 1
    );
}

#[test]
fn a_full_disk_fails_writes_clearly_loses_nothing_and_resumes_with_room_sync() {
    fill_fail_and_resume("sync");
}

#[test]
fn a_full_disk_fails_writes_clearly_loses_nothing_and_resumes_with_room_background() {
    fill_fail_and_resume("background");
}
