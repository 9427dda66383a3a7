//! Mutating tools beyond the reference's nine: `upsert_entities` and `merge_entities`, planned
//! like the nine (see `reference/plan.rs`), each stored as one record so replay applies it
//! whole or not at all. Their definitions are in `writes.json`.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::graph::RelationId;
use crate::json;
use crate::memory::merge::{self, Fate, Upserted, upsert};
use crate::memory::{Change, Store};
use crate::model::EntityState;
use crate::tools::Plan;
use crate::tools::args::Entities;
use crate::tools::output;
use crate::tools::parse;
use crate::tools::{Call, Ctx, Done};

/// merge_entities' arguments.
#[derive(Deserialize)]
struct Merge<'a> {
    /// The entity merged away.
    source: &'a str,
    /// The entity that receives its observations and relations.
    target: &'a str,
}

#[derive(Serialize)]
struct UpsertResult<'s, 'a> {
    results: &'s [Upserted<'a>],
}

#[derive(Serialize)]
struct MergeResult<'a> {
    source: &'a str,
    target: &'a str,
    #[serde(rename = "addedObservations")]
    added_observations: usize,
    #[serde(rename = "redirectedRelations")]
    redirected_relations: usize,
    #[serde(rename = "droppedRelations")]
    dropped_relations: usize,
}

/// upsert_entities: a new name becomes an entity (its observations without repeats); a known
/// name keeps its type and gains the observations it lacks. A name repeated in the call is
/// one entity. Per entity, in order: whether it was created and what was added.
pub fn upsert_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let entities = parse::<Entities>(a)?.entities;
    let (records, results) = upsert(t.graph, &entities);
    Ok(Plan {
        change: Change::of(records),
        result: output::success(&json::pretty(&results), &UpsertResult { results: &results }),
    })
}

/// merge_entities: `source` merged into `target` (the merge every surface makes:
/// [`crate::memory::merge::merge_entities`]): `source`'s observations that `target` lacks
/// are added to it, keeping their times and kinds, relations at `source` are redirected to
/// `target` (dropping those that become loops or repeat an existing relation), and `source`
/// goes, its tags, importance, children, reflections and usage passing to `target` — one
/// record, applied whole or not at all.
pub fn merge_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let Merge { source, target } = parse(a)?;
    let graph = t.graph;
    if source == target {
        return Err(format!(
            "Cannot merge entity {source} into itself: source and target must differ"
        ));
    }
    let (Some(from), Some(into)) = (graph.first_named(source), graph.first_named(target)) else {
        let missing = if graph.first_named(source).is_none() {
            source
        } else {
            target
        };
        return Err(format!("Entity with name {missing} not found"));
    };
    let merging = merge::merge_entities(
        graph,
        &[(graph.text(graph.entity(into).name), vec![into, from])],
        t.now,
    );
    let current = |e: &EntityState<'_>| e.facts.iter().filter(|f| f.superseded == 0).count();
    let added = current(&merging.merged[0]) - current(&graph.entity_state(graph.entity(into)));
    let at_source = |id: RelationId| {
        let r = graph.relation(id);
        graph.text(r.from) == source || graph.text(r.to) == source
    };
    let count = |fate: Fate| {
        merging
            .relations
            .iter()
            .filter(|&&(id, f)| f == fate && at_source(id))
            .count()
    };
    let result = MergeResult {
        source,
        target,
        added_observations: added,
        redirected_relations: count(Fate::Redirected),
        dropped_relations: count(Fate::Dropped),
    };
    Ok(Plan {
        change: Change::of(merging.ops),
        result: output::success(&json::pretty(&result), &result),
    })
}

/// The compact tool's structured result: how many records the log holds now.
#[derive(Serialize)]
struct CompactJson {
    records: usize,
}

/// compact: rewrites the log as the graph (and the history it keeps).
pub fn compact(m: &mut dyn Store, _: Call<'_>) -> Done {
    match m.compact() {
        Ok(records) => {
            let result = CompactJson { records };
            Done::unchanged(output::success(&json::pretty(&result), &result))
        }
        Err(e) => Done::failure(&e.to_string()),
    }
}
