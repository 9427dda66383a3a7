//! The tools: the surfaces a memory answers (each a folder of tools with their definitions),
//! the catalog of the ones it lists, and the checks every call passes first. JSON
//! arguments in, `CallToolResult` JSON out.
//!
//! - `reference/`: the reference server's nine, which every profile lists;
//! - `ours/`: this server's tools (the Rust seed's names among them);
//! - `memory_mcp/`: the TypeScript seed's ("Memory MCP" v10) tools in its shapes;
//! - `mcp_memory_py/`: the Python seed's ("MCP Memory v2") tools in its shapes.
//!
//! A surface never uses another (the nine excepted, which are everyone's); what they share
//! is below them (`crate::capabilities`) or here: arguments (`args`), answers (`output`),
//! filters (`filter`), the model's rules (`rules`), validation (`validate`, `limits`).
//!
//! A call is validated against its tool's input schema — types as the reference reports
//! them, then the constraints the schema declares and the request limits (`limits.rs`) —
//! before its tool runs, so no tool checks its arguments again.

pub mod args;
pub mod call;
pub mod catalog;
pub mod filter;
pub mod limits;
pub mod mcp_memory_py;
pub mod memory_mcp;
pub mod ours;
pub mod output;
pub mod profile;
pub mod reference;
pub mod rules;
pub mod validate;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::Value;

use crate::graph::Graph;
use crate::graph::Use;
use crate::index::vectors::VectorIndex;
use crate::index::{Indexes, NoTable, TABLE_HOWTO};
use crate::intern::Sym;
use crate::memory::{Change, Pending, Store};
use crate::model::{Millis, Provenance};
pub use call::{Call, Called, Done};
pub use catalog::Catalog;

/// What a tool reads: the graph and its indexes, and who calls.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    /// The graph as it stands.
    pub graph: &'a Graph,
    /// Its search indexes.
    pub indexes: &'a Indexes,
    /// Who calls: the client, its session, the host's actor.
    pub by: Provenance<'a>,
    /// The time a change this call makes carries (`0`: not known).
    pub now: Millis,
    /// Where the call notes the entities it returned (the usage counts salience reads).
    pub uses: &'a Uses,
    /// The uses noted by earlier calls and not logged yet.
    pub unlogged: &'a Pending,
}

impl<'a> Ctx<'a> {
    /// What a tool reads of `memory`, for `by` at the host's time `now` (a change made now
    /// is stamped [`Store::change_time`]), noting uses in `uses`.
    pub fn of(memory: &'a dyn Store, by: Provenance<'a>, now: Millis, uses: &'a Uses) -> Ctx<'a> {
        Ctx {
            graph: memory.graph(),
            indexes: memory.indexes(),
            by,
            now: memory.change_time(now),
            uses,
            unlogged: memory.unlogged(),
        }
    }

    /// The uses of the entities named `name`, those of every earlier call included (only
    /// their logging waits).
    pub fn usage(&self, name: Sym) -> Option<Use> {
        self.unlogged.usage_of(self.graph, name)
    }

    /// The entities' vectors, or the error saying there is no embedding table (the words
    /// of the seeds' semantic tools).
    pub fn vectors(&self) -> Result<&'a VectorIndex, String> {
        self.indexes.vectors(self.graph).map_err(|why| match why {
            NoTable::Missing => format!(
                "Semantic search is not available: this server has no embedding table; {TABLE_HOWTO}"
            ),
            NoTable::Unreadable(e) => format!(
                "Semantic search is not available: this server's embedding table could not be read ({e}); {TABLE_HOWTO}"
            ),
        })
    }
}

/// The entities a call returned, group by group (each group: entities returned together),
/// for [`crate::Memory::note_uses`].
#[derive(Default)]
pub struct Uses(core::cell::RefCell<Vec<Vec<String>>>);

impl Uses {
    /// Notes that these entities were returned together.
    pub fn note<'n>(&self, names: impl IntoIterator<Item = &'n str>) {
        let group: Vec<String> = names.into_iter().map(String::from).collect();
        if !group.is_empty() {
            self.0.borrow_mut().push(group);
        }
    }

    /// The groups noted, oldest first.
    pub fn into_groups(self) -> Vec<Vec<String>> {
        self.0.into_inner()
    }
}

/// A planned change: what to log (nothing for a no-op) and the tool result to send once it
/// is applied. The record is applied from its bytes, exactly as replay will apply it.
pub struct Plan {
    /// The change to log and apply.
    pub change: Change,
    /// The `CallToolResult` JSON to reply with once the change is applied.
    pub result: String,
}

/// A read's `CallToolResult`: written, or entities and relations still to write (a host
/// may send a large answer on a piece at a time as it is written).
pub enum Answer {
    /// The result's JSON.
    Text(String),
    /// The result of these entities and relations, after [`output::GRAPH_RESULT_HEAD`].
    Graph(output::GraphText),
}

