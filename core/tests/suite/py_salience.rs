//! Salience (the Python seed's "Limbic" ranking): the uses reads count, logged at most once
//! a second and at close, added up across processes sharing a log, kept by compaction, and
//! lifting search_semantic's scores.

use crate::common::*;
use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::graph::Use;
use mcp_memory_core::record::{Op, Record};
use mcp_memory_core::testing::MemLog;
use mcp_memory_core::{Log, Server};
use serde_json::{Value, json};

/// A memory of profile `mcp-memory-py` with the embedding table, its clock at `now`.
fn py_at<L: Log>(log: L, now: u64) -> Server<L> {
    let mut m = py(log, now);
    load_table(&mut m);
    m
}

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;

/// Two entities about the same thing in the same words, and a third.
fn seeded() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = py_at(log.clone(), T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
            {"name": "Harbor North", "entityType": "Place", "observations": ["a harbor for fishing boats"]},
            {"name": "Harbor South", "entityType": "Place", "observations": ["a harbor for fishing boats"]},
            {"name": "Mill", "entityType": "Place", "observations": ["grinds grain by the river"]},
        ]}),
    );
    (m, log)
}

/// How many records of the log are uses.
fn use_records(log: &MemLog) -> usize {
    log.records()
        .iter()
        .filter_map(|bytes| Record::decode(bytes).ok())
        .filter(|r| r.ops.iter().any(|op| matches!(op, Op::Used(_))))
        .count()
}

/// The counts of `name`, as the memory holds them.
fn usage<'m, L: Log>(m: &'m Server<L>, name: &str) -> Option<&'m Use> {
    let g = m.memory().graph();
    g.usage(g.strings().lookup(name)?)
}

fn accesses<L: Log>(m: &Server<L>, name: &str) -> u64 {
    usage(m, name).map_or(0, Use::count)
}

fn open_nodes<L: Log>(m: &mut Server<L>, names: &[&str]) {
    call_ok(m, "open_nodes", json!({ "names": names }));
}

