//! The Python seed's `search_semantic`: nearest entities in meaning and best by words,
//! fused by reciprocal rank, then re-ranked by its "Limbic" score
//! (`score = relevance × (1 + β·importance) × temporal × (1 + γ·co-occurrence)`, then its
//! status and metadata de-boosts), each result with its score's parts.
//!
//! This server keeps no access counts yet, so importance and co-occurrence are 0 and the
//! temporal factor decays from the entity's last change; the formula and its constants are
//! the seed's (`scoring.py`), so its rankings carry over where those signals are absent.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Ctx, parse, semantic_ts};
use crate::graph::EntityId;
use crate::hash::HashMap;
use crate::index::search::{self, Options};
use crate::model::Millis;

/// Results unless asked for another number.
const LIMIT: usize = 10;
/// Candidates taken from each ranking, per result asked for.
const EXPANSION: usize = 3;
/// The reciprocal rank fusion's constant.
const RRF_K: f64 = 60.0;
/// How much importance (salience) lifts a score.
const BETA_SAL: f64 = 0.5;
/// How much each unit of co-occurrence lifts a score.
const GAMMA: f64 = 0.01;
/// Decay per hour of the temporal factor (half-life about 289 days).
const LAMBDA_HOURLY: f64 = 1e-4;
/// The temporal factor never falls below this.
const TEMPORAL_FLOOR: f64 = 0.1;
/// A status's multiplier (others: 1).
const STATUS: [(&str, f64); 3] = [("pausado", 0.85), ("completado", 0.7), ("archivado", 0.5)];
/// The multiplier of an entity whose observations are mostly of kind `metadata`.
const METADATA_DEBOOST: f64 = 0.7;
/// The strategy reported: the seed's default routing, the only one without access data.
const ROUTING: &str = "hybrid_balanced";

#[derive(Deserialize)]
struct Args<'a> {
    query: &'a str,
    #[serde(default)]
    limit: Option<u64>,
}

/// The parts of a score.
#[derive(Serialize)]
struct Scoring {
    importance: f64,
    temporal_factor: f64,
    cooc_boost: f64,
}

/// A result as the seed shows it, with the entity's id.
#[derive(Serialize)]
struct Hit<'a> {
    id: u64,
    name: &'a str,
    #[serde(rename = "entityType")]
    entity_type: &'a str,
    observations: Vec<&'a str>,
    limbic_score: f64,
    scoring: Scoring,
    routing_strategy: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    distance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rrf_score: Option<f64>,
}

/// `x` rounded to `places` decimals.
fn round(x: f64, places: i32) -> f64 {
    let scale = libm::pow(10.0, f64::from(places));
    libm::round(x * scale) / scale
}

/// The temporal factor of an entity last changed at `then`, at `now` (1 when either is
/// not known).
pub fn temporal(then: Millis, now: Millis) -> f64 {
    if then == 0 || now == 0 {
        return 1.0;
    }
    let hours = now.saturating_sub(then) as f64 / 3_600_000.0;
    libm::exp(-LAMBDA_HOURLY * hours).max(TEMPORAL_FLOOR)
}