impl Answer {
    /// The result's JSON, written whole.
    pub fn into_text(self, graph: &Graph) -> String {
        match self {
            Answer::Text(text) => text,
            Answer::Graph(mut text) => {
                let mut out =
                    String::with_capacity(output::GRAPH_RESULT_HEAD.len() + text.estimate(graph));
                out.push_str(output::GRAPH_RESULT_HEAD);
                text.write_all(graph, &mut out);
                out
            }
        }
    }
}

/// How a tool runs. Arguments have passed their schema (types and constraints).
#[derive(Clone, Copy)]
pub enum Run {
    /// A read: the `CallToolResult` JSON, or a failure text.
    Read(fn(Ctx<'_>, &Value) -> Result<String, String>),
    /// A read answering with entities and relations (read_graph, search_nodes, open_nodes).
    Graph(fn(Ctx<'_>, &Value) -> Result<Answer, String>),
    /// A change, planned against the graph without changing it.
    Write(fn(Ctx<'_>, &Value) -> Result<Plan, String>),
    /// A tool that works on the memory itself, beyond one change: its log (compact, forget,
    /// migrate) or its history (history, undo).
    Memory {
        /// The tool.
        run: fn(&mut dyn Store, Call<'_>) -> Done,
        /// Whether a call may change the memory.
        mutates: bool,
    },
}

impl Run {
    /// Whether a call may change the memory (or its log).
    pub fn mutates(&self) -> bool {
        match self {
            Run::Read(_) | Run::Graph(_) => false,
            Run::Write(_) => true,
            Run::Memory { mutates, .. } => *mutates,
        }
    }
}

/// Whose surface a tool belongs to, and so whose argument and result shapes it has where
/// two surfaces give one name different ones (`merge_entities`, `open_nodes`, …): each
/// profile takes its seed's, and a memory listing both answers a call in the shape its
/// arguments fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// The reference server's nine.
    Reference,
    /// This server's (for the Rust seed's names, the Rust seed's).
    Ours,
    /// The TypeScript seed's ("Memory MCP").
    MemoryMcp,
    /// The Python seed's ("MCP Memory v2").
    McpMemoryPy,
}

/// A tool: its name, as its definition gives it, and how it runs.
pub struct ToolDef {
    /// The tool's name.
    pub name: &'static str,
    /// How it runs.
    pub run: Run,
}

/// The row of a tool that works on the memory itself (see [`Run::Memory`]).
pub const fn memory(
    name: &'static str,
    run: fn(&mut dyn Store, Call<'_>) -> Done,
    mutates: bool,
) -> ToolDef {
    ToolDef {
        name,
        run: Run::Memory { run, mutates },
    }
}

/// A read's row.
pub const fn read(name: &'static str, f: fn(Ctx<'_>, &Value) -> Result<String, String>) -> ToolDef {
    ToolDef {
        name,
        run: Run::Read(f),
    }
}

/// A row of a read answering with entities and relations.
pub const fn graph(
    name: &'static str,
    f: fn(Ctx<'_>, &Value) -> Result<Answer, String>,
) -> ToolDef {
    ToolDef {
        name,
        run: Run::Graph(f),
    }
}

/// A change's row.
pub const fn write(name: &'static str, f: fn(Ctx<'_>, &Value) -> Result<Plan, String>) -> ToolDef {
    ToolDef {
        name,
        run: Run::Write(f),
    }
}

/// A surface: its tools, in listing order, and their definitions (what `tools/list` shows
/// of each, found by name).
pub struct Surface {
    /// Whose tools they are.
    pub dialect: Dialect,
    /// The tools.
    pub tools: &'static [ToolDef],
    /// Their definitions, parsed.
    pub definitions: fn() -> Vec<Value>,
}

/// Every surface, in listing order.
pub const SURFACES: [&Surface; 4] = [
    &reference::SURFACE,
    &ours::SURFACE,
    &memory_mcp::SURFACE,
    &mcp_memory_py::SURFACE,
];

/// A tool of a surface.
#[derive(Clone, Copy, Debug)]
pub struct Tool {
    /// Its row.
    pub def: &'static ToolDef,
    /// Its surface's dialect.
    pub dialect: Dialect,
}

impl PartialEq for Tool {
    fn eq(&self, other: &Tool) -> bool {
        core::ptr::eq(self.def, other.def)
    }
}

impl core::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name)
    }
}

/// Every tool, in listing order: the nine, ours, the TypeScript seed's, the Python seed's.
pub fn all() -> impl Iterator<Item = Tool> {
    SURFACES.into_iter().flat_map(|s| {
        s.tools.iter().map(|def| Tool {
            def,
            dialect: s.dialect,
        })
    })
}

/// Reads a tool's arguments (already checked against its schema) into `T`.
pub(crate) fn parse<'a, T: serde::Deserialize<'a>>(args: &'a Value) -> Result<T, String> {
    T::deserialize(args).map_err(|e| e.to_string())
}
