//! Replay properties: a memory reopened from its log is the memory that wrote it, and a
//! reference JSONL file converts losslessly and exports byte-exactly.

use crate::common::model::{Ent, Model, Rel};
use crate::common::ops::{self, NAMES, OBSERVATIONS, Op, TYPES};
use crate::common::*;
use mcp_memory_core::{Contents, Log, Server};
use proptest::prelude::*;
use serde_json::json;

/// Asserts that a memory reopened from `log`'s records answers like `live`, and that both
/// export the reference's file bytes for the model's graph.
fn assert_replay_matches<L: Log>(live: &mut Server<L>, log: &MemLog, model: &Model) {
    let live_graph = graph(live);
    let live_jsonl = live.memory_mut().export_jsonl().unwrap();
    let mut replayed = open(log.reopened());
    assert_eq!(graph(&mut replayed), live_graph, "read_graph after replay");
    assert_eq!(
        String::from_utf8(replayed.memory_mut().export_jsonl().unwrap()).unwrap(),
        String::from_utf8(live_jsonl.clone()).unwrap(),
        "export_jsonl after replay"
    );
    assert_eq!(
        String::from_utf8(live_jsonl).unwrap(),
        String::from_utf8(reference_jsonl(&model.read_graph())).unwrap(),
        "export_jsonl is the reference's file"
    );
    for q in ops::queries() {
        let args = json!({ "query": q });
        assert_eq!(
            call_ok(&mut replayed, "search_nodes", args.clone()),
            call_ok(live, "search_nodes", args),
            "search_nodes {q:?} after replay"
        );
    }
}

/// Applies ops, checking every reply against the model and that the log grows by one
/// record exactly for the calls that changed the graph, each synced before the reply.
fn run(memory: &mut Server<MemLog>, log: &MemLog, model: &mut Model, ops: &[Op]) {
    for op in ops {
        let (records, syncs) = (log.len(), log.syncs());
        let changed = ops::apply(memory, model, op);
        assert_eq!(
            log.len() - records,
            usize::from(changed),
            "one record per changing call, none for no-ops and reads: {op:?}"
        );
        assert_eq!(
            log.syncs() - syncs,
            usize::from(changed),
            "a change is synced before the reply: {op:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(192), ..ProptestConfig::default() })]

    #[test]
    fn replay_rebuilds_live_memory_and_reference_answers(
        first in prop::collection::vec(ops::op(), 0..30),
        second in prop::collection::vec(ops::op(), 0..30),
    ) {
        let log = MemLog::new();
        let mut memory = open(log.clone());
        let mut model = Model::default();
        run(&mut memory, &log, &mut model, &first);
        assert_replay_matches(&mut memory, &log, &model);

        // A restarted memory keeps appending to the same log and stays equivalent.
        let log = log.reopened();
        let mut memory = open(log.clone());
        run(&mut memory, &log, &mut model, &second);
        assert_replay_matches(&mut memory, &log, &model);
    }

    #[test]
    fn foreign_jsonl_converts_losslessly_and_exports_reference_bytes(
        lines in prop::collection::vec(foreign_line(), 0..16),
        crlf in any::<bool>(),
        trailing_newline in any::<bool>(),
        blank_lines in any::<bool>(),
        then in prop::collection::vec(ops::op(), 0..20),
    ) {
        let mut model = Model::default();
        let mut file = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let text = match line {
                Line::Entity(e) => {
                    model.entities.push(e.clone());
                    foreign_entity_text(e, i)
                }
                Line::Relation(r) => {
                    model.relations.push(r.clone());
                    foreign_relation_text(r, i)
                }
            };
            file.push(text);
            if blank_lines && i.is_multiple_of(3) {
                file.push("   ".to_string());
            }
        }
        let newline = if crlf { "\r\n" } else { "\n" };
        let mut bytes = file.join(newline);
        if trailing_newline {
            bytes.push_str(newline);
        }

        let log = MemLog::foreign(bytes.as_bytes());
        let (mut memory, warnings) = open_with_warnings(log.clone());
        prop_assert_eq!(warnings.len(), 1, "only the conversion notice: {:?}", warnings);
        prop_assert!(warnings[0].contains("converted"), "{:?}", warnings);
        prop_assert_eq!(log.replaces(), 1);

        // Lossless: every line, duplicates included, in file order.
        prop_assert_eq!(graph(&mut memory), model.read_graph());
        // The reference would write the canonical form of the same graph.
        prop_assert_eq!(
            String::from_utf8(memory.memory_mut().export_jsonl().unwrap()).unwrap(),
            String::from_utf8(reference_jsonl(&model.read_graph())).unwrap()
        );
        // The converted records replay to the same graph.
        let mut replayed = open(log.reopened());
        prop_assert_eq!(graph(&mut replayed), model.read_graph());

        // Tools on a graph with same-name entities act like the reference's.
        let log = log.reopened();
        let mut memory = open(log.clone());
        run(&mut memory, &log, &mut model, &then);
        assert_replay_matches(&mut memory, &log, &model);
    }
}

#[derive(Clone, Debug)]
enum Line {
    Entity(Ent),
    Relation(Rel),
}

fn foreign_line() -> impl Strategy<Value = Line> {
    let pick =
        |pool: &'static [&'static str]| (0..pool.len()).prop_map(move |i| pool[i].to_string());
    prop_oneof![
        (
            pick(NAMES),
            pick(TYPES),
            prop::collection::vec(pick(OBSERVATIONS), 0..4)
        )
            .prop_map(|(name, entity_type, observations)| Line::Entity(Ent {
                name,
                entity_type,
                observations
            })),
        (pick(NAMES), pick(NAMES), pick(TYPES)).prop_map(|(from, to, relation_type)| {
            Line::Relation(Rel {
                from,
                to,
                relation_type,
            })
        }),
    ]
}

