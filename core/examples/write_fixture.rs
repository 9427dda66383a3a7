//! Writes a frozen file-format fixture of `core/tests/fixtures`: once, when a format version
//! or a record variant is introduced; the files are then committed and never written again
//! (this refuses to overwrite one).
//!
//! ```sh
//! cargo run -p mcp-memory-core --example write_fixture -- v2-usage.mcpmem
//! ```
//!
//! A log of records (`core/tests/suite/fixtures/records.rs`) is written with what it replays
//! to beside it; a checkpoint fixture restates the graph of the log it names there.

#[path = "../tests/suite/fixtures/records.rs"]
#[allow(dead_code)]
mod records;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use mcp_memory_core::graph::Graph;
use mcp_memory_core::record::Record;
use mcp_memory_core::testing::MemLog;
use mcp_memory_core::{Contents, Server, frame};
use serde_json::Value;

fn main() -> ExitCode {
    let Some(name) = std::env::args().nth(1) else {
        eprintln!("usage: write_fixture NAME (a file of core/tests/fixtures)");
        return ExitCode::from(2);
    };
    match write(&name) {
        Ok(written) => {
            for path in written {
                println!("wrote {}", path.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("write_fixture: {e}");
            ExitCode::FAILURE
        }
    }
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Writes the fixture called `name` (and its expected file); the paths written.
fn write(name: &str) -> Result<Vec<PathBuf>, String> {
    if let Some(&(file, of)) = records::CHECKPOINTS.iter().find(|(f, _)| *f == name) {
        let bytes = std::fs::read(dir().join(of)).map_err(|e| format!("{of}: {e}"))?;
        let scan = frame::scan(&bytes).map_err(|e| format!("{of}: {e}"))?;
        let entries: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
        let graph = Graph::replay(&entries)
            .map_err(|e| format!("{of}: record {}: {}", e.0, e.1))?
            .graph;
        let log = frame::encode_log([graph.checkpoint().as_slice()]);
        return put(&[(file, log)]);
    }
    let fixture = records::ALL
        .iter()
        .find(|f| f.log == name || f.expected == name)
        .ok_or_else(|| format!("no fixture is called {name}"))?;
    let records = (fixture.records)();
    let payloads: Vec<Vec<u8>> = records.iter().map(Record::encode).collect();
    let replays_to = if fixture.state {
        let mut graph = Graph::default();
        for payload in &payloads {
            let record = Record::decode(payload).map_err(|e| e.to_string())?;
            graph.apply(&record, &mut ());
        }
        serde_json::to_value(graph.state()).map_err(|e| e.to_string())?
    } else {
        read_graph(payloads.clone())?
    };
    let log = frame::encode_log(payloads.iter().map(Vec::as_slice));
    let expected = serde_json::to_string_pretty(&replays_to).map_err(|e| e.to_string())? + "\n";
    put(&[
        (fixture.log, log),
        (fixture.expected, expected.into_bytes()),
    ])
}

/// What `read_graph` answers on a memory of these records.
fn read_graph(payloads: Vec<Vec<u8>>) -> Result<Value, String> {
    let log = MemLog::holding(Contents::Records(payloads));
    let (mut server, _) = Server::open(log).map_err(|e| e.to_string())?;
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}"#;
    let reply = server
        .handle(call)
        .pop()
        .ok_or("read_graph gave no reply")?;
    let reply: Value = serde_json::from_str(&reply).map_err(|e| e.to_string())?;
    Ok(reply["result"]["structuredContent"].clone())
}

/// Writes each file, refusing if any exists.
fn put(files: &[(&str, Vec<u8>)]) -> Result<Vec<PathBuf>, String> {
    let paths: Vec<PathBuf> = files.iter().map(|(name, _)| dir().join(name)).collect();
    if let Some(there) = paths.iter().find(|p| p.exists()) {
        return Err(format!(
            "{} exists and must never be regenerated",
            there.display()
        ));
    }
    for (path, (_, bytes)) in paths.iter().zip(files) {
        std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(paths)
}
