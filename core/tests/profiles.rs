//! Tool profiles: what each lists, what it answers, and how `--tools` adjusts it.

mod common;

use common::*;
use mcp_memory_core::testing::MemLog;
use mcp_memory_core::tools::profile::{PROFILES, Selection};
use mcp_memory_core::tools::{Shape, TOOLS};
use serde_json::{Value, json};

/// The reference server's tools/list result, as it lists it.
const REFERENCE_LISTING: &str = include_str!("../src/tools/catalog.json");

/// The tools/list result of a fresh memory with `profile` adjusted by `tools`.
fn listing(profile: &str, tools: &str) -> Value {
    let mut m = open(MemLog::new());
    m.set_tools(profile, tools).expect("a known profile");
    let reply = send(&mut m, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    reply[0]["result"].clone()
}

fn names(listing: &Value) -> Vec<String> {
    let tools = listing["tools"].as_array().expect("tools");
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn each_profile_lists_its_tools() {
    let with = |more: &[&str]| -> Vec<String> {
        REFERENCE_TOOLS
            .iter()
            .chain(more)
            .map(|s| s.to_string())
            .collect()
    };
    assert_eq!(
        names(&listing("default", "")),
        with(&["search", "history", "undo"])
    );
    // The Rust mcp-memory 3.x's 26: the nine, then its 17 in the order its README lists
    // them, which is the catalog's.
    let rust: Vec<String> = TOOLS[..26].iter().map(|t| t.name.to_string()).collect();
    assert_eq!(
        rust[9..12],
        ["upsert_entities", "merge_entities", "compact"]
    );
    assert_eq!(rust[25], "export_graph");
    assert_eq!(names(&listing("rust", "")), rust);
    // The TypeScript seed's tools: the catalog's tail, from save_search.
    let from = TOOLS.iter().position(|t| t.name == "save_search").unwrap();
    let to = TOOLS
        .iter()
        .position(|t| t.shape == Shape::McpMemoryPy)
        .unwrap();
    let ts: Vec<&str> = TOOLS[from..to].iter().map(|t| t.name).collect();
    assert!(ts.contains(&"move_entity"));
    assert_eq!(names(&listing("memory-mcp", "")), with(&ts));
    // The Python seed's: the nine but read_graph (it has none), the deletions of entities
    // and relations in ours (the same arguments), the rest in its shapes, then its hygiene
    // tools (ours: new names) and migrate last.
    let py: Vec<&str> = ["delete_entities", "delete_relations"]
        .into_iter()
        .chain(TOOLS[to..].iter().map(|t| t.name))
        .collect();
    assert_eq!(names(&listing("mcp-memory-py", "")), py);
    assert_eq!(py.len(), 19);
    assert_eq!(py[18], "migrate");
    // Every name once: a name with two shapes where it first comes.
    let mut all: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    let mut seen = std::collections::HashSet::new();
    all.retain(|n| seen.insert(*n));
    assert!(all.len() < TOOLS.len());
    assert_eq!(names(&listing("all", "")), all);
}

/// The reference's profile lists the nine exactly as the reference does (without the
/// optional arguments this server adds), yet calls still take them.
#[test]
fn the_reference_profile_lists_the_nine_verbatim() {
    let want: Value = serde_json::from_str(REFERENCE_LISTING).unwrap();
    assert_eq!(listing("reference", ""), want);
    let (mut m, _) = fresh_with("reference", "");
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &["x"]), entity("B", "t", &["y"])]}),
    );
    let page = call_ok(&mut m, "read_graph", json!({"limit": 1}));
    assert_eq!(page["entities"].as_array().unwrap().len(), 1);
    // Adjusted, it is no longer the reference's listing: the nine come extended.
    let adjusted = listing("reference", "+history");
    assert_ne!(adjusted["tools"][0], want["tools"][0]);
    assert_eq!(names(&adjusted).len(), 10);
}

/// What each profile costs an agent's context (bytes / 4 ≈ tokens): `default` stays small.
#[test]
fn listing_sizes_stay_within_their_bounds() {
    let size = |p: &str| serde_json::to_string(&listing(p, "")).unwrap().len();
    for (name, _) in PROFILES {
        eprintln!(
            "profile {name}: {} bytes (~{} tokens)",
            size(name),
            size(name) / 4
        );
    }
    assert!(size("reference") < 12_000);
    assert!(
        size("default") < 36_000,
        "default grew to {}",
        size("default")
    );
    assert!(size("default") < size("all") / 2);
}

fn fresh_with(profile: &str, tools: &str) -> (mcp_memory_core::Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = open(log.clone());
    m.set_tools(profile, tools).expect("a known profile");
    (m, log)
}

/// A tool outside the profile is answered as the reference answers a tool it lacks, and
/// nothing changes.
#[test]
fn a_tool_outside_the_profile_is_not_found_and_changes_nothing() {
    let (mut m, log) = fresh_with("default", "");
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("A", "t", &[])]}),
    );
    let before = log.records();
    let result = call(
        &mut m,
        "upsert_entities",
        json!({"entities": [{"name": "B", "entityType": "t", "observations": []}]}),
    );
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "MCP error -32602: Tool upsert_entities not found"
    );
    assert_eq!(log.records(), before);
    call_ok(&mut m, "history", json!({}));
}

#[test]
fn tools_adds_and_leaves_out_in_order() {
    let got = names(&listing(
        "default",
        "+get_entity, -undo,history,-search,+search",
    ));
    let want: Vec<String> = REFERENCE_TOOLS
        .iter()
        .chain(&["get_entity", "search", "history"])
        .map(|s| s.to_string())
        .collect();
    assert_eq!(got, want);
    let (mut m, _) = fresh_with("reference", "-read_graph");
    let result = call(&mut m, "read_graph", json!({}));
    assert_eq!(result["isError"], true);
}

#[test]
fn unknown_profiles_and_tools_are_refused_by_name() {
    let err = Selection::new("everything", "").unwrap_err();
    assert_eq!(
        err,
        "profile: unknown profile 'everything'; the profiles are reference, default, rust, memory-mcp, mcp-memory-py, all"
    );
    let err = Selection::new("default", "+get_entity,-nope").unwrap_err();
    assert!(err.starts_with("tools: unknown tool 'nope'"), "{err}");
    let (mut m, _) = fresh_with("reference", "");
    assert!(m.set_tools("default", "+nope").is_err());
    let reply = send(&mut m, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(
        names(&reply[0]["result"]).len(),
        9,
        "a refused change changes nothing"
    );
}
