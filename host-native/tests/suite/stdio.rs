//! The `mcp-memory` binary as a process: MCP over stdio, the memory file on disk, the command
//! line. Each test is named after the failure it guards against.

use crate::common::{call, changes_while_warming, initialize, request, warm_memory};

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Helpers

/// The binary, with no memory file configured by the environment, answering every tool.
fn mcp_memory() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-memory"));
    cmd.env_remove("MEMORY_FILE_PATH")
        .env("MCP_MEMORY_PROFILE", "all");
    cmd
}

/// The binary serving `file` (through `-f`).
fn on(file: &Path) -> Command {
    let mut cmd = mcp_memory();
    cmd.arg("-f").arg(file);
    cmd
}

/// What one run of the binary produced.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    /// Every stdout line, parsed; panics on a line that is not JSON.
    fn replies(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("stdout line {l:?}: {e}")))
            .collect()
    }

    /// The reply with this id.
    fn reply(&self, id: u64) -> Value {
        self.replies()
            .into_iter()
            .find(|r| r["id"] == json!(id) && r.get("method").is_none())
            .unwrap_or_else(|| panic!("no reply with id {id}; stdout:\n{}", self.stdout))
    }

    fn assert_ok(&self) -> &Self {
        assert!(
            self.status.success(),
            "exit status {}; stderr:\n{}",
            self.status,
            self.stderr
        );
        self
    }
}

