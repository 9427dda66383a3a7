//! Whole-graph algorithms over entities numbered densely: connected components, degree,
//! betweenness (Brandes; sampled sources past a work bound) and PageRank. Relations to a
//! name no entity has are left out; an entity is the oldest of its name.

use alloc::collections::VecDeque;
use alloc::vec;
use alloc::vec::Vec;

use crate::graph::{EntityId, Graph};
use crate::hash::HashMap;
use crate::intern::Sym;

/// Most source-edge steps betweenness takes (sources × directed edges): above it, sources
/// are sampled so that one call stays near a second at 40K entities.
pub const BETWEENNESS_BUDGET: usize = 60_000_000;

/// Entities as nodes `0..n` in graph order, and the relations between them in both
/// directions (compressed rows; each row in relation order).
pub struct Adjacency {
    /// The entity of each node.
    pub ids: Vec<EntityId>,
    out: Rows,
    inn: Rows,
}

/// Compressed rows: node `v`'s neighbours are `to[at[v]..at[v + 1]]`.
struct Rows {
    at: Vec<u32>,
    to: Vec<u32>,
}

impl Rows {
    /// Rows of `n` nodes holding `edges` (from, to), each row in the edges' order.
    fn of(n: usize, edges: &[(u32, u32)]) -> Rows {
        let mut at = vec![0u32; n + 1];
        for &(f, _) in edges {
            at[f as usize + 1] += 1;
        }
        for i in 1..at.len() {
            at[i] += at[i - 1];
        }
        let mut next = at.clone();
        let mut to = vec![0u32; edges.len()];
        for &(f, t) in edges {
            to[next[f as usize] as usize] = t;
            next[f as usize] += 1;
        }
        Rows { at, to }
    }

    fn row(&self, v: usize) -> &[u32] {
        &self.to[self.at[v] as usize..self.at[v + 1] as usize]
    }
}

impl Adjacency {
    /// The graph's entities and the relations among them.
    pub fn of(graph: &Graph) -> Adjacency {
        let mut node: HashMap<Sym, u32> = HashMap::default();
        let mut ids = Vec::with_capacity(graph.entity_count());
        for (id, e) in graph.entities() {
            node.entry(e.name).or_insert_with(|| {
                ids.push(id);
                (ids.len() - 1) as u32
            });
        }
        let edges: Vec<(u32, u32)> = graph
            .relations()
            .filter_map(|(_, r)| Some((*node.get(&r.from)?, *node.get(&r.to)?)))
            .collect();
        let reversed: Vec<(u32, u32)> = edges.iter().map(|&(f, t)| (t, f)).collect();
        Adjacency {
            out: Rows::of(ids.len(), &edges),
            inn: Rows::of(ids.len(), &reversed),
            ids,
        }
    }

    /// How many nodes.
    pub fn node_count(&self) -> usize {
        self.ids.len()
    }

    /// How many relations between nodes.
    pub fn edge_count(&self) -> usize {
        self.out.to.len()
    }

    /// Node `v`'s out- and in-neighbours (a relation to itself counts in each).
    pub fn degree(&self, v: usize) -> (usize, usize) {
        (self.out.row(v).len(), self.inn.row(v).len())
    }

