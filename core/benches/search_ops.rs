//! Ranked search's speed and memory at 40,000 entities (and typo lookups in a 60,000-word
//! vocabulary), in process:
//!
//! ```text
//! cargo bench -p mcp-memory-core --bench search_ops
//! ```
//!
//! Prints figures; asserts nothing about time.

#[path = "../tests/suite/common/mod.rs"]
mod common;

use common::*;
use mcp_memory_core::Server;
use mcp_memory_core::graph::{EntityId, Graph};
use mcp_memory_core::index::search::{self, Options, SearchIndex};
use mcp_memory_core::model::{Entity, Relation};
use mcp_memory_core::record::{Op, Record};
use serde_json::json;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

/// Counts live heap bytes, for the memory figure of the speed test.
struct Counting;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn search_tool(memory: &mut Server<MemLog>, query: &str) {
    call_ok(memory, "search", json!({ "query": query }));
}

fn create(memory: &mut Server<MemLog>, entities: &[serde_json::Value]) {
    call_ok(memory, "create_entities", json!({ "entities": entities }));
}

// ---------------------------------------------------------------------------------------------
// Speed and memory at 40,000 entities
// ---------------------------------------------------------------------------------------------

/// The benchmark's entity `i` (host-native/benches/core_ops.rs): a name, one of 17 types,
/// three observations; every 1000th carries a rare word.
fn bench_entity(i: usize) -> (String, String, Vec<String>) {
    let rare = if i % 1000 == 7 {
        format!(" rareword{}", i / 1000)
    } else {
        String::new()
    };
    (
        format!("entity-{i}"),
        format!("type{}", i % 17),
        vec![
            format!("observation one of {i} mentions common text{rare}"),
            format!("lives in city {} and works on project {}", i % 101, i % 211),
            format!("note {i}: prefers tea over coffee"),
        ],
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median microseconds of `op` over `n` runs.
fn time(n: usize, mut op: impl FnMut()) -> f64 {
    median(
        (0..n)
            .map(|_| {
                let t = std::time::Instant::now();
                op();
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect(),
    )
}

fn main() {
    let (n, rels) = (40_000, 120_000);
    let mut records = Vec::new();
    for start in (0..n).step_by(100) {
        let batch: Vec<_> = (start..(start + 100).min(n)).map(bench_entity).collect();
        let list = batch
            .iter()
            .map(|(name, t, obs)| Entity {
                name,
                entity_type: t,
                observations: obs.iter().map(String::as_str).collect(),
            })
            .collect();
        records.push(Record::from(Op::CreateEntities(list)).encode());
    }
    for start in (0..rels).step_by(100) {
        let triples: Vec<(String, String, String)> = (start..(start + 100).min(rels))
            .map(|k| {
                (
                    format!("entity-{}", k % n),
                    format!("entity-{}", (k * 7 + 13) % n),
                    format!("rel{}", k / n),
                )
            })
            .collect();
        let list = triples
            .iter()
            .map(|(from, to, r)| Relation {
                from,
                to,
                relation_type: r,
            })
            .collect();
        records.push(Record::from(Op::CreateRelations(list)).encode());
    }
    let start = LIVE_BYTES.load(Ordering::Relaxed);
    let t = std::time::Instant::now();
    let mut g = Graph::default();
    for r in &records {
        g.apply(&Record::decode(r).unwrap(), &mut ());
    }
    let replay = t.elapsed();
    let graph_bytes = LIVE_BYTES.load(Ordering::Relaxed) - start;
    let before = LIVE_BYTES.load(Ordering::Relaxed);
    let t = std::time::Instant::now();
    let index = SearchIndex::build(&g);
    let build = t.elapsed();
    let bytes = LIVE_BYTES.load(Ordering::Relaxed) - before;
    let t = std::time::Instant::now();
    search::search(&g, &index, "rareword3", &Options::default());
    let first = t.elapsed();
    println!(
        "graph {} bytes/entity (with 3 relations each); replay {replay:.1?}; index build {build:.1?} ({} terms, {} bytes/entity allocated, {} by capacity); first search (sorts the terms) {first:.1?}",
        graph_bytes / n as isize,
        index.term_count(),
        bytes / n as isize,
        index.heap_bytes() / n
    );
    let page = |limit| Options {
        limit,
        ..Options::default()
    };
    let cases = [
        ("rareword3", 10),
        ("rareword3", 1),
        ("rareword3", 20),
        ("entity-12345", 10),
        ("zebra", 10),
        ("coffeee", 10),
        ("obsrvation", 10),
        ("coffee", 20),
        ("common text", 20),
        ("type5 tea", 20),
        ("\"prefers tea\"", 20),
        ("city -coffee", 20),
        ("type", 20),
        ("no", 20),
        ("coffee zebra", 20),
        ("type5 OR type6", 20),
    ];
    for (q, limit) in cases {
        let r = search::search(&g, &index, q, &page(limit));
        let us = time(51, || {
            std::hint::black_box(search::search(&g, &index, q, &page(limit)));
        });
        println!("search {q:?} limit {limit}: {us:.1} µs ({} hits)", r.total);
    }
    let names: Vec<EntityId> = g.entities().map(|(id, _)| id).take(2000).collect();
    let us = time(21, || {
        std::hint::black_box(search::rank(&index, &names, "entity"));
    });
    println!("rank 2000 candidates: {us:.1} µs");

    // Through the tool (JSON in and out), and an update while the index is live.
    let mut m = open(MemLog::holding(mcp_memory_core::Contents::Records(
        records.clone(),
    )));
    search_tool(&mut m, "warm");
    for (q, limit) in [("rareword3", 10), ("coffee", 20)] {
        let us = time(51, || {
            std::hint::black_box(call_ok(
                &mut m,
                "search",
                json!({"query": q, "limit": limit}),
            ));
        });
        println!("tool search {q:?} limit {limit}: {us:.1} µs");
    }
    let mut k = 0;
    let us = time(51, || {
        k += 1;
        create(
            &mut m,
            &[entity(&format!("new-{k}"), "t", &["fresh words here"])],
        );
    });
    println!("create_entities (1 entity, index live): {us:.1} µs");
    assert!(first.as_secs_f64() < 1.0);
    drop(m);
    drop(index);
    drop(g);

    // Typo lookups in a large vocabulary: 40,000 entities whose observations draw from
    // 60,000 made-up words of 4 to 11 letters.
    let mut rng = CrashRng::new(7);
    let vocabulary: Vec<String> = (0..60_000)
        .map(|_| {
            let len = 4 + rng.up_to(7);
            (0..len)
                .map(|_| (b'a' + rng.up_to(25) as u8) as char)
                .collect()
        })
        .collect();
    let mut g = Graph::default();
    for start in (0..n).step_by(100) {
        let texts: Vec<String> = (start..start + 100)
            .map(|_| {
                (0..10)
                    .map(|_| {
                        let max = rng.up_to(59_999);
                        vocabulary[rng.up_to(max)].as_str()
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let names: Vec<String> = (start..start + 100).map(|i| format!("w{i}")).collect();
        g.apply(
            &Record::from(Op::CreateEntities(
                (0..100)
                    .map(|k| Entity {
                        name: &names[k],
                        entity_type: "t",
                        observations: vec![&texts[k]],
                    })
                    .collect(),
            )),
            &mut (),
        );
    }
    let index = SearchIndex::build(&g);
    println!("made-up vocabulary: {} terms", index.term_count());
    let word = &vocabulary[123];
    let typo5 = "qzxwv".to_string();
    let typo9 = "qzxwvutsr".to_string();
    let mut swapped: Vec<char> = word.chars().collect();
    swapped.swap(1, 2);
    let swapped: String = swapped.into_iter().collect();
    for q in [word.as_str(), &swapped, &typo5, &typo9] {
        let r = search::search(&g, &index, q, &Options::default());
        let us = time(51, || {
            std::hint::black_box(search::search(&g, &index, q, &Options::default()));
        });
        println!("search {q:?}: {us:.1} µs ({} hits)", r.total);
    }
}
