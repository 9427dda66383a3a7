//! The TypeScript seed's search family in its argument and result shapes: ranked, boolean
//! and fuzzy search and search suggestions (`search_nodes_ranked`, `boolean_search`,
//! `fuzzy_search`, `get_search_suggestions`), each with its filters (tags, any of them;
//! importance bounds, inclusive), on this server's indexes.
//!
//! Where the seed is loose this server is not: a boolean query that does not parse is an
//! error naming the character where it fails; every answer is bounded and says how many
//! matched in all; the same call answers the same on every host.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{EntityJson, RelationJson, answer, answer_list};
use crate::graph::{Entity, EntityId, Graph, RelationId};
use crate::hash::HashSet;
use crate::index::search::{self, Options};
use crate::index::substring::Needle;
use crate::intern::Lower;
use crate::json::round4;
use crate::tools::Ctx;
use crate::tools::filter::Filter;
use crate::tools::parse;

/// Most entities a `{entities, relations}` answer holds, as the seed caps them.
pub const CAP: usize = 50;

/// The seed's filters: tags (any), importance bounds.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct FilterArgs<'a> {
    #[serde(borrow, default)]
    tags: Vec<&'a str>,
    min_importance: Option<f64>,
    max_importance: Option<f64>,
}

impl<'a> FilterArgs<'a> {
    /// The filter these arguments ask for.
    pub fn filter(&self, g: &Graph) -> Filter<'a> {
        Filter::new(
            g,
            None,
            &self.tags,
            (self.min_importance, self.max_importance),
        )
    }
}

/// The query argument, trimmed (the seed trims it after checking its length).
#[derive(Deserialize)]
struct QueryArg<'a> {
    query: &'a str,
}

/// Longest query (characters), as the seed's.
const QUERY_MAX: usize = 1000;

/// `query` (1 to 1000 characters), trimmed.
pub fn query_of(a: &Value) -> Result<&str, String> {
    let query = parse::<QueryArg>(a)?.query;
    let n = query.chars().count();
    if n == 0 || n > QUERY_MAX {
        return Err(format!(
            "query: must be 1 to {QUERY_MAX} characters long (it has {n})"
        ));
    }
    Ok(query.trim())
}

/// Entities and the relations among them, as the seed answers a search.
#[derive(Serialize)]
struct Found<'a> {
    entities: Vec<EntityJson<'a>>,
    relations: Vec<RelationJson<'a>>,
    /// How many entities matched, of which at most 50 are here.
    total: usize,
}

/// The answer of the entities `matching` (in order): the first 50, the relations from
/// one to another of them (in the memory's order), and how many matched.
pub fn found(g: &Graph, matching: &[EntityId]) -> String {
    found_where(g, matching, |_| true)
}

/// [`found`], with only the relations `keep` keeps.
pub fn found_where(
    g: &Graph,
    matching: &[EntityId],
    keep: impl Fn(&crate::graph::Relation) -> bool,
) -> String {
    let shown = &matching[..matching.len().min(CAP)];
    let relations = relations_among(g, shown, keep)
        .into_iter()
        .map(|r| RelationJson::of(g, g.relation(r), false))
        .collect();
    let entities = shown
        .iter()
        .map(|&id| EntityJson::of(g, g.entity(id), false))
        .collect();
    answer(&Found {
        entities,
        relations,
        total: matching.len(),
    })
}

/// The relations from one of `entities` to another that `keep` keeps, in the memory's order
/// (the seed filters its list of relations).
pub fn relations_among(
    g: &Graph,
    entities: &[EntityId],
    keep: impl Fn(&crate::graph::Relation) -> bool,
) -> Vec<RelationId> {
    let names: HashSet<_> = entities.iter().map(|&id| g.entity(id).name).collect();
    let mut relations = Vec::new();
    for &id in entities {
        let name = g.entity(id).name;
        for r in g.relations_touching([name]) {
            let rel = g.relation(r);
            if rel.from == name && names.contains(&rel.to) && keep(rel) {
                relations.push(r);
            }
        }
    }
    relations.sort_unstable();
    relations.dedup();
    relations
}

