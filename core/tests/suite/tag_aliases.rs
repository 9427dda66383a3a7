//! The TypeScript Memory MCP's tag alias tools, called with its argument shapes: its result
//! shapes, its errors, the chains this server refuses, the tag filters reading an alias as
//! its canonical tag, and aliases kept across restarts and compaction.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;

/// A memory with `ml` an alias of `machine-learning`, and entities tagged with each.
fn aliased() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = open(log.clone());
    at(&mut m, T0);
    let made = call(
        &mut m,
        "add_tag_alias",
        json!({"alias": "ML", "canonical": "Machine-Learning", "description": "short"}),
    );
    assert_eq!(
        text(&made),
        "{\n  \"alias\": \"ml\",\n  \"canonical\": \"machine-learning\",\n  \"description\": \"short\",\n  \"createdAt\": \"2027-01-15T08:00:00.000Z\"\n}"
    );
    let ents = json!({"entities": [
        {"name": "A", "entityType": "paper", "observations": ["about models"]},
        {"name": "B", "entityType": "paper", "observations": ["about models"]},
        {"name": "C", "entityType": "paper", "observations": ["about models"]},
    ]});
    call_ok(&mut m, "create_entities", ents);
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "A", "tags": ["ml"]}),
    );
    call_ok(
        &mut m,
        "add_tags",
        json!({"entityName": "B", "tags": ["machine-learning"]}),
    );
    (m, log)
}

#[test]
fn an_alias_resolves_and_lists_in_the_seeds_shapes() {
    let (mut m, _) = aliased();
    let resolved = call_ok(&mut m, "resolve_tag", json!({"tag": "Ml"}));
    assert_eq!(
        resolved,
        json!({"tag": "Ml", "resolved": "machine-learning"})
    );
    let plain = call_ok(&mut m, "resolve_tag", json!({"tag": "Other"}));
    assert_eq!(plain["resolved"], "other");
    let listed = call(&mut m, "list_tag_aliases", json!({}));
    let list: Value = serde_json::from_str(text(&listed)).unwrap();
    assert_eq!(list[0]["alias"], "ml");
    assert_eq!(listed["structuredContent"]["aliases"], list);
    let of = call(
        &mut m,
        "get_aliases_for_tag",
        json!({"canonicalTag": "MACHINE-LEARNING"}),
    );
    assert_eq!(text(&of), "[\n  \"ml\"\n]");
    assert_eq!(of["structuredContent"], json!({"aliases": ["ml"]}));
}

#[test]
fn duplicates_and_chains_are_refused_and_change_nothing() {
    let (mut m, log) = aliased();
    let before = log.len();
    let refused = [
        (
            json!({"alias": "ml", "canonical": "x"}),
            "Tag alias \"ml\" already exists",
        ),
        (
            json!({"alias": "Machine-Learning", "canonical": "x"}),
            "Cannot create alias to \"Machine-Learning\" because it is a canonical tag with existing aliases",
        ),
        (
            json!({"alias": "m", "canonical": "ML"}),
            "canonical: \"ml\" is itself an alias of \"machine-learning\": make the alias to \"machine-learning\"",
        ),
        (
            json!({"alias": "same", "canonical": "SAME"}),
            "alias: \"same\" cannot be an alias of itself",
        ),
    ];
    for (args, want) in refused {
        assert_eq!(call_err(&mut m, "add_tag_alias", args), want);
    }
    assert_eq!(log.len(), before);
}

#[test]
fn removing_answers_in_words_and_only_a_removal_is_logged() {
    let (mut m, log) = aliased();
    let before = log.len();
    let gone = call(&mut m, "remove_tag_alias", json!({"alias": "nope"}));
    assert_eq!(text(&gone), "Tag alias \"nope\" not found");
    assert_eq!(gone["structuredContent"]["removed"], false);
    assert_eq!(log.len(), before);
    let removed = call(&mut m, "remove_tag_alias", json!({"alias": "ML"}));
    assert_eq!(text(&removed), "Tag alias \"ML\" removed successfully");
    assert_eq!(log.len(), before + 1);
    let list = call_ok(&mut m, "list_tag_aliases", json!({}));
    assert_eq!(list, json!({"aliases": []}));
}

#[test]
fn tag_filters_read_an_alias_as_its_canonical_tag() {
    let (mut m, _) = aliased();
    for tag in ["ml", "machine-learning", "ML"] {
        let found = call_ok(
            &mut m,
            "search_nodes",
            json!({"query": "models", "tags": [tag]}),
        );
        assert_eq!(entity_names(&found), ["A", "B"], "tag {tag}");
        assert_eq!(found["total"], 2);
    }
    let none = call_ok(
        &mut m,
        "search_nodes",
        json!({"query": "models", "tags": ["other"]}),
    );
    assert_eq!(entity_names(&none), Vec::<String>::new());
}

#[test]
fn aliases_survive_a_restart_and_compaction() {
    let (mut m, log) = aliased();
    call_ok(
        &mut m,
        "add_tag_alias",
        json!({"alias": "js", "canonical": "javascript"}),
    );
    call_ok(&mut m, "remove_tag_alias", json!({"alias": "ml"}));
    let before = call_ok(&mut m, "list_tag_aliases", json!({}));
    drop(m);
    let mut again = open(log.reopened());
    assert_eq!(call_ok(&mut again, "list_tag_aliases", json!({})), before);
    call_ok(&mut again, "compact", json!({}));
    drop(again);
    let mut compacted = open(log.reopened());
    assert_eq!(
        call_ok(&mut compacted, "list_tag_aliases", json!({})),
        before
    );
    assert_eq!(before["aliases"][0]["alias"], "js");
}
