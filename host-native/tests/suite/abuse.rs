//! The HTTP transport under abuse, all at once: a thousand idle connections, clients that
//! send their headers a byte at a time, bodies at the size limit, malformed chunked
//! bodies, a flood of wrong tokens. A good client goes on being answered throughout; the
//! server closes a connection that has not sent a request's head within `HEAD_WAIT` (10 s),
//! and its memory stays bounded (README states the limits). Its latency before and during is
//! printed, not judged: speed lives in benchmarks.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::net::{self, ACCEPT, JSON, header};
use crate::common::{call, initialize};

const AUTH: (&str, &str) = ("Authorization", "Bearer s3cret");

/// How long the server lets a connection go without a request's head, and some slack.
const HEAD_WAIT: Duration = Duration::from_secs(10);
const SLACK: Duration = Duration::from_secs(5);

/// The server's resident memory, in MiB.
fn rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        / 1024
}

/// A good client's call on its session; how long the answer took.
fn good_call(addr: &str, session: &str, id: u64) -> Duration {
    let body = call(id, "search_nodes", json!({"query": "abuse"})).to_string();
    let headers = [JSON, ACCEPT, AUTH, ("Mcp-Session-Id", session)];
    let started = Instant::now();
    let (status, _, reply) = net::http(addr, "/mcp", "POST", &headers, &body);
    assert_eq!(status, 200, "{reply}");
    started.elapsed()
}

/// The 50th and 99th percentiles.
fn percentiles(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    (at(0.5), at(0.99))
}

/// Whether the server closed `stream` (an end of stream or a reset) within `within`.
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue, // an error response first (408, 400): read on to the close
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => return false,
            Err(_) => return true,
        }
    }
}

/// Runs `abuse` on a thread of its own until `stop`, `pause` apart (as fast as the server
/// answers would take the test's own CPU from the server and from the tests that run
/// beside it); how many times it ran.
fn repeat(
    stop: &Arc<AtomicBool>,
    pause: Duration,
    abuse: impl Fn() + Send + 'static,
) -> thread::JoinHandle<usize> {
    let stop = Arc::clone(stop);
    thread::spawn(move || {
        let mut n = 0;
        while !stop.load(Ordering::SeqCst) {
            abuse();
            n += 1;
            thread::sleep(pause);
        }
        n
    })
}

/// Lets this process open as many files as the system allows (a thousand connections
/// and more: the soft limit is often 1,024).
fn raise_open_files() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct given, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

