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
//!
//! **Context.** Then each entity that shares a related entity, not a hub (at most
//! `MAX_FANOUT` relations, as graph expansion), with one of the `EXPANSION_SOURCES` best
//! candidates, no hub either, gets [`CONTEXT_SHARE`] of that candidate's fused score,
//! summed over them, if it satisfies the query's hard constraints: the other turns of a
//! conversation's session whose turns matched, the other facts of the meeting a fact
//! matched belongs to. The answer
//! to a question often does not repeat its words (the reply to the turn that does), and a
//! session several of whose turns matched is where the answer is. Measured on the same
//! conversations (all ten; the share chosen on the first five, judged on the last five):
//! Recall@10 0.632 without context, 0.663 at a share of 0.05, 0.672 at 0.1 (first half
//! 0.682, second 0.662), 0.666 at 0.15, 0.658 at 0.2; at 0.1 every kind of question finds
//! more than words alone (multi-hop 0.391 against 0.317, temporal 0.739 / 0.680,
//! open-domain 0.352 / 0.293, single-hop 0.774 / 0.704). On the generated set, 0.572 →
//! 0.578 (its paraphrases 0.188 → 0.175: one question of 80). Meaning alone gains nothing
//! from it (a cosine's spread is too narrow for a shared share; measured offline, it fell),
//! so the semantic mode has none; words alone would gain (0.604 → 0.645 offline at 0.1), but
//! lexical stays words only, as its name says.

use crate::hash::{HashMap, HashSet};
use alloc::vec::Vec;

use super::search::rerank::{EXPANSION_SOURCES, MAX_FANOUT, other_end};
use super::search::{self, Constraint, Found, Options, Reading, SearchIndex};
use super::vectors::VectorIndex;
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

/// The share of a strong candidate's fused score that each entity sharing a related entity
/// with it receives (see the module's docs).
pub const CONTEXT_SHARE: f32 = 0.1;

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
    /// What it received for sharing a related entity with the strongest candidates
    /// (hybrid only).
    pub context: Option<Context>,
}

/// The shares a candidate received as context of the strongest ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Context {
    /// The strongest candidate it shares a related entity with.
    pub from: EntityId,
    /// The entity both relate to.
    pub via: EntityId,
    /// The shares received, summed (part of the score).
    pub score: f32,
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
            context: None,
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
    let admits = admitting(ranked, options, hard.as_ref());
    let (nearest, total) = vectors.nearest_above(&q, want, MEANING_BAR, admits);
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
    let admits = admitting(|| ranked, options, hard.as_ref());
    let near = q.as_ref().map_or_else(Vec::new, |q| {
        vectors.nearest_above(q, depth, MEANING_BAR, &admits).0
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
    let cosine = |slot: u32| q.as_ref().and_then(|q| vectors.cosine(q, slot));
    context(graph, &mut pool, &admits, cosine);
    let total = pool.len();
    pool.sort_by(|a, b| (b.score.total_cmp(&a.score)).then(a.id.slot().cmp(&b.id.slot())));
    pool.truncate(want);
    let hits = pool.into_iter().skip(options.offset).collect();
    Results { hits, total }
}

/// Whether a ranking may return a slot: of the type `options` asks for (`ranked` gives the
/// index that knows types, asked only then) and admitted by `hard`.
fn admitting<'i, 'h>(
    ranked: impl FnOnce() -> &'i SearchIndex,
    options: &Options<'_>,
    hard: Option<&'h Constraint>,
) -> impl Fn(u32) -> bool + 'h {
    let typed = options.entity_type.map(|t| search::of_type(ranked(), t));
    move |slot| {
        typed
            .as_ref()
            .is_none_or(|t| t.binary_search(&slot).is_ok())
            && hard.is_none_or(|h| h.admits(slot))
    }
}

/// Context: each entity that shares a related entity, not a hub (at most [`MAX_FANOUT`]
/// relations), with one of the [`EXPANSION_SOURCES`] best candidates of `pool` (sorted by
/// slot on entry) that is no hub either gets [`CONTEXT_SHARE`] of that candidate's score,
/// summed over them, if `admits` its slot; one not in the pool joins it (`cosine`: its
/// cosine, for the explanation). Hubs spread nothing (as in graph expansion), so the work
/// is bounded: at most 32 × 32 entities reached from each candidate, whatever the graph.
fn context(
    graph: &Graph,
    pool: &mut Vec<Ranked>,
    admits: impl Fn(u32) -> bool,
    cosine: impl Fn(u32) -> Option<f32>,
) {
    let mut best: Vec<usize> = (0..pool.len()).collect();
    best.sort_by(|&a, &b| (pool[b].score.total_cmp(&pool[a].score)).then(a.cmp(&b)));
    let narrow = |id: EntityId| graph.degree(graph.entity(id).name) <= MAX_FANOUT;
    // Each entity's context: the first share names the strongest candidate it came from.
    let mut gains: HashMap<EntityId, Context> = HashMap::default();
    let mut reached: HashSet<EntityId> = HashSet::default();
    for &i in best.iter().take(EXPANSION_SOURCES) {
        let (from, score) = (pool[i].id, pool[i].score);
        if !narrow(from) {
            continue;
        }
        reached.clear();
        for via in related(graph, from).filter(|&via| via != from && narrow(via)) {
            for id in related(graph, via) {
                if id != from && id != via && admits(id.slot()) && reached.insert(id) {
                    let score = CONTEXT_SHARE * score;
                    let c = gains.entry(id).or_insert(Context {
                        from,
                        via,
                        score: 0.0,
                    });
                    c.score += score;
                }
            }
        }
    }
    let mut joined = Vec::new();
    for (id, gain) in gains {
        match pool.binary_search_by_key(&id.slot(), |r| r.id.slot()) {
            Ok(at) => {
                pool[at].score += gain.score;
                pool[at].context = Some(gain);
            }
            Err(_) => {
                let mut r = Ranked::found(id, None, cosine(id.slot()));
                r.score += gain.score;
                r.context = Some(gain);
                joined.push(r);
            }
        }
    }
    pool.extend(joined); // no longer by slot: the caller sorts by score next
}

/// The entities `id` has a relation with, either way (a relation to a name no entity has
/// leads nowhere).
fn related(graph: &Graph, id: EntityId) -> impl Iterator<Item = EntityId> + '_ {
    let name = graph.entity(id).name;
    (graph.relations_touching([name]).into_iter())
        .filter_map(move |rid| other_end(graph, name, rid))
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
