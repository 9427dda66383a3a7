//! The archive: entities moved out of the live graph with the relations they had, kept in
//! the log to be listed and restored. `archive_entities` has the TypeScript seed's argument
//! and result shapes; `list_archived` and `restore_archived` are this server's (the seed
//! writes a compressed file beside its memory and has no tool to read it back).
//!
//! Where the seed is loose this server is not: an entity with no importance is not "less
//! important than" a bound (the seed archives every unrated entity), relations are kept
//! with the entity (the seed drops them), and archiving and restoring are each one change.

use alloc::string::String;
use alloc::vec::Vec;
use alloc::{format, vec};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answer;
use crate::graph::Graph;
use crate::hash::HashSet;
use crate::memory::Change;
use crate::model::{Archived, Relation, RelationState, Restore};
use crate::record::Op;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::args::time_arg;
use crate::tools::parse;

/// `archive_entities`: entities last changed before `olderThan`, or less important than
/// `importanceLessThan`, or with one of `tags` (any criterion given), moved to the archive
/// with the relations at them (nothing moves with `dryRun`).
pub fn archive_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        importance_less_than: Option<f64>,
        #[serde(borrow, default)]
        tags: Vec<&'a str>,
        #[serde(default)]
        dry_run: bool,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Report<'a> {
        archived: usize,
        entity_names: Vec<&'a str>,
    }
    let args = parse::<Args>(a)?;
    let older_than = time_arg(a, "olderThan")?;
    let tags: Vec<String> = args.tags.iter().map(|t| t.to_lowercase()).collect();
    let g = t.graph;
    let chosen: Vec<_> = g
        .entities()
        .filter(|(_, e)| {
            let extra = e.extra.as_deref();
            let old = older_than.is_some_and(|at| e.updated != 0 && e.updated < at);
            let minor = args
                .importance_less_than
                .is_some_and(|bound| extra.and_then(|x| x.importance).is_some_and(|i| i < bound));
            let tagged = extra.is_some_and(|x| {
                x.tags
                    .iter()
                    .any(|&tag| tags.iter().any(|t| *t == g.text(tag)))
            });
            old || minor || tagged
        })
        .map(|(_, e)| e)
        .collect();
    let names: Vec<&str> = chosen.iter().map(|e| g.text(e.name)).collect();
    let report = Report {
        archived: names.len(),
        entity_names: names.clone(),
    };
    if args.dry_run || chosen.is_empty() {
        return Ok(Plan {
            change: Change::NONE,
            result: answer(&report),
        });
    }
    let mut leaving: Vec<Relation<'_>> = Vec::new();
    let archived: Vec<Archived<'_>> = chosen
        .iter()
        .map(|e| {
            let relations: Vec<RelationState<'_>> = g
                .relations_touching([e.name])
                .into_iter()
                .map(|id| g.relation_state(g.relation(id), 0))
                .collect();
            leaving.extend(relations.iter().map(|r| r.relation));
            Archived {
                entity: g.entity_state(e),
                relations,
                at: t.now,
            }
        })
        .collect();
    leaving.sort_unstable_by_key(|r| (r.from, r.to, r.relation_type));
    leaving.dedup();
    let out = Restore {
        entities: names,
        relations: leaving,
        put_entities: Vec::new(),
        put_relations: Vec::new(),
    };
    Ok(Plan {
        change: Change::of(vec![Op::PutArchived(archived), Op::Restore(out)]),
        result: answer(&report),
    })
}

/// `list_archived`: the archive, oldest first, at most `limit` (default 100) of those
/// whose name or type holds `query` (case-insensitive).
pub fn list_archived(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Args<'a> {
        query: Option<&'a str>,
        limit: Option<usize>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Row<'a> {
        name: &'a str,
        entity_type: &'a str,
        observations: usize,
        relations: usize,
        archived_at: String,
    }
    #[derive(Serialize)]
    struct Listing<'a> {
        archived: Vec<Row<'a>>,
        total: usize,
    }
    let args = parse::<Args>(a)?;
    let query = args.query.map(str::to_lowercase);
    let matching: Vec<Archived<'_>> = t
        .graph
        .archived()
        .filter(|x| {
            query.as_deref().is_none_or(|q| {
                x.entity.name.to_lowercase().contains(q)
                    || x.entity.entity_type.to_lowercase().contains(q)
            })
        })
        .collect();
    let rows = matching
        .iter()
        .take(args.limit.unwrap_or(100))
        .map(|x| Row {
            name: x.entity.name,
            entity_type: x.entity.entity_type,
            observations: x.entity.facts.iter().filter(|f| f.superseded == 0).count(),
            relations: x.relations.len(),
            archived_at: crate::time::iso(x.at),
        })
        .collect();
    Ok(answer(&Listing {
        archived: rows,
        total: matching.len(),
    }))
}

/// `restore_archived`: archived entities back in the graph as they were, with the relations
/// they had (those not holding again already).
pub fn restore_archived(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        #[serde(borrow)]
        entity_names: Vec<&'a str>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Report<'a> {
        restored: usize,
        entity_names: Vec<&'a str>,
        relations_restored: usize,
    }
    let args = parse::<Args>(a)?;
    if args.entity_names.is_empty() {
        return Err(String::from(
            "entityNames: name at least one archived entity",
        ));
    }
    let g = t.graph;
    let mut names: Vec<&str> = Vec::new();
    let mut entries = Vec::new();
    for &name in &args.entity_names {
        if names.contains(&name) {
            continue;
        }
        let entry = archived(g, name)?;
        names.push(name);
        entries.push(entry);
    }
    let mut seen: HashSet<Relation<'_>> = HashSet::default();
    let relations: Vec<RelationState<'_>> = entries
        .iter()
        .flat_map(|x| x.relations.iter().copied())
        .filter(|r| {
            let t = r.relation;
            !g.has_relation(t.from, t.to, t.relation_type) && seen.insert(t)
        })
        .collect();
    let report = Report {
        restored: names.len(),
        entity_names: names.clone(),
        relations_restored: relations.len(),
    };
    let back = Restore {
        entities: Vec::new(),
        relations: Vec::new(),
        put_entities: entries.into_iter().map(|x| x.entity).collect(),
        put_relations: relations,
    };
    Ok(Plan {
        change: Change::of(vec![Op::Restore(back), Op::RemoveArchived(names)]),
        result: answer(&report),
    })
}

/// The archived entity `name`, which no live entity may hold now; else an error.
fn archived<'g>(g: &'g Graph, name: &str) -> Result<Archived<'g>, String> {
    let entry = g
        .archived_named(name)
        .ok_or_else(|| format!("Entity \"{name}\" is not archived"))?;
    if g.first_named(name).is_some() {
        return Err(format!(
            "Entity \"{name}\" exists: delete or rename it before restoring the archived one"
        ));
    }
    Ok(entry)
}
