//! Walks over relations: the steps a walk may take from a name ([`Steps`]), shortest paths
//! and all simple paths between two names.
//!
//! A walk's nodes are names ([`Sym`]s), so it passes through dangling endpoints too. Every
//! step reads the endpoint index ([`Graph::relations_touching`] of one name), never a scan of
//! all relations. Two surfaces search paths differently, and each strategy is here:
//! [`shortest_meeting`] and [`all_paths_shortest_first`] (this server's), [`shortest_first_found`]
//! and [`all_paths_depth_first`] (the TypeScript seed's, in its order and limits).

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::iter;

use crate::graph::{Graph, RelationId};
use crate::hash::HashMap;
use crate::intern::Sym;

/// Which relations a walk follows from a name.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Direction {
    /// From the name to the relation's `to`.
    Out,
    /// From the name back to the relation's `from`.
    In,
    /// Either way.
    #[default]
    Both,
}

/// Which types of relation a walk follows.
#[derive(Clone, Debug)]
pub enum Types {
    /// Every type.
    All,
    /// This one.
    Exactly(Sym),
    /// Any of these, compared lowercased (the TypeScript seed's `relationTypes`).
    AnyOf(Vec<String>),
}

/// In what order a name's steps come.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Order {
    /// Relation by relation in creation order; a relation from the name to itself is
    /// passed once per direction it may be followed in.
    Created,
    /// The outgoing relations, then the incoming ones, each in creation order; loops left
    /// out (the TypeScript seed's).
    OutgoingFirst,
}

/// The steps a walk may take from a name: the relations it may follow, and where each leads.
pub struct Steps<'g> {
    graph: &'g Graph,
    direction: Direction,
    types: Types,
    order: Order,
}

impl<'g> Steps<'g> {
    /// Steps in `direction`, of `types`, in `order`.
    pub fn new(graph: &'g Graph, direction: Direction, types: Types, order: Order) -> Self {
        Steps {
            graph,
            direction,
            types,
            order,
        }
    }

    /// Whether a walk may follow relation `id` at all (its type, and loops by the order).
    fn follows(&self, id: RelationId) -> bool {
        let g = self.graph;
        let r = g.relation(id);
        let typed = match &self.types {
            Types::All => true,
            Types::Exactly(kind) => r.relation_type == *kind,
            Types::AnyOf(kinds) => kinds.contains(&g.text(r.relation_type).to_lowercase()),
        };
        typed && (self.order == Order::Created || r.from != r.to)
    }

    /// Calls `f(relation, other end)` for each step from `at`, in the walk's order.
    pub fn each(&self, at: Sym, mut f: impl FnMut(RelationId, Sym)) {
        let g = self.graph;
        let touching = g.relations_touching(iter::once(at));
        let out = self.direction != Direction::In;
        let back = self.direction != Direction::Out;
        match self.order {
            Order::Created => {
                for id in touching.into_iter().filter(|&id| self.follows(id)) {
                    let r = g.relation(id);
                    if r.from == at && out {
                        f(id, r.to);
                    }
                    if r.to == at && back {
                        f(id, r.from);
                    }
                }
            }
            Order::OutgoingFirst => {
                let followed = || touching.iter().copied().filter(|&id| self.follows(id));
                if out {
                    followed()
                        .filter(|&id| g.relation(id).from == at)
                        .for_each(|id| f(id, g.relation(id).to));
                }
                if back {
                    followed()
                        .filter(|&id| g.relation(id).to == at)
                        .for_each(|id| f(id, g.relation(id).from));
                }
            }
        }
    }

    /// The steps from `at`, in the walk's order.
    pub fn from(&self, at: Sym) -> Vec<(RelationId, Sym)> {
        let mut steps = Vec::new();
        self.each(at, |id, to| steps.push((id, to)));
        steps
    }
}

/// A path: its names, and the relations between them.
pub type Path = (Vec<Sym>, Vec<RelationId>);

// ---------------------------------------------------------------------------------------------
// Shortest paths
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

