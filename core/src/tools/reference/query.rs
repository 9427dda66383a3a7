//! Read-only tools: read_graph, search_nodes and open_nodes (bounded by a [`View`] when the
//! client passes one).

use alloc::string::String;
use alloc::vec::Vec;
use serde_json::Value;

use super::view::{self, View};
use crate::graph::{EntityId, Graph, RelationId};
use crate::hash::HashSet;
use crate::index::Indexes;
use crate::index::hybrid::{self, LEXICAL_WEIGHT};
use crate::index::search::{self, Options, Reading};
use crate::index::substring::Needle;
use crate::tools::Answer;
use crate::tools::Ctx;
use crate::tools::args::{OpenNodes, SearchNodes, count};
use crate::tools::output::GraphText;
use crate::tools::parse;

fn everything(graph: &Graph) -> (Vec<EntityId>, Vec<RelationId>) {
    (
        graph.entities().map(|(id, _)| id).collect(),
        graph.relations().map(|(id, _)| id).collect(),
    )
}

/// read_graph: every entity, then every relation, in insertion order.
pub fn read_graph(t: Ctx<'_>, a: &Value) -> Result<Answer, String> {
    let bounds: View = parse(a)?;
    let graph = t.graph;
    let (entities, relations) = everything(graph);
    if bounds.is_plain() {
        return Ok(Answer::Graph(GraphText::new(entities, relations, true)));
    }
    view::page(graph, &entities, &bounds).map(Answer::Text)
}

/// The text read_graph returns (and `memory://knowledge-graph` holds), to be written as
/// the body of a JSON string.
pub fn read_graph_text(graph: &Graph) -> GraphText {
    let (entities, relations) = everything(graph);
    GraphText::new(entities, relations, false)
}

/// Entities and the relations touching their names, as a tool result.
fn subgraph(graph: &Graph, entities: Vec<EntityId>, bounds: &View<'_>) -> Result<Answer, String> {
    if !bounds.is_plain() {
        return view::page(graph, &entities, bounds).map(Answer::Text);
    }
    let names = entities.iter().map(|&id| graph.entity(id).name);
    let relations = graph.relations_touching(names);
    Ok(Answer::Graph(GraphText::new(entities, relations, true)))
}

/// Ranked matches `search_nodes` adds when the call gives no `limit`.
pub const QUESTION_HITS: usize = 20;

/// search_nodes: first the reference's set — entities whose name, type or an observation
/// contains the query, compared after JavaScript's `toLowerCase` (not case folding), found
/// through the trigram index — ordered by relevance (`search::rank`: best first, ties and
/// matches inside words in graph order; the empty query matches everything). Then, when the
/// query has several words or that set is smaller than the limit (`limit`, else
/// [`QUESTION_HITS`]), up to that many of the best ranked matches not already in it: a
/// question asked in words finds what a substring never would. A query of several words
/// is ranked by words and meaning (`hybrid`) when the memory has an embedding table, so a
/// paraphrase finds its answer; one word by words alone (`search::question`), as the
/// nearest meaning of a name or a typo is rarely what it looks for.
pub fn search_nodes(t: Ctx<'_>, a: &Value) -> Result<Answer, String> {
    let (query, bounds): (SearchNodes, View) = (parse(a)?, parse(a)?);
    let (graph, query) = (t.graph, query.query);
    let found = reference_matches(graph, t.indexes, query);
    let index = t.indexes.ranked(graph);
    let mut ranked = search::rank(index, &found, query);
    let limit = bounds.limit.map_or(QUESTION_HITS, count);
    let several = search::has_several_words(query);
    if several || ranked.len() < limit {
        let options = Options {
            limit: limit.min(MAX_QUESTION_HITS),
            ..Options::default()
        };
        let vectors = several.then(|| t.indexes.vectors(graph).ok()).flatten();
        let more: Vec<EntityId> = match vectors {
            Some(v) => (hybrid::hybrid(
                graph,
                index,
                v,
                (query, Reading::Question),
                &options,
                LEXICAL_WEIGHT,
            )
            .hits)
                .iter()
                .map(|r| r.id)
                .collect(),
            None => (search::question(graph, index, query, &options).hits)
                .iter()
                .map(|f| f.id)
                .collect(),
        };
        let known: HashSet<EntityId> = found.iter().copied().collect();
        ranked.extend(more.into_iter().filter(|id| !known.contains(id)));
    }
    subgraph(graph, ranked, &bounds)
}

/// The reference's search_nodes set, in graph order: entities whose name, type or an
/// observation contains `query` after JavaScript's `toLowerCase` of both.
pub fn reference_matches(graph: &Graph, indexes: &Indexes, query: &str) -> Vec<EntityId> {
    let needle = query.to_lowercase();
    let matcher = Needle::new(&needle);
    let s = graph.strings();
    let hit = |text| matcher.found_in(text);
    let matches = |e: &crate::graph::Entity| {
        hit(s.lower(e.name))
            || hit(s.lower(e.entity_type))
            || e.observations.iter().any(|&o| hit(s.lower(o)))
    };
    match indexes.substring_candidates(graph, &needle) {
        Some(candidates) => candidates
            .into_iter()
            .filter(|&id| matches(graph.entity(id)))
            .collect(),
        None => graph
            .entities()
            .filter(|(_, e)| matches(e))
            .map(|(id, _)| id)
            .collect(),
    }
}

