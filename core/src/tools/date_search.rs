//! The TypeScript seed's `search_by_date_range`, in its argument and result shapes:
//! entities created in a time range (of a type, with one of some tags), at most 50 in the
//! memory's order, and the relations among them made in that range.
//!
//! Where it is loose this server is not: a time that is not ISO 8601 is an error naming
//! the argument (the seed answers nothing), and the answer says how many matched in all.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::filter::Filter;
use super::history::time_arg;
use super::memory_mcp::{EntityJson, RelationJson, answer};
use super::{Ctx, parse};
use crate::graph::{EntityId, Graph, RelationId};
use crate::hash::HashSet;
use crate::model::Millis;

/// Most entities one answer holds, as the seed caps it.
const CAP: usize = 50;

/// What a date range picks: the entities matching (all of them, in the memory's order) and
/// the relations among the first `cap` of them made in the range.
pub(crate) struct InRange {
    /// Every entity matching.
    pub matching: Vec<EntityId>,
    /// The relations from one of the first `cap` to another, made in the range.
    pub relations: Vec<RelationId>,
}

/// The entities whose creation time (else last change; none known: any) is within
/// `startDate`..=`endDate` of `a`, of its `entityType`, with one of its `tags`; and the
/// relations among the first `cap` of them made in that range.
pub(crate) fn in_range(g: &Graph, a: &Value, cap: usize) -> Result<InRange, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        entity_type: Option<&'a str>,
        #[serde(borrow, default)]
        tags: Vec<&'a str>,
    }
    let args = parse::<Args>(a)?;
    let start = time_arg(a, "startDate")?.unwrap_or(0);
    let end = time_arg(a, "endDate")?.unwrap_or(Millis::MAX);
    let within = |at: Millis| at == 0 || (start..=end).contains(&at);
    let filter = Filter::new(g, args.entity_type, &args.tags, (None, None));
    let matching: Vec<EntityId> = g
        .entities()
        .filter(|(_, e)| {
            let at = if e.created != 0 { e.created } else { e.updated };
            within(at) && filter.admits(g, e)
        })
        .map(|(id, _)| id)
        .collect();
    let shown = &matching[..matching.len().min(cap)];
    let names: HashSet<_> = shown.iter().map(|&id| g.entity(id).name).collect();
    let mut relations = Vec::new();
    for &id in shown {
        let name = g.entity(id).name;
        for r in g.relations_touching([name]) {
            let rel = g.relation(r);
            if rel.from == name && names.contains(&rel.to) && within(rel.created) {
                relations.push(r);
            }
        }
    }
    Ok(InRange {
        matching,
        relations,
    })
}

/// `search_by_date_range`: entities whose creation time (else last change; none known:
/// any) is within `startDate`..=`endDate`.
pub fn search_by_date_range(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Serialize)]
    struct Found<'a> {
        entities: Vec<EntityJson<'a>>,
        relations: Vec<RelationJson<'a>>,
        /// How many entities matched, of which at most 50 are here.
        total: usize,
    }
    let g = t.graph;
    let found = in_range(g, a, CAP)?;
    let shown = &found.matching[..found.matching.len().min(CAP)];
    Ok(answer(&Found {
        entities: shown
            .iter()
            .map(|&id| EntityJson::of(g, g.entity(id), false))
            .collect(),
        relations: found
            .relations
            .iter()
            .map(|&r| RelationJson::of(g, g.relation(r), false))
            .collect(),
        total: found.matching.len(),
    }))
}
