//! Load over the TCP transport: 128 connections held at once, each sending requests one at
//! a time (write, then wait for the reply), half of them writes. Prints requests per second
//! and latency percentiles. `cargo bench -p mcp-memory-server --bench tcp_load [-- CONNECTIONS
//! REQUESTS_PER_CONNECTION]`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with("--"));
    let connections: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(128);
    let requests: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    let dir = std::env::temp_dir().join(format!("mcp-memory-tcp-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .arg("-f")
        .arg(dir.join("memory.mcpmem"))
        .args(["--transport", "tcp", "--bind", "127.0.0.1:0"])
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut banner = String::new();
    stderr.read_line(&mut banner).expect("a start-up line");
    let addr = banner
        .split("tcp://")
        .nth(1)
        .expect("an address")
        .trim()
        .to_string();

    let barrier = Arc::new(Barrier::new(connections + 1));
    let clients: Vec<_> = (0..connections)
        .map(|c| {
            let (addr, barrier) = (addr.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || client(&addr, c, requests, &barrier))
        })
        .collect();
    barrier.wait();
    let started = Instant::now();
    let mut latencies: Vec<Duration> = clients
        .into_iter()
        .flat_map(|c| c.join().expect("a client thread"))
        .collect();
    let elapsed = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    latencies.sort_unstable();
    let at = |p: f64| latencies[((latencies.len() - 1) as f64 * p) as usize].as_secs_f64() * 1e3;
    println!(
        "tcp_load: {connections} connections held, {} requests in {:.2} s: {:.0} requests/s; latency ms p50 {:.2} p95 {:.2} p99 {:.2} max {:.2}",
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        at(0.5),
        at(0.95),
        at(0.99),
        at(1.0)
    );
}

/// One connection: initialize, wait for everyone, then `requests` calls; their latencies.
fn client(addr: &str, c: usize, requests: usize, barrier: &Barrier) -> Vec<Duration> {
    let stream = TcpStream::connect(addr).expect("connects");
    stream.set_nodelay(true).expect("nodelay");
    let mut reader = BufReader::new(stream.try_clone().expect("a second handle"));
    let mut writer = stream;
    let mut line = String::new();
    let mut exchange = |message: String, line: &mut String| {
        writer.write_all(message.as_bytes()).expect("sends");
        line.clear();
        reader.read_line(line).expect("a reply");
        assert!(line.contains("\"result\""), "{line}");
    };
    exchange(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"load","version":"0"}}}
"#
        .to_string(),
        &mut line,
    );
    barrier.wait();
    (0..requests)
        .map(|i| {
            let call = if i % 2 == 0 {
                format!(
                    r#"{{"name":"create_entities","arguments":{{"entities":[{{"name":"c{c}-{i}","entityType":"load","observations":["written by connection {c}"]}}]}}}}"#
                )
            } else {
                format!(r#"{{"name":"search_nodes","arguments":{{"query":"c{c}-{}"}}}}"#, i - 1)
            };
            let message = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{call}}}"#, i + 1) + "\n";
            let sent = Instant::now();
            exchange(message, &mut line);
            sent.elapsed()
        })
        .collect()
}
