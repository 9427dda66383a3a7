//! Query evaluation and scoring.
//!
//! A parsed query is first *resolved* against the index: each word becomes the terms it
//! matches (itself exactly, terms it is a prefix of, and, in the typo pass, terms a typo
//! away), each with a weight; a word under `NOT` matches itself only. Evaluation then walks posting lists only: every node yields
//! its hits (entity slot, score, matched fields) in slot order, and a conjunction evaluates
//! its cheapest part first and the others only on the entities still in the running, by
//! galloping through their posting lists. Nothing visits every entity except a query made of
//! exclusions alone.
//!
//! A term's score in an entity is BM25 per field, summed with field weights:
//! `idf · Σ_f w_f · tf_f·(k1+1) / (tf_f + k1·(1 − b + b·len_f/avglen_f))`, with
//! `idf = ln(1 + (N − df + 0.5)/(df + 0.5))`. For the name and the type, `len` is the
//! field's length in tokens; for observations it is the mean length of the observations the
//! term occurs in (and `avglen` the mean observation length), so a fact scores the same in
//! an entity with one observation and in one with a hundred.
//!
//! A word's score is the best of its terms' scores times the term's weight: exact 1, prefix
//! 0.35–0.7 (by how much of the term the word covers), typo 0.3 or 0.2. An exact term has
//! its own idf; prefix and typo terms share the idf of all the word's terms together, so a
//! rare completion does not outrank a common one by rarity alone. A phrase scores like one
//! term whose idf is the sum of its terms' and whose frequency is the number of times the
//! phrase occurs. Conjunctions and disjunctions add their parts' scores; a relaxed
//! conjunction (any part) multiplies the sum by the square of the share of parts that matched.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use super::fuzzy;
use super::index::{FIELDS, OBS, Occ, SearchIndex, TYPE, field_of, gallop, live, obs_len_of};
use super::query::Node;

/// BM25 term-frequency saturation.
const BM25_K1: f64 = 1.2;
/// BM25 length normalisation.
const BM25_B: f64 = 0.75;
/// The same, as the index's scores (f32) use them.
const K1: f32 = BM25_K1 as f32;
const B: f32 = BM25_B as f32;

/// BM25's score of a term of inverse document frequency `idf` found `tf` times in a
/// document of `len` words, where documents average `average` words (at least 1). The
/// index scores with the same parameters, precomputed per field.
pub(crate) fn bm25(idf: f64, tf: f64, len: f64, average: f64) -> f64 {
    idf * tf * (BM25_K1 + 1.0) / (tf + BM25_K1 * (1.0 - BM25_B + BM25_B * len / average))
}
/// Field weights: name, type, observations.
const WEIGHTS: [f32; FIELDS] = [3.0, 1.5, 1.0];
/// Prefix expansions kept per word (the shortest terms, then the most frequent).
const MAX_PREFIX_TERMS: usize = 50;
/// Prefix matches looked at per word before choosing.
const PREFIX_SCAN: usize = 4096;
/// Typo expansions kept per word (the closest, then the most frequent).
const MAX_TYPO_TERMS: usize = 20;
/// Leading characters a typo match must share with the word, at one and at two edits: a
/// first-letter typo is looked for only in short words (walking the whole dictionary at two
/// edits costs milliseconds; from the first letter on, a tenth of that).
const TYPO_LEAD: [usize; 2] = [0, 1];
/// Weight of a typo match at one and at two edits.
const TYPO_WEIGHTS: [f32; 2] = [0.3, 0.2];

/// One matching entity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    pub(crate) doc: u32,
    pub(crate) score: f32,
    /// Bit `f` set when field `f` matched.
    pub(crate) fields: u8,
    /// Parts of a disjunction that matched (for a relaxed conjunction's share).
    parts: u8,
}

impl Hit {
    fn new(doc: u32, score: f32, fields: u8) -> Hit {
        Hit {
            doc,
            score,
            fields,
            parts: 1,
        }
    }
}

/// Ids ordered by a key (ascending), ties by id: one sort of `u64`s (every sort by a new
/// comparator is another copy of the sort code in WebAssembly).
fn by_key(ids: &mut [u32], key: impl Fn(u32) -> u32) {
    let mut keyed: Vec<u64> = ids
        .iter()
        .map(|&id| u64::from(key(id)) << 32 | u64::from(id))
        .collect();
    super::sort::by_u64(&mut keyed, |&k| k);
    for (id, k) in ids.iter_mut().zip(keyed) {
        *id = k as u32;
    }
}