/// Runs `cmd` with `input` on stdin (then EOF) and collects its output.
fn exec(mut cmd: Command, input: &str) -> Run {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    // A writer thread: the server may fill stdout before it has read all of stdin.
    let writer = std::thread::spawn(move || {
        // The server may exit early (a refused file); a broken pipe is not the test's concern.
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        status: out.status,
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `cmd` serving these messages, one line each.
fn serve(cmd: Command, messages: &[Value]) -> Run {
    let mut input = String::new();
    for m in messages {
        input.push_str(&m.to_string());
        input.push('\n');
    }
    exec(cmd, &input)
}

/// Makes these tool calls in one session; each must succeed.
fn change(cmd: Command, calls: &[(&str, Value)]) -> Run {
    let mut messages = vec![initialize(0)];
    for (i, (tool, args)) in calls.iter().enumerate() {
        messages.push(call(i as u64 + 1, tool, args.clone()));
    }
    let run = serve(cmd, &messages);
    run.assert_ok();
    for i in 1..=calls.len() as u64 {
        let reply = run.reply(i);
        assert!(
            reply["result"].get("isError").is_none(),
            "call {i} failed: {reply}"
        );
    }
    run
}

/// The whole graph (read_graph's structuredContent) of the memory `cmd` serves.
fn graph_of(cmd: Command) -> Value {
    let run = serve(cmd, &[initialize(0), call(1, "read_graph", json!({}))]);
    run.assert_ok();
    let reply = run.reply(1);
    assert!(reply["result"].get("isError").is_none(), "{reply}");
    reply["result"]["structuredContent"].clone()
}

fn graph(file: &Path) -> Value {
    graph_of(on(file))
}

fn entity(name: &str, entity_type: &str, observations: &[&str]) -> Value {
    json!({"name": name, "entityType": entity_type, "observations": observations})
}

fn relation(from: &str, to: &str, relation_type: &str) -> Value {
    json!({"from": from, "to": to, "relationType": relation_type})
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Names in a directory, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `(start, end)` of each frame of a memory log (format: docs/file-format.md).
fn frames(log: &[u8]) -> Vec<(usize, usize)> {
    const HEADER: usize = 16;
    const FRAME_HEADER: usize = 12;
    let mut out = Vec::new();
    let mut at = HEADER;
    while at < log.len() {
        let len = u32::from_le_bytes(log[at..at + 4].try_into().unwrap()) as usize;
        out.push((at, at + FRAME_HEADER + len));
        at += FRAME_HEADER + len;
    }
    assert_eq!(at, log.len(), "the log ends on a frame boundary");
    out
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

// ---------------------------------------------------------------------------------------
// Restarts

#[test]
fn restart_keeps_every_entity_relation_and_observation() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    change(
        on(&file),
        &[
            (
                "create_entities",
                json!({"entities": [
                    entity("Alice", "person", &["o1", "o1", "quote \" \n é 😀"]),
                    entity("Bob", "person", &[]),
                    entity("Carol", "person", &["c"]),
                ]}),
            ),
            (
                "create_relations",
                json!({"relations": [
                    relation("Alice", "Bob", "knows"),
                    relation("Bob", "Ghost", "fears"),
                    relation("Carol", "Alice", "mentors"),
                ]}),
            ),
            (
                "add_observations",
                json!({"observations": [{"entityName": "Bob", "contents": ["b1", "b2"]}]}),
            ),
        ],
    );
    let mut expected = json!({
        "entities": [
            entity("Alice", "person", &["o1", "o1", "quote \" \n é 😀"]),
            entity("Bob", "person", &["b1", "b2"]),
            entity("Carol", "person", &["c"]),
        ],
        "relations": [
            relation("Alice", "Bob", "knows"),
            relation("Bob", "Ghost", "fears"),
            relation("Carol", "Alice", "mentors"),
        ],
    });
    assert_eq!(graph(&file), expected, "after the first restart");

    change(
        on(&file),
        &[
            (
                "delete_observations",
                json!({"deletions": [{"entityName": "Alice", "observations": ["o1"]}]}),
            ),
            (
                "delete_relations",
                json!({"relations": [relation("Bob", "Ghost", "fears")]}),
            ),
            ("delete_entities", json!({"entityNames": ["Carol"]})),
            (
                "create_entities",
                json!({"entities": [entity("Dave", "person", &["d"])]}),
            ),
        ],
    );
    expected = json!({
        "entities": [
            entity("Alice", "person", &["quote \" \n é 😀"]),
            entity("Bob", "person", &["b1", "b2"]),
            entity("Dave", "person", &["d"]),
        ],
        "relations": [relation("Alice", "Bob", "knows")],
    });
    for restart in 2..5 {
        assert_eq!(graph(&file), expected, "after restart {restart}");
    }

    change(
        on(&file),
        &[
            (
                "add_observations",
                json!({"observations": [{"entityName": "Dave", "contents": ["d2"]}]}),
            ),
            (
                "create_relations",
                json!({"relations": [relation("Dave", "Alice", "likes")]}),
            ),
        ],
    );
    expected["entities"][2] = entity("Dave", "person", &["d", "d2"]);
    expected["relations"] = json!([
        relation("Alice", "Bob", "knows"),
        relation("Dave", "Alice", "likes"),
    ]);
    assert_eq!(graph(&file), expected, "after the last restart");
}

// ---------------------------------------------------------------------------------------
// Damage to the memory file

/// A session that logged many changes ends by checkpointing them, so the next start loads
/// the checkpoint; one that changed little writes none.
#[test]
fn a_session_that_changed_much_ends_with_a_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let long = "an observation long enough to fill the log ".repeat(10);
    let calls: Vec<(&str, Value)> = (0..200)
        .map(|i| {
            let obs = format!("{i} {long}");
            let e = entity(&format!("E{i}"), "t", &[&obs]);
            ("create_entities", json!({"entities": [e]}))
        })
        .collect();
    change(on(&file), &calls);
    let log = fs::read(&file).unwrap();
    let all = frames(&log);
    let (start, _) = *all.last().unwrap();
    assert_eq!(all.len(), 201, "200 changes and a checkpoint");
    assert_eq!(log[start + 12], 8, "the last entry is a checkpoint");
    let want = graph(&file);
    assert_eq!(want["entities"].as_array().unwrap().len(), 200);

    change(
        on(&file),
        &[(
            "create_entities",
            json!({"entities": [entity("F", "t", &[])]}),
        )],
    );
    let log = fs::read(&file).unwrap();
    assert_eq!(frames(&log).len(), 202, "one small change: no checkpoint");
}

#[test]
fn a_graph_larger_than_many_pieces_is_sent_whole_and_exact() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    // About 1.5 MB of answer: the reply crosses from the component in several pieces, cut
    // inside escaped text too.
    let long = "quote \" backslash \\ tab \t é 😀 \u{2028} ".repeat(12);
    let calls: Vec<(&str, Value)> = (0..30)
        .map(|batch| {
            let entities: Vec<Value> = (0..50)
                .map(|i| entity(&format!("E{batch}-{i}"), "t", &[&format!("{i} {long}")]))
                .collect();
            ("create_entities", json!({"entities": entities}))
        })
        .chain([(
            "create_relations",
            json!({"relations": [relation("E0-0", "E29-49", "knows")]}),
        )])
        .collect();
    change(on(&file), &calls);
    let run = serve(
        on(&file),
        &[
            initialize(0),
            call(1, "read_graph", json!({})),
            json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
                "params": {"uri": "memory://knowledge-graph"}}),
        ],
    );
    run.assert_ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "one line per reply");
    // The answer as JSON.stringify writes it (keys in the reference's order).
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let (mut pretty, mut compact) = (Vec::new(), Vec::new());
    for batch in 0..30 {
        for i in 0..50 {
            let (name, obs) = (q(&format!("E{batch}-{i}")), q(&format!("{i} {long}")));
            pretty.push(format!("    {{\n      \"name\": {name},\n      \"entityType\": \"t\",\n      \"observations\": [\n        {obs}\n      ]\n    }}"));
            compact.push(format!(
                r#"{{"name":{name},"entityType":"t","observations":[{obs}]}}"#
            ));
        }
    }
    let pretty = q(&format!(
        "{{\n  \"entities\": [\n{}\n  ],\n  \"relations\": [\n    {{\n      \"from\": \"E0-0\",\n      \"to\": \"E29-49\",\n      \"relationType\": \"knows\"\n    }}\n  ]\n}}",
        pretty.join(",\n")
    ));
    let compact = format!(
        r#"{{"entities":[{}],"relations":[{{"from":"E0-0","to":"E29-49","relationType":"knows"}}]}}"#,
        compact.join(",")
    );
    let want_read = format!(
        r#"{{"result":{{"content":[{{"type":"text","text":{pretty}}}],"structuredContent":{compact}}},"jsonrpc":"2.0","id":1}}"#
    );
    let want_resource = format!(
        r#"{{"result":{{"contents":[{{"uri":"memory://knowledge-graph","mimeType":"application/json","text":{pretty}}}]}},"jsonrpc":"2.0","id":2}}"#
    );
    assert!(lines[1].len() > 1_000_000, "{} bytes", lines[1].len());
    // Compared by hand: a failure must not print megabytes.
    for (got, want) in [(lines[1], want_read), (lines[2], want_resource)] {
        let differs = got.bytes().zip(want.bytes()).position(|(a, b)| a != b);
        assert!(
            got == want,
            "{} vs {} bytes, first difference at {differs:?}",
            got.len(),
            want.len()
        );
    }
}