/// A stored string lowercased (JavaScript's `toLowerCase`).
pub fn lowered(text: Lower<'_>) -> Cow<'_, str> {
    match text {
        Lower::Text(t) => Cow::Borrowed(t),
        Lower::Ascii(b) => {
            let s = core::str::from_utf8(b).unwrap_or_default();
            if s.bytes().any(|c| c.is_ascii_uppercase()) {
                Cow::Owned(s.to_ascii_lowercase())
            } else {
                Cow::Borrowed(s)
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// search_nodes_ranked

/// Most hits `search_nodes_ranked` returns (a larger limit is clamped, as the seed does).
const RANKED_MAX: usize = 200;

/// One ranked hit, as the seed shows it.
#[derive(Serialize)]
pub(crate) struct Ranked<'a> {
    /// The entity.
    pub entity: EntityJson<'a>,
    /// Its relevance (higher is better; four decimals).
    #[serde(serialize_with = "js_f64")]
    pub score: f64,
    /// Which fields hold a query word.
    #[serde(rename = "matchedFields")]
    pub matched_fields: Matched<'a>,
}

/// The fields of an entity holding a word of the query (the seed's `matchedFields`).
#[derive(Serialize, Default)]
pub(crate) struct Matched<'a> {
    /// The name holds one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<bool>,
    /// The type holds one.
    #[serde(rename = "entityType", skip_serializing_if = "Option::is_none")]
    pub entity_type: Option<bool>,
    /// The observations holding the last word found in some observation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observations: Option<Vec<&'a str>>,
}

/// The seed's words of a text: lowercase, split at anything but ASCII letters, digits, `_`.
fn seed_words(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(ToString::to_string)
        .collect()
}

/// Which fields of `e` hold one of `words` (substring tests, as the seed's).
pub(crate) fn matched<'g>(g: &'g Graph, e: &Entity, words: &[String]) -> Matched<'g> {
    let s = g.strings();
    let mut m = Matched::default();
    for w in words {
        let needle = Needle::new(w);
        if needle.found_in(s.lower(e.name)) {
            m.name = Some(true);
        }
        if needle.found_in(s.lower(e.entity_type)) {
            m.entity_type = Some(true);
        }
        let obs: Vec<&str> = (e.observations.iter())
            .filter(|&&o| needle.found_in(s.lower(o)))
            .map(|&o| g.text(o))
            .collect();
        if !obs.is_empty() {
            m.observations = Some(obs);
        }
    }
    m
}

/// The entities best matching `query` that `keep` keeps (`None`: all), best first (ties in
/// the memory's order), at most `limit`, with their scores: the ranked index's BM25 over
/// the query's words (all of them, else any), as [`search::question`] reads a question.
pub fn ranked_ids(
    t: Ctx<'_>,
    query: &str,
    keep: Option<&dyn Fn(&Entity) -> bool>,
    limit: usize,
) -> Vec<(EntityId, f32)> {
    let g = t.graph;
    let index = t.indexes.ranked(g);
    let options = Options {
        limit: if keep.is_none() {
            limit
        } else {
            g.entity_count()
        },
        ..Options::default()
    };
    let hits = search::question(g, index, query, &options).hits;
    (hits.into_iter())
        .filter(|f| keep.is_none_or(|keep| keep(g.entity(f.id))))
        .take(limit)
        .map(|f| (f.id, f.score))
        .collect()
}

/// Serializes a number as JavaScript writes it (`1`, not `1.0`).
pub fn js_f64<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    crate::json::js_number(&Some(*x), s)
}

/// `search_nodes_ranked`: entities ranked by relevance to the query's words.
pub fn search_nodes_ranked(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Args {
        limit: Option<u64>,
    }
    let query = query_of(a)?;
    let limit = parse::<Args>(a)?
        .limit
        .map_or(CAP, |l| (l as usize).min(RANKED_MAX));
    let filter = parse::<FilterArgs>(a)?.filter(t.graph);
    let g = t.graph;
    let words = seed_words(query);
    let keep = |e: &Entity| filter.admits(g, e);
    let keep = (!filter.is_empty()).then_some(&keep as &dyn Fn(&Entity) -> bool);
    let hits: Vec<Ranked> = ranked_ids(t, query, keep, limit)
        .into_iter()
        .map(|(id, score)| {
            let e = g.entity(id);
            Ranked {
                entity: EntityJson::of(g, e, false),
                score: round4(score.into()),
                matched_fields: matched(g, e, &words),
            }
        })
        .collect();
    Ok(answer_list("results", &hits))
}

// ---------------------------------------------------------------------------------------
// boolean_search

/// What a boolean term looks in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Field {
    /// Name, type, observations and tags.
    Any,
    Name,
    Type,
    Observation,
    Tag,
}

