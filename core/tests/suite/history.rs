//! History through the tools: `history` lists what changed, when and by whom; reads
//! `asOf` a time show the graph as it was; `undo` puts back what a change changed, or says
//! why not; compaction keeps a horizon of history and rebuilds the same graph.

use crate::common::*;
use mcp_memory_core::memory::history::ChangeId;
use mcp_memory_core::record::Checkpoint;
use mcp_memory_core::{Intent, Log, PAGE_BYTES, Server};
use serde_json::{Value, json};

const T0: u64 = 1_700_000_000_000;
const MINUTE: u64 = 60_000;
const DAY: u64 = 24 * 60 * MINUTE;

/// Ada and Babbage who know each other (T0), then an observation on Ada (T0 + 1 min),
/// then Babbage's deletion (T0 + 2 min).
fn three_changes() -> (Server<MemLog>, MemLog) {
    let (mut m, log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Ada", "person", &["wrote programs"]),
                            entity("Babbage", "person", &["built engines"])]}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("Ada", "Babbage", "knows")]}),
    );
    at(&mut m, T0 + MINUTE);
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "Ada", "contents": ["liked poetry"]}]}),
    );
    at(&mut m, T0 + 2 * MINUTE);
    call_ok(
        &mut m,
        "delete_entities",
        json!({"entityNames": ["Babbage"]}),
    );
    (m, log)
}