#[test]
fn torn_tail_at_every_offset_of_the_last_frame_is_cut_off_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    change(
        on(&file),
        &[
            (
                "create_entities",
                json!({"entities": [entity("A", "t", &["a"]), entity("B", "t", &[])]}),
            ),
            (
                "create_relations",
                json!({"relations": [relation("A", "B", "r")]}),
            ),
        ],
    );
    let before = graph(&file);
    let prefix = fs::read(&file).unwrap();
    change(
        on(&file),
        &[(
            "add_observations",
            json!({"observations": [{"entityName": "B", "contents": ["the last change"]}]}),
        )],
    );
    let full = fs::read(&file).unwrap();
    assert!(full.starts_with(&prefix) && full.len() > prefix.len());
    assert_ne!(graph(&file), before, "the last change is in the full file");
    let warning = format!("torn tail at offset {}", prefix.len());

    let torn = dir.path().join("torn.mcpmem");
    for cut in prefix.len() + 1..full.len() {
        // A write cut short, and one whose file grew but was only partly written (zeros).
        for zero_fill in [false, true] {
            let mut bytes = full[..cut].to_vec();
            if zero_fill {
                bytes.resize(full.len(), 0);
            }
            fs::write(&torn, &bytes).unwrap();
            let run = serve(
                on(&torn),
                &[initialize(0), call(1, "read_graph", json!({}))],
            );
            let case = format!("cut at {cut}, zero fill {zero_fill}");
            run.assert_ok();
            assert_eq!(
                run.reply(1)["result"]["structuredContent"],
                before,
                "{case}: the graph is all but the last change"
            );
            assert!(
                run.stderr.contains(&warning),
                "{case}: stderr names the offset:\n{}",
                run.stderr
            );
            assert_eq!(
                fs::read(&torn).unwrap(),
                prefix,
                "{case}: the file is cut back to its valid prefix"
            );
        }
    }
}

#[test]
fn torn_header_starts_an_empty_memory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    change(
        on(&file),
        &[(
            "create_entities",
            json!({"entities": [entity("A", "t", &[])]}),
        )],
    );
    let full = fs::read(&file).unwrap();
    for cut in 1..16 {
        fs::write(&file, &full[..cut]).unwrap();
        let run = serve(
            on(&file),
            &[initialize(0), call(1, "read_graph", json!({}))],
        );
        run.assert_ok();
        assert_eq!(
            run.reply(1)["result"]["structuredContent"],
            json!({"entities": [], "relations": []}),
            "cut at {cut}"
        );
        assert!(
            run.stderr.contains("torn tail at offset 0"),
            "{}",
            run.stderr
        );
        assert_eq!(fs::read(&file).unwrap(), full[..16], "a fresh header");
    }
}

#[test]
fn flipped_byte_before_the_last_frame_refuses_to_start_and_leaves_the_file_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    change(
        on(&file),
        &[
            (
                "create_entities",
                json!({"entities": [entity("A", "t", &["a"])]}),
            ),
            (
                "create_entities",
                json!({"entities": [entity("B", "t", &["b"])]}),
            ),
            (
                "create_relations",
                json!({"relations": [relation("A", "B", "r")]}),
            ),
            (
                "add_observations",
                json!({"observations": [{"entityName": "A", "contents": ["a2"]}]}),
            ),
        ],
    );
    let good = fs::read(&file).unwrap();
    let frames = frames(&good);
    assert_eq!(frames.len(), 4);
    let damaged = dir.path().join("damaged");
    fs::create_dir(&damaged).unwrap();
    let bad_file = damaged.join("memory.mcpmem");
    for &(start, end) in &frames[..frames.len() - 1] {
        for at in start..end {
            let mut bad = good.clone();
            bad[at] ^= 0xff;
            fs::write(&bad_file, &bad).unwrap();
            let run = serve(
                on(&bad_file),
                &[initialize(0), call(1, "read_graph", json!({}))],
            );
            assert!(
                !run.status.success(),
                "byte {at} flipped: the server must refuse to start; stdout:\n{}",
                run.stdout
            );
            assert!(run.stdout.is_empty(), "byte {at}: no reply at all");
            assert!(
                run.stderr.contains(&format!("byte offset {start}")),
                "byte {at} (frame at {start}): stderr names the offset:\n{}",
                run.stderr
            );
            assert!(
                fs::read(&bad_file).unwrap() == bad,
                "byte {at}: the file is unchanged"
            );
            assert_eq!(listing(&damaged), ["memory.mcpmem"], "no file is created");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Reference JSONL files

const REFERENCE_JSONL: &str = concat!(
    "{\"type\":\"entity\",\"name\":\"Alice\",\"entityType\":\"person\",\"observations\":[\"likes tea\",\"likes tea\"]}\n",
    "{\"type\":\"entity\",\"name\":\"Bob\",\"entityType\":\"person\",\"observations\":[\"first\"]}\n",
    "{\"type\":\"entity\",\"name\":\"Bob\",\"entityType\":\"duplicate\",\"observations\":[\"second\"]}\n",
    "{\"type\":\"entity\",\"name\":\"lone \\ud800\",\"entityType\":\"t\",\"observations\":[\"\\udfff\",\"pair \\ud83d\\ude00\"]}\n",
    "{\"type\":\"relation\",\"from\":\"Alice\",\"to\":\"Bob\",\"relationType\":\"knows\"}\n",
    "{\"type\":\"relation\",\"from\":\"Alice\",\"to\":\"Bob\",\"relationType\":\"knows\"}\n",
    "{\"type\":\"relation\",\"from\":\"Ghost\",\"to\":\"Alice\",\"relationType\":\"haunts\"}",
);

fn reference_graph() -> Value {
    json!({
        "entities": [
            entity("Alice", "person", &["likes tea", "likes tea"]),
            entity("Bob", "person", &["first"]),
            entity("Bob", "duplicate", &["second"]),
            entity("lone \u{fffd}", "t", &["\u{fffd}", "pair 😀"]),
        ],
        "relations": [
            relation("Alice", "Bob", "knows"),
            relation("Alice", "Bob", "knows"),
            relation("Ghost", "Alice", "haunts"),
        ],
    })
}

#[test]
fn reference_jsonl_is_converted_keeping_a_bak_and_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.jsonl");
    fs::write(&file, REFERENCE_JSONL).unwrap();
    let run = serve(
        on(&file),
        &[initialize(0), call(1, "read_graph", json!({}))],
    );
    run.assert_ok();
    assert_eq!(
        run.reply(1)["result"]["structuredContent"],
        reference_graph()
    );
    assert!(
        run.stderr.contains("lone UTF-16 surrogate") && run.stderr.contains("U+FFFD"),
        "a warning about the lone surrogates:\n{}",
        run.stderr
    );
    assert!(run.stderr.contains("converted"), "{}", run.stderr);
    assert_eq!(
        fs::read(dir.path().join("memory.jsonl.bak")).unwrap(),
        REFERENCE_JSONL.as_bytes(),
        "the .bak holds the original bytes"
    );
    let converted = fs::read(&file).unwrap();
    assert_ne!(
        converted,
        REFERENCE_JSONL.as_bytes(),
        "the file is now a log"
    );
    frames(&converted);

    // The converted memory is the same memory: no second conversion, no second .bak.
    let run = serve(
        on(&file),
        &[initialize(0), call(1, "read_graph", json!({}))],
    );
    run.assert_ok();
    assert_eq!(
        run.reply(1)["result"]["structuredContent"],
        reference_graph()
    );
    assert!(!run.stderr.contains("converted"), "{}", run.stderr);
    assert_eq!(listing(dir.path()), ["memory.jsonl", "memory.jsonl.bak"]);

    // Duplicate names behave as in the reference: the first one receives observations.
    change(
        on(&file),
        &[(
            "add_observations",
            json!({"observations": [{"entityName": "Bob", "contents": ["third"]}]}),
        )],
    );
    let mut expected = reference_graph();
    expected["entities"][1] = entity("Bob", "person", &["first", "third"]);
    assert_eq!(graph(&file), expected);
}

#[test]
fn reference_jsonl_round_trips_byte_for_byte_through_conversion_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.jsonl");
    let original = fs::read(fixture("reference-written.jsonl")).unwrap();
    fs::write(&file, &original).unwrap();
    let mut export = on(&file);
    export.args(["export", "--format", "jsonl"]);
    let run = exec(export, "");
    run.assert_ok();
    assert_eq!(
        fs::read(dir.path().join("memory.jsonl.bak")).unwrap(),
        original
    );
    assert!(
        run.stdout.as_bytes() == original,
        "export differs from the reference's file:\n{}\n---\n{}",
        run.stdout,
        String::from_utf8_lossy(&original)
    );
}

