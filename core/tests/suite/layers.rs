//! The core's modules form layers (ARCHITECTURE.md, "Invariants"): a module uses only
//! modules of its own layer or lower ones, and no two modules use each other, directly or
//! not. This reads every `crate::` path in `core/src` and fails on an edge that goes up or
//! closes a cycle.

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
    ("graph", 1),
    ("index", 2),
    ("jsonl", 2),
    ("seedlog", 2),
    ("memory", 3),
    ("verify", 3),
    ("tools", 4),
    ("mcp", 5),
];

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
