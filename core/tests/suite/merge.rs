//! One merge for every surface's `merge_entities` and for `compress_graph`
//! (`memory::merge::merge_entities`): whichever shape asks, the merged entity keeps what
//! the merged ones had. A test per property, each over every shape.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::graph::{Graph, Target};
use mcp_memory_core::model::{Access, CoUse, EntityState, Usage};
use mcp_memory_core::record::{Op, Record};
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;

/// The three ways to ask for the merge of "Ann Lea" into "Ann Lee".
const SHAPES: [&str; 3] = ["ours", "memory-mcp", "compress_graph"];

/// Ann Lee (kept) and Ann Lea (merged into her), both people, with everything an entity
/// can have; Kid belongs under Ann Lea; Acme is related to both. Then the merge, asked in
/// `shape`.
fn merged(shape: &str) -> Server<MemLog> {
    let log = MemLog::new();
    let mut m = profiled(log.clone(), "all", T0);
    create(
        &mut m,
        &[
            json!({"name": "Ann Lee", "entityType": "person", "observations": ["likes tea"],
                   "tags": ["friend"], "importance": 3}),
            json!({"name": "Ann Lea", "entityType": "person",
                   "observations": ["likes tea", "plays chess"], "tags": ["chess"],
                   "importance": 7, "status": "in review"}),
            json!({"name": "Kid", "entityType": "thing", "observations": [], "parentId": "Ann Lea"}),
            json!({"name": "Acme", "entityType": "thing", "observations": []}),
        ],
    );
    at(&mut m, T0 + 1_000);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "Ann Lea", "contents": ["chose the blue car"],
                                 "kind": "decision"}]}),
    );
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "Ann Lea", "contents": ["plays chess weekly"],
                                 "supersedes": "plays chess"}]}),
    );
    at(&mut m, T0 + 2_000);
    relate(
        &mut m,
        &[
            json!({"from": "Ann Lea", "to": "Acme", "relationType": "works_at",
                   "context": "since 2020"}),
            json!({"from": "Ann Lee", "to": "Ann Lea", "relationType": "knows"}),
            json!({"from": "Acme", "to": "Ann Lee", "relationType": "employs"}),
        ],
    );
    call_ok(
        &mut m,
        "add_reflection",
        json!({"content": "she seems reliable", "entity": "Ann Lea", "author": "sofia"}),
    );
    call_ok(
        &mut m,
        "add_reflection",
        json!({"content": "a long tenure", "relation": {"from": "Ann Lea", "to": "Acme",
               "relationType": "works_at"}, "author": "sofia"}),
    );
    // Uses (as another process logged them): Ann Lea read twice, once with Acme.
    let day = (T0 / 86_400_000) as u32;
    let usage = Usage {
        accesses: vec![Access {
            entity: "Ann Lea",
            day,
            count: 2,
            last: T0 + 3_000,
        }],
        pairs: vec![CoUse {
            a: "Acme",
            b: "Ann Lea",
            count: 1,
            last: T0 + 3_000,
        }],
    };
    log.append_as_other_writer(Record::from(Op::Used(usage)).encode());
    at(&mut m, T0 + 4_000);
    call_ok(&mut m, "read_graph", json!({"limit": 1}));
    assert_eq!(
        accesses(m.memory().graph(), "Ann Lea"),
        2,
        "the uses were read"
    );
    at(&mut m, T0 + 5_000);
    match shape {
        "ours" => call_ok(
            &mut m,
            "merge_entities",
            json!({"source": "Ann Lea", "target": "Ann Lee"}),
        ),
        "memory-mcp" => call_ok(
            &mut m,
            "merge_entities",
            json!({"entityNames": ["Ann Lee", "Ann Lea"]}),
        ),
        _ => call_ok(&mut m, "compress_graph", json!({"threshold": 0.5})),
    };
    let g = m.memory().graph();
    assert!(g.first_named("Ann Lea").is_none(), "{shape}: Ann Lea went");
    m
}

fn ann(g: &Graph) -> EntityState<'_> {
    let id = g.first_named("Ann Lee").expect("Ann Lee stays");
    g.entity_state(g.entity(id))
}

fn accesses(g: &Graph, name: &str) -> u64 {
    g.strings()
        .lookup(name)
        .and_then(|sym| g.usage(sym))
        .map_or(0, |u| u.count())
}

