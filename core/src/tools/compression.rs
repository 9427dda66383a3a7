//! The TypeScript seed's merging, in its argument and result shapes: `merge_entities`
//! (several entities into the first, under an optional new name) and `compress_graph`
//! (`find_duplicates`' groups, each merged).
//!
//! A merge is one change: the merged entities leave, one entity takes their place with
//! every current observation (each keeping the time it was added), the tags of all, the
//! greatest importance and the earliest creation; relations at them follow to it (those a
//! merge turns into loops or repeats are dropped), and so do children's parent links. Where
//! the seed is loose this server is not: a new name already taken by another entity is
//! refused (the seed makes a second entity of that name), a name listed twice counts once
//! (the seed deletes the entity), a new name among the merged ones keeps that entity, and
//! `compress_graph`'s dry run counts what the merge would do rather than zeros.

use alloc::string::String;
use alloc::vec::Vec;
use alloc::{format, vec};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::hygiene::{duplicate_groups, threshold};
use super::memory_mcp::{EntityJson, RelationJson, answer, named};
use super::{Ctx, Plan, parse};
use crate::graph::{EntityId, Graph};
use crate::hash::{HashMap, HashSet};
use crate::json;
use crate::memory::Change;
use crate::model::{EntityPatch, EntityState, Fact, Millis, Relation, RelationState, Restore};
use crate::record::Op;

/// What merging some groups of entities changes.
struct Merging<'g> {
    /// Each group's entity, merged.
    merged: Vec<EntityState<'g>>,
    /// The change: one [`Op::Restore`], then the children's new parents.
    ops: Vec<Op<'g>>,
    /// Current observations that were not carried over (repeats).
    observations_dropped: usize,
    /// Relations that were not carried over (loops and repeats).
    relations_dropped: usize,
    /// Bytes of the seed's file lines the merge saves.
    bytes_saved: i64,
}

