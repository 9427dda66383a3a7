//! Walks over relations: find_path, find_all_paths, extract_subgraph, get_neighbors.
//!
//! A walk's nodes are names ([`Sym`]s), so it passes through dangling endpoints too. Every
//! step reads the endpoint index ([`Graph::relations_touching`] of one name), never a scan of
//! all relations.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::iter;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Direction, known, ok};
use crate::graph::{EntityId, Graph, RelationId};
use crate::hash::{HashMap, HashSet};
use crate::intern::Sym;
use crate::model::{Entity, Relation};
use crate::tools::args::count;
use crate::tools::{Ctx, parse};

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
/// Steps find_all_paths may take before it gives up (and says it was truncated): bounds the
/// search on dense graphs, where simple paths are exponentially many.
const ALL_PATHS_BUDGET: usize = 200_000;

/// Calls `f(relation, other end)` for each relation at `at` that a walk in `direction` may
/// follow (of type `kind`, if given), in creation order. A relation from `at` to itself is
/// passed once per direction it may be followed in.
fn each_step(
    graph: &Graph,
    at: Sym,
    direction: Direction,
    kind: Option<Sym>,
    mut f: impl FnMut(RelationId, Sym),
) {
    for id in graph.relations_touching(iter::once(at)) {
        let r = graph.relation(id);
        if kind.is_some_and(|k| k != r.relation_type) {
            continue;
        }
        if r.from == at && direction != Direction::In {
            f(id, r.to);
        }
        if r.to == at && direction != Direction::Out {
            f(id, r.from);
        }
    }
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

/// One side of a bidirectional breadth-first search: every name reached with its distance and
/// the step it was reached by.
struct Tree {
    reached: HashMap<Sym, (usize, Option<(Sym, RelationId)>)>,
    frontier: Vec<Sym>,
    depth: usize,
}

impl Tree {
    fn new(root: Sym) -> Self {
        let mut reached = HashMap::default();
        reached.insert(root, (0, None));
        Tree {
            reached,
            frontier: vec![root],
            depth: 0,
        }
    }

    /// The steps from `at` back to the root: names (from `at`) and relations.
    fn back(&self, mut at: Sym, names: &mut Vec<Sym>, rels: &mut Vec<RelationId>) {
        while let Some(&(_, Some((parent, rel)))) = self.reached.get(&at) {
            names.push(parent);
            rels.push(rel);
            at = parent;
        }
    }
}

/// A shortest undirected path from `s` to `t` of at most `max_depth` relations: names and the
/// relations between them. Searches from both ends, always growing the smaller frontier by a
/// whole level; the first level that meets the other side holds a shortest path.
fn shortest_path(
    graph: &Graph,
    s: Sym,
    t: Sym,
    max_depth: usize,
) -> Option<(Vec<Sym>, Vec<RelationId>)> {
    if s == t {
        return Some((vec![s], Vec::new()));
    }
    let (mut a, mut b) = (Tree::new(s), Tree::new(t));
    while a.depth + b.depth < max_depth && !a.frontier.is_empty() && !b.frontier.is_empty() {
        let from_a = a.frontier.len() <= b.frontier.len();
        let (this, other) = if from_a { (&mut a, &b) } else { (&mut b, &a) };
        let d = this.depth;
        // The shortest meeting of this level: (length, this side's name, relation, other's).
        let mut best: Option<(usize, Sym, RelationId, Sym)> = None;
        let mut next = Vec::new();
        for u in core::mem::take(&mut this.frontier) {
            each_step(graph, u, Direction::Both, None, |rel, w| {
                if w == u {
                    return;
                }
                if let Some(&(dw, _)) = other.reached.get(&w) {
                    let len = d + 1 + dw;
                    if best.is_none_or(|(l, ..)| len < l) {
                        best = Some((len, u, rel, w));
                    }
                }
                this.reached.entry(w).or_insert_with(|| {
                    next.push(w);
                    (d + 1, Some((u, rel)))
                });
            });
        }
        this.frontier = next;
        this.depth += 1;
        if let Some((_, u, rel, w)) = best {
            let (at_a, at_b) = if from_a { (u, w) } else { (w, u) };
            let (mut path, mut rels) = (vec![at_a], Vec::new());
            a.back(at_a, &mut path, &mut rels);
            path.reverse();
            rels.reverse();
            rels.push(rel);
            path.push(at_b);
            b.back(at_b, &mut path, &mut rels);
            return Some((path, rels));
        }
    }
    None
}

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
    let (path, rels) = shortest_path(graph, s, t, max_depth).unwrap_or_default();
    ok(&PathResult {
        found: !path.is_empty(),
        path: names(graph, &path),
        relations: relations(graph, &rels),
    })
}

