//! Bounded graph answers: the optional arguments read_graph, search_nodes and open_nodes take
//! beyond the reference's — `entityType`, `tags`, `minImportance` and `maxImportance`
//! filters, `offset`, `limit`, `maxTokens` with `cursor`, and `outline` — so an answer never exceeds what the client accepts (Claude Code refuses tool
//! output over 25,000 tokens by default). Without any of them the tools answer exactly as the
//! reference does; the extra properties are declared in `reads.json`.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::detail::{self, EntityDetail, RelationView};
use crate::graph::{EntityId, Graph};
use crate::hash::HashSet;
use crate::json;
use crate::tools::filter::Filter;
use crate::tools::output;

/// Characters counted as one token when budgeting: English JSON runs about four characters
/// a token; three leaves room for text that tokenizes worse.
const CHARS_PER_TOKEN: usize = 3;

/// The bounding arguments of a graph answer.
#[derive(Deserialize, Default)]
pub struct View<'a> {
    /// Only entities of this type.
    #[serde(rename = "entityType")]
    pub entity_type: Option<&'a str>,
    /// Entities to skip.
    pub offset: Option<u64>,
    /// At most this many entities.
    pub limit: Option<u64>,
    /// An upper bound on the answer's text, in tokens.
    #[serde(rename = "maxTokens")]
    pub max_tokens: Option<u64>,
    /// Where a previous bounded answer stopped (its `nextCursor`).
    pub cursor: Option<&'a str>,
    /// Names and types only, no observations.
    pub outline: Option<bool>,
    /// More than the reference shows: `metadata`, `history`.
    #[serde(borrow)]
    pub include: Option<Vec<&'a str>>,
    /// Only entities with one of these tags.
    #[serde(borrow)]
    pub tags: Option<Vec<&'a str>>,
    /// Only entities of at least this importance.
    #[serde(rename = "minImportance")]
    pub min_importance: Option<f64>,
    /// Only entities of at most this importance.
    #[serde(rename = "maxImportance")]
    pub max_importance: Option<f64>,
}

impl<'a> View<'a> {
    /// Whether no bounding argument was given (the reference's answer).
    pub fn is_plain(&self) -> bool {
        self.entity_type.is_none()
            && self.offset.is_none()
            && self.limit.is_none()
            && self.max_tokens.is_none()
            && self.cursor.is_none()
            && self.outline.is_none()
            && self.include.is_none()
            && self.tags.is_none()
            && self.min_importance.is_none()
            && self.max_importance.is_none()
    }

    /// The entities it keeps.
    pub fn filter(&self, graph: &Graph) -> Filter<'a> {
        let tags = self.tags.as_deref().unwrap_or_default();
        let importance = (self.min_importance, self.max_importance);
        Filter::new(graph, self.entity_type, tags, importance)
    }

    /// Whether `include` asks for this (`metadata` or `history`).
    fn includes(&self, what: &str) -> bool {
        self.include.as_ref().is_some_and(|i| i.contains(&what))
    }
}

/// An entity in a bounded answer. Not [`crate::model::Entity`]: an outline leaves the
/// observations out altogether (no key), which the model's shape cannot say.
#[derive(Serialize)]
struct EntityView<'a> {
    name: &'a str,
    #[serde(rename = "entityType")]
    entity_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    observations: Option<Vec<&'a str>>,
    #[serde(flatten)]
    detail: Option<EntityDetail<'a>>,
}

#[derive(Serialize)]
struct Page<'a> {
    entities: Vec<EntityView<'a>>,
    relations: Vec<RelationView<'a>>,
    /// Ended relations touching the entities shown (`include: ["history"]`).
    #[serde(rename = "endedRelations", skip_serializing_if = "Option::is_none")]
    ended_relations: Option<Vec<RelationView<'a>>>,
    /// Entities that match, across all pages.
    total: usize,
    #[serde(rename = "nextCursor", skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

fn cursor_of(offset: usize) -> String {
    format!("offset:{offset}")
}

