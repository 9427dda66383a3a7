//! Lookups and counts: get_entity, batch_get_entities, entity_exists, graph_stats,
//! search_relations, describe_entity, degree, list_entity_types, list_relation_types.

use alloc::string::String;
use alloc::vec::Vec;
use core::iter;
use serde::Serialize;

use serde::Deserialize;
use serde_json::Value;

use super::{Direction, Name, known, not_found, ok};
use crate::graph::{Graph, Relation, RelationId};
use crate::hash::{HashMap, HashSet};
use crate::intern::Sym;
use crate::model;
use crate::tools::Ctx;
use crate::tools::args::count;
use crate::tools::parse;

#[derive(Serialize)]
struct EntityResult<'a> {
    entity: model::Entity<'a>,
}

/// get_entity: the oldest entity with this name, or an error.
pub fn get_entity(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let (graph, Name { name }) = (t.graph, parse(a)?);
    let id = graph.first_named(name).ok_or_else(|| not_found(name))?;
    ok(&EntityResult {
        entity: graph.entity_text(graph.entity(id)),
    })
}

#[derive(Serialize)]
struct EntitiesResult<'a> {
    entities: Vec<Option<model::Entity<'a>>>,
}

#[derive(Deserialize)]
struct Names<'a> {
    #[serde(borrow)]
    names: Vec<&'a str>,
}

/// batch_get_entities: one entity or `null` per requested name, in request order.
pub fn batch_get_entities(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let (graph, Names { names }) = (t.graph, parse(a)?);
    let entities = names
        .into_iter()
        .map(|n| {
            graph
                .first_named(n)
                .map(|id| graph.entity_text(graph.entity(id)))
        })
        .collect();
    ok(&EntitiesResult { entities })
}

#[derive(Serialize)]
struct Exists {
    exists: bool,
}

/// entity_exists: whether an entity has this name.
pub fn entity_exists(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let (graph, Name { name }) = (t.graph, parse(a)?);
    ok(&Exists {
        exists: graph.first_named(name).is_some(),
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Stats {
    entity_count: usize,
    relation_count: usize,
    observation_count: usize,
    entity_type_count: usize,
    relation_type_count: usize,
}

/// graph_stats: counts of everything.
pub fn graph_stats(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    let graph = t.graph;
    let mut entity_types = HashSet::default();
    let mut observation_count = 0;
    for (_, e) in graph.entities() {
        entity_types.insert(e.entity_type);
        observation_count += e.observations.len();
    }
    let relation_types: HashSet<Sym> = graph.relations().map(|(_, r)| r.relation_type).collect();
    let stats = Stats {
        entity_count: graph.entity_count(),
        relation_count: graph.relation_count(),
        observation_count,
        entity_type_count: entity_types.len(),
        relation_type_count: relation_types.len(),
    };
    ok(&stats)
}

#[derive(Serialize)]
struct RelationsPage<'a> {
    relations: Vec<model::Relation<'a>>,
    total: usize,
}

#[derive(Deserialize)]
struct RelationFilter<'a> {
    from: Option<&'a str>,
    to: Option<&'a str>,
    #[serde(rename = "relationType")]
    relation_type: Option<&'a str>,
    limit: Option<u64>,
    offset: Option<u64>,
}

/// search_relations: exact filters on from, to and type; a page of the matches in creation
/// order, and their total. A filter on an endpoint reads the endpoint index; a filter on the
/// type alone scans the relations.
pub fn search_relations(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let graph = t.graph;
    let filter: RelationFilter = parse(a)?;
    let (from, to, kind) = (filter.from, filter.to, filter.relation_type);
    let limit = filter.limit.map_or(100, count);
    let offset = filter.offset.map_or(0, count);
    let s = graph.strings();
    // A filter naming a string the graph does not hold matches nothing.
    let resolve = |f: Option<&str>| match f {
        None => Some(None),
        Some(text) => s.lookup(text).map(Some),
    };
    let (Some(from), Some(to), Some(kind)) = (resolve(from), resolve(to), resolve(kind)) else {
        return ok(&RelationsPage {
            relations: Vec::new(),
            total: 0,
        });
    };
    let matches = |r: &Relation| {
        from.is_none_or(|f| r.from == f)
            && to.is_none_or(|t| r.to == t)
            && kind.is_none_or(|k| r.relation_type == k)
    };
    let ids: Vec<RelationId> = match from.or(to) {
        Some(end) => graph
            .relations_touching(iter::once(end))
            .into_iter()
            .filter(|&id| matches(graph.relation(id)))
            .collect(),
        None => graph
            .relations()
            .filter(|(_, r)| matches(r))
            .map(|(id, _)| id)
            .collect(),
    };
    let relations = ids
        .iter()
        .skip(offset)
        .take(limit)
        .map(|&id| graph.relation_text(graph.relation(id)))
        .collect();
    ok(&RelationsPage {
        relations,
        total: ids.len(),
    })
}

#[derive(Serialize)]
struct DirectedRelation<'a> {
    #[serde(flatten)]
    relation: model::Relation<'a>,
    direction: &'static str,
}