/// Merges two hit lists sorted by doc; `both` combines the hits of a doc in both.
fn merge(a: Vec<Hit>, b: Vec<Hit>, both: fn(&mut Hit, &Hit)) -> Vec<Hit> {
    if a.is_empty() {
        return b;
    }
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.doc == y.doc => {
                let mut h = *x;
                both(&mut h, y);
                out.push(h);
                a.next();
                b.next();
            }
            (Some(x), Some(y)) if x.doc < y.doc => out.extend(a.next()),
            (Some(_), Some(_)) => out.extend(b.next()),
            (Some(_), None) => out.extend(a.by_ref()),
            (None, Some(_)) => out.extend(b.by_ref()),
            (None, None) => break,
        }
    }
    out
}

fn keep_best(h: &mut Hit, other: &Hit) {
    h.score = h.score.max(other.score);
    h.fields |= other.fields;
}

fn add_up(h: &mut Hit, other: &Hit) {
    h.score += other.score;
    h.fields |= other.fields;
    h.parts = h.parts.saturating_add(other.parts);
}

/// How words are expanded.
#[derive(Clone, Copy)]
pub(crate) struct Mode {
    /// Add terms a typo away.
    pub(crate) typos: bool,
    /// Read implicit conjunctions as "any part", scored by how many parts match.
    pub(crate) relaxed: bool,
    /// Shortest word (in characters) that also matches as a prefix.
    pub(crate) prefix_min: usize,
}

impl Mode {
    /// Exact words only: what an exclusion matches (`-java` keeps "javascript").
    pub(crate) fn exact(self) -> Mode {
        Mode {
            typos: false,
            relaxed: self.relaxed,
            prefix_min: usize::MAX,
        }
    }
}

/// A query node with its terms looked up.
enum Plan {
    Terms {
        /// Term ids with their weight times idf.
        terms: Vec<(u32, f32)>,
        field: Option<usize>,
        cost: usize,
    },
    Phrase {
        /// Term ids in phrase order, or empty when a token is not indexed.
        ids: Vec<u32>,
        field: Option<usize>,
        cost: usize,
    },
    And {
        parts: Vec<Plan>,
        not: Vec<Plan>,
        any: bool,
    },
    Or(Vec<Plan>),
    Not(Box<Plan>),
}

impl Plan {
    fn cost(&self, n: usize) -> usize {
        match self {
            Plan::Terms { cost, .. } | Plan::Phrase { cost, .. } => *cost,
            Plan::And { parts, any, .. } => {
                let costs = parts.iter().map(|p| p.cost(n));
                if *any {
                    costs.sum()
                } else {
                    costs.min().unwrap_or(n)
                }
            }
            Plan::Or(parts) => parts.iter().map(|p| p.cost(n)).sum(),
            Plan::Not(_) => n,
        }
    }
}

/// `ln(x)` for `x > 0`, to about 1e-7 (no `std` here): `x = m·2^e`, and
/// `ln m = 2·atanh((m−1)/(m+1))` by its series.
pub(crate) fn ln(x: f64) -> f64 {
    if x <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7FF) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1u64 << 52) - 1)) | (1023u64 << 52));
    if m > core::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let series = s
        * (2.0
            + s2 * (2.0 / 3.0
                + s2 * (2.0 / 5.0 + s2 * (2.0 / 7.0 + s2 * (2.0 / 9.0 + s2 * (2.0 / 11.0))))));
    e as f64 * core::f64::consts::LN_2 + series
}

/// Scoring constants of one query.
pub(crate) struct Scorer<'a> {
    pub(crate) index: &'a SearchIndex,
    n: f64,
    /// `k1·(1−b)` and `k1·b/avglen` per field.
    norm: [(f32, f32); FIELDS],
}

impl<'a> Scorer<'a> {
    pub(crate) fn new(index: &'a SearchIndex) -> Self {
        let n = index.live.max(1) as f64;
        let mut norm = [(0.0, 0.0); FIELDS];
        for (f, slot) in norm.iter_mut().enumerate() {
            let units = if f == OBS {
                index.total_obs.max(1) as f64
            } else {
                n
            };
            let avg = (index.total_len[f] as f64 / units).max(1.0);
            *slot = (K1 * (1.0 - B), (K1 as f64 * B as f64 / avg) as f32);
        }
        Scorer { index, n, norm }
    }

