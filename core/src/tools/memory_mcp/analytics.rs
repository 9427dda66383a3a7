//! The TypeScript seed's analytics, in its argument and result shapes: `get_graph_stats`,
//! `find_shortest_path`, `get_connected_components`, `get_centrality`.
//!
//! Where it is loose this server is not: relations to names no entity has are left out of
//! components and centrality (the seed folds such names into components and lets PageRank
//! leak through them, to `null` scores), and betweenness on a large graph samples its
//! sources (every k-th entity, the same in every host) instead of running for minutes.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{RelationJson, answer};
use crate::capabilities::algorithms::{Adjacency, BETWEENNESS_BUDGET};
use crate::capabilities::walk::{
    Direction, Order, Steps, Types, all_paths_depth_first, shortest_first_found,
};
use crate::graph::Graph;
use crate::hash::HashMap;
use crate::intern::Sym;
use crate::model::Millis;
use crate::time::iso_known;
use crate::tools::Ctx;
use crate::tools::output;
use crate::tools::parse;

/// A count by name, in first-seen order.
struct Counts<'a>(Vec<(&'a str, usize)>);

impl Serialize for Counts<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Counts `keys` in first-seen order.
fn counted<'g>(g: &'g Graph, keys: impl Iterator<Item = Sym>) -> Counts<'g> {
    let mut at: HashMap<Sym, usize> = HashMap::default();
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for k in keys {
        let i = *at.entry(k).or_insert_with(|| {
            counts.push((g.text(k), 0));
            counts.len() - 1
        });
        counts[i].1 += 1;
    }
    Counts(counts)
}

#[derive(Serialize)]
struct Dated<'a> {
    name: &'a str,
    date: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DatedRelation<'a> {
    from: &'a str,
    to: &'a str,
    relation_type: &'a str,
    date: String,
}

#[derive(Serialize)]
struct Range {
    earliest: String,
    latest: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Stats<'a> {
    total_entities: usize,
    total_relations: usize,
    entity_types_counts: Counts<'a>,
    relation_types_counts: Counts<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    oldest_entity: Option<Dated<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    newest_entity: Option<Dated<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    oldest_relation: Option<DatedRelation<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    newest_relation: Option<DatedRelation<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entity_date_range: Option<Range>,
    #[serde(skip_serializing_if = "Option::is_none")]
    relation_date_range: Option<Range>,
}

/// The first oldest and first newest of `items` by their known times (`0`: not known),
/// and the range of those times; `None` when no time is known.
fn extremes<T: Copy>(items: impl Iterator<Item = (T, Millis)>) -> Option<(T, T, Range)> {
    let mut found: Option<(T, Millis, T, Millis)> = None;
    for (item, at) in items.filter(|&(_, at)| at != 0) {
        found = Some(match found {
            None => (item, at, item, at),
            Some((o, oa, n, na)) => {
                let (o, oa) = if at < oa { (item, at) } else { (o, oa) };
                let (n, na) = if at > na { (item, at) } else { (n, na) };
                (o, oa, n, na)
            }
        });
    }
    let (oldest, earliest, newest, latest) = found?;
    let iso = |at| iso_known(at).unwrap_or_default();
    let range = Range {
        earliest: iso(earliest),
        latest: iso(latest),
    };
    Some((oldest, newest, range))
}

/// `get_graph_stats`: counts, counts by type, and the oldest and newest entity and relation
/// (by the time each was created, where known).
pub fn get_graph_stats(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    let g = t.graph;
    let entities = extremes(g.entities().map(|(_, e)| (e, e.created)));
    let relations = extremes(g.relations().map(|(_, r)| (r, r.created)));
    let entity = |e: &crate::graph::Entity| Dated {
        name: g.text(e.name),
        date: iso_known(e.created).unwrap_or_default(),
    };
    let relation = |r: &crate::graph::Relation| DatedRelation {
        from: g.text(r.from),
        to: g.text(r.to),
        relation_type: g.text(r.relation_type),
        date: iso_known(r.created).unwrap_or_default(),
    };
    let (oldest_entity, newest_entity, entity_date_range) = match entities {
        Some((o, n, range)) => (Some(entity(o)), Some(entity(n)), Some(range)),
        None => (None, None, None),
    };
    let (oldest_relation, newest_relation, relation_date_range) = match relations {
        Some((o, n, range)) => (Some(relation(o)), Some(relation(n)), Some(range)),
        None => (None, None, None),
    };
    Ok(answer(&Stats {
        total_entities: g.entity_count(),
        total_relations: g.relation_count(),
        entity_types_counts: counted(g, g.entities().map(|(_, e)| e.entity_type)),
        relation_types_counts: counted(g, g.relations().map(|(_, r)| r.relation_type)),
        oldest_entity,
        newest_entity,
        oldest_relation,
        newest_relation,
        entity_date_range,
        relation_date_range,
    }))
}

