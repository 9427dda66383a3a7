//! The second stage of a ranked search: the best hits of the first (BM25) stage are looked
//! at again, as a reader would.
//!
//! - **Proximity**: a hit whose name or one observation holds several of the query's words
//!   close together (within [`WINDOW`] tokens) is boosted by up to [`PROXIMITY_BOOST`]: the
//!   answer to "what did Caroline say about the adoption agency" says those words in one
//!   sentence, a decoy spreads them over several.
//! - **Graph expansion** (on request): an entity related to one of the strongest hits gets
//!   [`EXPANSION_SHARE`] of that hit's score (the best such share), so the entity a fact is
//!   about surfaces with the fact. Hubs (more than [`MAX_FANOUT`] relations) spread nothing.
//!
//! Only a pool of the best first-stage hits is reranked (a few times the page), so the
//! cost does not grow with the number of matches.

use alloc::string::String;
use alloc::vec::Vec;

use super::text;
use crate::graph::{EntityId, Graph, RelationId};
use crate::intern::Sym;

/// Tokens within which query words count as close.
pub const WINDOW: usize = 8;
/// Largest proximity multiplier minus one: all query words within one window.
pub const PROXIMITY_BOOST: f32 = 0.25;
/// Share of a hit's score a related entity receives by graph expansion.
pub const EXPANSION_SHARE: f32 = 0.3;
/// Hits whose relations are followed by graph expansion.
pub const EXPANSION_SOURCES: usize = 10;
/// An entity with more relations than this is a hub: expansion does not follow it.
pub const MAX_FANOUT: usize = 32;

/// Why a hit scores what it does, beyond BM25.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Boost {
    /// The proximity multiplier (1 when no two query words are close).
    pub proximity: f32,
    /// The entity this hit's expansion share came from, the relation's id, and the share.
    pub expanded_from: Option<(EntityId, RelationId, f32)>,
}

/// The proximity multiplier of an entity for these query terms (folded; a text token
/// matches a term it equals or, for terms of two characters or more, begins with).
pub fn proximity(graph: &Graph, id: EntityId, terms: &[String]) -> f32 {
    if terms.len() < 2 {
        return 1.0;
    }
    let e = graph.entity(id);
    let fields = core::iter::once(e.name).chain(e.observations.iter().copied());
    let mut best = 0usize;
    let mut buf = String::new();
    for sym in fields {
        // Per token position, which query term it matches (if any).
        let mut seen: Vec<(usize, usize)> = Vec::new();
        let mut at = 0;
        text::tokens(graph.text(sym), &mut buf, &mut |t| {
            if let Some(k) = terms
                .iter()
                .position(|q| t == q || (q.len() >= 2 && t.starts_with(q.as_str())))
            {
                seen.push((at, k));
            }
            at += 1;
        });
        best = best.max(most_in_window(&seen, terms.len()));
    }
    if best < 2 {
        return 1.0;
    }
    1.0 + PROXIMITY_BOOST * (best - 1) as f32 / (terms.len() - 1) as f32
}

/// The most distinct terms among `seen` (position, term) within any window of [`WINDOW`].
fn most_in_window(seen: &[(usize, usize)], terms: usize) -> usize {
    let mut best = 0;
    let mut counts = alloc::vec![0u32; terms];
    let (mut distinct, mut start) = (0, 0);
    for &(pos, k) in seen {
        counts[k] += 1;
        distinct += usize::from(counts[k] == 1);
        while pos - seen[start].0 >= WINDOW {
            let gone = seen[start].1;
            counts[gone] -= 1;
            distinct -= usize::from(counts[gone] == 0);
            start += 1;
        }
        best = best.max(distinct);
    }
    best
}

/// Scored candidates (best first not required), reranked in place: proximity for all, then,
/// with `expand`, expansion from the strongest. Returns each candidate's boost, in the
/// order of `scored` (entities added by expansion at the end).
pub fn rerank(
    graph: &Graph,
    scored: &mut Vec<(EntityId, f32)>,
    terms: &[String],
    expand: bool,
) -> Vec<Boost> {
    let mut boosts: Vec<Boost> = scored
        .iter_mut()
        .map(|(id, score)| {
            let proximity = proximity(graph, *id, terms);
            *score *= proximity;
            Boost {
                proximity,
                expanded_from: None,
            }
        })
        .collect();
    if !expand {
        return boosts;
    }
    let mut order: Vec<usize> = (0..scored.len()).collect();
    order.sort_by(|&a, &b| scored[b].1.total_cmp(&scored[a].1).then(a.cmp(&b)));
    let mut gains: Vec<(EntityId, f32, (EntityId, RelationId))> = Vec::new();
    for &i in order.iter().take(EXPANSION_SOURCES) {
        let (source, score) = scored[i];
        let name = graph.entity(source).name;
        let touching = graph.relations_touching([name]);
        if touching.len() > MAX_FANOUT {
            continue;
        }
        for rid in touching {
            let Some(target) = other_end(graph, name, rid) else {
                continue; // a relation to a name no entity has
            };
            if target != source {
                gains.push((target, EXPANSION_SHARE * score, (source, rid)));
            }
        }
    }
    for (target, gain, (source, rid)) in gains {
        let at = match scored.iter().position(|(id, _)| *id == target) {
            Some(at) => at,
            None => {
                scored.push((target, 0.0));
                boosts.push(Boost {
                    proximity: 1.0,
                    expanded_from: None,
                });
                scored.len() - 1
            }
        };
        let best = boosts[at].expanded_from.map_or(0.0, |(_, _, g)| g);
        if gain > best {
            scored[at].1 += gain - best;
            boosts[at].expanded_from = Some((source, rid, gain));
        }
    }
    boosts
}

/// The entity at the other end of relation `rid` from the one named `name` (`None`: no
/// entity has that name).
pub fn other_end(graph: &Graph, name: Sym, rid: RelationId) -> Option<EntityId> {
    let r = graph.relation(rid);
    let other = if r.from == name { r.to } else { r.from };
    graph.first_named(graph.text(other))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_counts_distinct_terms_close_together() {
        // Terms 0 and 1 at positions 0 and 3, term 2 far away at 20.
        assert_eq!(most_in_window(&[(0, 0), (3, 1), (20, 2)], 3), 2);
        assert_eq!(most_in_window(&[(0, 0), (1, 0), (2, 0)], 3), 1);
        assert_eq!(most_in_window(&[(0, 0), (7, 1), (8, 2)], 3), 2);
        assert_eq!(most_in_window(&[(5, 2), (6, 0), (9, 1)], 3), 3);
        assert_eq!(most_in_window(&[], 3), 0);
    }
}
