//! The TypeScript seed's hierarchy tools, in its argument and result shapes: an entity's
//! parent (`set_entity_parent`, `move_entity`) and the tree parents make (`get_children`,
//! `get_parent`, `get_ancestors`, `get_descendants`, `get_subtree`, `get_root_entities`,
//! `get_entity_depth`).
//!
//! A parent is an entity's `parentId`: the name of another entity. A parent that would
//! make a cycle is refused. Unlike the seed, giving an entity the parent it has changes
//! (and logs) nothing, and a large subtree is answered as it is, not brotli-compressed.

use alloc::collections::VecDeque;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{EntityJson, RelationJson, answer, answer_list, named, planned};
use crate::graph::{EntityId, Graph};
use crate::hash::{HashMap, HashSet};
use crate::intern::Sym;
use crate::model::EntityPatch;
use crate::time::iso_known;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::parse;
use crate::tools::rules::check_parent;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Named<'a> {
    entity_name: &'a str,
}

/// The entity the argument `entityName` names.
fn entity_arg<'a>(t: &Ctx<'_>, a: &'a Value) -> Result<(&'a str, EntityId), String> {
    let name = parse::<Named>(a)?.entity_name;
    Ok((name, named(t.graph, name)?))
}

/// The parent entity `id` names, if that entity exists.
fn parent(g: &Graph, id: EntityId) -> Option<EntityId> {
    let parent = g.entity(id).extra.as_deref()?.parent?;
    g.first_named(g.text(parent))
}

/// Entity `id`'s ancestors, its parent first, up to a root (or a parent that does not
/// exist, or one met before: a loop only an imported file can hold).
fn ancestors(g: &Graph, id: EntityId) -> Vec<EntityId> {
    let mut seen = HashSet::default();
    seen.insert(id);
    let mut up = Vec::new();
    let mut at = id;
    while let Some(p) = parent(g, at).filter(|&p| seen.insert(p)) {
        up.push(p);
        at = p;
    }
    up
}

/// Entities by the name of their parent, each list in graph order: one pass over the graph.
fn children(g: &Graph) -> HashMap<Sym, Vec<EntityId>> {
    let mut by_parent: HashMap<Sym, Vec<EntityId>> = HashMap::default();
    for (id, e) in g.entities() {
        if let Some(p) = e.extra.as_deref().and_then(|x| x.parent) {
            by_parent.entry(p).or_default().push(id);
        }
    }
    by_parent
}

/// Entity `id`'s descendants, breadth first: its children in graph order, then theirs.
fn descendants(g: &Graph, id: EntityId) -> Vec<EntityId> {
    let by_parent = children(g);
    let mut seen = HashSet::default();
    seen.insert(id);
    let mut queue = VecDeque::from([id]);
    let mut down = Vec::new();
    while let Some(at) = queue.pop_front() {
        let kids = by_parent.get(&g.entity(at).name).into_iter().flatten();
        for &kid in kids {
            if seen.insert(kid) {
                down.push(kid);
                queue.push_back(kid);
            }
        }
    }
    down
}

/// The seed's shapes of these entities.
fn shown<'g>(g: &'g Graph, ids: &[EntityId]) -> Vec<EntityJson<'g>> {
    ids.iter()
        .map(|&id| EntityJson::of(g, g.entity(id), false))
        .collect()
}

/// `set_entity_parent` (argument `parentName`) and `move_entity` (`newParentName`): sets
/// or (with null, or left out) clears an entity's parent; answers the entity as it is
/// then.
fn set_parent<'a>(t: Ctx<'a>, a: &'a Value, field: &str) -> Result<Plan, String> {
    let (name, id) = entity_arg(&t, a)?;
    let new = match a.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if !p.is_empty() => Some(p.as_str()),
        Some(_) => return Err(format!("{field}: must be an entity's name or null")),
    };
    if let Some(p) = new {
        named(t.graph, p)?;
        let none = (HashSet::default(), HashMap::default());
        check_parent(t.graph, &none.0, &none.1, field, name, p).map_err(|_| {
            format!("Setting parent \"{p}\" for entity \"{name}\" would create a cycle")
        })?;
    }
    let e = t.graph.entity(id);
    let mut shown = EntityJson::of(t.graph, e, false);
    let mut patches = Vec::new();
    if shown.parent != new {
        patches.push(EntityPatch {
            name,
            tags: None,
            importance: None,
            parent: Some(new),
            status: None,
        });
        shown.parent = new;
        shown.updated = iso_known(t.now).or(shown.updated);
    }
    Ok(planned(patches, answer(&shown)))
}

