//! The TypeScript seed's semantic search family in its argument and result shapes:
//! `semantic_search`, `find_similar_entities`, `index_embeddings` and `hybrid_search`, on
//! this server's embeddings ([`crate::index::vectors`]: every entity's vector kept current
//! as it changes).
//!
//! Without an embedding table the first three are an error saying how to get one (the
//! seed answers a text notice, which would break their output schemas); `hybrid_search`
//! then ranks by its other layers, as the seed's does.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::search::{js_f64, query_of, ranked_ids};
use super::{EntityJson, answer, named};
use crate::graph::{Entity, EntityId, Graph};
use crate::index::vectors::VectorIndex;
use crate::json::round4;
use crate::model::Millis;
use crate::tools::Ctx;
use crate::tools::filter::canonical;
use crate::tools::parse;

/// Results when the call does not say.
const DEFAULT_LIMIT: usize = 10;

/// An entity and how similar it is.
#[derive(Serialize)]
struct Similar<'a> {
    entity: EntityJson<'a>,
    #[serde(serialize_with = "js_f64")]
    similarity: f64,
}

/// The seed's `limit` and `minSimilarity`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Bounds {
    limit: Option<u64>,
    min_similarity: Option<f64>,
}

/// The nearest slots to `q` (`skip` left out), at least `min` similar, at most `limit`.
fn nearest<'g>(
    g: &'g Graph,
    v: &VectorIndex,
    q: &crate::index::vectors::Query,
    bounds: &Bounds,
    skip: Option<u32>,
) -> Vec<Similar<'g>> {
    let limit = bounds.limit.map_or(DEFAULT_LIMIT, |l| l as usize);
    let min = bounds.min_similarity.unwrap_or(0.0);
    let (near, _) = v.nearest(q, limit, |slot| Some(slot) != skip);
    (near.into_iter())
        .filter(|&(_, cos)| f64::from(cos) >= min)
        .map(|(slot, cos)| Similar {
            entity: EntityJson::of(g, g.entity(EntityId::from_slot(slot)), false),
            similarity: round4(cos.into()),
        })
        .collect()
}

/// `semantic_search`: entities nearest the query in meaning.
pub fn semantic_search(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Serialize)]
    struct Out<'a> {
        query: &'a str,
        results: Vec<Similar<'a>>,
        count: usize,
    }
    let v = t.vectors()?;
    let query = query_of(a)?;
    let bounds: Bounds = parse(a)?;
    let results = match v.query(query) {
        Some(q) => nearest(t.graph, v, &q, &bounds, None),
        None => Vec::new(),
    };
    Ok(answer(&Out {
        query,
        count: results.len(),
        results,
    }))
}

/// `find_similar_entities`: entities nearest an entity in meaning.
pub fn find_similar_entities(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        entity_name: &'a str,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out<'a> {
        entity_name: &'a str,
        similar_entities: Vec<Similar<'a>>,
        count: usize,
    }
    let v = t.vectors()?;
    let name = parse::<Args>(a)?.entity_name;
    let slot = named(t.graph, name)?.slot();
    let bounds: Bounds = parse(a)?;
    let similar = match v.query_of(slot) {
        Some(q) => nearest(t.graph, v, &q, &bounds, Some(slot)),
        None => Vec::new(),
    };
    Ok(answer(&Out {
        entity_name: name,
        count: similar.len(),
        similar_entities: similar,
    }))
}

/// `index_embeddings`: what the vector index holds (it is kept current, so this only
/// builds it if no search has yet).
pub fn index_embeddings(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Stats {
        indexed: bool,
        indexed_count: usize,
        provider: &'static str,
        model: &'static str,
        dimensions: usize,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out {
        indexed: usize,
        skipped: usize,
        errors: usize,
        total_entities: usize,
        stats: Stats,
    }
    let v = t.vectors()?;
    let (count, total) = (v.count(), t.graph.entity_count());
    Ok(answer(&Out {
        indexed: count,
        skipped: total - count.min(total),
        errors: 0,
        total_entities: total,
        stats: Stats {
            indexed: true,
            indexed_count: count,
            provider: "builtin",
            model: "mcp-memory embedding table",
            dimensions: v.dimensions(),
        },
    }))
}

// ---------------------------------------------------------------------------------------
// hybrid_search

/// Layer weights, as given (the seed's defaults 0.5, 0.3, 0.2).
#[derive(Deserialize, Serialize, Clone, Copy)]
pub struct Weights {
    #[serde(default = "half", serialize_with = "js_f64")]
    semantic: f64,
    #[serde(default = "three_tenths", serialize_with = "js_f64")]
    lexical: f64,
    #[serde(default = "one_fifth", serialize_with = "js_f64")]
    symbolic: f64,
}

fn half() -> f64 {
    0.5
}
fn three_tenths() -> f64 {
    0.3
}
fn one_fifth() -> f64 {
    0.2
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            semantic: half(),
            lexical: three_tenths(),
            symbolic: one_fifth(),
        }
    }
}

