//! The TypeScript seed's `search_by_date_range`, in its argument and result shapes:
//! entities created in a time range (of a type, with one of some tags), at most 50 in the
//! memory's order, and the relations among them made in that range.
//!
//! Where it is loose this server is not: a time that is not ISO 8601 is an error naming
//! the argument (the seed answers nothing), and the answer says how many matched in all.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;
use serde_json::Value;

use super::search::found_where;
use crate::graph::{EntityId, Graph};
use crate::model::Millis;
use crate::tools::Ctx;
use crate::tools::args::time_arg;
use crate::tools::filter::Filter;
use crate::tools::parse;

/// What a date range picks: the entities matching, in the memory's order, and the range.
pub(crate) struct InRange {
    /// Every entity matching.
    pub matching: Vec<EntityId>,
    start: Millis,
    end: Millis,
}

impl InRange {
    /// Whether a time is in the range (a time not known is).
    pub(crate) fn holds(&self, at: Millis) -> bool {
        at == 0 || (self.start..=self.end).contains(&at)
    }
}

/// `search_by_date_range`: entities whose creation time (else last change; none known:
/// any) is within `startDate`..=`endDate`.
pub fn search_by_date_range(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let picked = in_range(t.graph, a)?;
    Ok(found_where(t.graph, &picked.matching, |r| {
        picked.holds(r.created)
    }))
}

/// The entities whose creation time (else last change; none known: any) is within
/// `startDate`..=`endDate` of `a`, of its `entityType`, with one of its `tags`.
pub(crate) fn in_range(g: &Graph, a: &Value) -> Result<InRange, String> {
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
    let range = InRange {
        matching: Vec::new(),
        start,
        end,
    };
    let filter = Filter::new(g, args.entity_type, &args.tags, (None, None));
    let matching: Vec<EntityId> = g
        .entities()
        .filter(|(_, e)| {
            let at = if e.created != 0 { e.created } else { e.updated };
            range.holds(at) && filter.admits(g, e)
        })
        .map(|(id, _)| id)
        .collect();
    Ok(InRange { matching, ..range })
}
