//! The Python seed's ("MCP Memory v2") hygiene tools under profile `mcp-memory-py`:
//! splitting entities that grew too large (`analyze_entity_split`,
//! `propose_entity_split_tool`, `execute_entity_split_tool`, `find_split_candidates`),
//! near-duplicate observations (`find_duplicate_observations`) and a read-only
//! `consolidation_report` (docs/compatibility.md, "Its hygiene tools").
//!
//! Where the seed is weak these are not: a bad call is an `isError` naming the argument
//! and changes nothing; a split is checked whole before its one record (every observation
//! a current one of the entity, each moved once, new names new, the parent an entity)
//! and keeps the observations' kinds; lists are bounded, with totals; without an
//! embedding table topics fall back to TF-IDF and duplicates to the token test.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::vocabulary::{
    ACTIVE, ARCHIVED, CONTAINS, DEFAULT_SPLIT_THRESHOLD, INVERSES, PART_OF, SPLIT_THRESHOLDS,
    TOPIC_STOP_WORDS,
};
use super::{answer, named, observation_id, seed_time};
use crate::embed::Table;
use crate::graph::{EntityId, Graph};
use crate::index::search::text::token_list;
use crate::index::vectors::Query;
use crate::memory::Change;
use crate::model::{Entity, NewFact, NewFacts, NewRelation, Observations, Relation};
use crate::record::Op;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::args;

/// The observations an entity of `entity_type` holds before it is a split candidate.
fn threshold(entity_type: &str) -> usize {
    SPLIT_THRESHOLDS
        .iter()
        .find(|(t, _)| *t == entity_type)
        .map_or(DEFAULT_SPLIT_THRESHOLD, |&(_, n)| n)
}

/// The most a split score gains from topic diversity.
const TOPIC_BONUS_CAP: f64 = 0.5;

/// The seed's split score: how far the count is over the threshold, plus a bonus for
/// topic diversity (topics per observation, at most [`TOPIC_BONUS_CAP`]). Above 1: split.
fn split_score(count: usize, threshold: usize, topics: usize) -> f64 {
    let over = count as f64 / threshold.max(1) as f64;
    over + (topics as f64 / count.max(1) as f64).min(TOPIC_BONUS_CAP)
}

/// Words naming a cluster (its top c-TF-IDF words).
const CLUSTER_NAME_WORDS: usize = 2;
/// The most observations clustered by their vectors (the distance matrix is n²); more
/// fall back to TF-IDF grouping.
const MAX_CLUSTERED: usize = 1000;
/// The shortest word (in characters) a topic is named by.
const MIN_WORD_CHARS: usize = 4;
/// The fewest observations a word must occur in to anchor a TF-IDF topic.
const MIN_DOC_FREQ: usize = 2;
/// The TF-IDF words observations are grouped by.
const TOP_KEYWORDS: usize = 10;

/// The words of `text` a topic can be named by: folded tokens of letters, at least
/// [`MIN_WORD_CHARS`] long, not stop words.
fn words(text: &str) -> Vec<String> {
    token_list(text)
        .into_iter()
        .filter(|w| {
            w.chars().count() >= MIN_WORD_CHARS
                && w.chars().all(char::is_alphabetic)
                && !TOPIC_STOP_WORDS.contains(&w.as_str())
        })
        .collect()
}

/// `word` with its first letter in upper case.
fn capitalized(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// Disjoint sets of `0..n` (path halving; a union keeps the smaller root).
pub struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    /// `n` sets of one element each.
    pub fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    /// The representative of `x`'s set (the smallest element ever made its root).
    pub fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the sets of `a` and `b`; the smaller root stays the root.
    pub fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            let (keep, gone) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[gone] = keep;
        }
    }

    /// The sets of two or more elements, each in increasing order, ordered by their
    /// smallest element.
    pub fn groups(&mut self) -> Vec<Vec<usize>> {
        let n = self.parent.len();
        let mut by_root: Vec<Vec<usize>> = vec![Vec::new(); n];
        for x in 0..n {
            let root = self.find(x);
            by_root[root].push(x);
        }
        by_root.into_iter().filter(|g| g.len() > 1).collect()
    }
}

/// The merges of average-linkage agglomerative clustering of `n` points with pairwise
/// distances `d` (an n×n matrix, symmetric): `(a, b, distance)`, `b` merged into `a`.
/// Nearest-neighbour chains, so O(n²) time; deterministic (ties go to the lower index).
fn linkage(n: usize, mut d: Vec<f32>) -> Vec<(usize, usize, f32)> {
    let mut size = vec![1_usize; n];
    let mut active = vec![true; n];
    let mut merges = Vec::with_capacity(n.saturating_sub(1));
    let mut chain: Vec<usize> = Vec::new();
    while merges.len() + 1 < n {
        if chain.is_empty()
            && let Some(first) = active.iter().position(|&a| a)
        {
            chain.push(first);
        }
        let Some(&a) = chain.last() else { break };
        let previous = chain.len().checked_sub(2).map(|i| chain[i]);
        // The nearest active cluster to `a`; the previous link of the chain wins a tie.
        let mut best: Option<(usize, f32)> = previous.map(|p| (p, d[a * n + p]));
        for b in (0..n).filter(|&b| active[b] && b != a) {
            if best.is_none_or(|(_, x)| d[a * n + b] < x) {
                best = Some((b, d[a * n + b]));
            }
        }
        let Some((b, x)) = best else { break };
        if Some(b) != previous {
            chain.push(b);
            continue;
        }
        chain.truncate(chain.len() - 2);
        merges.push((a, b, x));
        // Merge b into a (Lance–Williams for average linkage).
        let (sa, sb) = (size[a] as f32, size[b] as f32);
        for k in (0..n).filter(|&k| active[k] && k != a && k != b) {
            let merged = (sa * d[a * n + k] + sb * d[b * n + k]) / (sa + sb);
            d[a * n + k] = merged;
            d[k * n + a] = merged;
        }
        size[a] += size[b];
        active[b] = false;
    }
    // Average linkage is monotone: by distance, each merge comes after those it joins.
    merges.sort_by(|x, y| x.2.total_cmp(&y.2));
    merges
}