fn offset_of(cursor: &str) -> Result<usize, String> {
    cursor
        .strip_prefix("offset:")
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            format!("Invalid cursor {cursor:?}: pass a nextCursor from an earlier answer")
        })
}

/// Pretty JSON length of `value` nested `depth` levels deep (two spaces each per line).
fn cost<T: Serialize>(value: &T, depth: usize) -> usize {
    let text = json::pretty(value);
    text.len() + text.lines().count() * 2 * depth + 2
}

/// The answer for `found` (the matching entities, in answer order) bounded by `view`; the
/// relations are those touching the returned entities.
pub fn page(graph: &Graph, found: &[EntityId], view: &View<'_>) -> Result<String, String> {
    let filter = view.filter(graph);
    let matching: Vec<EntityId> = match filter.is_empty() {
        false => found
            .iter()
            .copied()
            .filter(|&id| filter.admits(graph, graph.entity(id)))
            .collect(),
        true => found.to_vec(),
    };
    // Counts saturate: `as usize` would truncate on wasm32 (where the hosts run the core)
    // and the budget's product would overflow for a maxTokens near 2^64.
    let saturating = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let start = match view.cursor {
        Some(c) => offset_of(c)?,
        None => saturating(view.offset.unwrap_or(0)),
    };
    let outline = view.outline.unwrap_or(false);
    let limit = view.limit.map_or(usize::MAX, saturating);
    let budget = view
        .max_tokens
        .map(|t| saturating(t).saturating_mul(CHARS_PER_TOKEN));
    let (metadata, history) = (view.includes("metadata"), view.includes("history"));
    let detailed = metadata || history;
    let entity = |id: EntityId| {
        let e = graph.entity(id);
        EntityView {
            name: graph.text(e.name),
            entity_type: graph.text(e.entity_type),
            observations: (!outline)
                .then(|| e.observations.iter().map(|&o| graph.text(o)).collect()),
            detail: (detailed && !outline).then(|| detail::entity_detail(graph, e, history)),
        }
    };
    let mut entities = Vec::new();
    let mut relation_ids = Vec::new();
    let mut seen = HashSet::default();
    // The frame: braces, keys, total and a cursor.
    let mut used = 120;
    let mut next = start;
    for &id in matching.iter().skip(start).take(limit) {
        let shown = entity(id);
        let touching: Vec<_> = graph
            .relations_touching([graph.entity(id).name])
            .into_iter()
            .filter(|r| !seen.contains(r))
            .collect();
        // Sizes are measured only under a token budget: they cost a serialization each.
        if let Some(budget) = budget {
            let added = cost(&shown, 2)
                + touching
                    .iter()
                    .map(|&r| cost(&graph.relation_text(graph.relation(r)), 2))
                    .sum::<usize>();
            if used + added > budget {
                if entities.is_empty() {
                    return Err(format!(
                        "maxTokens {} is too small for even one entity ({} needs about {} tokens): raise maxTokens or pass outline: true",
                        view.max_tokens.unwrap_or(0),
                        shown.name,
                        (used + added).div_ceil(CHARS_PER_TOKEN)
                    ));
                }
                break;
            }
            used += added;
        }
        seen.extend(touching.iter().copied());
        relation_ids.extend(touching);
        entities.push(shown);
        next += 1;
    }
    relation_ids.sort_unstable();
    let ended_relations = history.then(|| {
        let shown: HashSet<_> = entities.iter().map(|e| e.name).collect();
        graph
            .ended()
            .iter()
            .filter(|e| {
                let t = graph.relation_text(&e.relation);
                shown.contains(t.from) || shown.contains(t.to)
            })
            .map(|e| detail::relation_view(graph, &e.relation, true, e.at))
            .collect()
    });
    let page = Page {
        entities,
        relations: relation_ids
            .iter()
            .map(|&r| detail::relation_view(graph, graph.relation(r), detailed, 0))
            .collect(),
        ended_relations,
        total: matching.len(),
        next_cursor: (next < matching.len() && next > start).then(|| cursor_of(next)),
    };
    Ok(output::success(&json::pretty(&page), &page))
}
