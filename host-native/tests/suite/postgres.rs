//! The PostgreSQL store (`--store postgres://…`) as a team relies on it, against a private
//! PostgreSQL server (`common::pg`): servers writing at once lose nothing and each sees
//! every write; a subscriber on one server hears a change made through another; a restart
//! serves what the last server did (through checkpoints and a compaction); the database
//! going away mid-run fails requests clearly, and once it is back nothing acknowledged is
//! lost and nothing is applied twice. (SIGKILL rounds on the store: tests/kill.rs.)

use crate::common::net::{self, ACCEPT, JSON, Line, header};
use crate::common::pg::Cluster;
use crate::common::{call, initialize, request};

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A server on stdio over the store at `url`.
struct Served {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The messages on stdout, read by a thread of their own.
    stdout: mpsc::Receiver<Value>,
    next_id: u64,
}

impl Served {
    fn start(url: &str) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
            .env_remove("MEMORY_FILE_PATH")
            .env_remove("MCP_MEMORY_STORE")
            .env("MCP_MEMORY_PROFILE", "all")
            .args(["--store", url])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let (messages, stdout) = mpsc::channel();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let _ = messages.send(serde_json::from_str(&line).unwrap());
            }
        });
        let mut served = Served {
            stdin: child.stdin.take(),
            stdout,
            child,
            next_id: 1,
        };
        let init = served.request(initialize(0));
        assert!(init.get("result").is_some(), "{init}");
        served
    }

    fn request(&mut self, message: Value) -> Value {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
        loop {
            let reply = self.next().expect("a reply");
            if reply.get("id") == message.get("id") {
                return reply;
            }
        }
    }

    /// The next message, if one comes within 10 seconds.
    fn next(&mut self) -> Option<Value> {
        self.stdout.recv_timeout(Duration::from_secs(10)).ok()
    }

    /// Calls a tool; its result (an error result has `isError`).
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.next_id += 1;
        let reply = self.request(call(self.next_id, tool, arguments));
        reply["result"].clone()
    }

    fn graph(&mut self) -> Value {
        let result = self.call("read_graph", json!({}));
        assert!(result.get("isError").is_none(), "{result}");
        result["structuredContent"].clone()
    }

    /// Closes stdin and waits for a clean exit.
    fn stop(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn ok(result: &Value) -> bool {
    result.get("isError").is_none() && result.get("content").is_some()
}

fn entity(name: &str, observations: &[String]) -> Value {
    json!({"name": name, "entityType": "t", "observations": observations})
}

fn entity_count(graph: &Value) -> usize {
    graph["entities"].as_array().unwrap().len()
}

#[test]
fn four_servers_writing_at_once_lose_nothing_and_each_sees_every_write() {
    const SERVERS: usize = 4;
    const WRITES: usize = 1000;
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url("team");
    let writers: Vec<_> = (0..SERVERS)
        .map(|s| {
            let url = url.clone();
            thread::spawn(move || {
                let mut served = Served::start(&url);
                for i in 0..WRITES {
                    let result = served.call(
                        "create_entities",
                        json!({"entities": [entity(&format!("s{s}-{i}"), &[])]}),
                    );
                    assert!(ok(&result), "server {s}, write {i}: {result}");
                }
                served
            })
        })
        .collect();
    let mut served: Vec<Served> = writers.into_iter().map(|w| w.join().unwrap()).collect();
    for (s, server) in served.iter_mut().enumerate() {
        // A read sees another server's write once its announcement arrived (milliseconds).
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut graph = server.graph();
        while entity_count(&graph) < SERVERS * WRITES && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(10));
            graph = server.graph();
        }
        let names: HashSet<&str> = (graph["entities"].as_array().unwrap().iter())
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), SERVERS * WRITES, "server {s} sees every write");
        assert_eq!(entity_count(&graph), SERVERS * WRITES, "and each once");
    }
    let rows: i64 = pg
        .client()
        .query_one(
            "SELECT count(*) FROM mcp_memory_log WHERE memory = 'team' AND payload IS NOT NULL",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(rows >= (SERVERS * WRITES) as i64, "{rows} rows");
}

