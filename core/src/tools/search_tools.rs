//! The ranked `search` tool. Its definition is in `extended/search.json`; the engine is
//! [`crate::index::search`].

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::args::count;
use super::{Ctx, output, parse};
use crate::graph::Graph;
use crate::index::search::{self, Options, SearchIndex};
use crate::json;
use crate::model::Entity;

/// Hits per page when the call does not say.
const DEFAULT_LIMIT: usize = 10;

/// search's arguments (their bounds are in its schema).
#[derive(Deserialize)]
struct SearchArgs<'a> {
    query: &'a str,
    #[serde(rename = "entityType")]
    entity_type: Option<&'a str>,
    limit: Option<u64>,
    offset: Option<u64>,
    #[serde(default)]
    expand: bool,
    #[serde(default)]
    explain: bool,
}

/// A hit: the entity, and how it ranked.
#[derive(Serialize)]
struct HitJson<'a> {
    #[serde(flatten)]
    entity: Entity<'a>,
    score: f64,
    matched: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    explain: Option<ExplainJson<'a>>,
}

/// Why a hit scored what it did: `score = bm25 × proximity + expansion.score`.
#[derive(Serialize)]
struct ExplainJson<'a> {
    /// The first stage's score: BM25 of the words it holds, field-weighted, times the
    /// square of the share of the query's words it holds when the query was relaxed.
    bm25: f64,
    /// The proximity multiplier (1: no two query words close together in one field).
    proximity: f64,
    /// Each query word on its own in this entity.
    words: Vec<WordJson>,
    /// The share of a related hit's score this entity received (graph expansion).
    #[serde(skip_serializing_if = "Option::is_none")]
    expansion: Option<ExpansionJson<'a>>,
}

#[derive(Serialize)]
struct WordJson {
    word: String,
    score: f64,
    matched: Vec<&'static str>,
}

#[derive(Serialize)]
struct ExpansionJson<'a> {
    from: &'a str,
    #[serde(rename = "relationType")]
    relation_type: &'a str,
    score: f64,
}

#[derive(Serialize)]
struct SearchJson<'a> {
    hits: Vec<HitJson<'a>>,
    total: usize,
}

/// A score rounded to four decimals (scores are never negative).
fn rounded(score: f32) -> f64 {
    let x = (score as f64).max(0.0) * 10_000.0 + 0.5;
    (x as u64) as f64 / 10_000.0
}

/// search: ranked full-text search (see `search.json` for the query language).
pub fn search(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let graph = t.graph;
    let args: SearchArgs = parse(a)?;
    let (query, explain) = (args.query, args.explain);
    let options = Options {
        entity_type: args.entity_type,
        limit: args.limit.map_or(DEFAULT_LIMIT, count),
        offset: args.offset.map_or(0, count),
        expand: args.expand,
    };
    let index = t.indexes.ranked(graph);
    let results = search::search(graph, index, query, &options);
    let hits = results
        .hits
        .iter()
        .map(|f| HitJson {
            entity: graph.entity_text(graph.entity(f.id)),
            score: rounded(f.score),
            matched: f.matched().collect(),
            explain: explain.then(|| explained(graph, index, query, f)),
        })
        .collect();
    let structured = SearchJson {
        hits,
        total: results.total,
    };
    Ok(output::success(&json::pretty(&structured), &structured))
}

/// The explanation of one hit (see [`ExplainJson`]).
fn explained<'g>(
    graph: &'g Graph,
    index: &SearchIndex,
    query: &str,
    f: &search::Found,
) -> ExplainJson<'g> {
    let expansion = f
        .boost
        .expanded_from
        .map(|(source, rid, gain)| ExpansionJson {
            from: graph.text(graph.entity(source).name),
            relation_type: graph.text(graph.relation(rid).relation_type),
            score: rounded(gain),
        });
    let gain = f.boost.expanded_from.map_or(0.0, |(_, _, g)| g);
    let words = search::word_scores(index, query, f.id)
        .into_iter()
        .map(|(word, score, fields)| WordJson {
            word,
            score: rounded(score),
            matched: search::Found { fields, ..*f }.matched().collect(),
        })
        .collect();
    ExplainJson {
        bm25: rounded((f.score - gain) / f.boost.proximity.max(1.0)),
        proximity: rounded(f.boost.proximity),
        words,
        expansion,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_scores_to_four_decimals() {
        assert_eq!(rounded(1.234_56), 1.2346);
        assert_eq!(rounded(0.0), 0.0);
        assert_eq!(rounded(-0.5), 0.0);
    }
}
