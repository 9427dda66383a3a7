//! Tool profiles: which tools `tools/list` shows and `tools/call` reaches.
//!
//! An agent pays for every tool definition in its context, so a memory lists a profile's
//! tools, not all of them: the reference's nine, a small default, or the surface of a
//! server people come from. `--tools +name,-name` adjusts any profile. A profile is data over
//! the surfaces: the nine, plus names (ours) or a whole seed's surface.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::reference::NINE;
use super::{Dialect, Tool, all, mcp_memory_py, ours};

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

    /// The seed whose surface the profile lists whole, in whose shapes it answers.
    fn seed(self) -> Option<Dialect> {
        match self {
            Profile::MemoryMcp => Some(Dialect::MemoryMcp),
            Profile::McpMemoryPy => Some(Dialect::McpMemoryPy),
            _ => None,
        }
    }

    /// Whether the profile lists `tool`: its name, in the profile's shape.
    fn has(self, tool: Tool) -> bool {
        self.names(tool) && self.takes(tool)
    }

    /// Whether the profile has a tool called as `tool` is.
    fn names(self, tool: Tool) -> bool {
        let name = tool.def.name;
        let nine = NINE.contains(&name);
        match self {
            Profile::Reference => nine,
            Profile::Default => nine || ours::DEFAULT.contains(&name),
            Profile::Rust => nine || ours::RUST_SEED.contains(&name),
            Profile::MemoryMcp => nine || tool.dialect == Dialect::MemoryMcp,
            Profile::McpMemoryPy => {
                (nine && !mcp_memory_py::NOT_LISTED.contains(&name))
                    || tool.dialect == Dialect::McpMemoryPy
            }
            Profile::All => true,
        }
    }

    /// Whether the profile answers in `tool`'s shape where its name has several: `all` in
    /// every one but the seeds' of the nine (a call to one of the nine must get the
    /// reference's answer, and the seed's shapes take what the reference refuses), a seed's
    /// profile in its seed's where it has one (else ours), the others in ours.
    fn takes(self, tool: Tool) -> bool {
        let name = tool.def.name;
        let twins = || all().filter(move |t| t.def.name == name);
        if twins().count() < 2 {
            return true;
        }
        let ours = matches!(tool.dialect, Dialect::Reference | Dialect::Ours);
        match (self, self.seed()) {
            (Profile::All, _) => {
                let seed = matches!(tool.dialect, Dialect::McpMemoryPy | Dialect::MemoryMcp);
                !(seed && NINE.contains(&name))
            }
            (_, Some(seed)) if twins().any(|t| t.dialect == seed) => tool.dialect == seed,
            _ => ours,
        }
    }
}

/// Which tools a memory lists and answers: a profile, adjusted.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// The profile adjusted.
    profile: Profile,
    /// The tools selected, in listing order.
    tools: Vec<Tool>,
}

impl Selection {
    /// The tools of `profile` adjusted by `tools`: comma-separated tool names, each
    /// `+name` (or `name`) to add, `-name` to leave out, applied in order. An error names
    /// an unknown profile or tool.
    pub fn new(profile: &str, tools: &str) -> Result<Selection, String> {
        let profile = Profile::parse(profile)?;
        let mut selected: Vec<Tool> = all().filter(|&t| profile.has(t)).collect();
        for word in tools.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let (keep, name) = match word.strip_prefix('-') {
                Some(name) => (false, name),
                None => (true, word.strip_prefix('+').unwrap_or(word)),
            };
            if !all().any(|t| t.def.name == name) {
                return Err(format!(
                    "tools: unknown tool '{name}' (a tool name after + or -, as tools/list with profile all names them)"
                ));
            }
            selected.retain(|t| t.def.name != name);
            if keep {
                selected.extend(all().filter(|&t| t.def.name == name && profile.takes(t)));
            }
        }
        // In listing order, whatever order the adjustments came in: the nine first, in
        // the reference's order (whichever shape of each), then the rest as surfaces list
        // them.
        let mut tools: Vec<Tool> = all().filter(|t| selected.contains(t)).collect();
        let nine_first = |t: &Tool| {
            NINE.iter()
                .position(|&n| n == t.def.name)
                .unwrap_or(NINE.len())
        };
        tools.sort_by_key(nine_first);
        Ok(Selection { profile, tools })
    }

    /// The tools selected, in listing order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Whether the tools are listed as a seed's server lists them (its profile).
    pub fn lists_as_seed(&self) -> bool {
        self.profile.seed().is_some()
    }

    /// Whether this is exactly the reference's nine, unadjusted: listed as it lists them.
    pub fn is_reference(&self) -> bool {
        self.profile == Profile::Reference
            && self.tools.len() == NINE.len()
            && self.tools.iter().all(|t| t.dialect == Dialect::Reference)
    }
}