#[test]
fn unreadable_reference_jsonl_is_left_untouched_and_every_tool_call_fails() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.jsonl");
    let original = "{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"t\",\"observations\":[]}\n{not json\n";
    fs::write(&file, original).unwrap();
    let tools = [
        (
            "create_entities",
            json!({"entities": [entity("B", "t", &[])]}),
        ),
        (
            "create_relations",
            json!({"relations": [relation("A", "B", "r")]}),
        ),
        (
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": ["x"]}]}),
        ),
        ("delete_entities", json!({"entityNames": ["A"]})),
        (
            "delete_observations",
            json!({"deletions": [{"entityName": "A", "observations": ["x"]}]}),
        ),
        (
            "delete_relations",
            json!({"relations": [relation("A", "B", "r")]}),
        ),
        ("read_graph", json!({})),
        ("search_nodes", json!({"query": "A"})),
        ("open_nodes", json!({"names": ["A"]})),
    ];
    let mut messages = vec![
        initialize(0),
        request(1, "ping", json!({})),
        request(2, "tools/list", json!({})),
        request(
            3,
            "resources/read",
            json!({"uri": "memory://knowledge-graph"}),
        ),
    ];
    for (i, (tool, args)) in tools.iter().enumerate() {
        messages.push(call(10 + i as u64, tool, args.clone()));
    }
    let run = serve(on(&file), &messages);
    run.assert_ok();
    assert_eq!(run.reply(0)["result"]["serverInfo"]["name"], "mcp-memory");
    assert_eq!(run.reply(1)["result"], json!({}));
    let listed = run.reply(2)["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(listed[0]["name"], "create_entities", "tools/list answers");
    assert!(listed.iter().any(|t| t["name"] == "search"));
    assert_eq!(run.reply(3)["error"]["code"], -32603);
    for (i, (tool, _)) in tools.iter().enumerate() {
        let reply = run.reply(10 + i as u64);
        assert_eq!(reply["result"]["isError"], true, "{tool}: {reply}");
        let text = reply["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("line 2"), "{tool} names the bad line: {text}");
    }
    assert!(run.stderr.contains("line 2"), "{}", run.stderr);
    assert_eq!(fs::read_to_string(&file).unwrap(), original);
    assert_eq!(
        listing(dir.path()),
        ["memory.jsonl"],
        "no .bak, no temp file"
    );
}

// ---------------------------------------------------------------------------------------
// export / import

/// The tool calls that produced `fixtures/reference-written.jsonl` when sent, one per
/// request, to the reference server (@modelcontextprotocol/server-memory 2026.8.31).
fn export_session() -> Vec<(String, Value)> {
    let calls: Value =
        serde_json::from_slice(&fs::read(fixture("export-session.json")).unwrap()).unwrap();
    calls
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c[0].as_str().unwrap().to_owned(), c[1].clone()))
        .collect()
}

#[test]
fn export_jsonl_writes_the_reference_servers_exact_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let calls = export_session();
    let calls: Vec<(&str, Value)> = calls.iter().map(|(t, a)| (t.as_str(), a.clone())).collect();
    change(on(&file), &calls);
    let reference = fs::read(fixture("reference-written.jsonl")).unwrap();

    let mut to_stdout = on(&file);
    to_stdout.args(["export", "--format", "jsonl"]);
    let run = exec(to_stdout, "");
    run.assert_ok();
    assert!(
        run.stdout.as_bytes() == reference,
        "export differs from the reference's file:\n{}\n---\n{}",
        run.stdout,
        String::from_utf8_lossy(&reference)
    );

    let out = dir.path().join("out.jsonl");
    let mut to_file = on(&file);
    to_file.args(["export", "-o"]).arg(&out);
    assert!(to_file.status().unwrap().success());
    assert_eq!(fs::read(&out).unwrap(), reference);
}

