//! `Memory::handle` on message sequences, over an in-memory log that other writers also
//! change and whose operations fail on demand.
//!
//! Input: if it starts with `{`, its lines are fed as they are (the seed corpus holds the
//! scenario sessions this way); otherwise the bytes drive a generator of operations: tool
//! calls built from the catalog, other protocol messages, raw lines, records appended or a
//! log replaced by another writer, injected log failures, and restarts.
//!
//! Oracles, after every message:
//! - every outgoing message is one line of JSON; a JSON-RPC request (by the SDK's schema,
//!   `mcp_memory_fuzz::classify`) gets exactly one reply, last, echoing its id, with only
//!   resource notifications before it, and only to a subscriber; anything else gets nothing;
//! - a tool result has one text item and either `isError: true` or structuredContent (equal
//!   to the text when the text is JSON);
//! - a message that is not a mutating tool call, and a failed one (unless the failure is a
//!   sync after the write), leaves the log's contents as they were;
//! - whenever the memory has seen the whole log, a fresh memory replaying the log holds the
//!   same graph as the live one (reference JSONL export, so order and duplicates count), and
//!   a memory that cannot be reopened from the log is one that refuses to export.
//!
//! At the end, the live memory's compacted log (`export_log`) reopens to the same graph.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use mcp_memory_core::{Contents, Foreign, Server, SideFile, frame, jsonl};
use mcp_memory_fuzz::generate;
use mcp_memory_fuzz::{Incoming, MemLog, check_exchange, classify, id_of, replayed};
use serde_json::Value;

/// `FUZZ_TRACE=1` prints every message and reply (to read what an input does).
fn trace() -> bool {
    static TRACE: OnceLock<bool> = OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("FUZZ_TRACE").is_some_and(|v| v == "1"))
}

struct Harness {
    log: MemLog,
    memory: Server<MemLog>,
    subscribed: bool,
    /// The ids of the `subscriptions/listen` streams on the graph not cancelled yet.
    listens: Vec<Value>,
    sent: u64,
}

impl Harness {
    fn new(contents: Contents) -> Self {
        let log = MemLog::holding(contents);
        let (memory, _) = Server::open(log.clone()).expect("a MemLog always opens");
        Harness {
            log,
            memory,
            subscribed: false,
            listens: Vec::new(),
            sent: 0,
        }
    }

    /// Forgets the listen a `notifications/cancelled` line ends.
    fn cancelled(&mut self, line: &str) {
        // Read as the server reads it (lone surrogate escapes repaired).
        let Ok((msg, _)) = mcp_memory_core::json::parse_lenient::<Value>(line) else {
            return;
        };
        if msg["method"] == "notifications/cancelled"
            && let Some(id) = msg["params"].get("requestId").and_then(id_of)
        {
            self.listens.retain(|l| *l != id);
        }
    }

