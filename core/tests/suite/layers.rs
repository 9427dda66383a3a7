//! The core's modules form layers (ARCHITECTURE.md, "Invariants"): a module uses only
//! modules of its own layer or lower ones, and no two modules use each other, directly or
//! not; inside `tools`, a surface uses no other (but the nine) and the shared parts use
//! none. This reads every `crate::` and `super::` path in `core/src` and fails on an edge
//! that goes up, closes a cycle or joins two surfaces.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Each top-level module of `core/src` with its layer, lowest first.
const LAYERS: &[(&str, u8)] = &[
    ("hash", 0),
    ("intern", 0),
    ("json", 0),
    ("frame", 0),
    ("log", 0),
    ("model", 0),
    ("record", 0),
    ("filelog", 0),
    ("testing", 0),
    ("time", 0),
    ("embed", 0),
    ("sidefiles", 0),
    ("roots", 0),
    ("graph", 1),
    ("index", 2),
    ("jsonl", 2),
    ("seedlog", 2),
    ("memory", 3),
    ("verify", 3),
    ("capabilities", 4),
    ("tools", 5),
    ("mcp", 6),
];

/// The surfaces in `core/src/tools`: folders of tools in one server's shapes. A surface
/// uses no other, but the reference's nine, which every surface lists.
const SURFACES: [&str; 4] = ["reference", "ours", "memory_mcp", "mcp_memory_py"];

/// The files of `core/src/tools` that may name the surfaces: the table of them, the
/// catalog of their definitions and the profiles over them.
const REGISTRY: [&str; 3] = ["mod.rs", "catalog.rs", "profile.rs"];

fn layer(module: &str) -> u8 {
    LAYERS
        .iter()
        .find(|(m, _)| *m == module)
        .map(|&(_, l)| l)
        .unwrap_or_else(|| panic!("module `{module}` is in no layer: add it to LAYERS"))
}

/// The top-level module a file of `core/src` belongs to (`None` for `lib.rs`).
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib").then(|| name.to_string())
}

/// The modules named by `crate::<module>` paths in the code of `text` (comments left out),
/// including `use crate::{a, b}`.
fn uses(text: &str) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let text = code.as_str();
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            for part in inner.split(',') {
                let name = ident(part.trim());
                if !name.is_empty() {
                    out.insert(name);
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn walk(dir: &Path, root: &Path, edges: &mut BTreeMap<String, BTreeSet<String>>) {
    for entry in fs::read_dir(dir).expect("core/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            walk(&path, root, edges);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under core/src");
            let Some(from) = module_of(relative) else {
                continue;
            };
            let text = fs::read_to_string(&path).expect("a source file is UTF-8");
            let used: Vec<String> = uses(&text).into_iter().filter(|m| *m != from).collect();
            edges.entry(from).or_default().extend(used);
        }
    }
}

fn edges() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut edges = BTreeMap::new();
    walk(&root, &root, &mut edges);
    edges
}

/// The edges that go up a layer, in words.
fn upward(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut violations = Vec::new();
    for (from, used) in edges {
        for to in used {
            if layer(to) > layer(from) {
                violations.push(format!(
                    "{from} (layer {}) uses {to} (layer {})",
                    layer(from),
                    layer(to)
                ));
            }
        }
    }
    violations
}

/// A cycle of modules using each other, if there is one.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search with colours: grey (false) on the stack, black (true) done.
    fn visit(
        m: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, bool>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(true) => return None,
            Some(false) => {
                let start = stack.iter().position(|s| s == m).unwrap_or(0);
                let mut cycle = stack[start..].to_vec();
                cycle.push(m.to_string());
                return Some(cycle);
            }
            None => {}
        }
        state.insert(m.to_string(), false);
        stack.push(m.to_string());
        for next in edges.get(m).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, state, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        state.insert(m.to_string(), true);
        None
    }
    let mut state = BTreeMap::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut state, &mut Vec::new()))
}

