//! The TypeScript seed's memory file as that server writes it: every `updateEntity`
//! (`add_tags`, `remove_tags`, `set_importance`, `set_entity_parent`) appends the entity's
//! new version, and its loader keeps the last line per name (and per relation) at the place
//! of the first, until it compacts the file. Opened here, the file holds what that server
//! holds, and the conversion says what it folded (issue 41, TypeScript 1).

use crate::common::*;
use mcp_memory_core::testing::MemLog;
use mcp_memory_core::verify;
use serde_json::json;

/// On the seed: create Dave Kim and Alice Chen, relate them, then `add_tags` mentee and
/// `remove_tags` frontend on Dave Kim, and the relation made again (a later line).
const WRITTEN: &str = concat!(
    r#"{"type":"entity","name":"Dave Kim","entityType":"person","observations":["Frontend developer"],"createdAt":"2026-01-05T10:00:00.000Z","lastModified":"2026-01-05T10:00:00.000Z","tags":["frontend","junior"]}"#,
    "\n",
    r#"{"type":"entity","name":"Alice Chen","entityType":"person","observations":["Tech lead"],"createdAt":"2026-01-05T10:00:00.000Z","lastModified":"2026-01-05T10:00:00.000Z"}"#,
    "\n",
    r#"{"type":"relation","from":"Alice Chen","to":"Dave Kim","relationType":"mentors","createdAt":"2026-01-05T10:00:30.000Z","lastModified":"2026-01-05T10:00:30.000Z"}"#,
    "\n",
    r#"{"type":"entity","name":"Dave Kim","entityType":"person","observations":["Frontend developer"],"createdAt":"2026-01-05T10:00:00.000Z","lastModified":"2026-01-05T10:01:00.000Z","tags":["frontend","junior","mentee"]}"#,
    "\n",
    r#"{"type":"entity","name":"Dave Kim","entityType":"person","observations":["Frontend developer"],"createdAt":"2026-01-05T10:00:00.000Z","lastModified":"2026-01-05T10:02:00.000Z","tags":["junior","mentee"],"importance":7}"#,
    "\n",
    r#"{"type":"relation","from":"Alice Chen","to":"Dave Kim","relationType":"mentors","createdAt":"2026-01-05T10:03:00.000Z","lastModified":"2026-01-05T10:03:00.000Z"}"#,
);

#[test]
fn an_entity_updated_on_the_seed_is_one_entity_with_its_last_version() {
    let log = MemLog::foreign(WRITTEN.as_bytes());
    let (mut m, warnings) = open_with_warnings(log.clone());
    let said = warnings.join("\n");
    assert!(
        said.contains(
            "2 entity line(s) and 1 relation line(s) were older versions of a later line"
        ),
        "{said}"
    );
    let g = graph(&mut m);
    assert_eq!(
        entity_names(&g),
        ["Dave Kim", "Alice Chen"],
        "one Dave Kim, at the place of his first line"
    );
    assert_eq!(g["relations"].as_array().map(Vec::len), Some(1));
    at(&mut m, 1_800_000_000_000);
    m.set_tools("memory-mcp", "").expect("a known profile");
    let dave = call_ok(
        &mut m,
        "get_entity_depth",
        json!({"entityName": "Dave Kim"}),
    );
    assert_eq!(dave["depth"], 0);
    let tagged = call_ok(&mut m, "search_by_date_range", json!({"tags": ["mentee"]}));
    let names: Vec<&str> = tagged["entities"]
        .as_array()
        .expect("entities")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(names, ["Dave Kim"], "the last line's tags: {tagged}");
    let frontend = call_ok(
        &mut m,
        "search_by_date_range",
        json!({"tags": ["frontend"]}),
    );
    assert_eq!(
        frontend["entities"],
        json!([]),
        "frontend was removed: {frontend}"
    );

    // A later write reaches the one entity, and a restart finds the same graph.
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "Dave Kim", "contents": ["Now on the platform team"]}]}),
    );
    let again = graph(&mut profiled(
        log.reopened(),
        "memory-mcp",
        1_800_000_000_000,
    ));
    assert_eq!(again, graph(&mut m));
    assert_eq!(again["entities"][0]["tags"], json!(["junior", "mentee"]));
    assert_eq!(entity_names(&again), ["Dave Kim", "Alice Chen"]);
}

#[test]
fn verify_reads_the_seed_file_as_the_seed_does() {
    let text = verify::verify(WRITTEN.as_bytes()).to_string();
    assert!(text.contains("(2 entities, 1 relations,"), "{text}");
    assert!(text.contains("older versions of a later line"), "{text}");
}

#[test]
fn a_reference_file_keeps_its_duplicates() {
    let lines = [
        entity_line("Ada", "person", &["one"]),
        entity_line("Ada", "person", &["two"]),
    ];
    let (mut m, _) = from_jsonl(&lines);
    assert_eq!(entity_names(&graph(&mut m)), ["Ada", "Ada"]);
}