/// Every current observation once, each with the time it was added and its kind; the
/// merged entity's superseded observations come along as history.
#[test]
fn observation_times_kinds_and_history_are_kept() {
    for shape in SHAPES {
        let m = merged(shape);
        let state = ann(m.memory().graph());
        let fact = |text: &str| state.facts.iter().find(|f| f.text == text).copied();
        let current: Vec<&str> = state
            .facts
            .iter()
            .filter(|f| f.superseded == 0)
            .map(|f| f.text)
            .collect();
        assert_eq!(
            current,
            ["likes tea", "chose the blue car", "plays chess weekly"],
            "{shape}"
        );
        let decision = fact("chose the blue car").expect("carried");
        assert_eq!(decision.kind, Some("decision"), "{shape}");
        assert_eq!(decision.created, T0 + 1_000, "{shape}");
        let old = fact("plays chess").expect("its history came along");
        assert_eq!(old.superseded, T0 + 1_000, "{shape}");
        let new = fact("plays chess weekly").unwrap();
        assert_eq!(
            new.supersedes, old.id,
            "{shape}: what it superseded follows it"
        );
        let mut ids: Vec<u32> = state.facts.iter().map(|f| f.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), state.facts.len(), "{shape}: ids stay unique");
    }
}

#[test]
fn tags_of_all_are_kept() {
    for shape in SHAPES {
        let m = merged(shape);
        assert_eq!(ann(m.memory().graph()).tags, ["friend", "chess"], "{shape}");
    }
}

#[test]
fn the_greatest_importance_is_kept() {
    for shape in SHAPES {
        let m = merged(shape);
        assert_eq!(ann(m.memory().graph()).importance, Some(7.0), "{shape}");
    }
}

/// The kept entity had no status: the merged one's stays.
#[test]
fn a_status_is_kept() {
    for shape in SHAPES {
        let m = merged(shape);
        assert_eq!(ann(m.memory().graph()).status, Some("in review"), "{shape}");
    }
}

/// The merged entity's usage counts are the kept one's, added up.
#[test]
fn usage_counts_are_kept() {
    for shape in SHAPES {
        let m = merged(shape);
        let g = m.memory().graph();
        assert_eq!(accesses(g, "Ann Lee"), 2, "{shape}");
        assert_eq!(accesses(g, "Ann Lea"), 0, "{shape}");
        let (ann, acme) = (g.strings().lookup("Ann Lee"), g.strings().lookup("Acme"));
        let together = g.usage(ann.unwrap()).and_then(|u| u.with(acme.unwrap()));
        assert_eq!(
            together.map(|(n, _)| n),
            Some(1),
            "{shape}: the pair moved too"
        );
    }
}

/// Relations follow with their context and time; the one between the two becomes a loop
/// and goes; the kept entity's own relations stay as they were.
#[test]
fn relations_follow_with_their_context_and_time() {
    for shape in SHAPES {
        let mut m = merged(shape);
        let g = m.memory().graph();
        let mut relations: Vec<Value> = g
            .relations()
            .map(|(_, r)| serde_json::to_value(g.relation_state(r, 0)).unwrap())
            .collect();
        relations.sort_by_key(|r| r["relation"]["relationType"].to_string());
        assert_eq!(
            relations,
            [
                json!({"relation": {"from": "Acme", "to": "Ann Lee", "relationType": "employs"},
                       "created": T0 + 2_000, "context": null, "ended": 0}),
                json!({"relation": {"from": "Ann Lee", "to": "Acme", "relationType": "works_at"},
                       "created": T0 + 2_000, "context": "since 2020", "ended": 0}),
            ],
            "{shape}"
        );
        assert_eq!(graph(&mut m)["relations"].as_array().unwrap().len(), 2);
    }
}

#[test]
fn children_belong_to_the_merged_entity() {
    for shape in SHAPES {
        let m = merged(shape);
        let g = m.memory().graph();
        let kid = g.entity_state(g.entity(g.first_named("Kid").unwrap()));
        assert_eq!(kid.parent, Some("Ann Lee"), "{shape}");
    }
}

/// Reflections about the merged entity, or about a relation that moved, are about the
/// merged entity now.
#[test]
fn reflections_move_to_the_merged_entity() {
    for shape in SHAPES {
        let m = merged(shape);
        let g = m.memory().graph();
        let targets: Vec<String> = g
            .reflections()
            .iter()
            .map(|r| match r.target {
                Target::Entity(e) => g.text(e).to_string(),
                Target::Relation([from, to, t]) => {
                    format!("{} {} {}", g.text(from), g.text(t), g.text(to))
                }
                _ => String::new(),
            })
            .collect();
        assert_eq!(targets, ["Ann Lee", "Ann Lee works_at Acme"], "{shape}");
    }
}

/// The merge is one record, and a restart replays it to the same graph.
#[test]
fn the_merge_replays_to_the_same_graph() {
    for shape in SHAPES {
        let mut m = merged(shape);
        let before = graph(&mut m);
        let log = m.memory_mut().log_mut().reopened();
        let mut again = open(log);
        assert_eq!(graph(&mut again), before, "{shape}");
        assert_eq!(
            ann(again.memory().graph()).tags,
            ["friend", "chess"],
            "{shape}"
        );
    }
}