#[test]
fn http_under_abuse_answers_good_clients_and_sheds_the_rest() {
    raise_open_files();
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret").unwrap();
    let file = dir.path().join("m.mcpmem");
    let server = net::start(
        &["-f".as_ref(), file.as_os_str()],
        &[
            "--transport",
            "http",
            "--auth-token-file",
            token.to_str().unwrap(),
        ],
    );
    let (addr, pid) = (server.addr.clone(), server.child.id());
    let init = initialize(1).to_string();
    let (status, h, _) = net::http(&addr, "/mcp", "POST", &[JSON, ACCEPT, AUTH], &init);
    assert_eq!(status, 200);
    let session = header(&h, "mcp-session-id").unwrap().to_string();
    let before: Vec<Duration> = (0..200).map(|i| good_call(&addr, &session, i)).collect();
    let rss_before = rss_mib(pid);

    // A thousand connections that send nothing.
    let mut idle: Vec<TcpStream> = (0..1000)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    // Twenty clients sending a request's head a byte every 200 ms (it would take 20 s).
    let slow: Vec<thread::JoinHandle<(bool, Duration)>> = (0..20)
        .map(|_| {
            let addr = addr.clone();
            thread::spawn(move || {
                let mut stream = TcpStream::connect(&addr).unwrap();
                let started = Instant::now();
                let head = format!(
                    "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nX-Slow: {}",
                    "x".repeat(80)
                );
                for byte in head.bytes() {
                    if stream.write_all(&[byte]).is_err() {
                        return (true, started.elapsed());
                    }
                    thread::sleep(Duration::from_millis(200));
                    if started.elapsed() > HEAD_WAIT + SLACK {
                        break;
                    }
                }
                (closed_within(&mut stream, SLACK), started.elapsed())
            })
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    // Wrong tokens, as fast as they are answered.
    let refused = Arc::new(AtomicUsize::new(0));
    let flood = (0..2)
        .map(|_| {
            let (addr, init, refused) = (addr.clone(), init.clone(), Arc::clone(&refused));
            repeat(&stop, Duration::from_millis(1), move || {
                let bad = ("Authorization", "Bearer guess");
                let (status, _, _) = net::http(&addr, "/mcp", "POST", &[JSON, ACCEPT, bad], &init);
                assert_eq!(status, 401);
                refused.fetch_add(1, Ordering::SeqCst);
            })
        })
        .collect::<Vec<_>>();
    // Chunked bodies whose chunk sizes are not numbers.
    let malformed = {
        let addr = addr.clone();
        repeat(&stop, Duration::from_millis(1), move || {
            let mut stream = TcpStream::connect(&addr).unwrap();
            let request = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer s3cret\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{{}}\r\n0\r\n\r\n"
            );
            stream.write_all(request.as_bytes()).unwrap();
            let mut reply = String::new();
            stream.set_read_timeout(Some(SLACK)).unwrap();
            let _ = stream.read_to_string(&mut reply);
            assert!(!reply.starts_with("HTTP/1.1 2"), "{reply}");
        })
    };
    // Bodies at the size limit (16 MiB), with the token: parsed and answered.
    let big = {
        let (addr, session) = (addr.clone(), session.clone());
        let pad = "x".repeat((16 << 20) - 200);
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "search_nodes", "arguments": {"query": "big"}, "_pad": pad}})
        .to_string();
        assert!(body.len() <= 16 << 20);
        repeat(&stop, Duration::from_millis(250), move || {
            let headers = [JSON, ACCEPT, AUTH, ("Mcp-Session-Id", session.as_str())];
            let (status, _, reply) = net::http(&addr, "/mcp", "POST", &headers, &body);
            assert_eq!(status, 200, "{}", &reply[..reply.len().min(300)]);
        })
    };

    let started = Instant::now();
    let mut during = Vec::new();
    let mut rss_most = rss_before;
    let mut id = 1000;
    while started.elapsed() < HEAD_WAIT + SLACK {
        during.push(good_call(&addr, &session, id));
        id += 1;
        if id % 20 == 0 {
            rss_most = rss_most.max(rss_mib(pid));
        }
    }
    stop.store(true, Ordering::SeqCst);
    let flooded: usize = flood.into_iter().map(|t| t.join().unwrap()).sum();
    let malformed = malformed.join().unwrap();
    let big = big.join().unwrap();
    let slow: Vec<(bool, Duration)> = slow.into_iter().map(|t| t.join().unwrap()).collect();
    let idle_closed = idle
        .iter_mut()
        // Opened more than HEAD_WAIT + SLACK ago: a closed one reads its end at once.
        .map(|s| closed_within(s, Duration::from_millis(50)))
        .filter(|closed| *closed)
        .count();

    let (p50, p99) = percentiles(before);
    let (p50_during, p99_during) = percentiles(during.clone());
    eprintln!(
        "good client: p50 {p50:?} p99 {p99:?} alone; p50 {p50_during:?} p99 {p99_during:?} under abuse ({} calls); \
         {flooded} wrong tokens refused, {malformed} malformed chunked bodies, {big} bodies of 16 MiB; \
         RSS {rss_before} MiB before, at most {rss_most} MiB during; {idle_closed} of 1000 idle connections closed",
        during.len()
    );
    assert!(
        during.iter().all(|d| *d < Duration::from_secs(5)),
        "a good call waited {:?}",
        during.iter().max()
    );
    assert!(refused.load(Ordering::SeqCst) > 0 && malformed > 0 && big > 0);
    for (closed, after) in slow {
        assert!(closed, "a slow head was still open after {after:?}");
        assert!(after < HEAD_WAIT + SLACK, "closed only after {after:?}");
    }
    assert_eq!(
        idle_closed, 1000,
        "idle connections are closed after HEAD_WAIT"
    );
    assert!(
        rss_most < rss_before + 512,
        "RSS grew from {rss_before} to {rss_most} MiB"
    );
    // Still answering once it is over.
    good_call(&addr, &session, id);
}
