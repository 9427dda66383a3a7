//! Walks over relations: find_path, find_all_paths, extract_subgraph, get_neighbors, over
//! [`crate::capabilities::walk`] (a walk's nodes are names, so it passes through dangling
//! endpoints too).

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Direction, known, ok};
use crate::capabilities::walk::{
    self, Order, Steps, Types, all_paths_shortest_first, shortest_meeting,
};
use crate::graph::{EntityId, Graph, RelationId};
use crate::hash::HashSet;
use crate::intern::Sym;
use crate::model::{Entity, Relation};
use crate::tools::Ctx;
use crate::tools::args::count;
use crate::tools::parse;

/// The arguments of find_path and find_all_paths (their bounds are in their schemas).
#[derive(Deserialize)]
struct Ends<'a> {
    from: &'a str,
    to: &'a str,
    #[serde(rename = "maxDepth")]
    max_depth: Option<u64>,
    #[serde(rename = "maxPaths")]
    max_paths: Option<u64>,
}
/// The steps of this server's walks: relations either way, of every type, in creation
/// order.
fn either_way(graph: &Graph) -> Steps<'_> {
    Steps::new(graph, walk::Direction::Both, Types::All, Order::Created)
}

fn names<'g>(graph: &'g Graph, syms: &[Sym]) -> Vec<&'g str> {
    syms.iter().map(|&s| graph.text(s)).collect()
}

fn relations<'g>(graph: &'g Graph, ids: &[RelationId]) -> Vec<Relation<'g>> {
    ids.iter()
        .map(|&id| graph.relation_text(graph.relation(id)))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// find_path
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct PathResult<'a> {
    found: bool,
    path: Vec<&'a str>,
    relations: Vec<Relation<'a>>,
}

/// find_path: one shortest path between two names, relations followed either way.
pub fn find_path(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let graph = t.graph;
    let Ends {
        from,
        to,
        max_depth,
        ..
    } = parse(a)?;
    let max_depth = max_depth.map_or(6, count);
    let (s, t) = (known(graph, from)?, known(graph, to)?);
    let (path, rels) = shortest_meeting(&either_way(graph), s, t, max_depth).unwrap_or_default();
    ok(&PathResult {
        found: !path.is_empty(),
        path: names(graph, &path),
        relations: relations(graph, &rels),
    })
}

// ---------------------------------------------------------------------------------------------
// find_all_paths
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct PathJson<'a> {
    path: Vec<&'a str>,
    relations: Vec<Relation<'a>>,
}

#[derive(Serialize)]
struct AllPathsResult<'a> {
    paths: Vec<PathJson<'a>>,
    truncated: bool,
}

/// find_all_paths: simple paths between two names, shortest first, within the caps.
pub fn find_all_paths(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let graph = t.graph;
    let ends: Ends = parse(a)?;
    let (from, to) = (ends.from, ends.to);
    let max_depth = ends.max_depth.map_or(4, count);
    let max_paths = ends.max_paths.map_or(10, count);
    let (s, t) = (known(graph, from)?, known(graph, to)?);
    let found = all_paths_shortest_first(&either_way(graph), s, t, max_depth, max_paths);
    let paths = found
        .paths
        .iter()
        .map(|(path, rels)| PathJson {
            path: names(graph, path),
            relations: relations(graph, rels),
        })
        .collect();
    ok(&AllPathsResult {
        paths,
        truncated: found.truncated,
    })
}

// ---------------------------------------------------------------------------------------------
// extract_subgraph
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct Subgraph<'a> {
    entities: Vec<Entity<'a>>,
    relations: Vec<Relation<'a>>,
    truncated: bool,
}

#[derive(Deserialize)]
struct Seeds<'a> {
    #[serde(borrow)]
    names: Vec<&'a str>,
    depth: Option<u64>,
    #[serde(rename = "maxEntities")]
    max_entities: Option<u64>,
}