/// The `k` clusters the lowest merges leave, each in increasing order, ordered by their
/// first point.
fn cut(n: usize, merges: &[(usize, usize, f32)], k: usize) -> Vec<Vec<usize>> {
    let mut sets = UnionFind::new(n);
    for &(a, b, _) in &merges[..n.saturating_sub(k).min(merges.len())] {
        sets.union(a, b);
    }
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); n];
    for x in 0..n {
        let root = sets.find(x);
        groups[root].push(x);
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// The mean silhouette of a partition under distances `d` (n×n): for each point, how
/// much nearer it is to its own cluster than to the next nearest one (0 for a point
/// alone), from −1 to 1.
fn silhouette(n: usize, d: &[f32], clusters: &[Vec<usize>]) -> f32 {
    let mean = |i: usize, c: &[usize]| {
        let others = c.iter().filter(|&&j| j != i);
        others.clone().map(|&j| d[i * n + j]).sum::<f32>() / others.count().max(1) as f32
    };
    let mut total = 0.0;
    for (ci, c) in clusters.iter().enumerate() {
        if c.len() < 2 {
            continue;
        }
        for &i in c {
            let a = mean(i, c);
            let b = clusters
                .iter()
                .enumerate()
                .filter(|&(cj, _)| cj != ci)
                .map(|(_, other)| mean(i, other))
                .fold(f32::MAX, f32::min);
            total += (b - a) / a.max(b).max(f32::EPSILON);
        }
    }
    total / n.max(1) as f32
}

/// The most topics a clustering proposes.
const MAX_TOPICS: usize = 8;

/// The least mean silhouette at which a clustering counts as separating topics (below
/// it the observations are taken as one subject, and TF-IDF groups them).
const MIN_SILHOUETTE: f32 = 0.05;

/// Observations clustered by meaning: average linkage of the distances `dist`, cut where
/// the clusters are best apart (2 to [`MAX_TOPICS`] clusters, the highest mean silhouette,
/// the fewer clusters on a tie), if they are apart at all ([`MIN_SILHOUETTE`]).
///
/// The seed cuts at a fixed cosine distance (0.5), fit to its transformer's similarities;
/// the silhouette asks the vectors themselves, so it holds for any embedding.
fn clusters_by_meaning(n: usize, dist: impl Fn(usize, usize) -> f32) -> Option<Vec<Vec<usize>>> {
    let mut d = vec![0.0_f32; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let x = dist(i, j);
            d[i * n + j] = x;
            d[j * n + i] = x;
        }
    }
    let merges = linkage(n, d.clone());
    let mut best: Option<(f32, Vec<Vec<usize>>)> = None;
    for k in 2..=MAX_TOPICS.min(n.saturating_sub(1)) {
        let clusters = cut(n, &merges, k);
        let score = silhouette(n, &d, &clusters);
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, clusters));
        }
    }
    best.filter(|(score, _)| *score >= MIN_SILHOUETTE)
        .map(|(_, clusters)| clusters)
}

/// Observations grouped under a topic's name (indexes into the observations given).
struct Topic {
    name: String,
    members: Vec<usize>,
}

/// How topics were found.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Method {
    /// Clustering the observations' vectors, named by c-TF-IDF.
    Embedding,
    /// Grouping by the top TF-IDF words.
    Tfidf,
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Method::Embedding => "embedding",
            Method::Tfidf => "tfidf",
        }
    }
}

/// The seed's TF-IDF fallback: each observation goes to the topic of the highest-scoring
/// of the top [`TOP_KEYWORDS`] words (summed TF × IDF, words in at least
/// [`MIN_DOC_FREQ`] observations) it holds, or a topic of its own (`tema_<n>`); a single
/// topic over four or more observations is cut in two halves (older, newer).
fn tfidf_topics(texts: &[&str]) -> Vec<Topic> {
    let n = texts.len();
    let docs: Vec<Vec<String>> = texts.iter().map(|t| words(t)).collect();
    let mut doc_freq: BTreeMap<&str, usize> = BTreeMap::new();
    for doc in &docs {
        let mut seen: Vec<&str> = doc.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            *doc_freq.entry(w).or_default() += 1;
        }
    }
    let mut scores: BTreeMap<&str, f64> = BTreeMap::new();
    for doc in docs.iter().filter(|d| !d.is_empty()) {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for w in doc {
            *counts.entry(w).or_default() += 1;
        }
        for (w, c) in counts {
            let df = doc_freq.get(w).copied().unwrap_or(0);
            if df >= MIN_DOC_FREQ {
                let idf = libm::log(n as f64 / df as f64);
                *scores.entry(w).or_default() += c as f64 / doc.len() as f64 * idf;
            }
        }
    }
    let mut ranked: Vec<(&str, f64)> = scores.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    ranked.truncate(TOP_KEYWORDS);
    let mut topics: Vec<Topic> = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let anchor = ranked.iter().find(|(w, _)| doc.iter().any(|d| d == w));
        let name = match anchor {
            Some((w, _)) => capitalized(w),
            None => format!("tema_{}", i + 1),
        };
        match topics.iter_mut().find(|t| t.name == name) {
            Some(t) => t.members.push(i),
            None => topics.push(Topic {
                name,
                members: vec![i],
            }),
        }
    }
    if topics.len() < 2 && n >= 4 {
        let mid = n / 2;
        topics = vec![
            Topic {
                name: "Tema_A".to_string(),
                members: (0..mid).collect(),
            },
            Topic {
                name: "Tema_B".to_string(),
                members: (mid..n).collect(),
            },
        ];
    }
    topics
}