fn ids(history: &Value) -> Vec<&str> {
    history["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| c["id"].as_str().expect("id"))
        .collect()
}

/// The graph and everything replay rebuilds, as the reads show it with metadata and history.
fn full<L: Log>(m: &mut Server<L>) -> Value {
    call_ok(m, "read_graph", json!({"include": ["metadata", "history"]}))
}

#[test]
fn history_lists_changes_newest_first_with_time_client_and_ops() {
    let (mut m, _) = three_changes();
    let h = call_ok(&mut m, "history", json!({}));
    let t0 = T0.to_string();
    assert_eq!(
        ids(&h),
        [
            format!("{}-0", T0 + 2 * MINUTE),
            format!("{}-0", T0 + MINUTE),
            format!("{t0}-1"),
            format!("{t0}-0")
        ]
    );
    assert_eq!(h["more"], false);
    let newest = &h["changes"][0];
    assert_eq!(newest["at"], "2023-11-14T22:15:20.000Z");
    assert_eq!(newest["client"], "claude-code");
    assert_eq!(newest["clientVersion"], "2.1.0");
    assert_eq!(
        newest["ops"],
        json!([{"op": "delete_entities", "entityNames": ["Babbage"]}])
    );
    assert_eq!(
        h["changes"][1]["ops"],
        json!([{"op": "add_observations",
                "observations": [{"entityName": "Ada", "contents": ["liked poetry"]}]}])
    );
}

#[test]
fn history_filters_by_entity_time_client_and_limit() {
    let (mut m, _) = three_changes();
    let ada = call_ok(&mut m, "history", json!({"entityName": "Ada"}));
    // Ada's creation (not Babbage's), the relation at her, her observation.
    assert_eq!(ada["changes"].as_array().unwrap().len(), 3);
    assert_eq!(
        ada["changes"][2]["ops"][0]["entities"],
        json!([entity("Ada", "person", &["wrote programs"])])
    );
    let since = call_ok(
        &mut m,
        "history",
        json!({"since": "2023-11-14T22:14:00Z", "until": "2023-11-14T22:15:00Z"}),
    );
    assert_eq!(ids(&since), [format!("{}-0", T0 + MINUTE)]);
    let other = call_ok(&mut m, "history", json!({"client": "cursor"}));
    assert_eq!(other["changes"], json!([]));
    let limited = call_ok(&mut m, "history", json!({"limit": 2}));
    assert_eq!(ids(&limited).len(), 2);
    assert_eq!(limited["more"], true);
}

#[test]
fn history_shows_at_most_items_per_op_and_counts_the_rest() {
    let (mut m, _log) = initialized_at(T0);
    let entities: Vec<Value> = (0..5)
        .map(|i| entity(&format!("E{i}"), "thing", &["an observation"]))
        .collect();
    call_ok(&mut m, "create_entities", json!({ "entities": entities }));
    let whole = call_ok(&mut m, "history", json!({}));
    let op = &whole["changes"][0]["ops"][0];
    assert_eq!(op["entities"].as_array().unwrap().len(), 5);
    assert!(op.get("omitted").is_none(), "{op}");
    let brief = call_ok(&mut m, "history", json!({"itemsPerOp": 2}));
    let op = &brief["changes"][0]["ops"][0];
    assert_eq!(op["entities"][1]["name"], "E1");
    assert_eq!(op["entities"].as_array().unwrap().len(), 2);
    assert_eq!(op["omitted"], 3);
    // With an entity, only its items count.
    let one = call_ok(
        &mut m,
        "history",
        json!({"entityName": "E3", "itemsPerOp": 1}),
    );
    let op = &one["changes"][0]["ops"][0];
    assert_eq!(op["entities"][0]["name"], "E3");
    assert!(op.get("omitted").is_none(), "{op}");
}

#[test]
fn history_refuses_bad_times_naming_the_field() {
    let (mut m, _) = three_changes();
    let e = call_err(&mut m, "history", json!({"since": "yesterday"}));
    assert!(e.starts_with("since: \"yesterday\" is not a time"), "{e}");
    let e = call_err(
        &mut m,
        "history",
        json!({"since": "2024-01-02", "until": "2024-01-01"}),
    );
    assert!(e.starts_with("since: must be before until"), "{e}");
}

#[test]
fn reads_as_of_a_time_show_the_graph_as_it_was() {
    let (mut m, _) = three_changes();
    let then = call_ok(
        &mut m,
        "read_graph",
        json!({"asOf": "2023-11-14T22:14:30Z"}),
    );
    assert_eq!(
        then,
        graph_of(
            &[
                entity("Ada", "person", &["wrote programs", "liked poetry"]),
                entity("Babbage", "person", &["built engines"])
            ],
            &[relation("Ada", "Babbage", "knows")]
        )
    );
    let found = call_ok(
        &mut m,
        "search_nodes",
        json!({"query": "engines", "asOf": "2023-11-14T22:13:20Z"}),
    );
    assert_eq!(entity_names(&found), ["Babbage"]);
    let before = call_ok(&mut m, "read_graph", json!({"asOf": "2020-01-01"}));
    assert_eq!(before, graph_of(&[], &[]));
    let e = call_err(
        &mut m,
        "open_nodes",
        json!({"names": ["Ada"], "asOf": "soon"}),
    );
    assert!(e.starts_with("asOf: \"soon\" is not a time"), "{e}");
    // Today's graph is untouched by a look at the past.
    assert_eq!(
        call_ok(&mut m, "read_graph", json!({})),
        graph_of(
            &[entity("Ada", "person", &["wrote programs", "liked poetry"])],
            &[]
        )
    );
}

#[test]
fn undo_puts_back_an_entity_deletion_with_its_relations_and_replay_agrees() {
    let (mut m, log) = three_changes();
    let before = call_ok(
        &mut m,
        "read_graph",
        json!({"include": ["metadata", "history"], "asOf": "2023-11-14T22:14:30Z"}),
    );
    at(&mut m, T0 + 3 * MINUTE);
    let undone = call_ok(
        &mut m,
        "undo",
        json!({"changeId": format!("{}-0", T0 + 2 * MINUTE)}),
    );
    assert_eq!(undone["undone"], format!("{}-0", T0 + 2 * MINUTE));
    assert_eq!(full(&mut m), before);
    let mut again = open(log.reopened());
    assert_eq!(full(&mut again), before);
    // The undo is a change of its own, and can be undone in turn (a redo).
    let h = call_ok(&mut m, "history", json!({"limit": 1}));
    assert_eq!(h["changes"][0]["ops"][0]["op"], "restore");
    at(&mut m, T0 + 4 * MINUTE);
    call_ok(
        &mut m,
        "undo",
        json!({"changeId": format!("{}-0", T0 + 3 * MINUTE)}),
    );
    assert_eq!(
        entity_names(&call_ok(&mut m, "read_graph", json!({}))),
        ["Ada"]
    );
}

#[test]
fn undo_of_observations_metadata_supersession_and_ended_relations_restores_each() {
    let (mut m, log) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &["old"]), entity("B", "t", &[])]}),
    );
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("A", "B", "knows")]}),
    );
    let before = full(&mut m);
    let changes = [
        (
            "add_observations",
            json!({"observations": [{"entityName": "A", "contents": ["new"],
                                      "kind": "fact", "supersedes": "old"}]}),
        ),
        (
            "update_entities",
            json!({"entities": [{"name": "A", "tags": ["x"], "importance": 3, "parentId": "B"}]}),
        ),
        (
            "end_relations",
            json!({"relations": [relation("A", "B", "knows")]}),
        ),
        ("delete_entities", json!({"entityNames": ["B"]})),
    ];
    for (n, (tool, args)) in changes.into_iter().enumerate() {
        let now = T0 + (n as u64 + 1) * MINUTE;
        at(&mut m, now);
        call_ok(&mut m, tool, args);
        let changed = full(&mut m);
        at(&mut m, now + 1);
        call_ok(&mut m, "undo", json!({"changeId": format!("{now}-0")}));
        assert_eq!(full(&mut m), before, "undo of {tool}");
        assert_ne!(changed, before, "{tool} changed something");
    }
    assert_eq!(full(&mut open(log.reopened())), before);
}