/// A shortest path from `s` to `t` of at most `max_depth` relations, following `steps`
/// (which must be symmetric: either way). Searches from both ends, always growing the
/// smaller frontier by a whole level; the first level that meets the other side holds a
/// shortest path.
pub fn shortest_meeting(steps: &Steps<'_>, s: Sym, t: Sym, max_depth: usize) -> Option<Path> {
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
            steps.each(u, |rel, w| {
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

/// The first path from `s` to `t` a breadth-first walk from `s` finds, taking the steps in
/// their order: a shortest one, of any length.
pub fn shortest_first_found(steps: &Steps<'_>, s: Sym, t: Sym) -> Option<Path> {
    let mut reached: HashMap<Sym, Option<(Sym, RelationId)>> = HashMap::default();
    reached.insert(s, None);
    let mut queue = VecDeque::from([s]);
    while let Some(at) = queue.pop_front() {
        if at == t {
            break;
        }
        for (id, next) in steps.from(at) {
            if !reached.contains_key(&next) {
                reached.insert(next, Some((at, id)));
                queue.push_back(next);
            }
        }
    }
    reached.get(&t)?;
    let (mut path, mut relations) = (vec![t], Vec::new());
    let mut at = t;
    while let Some(&Some((before, id))) = reached.get(&at) {
        path.push(before);
        relations.push(id);
        at = before;
    }
    path.reverse();
    relations.reverse();
    Some((path, relations))
}

// ---------------------------------------------------------------------------------------------
// All paths
// ---------------------------------------------------------------------------------------------

/// Simple paths found, and whether the search stopped at a bound before it was done.
pub struct Found {
    /// The paths, in the order the search found them.
    pub paths: Vec<Path>,
    /// Whether a bound stopped the search (there may be more).
    pub truncated: bool,
}

/// Steps [`all_paths_shortest_first`] may take before it gives up (and says it was
/// truncated): bounds the search on dense graphs, where simple paths are exponentially many.
const SHORTEST_FIRST_BUDGET: usize = 200_000;

/// A bounded depth-first search for simple paths to `target`, by iterative deepening so the
/// shortest paths come first.
struct Deepening<'s, 'g> {
    steps: &'s Steps<'g>,
    target: Sym,
    /// Distance to `target` of every name within the depth limit.
    dist: HashMap<Sym, usize>,
    /// Each name's steps (self-relations left out), cached: ranges into `cached`.
    adjacency: HashMap<Sym, (usize, usize)>,
    cached: Vec<(RelationId, Sym)>,
    /// The path being extended.
    names: Vec<Sym>,
    rels: Vec<RelationId>,
    found: Vec<Path>,
    max_paths: usize,
    work: usize,
    truncated: bool,
}

impl Deepening<'_, '_> {
    fn adjacent(&mut self, at: Sym) -> (usize, usize) {
        if let Some(&range) = self.adjacency.get(&at) {
            return range;
        }
        let start = self.cached.len();
        let cached = &mut self.cached;
        self.steps.each(at, |rel, w| {
            if w != at {
                cached.push((rel, w));
            }
        });
        let range = (start, self.cached.len());
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
                    let w = self.cached[i].1;
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
            if self.work > SHORTEST_FIRST_BUDGET {
                self.truncated = true;
                return false;
            }
            let (rel, w) = self.cached[i];
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

/// Simple paths from `s` to `t` of at most `max_depth` relations, shortest first (at most
/// `max_paths` of them, within a bound on the work).
pub fn all_paths_shortest_first(
    steps: &Steps<'_>,
    s: Sym,
    t: Sym,
    max_depth: usize,
    max_paths: usize,
) -> Found {
    let mut search = Deepening {
        steps,
        target: t,
        dist: HashMap::default(),
        adjacency: HashMap::default(),
        cached: Vec::new(),
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
    Found {
        paths: search.found,
        truncated: search.truncated,
    }
}

/// Most paths [`all_paths_depth_first`] lists, and most names it steps into, before it
/// stops (and says it was truncated), as the TypeScript seed bounds it.
const DEPTH_FIRST_PATHS: usize = 1000;
const DEPTH_FIRST_EXPANSIONS: usize = 100_000;

/// A depth-first walk's state.
struct DepthFirst<'s, 'g> {
    steps: &'s Steps<'g>,
    target: Sym,
    max_depth: usize,
    on_path: Vec<Sym>,
    relations: Vec<RelationId>,
    found: Vec<Path>,
    expansions: usize,
    truncated: bool,
}

impl DepthFirst<'_, '_> {
    fn walk(&mut self, at: Sym) {
        if self.found.len() >= DEPTH_FIRST_PATHS || self.expansions >= DEPTH_FIRST_EXPANSIONS {
            self.truncated = true;
            return;
        }
        self.expansions += 1;
        for (id, next) in self.steps.from(at) {
            if self.on_path.contains(&next) {
                continue;
            }
            self.on_path.push(next);
            self.relations.push(id);
            if next == self.target {
                self.found
                    .push((self.on_path.clone(), self.relations.clone()));
            } else if self.relations.len() < self.max_depth {
                self.walk(next);
            }
            self.on_path.pop();
            self.relations.pop();
        }
    }
}

/// Every simple path from `s` to `t` of at most `max_depth` relations, depth first with the
/// steps in their order (within the seed's bounds on paths and expansions).
pub fn all_paths_depth_first(steps: &Steps<'_>, s: Sym, t: Sym, max_depth: usize) -> Found {
    let mut walk = DepthFirst {
        steps,
        target: t,
        max_depth,
        on_path: vec![s],
        relations: Vec::new(),
        found: Vec::new(),
        expansions: 0,
        truncated: false,
    };
    walk.walk(s);
    Found {
        paths: walk.found,
        truncated: walk.truncated,
    }
}