/// Names clusters by c-TF-IDF: each cluster one document, its top
/// [`CLUSTER_NAME_WORDS`] words (ties: alphabetical) capitalised; `Tema_<n>` for a
/// cluster without words; a name taken already gets `_<n>`.
fn cluster_names(texts: &[&str], clusters: &[Vec<usize>]) -> Vec<String> {
    let per_cluster: Vec<Vec<String>> = clusters
        .iter()
        .map(|c| c.iter().flat_map(|&i| words(texts[i])).collect())
        .collect();
    let mut doc_freq: BTreeMap<&str, usize> = BTreeMap::new();
    for ws in &per_cluster {
        let mut seen: Vec<&str> = ws.iter().map(String::as_str).collect();
        seen.sort_unstable();
        seen.dedup();
        for w in seen {
            *doc_freq.entry(w).or_default() += 1;
        }
    }
    let k = clusters.len() as f64;
    let mut names: Vec<String> = Vec::with_capacity(clusters.len());
    for (c, ws) in per_cluster.iter().enumerate() {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for w in ws {
            *counts.entry(w).or_default() += 1;
        }
        let mut scored: Vec<(&str, f64)> = counts
            .into_iter()
            .map(|(w, count)| {
                let df = doc_freq.get(w).copied().unwrap_or(1) as f64;
                (w, count as f64 / ws.len() as f64 * libm::log(k / df))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        let mut name = if scored.is_empty() {
            format!("Tema_{}", c + 1)
        } else {
            let top: Vec<String> = scored
                .iter()
                .take(CLUSTER_NAME_WORDS)
                .map(|(w, _)| capitalized(w))
                .collect();
            top.join(" ")
        };
        if names.contains(&name) {
            name = format!("{name}_{}", c + 1);
        }
        names.push(name);
    }
    names
}

/// The topics of `texts`: with an embedding table (and at most [`MAX_CLUSTERED`] of
/// them) their vectors' clusters ([`clusters_by_meaning`]), named by c-TF-IDF; TF-IDF
/// grouping without one, or when the vectors do not fall apart into clusters.
fn topics(table: Option<&Table>, texts: &[&str]) -> (Vec<Topic>, Method) {
    let n = texts.len();
    if let Some(table) = table
        && (2..=MAX_CLUSTERED).contains(&n)
    {
        let vectors = centred(table, texts);
        let clusters = clusters_by_meaning(n, |i, j| match (&vectors[i], &vectors[j]) {
            (Some(a), Some(b)) => {
                let cos: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
                (1.0 - cos).clamp(0.0, 2.0)
            }
            _ => 1.0,
        });
        if let Some(clusters) = clusters {
            let names = cluster_names(texts, &clusters);
            let topics = names
                .into_iter()
                .zip(clusters)
                .map(|(name, members)| Topic { name, members })
                .collect();
            return (topics, Method::Embedding);
        }
    }
    (tfidf_topics(texts), Method::Tfidf)
}

/// The unit vectors of `texts` less their mean (`None` for a text no token of which the
/// table knows): what all of an entity's observations share (its subject, and the
/// direction every text of a static table leans to) says nothing of which topic each is
/// on, and would crowd their cosines together.
fn centred(table: &Table, texts: &[&str]) -> Vec<Option<Vec<f32>>> {
    let mut vectors: Vec<Option<Vec<f32>>> = texts
        .iter()
        .map(|t| {
            let mut e = table.embedder();
            e.add(t);
            e.finish()
        })
        .collect();
    let known = vectors.iter().flatten().count().max(1) as f32;
    let mut mean = vec![0.0_f32; table.dims()];
    for v in vectors.iter().flatten() {
        mean.iter_mut().zip(v).for_each(|(m, x)| *m += x / known);
    }
    for v in vectors.iter_mut().flatten() {
        v.iter_mut().zip(&mean).for_each(|(x, m)| *x -= m);
        let norm = libm::sqrtf(v.iter().map(|x| x * x).sum::<f32>());
        if norm > 0.0 {
            v.iter_mut().for_each(|x| *x /= norm);
        }
    }
    vectors
}

/// The embedding table, if the server has one.
fn table<'i>(t: &Ctx<'i>) -> Option<&'i Table> {
    t.indexes.table().ok().map(|rc| &**rc)
}

/// A topic's observations, as a JSON object's entries in topic order.
struct TopicMap<'a>(Vec<(String, Vec<&'a str>)>);

impl Serialize for TopicMap<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// What analyze_entity_split finds about one entity.
struct Analysis<'a> {
    name: &'a str,
    entity_type: &'a str,
    count: usize,
    threshold: usize,
    topics: TopicMap<'a>,
    method: Option<Method>,
    score: f64,
}

impl Analysis<'_> {
    fn needs_split(&self) -> bool {
        self.count > self.threshold && self.score > 1.0
    }
}

