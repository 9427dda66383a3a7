//! Ranking by meaning ([`Mode::Semantic`]) and by words and meaning together
//! ([`Mode::Hybrid`]), over the ranked index ([`super::search`]) and the entities' vectors
//! ([`super::vectors`]).
//!
//! Hybrid ranking fuses scores, not ranks: the best [`CANDIDATES`] of each side (more when
//! a page reaches further) are pooled; over the pool, the lexical score (0 for a candidate
//! the words did not find) and the cosine are each scaled to 0..1 (min-max), and the fused
//! score is `weight × lexical + (1 − weight) × cosine`. The weight, [`LEXICAL_WEIGHT`], is
//! chosen on real conversations (`core/benches/conversations.rs`, LoCoMo's 1,532 questions,
//! which nothing here was written for): Recall@10 0.604 with words alone, 0.614 at 0.3,
//! 0.627 at 0.4, 0.632 at 0.5, 0.634 at 0.6, 0.630 at 0.7; at 0.5 no kind of question
//! finds less than words alone (at 0.3 single-hop questions did: 0.689 against 0.704). The
//! generated set (`core/benches/relevance.rs`, whose paraphrases share almost no word with
//! their answers) preferred 0.3 (0.606 against 0.572 at 0.5, the difference in its
//! paraphrases). Reciprocal-rank fusion, measured elsewhere on conversations, did worse
//! than BM25 alone.

use alloc::vec::Vec;

use super::search::{self, Constraint, Found, Options, Reading, SearchIndex};
use super::vectors::{Query, VectorIndex};
use crate::graph::{EntityId, Graph};

/// How `search` ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// By the words of the query (BM25, proximity, graph expansion).
    Lexical,
    /// By the cosine of the query's vector and each entity's.
    Semantic,
    /// Both, fused (see the module's docs).
    Hybrid,
}

/// The lexical share of a hybrid score.
pub const LEXICAL_WEIGHT: f32 = 0.5;

/// Candidates each side brings to a hybrid ranking, at least.
pub const CANDIDATES: usize = 100;

/// The least cosine at which meaning alone finds an entity (semantic search, and what it
/// adds to words in hybrid). Calibrated on the relevance set with the shipped table
/// (`calibrate_the_meaning_bar` in `core/tests/suite/semantic.rs`): the nearest entity of
/// a nonsense word is at most 0.355 away, unrelated query–entity pairs reach 0.300 at
/// their 95th percentile and 0.478 at the 99th, relevant pairs 0.325 at their 25th and
/// 0.478 at their median; at 0.36 meaning keeps 65% of the relevant pairs and 2.6% of the
/// others (the words still find what they match).
pub const MEANING_BAR: f32 = 0.36;

/// The least share a side that found a candidate gives it (so no hit scores 0).
const FLOOR: f32 = 0.05;

/// One entity ranked by meaning, or by words and meaning.
#[derive(Clone, Copy, Debug)]
pub struct Ranked {
    /// The entity.
    pub id: EntityId,
    /// Its score (semantic: the cosine; hybrid: the fused score, 0..1).
    pub score: f32,
    /// How the words ranked it, if they found it.
    pub lexical: Option<Found>,
    /// The lexical score scaled over the pool (hybrid only).
    pub lexical_scaled: f32,
    /// The cosine of the query's vector and the entity's (`None`: the entity has no vector).
    pub cosine: Option<f32>,
    /// The cosine scaled over the pool (hybrid only).
    pub cosine_scaled: f32,
}

impl Ranked {
    /// An entity not yet scored: what each side said of it.
    fn found(id: EntityId, lexical: Option<Found>, cosine: Option<f32>) -> Ranked {
        Ranked {
            id,
            score: 0.0,
            lexical,
            lexical_scaled: 0.0,
            cosine,
            cosine_scaled: 0.0,
        }
    }
}

/// A page of entities ranked by meaning.
#[derive(Debug, Default)]
pub struct Results {
    /// The requested page, best first.
    pub hits: Vec<Ranked>,
    /// How many entities were ranked in all (semantic: every entity of the type asked
    /// near enough, [`MEANING_BAR`]; hybrid: the pool).
    pub total: usize,
}

/// The entities nearest to `query` in meaning, at least [`MEANING_BAR`] near (none when no
/// word of it has a vector), that satisfy its hard constraints (phrases, fields,
/// exclusions, operators: [`search::for_meaning`]). `ranked` gives the ranked index,
/// needed only to filter by type or by a constraint.
pub fn semantic<'i>(
    ranked: impl Fn() -> &'i SearchIndex,
    vectors: &VectorIndex,
    query: &str,
    options: &Options<'_>,
) -> Results {
    let (text, hard) = search::for_meaning(&ranked, query, Reading::Query);
    let Some(q) = vectors.query(&text) else {
        return Results::default();
    };
    let want = options.offset.saturating_add(options.limit);
    let (nearest, total) = nearest(ranked, vectors, &q, want, options, hard.as_ref());
    let hits = (nearest.into_iter().skip(options.offset))
        .map(|(slot, cos)| Ranked {
            score: cos,
            ..Ranked::found(EntityId::from_slot(slot), None, Some(cos))
        })
        .collect();
    Results { hits, total }
}

