//! The Python seed's `search_semantic`: nearest entities in meaning and best by words,
//! fused by reciprocal rank, then re-ranked by its "Limbic" score
//! (`score = relevance × (1 + β·importance) × temporal × (1 + γ·co-occurrence)`, then its
//! status and metadata de-boosts), each result with its score's parts.
//!
//! Importance is the seed's: accesses (log-scaled against the candidates' most), lifted by
//! degree and by the number of days with accesses; the temporal factor decays from the
//! last access (else the last change); co-occurrence sums, over the other candidates, how
//! often each was returned with this one, decayed by age. The counts are the memory's usage
//! counts ([`crate::graph::Use`]): search_semantic's results, open_nodes' entities and
//! add_observations' entity each count a use. The formula and its constants are the seed's
//! (`scoring.py`) but for β, 0.1 by default (see [`BETA_SAL`]); β and the half-life can be
//! given per call. Routing is the seed's too ([`Routing`]): a query the seed takes as
//! factual or exploratory blends cosine with the Limbic score, others rank by the latter.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::vocabulary::{ACTIVE, METADATA_KIND, ROUTING_PHRASES, STATUS_WEIGHTS};
use crate::graph::{EntityId, Use};
use crate::hash::HashMap;
use crate::index::search::{self, Options};
use crate::json::round4;
use crate::model::Millis;
use crate::tools::Ctx;
use crate::tools::parse;

/// Results unless asked for another number.
const LIMIT: usize = 10;
/// Candidates taken from each ranking, per result asked for.
const EXPANSION: usize = 3;
/// The reciprocal rank fusion's constant.
const RRF_K: f64 = 60.0;
/// How much importance (salience) lifts a score, unless the call gives `salience_weight`.
/// The seed's is 0.5; on the relevance bench's repeated-access pass 0.1 keeps most of what
/// salience gives questions about used entities (MRR 0.467 of 0.509) at a third less cost
/// to the others (0.137 against 0.083; 0.281 without salience), and the best MRR overall.
const BETA_SAL: f64 = 0.1;
/// How much degree lifts importance, and the degree that counts fully.
const BETA_DEG: f64 = 0.15;
const D_MAX: usize = 15;
/// How much the days with accesses lift importance.
const ALPHA_CONS: f64 = 0.2;
/// How much each unit of co-occurrence lifts a score.
const GAMMA: f64 = 0.01;
/// Decay per hour of the temporal factor and of co-occurrences (half-life about 289
/// days), unless the call gives `half_life_days`.
const LAMBDA_HOURLY: f64 = 1e-4;
/// The temporal factor never falls below this.
const TEMPORAL_FLOOR: f64 = 0.1;
/// The multiplier of an entity whose observations are mostly of kind `metadata`.
const METADATA_DEBOOST: f64 = 0.7;
/// How the seed routes a query (`detect_query_type`): a factual one ranks mostly by
/// meaning, an exploratory one mostly by salience, others by the Limbic score alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routing {
    /// `cosine_heavy`: 0.7 × cosine + 0.3 × the Limbic score scaled into 0–1.
    CosineHeavy,
    /// `hybrid_balanced`: the Limbic score.
    Balanced,
    /// `limbic_heavy`: 0.3 × cosine + 0.7 × the scaled Limbic score.
    LimbicHeavy,
}

impl Routing {
    /// The seed's rules: its phrases' weights ([`ROUTING_PHRASES`]); at most 3 words +1,
    /// at least 10 −1; at most 3 results asked +1, at least 10 −1. At least 2 is factual,
    /// at most −2 exploratory.
    pub fn of(query: &str, limit: usize) -> Routing {
        let lower = query.to_lowercase();
        let mut score: i32 = ROUTING_PHRASES
            .iter()
            .filter(|(phrase, _)| lower.contains(phrase))
            .map(|&(_, weight)| weight)
            .sum();
        let words = query.split_whitespace().count();
        score += match words {
            0..=3 => 1,
            10.. => -1,
            _ => 0,
        };
        score += match limit {
            0..=3 => 1,
            10.. => -1,
            _ => 0,
        };
        match score {
            2.. => Routing::CosineHeavy,
            ..=-2 => Routing::LimbicHeavy,
            _ => Routing::Balanced,
        }
    }

    /// Its name in results.
    pub fn name(self) -> &'static str {
        match self {
            Routing::CosineHeavy => "cosine_heavy",
            Routing::Balanced => "hybrid_balanced",
            Routing::LimbicHeavy => "limbic_heavy",
        }
    }

    /// The weights of cosine and of the scaled Limbic score, if it blends them.
    fn blend(self) -> Option<(f64, f64)> {
        match self {
            Routing::CosineHeavy => Some((0.7, 0.3)),
            Routing::Balanced => None,
            Routing::LimbicHeavy => Some((0.3, 0.7)),
        }
    }
}

