//! Ranked full-text search over entities: the index behind the `search` tool, and the
//! relevance order for `search_nodes`.
//!
//! - [`text`]: folding (case, diacritics) and tokenisation, the same for text and queries.
//! - [`index`]: the inverted index (per-term postings with positions, per-field lengths),
//!   built by the first search and kept up to date through `Indexes` (an observer of
//!   `Graph::apply`).
//! - [`query`]: the query language (words, phrases, `AND`/`OR`/`NOT`, field filters).
//! - `eval`: resolving words into terms (exact, prefix, typo) and BM25 scoring over
//!   posting lists; `fuzzy`: bounded edit-distance lookup in the term dictionary.
//!
//! How a query runs ([`search`]): its words are ANDed (exact and prefix matches). If that
//! finds fewer hits than the page asks for (offset + limit), it runs again with typo matches
//! for the words that are not in the index at all (4 letters or more, no digits: one edit up
//! to 7 letters, two from 8, with the first letter kept at two); if it still finds nothing
//! (or the query is three words or more side by side — a sentence or a question, stopwords
//! dropped) and it has an implicit conjunction (words side by side, no `AND`), that becomes
//! "any word", scored by the square of the share of the words that match. Strict AND first keeps
//! multi-word queries precise; the relaxed pass means a question in natural language, whose
//! words never all occur, still finds something. Hits are ordered by score (ties in
//! insertion order) and only the requested page is selected (a bounded heap) and sorted.
//!
//! The index is never rebuilt for a query: it is built by the first search after start (not
//! during replay) and after the graph re-packs its arenas, and every change in between
//! updates it per entity.

mod eval;
mod fuzzy;
pub mod index;
pub mod query;
pub mod rerank;
mod sort;
pub mod text;

use alloc::vec::Vec;

use crate::graph::{EntityId, Graph};
use eval::Mode;
pub(crate) use eval::{bm25, ln};
pub use index::SearchIndex;
use query::Node;
pub use rerank::Boost;

/// Field names, by field number, as results report them.
pub const FIELD_NAMES: [&str; index::FIELDS] = ["name", "entityType", "observations"];

/// What to return.
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    /// Only entities of this type (compared folded and tokenised: `Person` = `person`).
    pub entity_type: Option<&'a str>,
    /// Hits to return at most.
    pub limit: usize,
    /// Best hits to skip first.
    pub offset: usize,
    /// Give entities related to the best hits a share of their score (graph expansion).
    pub expand: bool,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            entity_type: None,
            limit: 10,
            offset: 0,
            expand: false,
        }
    }
}

/// One ranked entity.
#[derive(Clone, Copy, Debug)]
pub struct Found {
    /// The entity.
    pub id: EntityId,
    /// Its relevance score (higher is better).
    pub score: f32,
    /// Bit `f` set when field `f` matched (see [`FIELD_NAMES`]).
    pub fields: u8,
    /// What the second stage added (proximity, graph expansion).
    pub boost: Boost,
}

impl Found {
    /// Names of the fields that matched, in field order.
    pub fn matched(&self) -> impl Iterator<Item = &'static str> + '_ {
        (0..index::FIELDS)
            .filter(|f| self.fields & (1 << f) != 0)
            .map(|f| FIELD_NAMES[f])
    }
}

/// A page of ranked hits.
#[derive(Debug, Default)]
pub struct Results {
    /// The requested page, best first.
    pub hits: Vec<Found>,
    /// Number of matching entities in all.
    pub total: usize,
}

/// Words of fewer characters are matched exactly, not as prefixes.
const PREFIX_MIN: usize = 2;

/// Runs a query (see the module docs and [`query`] for the language). Never fails: a query
/// that does not parse is read as plain words, and one with nothing to search gets no hits.
pub fn search(graph: &Graph, index: &SearchIndex, query: &str, options: &Options<'_>) -> Results {
    let Some(node) = query::parse(query) else {
        return Results::default();
    };
    run(graph, index, &query::without_stopwords(node), options)
}