/// Which way a walk follows relations, in the seed's words.
#[derive(Deserialize, Clone, Copy, PartialEq, Default)]
#[serde(rename_all = "lowercase")]
enum Way {
    Outgoing,
    Incoming,
    #[default]
    Both,
}

/// `find_shortest_path`: a breadth-first walk from `source` (outgoing relations first,
/// then incoming, each in creation order; of `relationTypes` only, case-insensitive);
/// the path, its length and the relations along it, or the seed's words when there is
/// none.
pub fn find_shortest_path(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        source: &'a str,
        target: &'a str,
        #[serde(default)]
        direction: Way,
        #[serde(borrow, default)]
        relation_types: Vec<&'a str>,
    }
    #[derive(Serialize)]
    struct Path<'a> {
        path: Vec<&'a str>,
        length: usize,
        relations: Vec<RelationJson<'a>>,
    }
    let args = parse::<Args>(a)?;
    let g = t.graph;
    let none = || {
        let words = alloc::format!(
            "No path found between \"{}\" and \"{}\"",
            args.source,
            args.target
        );
        output::success(
            &words,
            &Path {
                path: Vec::new(),
                length: 0,
                relations: Vec::new(),
            },
        )
    };
    let (Some(s), Some(target)) = (g.first_named(args.source), g.first_named(args.target)) else {
        return Ok(none());
    };
    let (s, target) = (g.entity(s).name, g.entity(target).name);
    let steps = seed_steps(g, args.direction, &args.relation_types);
    let Some((path, ids)) = shortest_first_found(&steps, s, target) else {
        return Ok(none());
    };
    let path: Vec<&str> = path.iter().map(|&n| g.text(n)).collect();
    let relations: Vec<RelationJson<'_>> = ids
        .iter()
        .map(|&id| RelationJson::of(g, g.relation(id), false))
        .collect();
    Ok(answer(&Path {
        length: relations.len(),
        path,
        relations,
    }))
}

/// The seed's walks: the steps of `types` (all when none are given; case-insensitive) in
/// `way`, outgoing first then incoming, loops left out.
fn seed_steps<'g>(g: &'g Graph, way: Way, types: &[&str]) -> Steps<'g> {
    let direction = match way {
        Way::Outgoing => Direction::Out,
        Way::Incoming => Direction::In,
        Way::Both => Direction::Both,
    };
    let types = if types.is_empty() {
        Types::All
    } else {
        Types::AnyOf(types.iter().map(|t| t.to_lowercase()).collect())
    };
    Steps::new(g, direction, types, Order::OutgoingFirst)
}

/// `find_all_paths` in the TypeScript seed's shape: every simple path from `source` to
/// `target` of at most `maxDepth` relations, depth first (the steps in [`Steps`] order),
/// each with the relations along it.
pub fn find_all_paths(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        source: &'a str,
        target: &'a str,
        #[serde(default = "five")]
        max_depth: usize,
        #[serde(default)]
        direction: Way,
        #[serde(borrow, default)]
        relation_types: Vec<&'a str>,
    }
    fn five() -> usize {
        5
    }
    #[derive(Serialize)]
    struct Path<'a> {
        path: Vec<&'a str>,
        length: usize,
        relations: Vec<RelationJson<'a>>,
    }
    #[derive(Serialize)]
    struct Paths<'a> {
        paths: Vec<Path<'a>>,
        count: usize,
        truncated: bool,
    }
    let args = parse::<Args>(a)?;
    let g = t.graph;
    let (Some(s), Some(target)) = (g.first_named(args.source), g.first_named(args.target)) else {
        return Ok(answer(&Paths {
            paths: Vec::new(),
            count: 0,
            truncated: false,
        }));
    };
    let (s, target) = (g.entity(s).name, g.entity(target).name);
    let steps = seed_steps(g, args.direction, &args.relation_types);
    let found = all_paths_depth_first(&steps, s, target, args.max_depth);
    let paths: Vec<Path<'_>> = found
        .paths
        .iter()
        .map(|(names, ids)| Path {
            path: names.iter().map(|&n| g.text(n)).collect(),
            length: ids.len(),
            relations: ids
                .iter()
                .map(|&id| RelationJson::of(g, g.relation(id), false))
                .collect(),
        })
        .collect();
    Ok(answer(&Paths {
        count: paths.len(),
        truncated: found.truncated,
        paths,
    }))
}