/// The seed's symbolic filters.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Filters<'a> {
    #[serde(borrow)]
    tags: Option<Vec<&'a str>>,
    #[serde(borrow)]
    entity_types: Option<Vec<&'a str>>,
    #[serde(borrow)]
    date_range: Option<Range<'a>>,
    min_importance: Option<f64>,
    max_importance: Option<f64>,
}

#[derive(Deserialize, Default)]
struct Range<'a> {
    start: Option<&'a str>,
    end: Option<&'a str>,
}

/// The filters, read: tags canonical and lowercase, types lowercase, times parsed.
struct Symbolic {
    tags: Option<Vec<String>>,
    types: Option<Vec<String>>,
    range: Option<(Millis, Millis)>,
    importance: Option<(f64, f64)>,
}

impl Symbolic {
    fn read(g: &Graph, f: &Filters<'_>) -> Result<Symbolic, String> {
        let time = |t: Option<&str>, arg: &str| {
            t.map(|t| crate::time::parse(t).map_err(|e| format!("filters.dateRange.{arg}: {e}")))
                .transpose()
        };
        let range = match &f.date_range {
            Some(r) => Some((
                time(r.start, "start")?.unwrap_or(0),
                time(r.end, "end")?.unwrap_or(Millis::MAX),
            )),
            None => None,
        };
        fn nonempty<'v>(v: &Option<Vec<&'v str>>) -> Option<Vec<&'v str>> {
            v.as_ref().filter(|v| !v.is_empty()).cloned()
        }
        Ok(Symbolic {
            tags: nonempty(&f.tags).map(|tags| {
                (tags.iter())
                    .map(|t| String::from(canonical(g, &t.to_lowercase())))
                    .collect()
            }),
            types: nonempty(&f.entity_types)
                .map(|types| types.iter().map(|t| t.to_lowercase()).collect()),
            range,
            importance: (f.min_importance.is_some() || f.max_importance.is_some()).then(|| {
                (
                    f.min_importance.unwrap_or(f64::NEG_INFINITY),
                    f.max_importance.unwrap_or(f64::INFINITY),
                )
            }),
        })
    }

    /// Whether there is any filter.
    fn any(&self) -> bool {
        self.tags.is_some()
            || self.types.is_some()
            || self.range.is_some()
            || self.importance.is_some()
    }

    /// Whether `e` meets every filter (the seed's: an entity without importance counts as
    /// 5; without a time it fails a date range).
    fn admits(&self, g: &Graph, e: &Entity) -> bool {
        let extra = e.extra.as_deref();
        if let Some(tags) = &self.tags {
            let has = extra.map_or(&[][..], |x| &x.tags[..]);
            if !has
                .iter()
                .any(|&t| tags.iter().any(|f| f == canonical(g, g.text(t))))
            {
                return false;
            }
        }
        if let Some(types) = &self.types {
            let ty = g.text(e.entity_type).to_lowercase();
            if !types.contains(&ty) {
                return false;
            }
        }
        if let Some((start, end)) = self.range {
            let at = if e.created != 0 { e.created } else { e.updated };
            if at == 0 || at < start || at > end {
                return false;
            }
        }
        if let Some((min, max)) = self.importance {
            let i = extra.and_then(|x| x.importance).unwrap_or(5.0);
            if i < min || i > max {
                return false;
            }
        }
        true
    }
}

/// One entity's layer scores.
#[derive(Serialize, Clone, Copy, Default)]
pub struct Scores {
    /// The cosine of the query's vector and the entity's.
    #[serde(serialize_with = "js_f64")]
    pub semantic: f64,
    /// The words' score over the best's.
    #[serde(serialize_with = "js_f64")]
    pub lexical: f64,
    /// 1 when it meets the filters.
    #[serde(serialize_with = "js_f64")]
    pub symbolic: f64,
    /// The weighted sum.
    #[serde(serialize_with = "js_f64")]
    pub combined: f64,
}

impl Scores {
    /// The layers that scored above 0, in the seed's order.
    pub fn layers(&self) -> Vec<&'static str> {
        [
            ("semantic", self.semantic),
            ("lexical", self.lexical),
            ("symbolic", self.symbolic),
        ]
        .into_iter()
        .filter(|&(_, s)| s > 0.0)
        .map(|(l, _)| l)
        .collect()
    }
}