/// An entity line as some other writer might produce it: every other line with its keys
/// reordered, spaced out and carrying an extra key.
fn foreign_entity_text(e: &Ent, i: usize) -> String {
    let obs: Vec<&str> = e.observations.iter().map(String::as_str).collect();
    if i.is_multiple_of(2) {
        return entity_line(&e.name, &e.entity_type, &obs);
    }
    let obs: Vec<String> = obs.iter().map(|o| js_string(o)).collect();
    format!(
        r#" {{ "observations" : [ {} ], "extra": {{"nested": [1]}}, "entityType": {}, "name": {}, "type": "entity" }} "#,
        obs.join(" , "),
        js_string(&e.entity_type),
        js_string(&e.name)
    )
}

fn foreign_relation_text(r: &Rel, i: usize) -> String {
    if i.is_multiple_of(2) {
        return relation_line(&r.from, &r.to, &r.relation_type);
    }
    format!(
        r#"{{"relationType":{},"to":{},"type":"relation","from":{},"id":7}}"#,
        js_string(&r.relation_type),
        js_string(&r.to),
        js_string(&r.from)
    )
}

/// Deleting most of a large graph re-packs its arenas (ids are renumbered); order,
/// indexes and replay must survive that.
#[test]
fn mass_deletion_repack_keeps_order_indexes_and_replay() {
    let log = MemLog::new();
    let mut memory = open(log.clone());
    let mut model = Model::default();
    let n = 3000;
    let names: Vec<String> = (0..n).map(|i| format!("e{i}")).collect();
    let entities: Vec<Ent> = names
        .iter()
        .map(|name| Ent {
            name: name.clone(),
            entity_type: "t".into(),
            observations: vec![format!("obs of {name}")],
        })
        .collect();
    let relations: Vec<Rel> = (0..n)
        .map(|i| Rel {
            from: names[i].clone(),
            to: names[(i * 7 + 1) % n].clone(),
            relation_type: "next".into(),
        })
        .collect();
    let items = entities.iter().map(Ent::json).collect();
    call_in_chunks(&mut memory, "create_entities", "entities", items);
    model.create_entities(&entities);
    let items = relations.iter().map(Rel::json).collect();
    call_in_chunks(&mut memory, "create_relations", "relations", items);
    model.create_relations(&relations);

    // Delete all but every tenth entity (and with them most relations).
    let doomed: Vec<String> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 10 != 0)
        .map(|(_, n)| n.clone())
        .collect();
    let items = doomed.iter().map(|n| json!(n)).collect();
    call_in_chunks(&mut memory, "delete_entities", "entityNames", items);
    model.delete_entities(&doomed);
    assert_eq!(graph(&mut memory), model.read_graph());

    // Indexes still find survivors after the renumbering.
    let survivors = vec!["e0".to_string(), "e10".to_string(), "e2990".to_string()];
    assert_eq!(
        call_ok(&mut memory, "open_nodes", json!({ "names": survivors })),
        model.open_nodes(&survivors)
    );
    let items = vec![("e10".to_string(), vec!["new".to_string()])];
    model.add_observations(&items).unwrap();
    call_ok(
        &mut memory,
        "add_observations",
        json!({"observations": [{"entityName": "e10", "contents": ["new"]}]}),
    );
    let again: Vec<Ent> = vec![Ent {
        name: "e1".into(),
        entity_type: "back".into(),
        observations: vec![],
    }];
    model.create_entities(&again);
    call_ok(
        &mut memory,
        "create_entities",
        json!({"entities": [entity("e1", "back", &[])]}),
    );
    let rel = vec![Rel {
        from: "e0".into(),
        to: "e1".into(),
        relation_type: "next".into(),
    }];
    model.create_relations(&rel);
    call_ok(
        &mut memory,
        "create_relations",
        json!({"relations": [relation("e0", "e1", "next")]}),
    );
    assert_eq!(graph(&mut memory), model.read_graph());
    // Short queries scan; longer ones go through the text index, which must follow the
    // renumbering too.
    for q in [
        "e1",
        "e10",
        "E299",
        "obs of e2",
        "OBS OF E1000",
        "new",
        "back",
        "xyz",
    ] {
        assert_search_superset(
            &call_ok(&mut memory, "search_nodes", json!({ "query": q })),
            &model.search_nodes(q),
            &format!("search_nodes {q:?} after the repack"),
        );
    }
    assert_replay_matches(&mut memory, &log, &model);
}