    /// Node `v`'s neighbours either way, out first (relations to itself left out).
    fn around(&self, v: usize) -> impl Iterator<Item = usize> + '_ {
        let out = self.out.row(v).iter();
        out.chain(self.inn.row(v))
            .map(|&w| w as usize)
            .filter(move |&w| w != v)
    }

    /// Weakly connected components: nodes in breadth-first order from the first node not
    /// yet reached (graph order), the components largest first (ties in that order).
    pub fn components(&self) -> Vec<Vec<usize>> {
        let mut seen = vec![false; self.node_count()];
        let mut all = Vec::new();
        for seed in 0..self.node_count() {
            if seen[seed] {
                continue;
            }
            seen[seed] = true;
            let mut component = vec![seed];
            let mut at = 0;
            while at < component.len() {
                let v = component[at];
                at += 1;
                for w in self.around(v) {
                    if !seen[w] {
                        seen[w] = true;
                        component.push(w);
                    }
                }
            }
            all.push(component);
        }
        all.sort_by_key(|c| core::cmp::Reverse(c.len()));
        all
    }

    /// Betweenness on the undirected graph (Brandes), each pair counted both ways and
    /// scaled by `2 / ((n − 1)(n − 2))`. With `sources` (fewer than all), from every
    /// `n / sources`-th node only, scaled by `n / sources`; the sources actually used.
    pub fn betweenness(&self, sources: usize) -> (Vec<f64>, usize) {
        let n = self.node_count();
        let k = sources.clamp(1, n.max(1)).min(n);
        let mut score = vec![0.0f64; n];
        let mut sigma = vec![0.0f64; n];
        let mut dist = vec![u32::MAX; n];
        let mut delta = vec![0.0f64; n];
        let mut order = Vec::with_capacity(n);
        let mut queue = VecDeque::new();
        for i in 0..k {
            let s = i * n / k;
            for &v in &order {
                sigma[v] = 0.0;
                dist[v] = u32::MAX;
                delta[v] = 0.0;
            }
            order.clear();
            sigma[s] = 1.0;
            dist[s] = 0;
            queue.push_back(s);
            while let Some(v) = queue.pop_front() {
                order.push(v);
                for w in self.around(v) {
                    if dist[w] == u32::MAX {
                        dist[w] = dist[v] + 1;
                        queue.push_back(w);
                    }
                    if dist[w] == dist[v] + 1 {
                        sigma[w] += sigma[v];
                    }
                }
            }
            // Dependencies, farthest first: each node passes its share to its predecessors
            // (the neighbours one step nearer).
            for &w in order.iter().rev() {
                for v in self.around(w) {
                    if dist[v] != u32::MAX && dist[v] + 1 == dist[w] {
                        delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w]);
                    }
                }
                if w != s {
                    score[w] += delta[w];
                }
            }
        }
        let sampled = if k > 0 && k < n {
            n as f64 / k as f64
        } else {
            1.0
        };
        let normal = if n > 2 {
            2.0 / ((n - 1) as f64 * (n - 2) as f64)
        } else {
            1.0
        };
        score.iter_mut().for_each(|x| *x *= sampled * normal);
        (score, k)
    }

    /// PageRank with damping `d`: at most `iterations` synchronous steps, stopping when the
    /// scores move less than `tolerance` in all (L1); nodes without out-relations share
    /// their score with every node.
    pub fn pagerank(&self, d: f64, iterations: usize, tolerance: f64) -> Vec<f64> {
        let n = self.node_count();
        if n == 0 {
            return Vec::new();
        }
        let nf = n as f64;
        let mut pr = vec![1.0 / nf; n];
        let mut next = vec![0.0; n];
        for _ in 0..iterations {
            let dangling: f64 = (0..n)
                .filter(|&v| self.out.row(v).is_empty())
                .map(|v| pr[v])
                .sum::<f64>()
                * d
                / nf;
            for (v, slot) in next.iter_mut().enumerate() {
                let inflow: f64 = self
                    .inn
                    .row(v)
                    .iter()
                    .map(|&u| pr[u as usize] / self.out.row(u as usize).len() as f64)
                    .sum();
                *slot = (1.0 - d) / nf + d * inflow + dangling;
            }
            let moved: f64 = pr.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
            core::mem::swap(&mut pr, &mut next);
            if moved < tolerance {
                break;
            }
        }
        pr
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entity, Relation};
    use crate::record::{Op, Record};

    /// A graph of entities `names` and relations `edges` (by position in `names`).
    fn graph(names: &[&str], edges: &[(usize, usize)]) -> Graph {
        let mut g = Graph::default();
        let entities = names
            .iter()
            .map(|&name| Entity {
                name,
                entity_type: "t",
                observations: vec![],
            })
            .collect();
        let relations = edges
            .iter()
            .map(|&(f, t)| Relation {
                from: names[f],
                to: names[t],
                relation_type: "r",
            })
            .collect();
        g.apply(&Record::from(Op::CreateEntities(entities)), &mut ());
        g.apply(&Record::from(Op::CreateRelations(relations)), &mut ());
        g
    }

    #[test]
    fn components_are_largest_first_breadth_first_inside() {
        let g = graph(&["a", "b", "c", "d", "e"], &[(3, 4), (0, 2), (2, 1)]);
        let adj = Adjacency::of(&g);
        assert_eq!(adj.components(), [vec![0, 2, 1], vec![3, 4]]);
    }

    #[test]
    fn betweenness_of_a_path_is_twice_networkx_normalised() {
        // a - b - c: b lies on the one path between a and c (both ways: 2), n = 3.
        let g = graph(&["a", "b", "c"], &[(0, 1), (1, 2)]);
        let (scores, used) = Adjacency::of(&g).betweenness(usize::MAX);
        assert_eq!(used, 3);
        assert_eq!(scores, [0.0, 2.0, 0.0]);
    }

    #[test]
    fn sampled_betweenness_scales_by_the_share_of_sources() {
        // A star: the centre is on every path between leaves; sampling half the sources
        // (every second node) estimates the same score.
        let g = graph(
            &["c", "l1", "l2", "l3", "l4", "l5"],
            &[(0, 1), (0, 2), (0, 3), (0, 4), (0, 5)],
        );
        let adj = Adjacency::of(&g);
        let (exact, _) = adj.betweenness(6);
        let (sampled, used) = adj.betweenness(3);
        assert_eq!(used, 3);
        assert!((exact[0] - 2.0).abs() < 1e-12, "{exact:?}");
        assert!((sampled[0] - exact[0]).abs() < 0.5, "{sampled:?}");
    }

    #[test]
    fn pagerank_sums_to_one_and_favours_the_pointed_at() {
        let g = graph(&["a", "b", "c"], &[(0, 2), (1, 2)]);
        let pr = Adjacency::of(&g).pagerank(0.85, 100, 1e-9);
        assert!((pr.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{pr:?}");
        assert!(pr[2] > pr[0] && (pr[0] - pr[1]).abs() < 1e-12, "{pr:?}");
    }
}
