//! The model's rules every surface applies the same way: tags, importance, parents (no
//! cycle) and which observation a `supersedes` names. Each error names the argument.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde_json::Value;

use crate::graph::{EntityId, Graph};
use crate::hash::{HashMap, HashSet};
use crate::json;

/// The longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 64;

/// Tags as stored: lowercased, each once, in order. `field` names the argument in errors.
pub fn tags(field: &str, given: &[&str]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::with_capacity(given.len());
    for (i, tag) in given.iter().enumerate() {
        let chars = tag.chars().count();
        if chars == 0 || chars > MAX_TAG_CHARS {
            return Err(format!(
                "{field}[{i}]: a tag must be 1 to {MAX_TAG_CHARS} characters long (this one has {chars})"
            ));
        }
        let lower = tag.to_lowercase();
        if !out.contains(&lower) {
            out.push(lower);
        }
    }
    Ok(out)
}

/// One tag argument, lowercased (1 to 64 characters).
pub fn one_tag(field: &str, tag: &str) -> Result<String, String> {
    let mut lowered = tags(field, &[tag]).map_err(|e| e.replacen("[0]", "", 1))?;
    Ok(lowered.pop().unwrap_or_default())
}

/// An importance: a number from 0 to 10, or (where `nullable`) null to clear it.
pub fn importance(field: &str, value: &Value, nullable: bool) -> Result<Option<f64>, String> {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(x) if (0.0..=10.0).contains(&x) => Ok(Some(x)),
            _ => Err(format!(
                "{field}: importance must be from 0 to 10 (got {n})"
            )),
        },
        Value::Null if nullable => Ok(None),
        other => Err(format!(
            "{field}: importance must be a number from 0 to 10{} (got {})",
            if nullable { " or null" } else { "" },
            json::type_name(Some(other))
        )),
    }
}

/// The parent of entity `name` as the graph has it, or as this call sets it (`pending`).
fn parent_of<'a>(
    graph: &'a Graph,
    pending: &HashMap<&'a str, Option<&'a str>>,
    name: &str,
) -> Option<&'a str> {
    if let Some(&set) = pending.get(name) {
        return set;
    }
    let id = graph.first_named(name)?;
    let parent = graph.entity(id).extra.as_ref()?.parent?;
    Some(graph.text(parent))
}

/// Checks that `parent` may become the parent of `child`: it exists (in the graph, or is
/// created by this call: `created`) and the chain of parents above it does not come back
/// to `child`. `pending` holds the parents this call sets before this one.
pub fn check_parent<'a>(
    graph: &'a Graph,
    created: &HashSet<&str>,
    pending: &HashMap<&'a str, Option<&'a str>>,
    field: &str,
    child: &str,
    parent: &'a str,
) -> Result<(), String> {
    if graph.first_named(parent).is_none() && !created.contains(parent) {
        return Err(format!("{field}: no entity is named {parent:?}"));
    }
    let mut chain = alloc::vec![child, parent];
    let mut seen = HashSet::default();
    let mut at = parent;
    while at != child {
        if !seen.insert(at) {
            // A loop above that does not pass through `child` (only an imported file can
            // hold one): `child` is not part of it.
            return Ok(());
        }
        match parent_of(graph, pending, at) {
            Some(up) => {
                chain.push(up);
                at = up;
            }
            None => return Ok(()),
        }
    }
    Err(format!(
        "{field}: {parent:?} cannot be the parent of {child:?}: that would make a cycle ({})",
        chain.join(" → ")
    ))
}

/// The id of the current observation of entity `id` that `supersedes` names: its id (a
/// number) or its exact text (a string).
pub fn superseded(
    graph: &Graph,
    id: EntityId,
    field: &str,
    supersedes: &Value,
) -> Result<u32, String> {
    let e = graph.entity(id);
    let name = graph.text(e.name);
    let found = match supersedes {
        Value::Number(n) => {
            let wanted = n.as_u64();
            e.facts
                .iter()
                .find(|f| Some(u64::from(f.id)) == wanted)
                .map(|f| f.id)
        }
        Value::String(text) => e
            .observations
            .iter()
            .position(|&o| graph.text(o) == text)
            .map(|i| e.facts[i].id),
        other => {
            return Err(format!(
                "{field}: supersedes must be an observation's id (a number) or its exact text (got {})",
                json::type_name(Some(other))
            ));
        }
    };
    found.ok_or_else(|| {
        format!("{field}: {name:?} has no current observation {supersedes} to supersede")
    })
}