#[test]
fn subscribers_on_other_servers_hear_a_change_made_through_one() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url("shared");
    let subscribe = request(
        2,
        "resources/subscribe",
        json!({"uri": "memory://knowledge-graph"}),
    );
    let on_tcp = net::start(&["--store".as_ref(), url.as_ref()], &["--transport", "tcp"]);
    let mut line = Line::connect(&on_tcp.addr);
    assert!(line.request(&initialize(1)).get("result").is_some());
    assert_eq!(line.request(&subscribe)["result"], json!({}));
    let mut on_stdio = Served::start(&url);
    assert_eq!(on_stdio.request(subscribe)["result"], json!({}));

    let mut writer = Served::start(&url);
    let started = Instant::now();
    let created = writer.call("create_entities", json!({"entities": [entity("X", &[])]}));
    assert!(ok(&created), "{created}");
    // Nothing is sent to the subscribers: the notifications come by themselves.
    let heard = line.next().expect("a notification over tcp");
    assert_eq!(
        heard["method"], "notifications/resources/updated",
        "{heard}"
    );
    let heard = on_stdio.next().expect("a notification on stdio");
    assert_eq!(
        heard["method"], "notifications/resources/updated",
        "{heard}"
    );
    eprintln!(
        "heard another server's change after {:?}",
        started.elapsed()
    );
    let graph = line.request(&call(3, "read_graph", json!({})));
    assert_eq!(
        graph["result"]["structuredContent"]["entities"][0]["name"],
        "X"
    );
    assert_eq!(on_stdio.graph()["entities"][0]["name"], "X");
}

#[test]
fn a_restarted_server_serves_what_the_last_one_did() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url("restart");
    let mut first = Served::start(&url);
    // Enough changes for checkpoints (each past the bytes of the last), then deletions and
    // a compaction (a new generation of rows).
    for batch in 0..40 {
        let entities: Vec<Value> = (0..100)
            .map(|i| {
                let name = format!("e{batch}-{i}");
                entity(
                    &name,
                    &[format!("{name} was seen on day {batch} with {i} others")],
                )
            })
            .collect();
        assert!(ok(
            &first.call("create_entities", json!({ "entities": entities }))
        ));
        let relations = json!({"relations": [{"from": format!("e{batch}-0"),
            "to": format!("e{batch}-1"), "relationType": "knows"}]});
        assert!(ok(&first.call("create_relations", relations)));
    }
    let names: Vec<String> = (0..20).map(|b| format!("e{b}-5")).collect();
    assert!(ok(
        &first.call("delete_entities", json!({ "entityNames": names }))
    ));
    // Another server, which hears of the compaction and reads the new generation.
    let mut watching = Served::start(&url);
    let live = first.graph();
    // The log is read a page of rows at a time, and the compacted one written in pieces.
    let compacted = first.call("compact", json!({}));
    assert!(ok(&compacted), "{compacted}");
    assert_eq!(first.graph(), live, "compaction keeps the graph");
    let observed = first.call(
        "add_observations",
        json!({"observations": [{"entityName": "e0-0", "contents": ["after compaction"]}]}),
    );
    assert!(ok(&observed), "{observed}");
    let history = first.call("history", json!({"limit": 2, "itemsPerOp": 1}));
    let changes = &history["structuredContent"]["changes"];
    assert_eq!(history["structuredContent"]["more"], true, "{history}");
    assert_eq!(changes[1]["ops"][0]["op"], "delete_entities", "{history}");
    let undone = first.call("undo", json!({"changeId": changes[1]["id"]}));
    assert!(ok(&undone), "{undone}");
    let live = first.graph();
    assert_eq!(entity_count(&live), 40 * 100, "the deletion undone");
    assert_eq!(
        watching.graph(),
        live,
        "another server reads the new generation"
    );
    first.stop();

    let mut db = pg.client();
    let row = db
        .query_one(
            "SELECT m.generation, count(*) FILTER (WHERE l.checkpoint)
             FROM mcp_memory m JOIN mcp_memory_log l ON l.memory = m.name
             WHERE m.name = 'restart' GROUP BY m.generation",
            &[],
        )
        .unwrap();
    let (generation, checkpoints): (i64, i64) = (row.get(0), row.get(1));
    assert!(generation > 1, "the compaction installed a new generation");
    assert!(checkpoints >= 1, "the log holds a checkpoint");

    let mut second = Served::start(&url);
    assert_eq!(second.graph(), live, "replayed from the database");
}

