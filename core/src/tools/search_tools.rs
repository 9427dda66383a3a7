//! The ranked `search` tool. Its definition is in `extended/search.json`; the engine is
//! [`crate::search`].

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;
use serde_json::Value;

use super::output;
use crate::graph::Graph;
use crate::search::{self, Options};

/// Hits per page when the call does not say.
const DEFAULT_LIMIT: usize = 10;
/// Most hits per page.
const MAX_LIMIT: usize = 100;

#[derive(Serialize)]
struct HitJson<'a> {
    name: &'a str,
    #[serde(rename = "entityType")]
    entity_type: &'a str,
    observations: Vec<&'a str>,
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

/// An integer argument in `min..=max`, `default` when absent; an error naming the limit when
/// outside it (never a silent clamp).
fn count(args: &Value, key: &str, default: usize, min: usize, max: usize) -> Result<usize, String> {
    let Some(v) = args.get(key) else {
        return Ok(default);
    };
    match v.as_i64() {
        Some(n) if n < min as i64 => Err(format!("{key} must be at least {min}")),
        Some(n) if n as u64 > max as u64 => Err(format!("{key} must be at most {max}")),
        Some(n) => Ok(n as usize),
        None => Err(format!("{key} must be an integer")),
    }
}

/// search: ranked full-text search (see `search.json` for the query language).
pub fn search(graph: &Graph, args: &Value) -> Result<String, String> {
    let query = args.get("query").and_then(Value::as_str).unwrap_or("");
    let options = Options {
        entity_type: args.get("entityType").and_then(Value::as_str),
        limit: count(args, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)?,
        offset: count(args, "offset", 0, 0, u32::MAX as usize)?,
        expand: args.get("expand").and_then(Value::as_bool).unwrap_or(false),
    };
    let explain = args
        .get("explain")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let results = search::search(graph, query, &options);
    let hits = results
        .hits
        .iter()
        .map(|f| {
            let e = graph.entity(f.id);
            HitJson {
                name: graph.text(e.name),
                entity_type: graph.text(e.entity_type),
                observations: e.observations.iter().map(|&o| graph.text(o)).collect(),
                score: rounded(f.score),
                matched: f.matched().collect(),
                explain: explain.then(|| explained(graph, query, f)),
            }
        })
        .collect();
    let structured = SearchJson {
        hits,
        total: results.total,
    };
    Ok(output::success(&output::pretty(&structured), &structured))
}

/// The explanation of one hit (see [`ExplainJson`]).
fn explained<'g>(graph: &'g Graph, query: &str, f: &search::Found) -> ExplainJson<'g> {
    let expansion = f
        .boost
        .expanded_from
        .map(|(source, rid, gain)| ExpansionJson {
            from: graph.text(graph.entity(source).name),
            relation_type: graph.text(graph.relation(rid).relation_type),
            score: rounded(gain),
        });
    let gain = f.boost.expanded_from.map_or(0.0, |(_, _, g)| g);
    let words = search::word_scores(graph, query, f.id)
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

/// Runs the search tool `name` (arguments already checked against its schema): `None` if
/// `name` is not one of these tools, else the `CallToolResult` JSON or a failure text.
pub fn call(graph: &Graph, name: &str, args: &Value) -> Option<Result<String, String>> {
    match name {
        "search" => Some(search(graph, args)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rounds_scores_and_refuses_counts_out_of_range() {
        assert_eq!(rounded(1.234_56), 1.2346);
        assert_eq!(rounded(0.0), 0.0);
        let args = json!({"limit": 500, "offset": -3, "fine": 20});
        assert_eq!(
            count(&args, "limit", 10, 1, 100),
            Err("limit must be at most 100".into())
        );
        assert_eq!(
            count(&args, "offset", 0, 0, 9),
            Err("offset must be at least 0".into())
        );
        assert_eq!(count(&args, "fine", 10, 1, 100), Ok(20));
        assert_eq!(count(&args, "missing", 10, 1, 100), Ok(10));
    }
}