#[test]
fn export_of_an_empty_or_missing_memory_is_empty_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.mcpmem");
    let mut export = on(&missing);
    export.arg("export");
    let run = exec(export, "");
    run.assert_ok();
    assert_eq!(run.stdout, "");
    assert!(!missing.exists(), "export does not create the memory file");

    let empty = dir.path().join("empty.mcpmem");
    serve(on(&empty), &[initialize(0)]).assert_ok();
    let mut export = on(&empty);
    export.arg("export");
    let run = exec(export, "");
    run.assert_ok();
    assert_eq!(run.stdout, "", "an empty graph is a 0-byte JSONL file");
}

#[test]
fn import_merges_a_jsonl_file_into_the_memory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    change(
        on(&file),
        &[
            (
                "create_entities",
                json!({"entities": [entity("A", "t", &["a1"])]}),
            ),
            (
                "create_relations",
                json!({"relations": [relation("A", "B", "r")]}),
            ),
        ],
    );
    let import = dir.path().join("import.jsonl");
    fs::write(
        &import,
        concat!(
            "{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"other\",\"observations\":[\"a1\",\"a2\"]}\r\n",
            "{\"type\":\"entity\",\"name\":\"B\",\"entityType\":\"t\",\"observations\":[\"b1\"]}\n",
            "\n",
            "{\"type\":\"relation\",\"from\":\"A\",\"to\":\"B\",\"relationType\":\"r\"}\n",
            "{\"type\":\"relation\",\"from\":\"B\",\"to\":\"A\",\"relationType\":\"s\"}\n",
        ),
    )
    .unwrap();
    let before_import = fs::read(&import).unwrap();
    let mut cmd = on(&file);
    cmd.arg("import").arg(&import);
    let run = exec(cmd, "");
    run.assert_ok();
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.contains(
            "imported 1 new entities, 1 new observations on existing entities, 1 new relations"
        ),
        "{}",
        run.stderr
    );
    let expected = json!({
        "entities": [entity("A", "t", &["a1", "a2"]), entity("B", "t", &["b1"])],
        "relations": [relation("A", "B", "r"), relation("B", "A", "s")],
    });
    assert_eq!(graph(&file), expected);
    assert_eq!(
        fs::read(&import).unwrap(),
        before_import,
        "the input is read only"
    );

    // Importing again adds nothing.
    let mut again = on(&file);
    again.arg("import").arg(&import);
    let run = exec(again, "");
    run.assert_ok();
    assert!(
        run.stderr.contains(
            "imported 0 new entities, 0 new observations on existing entities, 0 new relations"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(graph(&file), expected);

    // A file that cannot be read changes nothing, and says so with its own exit status.
    let bad = dir.path().join("bad.jsonl");
    fs::write(&bad, "{not json").unwrap();
    let mut cmd = on(&file);
    cmd.arg("import").arg(&bad);
    let run = exec(cmd, "");
    assert_eq!(run.status.code(), Some(65), "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "Error: {} was not imported: line 1",
            bad.display()
        )),
        "{}",
        run.stderr
    );
    assert_eq!(graph(&file), expected);
}

// ---------------------------------------------------------------------------------------
// Files, durability, streams

#[test]
fn new_memory_file_is_private_and_its_missing_directory_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a/b/c/memory.mcpmem");
    change(
        on(&file),
        &[(
            "create_entities",
            json!({"entities": [entity("A", "t", &[])]}),
        )],
    );
    assert!(file.is_file());
    assert_eq!(mode(&file), 0o600);
    assert_eq!(listing(file.parent().unwrap()), ["memory.mcpmem"]);
}

#[test]
fn conversion_keeps_the_files_mode() {
    for wanted in [0o640, 0o604, 0o600] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("memory.jsonl");
        fs::write(&file, REFERENCE_JSONL).unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(wanted)).unwrap();
        assert_eq!(graph(&file), reference_graph());
        assert!(dir.path().join("memory.jsonl.bak").exists());
        assert_eq!(mode(&file), wanted, "mode {wanted:o} is kept");
    }
}

/// The reference loses a 0600 mode when it rewrites its file (its issue #4827); compaction
/// must keep the mode, and (keeping no history) leave none of the deleted text in the
/// file's bytes.
#[test]
fn compaction_by_subcommand_or_tool_drops_deleted_text_from_the_bytes_and_keeps_the_mode() {
    for (wanted, by_tool) in [(0o640, false), (0o600, true)] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("memory.mcpmem");
        change(
            on(&file),
            &[
                (
                    "create_entities",
                    json!({"entities": [entity("Keep", "t", &["kept fact"]), entity("Gone", "t", &["secret-entity-text"])]}),
                ),
                (
                    "add_observations",
                    json!({"observations": [{"entityName": "Keep", "contents": ["secret-observation"]}]}),
                ),
                (
                    "create_relations",
                    json!({"relations": [relation("Keep", "Gone", "secret_relation")]}),
                ),
                ("delete_entities", json!({"entityNames": ["Gone"]})),
                (
                    "delete_observations",
                    json!({"deletions": [{"entityName": "Keep", "observations": ["secret-observation"]}]}),
                ),
            ],
        );
        fs::set_permissions(&file, fs::Permissions::from_mode(wanted)).unwrap();
        let before = graph(&file);
        let has_secret = |bytes: &[u8]| bytes.windows(6).any(|w| w == b"secret");
        assert!(
            has_secret(&fs::read(&file).unwrap()),
            "the history holds the deleted text"
        );
        let mut keeping = on(&file);
        keeping.arg("compact");
        exec(keeping, "").assert_ok();
        assert!(
            has_secret(&fs::read(&file).unwrap()),
            "the default keeps 30 days of history"
        );
        let mut keeping_none = on(&file);
        keeping_none.env("MCP_MEMORY_HISTORY_DAYS", "0");
        if by_tool {
            change(keeping_none, &[("compact", json!({}))]);
        } else {
            keeping_none.arg("compact");
            exec(keeping_none, "").assert_ok();
        }
        let bytes = fs::read(&file).unwrap();
        assert!(
            !has_secret(&bytes),
            "deleted text is gone from the file (by tool: {by_tool})"
        );
        assert!(
            bytes.windows(9).any(|w| w == b"kept fact"),
            "live text stays"
        );
        assert_eq!(mode(&file), wanted, "mode {wanted:o} is kept");
        assert_eq!(graph(&file), before, "the graph is unchanged");
        assert_eq!(
            listing(dir.path()),
            ["memory.mcpmem"],
            "no temporary file is left"
        );
    }
}