/// Adds observation `text` to `E`; whether it was acknowledged, and the error text if not.
fn observe(served: &mut Served, text: &str) -> Result<(), String> {
    let result = served.call(
        "add_observations",
        json!({"observations": [{"entityName": "E", "contents": [text]}]}),
    );
    if ok(&result) {
        return Ok(());
    }
    Err(result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

#[test]
fn the_database_going_away_mid_run_fails_requests_clearly_and_loses_nothing() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url("outage");
    let mut served = Served::start(&url);
    assert!(ok(&served.call(
        "create_entities",
        json!({"entities": [entity("E", &[])]})
    )));
    let mut acknowledged = Vec::new();
    let mut failures = Vec::new();
    let mut write = |served: &mut Served, i: usize| {
        let text = format!("<{i}>");
        match observe(served, &text) {
            Ok(()) => acknowledged.push(text),
            Err(why) => failures.push(why),
        }
    };
    for i in 0..50 {
        write(&mut served, i);
    }
    // Down between requests: the next ones fail at once, saying why.
    pg.stop();
    for i in 50..55 {
        write(&mut served, i);
    }
    pg.start_again();
    // Down in the middle of writes: whatever was being written either landed or failed.
    let stopper = {
        let deadline = Instant::now() + Duration::from_millis(300);
        thread::spawn(move || {
            thread::sleep(deadline.saturating_duration_since(Instant::now()));
            pg.stop();
            thread::sleep(Duration::from_millis(500));
            pg.start_again();
            pg
        })
    };
    let started = Instant::now();
    let mut i = 55;
    while started.elapsed() < Duration::from_secs(20) && !stopper.is_finished() {
        write(&mut served, i);
        i += 1;
    }
    let pg = stopper.join().unwrap();
    // Back: writes succeed again within the backoff.
    let back = Instant::now();
    let mut recovered = false;
    while back.elapsed() < Duration::from_secs(15) {
        let text = format!("<{i}>");
        i += 1;
        if observe(&mut served, &text).is_ok() {
            acknowledged.push(text);
            recovered = true;
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    assert!(recovered, "no write succeeded after the database came back");
    assert!(
        failures.len() >= 5,
        "writes while it was down failed: {failures:?}"
    );
    for why in &failures {
        assert!(
            why.contains("postgres://127.0.0.1") && why.contains("memory=outage"),
            "the error names the database: {why}"
        );
    }

    let graph = served.graph();
    let observations: Vec<&str> = graph["entities"][0]["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    let distinct: HashSet<&str> = observations.iter().copied().collect();
    assert_eq!(distinct.len(), observations.len(), "nothing applied twice");
    for text in &acknowledged {
        assert!(
            distinct.contains(text.as_str()),
            "{text} was acknowledged and is lost"
        );
    }
    // In the log: each acknowledged write once, none of the others more than once.
    let changes: Vec<Vec<u8>> = (pg.client())
        .query(
            "SELECT payload FROM mcp_memory_log WHERE memory = 'outage' AND NOT checkpoint",
            &[],
        )
        .unwrap()
        .into_iter()
        .map(|row| row.get(0))
        .collect();
    for n in 0..i {
        let text = format!("<{n}>");
        let rows = (changes.iter())
            .filter(|c| c.windows(text.len()).any(|w| w == text.as_bytes()))
            .count();
        let want = if acknowledged.contains(&text) {
            1..=1
        } else {
            0..=1
        };
        assert!(want.contains(&rows), "{text} is in {rows} change rows");
    }
    eprintln!(
        "{} acknowledged, {} failed, {} observations kept",
        acknowledged.len(),
        failures.len(),
        observations.len()
    );
    served.stop();
    let mut fresh = Served::start(&url);
    assert_eq!(fresh.graph(), graph, "the live graph is the database's");
}

/// A POST of `message` to `path` with this bearer token (and session); status, session id
/// (of an `initialize`), body.
fn post(
    addr: &str,
    path: &str,
    token: &str,
    session: Option<&str>,
    message: &Value,
) -> (u16, Option<String>, String) {
    let bearer = format!("Bearer {token}");
    let mut headers = vec![JSON, ACCEPT, ("Authorization", bearer.as_str())];
    if let Some(id) = session {
        headers.push(("Mcp-Session-Id", id));
    }
    let (status, h, body) = net::http(addr, path, "POST", &headers, &message.to_string());
    (
        status,
        header(&h, "mcp-session-id").map(str::to_string),
        body,
    )
}

#[test]
fn named_memories_are_served_apart_over_http_each_with_its_own_token() {
    let Some(pg) = Cluster::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let memories = dir.path().join("memories");
    std::fs::write(&memories, "# name token\nalpha token-a\n\nbeta  token-b\n").unwrap();
    let url = pg.url("main");
    let served = net::start(
        &["--store".as_ref(), url.as_ref()],
        &[
            "--transport",
            "http",
            "--auth-token",
            "token-main",
            "--memories",
            memories.to_str().unwrap(),
        ],
    );
    let addr = served.addr.as_str();
    let create = call(
        2,
        "create_entities",
        json!({"entities": [entity("A1", &[])]}),
    );
    let read = call(3, "read_graph", json!({}));

    let (status, alpha, body) = post(addr, "/mcp/alpha", "token-a", None, &initialize(1));
    assert_eq!(status, 200, "{body}");
    let alpha = alpha.expect("a session");
    let (status, _, body) = post(addr, "/mcp/alpha", "token-a", Some(&alpha), &create);
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("A1"), "{body}");

    for (path, token) in [
        ("/mcp/alpha", "token-b"),
        ("/mcp/alpha", "token-main"),
        ("/mcp", "token-a"),
    ] {
        let (status, _, body) = post(addr, path, token, None, &initialize(1));
        assert_eq!(status, 401, "{path} with {token}: {body}");
    }
    let (status, _, _) = post(addr, "/mcp/gamma", "token-a", None, &initialize(1));
    assert_eq!(status, 404, "a memory not served");
    let (status, _, _) = post(addr, "/mcp/beta", "token-b", Some(&alpha), &read);
    assert_eq!(status, 404, "alpha's session is not beta's");

    let (_, beta, _) = post(addr, "/mcp/beta", "token-b", None, &initialize(1));
    let (status, _, body) = post(addr, "/mcp/beta", "token-b", beta.as_deref(), &read);
    assert_eq!(status, 200, "{body}");
    assert!(!body.contains("A1"), "beta is another memory: {body}");
    let (_, main, _) = post(addr, "/mcp", "token-main", None, &initialize(1));
    let (_, _, body) = post(addr, "/mcp", "token-main", main.as_deref(), &read);
    assert!(!body.contains("A1"), "and so is the server's own: {body}");

    // The named memory is the database's: any server on it sees the change.
    let mut on_alpha = Served::start(&pg.url("alpha"));
    assert_eq!(on_alpha.graph()["entities"][0]["name"], "A1");
}

/// `mcp-memory ARGS` on the store `store` (`-f FILE` or `--store URL`): its stdout, after
/// checking it succeeded.
fn run(store: &[&str], args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .env_remove("MCP_MEMORY_STORE")
        .env("MCP_MEMORY_NOW", "1790000000000")
        .args(store)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{store:?} {args:?}: {stderr}");
    out.stdout
}

#[test]
fn import_and_export_move_a_memory_between_a_file_and_the_database_unchanged() {
    let Some(pg) = Cluster::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let file = file.to_str().unwrap();
    // A file memory with a bit of everything the graph keeps (tags, importance, a parent,
    // an observation's kind, an ended relation), made through the tools.
    let mut served = Command::new(env!("CARGO_BIN_EXE_mcp-memory"))
        .env_remove("MEMORY_FILE_PATH")
        .env_remove("MCP_MEMORY_STORE")
        .env("MCP_MEMORY_PROFILE", "all")
        .args(["-f", file])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let calls = [
        initialize(1),
        call(
            2,
            "create_entities",
            json!({"entities": [entity("Ada", &["wrote the first program".into()]),
            entity("Engine", &["analytical".into()])]}),
        ),
        call(
            3,
            "create_relations",
            json!({"relations": [{"from": "Ada", "to": "Engine", "relationType": "programmed"}]}),
        ),
        call(
            4,
            "add_tags",
            json!({"entityName": "Ada", "tags": ["math", "history"]}),
        ),
        call(
            5,
            "set_importance",
            json!({"entityName": "Ada", "importance": 9}),
        ),
        call(
            6,
            "set_entity_parent",
            json!({"entityName": "Engine", "parentName": "Ada"}),
        ),
    ];
    let input: String = calls.iter().map(|c| format!("{c}\n")).collect();
    served
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    assert!(served.wait().unwrap().success());

    let on_file = ["-f", file];
    let url = pg.url("moved");
    let on_db = ["--store", url.as_str()];
    run(&on_db, &["import", file]);
    for format in ["jsonl", "memory-mcp", "log"] {
        assert_eq!(
            run(&on_file, &["export", "--format", format]),
            run(&on_db, &["export", "--format", format]),
            "file to database: {format} exports differ"
        );
    }
    // And back: the database's log export into a new file memory.
    let back = dir.path().join("back.mcpmem");
    std::fs::write(&back, run(&on_db, &["export", "--format", "log"])).unwrap();
    let copy = dir.path().join("copy.mcpmem");
    let on_copy = ["-f", copy.to_str().unwrap()];
    run(&on_copy, &["import", back.to_str().unwrap()]);
    for format in ["jsonl", "memory-mcp", "log"] {
        assert_eq!(
            run(&on_db, &["export", "--format", format]),
            run(&on_copy, &["export", "--format", format]),
            "database to file: {format} exports differ"
        );
    }
    let jsonl = String::from_utf8(run(&on_copy, &["export", "--format", "memory-mcp"])).unwrap();
    assert!(
        jsonl.contains("\"importance\":9") && jsonl.contains("programmed"),
        "{jsonl}"
    );
}
