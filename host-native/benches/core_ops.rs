//! In-process benchmark of the core's operations on a large graph, natively and inside
//! wasmtime, both over the same file log:
//!
//! ```text
//! cargo bench -p mcp-memory-server --bench core_ops [-- ENTITIES RELATIONS]   # default 40000 120000
//! ```
//!
//! Prints the median and p95 of each operation. Not a test: nothing here asserts a time.

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use mcp_memory::disk::{Durability, FsDisk, open_log};
use mcp_memory::engine::{Options, Server};
use mcp_memory_core::Server as CoreServer;
use mcp_memory_core::filelog::FileLog;
use serde_json::{Value, json};

/// Something that answers MCP messages: the native core or the component.
trait Target {
    fn handle(&mut self, message: &str) -> Vec<String>;
}

/// The core run natively over the host's file log (bench only: the binary always runs the
/// core inside the component).
type Native = CoreServer<FileLog<FsDisk>>;

impl Target for Native {
    /// Holds the file's lock around the call, as the hosts do (the log refuses writes
    /// without it).
    fn handle(&mut self, message: &str) -> Vec<String> {
        self.memory_mut()
            .log_mut()
            .lock()
            .expect("lock the memory file");
        let replies = CoreServer::handle(self, message);
        self.memory_mut().log_mut().unlock();
        replies
    }
}

impl Target for Server {
    fn handle(&mut self, message: &str) -> Vec<String> {
        Server::handle_whole(self, 0, message).expect("the component does not trap")
    }
}

fn call(tool: &str, args: Value) -> String {
    json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":args}})
        .to_string()
}

/// Deterministic word soup: entity `i` gets a name, a type, three observations; every
/// 1000th entity carries a rare word; every entity a common one.
fn entity(i: usize) -> Value {
    let rare = if i % 1000 == 7 {
        format!(" rareword{}", i / 1000)
    } else {
        String::new()
    };
    json!({
        "name": format!("entity-{i}"),
        "entityType": format!("type{}", i % 17),
        "observations": [
            format!("observation one of {i} mentions common text{rare}"),
            format!("lives in city {} and works on project {}", i % 101, i % 211),
            format!("note {i}: prefers tea over coffee"),
        ]
    })
}

fn load(target: &mut impl Target, entities: usize, relations: usize) {
    for start in (0..entities).step_by(100) {
        let batch: Vec<Value> = (start..(start + 100).min(entities)).map(entity).collect();
        target.handle(&call("create_entities", json!({ "entities": batch })));
    }
    for start in (0..relations).step_by(100) {
        let batch: Vec<Value> = (start..(start + 100).min(relations))
            .map(|k| {
                json!({
                    "from": format!("entity-{}", k % entities),
                    "to": format!("entity-{}", (k * 7 + 13) % entities),
                    "relationType": format!("rel{}", k / entities),
                })
            })
            .collect();
        target.handle(&call("create_relations", json!({ "relations": batch })));
    }
}

struct Stats {
    median: Duration,
    p95: Duration,
}

fn measure(n: usize, mut op: impl FnMut(usize)) -> Stats {
    let mut times: Vec<Duration> = (0..n)
        .map(|i| {
            let t = Instant::now();
            op(i);
            t.elapsed()
        })
        .collect();
    times.sort();
    Stats {
        median: times[n / 2],
        p95: times[(n * 95 / 100).min(n - 1)],
    }
}