/// Analyses entity `id`: topics only when it is over its threshold (the seed's early exit).
fn analyse<'g>(t: &Ctx<'g>, id: EntityId) -> Analysis<'g> {
    let g: &'g Graph = t.graph;
    let e = g.entity(id);
    let entity_type = g.text(e.entity_type);
    let texts: Vec<&'g str> = e.observations.iter().map(|&o| g.text(o)).collect();
    let count = texts.len();
    let limit = threshold(entity_type);
    if count <= limit {
        return Analysis {
            name: g.text(e.name),
            entity_type,
            count,
            threshold: limit,
            topics: TopicMap(Vec::new()),
            method: None,
            score: count as f64 / limit as f64,
        };
    }
    let (found, method) = topics(table(t), &texts);
    let score = split_score(count, limit, found.len());
    let topics = found
        .into_iter()
        .map(|topic| {
            (
                topic.name,
                topic.members.iter().map(|&i| texts[i]).collect(),
            )
        })
        .collect();
    Analysis {
        name: g.text(e.name),
        entity_type,
        count,
        threshold: limit,
        topics: TopicMap(topics),
        method: Some(method),
        score,
    }
}

#[derive(Deserialize)]
struct EntityArgs<'a> {
    entity_name: &'a str,
}

/// analyze_entity_split(entity_name): its observation count, its type's threshold,
/// whether it needs a split, its topics (only when over the threshold) and split score.
pub fn analyze_entity_split(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = crate::tools::parse::<EntityArgs>(a)?;
    let id = named(t.graph, "entity_name", args.entity_name)?;
    #[derive(Serialize)]
    struct Out<'a> {
        analysis: AnalysisOut<'a>,
    }
    Ok(answer(&Out {
        analysis: analyse(&t, id).into(),
    }))
}

/// An analysis as the seed shows it: analyze_entity_split's, and each of
/// find_split_candidates'.
#[derive(Serialize)]
struct AnalysisOut<'a> {
    entity_name: &'a str,
    entity_type: &'a str,
    observation_count: usize,
    threshold: usize,
    needs_split: bool,
    topics: TopicMap<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    topic_method: Option<&'static str>,
    split_score: f64,
}

impl<'a> From<Analysis<'a>> for AnalysisOut<'a> {
    fn from(x: Analysis<'a>) -> Self {
        AnalysisOut {
            entity_name: x.name,
            entity_type: x.entity_type,
            observation_count: x.count,
            threshold: x.threshold,
            needs_split: x.needs_split(),
            topic_method: x.method.map(Method::name),
            split_score: x.score,
            topics: x.topics,
        }
    }
}

/// propose_entity_split_tool(entity_name): for an entity that needs a split, one new
/// entity per topic (`<name> - <topic>`, made unique against the graph), its
/// observations, and the contiene/parte_de relations to create; else `proposal: null`
/// and why.
pub fn propose_entity_split_tool(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = crate::tools::parse::<EntityArgs>(a)?;
    let g = t.graph;
    let id = named(g, "entity_name", args.entity_name)?;
    let x = analyse(&t, id);
    #[derive(Serialize)]
    struct Split<'a> {
        name: String,
        entity_type: &'a str,
        observations: &'a [&'a str],
    }
    #[derive(Serialize)]
    struct RelationOut {
        from: String,
        to: String,
        #[serde(rename = "type")]
        relation_type: &'static str,
    }
    #[derive(Serialize)]
    struct Original<'a> {
        name: &'a str,
        entity_type: &'a str,
    }
    #[derive(Serialize)]
    struct Summary {
        observation_count: usize,
        threshold: usize,
        split_score: f64,
        num_topics: usize,
    }
    #[derive(Serialize)]
    struct Proposal<'a> {
        original_entity: Original<'a>,
        suggested_splits: Vec<Split<'a>>,
        relations_to_create: Vec<RelationOut>,
        analysis: Summary,
        topic_method: &'static str,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        proposal: Option<Proposal<'a>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    }
    let Some(method) = x.method.filter(|_| x.needs_split()) else {
        return Ok(answer(&Out {
            proposal: None,
            message: Some(format!(
                "Entity does not need splitting: {} observations, threshold {} for type {:?}",
                x.count, x.threshold, x.entity_type
            )),
        }));
    };
    let mut splits: Vec<Split<'_>> = Vec::new();
    for (topic, observations) in &x.topics.0 {
        let base = format!("{} - {topic}", x.name);
        let mut name = base.clone();
        let mut n = 2;
        while g.first_named(&name).is_some() || splits.iter().any(|s| s.name == name) {
            name = format!("{base} ({n})");
            n += 1;
        }
        splits.push(Split {
            name,
            entity_type: x.entity_type,
            observations,
        });
    }
    let relations_to_create = splits
        .iter()
        .flat_map(|s| {
            [
                RelationOut {
                    from: x.name.to_string(),
                    to: s.name.clone(),
                    relation_type: CONTAINS,
                },
                RelationOut {
                    from: s.name.clone(),
                    to: x.name.to_string(),
                    relation_type: PART_OF,
                },
            ]
        })
        .collect();
    let proposal = Proposal {
        original_entity: Original {
            name: x.name,
            entity_type: x.entity_type,
        },
        analysis: Summary {
            observation_count: x.count,
            threshold: x.threshold,
            split_score: x.score,
            num_topics: x.topics.0.len(),
        },
        suggested_splits: splits,
        relations_to_create,
        topic_method: method.name(),
    };
    Ok(answer(&Out {
        proposal: Some(proposal),
        message: None,
    }))
}

#[derive(Deserialize)]
struct ApprovedSplit<'a> {
    name: &'a str,
    #[serde(default)]
    entity_type: Option<&'a str>,
    #[serde(borrow)]
    observations: Vec<&'a str>,
}

#[derive(Deserialize)]
struct ExecuteArgs<'a> {
    entity_name: &'a str,
    #[serde(borrow)]
    approved_splits: Vec<ApprovedSplit<'a>>,
    #[serde(default)]
    parent_entity_name: Option<&'a str>,
}