fn names(results: &Value) -> Vec<&str> {
    results["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect()
}

#[test]
fn reads_are_logged_at_most_once_a_second_and_at_close() {
    let (mut m, log) = seeded();
    for i in 0..10 {
        at(&mut m, T0 + 100 + i * 50);
        open_nodes(&mut m, &["Harbor North", "Mill"]);
    }
    assert_eq!(
        use_records(&log),
        0,
        "ten reads within a second write nothing"
    );
    assert_eq!(accesses(&m, "Harbor North"), 0, "counts follow the log");
    at(&mut m, T0 + 1_200);
    call_ok(&mut m, "search_nodes", json!({"query": "grain"}));
    assert_eq!(
        use_records(&log),
        1,
        "the first call a second later logs them"
    );
    assert_eq!(accesses(&m, "Harbor North"), 10);
    let north = usage(&m, "Harbor North").unwrap();
    let mill = m.memory().graph().strings().lookup("Mill").unwrap();
    assert_eq!(north.with(mill).map(|w| w.0), Some(10), "returned together");
    assert_eq!(north.last, T0 + 550);
    // The search_nodes above counted nothing; an add_observations counts its entity.
    call_ok(
        &mut m,
        "add_observations",
        json!({"name": "Mill", "observations": ["two stones"]}),
    );
    at(&mut m, T0 + 1_300);
    call_ok(&mut m, "search_nodes", json!({"query": "grain"}));
    assert_eq!(use_records(&log), 1, "not a second after the last record");
    m.memory_mut().close();
    assert_eq!(use_records(&log), 2, "closing logs what waits");
    let again = py_at(log.reopened(), T0 + 2_000);
    assert_eq!(accesses(&again, "Mill"), 11, "a restart replays the counts");
    assert_eq!(accesses(&again, "Harbor South"), 0);
}

#[test]
fn uses_are_not_changes_history_lists_or_undo_sees() {
    let (mut m, _log) = seeded();
    open_nodes(&mut m, &["Mill"]);
    at(&mut m, T0 + 5_000);
    open_nodes(&mut m, &["Mill"]);
    m.set_tools("all", "").unwrap();
    let history = call_ok(&mut m, "history", json!({}));
    let changes = history["changes"].as_array().expect("changes");
    assert_eq!(changes.len(), 1, "only the creation: {history}");
    let id = changes[0]["id"].as_str().unwrap().to_string();
    call_ok(&mut m, "undo", json!({"changeId": id}));
    assert_eq!(m.memory().graph().entity_count(), 0);
    assert!(usage(&m, "Mill").is_none(), "counts go with their entity");
}

#[test]
fn two_processes_sharing_a_file_add_their_counts() {
    let dir = MemDir::new();
    let mut a = py_at(FileLog::new(dir.open("memory.mcpmem", 1)), T0);
    call_ok(
        &mut a,
        "create_entities",
        json!({"entities": [{"name": "Mill"}, {"name": "Harbor North"}]}),
    );
    let mut b = py_at(FileLog::new(dir.open("memory.mcpmem", 2)), T0 + 10);
    for i in 0..3 {
        at(&mut a, T0 + 20 + i);
        open_nodes(&mut a, &["Mill"]);
    }
    at(&mut b, T0 + 30);
    open_nodes(&mut b, &["Mill", "Harbor North"]);
    open_nodes(&mut b, &["Mill"]);
    // Each logs its uses under the lock, which its host releases after the message.
    at(&mut a, T0 + 2_000);
    call_ok(&mut a, "search_nodes", json!({"query": "x"}));
    a.memory_mut().log_mut().unlock();
    at(&mut b, T0 + 2_100);
    call_ok(&mut b, "search_nodes", json!({"query": "x"}));
    b.memory_mut().log_mut().unlock();
    at(&mut a, T0 + 2_200);
    call_ok(&mut a, "search_nodes", json!({"query": "x"}));
    assert_eq!(accesses(&a, "Mill"), 5, "3 of a's and 2 of b's");
    assert_eq!(accesses(&b, "Mill"), 5);
    assert_eq!(accesses(&a, "Harbor North"), 1);
    drop((a, b));
    let again = py_at(FileLog::new(dir.open("memory.mcpmem", 3)), T0 + 3_000);
    assert_eq!(accesses(&again, "Mill"), 5, "a third process reads the sum");
}

#[test]
fn compaction_and_checkpoints_keep_the_counts_and_deleting_drops_them() {
    let (mut m, log) = seeded();
    open_nodes(&mut m, &["Mill", "Harbor North"]);
    open_nodes(&mut m, &["Mill"]);
    m.memory_mut().close();
    let before = serde_json::to_value(m.memory().graph().state()).unwrap();
    assert_eq!(before["usage"]["accesses"].as_array().unwrap().len(), 2);
    m.set_tools("all", "").unwrap();
    call_ok(&mut m, "compact", json!({}));
    let again = py_at(log.reopened(), T0 + 10_000);
    let after = serde_json::to_value(again.memory().graph().state()).unwrap();
    assert_eq!(after["usage"], before["usage"]);
    assert_eq!(accesses(&again, "Mill"), 2);
    at(&mut m, T0 + 20_000);
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["Mill"]}));
    assert!(usage(&m, "Mill").is_none());
    let north = usage(&m, "Harbor North").expect("its own counts stay");
    assert!(north.with.is_empty(), "its pair with Mill went with Mill");
}