/// The entities best matching `query` by meaning, words and metadata, best first (ties in
/// the memory's order), at most `limit`. Each layer brings its best `2 × limit` (the
/// symbolic one every entity meeting the filters); only entities meeting the filters count.
/// Semantic: the cosine (no layer without an embedding table); lexical: BM25 over the
/// best's (or 1); symbolic: 1 for an entity meeting the filters (none without filters).
fn hybrid(
    t: Ctx<'_>,
    query: &str,
    w: Weights,
    filters: &Symbolic,
    limit: usize,
) -> Vec<(EntityId, Scores)> {
    let g = t.graph;
    let total = w.semantic + w.lexical + w.symbolic;
    if total <= 0.0 {
        return Vec::new();
    }
    let admit = |e: &Entity| filters.admits(g, e);
    let keep = filters.any().then_some(&admit as &dyn Fn(&Entity) -> bool);
    let mut pool: Vec<(EntityId, Scores)> = Vec::new();
    let mut add = |id: EntityId, f: &dyn Fn(&mut Scores)| match pool
        .binary_search_by_key(&id.slot(), |(i, _)| i.slot())
    {
        Ok(at) => f(&mut pool[at].1),
        Err(at) => {
            let mut s = Scores::default();
            f(&mut s);
            pool.insert(at, (id, s));
        }
    };
    let depth = limit.saturating_mul(2);
    if w.semantic > 0.0
        && let Ok(v) = t.indexes.vectors(g)
        && let Some(q) = v.query(query)
    {
        let (near, _) = v.nearest(&q, depth, |slot| {
            keep.is_none_or(|k| k(g.entity(EntityId::from_slot(slot))))
        });
        for (slot, cos) in near {
            add(EntityId::from_slot(slot), &|s| s.semantic = f64::from(cos));
        }
    }
    if w.lexical > 0.0 {
        let hits = ranked_ids(t, query, keep, depth);
        let best = hits.iter().map(|h| h.1).fold(1.0f32, f32::max);
        for (id, score) in hits {
            add(id, &|s| s.lexical = f64::from(score / best));
        }
    }
    if w.symbolic > 0.0 && filters.any() {
        for (id, e) in g.entities() {
            if admit(e) {
                add(id, &|s| s.symbolic = 1.0);
            }
        }
    }
    let (ws, wl, wy) = (w.semantic / total, w.lexical / total, w.symbolic / total);
    for (_, s) in &mut pool {
        s.combined = ws * s.semantic + wl * s.lexical + wy * s.symbolic;
    }
    pool.retain(|(_, s)| s.semantic > 0.0 || s.lexical > 0.0 || s.symbolic > 0.0);
    pool.sort_by(|a, b| {
        b.1.combined
            .total_cmp(&a.1.combined)
            .then(a.0.slot().cmp(&b.0.slot()))
    });
    pool.truncate(limit);
    for (_, s) in &mut pool {
        for x in [
            &mut s.semantic,
            &mut s.lexical,
            &mut s.symbolic,
            &mut s.combined,
        ] {
            *x = round4(f64::from(*x as f32));
        }
    }
    pool
}

/// A hybrid hit, as the seed shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit<'a> {
    name: &'a str,
    entity_type: &'a str,
    scores: Scores,
    matched_layers: Vec<&'static str>,
    /// The first three observations.
    observations: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<Vec<&'a str>>,
}

impl<'a> Hit<'a> {
    /// Entity `id` with `scores`; `tags` shown when it has some.
    pub fn of(g: &'a Graph, (id, scores): (EntityId, Scores), tags: bool) -> Hit<'a> {
        let e = g.entity(id);
        let has = e
            .extra
            .as_deref()
            .map(|x| &x.tags[..])
            .filter(|t| !t.is_empty());
        Hit {
            name: g.text(e.name),
            entity_type: g.text(e.entity_type),
            matched_layers: scores.layers(),
            scores,
            observations: e.observations.iter().take(3).map(|&o| g.text(o)).collect(),
            tags: has
                .filter(|_| tags)
                .map(|t| t.iter().map(|&t| g.text(t)).collect()),
        }
    }
}

/// `hybrid_search` without filters, for `smart_search`: the best `limit` by the default
/// weights.
pub fn hybrid_plain(t: Ctx<'_>, query: &str, limit: usize) -> Vec<(EntityId, Scores)> {
    let none = Symbolic {
        tags: None,
        types: None,
        range: None,
        importance: None,
    };
    hybrid(t, query, Weights::default(), &none, limit)
}

/// `hybrid_search`: entities ranked by meaning, words and metadata together.
pub fn hybrid_search(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Args<'a> {
        weights: Option<Weights>,
        #[serde(borrow)]
        filters: Option<Filters<'a>>,
        limit: Option<u64>,
    }
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Out<'a> {
        query: &'a str,
        weights: Weights,
        result_count: usize,
        results: Vec<Hit<'a>>,
    }
    let query = query_of(a)?;
    let args: Args = parse(a)?;
    let weights = args.weights.unwrap_or_default();
    let filters = Symbolic::read(t.graph, &args.filters.unwrap_or_default())?;
    let limit = args.limit.map_or(DEFAULT_LIMIT, |l| l as usize);
    let results: Vec<Hit> = hybrid(t, query, weights, &filters, limit)
        .into_iter()
        .map(|r| Hit::of(t.graph, r, true))
        .collect();
    Ok(answer(&Out {
        query,
        weights,
        result_count: results.len(),
        results,
    }))
}