/// execute_entity_split_tool(entity_name, approved_splits, parent_entity_name?): in one
/// record, creates each split's entity (of the original's type unless given) with its
/// observations (keeping their kinds), removes them from the original, and relates the
/// parent (the original unless given) and each new entity: parent `contiene` child,
/// child `parte_de` parent. Everything is checked first: every observation a current one
/// of the original, moved at most once; every new name unused and given once; the
/// parent an entity.
pub fn execute_entity_split_tool(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let args = crate::tools::parse::<ExecuteArgs>(a)?;
    let g = t.graph;
    let id = named(g, "entity_name", args.entity_name)?;
    let parent = match args.parent_entity_name {
        Some(p) => {
            named(g, "parent_entity_name", p)?;
            p
        }
        None => args.entity_name,
    };
    if args.approved_splits.is_empty() {
        return Err("approved_splits: give at least one split".to_string());
    }
    let e = g.entity(id);
    let original_type = g.text(e.entity_type);
    let current: Vec<(&str, Option<&str>)> = e
        .observations
        .iter()
        .zip(&e.facts)
        .map(|(&o, f)| (g.text(o), f.kind.map(|k| g.text(k))))
        .collect();
    let mut moved: Vec<&str> = Vec::new();
    for (i, split) in args.approved_splits.iter().enumerate() {
        let at = |field: &str| format!("approved_splits[{i}].{field}");
        if split.name.trim().is_empty() {
            return Err(format!("{}: a name must not be empty", at("name")));
        }
        if g.first_named(split.name).is_some() {
            return Err(format!(
                "{}: an entity named {:?} exists already; a split creates new entities",
                at("name"),
                split.name
            ));
        }
        if args.approved_splits[..i]
            .iter()
            .any(|s| s.name == split.name)
        {
            return Err(format!("{}: {:?} is given twice", at("name"), split.name));
        }
        for (j, &o) in split.observations.iter().enumerate() {
            if !current.iter().any(|&(c, _)| c == o) {
                return Err(format!(
                    "{}: {o:?} is not a current observation of {:?}",
                    at(&format!("observations[{j}]")),
                    args.entity_name
                ));
            }
            if moved.contains(&o) {
                return Err(format!(
                    "{}: {o:?} is assigned twice; each observation moves to one entity",
                    at(&format!("observations[{j}]"))
                ));
            }
            moved.push(o);
        }
    }
    let created: Vec<Entity<'_>> = args
        .approved_splits
        .iter()
        .map(|s| Entity {
            name: s.name,
            entity_type: s.entity_type.unwrap_or(original_type),
            observations: Vec::new(),
        })
        .collect();
    let facts: Vec<NewFacts<'_>> = args
        .approved_splits
        .iter()
        .filter(|s| !s.observations.is_empty())
        .map(|s| NewFacts {
            entity: s.name,
            facts: s
                .observations
                .iter()
                .map(|&o| NewFact {
                    text: o,
                    kind: current.iter().find(|&&(c, _)| c == o).and_then(|&(_, k)| k),
                    supersedes: 0,
                })
                .collect(),
        })
        .collect();
    let relations: Vec<NewRelation<'_>> = args
        .approved_splits
        .iter()
        .flat_map(|s| {
            // The seed creates `contiene`, whose inverse `parte_de` comes with it (then its
            // own `parte_de` exists already): only the inverse has a context.
            let inverse = INVERSES.iter().find(|i| i.0 == CONTAINS).map(|i| i.2);
            [
                (parent, s.name, CONTAINS, None),
                (s.name, parent, PART_OF, inverse),
            ]
            .map(|(from, to, r, context)| NewRelation {
                relation: Relation {
                    from,
                    to,
                    relation_type: r,
                },
                context,
            })
        })
        .collect();
    #[derive(Serialize)]
    struct ResultOut<'a> {
        new_entities: Vec<&'a str>,
        moved_observations: usize,
        relations_created: usize,
        original_observations_remaining: usize,
        parent: &'a str,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        result: ResultOut<'a>,
    }
    let result = answer(&Out {
        result: ResultOut {
            new_entities: args.approved_splits.iter().map(|s| s.name).collect(),
            moved_observations: moved.len(),
            relations_created: relations.len(),
            original_observations_remaining: current.len() - moved.len(),
            parent,
        },
    });
    let mut ops = vec![Op::CreateEntities(created)];
    if !facts.is_empty() {
        ops.push(Op::AddFacts(facts));
    }
    if !moved.is_empty() {
        ops.push(Op::DeleteObservations(vec![Observations {
            entity: args.entity_name,
            contents: moved,
        }]));
    }
    ops.push(Op::CreateRelationsWith(relations));
    Ok(Plan {
        change: Change::of(ops),
        result,
    })
}

/// How many split candidates, stale or large entities, or entities with flagged
/// observations a list shows unless asked for another number.
const LIST_LIMIT: usize = 20;

/// Entities over their type's threshold, the most over first (ties: by name), with
/// their counts and thresholds.
fn over_threshold(g: &Graph) -> Vec<(EntityId, usize, usize)> {
    let mut over: Vec<(EntityId, usize, usize)> = g
        .entities()
        .filter_map(|(id, e)| {
            let limit = threshold(g.text(e.entity_type));
            let count = e.observations.len();
            (count > limit).then_some((id, count, limit))
        })
        .collect();
    over.sort_by(|&(a, ca, la), &(b, cb, lb)| {
        (cb * la)
            .cmp(&(ca * lb))
            .then_with(|| g.text(g.entity(a).name).cmp(g.text(g.entity(b).name)))
    });
    over
}

#[derive(Deserialize)]
struct LimitArgs {
    #[serde(default)]
    limit: Option<u64>,
}