// ---------------------------------------------------------------------------------------------
// find_all_paths
// ---------------------------------------------------------------------------------------------

/// A bounded depth-first search for simple paths to `target`, by iterative deepening so the
/// shortest paths come first.
struct AllPaths<'g> {
    graph: &'g Graph,
    target: Sym,
    /// Distance to `target` of every name within the depth limit.
    dist: HashMap<Sym, usize>,
    /// Each name's steps (self-relations left out), cached: ranges into `steps`.
    adjacency: HashMap<Sym, (usize, usize)>,
    steps: Vec<(RelationId, Sym)>,
    /// The path being extended.
    names: Vec<Sym>,
    rels: Vec<RelationId>,
    found: Vec<(Vec<Sym>, Vec<RelationId>)>,
    max_paths: usize,
    work: usize,
    truncated: bool,
}

impl AllPaths<'_> {
    fn adjacent(&mut self, at: Sym) -> (usize, usize) {
        if let Some(&range) = self.adjacency.get(&at) {
            return range;
        }
        let start = self.steps.len();
        let steps = &mut self.steps;
        each_step(self.graph, at, Direction::Both, None, |rel, w| {
            if w != at {
                steps.push((rel, w));
            }
        });
        let range = (start, self.steps.len());
        self.adjacency.insert(at, range);
        range
    }

    /// Distances to the target, up to `max_depth`.
    fn measure(&mut self, max_depth: usize) {
        self.dist.insert(self.target, 0);
        let mut frontier = vec![self.target];
        for d in 1..=max_depth {
            let mut next = Vec::new();
            for u in frontier {
                let (start, end) = self.adjacent(u);
                for i in start..end {
                    let w = self.steps[i].1;
                    self.dist.entry(w).or_insert_with(|| {
                        next.push(w);
                        d
                    });
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
    }

    /// Extends the path (ending at `at`) by exactly `left` more relations to the target;
    /// false once the search must stop.
    fn extend(&mut self, at: Sym, left: usize) -> bool {
        let (start, end) = self.adjacent(at);
        for i in start..end {
            self.work += 1;
            if self.work > ALL_PATHS_BUDGET {
                self.truncated = true;
                return false;
            }
            let (rel, w) = self.steps[i];
            if w == self.target {
                if left == 1 {
                    if self.found.len() == self.max_paths {
                        self.truncated = true;
                        return false;
                    }
                    let mut names = self.names.clone();
                    names.push(w);
                    let mut rels = self.rels.clone();
                    rels.push(rel);
                    self.found.push((names, rels));
                }
                continue;
            }
            let reachable = self.dist.get(&w).is_some_and(|&d| d < left);
            if !reachable || self.names.contains(&w) {
                continue;
            }
            self.names.push(w);
            self.rels.push(rel);
            let go_on = self.extend(w, left - 1);
            self.names.pop();
            self.rels.pop();
            if !go_on {
                return false;
            }
        }
        true
    }
}

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
    let mut search = AllPaths {
        graph,
        target: t,
        dist: HashMap::default(),
        adjacency: HashMap::default(),
        steps: Vec::new(),
        names: vec![s],
        rels: Vec::new(),
        found: Vec::new(),
        max_paths,
        work: 0,
        truncated: false,
    };
    if s == t {
        search.found.push((vec![s], Vec::new()));
    } else {
        search.measure(max_depth);
        if let Some(&shortest) = search.dist.get(&s) {
            for len in shortest..=max_depth {
                if !search.extend(s, len) {
                    break;
                }
            }
        }
    }
    let paths = search
        .found
        .iter()
        .map(|(path, rels)| PathJson {
            path: names(graph, path),
            relations: relations(graph, rels),
        })
        .collect();
    ok(&AllPathsResult {
        paths,
        truncated: search.truncated,
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
            each_step(graph, u, Direction::Both, None, |_, w| {
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
    // The walk's type filter; none at all when the graph does not hold the type, as then no
    // relation matches and the walk goes nowhere.
    let filter: Option<Option<Sym>> = match kind {
        None => Some(None),
        Some(k) => graph.strings().lookup(k).map(Some),
    };
    if let Some(kind) = filter {
        let mut seen: HashSet<Sym> = HashSet::default();
        seen.insert(me);
        let mut frontier = vec![me];
        for d in 1..=depth {
            let mut next = Vec::new();
            for &u in &frontier {
                each_step(graph, u, direction, kind, |rel, w| {
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
