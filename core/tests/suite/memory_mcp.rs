//! Every tool profile `memory-mcp` lists, called once with the TypeScript seed's argument
//! shapes (`../shared/spec/seed-tools.md` §1.2) in one session over a small graph: each call
//! succeeds, its arguments fit the tool's input schema and its result the output schema.

use crate::common::*;
use mcp_memory_core::embed::Table;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;

/// The calls, in an order where each finds what it needs.
fn calls() -> Vec<(&'static str, Value)> {
    let person = |name: &str, obs: &[&str], tags: &[&str], importance: u8| {
        json!({"name": name, "entityType": "person", "observations": obs, "tags": tags,
               "importance": importance})
    };
    let import = json!({"entities": [{"name": "Imported", "entityType": "note", "observations": ["from a file"]}],
                        "relations": []});
    vec![
        (
            "create_entities",
            json!({"entities": [
                person("Ada", &["She wrote the first program", "Ada met Babbage yesterday"], &["math"], 9),
                person("Babbage", &["He designed the engine"], &["math", "engineering"], 7),
                {"name": "Engine", "entityType": "machine", "observations": ["the analytical engine"]},
                person("Ada L", &["She wrote the first program"], &["math"], 3),
                {"name": "Mathematicians", "entityType": "group", "observations": []},
            ]}),
        ),
        (
            "create_relations",
            json!({"relations": [
                relation("Ada", "Babbage", "worked_with"),
                relation("Babbage", "Engine", "designed"),
                relation("Ada", "Engine", "programmed"),
            ]}),
        ),
        (
            "add_observations",
            json!({"observations": [{"entityName": "Engine", "contents": ["never finished"]}]}),
        ),
        (
            "search_nodes",
            json!({"query": "engine", "tags": ["engineering"], "minImportance": 5, "maxImportance": 10}),
        ),
        ("open_nodes", json!({"names": ["Ada", "Babbage"]})),
        ("read_graph", json!({})),
        (
            "search_by_date_range",
            json!({"startDate": "2020-01-01T00:00:00.000Z", "endDate": "2030-01-01", "entityType": "person", "tags": ["math"]}),
        ),
        (
            "search_nodes_ranked",
            json!({"query": "program", "tags": ["math"], "minImportance": 1, "limit": 5}),
        ),
        (
            "boolean_search",
            json!({"query": "type:person AND (program OR engine) AND NOT tag:engineering"}),
        ),
        ("fuzzy_search", json!({"query": "Babage", "threshold": 0.7})),
        (
            "get_search_suggestions",
            json!({"query": "Babage", "maxSuggestions": 3}),
        ),
        ("search_auto", json!({"query": "engine", "limit": 5})),
        (
            "hybrid_search",
            json!({"query": "first program", "weights": {"semantic": 0.5, "lexical": 0.3, "symbolic": 0.2},
                   "filters": {"tags": ["math"], "entityTypes": ["person"], "minImportance": 1}, "limit": 5}),
        ),
        (
            "analyze_query",
            json!({"query": "What did Ada do last week?", "includePlan": true}),
        ),
        (
            "smart_search",
            json!({"query": "Ada program", "maxIterations": 2, "adequacyThreshold": 0.5, "limit": 5}),
        ),
        (
            "semantic_search",
            json!({"query": "computer program", "limit": 5, "minSimilarity": 0}),
        ),
        (
            "find_similar_entities",
            json!({"entityName": "Ada", "limit": 3, "minSimilarity": 0}),
        ),
        ("index_embeddings", json!({"forceReindex": true})),
        (
            "normalize_observations",
            json!({"entityName": "Ada", "options": {"resolveCoreferences": true, "anchorTimestamps": true}, "persist": false}),
        ),
        (
            "save_search",
            json!({"name": "people", "query": "program", "tags": ["math"], "description": "who programs"}),
        ),
        ("execute_saved_search", json!({"name": "people"})),
        ("list_saved_searches", json!({})),
        (
            "update_saved_search",
            json!({"name": "people", "updates": {"minImportance": 5}}),
        ),
        (
            "add_tags",
            json!({"entityName": "Engine", "tags": ["Hardware", "old"]}),
        ),
        (
            "remove_tags",
            json!({"entityName": "Engine", "tags": ["old"]}),
        ),
        (
            "set_importance",
            json!({"entityName": "Engine", "importance": 5}),
        ),
        (
            "add_tags_to_multiple_entities",
            json!({"entityNames": ["Ada", "Babbage"], "tags": ["history"]}),
        ),
        (
            "replace_tag",
            json!({"oldTag": "history", "newTag": "past"}),
        ),
        (
            "merge_tags",
            json!({"tag1": "math", "tag2": "past", "targetTag": "science"}),
        ),
        (
            "add_tag_alias",
            json!({"alias": "maths", "canonical": "science", "description": "British"}),
        ),
        ("list_tag_aliases", json!({})),
        ("get_aliases_for_tag", json!({"canonicalTag": "science"})),
        ("resolve_tag", json!({"tag": "maths"})),
        ("remove_tag_alias", json!({"alias": "maths"})),
        (
            "set_entity_parent",
            json!({"entityName": "Ada", "parentName": "Mathematicians"}),
        ),
        ("get_children", json!({"entityName": "Mathematicians"})),
        ("get_parent", json!({"entityName": "Ada"})),
        ("get_ancestors", json!({"entityName": "Ada"})),
        ("get_descendants", json!({"entityName": "Mathematicians"})),
        ("get_subtree", json!({"entityName": "Mathematicians"})),
        ("get_root_entities", json!({})),
        ("get_entity_depth", json!({"entityName": "Ada"})),
        (
            "move_entity",
            json!({"entityName": "Babbage", "newParentName": "Mathematicians"}),
        ),
        ("get_graph_stats", json!({})),
        (
            "find_shortest_path",
            json!({"source": "Ada", "target": "Engine", "direction": "outgoing", "relationTypes": ["worked_with", "designed"]}),
        ),
        (
            "find_all_paths",
            json!({"source": "Ada", "target": "Engine", "maxDepth": 3, "direction": "both"}),
        ),
        ("get_connected_components", json!({})),
        (
            "get_centrality",
            json!({"algorithm": "betweenness", "topN": 3, "approximate": true, "sampleRate": 0.5}),
        ),
        ("validate_graph", json!({})),
        ("find_duplicates", json!({"threshold": 0.5})),
        (
            "export_graph",
            json!({"format": "csv", "filter": {"startDate": "2020-01-01", "entityType": "person", "tags": ["science"]}}),
        ),
        (
            "import_graph",
            json!({"format": "json", "data": import.to_string(), "mergeStrategy": "skip", "dryRun": false}),
        ),
        (
            "archive_entities",
            json!({"tags": ["hardware"], "dryRun": false}),
        ),
        ("list_archived", json!({})),
        ("restore_archived", json!({"entityNames": ["Engine"]})),
        (
            "merge_entities",
            json!({"entityNames": ["Ada", "Ada L"], "targetName": "Ada"}),
        ),
        ("compress_graph", json!({"threshold": 0.8, "dryRun": true})),
        (
            "delete_observations",
            json!({"deletions": [{"entityName": "Engine", "observations": ["never finished"]}]}),
        ),
        (
            "delete_relations",
            json!({"relations": [relation("Ada", "Engine", "programmed")]}),
        ),
        ("delete_saved_search", json!({"name": "people"})),
        ("delete_entities", json!({"entityNames": ["Imported"]})),
    ]
}

#[test]
fn every_memory_mcp_tool_answers_its_seeds_shapes_within_its_schemas() {
    let mut m = open(MemLog::new());
    m.set_tools("memory-mcp", "").expect("the profile");
    let table = Table::parse(embedding_table_bytes().to_vec()).expect("the table");
    m.memory_mut().set_embedding_table(table);
    at(&mut m, T0);
    call_every_listed_tool(&mut m, calls());
}

#[test]
fn the_schema_check_catches_an_out_of_bounds_number() {
    let schema = json!({"type": "object", "properties": {"x": {"type": "number", "minimum": 0, "maximum": 10}}});
    assert_eq!(schema_violation(&schema, &json!({"x": 10}), "r"), None);
    assert!(schema_violation(&schema, &json!({"x": 11}), "r").is_some());
    assert!(schema_violation(&schema, &json!({"x": -1}), "r").is_some());
}