    fn idf(&self, df: usize) -> f32 {
        let df = df as f64;
        ln(1.0 + (self.n - df + 0.5) / (df + 0.5)) as f32
    }

    /// `Σ_f w_f · tf_f·(k1+1)/(tf_f + norm_f)` over the fields counted in `tf`, where
    /// `obs_lens` is the sum of the observation lengths at the observation matches.
    fn fields_score(
        &self,
        doc: u32,
        tf: &[u32; FIELDS],
        obs_lens: u32,
        only: Option<usize>,
    ) -> (f32, u8) {
        let lens = &self.index.docs[doc as usize].len;
        let mut score = 0.0;
        let mut mask = 0u8;
        for f in 0..FIELDS {
            if tf[f] == 0 || only.is_some_and(|o| o != f) {
                continue;
            }
            let t = tf[f] as f32;
            let len = if f == OBS {
                obs_lens as f32 / t
            } else {
                lens[f] as f32
            };
            let (a, b) = self.norm[f];
            score += WEIGHTS[f] * t * (K1 + 1.0) / (t + a + b * len);
            mask |= 1 << f;
        }
        (score, mask)
    }

    /// The BM25 score (without idf) of a term's run of occurrences in one entity.
    fn run_score(&self, run: &[Occ], only: Option<usize>) -> (f32, u8) {
        let mut tf = [0u32; FIELDS];
        let mut obs_lens = 0;
        for o in run {
            tf[field_of(o.pos)] += 1;
            obs_lens += obs_len_of(o.pos);
        }
        self.fields_score(run[0].doc, &tf, obs_lens, only)
    }
}

/// The run of postings starting at `at` (all of one entity; dead ones included).
fn run_at(list: &[Occ], at: usize) -> &[Occ] {
    let doc = list[at].doc;
    let len = list[at..].iter().take_while(|o| o.doc == doc).count();
    &list[at..at + len]
}

/// Where `doc`'s run starts in `list`, searching from `from`: `Ok` if it has one.
fn seek(list: &[Occ], from: usize, doc: u32) -> Result<usize, usize> {
    let at = gallop(list, from, doc, |o| o.doc);
    match list.get(at) {
        Some(o) if o.doc == doc => Ok(at),
        _ => Err(at),
    }
}

/// Calls `f` with the live run of each entity of postings `list` that is in `filter` (both
/// ascending), or of every entity when there is no filter; `df` is the number of live runs.
fn each_run<'e>(list: &'e [Occ], df: usize, filter: Option<&[u32]>, mut f: impl FnMut(&'e [Occ])) {
    let mut f = |run: &'e [Occ]| {
        let run = live(run);
        if !run.is_empty() {
            f(run);
        }
    };
    let Some(filter) = filter else {
        list.chunk_by(|a, b| a.doc == b.doc).for_each(f);
        return;
    };
    if filter.len() <= df {
        let mut at = 0;
        for &doc in filter {
            match seek(list, at, doc) {
                Ok(start) => {
                    let run = run_at(list, start);
                    at = start + run.len();
                    f(run);
                }
                Err(next) => at = next,
            }
            if at == list.len() {
                break;
            }
        }
    } else {
        let mut at = 0;
        for run in list.chunk_by(|a, b| a.doc == b.doc) {
            at = gallop(filter, at, run[0].doc, |&d| d);
            if at == filter.len() {
                break;
            }
            if filter[at] == run[0].doc {
                f(run);
            }
        }
    }
}

/// The docs of hits (sorted by doc, so the docs come out sorted).
fn docs_of(hits: &[Hit]) -> Vec<u32> {
    hits.iter().map(|h| h.doc).collect()
}