/// Most ranked matches `search_nodes` adds, whatever its `limit`.
const MAX_QUESTION_HITS: usize = 100;

/// open_nodes: the entities with these exact names, in graph order, and every relation
/// starting or ending at one of them.
pub fn open_nodes(t: Ctx<'_>, a: &Value) -> Result<Answer, String> {
    let (names, bounds): (OpenNodes, View) = (parse(a)?, parse(a)?);
    let graph = t.graph;
    let mut found: Vec<EntityId> = names
        .names
        .iter()
        .flat_map(|n| graph.named(n).iter().copied())
        .collect();
    found.sort_unstable();
    found.dedup();
    subgraph(graph, found, &bounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entity, Observations};
    use crate::record::{self, Record};
    use alloc::string::String;
    use alloc::vec;
    use proptest::prelude::*;

    /// Names of the entities search_nodes' substring match finds, sorted.
    fn found(graph: &Graph, indexes: &Indexes, query: &str) -> Vec<String> {
        reference_matches(graph, indexes, query)
            .into_iter()
            .map(|id| graph.text(graph.entity(id).name).into())
            .sorted()
    }

    /// What a scan of every field finds (the reference's definition), sorted: search_nodes
    /// orders its answer by relevance, so the two are compared as sets.
    fn scanned(graph: &Graph, query: &str) -> Vec<String> {
        let q = query.to_lowercase();
        graph
            .entities()
            .filter(|(_, e)| (e.fields()).any(|f| graph.text(f).to_lowercase().contains(&q)))
            .map(|(_, e)| graph.text(e.name).into())
            .sorted()
    }

    /// Collects into a sorted `Vec`.
    trait Sorted: Iterator<Item = String> + Sized {
        fn sorted(self) -> Vec<String> {
            let mut v: Vec<String> = self.collect();
            v.sort();
            v
        }
    }
    impl<I: Iterator<Item = String>> Sorted for I {}

    fn text() -> impl Strategy<Value = String> {
        "[abAB Σσς]{0,7}"
    }

    #[derive(Debug, Clone)]
    enum Op {
        Create(String, String, Vec<String>),
        Add(usize, Vec<String>),
        DeleteObs(usize, Vec<String>),
        Delete(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (text(), text(), prop::collection::vec(text(), 0..3))
                .prop_map(|(n, t, o)| Op::Create(n, t, o)),
            (0..8usize, prop::collection::vec(text(), 1..3)).prop_map(|(i, o)| Op::Add(i, o)),
            (0..8usize, prop::collection::vec(text(), 1..3)).prop_map(|(i, o)| Op::DeleteObs(i, o)),
            (0..8usize).prop_map(Op::Delete),
        ]
    }

    proptest! {
        /// The trigram index never loses a match, whatever the mutation history, whether it
        /// was built early (by a search after the first change) or late, and kept up since.
        #[test]
        fn indexed_search_finds_what_a_scan_finds(ops in prop::collection::vec(op(), 1..40), queries in prop::collection::vec(text(), 1..6), early in 0..40usize) {
            let (mut g, mut ix) = (Graph::default(), Indexes::default());
            for (step, op) in ops.iter().enumerate() {
                if step == early {
                    prop_assert_eq!(found(&g, &ix, &queries[0]), scanned(&g, &queries[0]));
                }
                let names: Vec<String> = g.entities().map(|(_, e)| String::from(g.text(e.name))).collect();
                let pick = |i: &usize| names.get(i % names.len().max(1)).cloned().unwrap_or_default();
                let record = match op {
                    Op::Create(n, t, o) => Record::from(record::Op::CreateEntities(vec![Entity {
                        name: n, entity_type: t, observations: o.iter().map(String::as_str).collect() }])),
                    Op::Add(i, o) => { let n = pick(i); g.apply(&Record::from(record::Op::AddObservations(vec![Observations {
                        entity: &n, contents: o.iter().map(String::as_str).collect() }])), &mut ix); continue; }
                    Op::DeleteObs(i, o) => { let n = pick(i); g.apply(&Record::from(record::Op::DeleteObservations(vec![Observations {
                        entity: &n, contents: o.iter().map(String::as_str).collect() }])), &mut ix); continue; }
                    Op::Delete(i) => { let n = pick(i); g.apply(&Record::from(record::Op::DeleteEntities(vec![&n])), &mut ix); continue; }
                };
                g.apply(&record, &mut ix);
            }
            for q in &queries {
                prop_assert_eq!(found(&g, &ix, q), scanned(&g, q), "query {:?}", q);
            }
        }
    }
}
