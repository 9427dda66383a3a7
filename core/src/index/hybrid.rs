//! Ranking by meaning ([`Mode::Semantic`]) and by words and meaning together
//! ([`Mode::Hybrid`]), over the ranked index ([`super::search`]) and the entities' vectors
//! ([`super::vectors`]).
//!
//! Hybrid ranking fuses scores, not ranks: the best [`CANDIDATES`] of each side (more when
//! a page reaches further) are pooled; over the pool, the lexical score (0 for a candidate
//! the words did not find) and the cosine are each scaled to 0..1 (min-max), and the fused
//! score is `weight × lexical + (1 − weight) × cosine`. On the relevance bench
//! (`core/benches/relevance.rs`) a lexical weight of [`LEXICAL_WEIGHT`] found the most
//! (Recall@10 0.469 → 0.617 at 4K entities, 0.194 → 0.350 at 40K, no question category
//! worse); reciprocal-rank fusion, measured elsewhere on conversations, did worse than
//! BM25 alone.

use alloc::vec::Vec;

use super::search::{self, Found, Options, Reading, SearchIndex};
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
pub const LEXICAL_WEIGHT: f32 = 0.3;

/// Candidates each side brings to a hybrid ranking, at least.
pub const CANDIDATES: usize = 100;

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
    /// How many entities were ranked in all (semantic: every entity with a vector of the
    /// type asked; hybrid: the pool).
    pub total: usize,
}

/// The entities nearest to `query` in meaning (none when no word of it has a vector).
/// `ranked` gives the ranked index, needed only to filter by type.
pub fn semantic<'i>(
    ranked: impl FnOnce() -> &'i SearchIndex,
    vectors: &VectorIndex,
    query: &str,
    options: &Options<'_>,
) -> Results {
    let Some(q) = vectors.query(query) else {
        return Results::default();
    };
    let want = options.offset.saturating_add(options.limit);
    let (nearest, total) = nearest(ranked, vectors, &q, want, options);
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
    let q = vectors.query(query);
    let near = q.as_ref().map_or_else(Vec::new, |q| {
        nearest(|| ranked, vectors, q, depth, options).0
    });
    let mut pool: Vec<Ranked> = (lexical.hits.iter())
        .map(|f| {
            let cosine = q.as_ref().and_then(|q| vectors.cosine(q, f.id.slot()));
            Ranked::found(f.id, Some(*f), cosine)
        })
        .collect();
    pool.sort_by_key(|r| r.id.slot());
    for (slot, cos) in near {
        if let Err(at) = pool.binary_search_by_key(&slot, |r| r.id.slot()) {
            pool.insert(
                at,
                Ranked::found(EntityId::from_slot(slot), None, Some(cos)),
            );
        }
    }
    let lexical_of = |r: &Ranked| r.lexical.map_or(0.0, |f| f.score);
    let (lex_min, lex_span) = span(pool.iter().map(lexical_of));
    let (cos_min, cos_span) = span(pool.iter().filter_map(|r| r.cosine));
    for r in &mut pool {
        r.lexical_scaled = (lexical_of(r) - lex_min) / lex_span;
        r.cosine_scaled = r.cosine.map_or(0.0, |c| (c - cos_min) / cos_span);
        r.score = weight * r.lexical_scaled + (1.0 - weight) * r.cosine_scaled;
    }
    let total = pool.len();
    pool.sort_by(|a, b| (b.score.total_cmp(&a.score)).then(a.id.slot().cmp(&b.id.slot())));
    pool.truncate(want);
    let hits = pool.into_iter().skip(options.offset).collect();
    Results { hits, total }
}

/// The `k` nearest slots of the type `options` asks for, and how many slots were ranked.
fn nearest<'i>(
    ranked: impl FnOnce() -> &'i SearchIndex,
    vectors: &VectorIndex,
    q: &Query,
    k: usize,
    options: &Options<'_>,
) -> (Vec<(u32, f32)>, usize) {
    match options.entity_type {
        None => vectors.nearest(q, k, |_| true),
        Some(t) => {
            let typed = search::of_type(ranked(), t);
            vectors.nearest(q, k, |slot| typed.binary_search(&slot).is_ok())
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