/// The module path (below `tools`) that a file of `core/src/tools` is: `["ours", "graph",
/// "lookup"]` for `ours/graph/lookup.rs`, `["ours"]` for `ours/mod.rs`.
fn tools_module(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The surfaces (or top-level items of `tools`) that the code of a file of module `module`
/// names: through `crate::tools::X` and through `super::` paths, resolved.
fn tools_uses(text: &str, module: &[String]) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices("crate::tools::") {
        out.insert(ident(&code[at + "crate::tools::".len()..]));
    }
    for (at, _) in code.match_indices("super::") {
        // A `super::` that continues another path was counted with its start.
        if code[..at].ends_with("::") {
            continue;
        }
        let mut rest = &code[at..];
        let mut up = 0;
        while let Some(more) = rest.strip_prefix("super::") {
            up += 1;
            rest = more;
        }
        let base = &module[..module.len().saturating_sub(up)];
        let next = ident(rest);
        let first = base.first().cloned().unwrap_or(next);
        if !first.is_empty() {
            out.insert(first);
        }
    }
    out
}

/// Uses that join two surfaces, or a shared part of `tools` to a surface, in words.
fn crossings() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tools");
    let mut found = Vec::new();
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).expect("core/src/tools is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    for path in files {
        let relative = path.strip_prefix(&root).expect("under tools");
        let module = tools_module(relative);
        let text = fs::read_to_string(&path).expect("UTF-8");
        let here = module.first().map(String::as_str).unwrap_or("mod");
        for used in tools_uses(&text, &module) {
            let surface = SURFACES.contains(&used.as_str());
            let crossing = if SURFACES.contains(&here) {
                surface && used != here && used != "reference"
            } else {
                surface && !REGISTRY.contains(&relative.to_string_lossy().as_ref())
            };
            if crossing {
                found.push(format!("tools/{} uses tools::{used}", relative.display()));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn no_surface_uses_another() {
    let found = crossings();
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn surface_uses_are_resolved_through_super_and_crate() {
    let module: Vec<String> = ["ours", "graph", "lookup"].map(String::from).to_vec();
    let text = "use super::Direction;\nuse super::super::meta::x;\nlet y = crate::tools::memory_mcp::named;";
    let found: Vec<String> = tools_uses(text, &module).into_iter().collect();
    assert_eq!(found, ["memory_mcp", "ours"]);
    let at_top: Vec<String> = ["call"].map(String::from).to_vec();
    let found: Vec<String> = tools_uses("use super::ours::x;", &at_top)
        .into_iter()
        .collect();
    assert_eq!(found, ["ours"]);
}

#[test]
fn no_module_uses_a_higher_layer() {
    let violations = upward(&edges());
    assert!(violations.is_empty(), "{violations:#?}");
}

#[test]
fn the_modules_form_no_cycle() {
    assert_eq!(cycle(&edges()), None);
}

#[test]
fn an_upward_use_and_a_cycle_are_caught() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            edges
                .entry(a.to_string())
                .or_default()
                .insert(b.to_string());
        }
        edges
    };
    assert_eq!(
        upward(&graph(&[("graph", "record"), ("record", "graph")])),
        ["record (layer 0) uses graph (layer 1)"]
    );
    let found = cycle(&graph(&[
        ("hash", "intern"),
        ("intern", "json"),
        ("json", "hash"),
    ]));
    assert_eq!(
        found,
        Some(
            ["hash", "intern", "json", "hash"]
                .map(String::from)
                .to_vec()
        )
    );
}

#[test]
fn the_check_sees_grouped_and_nested_paths() {
    let text = "use crate::{frame, log::Log};\n/// See [`crate::mcp`].\nlet x = crate::graph::Graph::default();";
    let found: Vec<String> = uses(text).into_iter().collect();
    assert_eq!(found, ["frame", "graph", "log"]);
    assert_eq!(
        module_of(Path::new("index/search/eval.rs")).as_deref(),
        Some("index")
    );
    assert_eq!(module_of(Path::new("lib.rs")), None);
}