#[test]
fn durability_sync_keeps_every_acknowledged_change() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let mut cmd = on(&file);
    cmd.args(["--durability", "sync"]);
    let mut sizes = Vec::new();
    for i in 0..3 {
        let mut cmd = on(&file);
        cmd.args(["--durability", "sync"]);
        change(
            cmd,
            &[(
                "create_entities",
                json!({"entities": [entity(&format!("E{i}"), "t", &[])]}),
            )],
        );
        sizes.push(fs::metadata(&file).unwrap().len());
    }
    assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{sizes:?}");
    let g = graph_of(cmd);
    let names: Vec<&str> = g["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["E0", "E1", "E2"]);

    let mut bad = on(&file);
    bad.args(["--durability", "sometimes"]);
    let run = exec(bad, "");
    assert!(!run.status.success(), "an unknown durability is refused");
}

#[test]
fn stdout_carries_only_json_rpc_messages_and_logs_go_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.jsonl");
    // A conversion with warnings, garbage input and a notification: lots to log.
    fs::write(&file, REFERENCE_JSONL).unwrap();
    let mut input = String::new();
    for line in [
        initialize(1).to_string(),
        "garbage".into(),
        "[1,2]".into(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        request(
            2,
            "resources/subscribe",
            json!({"uri": "memory://knowledge-graph"}),
        )
        .to_string(),
        call(
            3,
            "create_entities",
            json!({"entities": [entity("N", "t", &[])]}),
        )
        .to_string(),
        call(4, "no_such_tool", json!({})).to_string(),
        request(5, "no/such/method", json!({})).to_string(),
        call(6, "read_graph", json!({})).to_string(),
    ] {
        input.push_str(&line);
        input.push('\n');
    }
    let run = exec(on(&file), &input);
    run.assert_ok();
    let replies = run.replies();
    assert_eq!(replies.len(), 7, "6 replies and one notification");
    for r in &replies {
        assert_eq!(r["jsonrpc"], "2.0", "{r}");
    }
    assert!(run.stdout.ends_with('\n'));
    assert!(run.stderr.contains("warning"), "{}", run.stderr);
    assert!(run.stderr.contains("serving"), "{}", run.stderr);
    for line in run.stderr.lines() {
        assert!(
            line.starts_with("mcp-memory"),
            "stderr lines say who is talking: {line}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Where the memory file is

/// Makes one entity through `cmd`, so the file it serves can be found afterwards.
fn mark(cmd: Command) {
    change(
        cmd,
        &[(
            "create_entities",
            json!({"entities": [entity("here", "t", &[])]}),
        )],
    );
}

/// The names `tools/list` gives when the binary runs as `cmd`.
fn listed(cmd: Command) -> Vec<String> {
    let run = serve(
        cmd,
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})],
    );
    let tools = run.assert_ok().reply(1)["result"]["tools"].clone();
    let tools = tools.as_array().expect("a tools list").clone();
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_profile_comes_from_the_flag_else_the_environment_else_default() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.mcpmem");
    let mut cmd = on(&file);
    cmd.env_remove("MCP_MEMORY_PROFILE");
    let default = listed(cmd);
    assert_eq!(default.len(), 12);
    assert_eq!(default[9..], ["search", "history", "undo"]);
    let mut cmd = on(&file);
    cmd.env("MCP_MEMORY_PROFILE", "reference");
    assert_eq!(listed(cmd).len(), 9);
    let mut cmd = on(&file);
    cmd.env("MCP_MEMORY_PROFILE", "reference")
        .args(["--profile", "rust"]);
    assert_eq!(listed(cmd).len(), 26);
    let mut cmd = on(&file);
    cmd.env("MCP_MEMORY_PROFILE", "default")
        .env("MCP_MEMORY_TOOLS", "-undo")
        .args(["--tools", "-search,+get_entity"]);
    assert_eq!(listed(cmd)[9..], ["get_entity", "history", "undo"]);
}

#[test]
fn an_unknown_profile_or_tool_is_refused_before_anything_opens() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.mcpmem");
    for args in [
        ["--profile", "everything"],
        ["--tools", "+get_entity,-nope"],
    ] {
        let mut cmd = on(&file);
        cmd.args(args);
        let run = exec(cmd, "");
        assert_eq!(run.status.code(), Some(2), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("everything") || run.stderr.contains("unknown tool 'nope'"),
            "{}",
            run.stderr
        );
        assert!(!file.exists(), "nothing was opened");
    }
}

#[test]
fn memory_file_path_is_honoured_when_the_flag_is_absent() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("env.mcpmem");
    let mut cmd = mcp_memory();
    cmd.env("MEMORY_FILE_PATH", &file);
    mark(cmd);
    assert_eq!(graph(&file)["entities"][0]["name"], "here");
}