    /// Sends one line and checks the exchange and the log.
    fn send(&mut self, line: &str) {
        self.sent += 1;
        let incoming = classify(line);
        let before = self.log.contents();
        let out = self.memory.handle(line);
        if trace() {
            eprintln!("> {line}");
            out.iter()
                .for_each(|o| eprintln!("< {}", o.chars().take(300).collect::<String>()));
        }
        let exchange = check_exchange(line, &incoming, &out);
        let after = self.log.contents();
        let Incoming::Request { id, method, params } = &incoming else {
            assert_eq!(
                before, after,
                "a message without reply changed the log: {line:?}"
            );
            self.cancelled(line);
            return;
        };
        if exchange.listening == Some(true) && !self.listens.contains(id) {
            self.listens.push(id.clone());
        }
        let listening = !self.listens.is_empty();
        if exchange.notifications > 0 {
            assert!(
                self.subscribed || listening,
                "notified without a subscription: {out:?}"
            );
        }
        let uri = params
            .as_ref()
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str);
        let graph_uri = uri == Some(mcp_memory_core::mcp::GRAPH_URI);
        // Only a subscription answered with a result counts (modern requests get -32601).
        let answered = exchange
            .reply
            .as_ref()
            .is_some_and(|r| r.get("result").is_some());
        match method.as_str() {
            "resources/subscribe" if uri.is_some() && answered => self.subscribed |= graph_uri,
            "resources/unsubscribe" if uri.is_some() && answered => self.subscribed &= !graph_uri,
            _ => {}
        }
        let tool = params
            .as_ref()
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str);
        let mutating = method == "tools/call" && tool.is_some_and(generate::mutating);
        let written_not_synced = exchange
            .text()
            .is_some_and(|t| t.starts_with("The change was written but may not be durable"));
        if !mutating || (exchange.failed() && !written_not_synced) {
            assert_eq!(before, after, "{line:?} changed the log; reply {out:?}");
        }
        // Every successful change notifies a subscriber (no-ops too, as the reference does);
        // compact rewrites the log but not the graph.
        if mutating
            && tool != Some("compact")
            && !exchange.failed()
            && (self.subscribed || listening)
        {
            assert!(
                exchange.notifications > 0,
                "a subscriber was not told of {line:?}"
            );
        }
        if tool == Some("compact") && !exchange.failed() {
            let Contents::Records(records) = &after else {
                panic!("compact left foreign bytes")
            };
            let said = &exchange.tool_result().expect("result")["structuredContent"]["records"];
            assert_eq!(said, &Value::from(records.len()), "compact's count");
        }
        if before != after {
            self.check_replay();
        }
    }

    /// When the memory has seen the whole log: a restart rebuilds exactly the live graph.
    fn check_replay(&mut self) {
        if self.log.has_unseen_changes() || self.log.0.borrow().fail_refresh.is_some() {
            return;
        }
        let contents = self.log.contents();
        let fresh = replayed(&contents);
        let live = self.memory.memory_mut().export_jsonl();
        match (&fresh, &live) {
            (Some(f), Ok(l)) => assert!(
                f == l,
                "replay differs from the live graph\nlog: {contents:?}\nreplayed:\n{}\nlive:\n{}",
                String::from_utf8_lossy(f),
                String::from_utf8_lossy(l)
            ),
            (None, Err(_)) => {}
            (f, l) => panic!("replay {f:?} vs live {l:?} for log {contents:?}"),
        }
    }

    /// A host restart over the log; `false` when the log does not open (a record this
    /// version cannot read: the host stops, and `check_replay` saw the live memory refuse too).
    fn restart(&mut self) -> bool {
        self.check_replay();
        let log = MemLog::holding(self.log.contents());
        let Ok((mut memory, _)) = Server::open(log.clone()) else {
            return false;
        };
        if !self.log.has_unseen_changes() && self.log.0.borrow().fail_refresh.is_none() {
            let live = self.memory.memory_mut().export_jsonl().ok();
            assert!(
                memory.memory_mut().export_jsonl().ok() == live,
                "a restart changes the graph"
            );
        }
        *self = Harness {
            log,
            memory,
            subscribed: false,
            listens: Vec::new(),
            sent: self.sent,
        };
        true
    }

    /// The live graph's compacted log reopens to the same graph.
    fn finish(&mut self) {
        self.log.0.borrow_mut().fail_refresh = None;
        let Ok(bytes) = self.memory.memory_mut().export_log() else {
            assert!(self.memory.memory_mut().export_jsonl().is_err());
            return;
        };
        let graph = self
            .memory
            .memory_mut()
            .export_jsonl()
            .expect("export_log worked");
        self.check_replay();
        // (A restart through `Memory::open` is the `Restart` step's; replaying is cheaper.)
        assert!(
            replayed(&self.log.contents()).as_ref() == Some(&graph),
            "a restart changes the graph"
        );
        let scan = frame::scan(&bytes).expect("an exported log scans");
        assert!(scan.torn.is_none(), "an exported log has no torn tail");
        let records = scan.records.iter().map(|r| r.to_vec()).collect();
        let reopened = replayed(&Contents::Records(records)).expect("an exported log opens");
        assert!(
            reopened == graph,
            "export_log does not reopen to the same graph"
        );
        assert!(jsonl::parse(&graph).is_ok(), "the JSONL export reads back");
    }
}

