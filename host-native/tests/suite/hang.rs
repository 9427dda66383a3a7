//! Hangs, not crashes, and the bounds docs/file-format.md and docs/postgres.md state.
//!
//! A writer that holds the memory file's lock and does not let go (stopped with SIGSTOP,
//! hung): a write behind it waits 10 s, then fails naming the holder's pid and changing
//! nothing; writes go through as soon as it lets go, and a lock whose process is gone is
//! taken over at once.
//!
//! The PostgreSQL server stopped with SIGSTOP, and a network that stops delivering without
//! closing anything (a loopback proxy that stops forwarding): a write fails within 20 s
//! naming the database and changing nothing, and once the database answers again the next
//! writes go through by themselves.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::net::{self, Line, entity_names, tool_text};
use crate::common::pg::Cluster;
use crate::common::{call, initialize};

fn create(id: u64, name: &str) -> Value {
    call(
        id,
        "create_entities",
        json!({"entities": [{"name": name, "entityType": "t", "observations": []}]}),
    )
}

#[test]
fn a_write_behind_a_stopped_lock_holder_fails_naming_it_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let server = net::start(&["-f".as_ref(), file.as_os_str()], &["--transport", "tcp"]);
    let mut client = Line::connect(&server.addr);
    client.request(&initialize(0));
    assert!(!tool_text(&client.request(&create(1, "A"))).1);
    // The holder: a stopped process, which the lock names.
    let mut holder = Command::new("sleep").arg("600").spawn().unwrap();
    let pid = holder.id();
    // SAFETY: signals a child this test started and still owns.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGSTOP) }, 0);
    let lock = dir.path().join("memory.mcpmem.lock");
    std::fs::write(&lock, format!("{pid} a-stopped-writer")).unwrap();
    let started = Instant::now();
    let (text, failed) = tool_text(&client.request(&create(2, "B")));
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
    assert!(!tool_text(&client.request(&create(3, "B"))).1);
    // A lock whose process is gone is taken over at once.
    holder.kill().unwrap();
    holder.wait().unwrap();
    std::fs::write(&lock, format!("{pid} a-dead-writer")).unwrap();
    let started = Instant::now();
    assert!(!tool_text(&client.request(&create(4, "C"))).1);
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(
        entity_names(&mut client, 5),
        ["A", "B", "C"],
        "what was acknowledged, nothing else"
    );
}

/// A loopback proxy to `port` that forwards until told to go silent: it then keeps every
/// connection open and forwards nothing (what arrives waits in its kernel, acknowledged),
/// until it is told to go on.
struct Proxy {
    port: u16,
    silent: Arc<AtomicBool>,
}

impl Proxy {
    fn to(port: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let silent = Arc::new(AtomicBool::new(false));
        let proxy = Proxy {
            port: listener.local_addr().unwrap().port(),
            silent: Arc::clone(&silent),
        };
        thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else {
                    continue;
                };
                for (from, to) in [
                    (client.try_clone().unwrap(), server.try_clone().unwrap()),
                    (server, client),
                ] {
                    let silent = Arc::clone(&silent);
                    thread::spawn(move || forward(from, to, &silent));
                }
            }
        });
        proxy
    }

    fn set_silent(&self, silent: bool) {
        self.silent.store(silent, Ordering::SeqCst);
    }
}

/// Copies `from` to `to`, holding what it read while `silent`, until `from` ends.
fn forward(mut from: TcpStream, mut to: TcpStream, silent: &AtomicBool) {
    let mut buf = [0; 16 * 1024];
    let hold = || {
        while silent.load(Ordering::SeqCst) {
            thread::sleep(Duration::from_millis(10));
        }
    };
    loop {
        hold();
        let n = from.read(&mut buf).unwrap_or(0);
        hold();
        if n == 0 || to.write_all(&buf[..n]).is_err() {
            let _ = to.shutdown(Shutdown::Write);
            return;
        }
    }
}

/// Writes `name` until a write goes through (at most 15 s); how long it took.
fn write_until_through(client: &mut Line, id: u64, name: &str) -> Duration {
    let started = Instant::now();
    loop {
        let (text, failed) = tool_text(&client.request(&create(id, name)));
        if !failed {
            return started.elapsed();
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "no write went through once the database answered again: {text}"
        );
        thread::sleep(Duration::from_millis(200));
    }
}

/// A write while the database does not answer fails within the bound, naming it; then,
/// once `answer` lets it answer, writes go through again by themselves.
fn a_write_to_a_silent_database_fails_and_resumes(
    client: &mut Line,
    shown: &str,
    silence: impl FnOnce(),
    answer: impl FnOnce(),
) {
    assert!(!tool_text(&client.request(&create(1, "A"))).1);
    silence();
    let started = Instant::now();
    let (text, failed) = tool_text(&client.request(&create(2, "B")));
    let waited = started.elapsed();
    assert!(failed, "{text}");
    assert!(
        text.contains(shown) && text.contains("no answer within 20 s"),
        "the error names the database and the bound: {text}"
    );
    assert!(
        (Duration::from_secs(20)..Duration::from_secs(30)).contains(&waited),
        "waited {waited:?}"
    );
    answer();
    let resumed = write_until_through(client, 3, "C");
    eprintln!("failed after {waited:?}; through again {resumed:?} after it answered");
    assert_eq!(
        entity_names(client, 4),
        ["A", "C"],
        "what was acknowledged, nothing else"
    );
}

#[test]
fn a_write_to_a_stopped_postgres_server_fails_in_time_and_service_resumes() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url("stopped");
    let server = net::start(&["--store".as_ref(), url.as_ref()], &["--transport", "tcp"]);
    let mut client = Line::connect(&server.addr);
    client.request(&initialize(0));
    let shown = format!("postgres://127.0.0.1:{}/postgres?memory=stopped", pg.port());
    a_write_to_a_silent_database_fails_and_resumes(
        &mut client,
        &shown,
        || pg.signal(libc::SIGSTOP),
        || pg.signal(libc::SIGCONT),
    );
    // The database holds what was acknowledged: a new server reads the same.
    let fresh = net::start(&["--store".as_ref(), url.as_ref()], &["--transport", "tcp"]);
    let mut reader = Line::connect(&fresh.addr);
    reader.request(&initialize(0));
    assert_eq!(entity_names(&mut reader, 1), ["A", "C"]);
}

#[test]
fn a_write_over_a_network_gone_silent_fails_in_time_and_service_resumes() {
    let Some(pg) = Cluster::start() else { return };
    let proxy = Proxy::to(pg.port());
    let url = format!(
        "postgres://postgres@127.0.0.1:{}/postgres?memory=silent",
        proxy.port
    );
    let server = net::start(&["--store".as_ref(), url.as_ref()], &["--transport", "tcp"]);
    let mut client = Line::connect(&server.addr);
    client.request(&initialize(0));
    let shown = format!("postgres://127.0.0.1:{}/postgres?memory=silent", proxy.port);
    a_write_to_a_silent_database_fails_and_resumes(
        &mut client,
        &shown,
        || proxy.set_silent(true),
        || proxy.set_silent(false),
    );
}