/// Resolves words into terms, counting the typo terms added in `typos`.
fn plan(node: &Node, s: &Scorer<'_>, mode: Mode, typos: &mut usize) -> Plan {
    let index = s.index;
    match node {
        Node::Word { text, field, exact } => {
            let mut terms: Vec<(u32, f32)> = Vec::new();
            let exact_id = index.term(text);
            terms.extend(exact_id.map(|id| (id, 1.0)));
            let df = |id: u32| index.terms[id as usize].df as usize;
            let chars = text.chars().count();
            if !exact && chars >= mode.prefix_min {
                let mut found = index.prefixed(text, PREFIX_SCAN);
                let len = |id: u32| index.terms[id as usize].text.len();
                // The shortest completions first, then the commonest.
                by_key(&mut found, |id| {
                    (len(id).min(255) as u32) << 24 | (0xFF_FFFF - df(id).min(0xFF_FFFF) as u32)
                });
                found.truncate(MAX_PREFIX_TERMS);
                for id in found {
                    let cover = text.len() as f32 / len(id) as f32;
                    terms.push((id, 0.35 + 0.35 * cover));
                }
            }
            let max = fuzzy::max_edits(chars);
            let known = exact_id.is_some();
            if !exact && !known && mode.typos && max > 0 && !text.chars().any(|c| c.is_numeric()) {
                let word: Vec<char> = text.chars().collect();
                let lead = TYPO_LEAD[(max as usize - 1).min(1)];
                let mut near = fuzzy::near(index, &word, max, lead);
                near.retain(|(id, _)| !terms.iter().any(|(t, _)| t == id));
                let dist = |id: u32| near.iter().find(|n| n.0 == id).map_or(2, |n| n.1);
                let mut ids: Vec<u32> = near.iter().map(|n| n.0).collect();
                // The closest first, then the commonest.
                by_key(&mut ids, |id| {
                    dist(id) << 24 | (0xFF_FFFF - df(id).min(0xFF_FFFF) as u32)
                });
                ids.truncate(MAX_TYPO_TERMS);
                *typos += ids.len();
                for id in ids {
                    let d = dist(id) as usize;
                    terms.push((id, TYPO_WEIGHTS[(d - 1).min(1)]));
                }
            }
            let cost: usize = terms.iter().map(|&(id, _)| df(id)).sum();
            // Prefix and typo terms share the idf of all the word's terms together.
            let shared = s.idf(cost.min(index.len()));
            for (k, (id, w)) in terms.iter_mut().enumerate() {
                let exact = k == 0 && exact_id.is_some();
                *w *= if exact { s.idf(df(*id)) } else { shared };
            }
            Plan::Terms {
                terms,
                field: *field,
                cost,
            }
        }
        Node::Phrase { terms, field } => {
            let ids: Option<Vec<u32>> = terms.iter().map(|t| index.term(t)).collect();
            let ids = ids.unwrap_or_default();
            let cost = ids
                .iter()
                .map(|&id| index.terms[id as usize].df as usize)
                .min()
                .unwrap_or(0);
            Plan::Phrase {
                ids,
                field: *field,
                cost,
            }
        }
        Node::And(parts, implicit) => {
            let (mut pos, mut not) = (Vec::new(), Vec::new());
            for p in parts {
                match p {
                    Node::Not(inner) => not.push(plan(inner, s, mode.exact(), typos)),
                    p => pos.push(plan(p, s, mode, typos)),
                }
            }
            // The cheapest part first: the others then only look at what it found.
            let n = index.len();
            let mut order: Vec<u32> = (0..pos.len() as u32).collect();
            by_key(&mut order, |k| {
                pos[k as usize].cost(n).min(u32::MAX as usize) as u32
            });
            let mut slots: Vec<Option<Plan>> = pos.into_iter().map(Some).collect();
            let pos = order
                .iter()
                .filter_map(|&k| slots[k as usize].take())
                .collect();
            Plan::And {
                parts: pos,
                not,
                any: *implicit && mode.relaxed,
            }
        }
        Node::Or(parts) => Plan::Or(parts.iter().map(|p| plan(p, s, mode, typos)).collect()),
        Node::Not(inner) => Plan::Not(Box::new(plan(inner, s, mode.exact(), typos))),
    }
}

/// Hits of a word: the best of its terms per entity.
fn eval_terms(
    s: &Scorer<'_>,
    terms: &[(u32, f32)],
    field: Option<usize>,
    filter: Option<&[u32]>,
) -> Vec<Hit> {
    let index = s.index;
    let mut hits = Vec::new();
    let add = |id: u32, w: f32| {
        let mut hits = Vec::new();
        let term = &index.terms[id as usize];
        each_run(&term.postings, term.df as usize, filter, |run| {
            let (score, fields) = s.run_score(run, field);
            if fields != 0 {
                hits.push(Hit::new(run[0].doc, score * w, fields));
            }
        });
        hits
    };
    match terms {
        [] => {}
        [(id, weight)] => hits = add(*id, *weight),
        _ => {
            let postings: usize = terms
                .iter()
                .map(|&(id, _)| index.terms[id as usize].df as usize)
                .sum();
            if postings < index.docs.len() / 8 {
                for &(id, weight) in terms {
                    hits = merge(hits, add(id, weight), keep_best);
                }
            } else {
                // Many hits: keep the best per entity in an array rather than sorting.
                let mut best = vec![(0f32, 0u8); index.docs.len()];
                for &(id, w) in terms {
                    let term = &index.terms[id as usize];
                    each_run(&term.postings, term.df as usize, filter, |run| {
                        let (score, fields) = s.run_score(run, field);
                        let slot = &mut best[run[0].doc as usize];
                        slot.0 = slot.0.max(score * w);
                        slot.1 |= fields;
                    });
                }
                hits.extend(
                    best.iter()
                        .enumerate()
                        .filter(|(_, b)| b.1 != 0)
                        .map(|(doc, &(score, fields))| Hit::new(doc as u32, score, fields)),
                );
            }
        }
    }
    hits
}