#[test]
fn memory_file_flag_wins_over_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let from_env = dir.path().join("env.mcpmem");
    let from_flag = dir.path().join("flag.mcpmem");
    let mut cmd = on(&from_flag);
    cmd.env("MEMORY_FILE_PATH", &from_env);
    mark(cmd);
    assert!(!from_env.exists());
    assert_eq!(graph(&from_flag)["entities"][0]["name"], "here");
}

#[test]
fn tilde_expands_to_the_home_directory_in_the_flag_and_the_environment() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = mcp_memory();
    cmd.env("HOME", home.path()).args(["-f", "~/flag/m.mcpmem"]);
    mark(cmd);
    assert_eq!(
        graph(&home.path().join("flag/m.mcpmem"))["entities"][0]["name"],
        "here"
    );

    let mut cmd = mcp_memory();
    cmd.env("HOME", home.path())
        .env("MEMORY_FILE_PATH", "~/env.mcpmem");
    mark(cmd);
    assert_eq!(
        graph(&home.path().join("env.mcpmem"))["entities"][0]["name"],
        "here"
    );
}

#[test]
fn relative_paths_resolve_against_the_working_directory() {
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = mcp_memory();
    cmd.current_dir(cwd.path()).args(["-f", "rel/m.mcpmem"]);
    mark(cmd);
    assert_eq!(
        graph(&cwd.path().join("rel/m.mcpmem"))["entities"][0]["name"],
        "here"
    );
}

#[test]
fn without_flag_or_environment_the_memory_lives_in_the_data_directory() {
    let home = tempfile::tempdir().unwrap();
    let data = || {
        let mut cmd = mcp_memory();
        cmd.env("HOME", home.path())
            .env_remove("XDG_DATA_HOME")
            .env("MEMORY_FILE_PATH", ""); // empty counts as unset
        cmd
    };
    mark(data());
    let file = home.path().join(".local/share/mcp-memory/memory.mcpmem");
    assert!(file.is_file());
    assert_eq!(graph_of(data())["entities"][0]["name"], "here");
}

// ---------------------------------------------------------------------------------------
// Two processes

/// A server process kept running, spoken to one request at a time.
struct Live {
    child: std::process::Child,
    input: std::process::ChildStdin,
    output: std::io::BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl Live {
    fn start(file: &Path) -> Live {
        let mut child = on(file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let input = child.stdin.take().unwrap();
        let output = std::io::BufReader::new(child.stdout.take().unwrap());
        Live {
            child,
            input,
            output,
            next_id: 1,
        }
    }

    /// Calls a tool and returns its structuredContent; panics on an error result.
    fn call(&mut self, tool: &str, args: Value) -> Value {
        self.next_id += 1;
        let reply = self.request(&call(self.next_id, tool, args));
        assert!(reply["result"].get("isError").is_none(), "{tool}: {reply}");
        reply["result"]["structuredContent"].clone()
    }

    /// Sends a request and returns the next message (its reply).
    fn request(&mut self, message: &Value) -> Value {
        use std::io::BufRead;
        writeln!(self.input, "{message}").unwrap();
        let mut line = String::new();
        self.output.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    }

    fn stop(mut self) {
        drop(self.input);
        assert!(self.child.wait().unwrap().success());
    }
}

/// Two MCP clients configured with one memory file each start a server on it: every
/// change one makes is seen by the other at its next call, none is lost, and the file
/// stays a valid log.
#[test]
fn two_servers_on_one_file_see_each_others_changes() {
    servers_share(None);
}

/// The first server converts a reference file by renaming a new log over the path; a
/// server that opened the path before must follow it to the new file.
#[test]
fn two_servers_share_a_file_one_of_them_converted() {
    servers_share(Some(REFERENCE_JSONL));
}

fn servers_share(start_from: Option<&str>) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.jsonl");
    if let Some(jsonl) = start_from {
        fs::write(&file, jsonl).unwrap();
    }
    let base = match start_from {
        Some(_) => reference_graph()["entities"].as_array().unwrap().len(),
        None => 0,
    };
    let mut a = Live::start(&file);
    let mut b = Live::start(&file);
    let long = "an observation long enough to make frames of different sizes";
    for i in 0..20 {
        let (writer, reader) = if i % 2 == 0 {
            (&mut a, &mut b)
        } else {
            (&mut b, &mut a)
        };
        let name = format!("e{i}");
        writer.call(
            "create_entities",
            json!({"entities": [entity(&name, "t", &[long])]}),
        );
        let seen = reader.call("open_nodes", json!({"names": [name]}));
        assert_eq!(
            seen["entities"][0]["observations"],
            json!([long]),
            "step {i}"
        );
        reader.call("add_observations", json!({"observations": [{"entityName": name, "contents": [format!("from the other {i}")]}]}));
        if i > 0 {
            writer.call(
                "create_relations",
                json!({"relations": [relation(&format!("e{}", i - 1), &name, "next")]}),
            );
        }
    }
    let seen_by_a = a.call("read_graph", json!({}));
    let seen_by_b = b.call("read_graph", json!({}));
    assert_eq!(seen_by_a, seen_by_b);
    assert_eq!(seen_by_a["entities"].as_array().unwrap().len(), base + 20);
    a.stop();
    b.stop();
    assert_eq!(
        graph(&file),
        seen_by_a,
        "the file holds what both servers saw"
    );
}

/// `export` and `import` beside a running server take turns with it on the file.
#[test]
fn export_and_import_work_beside_a_running_server() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let mut server = Live::start(&file);
    server.call(
        "create_entities",
        json!({"entities": [entity("live", "t", &["x"])]}),
    );
    let mut export = on(&file);
    export.args(["export", "--format", "jsonl"]);
    let out = exec(export, "");
    assert!(out.status.success(), "{}", out.stderr);
    assert!(out.stdout.contains("\"live\""), "{}", out.stdout);
    let extra = dir.path().join("extra.jsonl");
    fs::write(
        &extra,
        r#"{"type":"entity","name":"imported","entityType":"t","observations":[]}"#,
    )
    .unwrap();
    let mut import = on(&file);
    import.arg("import").arg(&extra);
    assert!(exec(import, "").status.success());
    let seen = server.call("open_nodes", json!({"names": ["imported"]}));
    assert_eq!(seen["entities"][0]["name"], "imported");
    server.stop();
}

