//! Tool profiles: what each lists, what it answers, and how `--tools` adjusts it.

use crate::common::*;
use mcp_memory_core::testing::MemLog;
use mcp_memory_core::tools::profile::{PROFILES, Selection};
use serde_json::{Value, json};

/// The reference server's tools/list result, as it lists it.
const REFERENCE_LISTING: &str = include_str!("../../src/tools/reference/catalog.json");

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

/// The Rust mcp-memory 3.x's 26 tools, as its README lists them.
#[rustfmt::skip]
const RUST_SEED: [&str; 26] = [
    "create_entities", "create_relations", "add_observations", "delete_entities",
    "delete_observations", "delete_relations", "upsert_entities", "merge_entities", "compact",
    "read_graph", "search_nodes", "open_nodes", "batch_get_entities", "get_entity",
    "entity_exists", "graph_stats", "search_relations", "describe_entity", "degree",
    "find_path", "find_all_paths", "extract_subgraph", "get_neighbors", "list_entity_types",
    "list_relation_types", "export_graph",
];

/// The TypeScript Memory MCP v10's 59 tools (danielsimonjr/memory-mcp at b95b8ae8).
#[rustfmt::skip]
const MEMORY_MCP_SEED: [&str; 59] = [
    "create_entities", "create_relations", "add_observations", "delete_entities",
    "delete_observations", "delete_relations", "read_graph", "open_nodes", "search_nodes",
    "normalize_observations", "search_by_date_range", "search_nodes_ranked", "boolean_search",
    "fuzzy_search", "get_search_suggestions", "search_auto", "hybrid_search", "analyze_query",
    "smart_search", "semantic_search", "find_similar_entities", "index_embeddings",
    "save_search", "execute_saved_search", "list_saved_searches", "delete_saved_search",
    "update_saved_search", "add_tags", "remove_tags", "set_importance",
    "add_tags_to_multiple_entities", "replace_tag", "merge_tags", "add_tag_alias",
    "list_tag_aliases", "remove_tag_alias", "get_aliases_for_tag", "resolve_tag",
    "set_entity_parent", "get_children", "get_parent", "get_ancestors", "get_descendants",
    "get_subtree", "get_root_entities", "get_entity_depth", "move_entity", "get_graph_stats",
    "validate_graph", "find_duplicates", "merge_entities", "compress_graph", "archive_entities",
    "find_shortest_path", "find_all_paths", "get_connected_components", "get_centrality",
    "import_graph", "export_graph",
];

/// The Python MCP Memory v2's 19 tools (Yarlan1503/mcp-memory at 0cbe84d).
#[rustfmt::skip]
const MCP_MEMORY_PY_SEED: [&str; 19] = [
    "create_entities", "create_relations", "add_observations", "delete_entities",
    "delete_observations", "delete_relations", "search_nodes", "open_nodes", "search_semantic",
    "migrate", "analyze_entity_split", "propose_entity_split_tool", "execute_entity_split_tool",
    "find_split_candidates", "find_duplicate_observations", "consolidation_report",
    "add_reflection", "search_reflections", "end_relation",
];

fn sorted<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let mut names: Vec<String> = names.iter().map(|n| n.as_ref().to_string()).collect();
    names.sort();
    names
}

/// Each seed's profile lists the seed's real tools (frozen above from their sources, not
/// derived from this server's table); `memory-mcp` adds two of ours that complete its
/// archive, and `mcp-memory-py` ends with `migrate`.
#[test]
fn each_profile_lists_its_tools() {
    let nine: Vec<String> = REFERENCE_TOOLS.iter().map(|s| s.to_string()).collect();
    let mut default = nine.clone();
    default.extend(["search", "history", "undo"].map(String::from));
    assert_eq!(names(&listing("default", "")), default);
    let rust = names(&listing("rust", ""));
    assert_eq!(sorted(&rust), sorted(&RUST_SEED));
    assert_eq!(rust[..9], nine);
    let ts = names(&listing("memory-mcp", ""));
    let mut expected = MEMORY_MCP_SEED.to_vec();
    expected.extend(["list_archived", "restore_archived"]);
    assert_eq!(sorted(&ts), sorted(&expected));
    assert_eq!(ts[..9], nine);
    let py = names(&listing("mcp-memory-py", ""));
    assert_eq!(sorted(&py), sorted(&MCP_MEMORY_PY_SEED));
    assert_eq!(py.last().map(String::as_str), Some("migrate"));
    // `all`: every name once, the nine first.
    let all = names(&listing("all", ""));
    assert_eq!(sorted(&all).len(), {
        let mut unique = sorted(&all);
        unique.dedup();
        unique.len()
    });
    for name in RUST_SEED
        .iter()
        .chain(&MEMORY_MCP_SEED)
        .chain(&MCP_MEMORY_PY_SEED)
    {
        assert!(all.iter().any(|n| n == name), "all lacks {name}");
    }
    assert_eq!(all[..9], nine);
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

/// What each profile costs an agent's context (bytes / 4 ≈ tokens), against the servers
/// it stands in for: their `tools/list` results, compact JSON. The reference's nine,
/// 10,760 bytes; the TypeScript Memory MCP 10.1.0 (b95b8ae8, its `toolDefinitions`),
/// 23,889; the Python MCP Memory v2 (0cbe84d, listed by FastMCP 4.2), 11,132.
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
    let bounds = [
        ("reference", 10_760),
        ("default", 10_760 * 3 / 2),
        ("memory-mcp", 23_889),
        ("mcp-memory-py", 11_132),
    ];
    for (profile, bound) in bounds {
        assert!(
            size(profile) <= bound,
            "profile {profile} lists {} bytes, more than {bound}",
            size(profile)
        );
    }
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

/// A schema lists only what works: an argument the server always refuses (`redactPii`:
/// it does not redact) is not listed, though a call that gives it is still refused.
#[test]
fn no_listing_offers_an_argument_that_is_always_refused() {
    for profile in ["memory-mcp", "all"] {
        let listed = listing(profile, "");
        let export = (listed["tools"].as_array().expect("tools").iter())
            .find(|t| t["name"] == "export_graph")
            .expect("export_graph is listed");
        let text = export["inputSchema"].to_string();
        assert!(!text.contains("redactPii\":{"), "{profile}: {text}");
    }
}