/// The first `limit` split candidates (every entity over its threshold needs a split:
/// the count alone scores over 1), analysed; most over their threshold first.
fn candidates<'g>(
    t: &Ctx<'g>,
    over: &[(EntityId, usize, usize)],
    limit: usize,
) -> Vec<AnalysisOut<'g>> {
    over.iter()
        .take(limit)
        .map(|&(id, _, _)| analyse(t, id).into())
        .collect()
}

/// find_split_candidates(limit?): the entities over their type's threshold, the most
/// over first, at most `limit` (default 20), with the total.
pub fn find_split_candidates(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let limit = crate::tools::parse::<LimitArgs>(a)?
        .limit
        .map_or(LIST_LIMIT, args::count);
    let over = over_threshold(t.graph);
    #[derive(Serialize)]
    struct Out<'a> {
        candidates: Vec<AnalysisOut<'a>>,
        total: usize,
    }
    Ok(answer(&Out {
        candidates: candidates(&t, &over, limit),
        total: over.len(),
    }))
}

/// The seed's default cosine at which two observations are duplicates.
fn default_threshold() -> f64 {
    0.85
}

/// The seed's default token containment at which a short observation is a duplicate of
/// one at least [`LENGTH_RATIO`] times as long.
fn default_containment() -> f64 {
    0.7
}

/// How many times longer (in characters) one observation must be than the other for
/// the containment test.
const LENGTH_RATIO: f64 = 2.0;

/// The distinct tokens of `text`, sorted.
fn word_set(text: &str) -> Vec<String> {
    let mut words = token_list(text);
    words.sort_unstable();
    words.dedup();
    words
}

/// The seed's containment: the share of the shorter text's distinct tokens (`small`, a
/// [`word_set`]) found in the longer one's (`large`, another); 1 when it has none.
fn containment(small: &[String], large: &[String]) -> f64 {
    if small.is_empty() {
        return 1.0;
    }
    let shared = small
        .iter()
        .filter(|w| large.binary_search(w).is_ok())
        .count();
    shared as f64 / small.len() as f64
}

/// The duplicate test: cosine at least `cosine` (with vectors), or, when one text is
/// [`LENGTH_RATIO`] times as long as the other, containment at least `contained`.
/// Without vectors the cosine test becomes: the same tokens.
struct DuplicateTest<'t> {
    table: Option<&'t Table>,
    cosine: f64,
    contained: f64,
}

impl DuplicateTest<'_> {
    fn method(&self) -> &'static str {
        if self.table.is_some() {
            "embedding"
        } else {
            "tokens"
        }
    }

    /// Clusters of duplicates among `texts` (by union-find over the duplicate pairs) and
    /// how many pairs are duplicates.
    fn clusters(&self, texts: &[&str]) -> (Vec<Vec<usize>>, usize) {
        let n = texts.len();
        let vectors: Vec<Option<Query>> = match self.table {
            Some(table) => texts.iter().map(|t| Query::of(table, t)).collect(),
            None => Vec::new(),
        };
        let token_sets: Vec<Vec<String>> = texts.iter().map(|t| word_set(t)).collect();
        let lengths: Vec<usize> = texts.iter().map(|t| t.chars().count()).collect();
        let mut sets = UnionFind::new(n);
        let mut pairs = 0;
        for i in 0..n {
            for j in i + 1..n {
                let alike = match (vectors.get(i), vectors.get(j)) {
                    (Some(Some(a)), Some(Some(b))) => f64::from(a.cosine_to(b)) >= self.cosine,
                    _ => self.table.is_none() && token_sets[i] == token_sets[j],
                };
                let (short, long) = if lengths[i] <= lengths[j] {
                    (i, j)
                } else {
                    (j, i)
                };
                let duplicate = alike
                    || (lengths[long] as f64 / lengths[short].max(1) as f64 >= LENGTH_RATIO
                        && containment(&token_sets[short], &token_sets[long]) >= self.contained);
                if duplicate {
                    pairs += 1;
                    sets.union(i, j);
                }
            }
        }
        (sets.groups(), pairs)
    }
}

#[derive(Deserialize)]
struct DuplicateArgs<'a> {
    entity_name: &'a str,
    #[serde(default = "default_threshold")]
    threshold: f64,
    #[serde(default = "default_containment")]
    containment_threshold: f64,
}

/// find_duplicate_observations(entity_name, threshold = 0.85, containment_threshold =
/// 0.7): clusters of an entity's current observations that are alike (cosine ≥
/// threshold, or token containment ≥ containment_threshold when one is twice as long as
/// the other), joined by union-find. Without an embedding table the cosine test is
/// "the same tokens" (the seed refuses).
pub fn find_duplicate_observations(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = crate::tools::parse::<DuplicateArgs>(a)?;
    let g = t.graph;
    let id = named(g, "entity_name", args.entity_name)?;
    let e = g.entity(id);
    let texts: Vec<&str> = e.observations.iter().map(|&o| g.text(o)).collect();
    let test = DuplicateTest {
        table: table(&t),
        cosine: args.threshold,
        contained: args.containment_threshold,
    };
    let (groups, pairs) = test.clusters(&texts);
    #[derive(Serialize)]
    struct ObservationOut<'a> {
        observation_id: u64,
        content: &'a str,
    }
    #[derive(Serialize)]
    struct ClusterOut<'a> {
        observations: Vec<ObservationOut<'a>>,
        size: usize,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        entity: &'a str,
        total_observations: usize,
        duplicates_found: usize,
        method: &'static str,
        clusters: Vec<ClusterOut<'a>>,
    }
    let clusters = groups
        .into_iter()
        .map(|members| ClusterOut {
            size: members.len(),
            observations: members
                .into_iter()
                .map(|i| ObservationOut {
                    observation_id: e
                        .facts
                        .get(i)
                        .map_or(0, |f| observation_id(g.text(e.name), f.id)),
                    content: texts[i],
                })
                .collect(),
        })
        .collect();
    Ok(answer(&Out {
        entity: g.text(e.name),
        total_observations: texts.len(),
        duplicates_found: pairs,
        method: test.method(),
        clusters,
    }))
}

