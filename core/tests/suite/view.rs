//! Bounded answers of read_graph, search_nodes and open_nodes: entityType, offset/limit,
//! maxTokens with cursors, outline. Without these arguments the tools answer as the
//! reference does (tests/tools.rs).

use crate::common::*;
use mcp_memory_core::Server;
use serde_json::{Value, json};

/// A memory of `n` people (each with a long observation) and `n` places, with relations.
fn people(n: usize) -> Server<MemLog> {
    let mut m = open(MemLog::new());
    let mut entities = Vec::new();
    let mut relations = Vec::new();
    for i in 0..n {
        let obs = format!("person {i} keeps a long diary: {}", "word ".repeat(40));
        entities.push(entity(&format!("P{i}"), "person", &[&obs]));
        entities.push(entity(&format!("L{i}"), "place", &[]));
        relations.push(relation(&format!("P{i}"), &format!("L{i}"), "lives_in"));
    }
    call_ok(&mut m, "create_entities", json!({ "entities": entities }));
    call_ok(
        &mut m,
        "create_relations",
        json!({ "relations": relations }),
    );
    m
}

#[test]
fn entity_type_filters_and_relations_touch_the_returned_entities() {
    let mut m = people(3);
    let result = call_ok(&mut m, "read_graph", json!({"entityType": "place"}));
    assert_eq!(entity_names(&result), ["L0", "L1", "L2"]);
    assert_eq!(result["relations"].as_array().unwrap().len(), 3);
    assert_eq!(result["total"], 3);
    assert!(result.get("nextCursor").is_none());
}

#[test]
fn offset_and_limit_page_and_a_cursor_continues() {
    let mut m = people(5);
    let first = call_ok(
        &mut m,
        "search_nodes",
        json!({"query": "diary", "limit": 2}),
    );
    assert_eq!(entity_names(&first), ["P0", "P1"]);
    assert_eq!(first["total"], 5);
    let cursor = first["nextCursor"]
        .as_str()
        .expect("a cursor when cut short");
    let second = call_ok(
        &mut m,
        "search_nodes",
        json!({"query": "diary", "limit": 2, "cursor": cursor}),
    );
    assert_eq!(entity_names(&second), ["P2", "P3"]);
    let last = call_ok(
        &mut m,
        "search_nodes",
        json!({"query": "diary", "offset": 4}),
    );
    assert_eq!(entity_names(&last), ["P4"]);
    assert!(last.get("nextCursor").is_none());
}

#[test]
fn max_tokens_bounds_the_text_and_cursors_walk_every_entity_exactly_once() {
    let mut m = people(60);
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = json!({"maxTokens": 1000});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let result = call(&mut m, "read_graph", args);
        let text = text(&result);
        assert!(
            text.len() <= 3000,
            "a page of {} characters exceeds 1000 tokens",
            text.len()
        );
        let page = &result["structuredContent"];
        seen.extend(entity_names(page));
        pages += 1;
        match page.get("nextCursor") {
            Some(c) => cursor = Some(c.as_str().unwrap().to_string()),
            None => break,
        }
    }
    assert!(pages > 3, "1000 tokens cannot hold 120 entities at once");
    let all = entity_names(&graph(&mut m));
    assert_eq!(seen, all);
}

#[test]
fn max_tokens_too_small_for_one_entity_says_so() {
    let mut m = people(1);
    let err = call_err(
        &mut m,
        "open_nodes",
        json!({"names": ["P0"], "maxTokens": 10}),
    );
    assert!(err.contains("maxTokens 10 is too small"), "{err}");
    assert!(err.contains("outline"), "{err}");
}

#[test]
fn outline_gives_names_and_types_without_observations() {
    let mut m = people(2);
    let result = call_ok(
        &mut m,
        "open_nodes",
        json!({"names": ["P0", "L1"], "outline": true}),
    );
    assert_eq!(
        result["entities"],
        json!([{"name": "P0", "entityType": "person"}, {"name": "L1", "entityType": "place"}])
    );
}

#[test]
fn a_cursor_that_is_not_ours_is_an_error() {
    let mut m = people(1);
    let err = call_err(&mut m, "read_graph", json!({"cursor": "page 2"}));
    assert!(err.starts_with("Invalid cursor"), "{err}");
}

#[test]
fn the_bounded_tools_declare_the_extra_arguments_and_result_fields() {
    let mut m = people(0);
    let replies = m.handle(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let list: Value = serde_json::from_str(&replies[0]).unwrap();
    for name in ["read_graph", "search_nodes", "open_nodes"] {
        let tool = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        // What most agents need is listed; the rest is taken, not listed (each costs
        // every agent's context).
        for arg in ["limit", "maxTokens", "cursor"] {
            assert!(
                tool["inputSchema"]["properties"].get(arg).is_some(),
                "{name} lists {arg}"
            );
        }
        let args = match name {
            "search_nodes" => json!({"query": "a"}),
            "open_nodes" => json!({"names": ["Ada"]}),
            _ => json!({}),
        };
        let mut unlisted = args.clone();
        for (arg, value) in [
            ("entityType", json!("person")),
            ("offset", json!(0)),
            ("outline", json!(true)),
        ] {
            assert!(
                tool["inputSchema"]["properties"].get(arg).is_none(),
                "{name} lists {arg}"
            );
            unlisted[arg] = value;
        }
        let err = call_err(
            &mut m,
            name,
            json!({"offset": "one", "query": "a", "names": []}),
        );
        assert!(
            err.contains("offset"),
            "{name} checks offset though unlisted: {err}"
        );
        call_ok(&mut m, name, unlisted);
        assert!(
            tool["outputSchema"]["properties"]
                .get("nextCursor")
                .is_some()
        );
        let required = &tool["outputSchema"]["properties"]["entities"]["items"]["required"];
        assert_eq!(
            required,
            &json!(["name", "entityType"]),
            "{name}: outline entities validate"
        );
    }
}