fn run(label: &str, target: &mut impl Target, entities: usize) -> Vec<(&'static str, Stats)> {
    let mut out = Vec::new();
    let mut bench = |name: &'static str, n: usize, op: &mut dyn FnMut(usize)| {
        out.push((name, measure(n, op)));
    };
    bench("open_nodes (1 name)", 2000, &mut |i| {
        let name = format!("entity-{}", (i * 7919) % entities);
        black_box(target.handle(&call("open_nodes", json!({ "names": [name] }))));
    });
    bench("search_nodes (rare)", 200, &mut |i| {
        let q = format!("rareword{}", i % (entities / 1000).max(1));
        black_box(target.handle(&call("search_nodes", json!({ "query": q }))));
    });
    bench("search_nodes (broad, all hit)", 5, &mut |_| {
        black_box(target.handle(&call("search_nodes", json!({ "query": "common" }))));
    });
    bench("get_entity", 2000, &mut |i| {
        let name = format!("entity-{}", (i * 7919) % entities);
        black_box(target.handle(&call("get_entity", json!({ "name": name }))));
    });
    bench("search (rare)", 200, &mut |i| {
        let q = format!("rareword{}", i % (entities / 1000).max(1));
        black_box(target.handle(&call("search", json!({ "query": q }))));
    });
    bench("search (broad, limit 20)", 50, &mut |_| {
        black_box(target.handle(&call(
            "search",
            json!({ "query": "common text", "limit": 20 }),
        )));
    });
    bench("find_path (5 hops)", 200, &mut |i| {
        // load() links entity k to (7k + 13) mod n: five such steps are a path of five hops.
        let start = (i * 7919) % entities;
        let end = (0..5).fold(start, |k, _| (k * 7 + 13) % entities);
        let (from, to) = (format!("entity-{start}"), format!("entity-{end}"));
        black_box(target.handle(&call("find_path", json!({ "from": from, "to": to }))));
    });
    bench("get_neighbors (depth 2)", 500, &mut |i| {
        let name = format!("entity-{}", (i * 7919) % entities);
        black_box(target.handle(&call("get_neighbors", json!({ "name": name, "depth": 2 }))));
    });
    bench("add_observations (1)", 2000, &mut |i| {
        let args = json!({"observations":[{"entityName": format!("entity-{}", (i * 31) % entities),
            "contents": [format!("bench observation {i}")]}]});
        black_box(target.handle(&call("add_observations", args)));
    });
    bench("create_entities (100)", 50, &mut |i| {
        let batch: Vec<Value> = (0..100)
            .map(|k| {
                let mut e = entity(k);
                e["name"] = json!(format!("bench-{i}-{k}"));
                e
            })
            .collect();
        black_box(target.handle(&call("create_entities", json!({ "entities": batch }))));
    });
    bench("read_graph (full)", 5, &mut |_| {
        black_box(target.handle(&call("read_graph", json!({}))));
    });
    bench("delete_observations (1)", 1000, &mut |i| {
        let args = json!({"deletions":[{"entityName": format!("entity-{}", (i * 31) % entities),
            "observations": [format!("bench observation {i}")]}]});
        black_box(target.handle(&call("delete_observations", args)));
    });
    bench("delete_entities (1)", 1000, &mut |i| {
        let name = format!("entity-{}", (i * 7919 + 3) % entities);
        black_box(target.handle(&call("delete_entities", json!({ "entityNames": [name] }))));
    });
    eprintln!("[{label}] done");
    out
}

fn open_native(path: &Path) -> Native {
    let mut log = open_log(path, Durability::Background).expect("open log");
    log.lock().expect("lock the memory file");
    let mut memory = CoreServer::open(log).expect("open memory").0;
    memory.memory_mut().log_mut().unlock();
    memory
}

fn open_component(path: &Path) -> Server {
    let log = open_log(path, Durability::Background).expect("open log");
    let options = Options {
        profile: "all".to_string(),
        ..Options::default()
    };
    Server::open(Box::new(log), &options)
        .expect("open component")
        .0
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let entities = args.first().copied().unwrap_or(40_000);
    let relations = args.get(1).copied().unwrap_or(3 * entities);
    let dir = tempfile::tempdir().expect("temp dir");
    println!("core operations at {entities} entities / {relations} relations (median / p95)");

    let mut rows: Vec<(String, Vec<(&'static str, Stats)>)> = Vec::new();
    for (label, native) in [("native", true), ("wasmtime", false)] {
        let path = dir.path().join(format!("{label}.mcpmem"));
        let t = Instant::now();
        let mut results = if native {
            let mut m = open_native(&path);
            load(&mut m, entities, relations);
            let loaded = t.elapsed();
            drop(m);
            let t = Instant::now();
            let mut m = open_native(&path);
            let replay = t.elapsed();
            println!("{label}: load {loaded:.2?}, replay (open) {replay:.2?}");
            run(label, &mut m, entities)
        } else {
            let mut s = open_component(&path);
            load(&mut s, entities, relations);
            let loaded = t.elapsed();
            drop(s);
            let t = Instant::now();
            let mut s = open_component(&path);
            let replay = t.elapsed();
            println!("{label}: load {loaded:.2?}, replay (open) {replay:.2?}");
            run(label, &mut s, entities)
        };
        results.shrink_to_fit();
        rows.push((label.to_string(), results));
    }
    println!("\n{:<32} {:>22} {:>22}", "operation", "native", "wasmtime");
    for i in 0..rows[0].1.len() {
        let name = rows[0].1[i].0;
        let cell = |s: &Stats| format!("{:.1?} / {:.1?}", s.median, s.p95);
        println!(
            "{:<32} {:>22} {:>22}",
            name,
            cell(&rows[0].1[i].1),
            cell(&rows[1].1[i].1)
        );
    }
}