/// The entities that best match a question asked in words (`query` read as plain words,
/// stopwords dropped, relaxed to "any word" when no entity has them all), best first:
/// what `search_nodes` adds to the reference's substring matches.
pub fn question(graph: &Graph, index: &SearchIndex, query: &str, options: &Options<'_>) -> Results {
    let Some(node) = query::plain(query) else {
        return Results::default();
    };
    run(graph, index, &query::without_stopwords(node), options)
}

/// How a query's text is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// In the query language ([`search`]).
    Query,
    /// As plain words ([`question`]).
    Question,
}

impl Reading {
    /// The hits of `query` read this way.
    pub fn rank(
        self,
        graph: &Graph,
        index: &SearchIndex,
        query: &str,
        options: &Options<'_>,
    ) -> Results {
        match self {
            Reading::Query => search(graph, index, query, options),
            Reading::Question => question(graph, index, query, options),
        }
    }
}

/// The slots of entities of type `entity_type` (compared folded and tokenised, as
/// [`Options::entity_type`]), ascending.
pub fn of_type(index: &SearchIndex, entity_type: &str) -> Vec<u32> {
    eval::typed(index, &text::token_list(entity_type))
}

/// Whether a query holds several words that are not stopwords (a question or a phrase in
/// words rather than one term).
pub fn has_several_words(query: &str) -> bool {
    let mut content = 0;
    text::tokens(query, &mut alloc::string::String::new(), &mut |t| {
        content += usize::from(!text::is_stopword(t));
    });
    content >= 2
}

/// The entities a query's hard part admits ([`query::constraint`]): what meaning adds to
/// a ranking, and what a relaxed conjunction finds, must satisfy it.
#[derive(Debug)]
pub struct Constraint {
    /// Slots, ascending.
    slots: Vec<u32>,
    /// Whether `slots` are the entities left out (a constraint of exclusions alone).
    excluded: bool,
}

impl Constraint {
    /// Whether the entity in `slot` satisfies the constraint.
    pub fn admits(&self, slot: u32) -> bool {
        self.slots.binary_search(&slot).is_ok() != self.excluded
    }

    /// `node` (a hard part) evaluated: words as a search matches them (exactly or as a
    /// prefix, no typos), exclusions exactly.
    fn of(index: &SearchIndex, node: &Node) -> Constraint {
        let excluded: Option<Vec<&Node>> = match node {
            Node::Not(x) => Some(alloc::vec![&**x]),
            Node::And(parts, _) => parts
                .iter()
                .map(|p| match p {
                    Node::Not(x) => Some(&**x),
                    _ => None,
                })
                .collect(),
            _ => None,
        };
        let docs = |node: &Node, mode: Mode| -> Vec<u32> {
            let hits = eval::run(index, node, mode, None, false).unwrap_or_default();
            hits.into_iter().map(|h| h.doc).collect()
        };
        let mode = Mode {
            typos: false,
            relaxed: false,
            prefix_min: PREFIX_MIN,
        };
        match excluded {
            Some(out) => {
                let exact = mode.exact();
                let mut slots: Vec<u32> = out.into_iter().flat_map(|x| docs(x, exact)).collect();
                slots.sort_unstable();
                slots.dedup();
                Constraint {
                    slots,
                    excluded: true,
                }
            }
            None => Constraint {
                slots: docs(node, mode),
                excluded: false,
            },
        }
    }
}