/// `set_entity_parent`: sets or clears an entity's parent.
pub fn set_entity_parent(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    set_parent(t, a, "parentName")
}

/// `move_entity`: `set_entity_parent` by another name.
pub fn move_entity(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    set_parent(t, a, "newParentName")
}

/// `get_children`: the entities whose parent is this one, in graph order.
pub fn get_children(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let (_, id) = entity_arg(&t, a)?;
    let g = t.graph;
    let name = g.entity(id).name;
    let kids: Vec<EntityId> = g
        .entities()
        .filter(|(_, e)| e.extra.as_deref().and_then(|x| x.parent) == Some(name))
        .map(|(id, _)| id)
        .collect();
    Ok(answer_list("entities", &shown(g, &kids)))
}

/// `get_parent`: the entity's parent, or `null` (the text) when it has none or its
/// parent does not exist.
pub fn get_parent(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Serialize)]
    struct Parent<'a> {
        parent: Option<EntityJson<'a>>,
    }
    let (_, id) = entity_arg(&t, a)?;
    let g = t.graph;
    let up = Parent {
        parent: parent(g, id).map(|p| EntityJson::of(g, g.entity(p), false)),
    };
    Ok(crate::tools::output::success(
        &crate::json::pretty(&up.parent),
        &up,
    ))
}

/// `get_ancestors`: the entity's parent, its parent's parent, … up to a root.
pub fn get_ancestors(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let (_, id) = entity_arg(&t, a)?;
    Ok(answer_list(
        "entities",
        &shown(t.graph, &ancestors(t.graph, id)),
    ))
}

/// `get_descendants`: everything below the entity, breadth first.
pub fn get_descendants(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let (_, id) = entity_arg(&t, a)?;
    let down = descendants(t.graph, id);
    Ok(answer_list("entities", &shown(t.graph, &down)))
}

/// `get_subtree`: the entity and its descendants, and the relations among them (in graph
/// order).
pub fn get_subtree(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Serialize)]
    struct Subtree<'a> {
        entities: Vec<EntityJson<'a>>,
        relations: Vec<RelationJson<'a>>,
    }
    let (_, id) = entity_arg(&t, a)?;
    let g = t.graph;
    let mut ids = Vec::from([id]);
    ids.extend(descendants(g, id));
    let names: HashSet<Sym> = ids.iter().map(|&id| g.entity(id).name).collect();
    let relations = g
        .relations_touching(names.iter().copied())
        .into_iter()
        .map(|r| g.relation(r))
        .filter(|r| names.contains(&r.from) && names.contains(&r.to))
        .map(|r| RelationJson::of(g, r, false))
        .collect();
    Ok(answer(&Subtree {
        entities: shown(g, &ids),
        relations,
    }))
}

/// `get_root_entities`: the entities without a parent, in graph order (one whose parent
/// does not exist is not a root).
pub fn get_root_entities(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    let g = t.graph;
    let roots: Vec<EntityId> = g
        .entities()
        .filter(|(_, e)| e.extra.as_deref().and_then(|x| x.parent).is_none())
        .map(|(id, _)| id)
        .collect();
    Ok(answer_list("entities", &shown(g, &roots)))
}

/// `get_entity_depth`: how many ancestors the entity has (0: a root).
pub fn get_entity_depth(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Depth<'a> {
        entity_name: &'a str,
        depth: usize,
    }
    let (name, id) = entity_arg(&t, a)?;
    Ok(answer(&Depth {
        entity_name: name,
        depth: ancestors(t.graph, id).len(),
    }))
}