#[test]
fn undo_is_refused_when_a_later_change_depends_on_it_and_changes_nothing() {
    let (mut m, log) = three_changes();
    let records = log.len();
    // Ada's creation: a relation at her was made later (and she was changed later).
    let e = call_err(&mut m, "undo", json!({"changeId": format!("{T0}-0")}));
    assert_eq!(
        e,
        format!(
            "change {T0}-0 cannot be undone: change {T0}-1 made later depends on it (it refers to entity 'Ada'); undo that one first"
        )
    );
    // The relation: Babbage's deletion took it.
    let e = call_err(&mut m, "undo", json!({"changeId": format!("{T0}-1")}));
    assert!(
        e.ends_with(
            "(it deleted 'Babbage', and with it relation Ada -knows-> Babbage); undo that one first"
        ),
        "{e}"
    );
    let e = call_err(&mut m, "undo", json!({"changeId": "12-0"}));
    assert!(e.starts_with("no change has id 12-0"), "{e}");
    let e = call_err(&mut m, "undo", json!({"changeId": "last"}));
    assert!(
        e.starts_with("changeId: \"last\" is not a change id"),
        "{e}"
    );
    assert_eq!(log.len(), records, "nothing was logged");
}

#[test]
fn undo_refuses_a_relation_to_an_entity_it_would_remove_and_forgetting_and_reflections() {
    let (mut m, _) = initialized_at(T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    at(&mut m, T0 + 1);
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("Z", "A", "knows")]}),
    );
    let e = call_err(&mut m, "undo", json!({"changeId": format!("{T0}-0")}));
    assert!(e.contains("(it refers to entity 'A')"), "{e}");
    at(&mut m, T0 + 2);
    call_ok(&mut m, "add_reflection", json!({"content": "noted"}));
    let e = call_err(&mut m, "undo", json!({"changeId": format!("{}-0", T0 + 2)}));
    assert!(
        e.ends_with("reflections are not undone (add another one instead)"),
        "{e}"
    );
}

/// The journal of what a memory's log holds now.
/// The ids of the changes the log holds, oldest first, as the journal reads them.
fn change_ids(m: &mut Server<MemLog>) -> Vec<ChangeId> {
    let mut journal = m.memory_mut().journal(Intent::Read).expect("readable");
    let mut ids = Vec::new();
    while let Some((id, _)) = journal.next_change().expect("readable") {
        ids.push(id);
    }
    ids
}

