//! The ranked `search` tool. Its definition is in `search.json`; the engine is
//! [`crate::index::search`].

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::graph::Graph;
use crate::index::hybrid::{self, LEXICAL_WEIGHT, MEANING_BAR, Mode, Ranked};
use crate::index::search::{self, Options, Reading, SearchIndex};
use crate::index::{NoTable, TABLE_HOWTO};
use crate::json;
use crate::json::round4;
use crate::model::Entity;
use crate::tools::Ctx;
use crate::tools::args::count;
use crate::tools::output;
use crate::tools::parse;

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
    mode: Option<ModeArg>,
}

/// The `mode` argument (its schema's `enum`).
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum ModeArg {
    Lexical,
    Semantic,
    Hybrid,
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

/// Why a hit scored what it did. Lexical: `score = bm25 × proximity + expansion.score`;
/// semantic: `score = semantic.cosine`; hybrid: `score = fusion.weight × fusion.lexical +
/// (1 − fusion.weight) × fusion.cosine + context.score`, with the lexical parts when the
/// words found it.
#[derive(Serialize, Default)]
struct ExplainJson<'a> {
    /// The first stage's score: BM25 of the words it holds, field-weighted, times the
    /// square of the share of the query's words it holds when the query was relaxed.
    #[serde(skip_serializing_if = "Option::is_none")]
    bm25: Option<f64>,
    /// The proximity multiplier (1: no two query words close together in one field).
    #[serde(skip_serializing_if = "Option::is_none")]
    proximity: Option<f64>,
    /// Each query word on its own in this entity.
    #[serde(skip_serializing_if = "Option::is_none")]
    words: Option<Vec<WordJson>>,
    /// The share of a related hit's score this entity received (graph expansion).
    #[serde(skip_serializing_if = "Option::is_none")]
    expansion: Option<ExpansionJson<'a>>,
    /// The meaning side: the cosine of the query's vector and the entity's.
    #[serde(skip_serializing_if = "Option::is_none")]
    semantic: Option<SemanticJson>,
    /// How a hybrid score was made of both sides.
    #[serde(skip_serializing_if = "Option::is_none")]
    fusion: Option<FusionJson>,
    /// What a hybrid hit received for sharing a related entity with the strongest.
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<ContextJson<'a>>,
}

#[derive(Serialize)]
struct SemanticJson {
    /// `None`: the entity has no vector (no word of its text is known to the table).
    cosine: Option<f64>,
    /// The least cosine at which meaning alone finds an entity (`MEANING_BAR`): a hit
    /// the words did not find is there because its cosine clears it.
    bar: f64,
}

#[derive(Serialize)]
struct FusionJson {
    /// The lexical share of the score.
    weight: f64,
    /// The lexical score scaled to 0..1 over the candidates (0: the words did not find it).
    lexical: f64,
    /// The cosine scaled to 0..1 over the candidates.
    cosine: f64,
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
struct ContextJson<'a> {
    /// The strongest hit it shares a related entity with.
    from: &'a str,
    /// The entity both relate to.
    via: &'a str,
    /// The shares received, summed (part of the score).
    score: f64,
}

#[derive(Serialize)]
struct SearchJson<'a> {
    hits: Vec<HitJson<'a>>,
    total: usize,
}

/// A score rounded to four decimals (scores are never negative).
fn rounded(score: f32) -> f64 {
    round4(f64::from(score).max(0.0))
}

/// Why `search` cannot rank by meaning, for the caller.
fn no_table(why: &NoTable) -> String {
    match why {
        NoTable::Missing => alloc::format!(
            "mode: semantic and hybrid search need an embedding table, and this server has none; {TABLE_HOWTO}"
        ),
        NoTable::Unreadable(e) => alloc::format!(
            "mode: semantic and hybrid search need an embedding table, and this server's could not be read ({e}); {TABLE_HOWTO}"
        ),
    }
}

/// search: ranked search by words, meaning or both (see `search.json`).
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
    let mode = match args.mode {
        // The first search without a mode reads the table, if the host has one.
        None if t.indexes.table().is_ok() => Mode::Hybrid,
        None | Some(ModeArg::Lexical) => Mode::Lexical,
        Some(ModeArg::Semantic) => Mode::Semantic,
        Some(ModeArg::Hybrid) => Mode::Hybrid,
    };
    let vectors = match mode {
        Mode::Lexical => None,
        _ => Some(t.indexes.vectors(graph).map_err(no_table)?),
    };
    let (hits, total) = match (mode, vectors) {
        (Mode::Semantic, Some(v)) => {
            // Only a type filter needs the ranked index (it folds types as words).
            let r = hybrid::semantic(|| t.indexes.ranked(graph), v, query, &options);
            let hits = ranked_hits(graph, None, query, explain, &r.hits, None);
            (hits, r.total)
        }
        (Mode::Hybrid, Some(v)) => {
            let index = t.indexes.ranked(graph);
            let r = hybrid::hybrid(
                graph,
                index,
                v,
                (query, Reading::Query),
                &options,
                LEXICAL_WEIGHT,
            );
            let weight = Some(LEXICAL_WEIGHT);
            let hits = ranked_hits(graph, Some(index), query, explain, &r.hits, weight);
            (hits, r.total)
        }
        _ => {
            let index = t.indexes.ranked(graph);
            let results = search::search(graph, index, query, &options);
            let hits = (results.hits.iter())
                .map(|f| HitJson {
                    entity: graph.entity_text(graph.entity(f.id)),
                    score: rounded(f.score),
                    matched: f.matched().collect(),
                    explain: explain.then(|| explained(graph, index, query, f)),
                })
                .collect();
            (hits, results.total)
        }
    };
    let structured = SearchJson { hits, total };
    Ok(output::success(&json::pretty(&structured), &structured))
}

/// The hits of a semantic (`weight` `None`) or hybrid ranking; `index` (hybrid) explains
/// the lexical side.
fn ranked_hits<'g>(
    graph: &'g Graph,
    index: Option<&SearchIndex>,
    query: &str,
    explain: bool,
    hits: &[Ranked],
    weight: Option<f32>,
) -> Vec<HitJson<'g>> {
    let explained = |r: &Ranked| {
        let lexical = (r.lexical.zip(index)).map(|(f, index)| explained(graph, index, query, &f));
        ExplainJson {
            semantic: Some(SemanticJson {
                cosine: r.cosine.map(signed),
                bar: signed(MEANING_BAR),
            }),
            fusion: weight.map(|w| FusionJson {
                weight: rounded(w),
                lexical: rounded(r.lexical_scaled),
                cosine: rounded(r.cosine_scaled),
            }),
            context: r.context.map(|c| ContextJson {
                from: graph.text(graph.entity(c.from).name),
                via: graph.text(graph.entity(c.via).name),
                score: rounded(c.score),
            }),
            ..lexical.unwrap_or_default()
        }
    };
    (hits.iter())
        .map(|r| HitJson {
            entity: graph.entity_text(graph.entity(r.id)),
            score: match weight {
                Some(_) => rounded(r.score),
                None => signed(r.score),
            },
            matched: r.lexical.map_or_else(Vec::new, |f| f.matched().collect()),
            explain: explain.then(|| explained(r)),
        })
        .collect()
}

/// A cosine rounded to four decimals (cosines may be negative).
fn signed(x: f32) -> f64 {
    round4(x.into())
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
        bm25: Some(rounded((f.score - gain) / f.boost.proximity.max(1.0))),
        proximity: Some(rounded(f.boost.proximity)),
        words: Some(words),
        expansion,
        ..ExplainJson::default()
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