/// Hits of a phrase: entities where its terms occur at adjacent positions of one field.
fn eval_phrase(
    s: &Scorer<'_>,
    ids: &[u32],
    field: Option<usize>,
    filter: Option<&[u32]>,
) -> Vec<Hit> {
    let index = s.index;
    let mut hits = Vec::new();
    if ids.is_empty() {
        return hits;
    }
    let terms: Vec<&super::index::Term> = ids.iter().map(|&id| &index.terms[id as usize]).collect();
    let rarest = (0..terms.len()).min_by_key(|&k| terms[k].df).unwrap_or(0);
    let idf: f32 = terms.iter().map(|t| s.idf(t.df as usize)).sum();
    let mut cursors = vec![0usize; terms.len()];
    let mut runs: Vec<&[Occ]> = Vec::with_capacity(terms.len());
    let rare = terms[rarest];
    each_run(&rare.postings, rare.df as usize, filter, |run| {
        let doc = run[0].doc;
        runs.clear();
        for (k, t) in terms.iter().enumerate() {
            match seek(&t.postings, cursors[k], doc) {
                Ok(at) => {
                    cursors[k] = at;
                    let run = live(run_at(&t.postings, at));
                    if run.is_empty() {
                        return;
                    }
                    runs.push(run);
                }
                Err(at) => {
                    cursors[k] = at;
                    return;
                }
            }
        }
        let mut tf = [0u32; FIELDS];
        let mut obs_lens = 0;
        for o in runs[0] {
            let (p, f) = (o.pos, field_of(o.pos));
            if field.is_some_and(|only| only != f) {
                continue;
            }
            let adjacent = runs[1..].iter().enumerate().all(|(k, run)| {
                let want = p + k as u32 + 1;
                field_of(want) == f && run.binary_search_by_key(&want, |o| o.pos).is_ok()
            });
            if adjacent {
                tf[f] += 1;
                obs_lens += obs_len_of(p);
            }
        }
        let (score, fields) = s.fields_score(doc, &tf, obs_lens, field);
        if fields != 0 {
            hits.push(Hit::new(doc, score * idf, fields));
        }
    });
    hits
}

/// Every indexed entity (in `filter`, if given), unscored.
fn everything(s: &Scorer<'_>, filter: Option<&[u32]>) -> Vec<Hit> {
    let hit = |doc| Hit::new(doc, 0.0, 0);
    match filter {
        Some(docs) => docs.iter().map(|&d| hit(d)).collect(),
        None => (s.index.docs.iter().enumerate())
            .filter(|(_, d)| d.live)
            .map(|(i, _)| hit(i as u32))
            .collect(),
    }
}

/// `hits` without the docs of `out` (both ascending).
fn subtract(hits: &mut Vec<Hit>, out: &[Hit]) {
    let mut at = 0;
    hits.retain(|h| {
        at = gallop(out, at, h.doc, |x| x.doc);
        !(at < out.len() && out[at].doc == h.doc)
    });
}

/// The union of hit lists, scores added; with `coord`, scaled by the square of the share of
/// lists hit (a question's answer holds most of its words: coverage outweighs one strong word).
fn union(lists: Vec<Vec<Hit>>, coord: bool) -> Vec<Hit> {
    let parts = lists.len() as f32;
    let mut all = lists
        .into_iter()
        .fold(Vec::new(), |acc, l| merge(acc, l, add_up));
    for h in &mut all {
        if coord {
            let share = h.parts as f32 / parts;
            h.score *= share * share;
        }
        h.parts = 1;
    }
    all
}