/// Waits (up to 5 s) for the lock on `file` to be released (while `when`), then
/// starts another server that writes entity "B".
fn another_writes_once_released(file: &Path, when: &str) -> Live {
    let lock = file.with_extension("mcpmem.lock");
    let released = (0..500).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(10));
        !lock.exists()
    });
    assert!(released, "the lock is released while {when}");
    let mut second = Live::start(file);
    second.call(
        "create_entities",
        json!({"entities": [entity("B", "t", &[])]}),
    );
    second
}

/// A server keeps the lock a write took for the client's next message, but not once the
/// client pauses, nor while it has sent only part of a line: another server then writes
/// at once, and the first one's message, completed, is answered.
#[test]
fn a_lock_kept_for_the_next_message_is_released_when_the_client_pauses() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let mut first = Live::start(&file);
    first.call(
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    let next = call(
        99,
        "create_entities",
        json!({"entities": [entity("C", "t", &[])]}),
    );
    let next = next.to_string();
    let (head, tail) = next.split_at(10);
    write!(first.input, "{head}").unwrap();
    first.input.flush().unwrap();
    let second = another_writes_once_released(&file, "the client pauses mid-line");
    writeln!(first.input, "{tail}").unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut first.output, &mut line).unwrap();
    let reply: Value = serde_json::from_str(&line).unwrap();
    assert!(reply["result"].get("isError").is_none(), "{reply}");
    first.stop();
    second.stop();
    let names: Vec<Value> = graph(&file)["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].clone())
        .collect();
    assert_eq!(names, [json!("A"), json!("B"), json!("C")]);
}

/// A long answer (here the write's own, which lists what it created, and a read_graph
/// sent piece by piece) is not sent under a kept lock: a client that reads it slowly holds
/// up no other server.
#[test]
fn a_long_answer_is_sent_without_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let long = "x".repeat(60_000);
    let entities: Vec<Value> = (0..40)
        .map(|i| entity(&format!("E{i}"), "t", &[&long]))
        .collect();
    let mut first = Live::start(&file);
    // Both lines at once: the write and a read, whose 2.4 MB answers outgrow the pipe,
    // which nobody reads yet.
    let write = call(2, "create_entities", json!({ "entities": entities }));
    let read = call(3, "read_graph", json!({}));
    writeln!(first.input, "{write}\n{read}").unwrap();
    first.input.flush().unwrap();
    let second = another_writes_once_released(&file, "the long answers are sent");
    let mut line = String::new();
    for _ in 0..2 {
        line.clear();
        std::io::BufRead::read_line(&mut first.output, &mut line).unwrap();
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert!(
            reply["result"].get("isError").is_none(),
            "{}",
            &line[..200.min(line.len())]
        );
    }
    first.stop();
    second.stop();
    assert_eq!(graph(&file)["entities"].as_array().unwrap().len(), 41);
}

/// Servers writing at the same moment take turns under the file's lock: none overwrites
/// another's records, and every acknowledged change is in the file.
#[test]
fn concurrent_writers_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("memory.mcpmem");
    let (writers, per_writer) = (4, 400);
    let runs: Vec<Run> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..writers)
            .map(|w| {
                let file = file.clone();
                s.spawn(move || {
                    let calls: Vec<Value> = (0..per_writer)
                        .map(|i| {
                            call(
                                i + 1,
                                "create_entities",
                                json!({"entities": [entity(&format!("w{w}-{i}"), "t", &["o"])]}),
                            )
                        })
                        .collect();
                    serve(on(&file), &calls)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for run in &runs {
        run.assert_ok();
        assert_eq!(run.replies().len(), per_writer as usize);
    }
    let entities = graph(&file)["entities"].as_array().unwrap().len();
    assert_eq!(entities, writers * per_writer as usize);
}

/// A server builds its search indexes while its client is quiet (a slice at a time); the
/// changes that come meanwhile are all searched.
#[test]
fn changes_while_the_indexes_are_built_in_idle_time_are_all_searched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.mcpmem");
    let creates: Vec<_> = (warm_memory().into_iter())
        .map(|args| ("create_entities", args))
        .collect();
    change(on(&file), &creates);
    let mut live = Live::start(&file);
    live.request(&initialize(0));
    changes_while_warming(|m| live.request(m));
    live.stop();
}

/// A server that loaded a memory from empty keeps its indexes built and saves them beside
/// the file when its client goes (`<file>.indexes`, its owner's only); the next server
/// reads them while its client is quiet instead of building them, and the changes that
/// come meanwhile are all searched.
#[test]
fn the_next_start_reads_the_saved_indexes_and_searches_every_change() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("m.mcpmem");
    let creates: Vec<_> = (warm_memory().into_iter())
        .map(|args| ("create_entities", args))
        .collect();
    change(on(&file), &creates).assert_ok();
    let saved = dir.path().join("m.mcpmem.indexes");
    let meta = std::fs::metadata(&saved).expect("the indexes were saved at close");
    assert!(meta.len() > 1_000_000, "{} bytes", meta.len());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let mut live = Live::start(&file);
    live.request(&initialize(0));
    changes_while_warming(|m| live.request(m));
    live.stop();
    // Closed with changes after the checkpoint the saved indexes restate: they still
    // restate it (the next start applies the changes), and no temporary file is left.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        left.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")),
        "{left:?}"
    );
}