#[test]
fn search_semantic_lifts_what_was_used_and_shows_why() {
    let query = json!({"query": "harbor for fishing boats", "limit": 2});
    // One search, then the one it ranked second used again and again, on several days.
    let used = || {
        let (mut m, log) = seeded();
        let first = call_ok(&mut m, "search_semantic", query.clone());
        let order = names(&first);
        assert_eq!(order.len(), 2);
        assert_eq!(first["results"][0]["scoring"]["importance"], 0.0);
        let second = order[1].to_string();
        for day in 0..4u64 {
            at(&mut m, T0 + day * 86_400_000 + 1);
            for _ in 0..3 {
                open_nodes(&mut m, &[second.as_str()]);
            }
        }
        at(&mut m, T0 + 4 * 86_400_000);
        (m, log, second)
    };
    let (mut m, log, second) = used();
    let lifted = call_ok(&mut m, "search_semantic", query.clone());
    assert_eq!(names(&lifted)[0], second, "{lifted}");
    let top = &lifted["results"][0]["scoring"];
    assert!(top["importance"].as_f64().unwrap() > 1.0, "{top}");
    // The other counts only the first search's use.
    let other = lifted["results"][1]["scoring"]["importance"]
        .as_f64()
        .unwrap();
    assert!(other > 0.0 && other < 0.5, "{lifted}");
    // A salience weight of 0 leaves importance out: the score is (1 + 0.1 × importance)
    // times smaller (the default weight), on a memory with the same uses (a search's
    // uses count for the next).
    let plain = call_ok(
        &mut used().0,
        "search_semantic",
        json!({"query": "harbor for fishing boats", "limit": 2, "salience_weight": 0}),
    );
    let score = |r: &Value| r["results"][0]["limbic_score"].as_f64().unwrap();
    let importance = top["importance"].as_f64().unwrap();
    let ratio = score(&lifted) / score(&plain);
    assert!(
        (ratio - (1.0 + 0.1 * importance)).abs() < 1e-3,
        "{ratio} {plain}"
    );
    // The seed's routing: a factual question blends cosine with the scaled Limbic score.
    let factual = call_ok(
        &mut m,
        "search_semantic",
        json!({"query": "qué es harbor", "limit": 2}),
    );
    assert_eq!(factual["results"][0]["routing_strategy"], "cosine_heavy");
    assert_eq!(lifted["results"][0]["routing_strategy"], "hybrid_balanced");
    // Both were returned together twice now: each gets a co-occurrence boost.
    at(&mut m, T0 + 4 * 86_400_000 + 2_000);
    let together = call_ok(&mut m, "search_semantic", query);
    for r in together["results"].as_array().unwrap() {
        assert!(
            r["scoring"]["cooc_boost"].as_f64().unwrap() > 0.0,
            "{together}"
        );
    }
    assert!(use_records(&log) >= 4);
}

#[test]
fn the_half_life_is_an_argument() {
    // Each on a memory unused for 30 days (a search's uses count for the next).
    let factor = |args: Value| {
        let (mut m, _log) = seeded();
        at(&mut m, T0 + 30 * 86_400_000);
        let r = call_ok(&mut m, "search_semantic", args);
        r["results"][0]["scoring"]["temporal_factor"]
            .as_f64()
            .unwrap()
    };
    let default = factor(json!({"query": "grain river"}));
    assert!((default - 0.93).abs() < 0.01, "{default}");
    let month = factor(json!({"query": "grain river", "half_life_days": 30}));
    assert!((month - 0.5).abs() < 0.001, "{month}");
    let (mut m, _log) = seeded();
    let refused = call_err(
        &mut m,
        "search_semantic",
        json!({"query": "grain", "half_life_days": 0}),
    );
    assert!(refused.contains("half_life_days"), "{refused}");
    let refused = call_err(
        &mut m,
        "search_semantic",
        json!({"query": "grain", "salience_weight": -1}),
    );
    assert!(refused.contains("salience_weight"), "{refused}");
}

/// Issue 41, Python 5: uses count at once. Reads a moment before a search (well within
/// the second before they are logged) lift what they returned, as the seed's would.
#[test]
fn uses_count_at_once_though_they_are_logged_later() {
    let (mut m, log) = seeded();
    let query = json!({"query": "harbor for fishing boats", "limit": 2});
    let first = call_ok(&mut m, "search_semantic", query.clone());
    let second = names(&first)[1].to_string();
    let records = log.records().len();
    for i in 0..3 {
        at(&mut m, T0 + 10 + i);
        open_nodes(&mut m, &[second.as_str()]);
    }
    at(&mut m, T0 + 20);
    let lifted = call_ok(&mut m, "search_semantic", query);
    assert_eq!(log.records().len(), records, "nothing logged yet");
    assert_eq!(names(&lifted)[0], second, "{lifted}");
    assert!(
        lifted["results"][0]["scoring"]["importance"]
            .as_f64()
            .unwrap()
            > 0.0
    );
}