fn eval(s: &Scorer<'_>, plan: &Plan, filter: Option<&[u32]>) -> Vec<Hit> {
    match plan {
        Plan::Terms { terms, field, .. } => eval_terms(s, terms, *field, filter),
        Plan::Phrase { ids, field, .. } => eval_phrase(s, ids, *field, filter),
        Plan::And { parts, not, any } => {
            let mut acc = if parts.is_empty() {
                everything(s, filter)
            } else if *any {
                union(parts.iter().map(|p| eval(s, p, filter)).collect(), true)
            } else {
                let mut acc = eval(s, &parts[0], filter);
                for part in &parts[1..] {
                    if acc.is_empty() {
                        break;
                    }
                    let docs = docs_of(&acc);
                    let more = eval(s, part, Some(&docs));
                    // `more` is a subset of `acc`: keep the docs in both, scores added.
                    let mut at = 0;
                    acc.retain_mut(|h| {
                        at = gallop(&more, at, h.doc, |x| x.doc);
                        match more.get(at) {
                            Some(m) if m.doc == h.doc => {
                                h.score += m.score;
                                h.fields |= m.fields;
                                true
                            }
                            _ => false,
                        }
                    });
                }
                acc
            };
            for n in not {
                if acc.is_empty() {
                    break;
                }
                let docs = docs_of(&acc);
                let out = eval(s, n, Some(&docs));
                subtract(&mut acc, &out);
            }
            acc
        }
        Plan::Or(parts) => union(parts.iter().map(|p| eval(s, p, filter)).collect(), false),
        Plan::Not(inner) => {
            let mut all = everything(s, filter);
            let out = eval(s, inner, filter);
            subtract(&mut all, &out);
            all
        }
    }
}

/// The hits of a query, in slot order; `None` for a typo pass that found no typo terms
/// (it would find what the pass without typos found) when `skip_if_no_typos`.
#[inline(never)]
pub(crate) fn run(
    index: &SearchIndex,
    node: &Node,
    mode: Mode,
    filter: Option<&[u32]>,
    skip_if_no_typos: bool,
) -> Option<Vec<Hit>> {
    let s = Scorer::new(index);
    let mut typos = 0;
    let p = plan(node, &s, mode, &mut typos);
    if skip_if_no_typos && typos == 0 {
        return None;
    }
    Some(eval(&s, &p, filter))
}

/// Entities whose type, tokenised, is exactly `tokens` (ascending slots).
pub(crate) fn typed(index: &SearchIndex, tokens: &[alloc::string::String]) -> Vec<u32> {
    let exact_len = |doc: u32| index.docs[doc as usize].len[TYPE] as usize == tokens.len();
    if tokens.is_empty() {
        return (index.docs.iter().enumerate())
            .filter(|(_, d)| d.live && d.len[TYPE] == 0)
            .map(|(i, _)| i as u32)
            .collect();
    }
    let s = Scorer::new(index);
    let ids: Option<Vec<u32>> = tokens.iter().map(|t| index.term(t)).collect();
    let hits = eval_phrase(&s, &ids.unwrap_or_default(), Some(TYPE), None);
    hits.into_iter()
        .map(|h| h.doc)
        .filter(|&d| exact_len(d))
        .collect()
}

/// Whether the typo pass could find more: a word long enough to have typo matches.
pub(crate) fn has_typo_words(node: &Node) -> bool {
    match node {
        Node::Word { text, exact, .. } => {
            !exact
                && fuzzy::max_edits(text.chars().count()) > 0
                && !text.chars().any(|c| c.is_numeric())
        }
        Node::Phrase { .. } => false,
        Node::And(parts, _) | Node::Or(parts) => parts.iter().any(has_typo_words),
        Node::Not(_) => false,
    }
}

/// Whether the query has an implicit conjunction of two or more positive parts to relax.
pub(crate) fn has_implicit_and(node: &Node) -> bool {
    match node {
        Node::And(parts, implicit) => {
            let positive = parts.iter().filter(|p| !matches!(p, Node::Not(_))).count();
            (*implicit && positive > 1) || parts.iter().any(has_implicit_and)
        }
        Node::Or(parts) => parts.iter().any(has_implicit_and),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_is_accurate() {
        for &(x, want) in &[
            (1.0, 0.0),
            (2.0, core::f64::consts::LN_2),
            (core::f64::consts::E, 1.0),
            (10.0, core::f64::consts::LN_10),
            (0.001, -6.907755278982137),
            (12345.678, 9.421061919),
        ] {
            assert!(
                (ln(x) - want).abs() < 1e-6,
                "ln({x}) = {} not {want}",
                ln(x)
            );
        }
    }
}
