//! The TypeScript seed's merging, in its argument and result shapes: `merge_entities`
//! (several entities into the first, under an optional new name) and `compress_graph`
//! (`find_duplicates`' groups, each merged).
//!
//! A merge is the one every surface makes ([`crate::memory::merge::merge_entities`]: one
//! change that keeps what the merged entities had). Where
//! the seed is loose this server is not: a new name already taken by another entity is
//! refused (the seed makes a second entity of that name), a name listed twice counts once
//! (the seed deletes the entity), a new name among the merged ones keeps that entity, and
//! `compress_graph`'s dry run counts what the merge would do rather than zeros.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::hygiene::{duplicate_groups, threshold};
use super::{EntityJson, RelationJson, answer, named};
use crate::graph::{EntityId, Graph};
use crate::json;
use crate::memory::Change;
use crate::memory::merge::{Fate, Merging, merge_entities as merge};
use crate::model::{EntityState, RelationState};
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::parse;

/// The bytes of the seed's file lines that merging these groups saves.
fn bytes_saved(g: &Graph, groups: &[(&str, Vec<EntityId>)], merging: &Merging<'_>) -> i64 {
    let line = |e: &EntityState<'_>| json::compact(&EntityJson::of_state(e, true)).len() as i64;
    let relation_line =
        |r: &RelationState<'_>| json::compact(&RelationJson::of_state(r, true)).len() as i64;
    let before: i64 = groups
        .iter()
        .flat_map(|(_, ids)| ids)
        .map(|&id| line(&g.entity_state(g.entity(id))))
        .sum::<i64>()
        + merging
            .relations
            .iter()
            .filter(|(_, fate)| *fate != Fate::Kept)
            .map(|&(id, _)| relation_line(&g.relation_state(g.relation(id), 0)))
            .sum::<i64>();
    let after: i64 = merging.merged.iter().map(line).sum::<i64>()
        + merging.put_relations.iter().map(relation_line).sum::<i64>();
    before - after
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
        relations_consolidated: merging
            .relations
            .iter()
            .filter(|(_, fate)| *fate == Fate::Dropped)
            .count(),
        space_freed: bytes_saved(g, &groups, &merging),
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