/// A query as meaning ranks it: the text to embed (as written, or, with operators, its
/// words and phrases, not what it excludes) and the constraint of its hard part, if it
/// has one. A question (`reading`
/// [`Reading::Question`]) is all plain words; `index` is asked for only when there is a
/// constraint to evaluate.
pub fn for_meaning<'i>(
    index: impl FnOnce() -> &'i SearchIndex,
    query: &str,
    reading: Reading,
) -> (alloc::string::String, Option<Constraint>) {
    let parsed = match reading {
        Reading::Query => query::parse(query).map(query::without_stopwords),
        Reading::Question => None,
    };
    let Some(node) = parsed else {
        return (query.into(), None);
    };
    match query::constraint(&node) {
        // Plain words: embedded as written.
        None => (query.into(), None),
        Some(c) => (
            query::meaning_text(&node),
            Some(Constraint::of(index(), &c)),
        ),
    }
}

/// Runs a parsed query over `graph` and its ranked index.
#[inline(never)]
pub fn run(graph: &Graph, index: &SearchIndex, node: &Node, options: &Options<'_>) -> Results {
    let typed = options
        .entity_type
        .map(|t| eval::typed(index, &text::token_list(t)));
    let filter = typed.as_deref();
    if filter.is_some_and(|f| f.is_empty()) {
        return Results::default();
    }
    let want = options.offset.saturating_add(options.limit).max(1);
    let mut mode = Mode {
        typos: false,
        relaxed: false,
        prefix_min: PREFIX_MIN,
    };
    let mut hits = eval::run(index, node, mode, filter, false).unwrap_or_default();
    if hits.len() < want && eval::has_typo_words(node) {
        mode.typos = true;
        if let Some(more) = eval::run(index, node, mode, filter, true) {
            hits = more;
        }
    }
    if (hits.is_empty() || is_sentence(node)) && eval::has_implicit_and(node) {
        mode.typos = true;
        mode.relaxed = true;
        hits = eval::run(index, node, mode, filter, false).unwrap_or_default();
        // "Any word" relaxes the words side by side, not the phrases, fields and
        // exclusions among them.
        if let Some(hard) = query::constraint(node) {
            let hard = Constraint::of(index, &hard);
            hits.retain(|h| hard.admits(h.doc));
        }
    }
    // The pool to rerank: the best hits, best first, ties in insertion order — (score
    // descending, slot) as one `u64` key per hit (scores are never negative, so their bits
    // order like them), and only the keys of the pool are sorted.
    let pool = want.saturating_mul(RERANK_FACTOR).max(RERANK_MIN);
    let keys = (hits.iter()).map(|h| u64::from(!h.score.to_bits()) << 32 | u64::from(h.doc));
    let pooled: Vec<&eval::Hit> = sort::smallest(keys, pool.min(hits.len()))
        .into_iter()
        .filter_map(|k| hits.binary_search_by_key(&(k as u32), |h| h.doc).ok())
        .map(|at| &hits[at])
        .collect();
    let mut scored: Vec<(EntityId, f32)> = pooled
        .iter()
        .map(|h| (EntityId::from_slot(h.doc), h.score))
        .collect();
    let boosts = rerank::rerank(graph, &mut scored, &terms_of(node), options.expand);
    let total = hits.len() + (scored.len() - pooled.len());
    let mut ranked: Vec<usize> = (0..scored.len()).collect();
    ranked.sort_by(|&a, &b| {
        (scored[b].1.total_cmp(&scored[a].1)).then(scored[a].0.slot().cmp(&scored[b].0.slot()))
    });
    let hits = ranked
        .into_iter()
        .skip(options.offset)
        .take(options.limit)
        .map(|i| Found {
            id: scored[i].0,
            score: scored[i].1,
            fields: pooled.get(i).map_or(0, |h| h.fields),
            boost: boosts[i],
        })
        .collect();
    Results { hits, total }
}