#[derive(Deserialize)]
struct ReportArgs {
    #[serde(default = "default_stale_days")]
    stale_days: f64,
    #[serde(default)]
    limit: Option<u64>,
}

/// The seed's default age (in days) of an entity not changed since it is stale.
fn default_stale_days() -> f64 {
    90.0
}

/// The most observations of one entity the report compares pair by pair (its newest);
/// find_duplicate_observations compares them all.
const REPORT_MAX_COMPARED: usize = 200;

/// The most characters of an observation the report shows.
const PREVIEW_CHARS: usize = 80;

/// `text` cut to [`PREVIEW_CHARS`] characters, `...` after a cut.
fn preview(text: &str) -> String {
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_string(),
    }
}

/// consolidation_report(stale_days = 90, limit = 20): read-only. Split candidates (as
/// find_split_candidates), observations flagged as near duplicates within their entity
/// (find_duplicate_observations' test at its defaults, over each entity's newest
/// [`REPORT_MAX_COMPARED`]), stale entities (not archived, with observations, neither
/// used (the usage counts' last access) nor changed in `stale_days`) and large entities (over their type's threshold); each list at most
/// `limit` long, the summary counting them all.
pub fn consolidation_report(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = crate::tools::parse::<ReportArgs>(a)?;
    let limit = args.limit.map_or(LIST_LIMIT, args::count);
    let g = t.graph;
    let over = over_threshold(g);
    #[derive(Serialize)]
    struct SplitOut<'a> {
        entity_name: &'a str,
        entity_type: &'a str,
        observation_count: usize,
        threshold: usize,
        topic_diversity: f64,
        recommendation: String,
    }
    let split_candidates: Vec<SplitOut<'_>> = candidates(&t, &over, limit)
        .into_iter()
        .map(|c| SplitOut {
            recommendation: format!(
                "Split recommended — exceeds {} by {:.1}x with topic diversity {:.2}",
                c.threshold,
                c.observation_count as f64 / c.threshold as f64,
                c.split_score
            ),
            entity_name: c.entity_name,
            entity_type: c.entity_type,
            observation_count: c.observation_count,
            threshold: c.threshold,
            topic_diversity: libm::round(c.split_score * 100.0) / 100.0,
        })
        .collect();
    #[derive(Serialize)]
    struct LargeOut<'a> {
        entity_name: &'a str,
        entity_type: &'a str,
        observation_count: usize,
        threshold: usize,
        recommendation: String,
    }
    let large_entities: Vec<LargeOut<'_>> = over
        .iter()
        .take(limit)
        .map(|&(id, count, limit)| {
            let e = g.entity(id);
            let ratio = count as f64 / limit as f64;
            LargeOut {
                entity_name: g.text(e.name),
                entity_type: g.text(e.entity_type),
                observation_count: count,
                threshold: limit,
                recommendation: if ratio < 1.5 {
                    "Near threshold — monitor growth".to_string()
                } else {
                    format!("Exceeds threshold by {ratio:.1}x — evaluate for split")
                },
            }
        })
        .collect();
    #[derive(Serialize)]
    struct FlaggedOut {
        id: u64,
        content_preview: String,
        content_length: usize,
    }
    let test = DuplicateTest {
        table: table(&t),
        cosine: default_threshold(),
        contained: default_containment(),
    };
    let mut flagged: Vec<(&str, Vec<FlaggedOut>)> = Vec::new();
    let mut flagged_count = 0;
    let mut total_observations = 0;
    for (_, e) in g.entities() {
        total_observations += e.observations.len();
        let from = e.observations.len().saturating_sub(REPORT_MAX_COMPARED);
        let texts: Vec<&str> = e.observations[from..].iter().map(|&o| g.text(o)).collect();
        if texts.len() < 2 {
            continue;
        }
        let (groups, _) = test.clusters(&texts);
        let mut members: Vec<usize> = groups.into_iter().flatten().collect();
        if members.is_empty() {
            continue;
        }
        members.sort_unstable();
        flagged_count += members.len();
        let list = members
            .into_iter()
            .map(|i| FlaggedOut {
                id: e
                    .facts
                    .get(from + i)
                    .map_or(0, |f| observation_id(g.text(e.name), f.id)),
                content_preview: preview(texts[i]),
                content_length: texts[i].chars().count(),
            })
            .collect();
        flagged.push((g.text(e.name), list));
    }
    let flagged_entities = flagged.len();
    flagged.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    flagged.truncate(limit);
    flagged.sort_by(|a, b| a.0.cmp(b.0));
    #[derive(Serialize)]
    struct StaleOut<'a> {
        entity_name: &'a str,
        entity_type: &'a str,
        status: &'a str,
        observation_count: usize,
        last_access: Option<String>,
        days_since_access: Option<u64>,
        recommendation: String,
    }
    let mut stale: Vec<(EntityId, u64)> = Vec::new();
    if t.now != 0 {
        let cutoff = t.now as f64 - args.stale_days * crate::time::DAY_MS as f64;
        for (id, e) in g.entities() {
            let status = e.extra.as_deref().and_then(|x| x.status).map(|s| g.text(s));
            if e.observations.is_empty() || status == Some(ARCHIVED) {
                continue;
            }
            // Used (usage counts) or changed, whichever is later.
            let seen = t.usage(e.name).map_or(0, |u| u.last).max(e.updated);
            if (seen as f64) < cutoff {
                stale.push((id, seen));
            }
        }
    }
    stale.sort_by(|&(a, ua), &(b, ub)| {
        ua.cmp(&ub)
            .then_with(|| g.text(g.entity(a).name).cmp(g.text(g.entity(b).name)))
    });
    let stale_total = stale.len();
    let stale_entities: Vec<StaleOut<'_>> = stale
        .into_iter()
        .take(limit)
        .map(|(id, seen)| {
            let e = g.entity(id);
            let status = e.extra.as_deref().and_then(|x| x.status).map(|s| g.text(s));
            let days = (seen != 0).then(|| t.now.saturating_sub(seen) / crate::time::DAY_MS);
            StaleOut {
                entity_name: g.text(e.name),
                entity_type: g.text(e.entity_type),
                status: status.unwrap_or(ACTIVE),
                observation_count: e.observations.len(),
                last_access: seed_time(seen),
                days_since_access: days,
                recommendation: match days {
                    Some(days) => {
                        format!("Not used or changed in {days} days — consider archiving")
                    }
                    None => {
                        "Never used or changed since a known time — consider archiving or deleting"
                            .to_string()
                    }
                },
            }
        })
        .collect();
    #[derive(Serialize)]
    struct Summary {
        total_entities: usize,
        total_observations: usize,
        split_candidates_count: usize,
        flagged_observations_count: usize,
        flagged_entities_count: usize,
        stale_entities_count: usize,
        large_entities_count: usize,
        duplicate_method: &'static str,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        summary: Summary,
        split_candidates: Vec<SplitOut<'a>>,
        flagged_observations: FlaggedMap<'a>,
        stale_entities: Vec<StaleOut<'a>>,
        large_entities: Vec<LargeOut<'a>>,
    }
    /// Flagged observations by entity name, as a JSON object.
    struct FlaggedMap<'a>(Vec<(&'a str, Vec<FlaggedOut>)>);
    impl Serialize for FlaggedMap<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
        }
    }
    Ok(answer(&Out {
        summary: Summary {
            total_entities: g.entity_count(),
            total_observations,
            split_candidates_count: over.len(),
            flagged_observations_count: flagged_count,
            flagged_entities_count: flagged_entities,
            stale_entities_count: stale_total,
            large_entities_count: over.len(),
            duplicate_method: test.method(),
        },
        split_candidates,
        flagged_observations: FlaggedMap(flagged),
        stale_entities,
        large_entities,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_find_joins_sets_and_lists_those_of_two_or_more() {
        let mut u = UnionFind::new(6);
        u.union(4, 1);
        u.union(1, 5);
        u.union(2, 3);
        assert_eq!(u.find(5), 1);
        assert_eq!(u.groups(), vec![vec![1, 4, 5], vec![2, 3]]);
    }

    /// Distances between points on a line, as the clustering takes them.
    fn line(x: &[f32]) -> Vec<f32> {
        let n = x.len();
        (0..n * n).map(|k| (x[k / n] - x[k % n]).abs()).collect()
    }

    #[test]
    fn linkage_merges_nearest_first_and_cuts_into_k() {
        // Points on a line: {0, 0.1, 0.2} and {5, 5.1}, and 20 far away.
        let x = [0.0_f32, 5.0, 0.1, 5.1, 0.2, 20.0];
        let merges = linkage(x.len(), line(&x));
        assert_eq!(cut(6, &merges, 3), vec![vec![0, 2, 4], vec![1, 3], vec![5]]);
        assert_eq!(cut(6, &merges, 1), vec![vec![0, 1, 2, 3, 4, 5]]);
        assert_eq!(cut(6, &merges, 6).len(), 6);
    }

    #[test]
    fn linkage_uses_the_mean_distance_between_clusters() {
        // 0–1 at 0.2; 2 is 0.4 from 0 but 0.8 from 1: the mean, 0.6, is the last merge.
        let d = vec![0.0, 0.2, 0.4, 0.2, 0.0, 0.8, 0.4, 0.8, 0.0];
        let merges = linkage(3, d);
        assert_eq!(merges.iter().map(|m| m.2).collect::<Vec<_>>(), [0.2, 0.6]);
    }

    #[test]
    fn the_cut_is_where_clusters_are_best_apart_and_only_if_they_are() {
        let x = [0.0_f32, 5.0, 0.1, 5.1, 0.2, 20.0, 20.1];
        let clusters = clusters_by_meaning(x.len(), |i, j| (x[i] - x[j]).abs());
        assert_eq!(clusters, Some(vec![vec![0, 2, 4], vec![1, 3], vec![5, 6]]));
        // Points all as far from each other have no clusters.
        assert_eq!(clusters_by_meaning(12, |_, _| 1.0), None);
    }

    #[test]
    fn tfidf_groups_observations_by_their_top_word() {
        let texts = [
            "pipeline deploys every night",
            "pipeline failed on tuesday",
            "recipe for lemon cake",
            "recipe needs sugar",
        ];
        let topics = tfidf_topics(&texts);
        let got: Vec<(&str, &[usize])> = topics
            .iter()
            .map(|t| (t.name.as_str(), t.members.as_slice()))
            .collect();
        assert_eq!(
            got,
            vec![("Pipeline", &[0, 1][..]), ("Recipe", &[2, 3][..])]
        );
    }

    #[test]
    fn containment_counts_the_shorter_texts_tokens_in_the_longer() {
        let long = word_set("a red car, parked outside; a RED car");
        assert_eq!(containment(&word_set("Red car"), &long), 1.0);
        assert_eq!(containment(&word_set("red bike"), &long), 0.5);
        assert_eq!(containment(&word_set(""), &long), 1.0);
    }
}