/// A parsed boolean query; terms are indexes into the term list.
#[derive(Debug)]
enum Node {
    Term(usize),
    Not(alloc::boxed::Box<Node>),
    And(alloc::boxed::Box<Node>, alloc::boxed::Box<Node>),
    Or(alloc::boxed::Box<Node>, alloc::boxed::Box<Node>),
}

/// Most terms and operators a boolean query may hold, and most nested parentheses.
const MAX_TERMS: usize = 50;
const MAX_OPERATORS: usize = 20;
const MAX_DEPTH: usize = 10;

/// A token and the character (from 1) where it starts.
type Token = (String, usize);

/// The seed's tokens: `"` quotes (the content kept as is), `(` and `)` alone, whitespace
/// between words.
fn tokens(query: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let (mut word, mut start, mut quoted) = (String::new(), 0, false);
    for (i, c) in query.chars().enumerate() {
        let at = i + 1;
        if c == '"' {
            // A closing quote ends a token, even an empty one; an opening one flushes.
            if quoted || !word.is_empty() {
                out.push((core::mem::take(&mut word), start));
            }
            quoted = !quoted;
            start = at + 1;
        } else if quoted {
            word.push(c);
        } else if c == '(' || c == ')' || c.is_whitespace() {
            if !word.is_empty() {
                out.push((core::mem::take(&mut word), start));
            }
            if !c.is_whitespace() {
                out.push((c.to_string(), at));
            }
            start = at + 1;
        } else {
            if word.is_empty() {
                start = at;
            }
            word.push(c);
        }
    }
    let rest = if quoted { word.trim() } else { word.as_str() };
    if !rest.is_empty() {
        out.push((rest.to_string(), start));
    }
    out
}

/// A recursive-descent parser over the tokens (the seed's grammar: NOT binds tightest,
/// then AND, written or implied by adjacency, then OR; operators in any case).
struct Parser<'t> {
    tokens: &'t [Token],
    at: usize,
    end: usize,
    terms: Vec<(Field, String)>,
    operators: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(|t| t.0.as_str())
    }

    fn is(&self, op: &str) -> bool {
        self.peek().is_some_and(|t| t.eq_ignore_ascii_case(op))
    }

    /// Where the next token starts, or the end of the query.
    fn position(&self) -> usize {
        self.tokens.get(self.at).map_or(self.end, |t| t.1)
    }

    fn error(&self, what: &str) -> String {
        format!(
            "query: Failed to parse boolean query: {what} at character {}",
            self.position()
        )
    }

    fn or(&mut self, depth: usize) -> Result<Node, String> {
        let mut left = self.and(depth)?;
        while self.is("OR") {
            self.at += 1;
            self.operators += 1;
            let right = self.and(depth)?;
            left = Node::Or(left.into(), right.into());
        }
        Ok(left)
    }

    fn and(&mut self, depth: usize) -> Result<Node, String> {
        let mut left = self.not(depth)?;
        while self.peek().is_some_and(|t| !t.is_empty() && t != ")") && !self.is("OR") {
            if self.is("AND") {
                self.at += 1;
            }
            self.operators += 1;
            let right = self.not(depth)?;
            left = Node::And(left.into(), right.into());
        }
        Ok(left)
    }

    fn not(&mut self, depth: usize) -> Result<Node, String> {
        if self.is("NOT") {
            self.at += 1;
            self.operators += 1;
            return Ok(Node::Not(self.not(depth)?.into()));
        }
        self.primary(depth)
    }

    fn primary(&mut self, depth: usize) -> Result<Node, String> {
        let Some(token) = self.peek() else {
            return Err(self.error("Unexpected end of query"));
        };
        if token == "(" {
            if depth >= MAX_DEPTH {
                return Err(self.error(&format!(
                    "Query nesting depth exceeds maximum of {MAX_DEPTH}"
                )));
            }
            self.at += 1;
            let inner = self.or(depth + 1)?;
            if self.peek() != Some(")") {
                return Err(self.error("Expected closing parenthesis"));
            }
            self.at += 1;
            return Ok(inner);
        }
        let (field, value) = match token.split_once(':') {
            Some((f, v)) if !f.is_empty() => {
                let field = match f.to_lowercase().as_str() {
                    "name" => Field::Name,
                    "type" | "entitytype" => Field::Type,
                    "observation" | "observations" => Field::Observation,
                    "tag" | "tags" => Field::Tag,
                    _ => Field::Any,
                };
                (field, v)
            }
            Some((_, v)) => (Field::Any, v),
            None => (Field::Any, token),
        };
        self.terms.push((field, value.to_lowercase()));
        self.at += 1;
        Ok(Node::Term(self.terms.len() - 1))
    }
}