/// Plans merging each group (its entities, the kept one first) into one entity named as
/// given.
fn merge<'g>(g: &'g Graph, groups: &[(&'g str, Vec<EntityId>)], now: Millis) -> Merging<'g> {
    let mut into: HashMap<&'g str, &'g str> = HashMap::default();
    for (name, ids) in groups {
        for &id in ids {
            into.insert(g.text(g.entity(id).name), name);
        }
    }
    let moved = |name: &'g str| into.get(name).copied().unwrap_or(name);
    let line = |e: &EntityState<'_>| json::compact(&EntityJson::of_state(e, true)).len() as i64;
    let relation_line =
        |r: &RelationState<'_>| json::compact(&RelationJson::of_state(r, true)).len() as i64;
    let mut bytes_saved = 0;
    let mut observations_dropped = 0;
    let merged: Vec<EntityState<'g>> = groups
        .iter()
        .map(|(name, ids)| {
            let states: Vec<EntityState<'g>> =
                ids.iter().map(|&id| g.entity_state(g.entity(id))).collect();
            let merged = merged_entity(name, &states, &moved, now);
            let current =
                |e: &EntityState<'_>| e.facts.iter().filter(|f| f.superseded == 0).count();
            observations_dropped += states.iter().map(current).sum::<usize>() - current(&merged);
            bytes_saved += states.iter().map(line).sum::<i64>() - line(&merged);
            merged
        })
        .collect();
    let leaving: Vec<&'g str> = into.keys().copied().collect();
    let syms = leaving.iter().filter_map(|n| g.strings().lookup(n));
    let touching = g.relations_touching(syms);
    let mut relations = Vec::new();
    let mut put_relations = Vec::new();
    let mut seen: HashSet<(&str, &str, &str)> = HashSet::default();
    for &id in &touching {
        let r = g.relation(id);
        let mut state = g.relation_state(r, 0);
        bytes_saved += relation_line(&state);
        relations.push(state.relation);
        let Relation {
            from,
            to,
            relation_type,
        } = state.relation;
        state.relation.from = moved(from);
        state.relation.to = moved(to);
        let key = (state.relation.from, state.relation.to, relation_type);
        if key.0 != key.1 && seen.insert(key) {
            put_relations.push(state);
        }
    }
    bytes_saved -= put_relations.iter().map(relation_line).sum::<i64>();
    relations.sort_unstable_by_key(|r| (r.from, r.to, r.relation_type));
    relations.dedup();
    let patches: Vec<EntityPatch<'g>> = g
        .entities()
        .filter(|(_, e)| !into.contains_key(g.text(e.name)))
        .filter_map(|(_, e)| {
            let parent = g.text(e.extra.as_deref()?.parent?);
            let name = into.get(parent)?;
            Some(EntityPatch {
                name: g.text(e.name),
                parent: Some(Some(name)),
                ..EntityPatch::default()
            })
        })
        .collect();
    let mut ops = vec![Op::Restore(Restore {
        entities: leaving,
        relations,
        put_entities: merged.clone(),
        put_relations: put_relations.clone(),
    })];
    if !patches.is_empty() {
        ops.push(Op::PatchEntities(patches));
    }
    Merging {
        merged,
        ops,
        observations_dropped,
        relations_dropped: touching.len() - put_relations.len(),
        bytes_saved,
    }
}

/// The entity `states` merge into, named `name`: the first's type, status and history,
/// every current observation once (the first's, then the others' renumbered after it),
/// all tags, the greatest importance, the earliest creation, changed `now`.
fn merged_entity<'g>(
    name: &'g str,
    states: &[EntityState<'g>],
    moved: &dyn Fn(&'g str) -> &'g str,
    now: Millis,
) -> EntityState<'g> {
    let mut kept = states[0].clone();
    kept.name = name;
    kept.updated = now;
    kept.parent = kept.parent.map(moved).filter(|&p| p != name);
    let (mut current, past): (Vec<Fact<'g>>, Vec<Fact<'g>>) =
        kept.facts.iter().partition(|f| f.superseded == 0);
    for other in &states[1..] {
        for fact in other.facts.iter().filter(|f| f.superseded == 0) {
            if current.iter().any(|f| f.text == fact.text) {
                continue;
            }
            current.push(Fact {
                id: kept.next_fact,
                supersedes: 0,
                ..*fact
            });
            kept.next_fact += 1;
        }
        for &tag in &other.tags {
            if !kept.tags.contains(&tag) {
                kept.tags.push(tag);
            }
        }
        kept.importance = match (kept.importance, other.importance) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if other.created != 0 && (kept.created == 0 || other.created < kept.created) {
            kept.created = other.created;
        }
    }
    current.extend(past);
    kept.facts = current;
    kept
}

/// `merge_entities`: the named entities merged into the first (or into the one named
/// `targetName`, if listed), under `targetName` if given; the merged entity.
pub fn merge_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        #[serde(borrow)]
        entity_names: Vec<&'a str>,
        target_name: Option<&'a str>,
    }
    let args = parse::<Args>(a)?;
    if args.target_name == Some("") {
        return Err(String::from("targetName: a name is not empty"));
    }
    let g = t.graph;
    let mut ids: Vec<EntityId> = Vec::new();
    for name in &args.entity_names {
        let id = named(g, name)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.len() < 2 {
        return Err(String::from(
            "entityNames: name at least two different entities to merge",
        ));
    }
    let name = |id: EntityId| g.text(g.entity(id).name);
    let target = args.target_name.unwrap_or(name(ids[0]));
    if let Some(at) = ids.iter().position(|&id| name(id) == target) {
        let kept = ids.remove(at);
        ids.insert(0, kept);
    } else if g.first_named(target).is_some() {
        return Err(format!(
            "targetName: an entity named \"{target}\" exists and is not among entityNames; merge it too, or choose a free name"
        ));
    }
    let merging = merge(g, &[(target, ids)], t.now);
    let result = answer(&EntityJson::of_state(&merging.merged[0], false));
    Ok(Plan {
        change: Change::of(merging.ops),
        result,
    })
}

/// `compress_graph`: every group `find_duplicates` finds at `threshold` merged into its
/// first member, in one change (none with `dryRun`); what it did, or would do.
pub fn compress_graph(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args {
        #[serde(default)]
        dry_run: bool,
    }
    #[derive(Serialize)]
    struct Group<'a> {
        kept: &'a str,
        merged: Vec<&'a str>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Report<'a> {
        duplicates_found: usize,
        entities_merged: usize,
        observations_compressed: usize,
        relations_consolidated: usize,
        space_freed: i64,
        merged_entities: Vec<Group<'a>>,
    }
    let dry_run = parse::<Args>(a)?.dry_run;
    let g = t.graph;
    let name = |id: EntityId| g.text(g.entity(id).name);
    let groups: Vec<(&str, Vec<EntityId>)> = duplicate_groups(g, threshold(a)?)?
        .into_iter()
        .map(|ids| (name(ids[0]), ids))
        .collect();
    let merging = merge(g, &groups, t.now);
    let report = Report {
        duplicates_found: groups.iter().map(|(_, ids)| ids.len()).sum(),
        entities_merged: groups.iter().map(|(_, ids)| ids.len() - 1).sum(),
        observations_compressed: merging.observations_dropped,
        relations_consolidated: merging.relations_dropped,
        space_freed: merging.bytes_saved,
        merged_entities: groups
            .iter()
            .map(|(kept, ids)| Group {
                kept,
                merged: ids[1..].iter().map(|&id| name(id)).collect(),
            })
            .collect(),
    };
    let change = if dry_run || groups.is_empty() {
        Change::NONE
    } else {
        Change::of(merging.ops)
    };
    Ok(Plan {
        change,
        result: answer(&report),
    })
}