fn lines(data: &[u8]) {
    let mut h = Harness::new(Contents::Records(Vec::new()));
    for line in data.split(|&b| b == b'\n') {
        h.send(&String::from_utf8_lossy(line));
    }
    h.finish();
}

fn operations(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let start = match u.int_in_range(0u8..=7).unwrap_or(0) {
        0 => {
            let len = u.int_in_range(0usize..=200).unwrap_or(0);
            Contents::Foreign(
                u.bytes(len.min(u.len()))
                    .unwrap_or_default()
                    .to_vec()
                    .into(),
            )
        }
        // A TypeScript seed file with side files of fuzzed lines.
        1 => {
            let mut side = |name: &str| -> SideFile {
                let len = u.int_in_range(0usize..=200).unwrap_or(0);
                let bytes = u.bytes(len.min(u.len())).unwrap_or_default().to_vec();
                SideFile {
                    name: name.into(),
                    bytes,
                }
            };
            let side_files = vec![
                side("memory-tag-aliases.jsonl"),
                side("memory-saved-searches.jsonl"),
            ];
            Contents::Foreign(Foreign {
                bytes: b"{\"type\":\"entity\",\"name\":\"a\",\"entityType\":\"person\",\"observations\":[\"b\"]}\n\
                  {\"type\":\"relation\",\"from\":\"a\",\"to\":\"Bob\",\"relationType\":\"knows\"}"
                    .to_vec(),
                side_files,
            })
        }
        _ => Contents::Records(Vec::new()),
    };
    let mut h = Harness::new(start);
    let mut steps = 0;
    while !u.is_empty() && steps < 64 {
        steps += 1;
        let n = h.sent + 1;
        let mut step = || -> libfuzzer_sys::arbitrary::Result<Step> {
            Ok(match u.int_in_range(0u8..=31)? {
                0..=17 => Step::Send(generate::tool_call_line(&mut u, n)?.0),
                18..=22 => Step::Send(generate::protocol_line(&mut u, n)?),
                23 => {
                    let len = u.int_in_range(0usize..=64)?;
                    Step::Send(String::from_utf8_lossy(u.bytes(len.min(u.len()))?).into_owned())
                }
                24 | 25 => Step::OtherAppend(generate::record(&mut u)?),
                26 => {
                    let n = u.int_in_range(0usize..=3)?;
                    Step::OtherReplace(
                        (0..n)
                            .map(|_| generate::record(&mut u))
                            .collect::<Result<_, _>>()?,
                    )
                }
                27 => Step::Fail(u.int_in_range(0u8..=3)?),
                28 => Step::Restart,
                _ => Step::Send(generate::tool_call_line(&mut u, n)?.0),
            })
        };
        let Ok(step) = step() else { break };
        match step {
            Step::Send(line) => h.send(&line),
            Step::OtherAppend(record) => {
                if trace() {
                    eprintln!("another writer appends {record:?}");
                }
                h.log.append_as_other_writer(record)
            }
            Step::OtherReplace(records) => {
                if trace() {
                    eprintln!("another writer replaces the log with {records:?}");
                }
                h.log.replace_as_other_writer(records)
            }
            Step::Fail(which) => {
                if trace() {
                    eprintln!(
                        "the next {} fails",
                        ["append", "sync", "replace", "refresh"][which as usize]
                    );
                }
                let mut s = h.log.0.borrow_mut();
                match which {
                    0 => s.fail_append = Some("injected append failure".into()),
                    1 => s.fail_sync = Some("injected sync failure".into()),
                    2 => s.fail_replace = Some("injected replace failure".into()),
                    _ => s.fail_refresh = Some("injected refresh failure".into()),
                }
            }
            Step::Restart => {
                if trace() {
                    eprintln!("restart");
                }
                if !h.restart() {
                    return;
                }
            }
        }
    }
    h.finish();
}

enum Step {
    Send(String),
    OtherAppend(Vec<u8>),
    OtherReplace(Vec<Vec<u8>>),
    Fail(u8),
    Restart,
}

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'{') {
        lines(data);
    } else {
        operations(data);
    }
});
