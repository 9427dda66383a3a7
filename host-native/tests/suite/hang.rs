//! A writer that holds the memory file's lock and does not let go (stopped with SIGSTOP,
//! hung): a write behind it waits 10 s, then fails naming the holder's pid and changing
//! nothing; writes go through as soon as it lets go, and a lock whose process is gone is
//! taken over at once (docs/file-format.md states the bounds).

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::net::{self, Line};
use crate::common::{call, initialize};

fn create(id: u64, name: &str) -> Value {
    call(
        id,
        "create_entities",
        json!({"entities": [{"name": name, "entityType": "t", "observations": []}]}),
    )
}

/// The text of a tool call's reply, and whether it is an error.
fn text_of(reply: &Value) -> (String, bool) {
    let result = &reply["result"];
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    (text.to_string(), result["isError"] == true)
}

#[test]
fn a_write_behind_a_stopped_lock_holder_fails_naming_it_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let server = net::start(&["-f".as_ref(), file.as_os_str()], &["--transport", "tcp"]);
    let mut client = Line::connect(&server.addr);
    client.request(&initialize(0));
    assert!(!text_of(&client.request(&create(1, "A"))).1);
    // The holder: a stopped process, which the lock names.
    let mut holder = Command::new("sleep").arg("600").spawn().unwrap();
    let pid = holder.id();
    // SAFETY: signals a child this test started and still owns.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGSTOP) }, 0);
    let lock = dir.path().join("memory.mcpmem.lock");
    std::fs::write(&lock, format!("{pid} a-stopped-writer")).unwrap();
    let started = Instant::now();
    let (text, failed) = text_of(&client.request(&create(2, "B")));
    let waited = started.elapsed();
    assert!(failed, "{text}");
    assert!(
        text.contains(&format!(
            "memory.mcpmem is locked by process {pid}, which has held it"
        )),
        "{text}"
    );
    assert!(
        (Duration::from_secs(10)..Duration::from_secs(20)).contains(&waited),
        "waited {waited:?}"
    );
    // It goes on and lets go: the next write goes through.
    std::fs::remove_file(&lock).unwrap();
    assert!(!text_of(&client.request(&create(3, "B"))).1);
    // A lock whose process is gone is taken over at once.
    holder.kill().unwrap();
    holder.wait().unwrap();
    std::fs::write(&lock, format!("{pid} a-dead-writer")).unwrap();
    let started = Instant::now();
    assert!(!text_of(&client.request(&create(4, "C"))).1);
    assert!(started.elapsed() < Duration::from_secs(2));
    let read = client.request(&call(5, "read_graph", json!({})));
    let names: Vec<&str> = read["result"]["structuredContent"]["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["A", "B", "C"],
        "what was acknowledged, nothing else"
    );
}