/// extract_subgraph: the names within `depth` of the seeds, their entities (oldest per name)
/// and the relations with both ends reached, in creation order.
pub fn extract_subgraph(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let graph = t.graph;
    let args: Seeds = parse(a)?;
    let depth = args.depth.map_or(1, count);
    let max = args.max_entities.map_or(1000, count);
    let seeds = args
        .names
        .into_iter()
        .map(|n| known(graph, n))
        .collect::<Result<Vec<Sym>, String>>()?;
    let mut reached: HashSet<Sym> = HashSet::default();
    let mut order: Vec<Sym> = Vec::new();
    let mut truncated = false;
    for s in seeds {
        if reached.contains(&s) {
            continue;
        }
        if order.len() == max {
            truncated = true;
            break;
        }
        reached.insert(s);
        order.push(s);
    }
    let mut frontier = order.clone();
    for _ in 0..depth {
        if truncated || frontier.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for &u in &frontier {
            either_way(graph).each(u, |_, w| {
                if truncated || reached.contains(&w) {
                    return;
                }
                if order.len() == max {
                    truncated = true;
                    return;
                }
                reached.insert(w);
                order.push(w);
                next.push(w);
            });
        }
        frontier = next;
    }
    let rels: Vec<RelationId> = graph
        .relations_touching(order.iter().copied())
        .into_iter()
        .filter(|&id| {
            let r = graph.relation(id);
            reached.contains(&r.from) && reached.contains(&r.to)
        })
        .collect();
    let mut ids: Vec<EntityId> = order
        .iter()
        .filter_map(|&s| graph.first_named(graph.text(s)))
        .collect();
    ids.sort_unstable();
    ok(&Subgraph {
        entities: ids
            .iter()
            .map(|&id| graph.entity_text(graph.entity(id)))
            .collect(),
        relations: relations(graph, &rels),
        truncated,
    })
}

// ---------------------------------------------------------------------------------------------
// get_neighbors
// ---------------------------------------------------------------------------------------------

#[derive(Serialize)]
struct Neighbor<'a> {
    name: &'a str,
    distance: usize,
    entity: Option<Entity<'a>>,
}

#[derive(Serialize)]
struct Neighbors<'a> {
    name: &'a str,
    neighbors: Vec<Neighbor<'a>>,
    relations: Vec<Relation<'a>>,
}

#[derive(Deserialize)]
struct Around<'a> {
    name: &'a str,
    #[serde(default)]
    direction: Direction,
    #[serde(rename = "relationType")]
    relation_type: Option<&'a str>,
    depth: Option<u64>,
}

/// get_neighbors: names within `depth` steps (nearest first, then in the order the walk met
/// them) and the relations it followed (creation order).
pub fn get_neighbors(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let graph = t.graph;
    let Around {
        name,
        direction,
        relation_type: kind,
        depth,
    } = parse(a)?;
    let depth = depth.map_or(1, count);
    let me = known(graph, name)?;
    let mut found: Vec<(Sym, usize)> = Vec::new();
    let mut rels: Vec<RelationId> = Vec::new();
    // The walk's type filter; no walk at all when the graph does not hold the type, as then
    // no relation matches and the walk goes nowhere.
    let types = match kind {
        None => Some(Types::All),
        Some(k) => graph.strings().lookup(k).map(Types::Exactly),
    };
    if let Some(types) = types {
        let steps = Steps::new(graph, direction.into(), types, Order::Created);
        let mut seen: HashSet<Sym> = HashSet::default();
        seen.insert(me);
        let mut frontier = vec![me];
        for d in 1..=depth {
            let mut next = Vec::new();
            for &u in &frontier {
                steps.each(u, |rel, w| {
                    rels.push(rel);
                    if seen.insert(w) {
                        next.push(w);
                        found.push((w, d));
                    }
                });
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
    }
    rels.sort_unstable();
    rels.dedup();
    let neighbors = found
        .iter()
        .map(|&(s, distance)| {
            let n = graph.text(s);
            Neighbor {
                name: n,
                distance,
                entity: graph
                    .first_named(n)
                    .map(|id| graph.entity_text(graph.entity(id))),
            }
        })
        .collect();
    ok(&Neighbors {
        name,
        neighbors,
        relations: relations(graph, &rels),
    })
}