#[derive(Deserialize)]
struct Args<'a> {
    query: &'a str,
    #[serde(default)]
    limit: Option<u64>,
    #[serde(default)]
    salience_weight: Option<f64>,
    #[serde(default)]
    half_life_days: Option<f64>,
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
    /// The cosine, 0 for a candidate found by words only (what routing blends).
    #[serde(skip)]
    cosine: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    rrf_score: Option<f64>,
}

/// The decay at `now` of what happened at `then`, `lambda` per hour, never below
/// [`TEMPORAL_FLOOR`] (1 when either time is not known).
pub fn temporal(then: Millis, now: Millis, lambda: f64) -> f64 {
    if then == 0 || now == 0 {
        return 1.0;
    }
    let hours = now.saturating_sub(then) as f64 / crate::time::HOUR_MS as f64;
    libm::exp(-lambda * hours).max(TEMPORAL_FLOOR)
}

/// `log2(1 + x)`.
fn log2p1(x: f64) -> f64 {
    libm::log2(1.0 + x)
}

/// The seed's importance: `accesses` log-scaled against `max_accesses`, times
/// `1 + β_deg·min(degree, 15)/15`, times `1 + α·log2(1 + days)/log2(1 + max_days)` when
/// some candidate has accesses on more than one day; 0 when no candidate has accesses.
pub fn importance(
    accesses: u64,
    max_accesses: u64,
    degree: usize,
    days: usize,
    max_days: usize,
) -> f64 {
    if max_accesses == 0 {
        return 0.0;
    }
    let access = log2p1(accesses as f64) / log2p1(max_accesses as f64);
    let degree = degree.min(D_MAX) as f64 / D_MAX as f64;
    let consolidation = if max_days > 1 {
        1.0 + ALPHA_CONS * log2p1(days as f64) / log2p1(max_days as f64)
    } else {
        1.0
    };
    access * (1.0 + BETA_DEG * degree) * consolidation
}

