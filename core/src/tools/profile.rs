//! Tool profiles: which tools `tools/list` shows and `tools/call` reaches.
//!
//! An agent pays for every tool definition in its context, so a memory lists a profile's
//! tools, not all of them: the reference's nine, a small default, or the surface of a
//! server people come from. `--tools +name,-name` adjusts any profile.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{Shape, TOOLS, ToolDef};

/// A named set of tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// Exactly the reference server's nine tools, listed as it lists them.
    Reference,
    /// The nine and what most agents benefit from: ranked search, history and undo.
    Default,
    /// The Rust `mcp-memory` 3.x's 26 tools.
    Rust,
    /// What the TypeScript "Memory MCP" v10 lists that this server answers in its shapes.
    MemoryMcp,
    /// What the Python "MCP Memory v2" lists that this server answers in its shapes.
    McpMemoryPy,
    /// Every tool.
    All,
}

/// Profiles by name, in the order help texts list them.
pub const PROFILES: [(&str, Profile); 6] = [
    ("reference", Profile::Reference),
    ("default", Profile::Default),
    ("rust", Profile::Rust),
    ("memory-mcp", Profile::MemoryMcp),
    ("mcp-memory-py", Profile::McpMemoryPy),
    ("all", Profile::All),
];

/// The reference server's nine tools, in its listing order.
pub const NINE: [&str; 9] = [
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "read_graph",
    "search_nodes",
    "open_nodes",
];

/// What `default` adds to the nine.
const DEFAULT_MORE: [&str; 3] = ["search", "history", "undo"];

/// What the Rust seed lists besides the nine.
const RUST_MORE: [&str; 17] = [
    "upsert_entities",
    "merge_entities",
    "compact",
    "get_entity",
    "batch_get_entities",
    "entity_exists",
    "graph_stats",
    "search_relations",
    "describe_entity",
    "degree",
    "find_path",
    "find_all_paths",
    "extract_subgraph",
    "get_neighbors",
    "list_entity_types",
    "list_relation_types",
    "export_graph",
];

/// What the TypeScript seed lists besides the nine, of the tools this server has in its
/// shapes.
const MEMORY_MCP_MORE: [&str; 52] = [
    "save_search",
    "execute_saved_search",
    "list_saved_searches",
    "delete_saved_search",
    "update_saved_search",
    "add_tags",
    "remove_tags",
    "set_importance",
    "add_tags_to_multiple_entities",
    "replace_tag",
    "merge_tags",
    "add_tag_alias",
    "list_tag_aliases",
    "remove_tag_alias",
    "get_aliases_for_tag",
    "resolve_tag",
    "set_entity_parent",
    "get_children",
    "get_parent",
    "get_ancestors",
    "get_descendants",
    "get_subtree",
    "get_root_entities",
    "get_entity_depth",
    "move_entity",
    "get_graph_stats",
    "find_shortest_path",
    "get_connected_components",
    "get_centrality",
    "search_by_date_range",
    "validate_graph",
    "find_duplicates",
    "merge_entities",
    "compress_graph",
    "find_all_paths",
    "archive_entities",
    "list_archived",
    "restore_archived",
    "search_nodes_ranked",
    "boolean_search",
    "fuzzy_search",
    "get_search_suggestions",
    "semantic_search",
    "find_similar_entities",
    "index_embeddings",
    "hybrid_search",
    "search_auto",
    "analyze_query",
    "smart_search",
    "normalize_observations",
    "import_graph",
    "export_graph",
];

/// What the Python seed lists besides the nine but `read_graph` (it has none), of the
/// tools this server has in its shapes.
const PY_MORE: [&str; 11] = [
    "end_relation",
    "add_reflection",
    "search_reflections",
    "search_semantic",
    "find_split_candidates",
    "analyze_entity_split",
    "propose_entity_split_tool",
    "execute_entity_split_tool",
    "find_duplicate_observations",
    "consolidation_report",
    "migrate",
];

impl Profile {
    /// The profile called `name`; an error naming the profiles there are.
    pub fn parse(name: &str) -> Result<Profile, String> {
        PROFILES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, p)| p)
            .ok_or_else(|| {
                let names: Vec<&str> = PROFILES.iter().map(|(n, _)| *n).collect();
                format!(
                    "profile: unknown profile '{name}'; the profiles are {}",
                    names.join(", ")
                )
            })
    }

    /// Whether the profile lists `tool`: its name, in the profile's shape.
    fn has(self, tool: &ToolDef) -> bool {
        self.names(tool.name) && self.takes(tool)
    }

    /// Whether the profile answers in `tool`'s shape where its name has several: `all` in
    /// every one but the Python seed's of the nine (a call to one of the nine must get the
    /// reference's answer, and the seed's shapes take what the reference refuses),
    /// `memory-mcp` and `mcp-memory-py` in their seed's (else ours), the others in ours.
    fn takes(self, tool: &ToolDef) -> bool {
        let seeds = |shape: Shape| {
            tool.shape == shape || (tool.shape == Shape::Ours && !tool.has_twin(shape))
        };
        match self {
            Profile::All => tool.shape != Shape::McpMemoryPy || !NINE.contains(&tool.name),
            Profile::MemoryMcp => seeds(Shape::MemoryMcp),
            Profile::McpMemoryPy => seeds(Shape::McpMemoryPy),
            _ => tool.shape == Shape::Ours,
        }
    }

    /// Whether the profile has a tool called `name`.
    fn names(self, name: &str) -> bool {
        let listed = |list: &[&str]| list.contains(&name);
        match self {
            Profile::Reference => listed(&NINE),
            Profile::MemoryMcp => listed(&NINE) || listed(&MEMORY_MCP_MORE),
            Profile::Default => listed(&NINE) || listed(&DEFAULT_MORE),
            Profile::Rust => listed(&NINE) || listed(&RUST_MORE),
            Profile::McpMemoryPy => (listed(&NINE) && name != "read_graph") || listed(&PY_MORE),
            Profile::All => true,
        }
    }
}

/// Which tools a memory lists and answers: a profile, adjusted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The profile adjusted.
    profile: Profile,
    /// Whether each tool of [`TOOLS`] is in, by position.
    pub(crate) listed: Vec<bool>,
}

impl Selection {
    /// The tools of `profile` adjusted by `tools`: comma-separated tool names, each
    /// `+name` (or `name`) to add, `-name` to leave out, applied in order. An error names
    /// an unknown profile or tool.
    pub fn new(profile: &str, tools: &str) -> Result<Selection, String> {
        let profile = Profile::parse(profile)?;
        let mut listed: Vec<bool> = TOOLS.iter().map(|t| profile.has(t)).collect();
        for word in tools.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let (keep, name) = match word.strip_prefix('-') {
                Some(name) => (false, name),
                None => (true, word.strip_prefix('+').unwrap_or(word)),
            };
            if !TOOLS.iter().any(|t| t.name == name) {
                return Err(format!(
                    "tools: unknown tool '{name}' (a tool name after + or -, as tools/list with profile all names them)"
                ));
            }
            for (on, t) in listed.iter_mut().zip(TOOLS).filter(|(_, t)| t.name == name) {
                *on = keep && profile.takes(t);
            }
        }
        Ok(Selection { profile, listed })
    }

    /// Whether this is exactly the reference's nine, unadjusted: listed as it lists them.
    pub fn is_reference(&self) -> bool {
        self.profile == Profile::Reference
            && TOOLS
                .iter()
                .zip(&self.listed)
                .all(|(t, &on)| on == (NINE.contains(&t.name) && t.shape == Shape::Ours))
    }
}
