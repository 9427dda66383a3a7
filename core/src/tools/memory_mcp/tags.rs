//! The TypeScript Memory MCP's tag and importance tools (its profile, `memory-mcp`), in its
//! argument and result shapes, as changes of entities' metadata: `add_tags`, `remove_tags`,
//! `set_importance`, `add_tags_to_multiple_entities`, `replace_tag`, `merge_tags`.
//!
//! Where it is loose this server is not: tags are stored lowercase and each once (it stores
//! `["a", "a"]` for `["A", "a"]`), a missing entity is an error naming it, and a tool that
//! changes nothing logs nothing.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{answer, answer_list, named, planned};
use crate::graph::{EntityId, Graph};
use crate::json;
use crate::model::EntityPatch;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::parse;
use crate::tools::rules::{importance, one_tag, tags};

/// An entity's tags, in the order set.
fn tags_of(g: &Graph, id: EntityId) -> Vec<&str> {
    let extra = g.entity(id).extra.as_deref();
    extra.map_or_else(Vec::new, |x| x.tags.iter().map(|&t| g.text(t)).collect())
}

/// The patch giving entity `name` these tags.
fn retag<'a>(name: &'a str, tags: Vec<&'a str>) -> EntityPatch<'a> {
    EntityPatch {
        name,
        tags: Some(tags),
        importance: None,
        parent: None,
        status: None,
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EntityTags<'a> {
    entity_name: &'a str,
    #[serde(borrow)]
    tags: Vec<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Added<'a> {
    entity_name: &'a str,
    added_tags: Vec<&'a str>,
}

/// The tags of `given` (lowercased, each once) that `has` lacks.
fn lacking<'a>(has: &[&str], given: &'a [String]) -> Vec<&'a str> {
    let given = given.iter().map(String::as_str);
    given.filter(|g| !has.contains(g)).collect()
}

/// Adds to `patches` the tags of `given` that entity `name` (`id`) lacks, as it stands or
/// as `patches` already retag it; returns them.
fn add_to<'a>(
    g: &'a Graph,
    patches: &mut Vec<EntityPatch<'a>>,
    (name, id): (&'a str, EntityId),
    given: &'a [String],
) -> Vec<&'a str> {
    let at = patches.iter().position(|p| p.name == name);
    let mut all = match at {
        Some(i) => patches[i].tags.clone().unwrap_or_default(),
        None => tags_of(g, id),
    };
    let added = lacking(&all, given);
    if !added.is_empty() {
        all.extend(&added);
        match at {
            Some(i) => patches[i] = retag(name, all),
            None => patches.push(retag(name, all)),
        }
    }
    added
}

/// `add_tags`: adds tags to one entity; answers which were new.
pub fn add_tags(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let args = parse::<EntityTags>(a)?;
    let id = named(t.graph, args.entity_name)?;
    let given = tags("tags", &args.tags)?;
    let mut patches = Vec::new();
    let result = Added {
        entity_name: args.entity_name,
        added_tags: add_to(t.graph, &mut patches, (args.entity_name, id), &given),
    };
    Ok(planned(patches, answer(&result)))
}

/// `add_tags_to_multiple_entities`: adds the same tags to several entities (names that
/// match none are left out of the answer, as the seed leaves them); answers, per name,
/// which were new (a name given twice gets them the first time).
pub fn add_tags_to_multiple_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        #[serde(borrow)]
        entity_names: Vec<&'a str>,
        #[serde(borrow)]
        tags: Vec<&'a str>,
    }
    let args = parse::<Args>(a)?;
    let given = tags("tags", &args.tags)?;
    let mut results = Vec::new();
    let mut patches: Vec<EntityPatch<'_>> = Vec::new();
    for &name in &args.entity_names {
        let Some(id) = t.graph.first_named(name) else {
            continue;
        };
        results.push(Added {
            entity_name: name,
            added_tags: add_to(t.graph, &mut patches, (name, id), &given),
        });
    }
    Ok(planned(patches, answer_list("results", &results)))
}