/// How each word of `query` (stopwords dropped, exclusions left out) scores in entity `id`
/// on its own: the word (a phrase's words joined by spaces), its BM25 score there
/// (prefix and typo matches weighted as in a search), and the fields it matched (bits as
/// in [`Found::fields`]); a word the entity does not hold scores 0.
pub fn word_scores(
    index: &SearchIndex,
    query: &str,
    id: EntityId,
) -> Vec<(alloc::string::String, f32, u8)> {
    let Some(node) = query::parse(query) else {
        return Vec::new();
    };
    let node = query::without_stopwords(node);
    let mode = Mode {
        typos: true,
        relaxed: true,
        prefix_min: PREFIX_MIN,
    };
    let slot = [id.slot()];
    sought(&node)
        .into_iter()
        .map(|(leaf, words)| {
            let word = words.join(" ");
            let hit = eval::run(index, leaf, mode, Some(&slot), false)
                .and_then(|hits| hits.first().copied());
            (
                word,
                hit.map_or(0.0, |h| h.score),
                hit.map_or(0, |h| h.fields),
            )
        })
        .collect()
}

/// The pool reranked is this many times the hits asked for, and at least [`RERANK_MIN`].
const RERANK_FACTOR: usize = 3;
/// The smallest pool reranked.
const RERANK_MIN: usize = 30;

/// The words and phrases a query looks for (not those it excludes), each with its folded
/// words, in query order.
fn sought(node: &Node) -> Vec<(&Node, &[alloc::string::String])> {
    fn walk<'n>(node: &'n Node, out: &mut Vec<(&'n Node, &'n [alloc::string::String])>) {
        match node {
            Node::Word { text, .. } => out.push((node, core::slice::from_ref(text))),
            Node::Phrase { terms, .. } => out.push((node, terms)),
            Node::And(parts, _) | Node::Or(parts) => parts.iter().for_each(|p| walk(p, out)),
            Node::Not(_) => {}
        }
    }
    let mut out = Vec::new();
    walk(node, &mut out);
    out
}

/// The distinct folded words a query looks for.
fn terms_of(node: &Node) -> Vec<alloc::string::String> {
    let mut out: Vec<alloc::string::String> = sought(node)
        .into_iter()
        .flat_map(|(_, words)| words.iter().cloned())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Words side by side that make a sentence or a question (three or more, stopwords already
/// dropped): such a query's words rarely all occur in one entity, so it is always scored
/// as "any word" — the entities holding most of the words first, those holding all of them
/// at full score (see `eval`). Shorter conjunctions stay strict unless they find nothing.
fn is_sentence(node: &Node) -> bool {
    match node {
        Node::And(parts, true) => parts.iter().filter(|p| !matches!(p, Node::Not(_))).count() >= 3,
        _ => false,
    }
}

/// Orders `candidates` by relevance to `query`, best first; candidates the query's words do
/// not reach (by token or token prefix: a match inside a word) keep their order at the end,
/// and ties keep the order they came in. For `search_nodes`, whose substring match decides
/// the set: this only orders it.
pub fn rank(index: &SearchIndex, candidates: &[EntityId], query: &str) -> Vec<EntityId> {
    let Some(node) = query::plain(query) else {
        return candidates.to_vec();
    };
    let mut slots: Vec<u32> = candidates.iter().map(|id| id.slot()).collect();
    slots.sort_unstable();
    slots.dedup();
    let mode = Mode {
        typos: false,
        relaxed: true,
        prefix_min: 1,
    };
    let hits = eval::run(index, &node, mode, Some(&slots), false).unwrap_or_default();
    let score = |id: &EntityId| {
        let slot = id.slot();
        hits.binary_search_by_key(&slot, |h| h.doc)
            .map_or(0.0, |i| hits[i].score)
    };
    // Best first, ties in the given order: one sort of (score descending, index) keys.
    // Scores are never negative, so their bits order like them.
    let mut keys: Vec<u64> = (candidates.iter().enumerate())
        .map(|(i, id)| u64::from(!score(id).to_bits()) << 32 | i as u64)
        .collect();
    sort::by_u64(&mut keys, |&k| k);
    keys.into_iter()
        .map(|k| candidates[(k & u64::from(u32::MAX)) as usize])
        .collect()
}