#[test]
fn compaction_keeps_the_horizon_of_history_and_rebuilds_the_same_graph() {
    let (mut m, log) = initialized_at(T0);
    for day in 0..40 {
        at(&mut m, T0 + day * DAY);
        call_ok(
            &mut m,
            "create_entities",
            json!({"entities": [entity(&format!("E{day}"), "t", &["x"])]}),
        );
        call_ok(
            &mut m,
            "delete_observations",
            json!({"deletions": [{"entityName": format!("E{day}"), "observations": ["x"]}]}),
        );
    }
    let before = full(&mut m);
    let kept = call_ok(&mut m, "compact", json!({}))["records"].clone();
    // 30 days before the last change (day 39): days 9..=39 stay as they were logged.
    let changes = change_ids(&mut m);
    assert_eq!(changes.len(), 62);
    assert_eq!(
        changes[0],
        ChangeId {
            at: T0 + 9 * DAY,
            seq: 0
        }
    );
    assert_eq!(kept, json!(log.len()));
    assert_eq!(full(&mut m), before);
    assert_eq!(full(&mut open(log.reopened())), before);
    // History reaches back to the horizon, no further.
    let e = call_err(&mut m, "read_graph", json!({"asOf": "2023-11-15"}));
    assert!(
        e.starts_with("asOf: the memory's history starts at 2023-11-22T22:13:20.000Z"),
        "{e}"
    );
    let then = call_ok(
        &mut m,
        "read_graph",
        json!({"asOf": "2023-11-23T22:13:20Z"}),
    );
    assert_eq!(entity_names(&then).len(), 10);
    // Ids survive compaction: undo still finds a change by the id it had.
    at(&mut m, T0 + 40 * DAY);
    call_ok(
        &mut m,
        "undo",
        json!({"changeId": format!("{}-1", T0 + 39 * DAY)}),
    );
    assert_eq!(
        call_ok(&mut m, "open_nodes", json!({"names": ["E39"]}))["entities"][0]["observations"],
        json!(["x"])
    );
}

#[test]
fn without_a_clock_or_with_no_horizon_compaction_keeps_no_history() {
    let log = MemLog::new();
    let mut m = open(log.clone());
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    call_ok(&mut m, "compact", json!({}));
    let records = log.records();
    assert_eq!(records.len(), 1, "the graph as one checkpoint");
    let c = Checkpoint::decode(&records[0]).expect("a checkpoint");
    assert_eq!((c.agents.len(), c.entities.len()), (1, 1));
    let (mut m, _) = initialized_at(T0);
    m.memory_mut().set_history(0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    call_ok(&mut m, "compact", json!({}));
    assert_eq!(change_ids(&mut m).len(), 0);
}

#[test]
fn history_names_each_change_s_client_across_compactions_and_restarts() {
    // Who made a change is its place in the table of makers, which the graph keeps
    // (history reads it there, not from the log's first checkpoint): the same answer
    // whether the maker came before a compaction, after it, or again.
    let mut log = MemLog::new();
    for (i, name) in ["a", "b", "a", "c"].into_iter().enumerate() {
        let ms = T0 + i as u64 * MINUTE;
        let mut m = open(log);
        initialize_as(&mut m, name, "1", ms);
        let entity_name = format!("E{i}");
        call_ok(
            &mut m,
            "create_entities",
            json!({"entities": [entity(&entity_name, "t", &[])]}),
        );
        if i == 1 {
            // The first change folds into the checkpoint history starts from; b's stays,
            // and b's next one names b by its place in that checkpoint's table.
            m.memory_mut().set_history(1);
            call_ok(&mut m, "compact", json!({}));
            assert!(Checkpoint::decode(&m.memory_mut().log_mut().records()[0]).is_ok());
            call_ok(
                &mut m,
                "create_entities",
                json!({"entities": [entity("F", "t", &[])]}),
            );
        }
        m.memory_mut().close();
        log = m.memory_mut().log_mut().reopened();
    }
    let mut m = open(log);
    initialize_as(&mut m, "d", "1", T0 + 9 * MINUTE);
    let h = call_ok(&mut m, "history", json!({}));
    let clients: Vec<&str> = h["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["client"].as_str().unwrap())
        .collect();
    assert_eq!(clients, ["c", "a", "b", "b"]);
    let undone = call_ok(
        &mut m,
        "undo",
        json!({"changeId": format!("{}-0", T0 + 3 * MINUTE)}),
    );
    assert!(undone.to_string().contains("undone"), "{undone}");
}

/// With no history kept, compaction folds every change into the state; a change of the
/// same millisecond after it once took the folded one's id (`<at>-0`), and an undo meant for
/// the folded change undid it instead (the soak on PostgreSQL found an entity deleted by one
/// client restored by another's undo).
#[test]
fn a_change_after_compaction_never_takes_a_folded_change_s_id() {
    let (mut m, log) = initialized_at(T0);
    m.memory_mut().set_history(0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[]), entity("B", "t", &[])]}),
    );
    let folded = ids(&call_ok(&mut m, "history", json!({})))[0].to_string();
    assert_eq!(folded, format!("{T0}-0"));
    call_ok(&mut m, "compact", json!({}));
    // Another client, the same millisecond.
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["B"]}));
    let after = ids(&call_ok(&mut m, "history", json!({})))[0].to_string();
    assert_ne!(after, folded, "the deletion took the folded create's id");
    let refused = call_err(&mut m, "undo", json!({"changeId": folded}));
    assert!(refused.contains("no change has id"), "{refused}");
    let graph = call_ok(&mut m, "read_graph", json!({}));
    assert_eq!(
        graph["entities"].as_array().expect("entities").len(),
        1,
        "{graph}"
    );
    // A restart reads the log the same way.
    let mut again = open(log.reopened());
    assert_eq!(ids(&call_ok(&mut again, "history", json!({})))[0], after);
}