/// `remove_tags`: removes tags from one entity; answers which it had.
pub fn remove_tags(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Removed<'a> {
        entity_name: &'a str,
        removed_tags: Vec<String>,
    }
    let args = parse::<EntityTags>(a)?;
    let id = named(t.graph, args.entity_name)?;
    let given = tags("tags", &args.tags)?;
    let has = tags_of(t.graph, id);
    let removed: Vec<String> = given
        .into_iter()
        .filter(|g| has.contains(&g.as_str()))
        .collect();
    let mut patches = Vec::new();
    if !removed.is_empty() {
        let kept = has
            .into_iter()
            .filter(|h| !removed.iter().any(|r| r == h))
            .collect();
        patches.push(retag(args.entity_name, kept));
    }
    let result = Removed {
        entity_name: args.entity_name,
        removed_tags: removed,
    };
    Ok(planned(patches, answer(&result)))
}

/// `set_importance`: sets one entity's importance (0 to 10).
pub fn set_importance(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        entity_name: &'a str,
        importance: Value,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Set<'a> {
        entity_name: &'a str,
        #[serde(serialize_with = "json::js_number")]
        importance: Option<f64>,
    }
    let args = parse::<Args>(a)?;
    named(t.graph, args.entity_name)?;
    let value = importance("importance", &args.importance, false)?;
    let patch = EntityPatch {
        name: args.entity_name,
        tags: None,
        importance: Some(value),
        parent: None,
        status: None,
    };
    let result = Set {
        entity_name: args.entity_name,
        importance: value,
    };
    Ok(planned(alloc::vec![patch], answer(&result)))
}

/// Entities changed graph-wide, in graph order, as the seed answers.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Affected<'a> {
    affected_entities: Vec<&'a str>,
    count: usize,
}

/// Rewrites the tags of every entity for which `rewrite` (given its tags) returns new ones.
fn rewrite_tags<'a>(
    g: &'a Graph,
    mut rewrite: impl FnMut(&[&'a str]) -> Option<Vec<&'a str>>,
) -> Plan {
    let mut patches = Vec::new();
    for (id, e) in g.entities() {
        let name = g.text(e.name);
        // A patch names the oldest entity of a name: a later one of the same name (which
        // only a converted reference file may hold) is not what the tools change.
        if g.first_named(name) != Some(id) {
            continue;
        }
        if let Some(tags) = rewrite(&tags_of(g, id)) {
            patches.push(retag(name, tags));
        }
    }
    let affected: Vec<&str> = patches.iter().map(|p| p.name).collect();
    let result = Affected {
        count: affected.len(),
        affected_entities: affected,
    };
    planned(patches, answer(&result))
}

/// `replace_tag`: renames a tag on every entity that has it (where the entity already has
/// the new one, the old one just goes).
pub fn replace_tag(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        old_tag: &'a str,
        new_tag: &'a str,
    }
    let args = parse::<Args>(a)?;
    let old = one_tag("oldTag", args.old_tag)?;
    let new = one_tag("newTag", args.new_tag)?;
    if old == new {
        return Ok(rewrite_tags(t.graph, |_| None));
    }
    let (old, new) = (old.as_str(), new.as_str());
    Ok(rewrite_tags(t.graph, |has| {
        if !has.contains(&old) {
            return None;
        }
        let keep_new = has.contains(&new);
        let tags = has
            .iter()
            .filter_map(|&h| match h == old {
                true if keep_new => None,
                true => Some(new),
                false => Some(h),
            })
            .collect();
        Some(tags)
    }))
}

/// `merge_tags`: on every entity with `tag1` or `tag2`, replaces both by `targetTag`.
pub fn merge_tags(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        tag1: &'a str,
        tag2: &'a str,
        target_tag: &'a str,
    }
    let args = parse::<Args>(a)?;
    let one = one_tag("tag1", args.tag1)?;
    let two = one_tag("tag2", args.tag2)?;
    let target = one_tag("targetTag", args.target_tag)?;
    let (one, two, target) = (one.as_str(), two.as_str(), target.as_str());
    Ok(rewrite_tags(t.graph, |has| {
        if !has.iter().any(|&h| h == one || h == two) {
            return None;
        }
        let mut tags: Vec<&str> = has
            .iter()
            .copied()
            .filter(|&h| h != one && h != two)
            .collect();
        if !tags.contains(&target) {
            tags.push(target);
        }
        (tags.as_slice() != has).then_some(tags)
    }))
}