/// search_semantic(query, limit): the nearest `3 × limit` entities in meaning and the best
/// `3 × limit` by words, fused by reciprocal rank (k = 60); each candidate's relevance is
/// its cosine (or, found by words only, its fused rank scaled into 0.2–0.8), times the
/// Limbic factors and de-boosts; best first, at most `limit`. Needs the embedding table,
/// as the seed needs its model; nothing near in meaning is no results, as in the seed.
pub fn search_semantic(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = parse::<Args>(a)?;
    let g = t.graph;
    let v = t.vectors()?;
    let limit = args.limit.map_or(LIMIT, crate::tools::args::count);
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
    let beta = args.salience_weight.unwrap_or(BETA_SAL);
    let routing = Routing::of(args.query, limit);
    let lambda = args.half_life_days.map_or(LAMBDA_HOURLY, |days| {
        core::f64::consts::LN_2 / (days * 24.0)
    });
    let owned: Vec<Option<Use>> = fused
        .iter()
        .map(|&(id, ..)| t.usage(g.entity(id).name))
        .collect();
    let uses: Vec<Option<&Use>> = owned.iter().map(Option::as_ref).collect();
    let max_accesses = uses.iter().flatten().map(|u| u.count()).max().unwrap_or(0);
    let days = |u: Option<&Use>| u.map_or(1, |u| u.days.len().max(1));
    let max_days = uses.iter().map(|&u| days(u)).max().unwrap_or(1);
    let mut hits: Vec<Hit<'_>> = fused
        .iter()
        .zip(&uses)
        .map(|(&(id, rrf, cos), &used)| {
            let e = g.entity(id);
            let state = g.entity_state(e);
            let relevance = match cos {
                Some(cos) => f64::from(cos).max(0.0),
                None => 0.2 + 0.6 * (rrf - low) / range,
            };
            let importance = importance(
                used.map_or(0, Use::count),
                max_accesses,
                g.degree(e.name),
                days(used),
                max_days,
            );
            let cooc: f64 = used.map_or(0.0, |u| {
                fused
                    .iter()
                    .filter_map(|&(other, ..)| u.with(g.entity(other).name))
                    .map(|(count, last)| log2p1(f64::from(count)) * temporal(last, t.now, lambda))
                    .sum()
            });
            let seen = match used.map_or(0, |u| u.last) {
                0 if e.updated != 0 => e.updated,
                0 => e.created,
                last => last,
            };
            let time = temporal(seen, t.now, lambda);
            let status = state.status.unwrap_or(ACTIVE);
            let status = STATUS_WEIGHTS
                .iter()
                .find(|(s, _)| *s == status)
                .map_or(1.0, |&(_, m)| m);
            let current: Vec<_> = state.facts.iter().filter(|f| f.superseded == 0).collect();
            let metadata = current
                .iter()
                .filter(|f| f.kind == Some(METADATA_KIND))
                .count();
            let deboost = if metadata * 2 > current.len() {
                METADATA_DEBOOST
            } else {
                1.0
            };
            let score = relevance
                * (1.0 + beta * importance)
                * time
                * (1.0 + GAMMA * cooc)
                * status
                * deboost;
            Hit {
                id: super::entity_id(state.name),
                name: state.name,
                entity_type: state.entity_type,
                observations: e.observations.iter().map(|&o| g.text(o)).collect(),
                limbic_score: score,
                scoring: Scoring {
                    importance: round4(importance),
                    temporal_factor: round4(time),
                    cooc_boost: round4(cooc),
                },
                routing_strategy: routing.name(),
                distance: cos.map(|c| round4(1.0 - f64::from(c))),
                cosine: cos.map_or(0.0, |c| f64::from(c).max(0.0)),
                rrf_score: hybrid.then(|| crate::json::round(rrf, 6)),
            }
        })
        .collect();
    // Best first; the sort is stable, so equals keep the fused order.
    hits.sort_by(|a, b| b.limbic_score.total_cmp(&a.limbic_score));
    hits.truncate(limit);
    if let Some((by_cosine, by_limbic)) = routing.blend() {
        // The seed's blend of the best `limit`, its Limbic scores scaled into 0–1.
        let (low, high) = hits.iter().fold((f64::MAX, f64::MIN), |(lo, hi), h| {
            (lo.min(h.limbic_score), hi.max(h.limbic_score))
        });
        let range = if high > low { high - low } else { 1.0 };
        let blended =
            |h: &Hit<'_>| by_cosine * h.cosine + by_limbic * (h.limbic_score - low) / range;
        hits.sort_by(|a, b| blended(b).total_cmp(&blended(a)));
    }
    t.uses.note(hits.iter().map(|h| h.name));
    for h in &mut hits {
        h.limbic_score = round4(h.limbic_score);
    }
    #[derive(Serialize)]
    struct Out<'a> {
        results: Vec<Hit<'a>>,
    }
    let out = Out { results: hits };
    Ok(crate::tools::output::success(
        &crate::json::pretty(&out),
        &out,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_temporal_factor_halves_in_about_289_days_and_has_a_floor() {
        let day = crate::time::DAY_MS;
        let now = 1_000 * day;
        assert_eq!(temporal(0, now, LAMBDA_HOURLY), 1.0);
        assert_eq!(temporal(now, now, LAMBDA_HOURLY), 1.0);
        let half = temporal(now - 289 * day, now, LAMBDA_HOURLY);
        assert!((half - 0.5).abs() < 0.01, "{half}");
        assert_eq!(temporal(1, now, LAMBDA_HOURLY), TEMPORAL_FLOOR);
    }

    #[test]
    fn importance_is_the_seeds() {
        assert_eq!(importance(5, 0, 3, 1, 1), 0.0, "no accesses: neutral");
        assert_eq!(importance(0, 4, 0, 1, 1), 0.0);
        assert_eq!(importance(4, 4, 0, 1, 1), 1.0);
        // scoring.py: access_norm × (1 + 0.15 × min(deg, 15)/15) × (1 + 0.2 × consolidation)
        let expected = (log2p1(3.0) / log2p1(15.0)) * (1.0 + 0.15 * 0.4) * (1.0 + 0.2 * 1.0);
        assert!((importance(3, 15, 6, 4, 4) - expected).abs() < 1e-12);
        assert_eq!(
            importance(1, 1, 40, 1, 1),
            1.15,
            "the degree counts up to 15"
        );
    }

    #[test]
    fn routing_is_the_seeds() {
        assert_eq!(Routing::of("qué es un motor", 5), Routing::CosineHeavy);
        assert_eq!(
            Routing::of("engine", 2),
            Routing::CosineHeavy,
            "short, few results"
        );
        assert_eq!(
            Routing::of("who designed the calculating engine", 2),
            Routing::Balanced
        );
        assert_eq!(Routing::of("engine", 10), Routing::Balanced);
        assert_eq!(
            Routing::of("dime todo sobre el motor", 5),
            Routing::LimbicHeavy
        );
        let long = "what did she say about the engine when they met in london";
        assert_eq!(
            Routing::of(long, 10),
            Routing::LimbicHeavy,
            "long, many results"
        );
        assert_eq!(Routing::of("QUÉ ES la DEFINICIÓN", 5), Routing::CosineHeavy);
        assert_eq!(Routing::LimbicHeavy.name(), "limbic_heavy");
    }
}