/// The history tools read the log a page at a time and compaction writes it a piece at a
/// time: over a log of many pages none holds more of it than a page (or one longer record),
/// and each answers as when the log was read whole.
#[test]
fn history_as_of_undo_and_compaction_hold_a_page_of_the_log_at_a_time() {
    let (mut m, log) = initialized_at(T0);
    let big = "x".repeat(6_000);
    for i in 0..400u64 {
        at(&mut m, T0 + i * MINUTE);
        let text = format!("{i} {big}");
        let e = entity(&format!("E{i}"), "t", &[&text]);
        call_ok(&mut m, "create_entities", json!({ "entities": [e] }));
    }
    let id = |minute: u64| format!("{}-0", T0 + minute * MINUTE);
    let h = call_ok(&mut m, "history", json!({"limit": 2, "itemsPerOp": 1}));
    assert_eq!(ids(&h), [id(399), id(398)]);
    assert_eq!(h["more"], true);
    let h = call_ok(
        &mut m,
        "history",
        json!({"entityName": "E3", "itemsPerOp": 1}),
    );
    assert_eq!((ids(&h), &h["more"]), (vec![id(3).as_str()], &json!(false)));
    let then = call_ok(
        &mut m,
        "read_graph",
        json!({"asOf": "2023-11-14T22:22:20Z"}),
    );
    assert_eq!(entity_names(&then).len(), 10, "E0 … E9");
    at(&mut m, T0 + 400 * MINUTE);
    call_ok(&mut m, "undo", json!({"changeId": id(5)}));
    let found = call_ok(&mut m, "open_nodes", json!({"names": ["E5", "E6"]}));
    assert_eq!(entity_names(&found), ["E6"]);
    let before = full(&mut m);
    let logged: u64 = log.records().iter().map(|r| r.len() as u64).sum();
    let kept = call_ok(&mut m, "compact", json!({}))["records"].clone();
    assert_eq!(kept, json!(log.len()));
    assert_eq!(
        change_ids(&mut m).len(),
        401,
        "every change is within the horizon"
    );
    assert_eq!(full(&mut open(log.reopened())), before);
    let largest = log.records().iter().map(|r| r.len() as u64).max();
    let bound = u64::from(PAGE_BYTES).max(largest.expect("records"));
    let (page, piece) = log.largest_page_and_piece();
    assert!(
        logged > 2 * bound,
        "the log holds far more ({logged} bytes)"
    );
    assert!(
        page <= bound && piece <= bound,
        "{page} / {piece} > {bound}"
    );
}