/// search_semantic(query, limit): the nearest `3 × limit` entities in meaning and the best
/// `3 × limit` by words, fused by reciprocal rank (k = 60); each candidate's relevance is
/// its cosine (or, found by words only, its fused rank scaled into 0.2–0.8), times the
/// Limbic factors and de-boosts; best first, at most `limit`. Needs the embedding table,
/// as the seed needs its model; nothing near in meaning is no results, as in the seed.
pub fn search_semantic(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = parse::<Args>(a)?;
    let g = t.graph;
    let v = semantic_ts::vectors(&t)?;
    let limit = args.limit.map_or(LIMIT, super::args::count);
    let wide = limit.saturating_mul(EXPANSION);
    let near: Vec<(u32, f32)> = match v.query(args.query) {
        Some(q) => v.nearest(&q, wide, |_| true).0,
        None => Vec::new(),
    };
    let options = Options {
        limit: wide,
        ..Options::default()
    };
    let words: Vec<EntityId> = if near.is_empty() {
        Vec::new()
    } else {
        let found = search::question(g, t.indexes.ranked(g), args.query, &options);
        found.hits.iter().map(|f| f.id).collect()
    };
    // Reciprocal rank fusion, in the order candidates were first met.
    let mut fused: Vec<(EntityId, f64, Option<f32>)> = Vec::new();
    let mut at: HashMap<EntityId, usize> = HashMap::default();
    let ranks = near
        .iter()
        .map(|&(slot, cos)| (EntityId::from_slot(slot), Some(cos)))
        .enumerate()
        .chain(words.iter().map(|&id| (id, None)).enumerate());
    for (rank, (id, cos)) in ranks {
        let share = 1.0 / (RRF_K + rank as f64 + 1.0);
        match at.get(&id) {
            Some(&i) => fused[i].1 += share,
            None => {
                at.insert(id, fused.len());
                fused.push((id, share, cos));
            }
        }
    }
    let hybrid = !words.is_empty();
    let (low, high) = fused.iter().fold((f64::MAX, f64::MIN), |(lo, hi), f| {
        (lo.min(f.1), hi.max(f.1))
    });
    let range = if high > low { high - low } else { 1.0 };
    let mut hits: Vec<Hit<'_>> = fused
        .iter()
        .map(|&(id, rrf, cos)| {
            let e = g.entity(id);
            let state = g.entity_state(e);
            let relevance = match cos {
                Some(cos) => f64::from(cos).max(0.0),
                None => 0.2 + 0.6 * (rrf - low) / range,
            };
            let (importance, cooc) = (0.0, 0.0);
            let time = temporal(if e.updated != 0 { e.updated } else { e.created }, t.now);
            let status = state.status.unwrap_or("activo");
            let status = STATUS
                .iter()
                .find(|(s, _)| *s == status)
                .map_or(1.0, |&(_, m)| m);
            let current: Vec<_> = state.facts.iter().filter(|f| f.superseded == 0).collect();
            let metadata = current
                .iter()
                .filter(|f| f.kind == Some("metadata"))
                .count();
            let deboost = if metadata * 2 > current.len() {
                METADATA_DEBOOST
            } else {
                1.0
            };
            let score = relevance
                * (1.0 + BETA_SAL * importance)
                * time
                * (1.0 + GAMMA * cooc)
                * status
                * deboost;
            Hit {
                id: super::py::entity_id(state.name),
                name: state.name,
                entity_type: state.entity_type,
                observations: e.observations.iter().map(|&o| g.text(o)).collect(),
                limbic_score: score,
                scoring: Scoring {
                    importance,
                    temporal_factor: round(time, 4),
                    cooc_boost: cooc,
                },
                routing_strategy: ROUTING,
                distance: cos.map(|c| round(1.0 - f64::from(c), 4)),
                rrf_score: hybrid.then(|| round(rrf, 6)),
            }
        })
        .collect();
    // Best first; the sort is stable, so equals keep the fused order.
    hits.sort_by(|a, b| b.limbic_score.total_cmp(&a.limbic_score));
    hits.truncate(limit);
    for h in &mut hits {
        h.limbic_score = round(h.limbic_score, 4);
    }
    #[derive(Serialize)]
    struct Out<'a> {
        results: Vec<Hit<'a>>,
    }
    let out = Out { results: hits };
    Ok(super::output::success(&crate::json::pretty(&out), &out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_temporal_factor_halves_in_about_289_days_and_has_a_floor() {
        let day = 86_400_000;
        let now = 1_000 * day;
        assert_eq!(temporal(0, now), 1.0);
        assert_eq!(temporal(now, now), 1.0);
        let half = temporal(now - 289 * day, now);
        assert!((half - 0.5).abs() < 0.01, "{half}");
        assert_eq!(temporal(1, now), TEMPORAL_FLOOR);
    }

    #[test]
    fn round_keeps_the_places_asked() {
        assert_eq!(round(0.123_456_78, 4), 0.1235);
        assert_eq!(round(2.0, 6), 2.0);
    }
}