/// `get_connected_components`: the entities in groups connected by relations (either
/// way), largest first.
pub fn get_connected_components(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Components<'a> {
        components: Vec<Vec<&'a str>>,
        count: usize,
        largest_component_size: usize,
    }
    let g = t.graph;
    let adj = Adjacency::of(g);
    let components: Vec<Vec<&str>> = adj
        .components()
        .into_iter()
        .map(|c| {
            c.into_iter()
                .map(|v| g.text(g.entity(adj.ids[v]).name))
                .collect()
        })
        .collect();
    Ok(answer(&Components {
        count: components.len(),
        largest_component_size: components.first().map_or(0, Vec::len),
        components,
    }))
}

/// Which centrality `get_centrality` computes.
#[derive(Deserialize, Clone, Copy, PartialEq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
enum Algorithm {
    #[default]
    Degree,
    Betweenness,
    Pagerank,
}

/// Which relations degree counts.
#[derive(Deserialize, Clone, Copy, PartialEq, Default)]
#[serde(rename_all = "lowercase")]
enum Side {
    In,
    Out,
    #[default]
    Both,
}

/// `get_centrality`: the `topN` entities by degree (relations over `n - 1`), betweenness
/// or PageRank, best first (ties in graph order).
pub fn get_centrality(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args {
        #[serde(default)]
        algorithm: Algorithm,
        #[serde(default)]
        direction: Side,
        top_n: Option<u64>,
        damping_factor: Option<f64>,
        #[serde(default)]
        approximate: bool,
        sample_rate: Option<f64>,
    }
    #[derive(Serialize)]
    struct Scored<'a> {
        name: &'a str,
        /// Always a number (printed as JavaScript prints it).
        #[serde(serialize_with = "crate::json::js_number")]
        score: Option<f64>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Centrality<'a> {
        algorithm: Algorithm,
        top_entities: Vec<Scored<'a>>,
        total_entities: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        approximate: Option<bool>,
        /// How many sources betweenness walked from, when fewer than all.
        #[serde(skip_serializing_if = "Option::is_none")]
        sampled_sources: Option<usize>,
    }
    let args = parse::<Args>(a)?;
    let g = t.graph;
    let adj = Adjacency::of(g);
    let n = adj.node_count();
    let (mut approximate, mut sampled_sources) = (None, None);
    let scores: Vec<f64> = match args.algorithm {
        Algorithm::Degree => (0..n)
            .map(|v| {
                let (out, inn) = adj.degree(v);
                let degree = match args.direction {
                    Side::In => inn,
                    Side::Out => out,
                    Side::Both => out + inn,
                };
                if n > 1 {
                    degree as f64 / (n - 1) as f64
                } else {
                    0.0
                }
            })
            .collect(),
        Algorithm::Betweenness => {
            let rate = if args.approximate {
                args.sample_rate.unwrap_or(0.2)
            } else {
                1.0
            };
            let wanted = ((n as f64 * rate) as usize).max(10.min(n));
            let steps_per_source = 2 * 2 * adj.edge_count() + n;
            let affordable = (BETWEENNESS_BUDGET / steps_per_source.max(1)).max(1);
            let (scores, used) = adj.betweenness(wanted.min(affordable));
            if used < n {
                approximate = Some(true);
                sampled_sources = Some(used);
            }
            scores
        }
        Algorithm::Pagerank => adj.pagerank(args.damping_factor.unwrap_or(0.85), 100, 1e-6),
    };
    let mut ranked: Vec<usize> = (0..n).collect();
    ranked.sort_by(|&x, &y| scores[y].total_cmp(&scores[x]));
    let top = args.top_n.map_or(10, |k| k as usize);
    Ok(answer(&Centrality {
        algorithm: args.algorithm,
        top_entities: ranked
            .into_iter()
            .take(top)
            .map(|v| Scored {
                name: g.text(g.entity(adj.ids[v]).name),
                score: Some(scores[v]),
            })
            .collect(),
        total_entities: n,
        approximate,
        sampled_sources,
    }))
}