impl<'a> DirectedRelation<'a> {
    fn of(graph: &'a Graph, r: &Relation, direction: &'static str) -> Self {
        DirectedRelation {
            relation: graph.relation_text(r),
            direction,
        }
    }
}

#[derive(Serialize)]
struct Degree {
    out: usize,
    #[serde(rename = "in")]
    incoming: usize,
    total: usize,
}

#[derive(Serialize)]
struct Description<'a> {
    entity: model::Entity<'a>,
    relations: Vec<DirectedRelation<'a>>,
    neighbors: Vec<&'a str>,
    degree: Degree,
}

/// describe_entity: the entity, its relations with their direction, its neighbours' names and
/// its degree. A relation from the entity to itself is listed twice (outgoing, then incoming)
/// and counts in both directions; the entity is not its own neighbour.
pub fn describe_entity(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let (graph, Name { name }) = (t.graph, parse(a)?);
    let id = graph.first_named(name).ok_or_else(|| not_found(name))?;
    let entity = graph.entity(id);
    let me = entity.name;
    let mut relations = Vec::new();
    let mut neighbors: Vec<Sym> = Vec::new();
    let mut degree = Degree {
        out: 0,
        incoming: 0,
        total: 0,
    };
    for rid in graph.relations_touching(iter::once(me)) {
        let r = graph.relation(rid);
        if r.from == me {
            degree.out += 1;
            relations.push(DirectedRelation::of(graph, r, "outgoing"));
        }
        if r.to == me {
            degree.incoming += 1;
            relations.push(DirectedRelation::of(graph, r, "incoming"));
        }
        let other = if r.from == me { r.to } else { r.from };
        if other != me && !neighbors.contains(&other) {
            neighbors.push(other);
        }
    }
    degree.total = degree.out + degree.incoming;
    ok(&Description {
        entity: graph.entity_text(entity),
        relations,
        neighbors: neighbors.into_iter().map(|s| graph.text(s)).collect(),
        degree,
    })
}

#[derive(Serialize)]
struct DegreeResult<'a> {
    name: &'a str,
    degree: usize,
}

#[derive(Deserialize)]
struct DegreeArgs<'a> {
    name: &'a str,
    #[serde(default)]
    direction: Direction,
}

/// degree: relations starting (out), ending (in) or either (both) at a name.
pub fn degree(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let graph = t.graph;
    let DegreeArgs { name, direction } = parse(a)?;
    let me = known(graph, name)?;
    let mut degree = 0;
    for rid in graph.relations_touching(iter::once(me)) {
        let r = graph.relation(rid);
        degree += usize::from(r.from == me && direction != Direction::In)
            + usize::from(r.to == me && direction != Direction::Out);
    }
    ok(&DegreeResult { name, degree })
}

#[derive(Serialize)]
struct TypeCount<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    count: usize,
}

#[derive(Serialize)]
struct Types<'a> {
    types: Vec<TypeCount<'a>>,
}

/// Counts of each type, most common first, ties by name (code point order).
fn ranked(graph: &Graph, types: impl Iterator<Item = Sym>) -> Result<String, String> {
    let mut counts: HashMap<Sym, usize> = HashMap::default();
    for t in types {
        *counts.entry(t).or_default() += 1;
    }
    let mut types: Vec<TypeCount> = counts
        .into_iter()
        .map(|(t, count)| TypeCount {
            kind: graph.text(t),
            count,
        })
        .collect();
    types.sort_unstable_by(|a, b| b.count.cmp(&a.count).then_with(|| a.kind.cmp(b.kind)));
    ok(&Types { types })
}

/// list_entity_types: entity types with their entity counts.
pub fn list_entity_types(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    ranked(t.graph, t.graph.entities().map(|(_, e)| e.entity_type))
}

/// list_relation_types: relation types with their relation counts.
pub fn list_relation_types(t: Ctx<'_>, _: &Value) -> Result<String, String> {
    ranked(t.graph, t.graph.relations().map(|(_, r)| r.relation_type))
}