/// The entities best matching `query` in words (read as `reading` says) and meaning, fused
/// with lexical weight `weight` (see the module's docs).
pub fn hybrid(
    graph: &Graph,
    ranked: &SearchIndex,
    vectors: &VectorIndex,
    (query, reading): (&str, Reading),
    options: &Options<'_>,
    weight: f32,
) -> Results {
    let want = options.offset.saturating_add(options.limit);
    let depth = want.max(CANDIDATES);
    let lexical = reading.rank(
        graph,
        ranked,
        query,
        &Options {
            limit: depth,
            offset: 0,
            ..*options
        },
    );
    let (text, hard) = search::for_meaning(|| ranked, query, reading);
    let q = vectors.query(&text);
    let near = q.as_ref().map_or_else(Vec::new, |q| {
        nearest(|| ranked, vectors, q, depth, options, hard.as_ref()).0
    });
    let mut pool: Vec<Ranked> = (lexical.hits.iter())
        .map(|f| {
            let cosine = q.as_ref().and_then(|q| vectors.cosine(q, f.id.slot()));
            Ranked::found(f.id, Some(*f), cosine)
        })
        .collect();
    pool.sort_by_key(|r| r.id.slot());
    // Meaning adds a candidate the words did not find only when it is near enough.
    for (slot, cos) in near {
        if let Err(at) = pool.binary_search_by_key(&slot, |r| r.id.slot()) {
            pool.insert(
                at,
                Ranked::found(EntityId::from_slot(slot), None, Some(cos)),
            );
        }
    }
    // Each side scaled over what it found (the words: the hits; meaning: cosines over the
    // bar) to FLOOR..1, and 0 where it found nothing: a hit is never scored 0.
    let (lex_min, lex_span) = span(pool.iter().filter_map(|r| r.lexical).map(|f| f.score));
    let near_enough = |c: &f32| *c >= MEANING_BAR;
    let (cos_min, cos_span) = span(pool.iter().filter_map(|r| r.cosine).filter(near_enough));
    let floored = |x: f32| FLOOR + (1.0 - FLOOR) * x.clamp(0.0, 1.0);
    for r in &mut pool {
        r.lexical_scaled = r
            .lexical
            .map_or(0.0, |f| floored((f.score - lex_min) / lex_span));
        r.cosine_scaled =
            (r.cosine.filter(near_enough)).map_or(0.0, |c| floored((c - cos_min) / cos_span));
        r.score = weight * r.lexical_scaled + (1.0 - weight) * r.cosine_scaled;
    }
    let total = pool.len();
    pool.sort_by(|a, b| (b.score.total_cmp(&a.score)).then(a.id.slot().cmp(&b.id.slot())));
    pool.truncate(want);
    let hits = pool.into_iter().skip(options.offset).collect();
    Results { hits, total }
}

/// The `k` nearest slots at least [`MEANING_BAR`] near, of the type `options` asks for and
/// admitted by `hard`, and how many slots were ranked.
fn nearest<'i>(
    ranked: impl FnOnce() -> &'i SearchIndex,
    vectors: &VectorIndex,
    q: &Query,
    k: usize,
    options: &Options<'_>,
    hard: Option<&Constraint>,
) -> (Vec<(u32, f32)>, usize) {
    let admits = |slot: u32| hard.is_none_or(|h| h.admits(slot));
    match options.entity_type {
        None => vectors.nearest_above(q, k, MEANING_BAR, admits),
        Some(t) => {
            let typed = search::of_type(ranked(), t);
            vectors.nearest_above(q, k, MEANING_BAR, |slot| {
                typed.binary_search(&slot).is_ok() && admits(slot)
            })
        }
    }
}

/// The offset and divisor that scale `values` to 0..1: their least and their spread.
/// Values without spread (one candidate, or all alike) scale to 1 if positive, else to 0:
/// a sole hit is the best there is, and a side that found nothing adds nothing.
fn span(values: impl Iterator<Item = f32>) -> (f32, f32) {
    let (lo, hi) = values.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    if lo > hi {
        (0.0, 1.0) // no values
    } else if hi - lo > f32::EPSILON {
        (lo, hi - lo)
    } else if hi > 0.0 {
        (0.0, hi)
    } else {
        (lo, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::span;

    fn scaled(values: &[f32]) -> alloc::vec::Vec<f32> {
        let (lo, spread) = span(values.iter().copied());
        values.iter().map(|v| (v - lo) / spread).collect()
    }

    #[test]
    fn scores_scale_to_0_1_and_a_side_without_spread_to_1_or_0() {
        assert_eq!(scaled(&[0.25, 0.75, 0.5]), [0.0, 1.0, 0.5]);
        assert_eq!(scaled(&[0.35]), [1.0], "a sole hit is the best there is");
        assert_eq!(scaled(&[2.0, 2.0]), [1.0, 1.0]);
        assert_eq!(scaled(&[0.0, 0.0]), [0.0, 0.0], "words found nothing");
        assert_eq!(scaled(&[-0.1]), [0.0]);
        assert_eq!(span(core::iter::empty()), (0.0, 1.0));
    }
}