/// The boolean query `query`, parsed, and its terms; or the error naming where it fails.
fn parse_boolean(query: &str) -> Result<(Node, Vec<(Field, String)>), String> {
    let tokens = tokens(query);
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        end: query.chars().count() + 1,
        terms: Vec::new(),
        operators: 0,
    };
    let node = p.or(0)?;
    if p.at < tokens.len() {
        let token = tokens[p.at].0.clone();
        return Err(p.error(&format!("Unexpected token {token:?}")));
    }
    if p.terms.len() > MAX_TERMS || p.operators > MAX_OPERATORS {
        return Err(format!(
            "query: Query too complex: {} terms and {} operators (at most {MAX_TERMS} and {MAX_OPERATORS})",
            p.terms.len(),
            p.operators
        ));
    }
    Ok((node, p.terms))
}

/// Whether entity `e` satisfies `node`, its terms tested with `needles`.
fn holds(g: &Graph, e: &Entity, node: &Node, terms: &[(Field, Needle<'_>)]) -> bool {
    let s = g.strings();
    match node {
        Node::Term(i) => {
            let (field, needle) = &terms[*i];
            let tags = || {
                let tags = e.extra.as_deref().map_or(&[][..], |x| &x.tags[..]);
                tags.iter().any(|&t| needle.found_in(s.lower(t)))
            };
            let obs = || e.observations.iter().any(|&o| needle.found_in(s.lower(o)));
            match field {
                Field::Name => needle.found_in(s.lower(e.name)),
                Field::Type => needle.found_in(s.lower(e.entity_type)),
                Field::Observation => obs(),
                Field::Tag => tags(),
                Field::Any => {
                    needle.found_in(s.lower(e.name))
                        || needle.found_in(s.lower(e.entity_type))
                        || obs()
                        || tags()
                }
            }
        }
        Node::Not(inner) => !holds(g, e, inner, terms),
        Node::And(l, r) => holds(g, e, l, terms) && holds(g, e, r, terms),
        Node::Or(l, r) => holds(g, e, l, terms) || holds(g, e, r, terms),
    }
}

/// The entities satisfying the boolean query `query` that `filter` keeps, in the memory's
/// order.
pub fn boolean_ids(g: &Graph, query: &str, filter: &Filter<'_>) -> Result<Vec<EntityId>, String> {
    let (node, terms) = parse_boolean(query)?;
    let needles: Vec<(Field, Needle)> = terms.iter().map(|(f, v)| (*f, Needle::new(v))).collect();
    Ok(g.entities()
        .filter(|(_, e)| holds(g, e, &node, &needles) && filter.admits(g, e))
        .map(|(id, _)| id)
        .collect())
}

/// `boolean_search`: entities satisfying a boolean query of words and fields.
pub fn boolean_search(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let query = query_of(a)?;
    let filter = parse::<FilterArgs>(a)?.filter(t.graph);
    Ok(found(t.graph, &boolean_ids(t.graph, query, &filter)?))
}

// ---------------------------------------------------------------------------------------
// fuzzy_search

/// The seed's default similarity threshold.
const DEFAULT_THRESHOLD: f64 = 0.7;

/// Longest fuzzy query (UTF-16 code units), as the seed's.
const FUZZY_MAX: usize = 256;

/// Edit distance of two sequences (insert, delete, substitute: 1 each), `row` scratch
/// space.
pub(crate) fn levenshtein<T: PartialEq>(a: &[T], b: &[T], row: &mut Vec<usize>) -> usize {
    row.clear();
    row.extend(0..=b.len());
    for (i, x) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(x != y));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Whether `s` contains `q` (UTF-16 units).
fn contains(s: &[u16], q: &[u16]) -> bool {
    q.is_empty() || s.windows(q.len()).any(|w| w == q)
}

/// The seed's fuzzy test: equal, either contains the other, or similarity
/// `1 - distance / longer length` at least `threshold`.
struct Fuzzy {
    q: Vec<u16>,
    threshold: f64,
    row: Vec<usize>,
}

impl Fuzzy {
    fn matches(&mut self, s: &[u16]) -> bool {
        let q = &self.q;
        if self.threshold <= 0.0 || s == &q[..] || contains(s, q) || contains(q, s) {
            return true;
        }
        let longer = s.len().max(q.len());
        let most = ((1.0 - self.threshold) * longer as f64 + f64::EPSILON * longer as f64) as usize;
        if s.len().abs_diff(q.len()) > most {
            return false;
        }
        let d = levenshtein(s, q, &mut self.row);
        1.0 - d as f64 / longer as f64 >= self.threshold
    }
}

/// `text`'s first `most` UTF-16 units, in `buf`.
fn utf16_into(text: &str, most: usize, buf: &mut Vec<u16>) {
    buf.clear();
    buf.extend(text.encode_utf16().take(most));
}

/// The entities whose name, type, an observation or a word of one is within `threshold`
/// of `query` (the seed's single-threaded matcher), that `filter` keeps, in the memory's
/// order.
pub fn fuzzy_ids(
    g: &Graph,
    query: &str,
    threshold: f64,
    filter: &Filter<'_>,
) -> Result<Vec<EntityId>, String> {
    let lower = query.to_lowercase();
    if lower.encode_utf16().count() > FUZZY_MAX {
        return Err(format!(
            "query: Fuzzy search query exceeds maximum length of {FUZZY_MAX}"
        ));
    }
    let mut m = Fuzzy {
        q: lower.encode_utf16().collect(),
        threshold,
        row: Vec::new(),
    };
    let s = g.strings();
    let mut buf = Vec::new();
    let mut hit = |e: &Entity, m: &mut Fuzzy| {
        for (sym, most) in [(e.name, 512), (e.entity_type, 512)] {
            utf16_into(&lowered(s.lower(sym)), most, &mut buf);
            if m.matches(&buf) {
                return true;
            }
        }
        for &o in &e.observations {
            let text = lowered(s.lower(o));
            utf16_into(&text, 2048, &mut buf);
            let whole = String::from_utf16_lossy(&buf);
            let mut word = Vec::new();
            for w in whole.split_whitespace() {
                utf16_into(w, usize::MAX, &mut word);
                if m.matches(&word) {
                    return true;
                }
            }
            if m.matches(&buf) {
                return true;
            }
        }
        false
    };
    Ok(g.entities()
        .filter(|(_, e)| hit(e, &mut m) && filter.admits(g, e))
        .map(|(id, _)| id)
        .collect())
}

/// `fuzzy_search`: entities matching the query within a similarity threshold.
pub fn fuzzy_search(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Args {
        threshold: Option<f64>,
    }
    let query = query_of(a)?;
    let threshold = parse::<Args>(a)?.threshold.unwrap_or(DEFAULT_THRESHOLD);
    let filter = parse::<FilterArgs>(a)?.filter(t.graph);
    Ok(found(
        t.graph,
        &fuzzy_ids(t.graph, query, threshold, &filter)?,
    ))
}

// ---------------------------------------------------------------------------------------
// get_search_suggestions

/// `get_search_suggestions`: names and types close to the query (similarity above 0.5,
/// not equal), closest first.
pub fn get_search_suggestions(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args {
        max_suggestions: Option<u64>,
    }
    let query = query_of(a)?;
    let most = parse::<Args>(a)?.max_suggestions.map_or(5, |m| m as usize);
    let g = t.graph;
    let s = g.strings();
    let q: Vec<u16> = query.to_lowercase().encode_utf16().collect();
    let (mut row, mut buf) = (Vec::new(), Vec::new());
    let mut similarity = |text: &str| {
        buf.clear();
        buf.extend(text.to_lowercase().encode_utf16());
        let longer = q.len().max(text.encode_utf16().count());
        if longer == 0 {
            return 1.0;
        }
        1.0 - levenshtein(&q, &buf, &mut row) as f64 / longer as f64
    };
    let mut found: Vec<(f64, &str)> = Vec::new();
    for (_, e) in g.entities() {
        let name = g.text(e.name);
        let sim = similarity(name);
        if sim > 0.5 && sim < 1.0 {
            found.push((sim, name));
        }
    }
    let mut types: Vec<crate::intern::Sym> = Vec::new();
    let mut seen = HashSet::default();
    for (_, e) in g.entities() {
        if seen.insert(e.entity_type) {
            types.push(e.entity_type);
        }
    }
    for ty in types {
        let text = s.resolve(ty);
        let sim = similarity(text);
        if sim > 0.5 && sim < 1.0 {
            found.push((sim, text));
        }
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0));
    let list: Vec<&str> = found.into_iter().take(most).map(|(_, t)| t).collect();
    Ok(answer_list("suggestions", &list))
}