/// A log opened from records written by another memory replays each record exactly once.
#[test]
fn replay_applies_each_record_once() {
    let log = MemLog::new();
    let mut memory = open(log.clone());
    call_ok(
        &mut memory,
        "create_entities",
        json!({"entities": [entity("A", "t", &["1"])]}),
    );
    call_ok(
        &mut memory,
        "add_observations",
        json!({"observations": [{"entityName": "A", "contents": ["2", "2"]}]}),
    );
    assert_eq!(log.len(), 2);
    let mut replayed = open(MemLog::holding(Contents::Records(log.records())));
    assert_eq!(
        replayed.memory_mut().export_jsonl().unwrap(),
        entity_line("A", "t", &["1", "2", "2"]).into_bytes()
    );
}

/// Deleting most relations re-packs the relation arena; endpoint and triple indexes must
/// follow the renumbering.
#[test]
fn relation_repack_keeps_endpoint_and_triple_indexes() {
    let log = MemLog::new();
    let mut memory = open(log.clone());
    let mut model = Model::default();
    let hubs = ["H0", "H1", "H2"];
    let entities: Vec<Ent> = hubs
        .iter()
        .map(|h| Ent {
            name: h.to_string(),
            entity_type: "hub".into(),
            observations: vec![],
        })
        .collect();
    model.create_entities(&entities);
    call_ok(
        &mut memory,
        "create_entities",
        json!({"entities": entities.iter().map(Ent::json).collect::<Vec<_>>()}),
    );
    let relations: Vec<Rel> = (0..2500)
        .map(|i| Rel {
            from: hubs[i % 3].to_string(),
            to: format!("leaf{i}"),
            relation_type: if i % 2 == 0 { "even" } else { "odd" }.into(),
        })
        .collect();
    model.create_relations(&relations);
    let items = relations.iter().map(Rel::json).collect();
    call_in_chunks(&mut memory, "create_relations", "relations", items);
    let doomed: Vec<Rel> = relations
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 25 != 0)
        .map(|(_, r)| r.clone())
        .collect();
    model.delete_relations(&doomed);
    let items = doomed.iter().map(Rel::json).collect();
    call_in_chunks(&mut memory, "delete_relations", "relations", items);
    assert_eq!(graph(&mut memory), model.read_graph());
    let h1 = vec!["H1".to_string()];
    assert_eq!(
        call_ok(&mut memory, "open_nodes", json!({ "names": h1 })),
        model.open_nodes(&h1)
    );
    // The triple index finds survivors (no duplicate is created) and deletes them.
    let again = vec![relations[25].clone(), relations[26].clone()];
    let created = model.create_relations(&again);
    assert_eq!(
        call_ok(
            &mut memory,
            "create_relations",
            json!({"relations": again.iter().map(Rel::json).collect::<Vec<_>>()}),
        ),
        json!({"relations": created.iter().map(Rel::json).collect::<Vec<_>>()})
    );
    let gone = vec![relations[50].clone()];
    model.delete_relations(&gone);
    call_ok(
        &mut memory,
        "delete_relations",
        json!({"relations": [gone[0].json()]}),
    );
    // The endpoint index cascades from the renumbered relations.
    let names = vec!["H2".to_string(), "leaf75".to_string()];
    model.delete_entities(&names);
    call_ok(
        &mut memory,
        "delete_entities",
        json!({ "entityNames": names }),
    );
    assert_eq!(graph(&mut memory), model.read_graph());
    assert_replay_matches(&mut memory, &log, &model);
}

/// A large reference file is converted in several records; their order and the file's
/// duplicates must survive the chunking.
#[test]
fn large_foreign_file_converts_across_record_chunks_in_order() {
    let mut model = Model::default();
    let mut lines = Vec::new();
    for i in 0..2600 {
        let name = format!("n{}", i % 2300); // the last 300 repeat earlier names
        let obs = format!("o{i}");
        lines.push(entity_line(&name, "t", &[&obs]));
        model.entities.push(Ent {
            name,
            entity_type: "t".into(),
            observations: vec![obs],
        });
    }
    for i in 0..2100 {
        let (from, to) = (format!("n{}", i % 1900), format!("n{}", i % 7));
        lines.push(relation_line(&from, &to, "r"));
        model.relations.push(Rel {
            from,
            to,
            relation_type: "r".into(),
        });
    }
    let log = MemLog::foreign(lines.join("\n").as_bytes());
    let mut memory = open(log.clone());
    assert!(log.len() > 2, "converted in several records");
    assert_eq!(graph(&mut memory), model.read_graph());
    assert_replay_matches(&mut memory, &log, &model);
}
