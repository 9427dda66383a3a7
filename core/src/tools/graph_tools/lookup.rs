//! Lookups and counts: get_entity, batch_get_entities, entity_exists, graph_stats,
//! search_relations, describe_entity, degree, list_entity_types, list_relation_types.

use alloc::string::String;
use alloc::vec::Vec;
use core::iter;
use serde::Serialize;

use super::{Args, Direction, known, not_found, ok};
use crate::graph::{Graph, Relation, RelationId};
use crate::hash::{HashMap, HashSet};
use crate::intern::Sym;
use crate::tools::output::{self, EntityJson, RelationJson};

#[derive(Serialize)]
struct EntityResult<'a> {
    entity: EntityJson<'a>,
}

/// get_entity: the oldest entity with this name, or an error.
pub(super) fn get_entity(graph: &Graph, a: Args) -> Result<String, String> {
    let name = a.str("name")?;
    let id = graph.first_named(name).ok_or_else(|| not_found(name))?;
    ok(&EntityResult {
        entity: EntityJson::of(graph, graph.entity(id)),
    })
}

#[derive(Serialize)]
struct EntitiesResult<'a> {
    entities: Vec<Option<EntityJson<'a>>>,
}

/// batch_get_entities: one entity or `null` per requested name, in request order.
pub(super) fn batch_get_entities(graph: &Graph, a: Args) -> Result<String, String> {
    let entities = a
        .strs("names")?
        .into_iter()
        .map(|n| {
            graph
                .first_named(n)
                .map(|id| EntityJson::of(graph, graph.entity(id)))
        })
        .collect();
    ok(&EntitiesResult { entities })
}

#[derive(Serialize)]
struct Exists {
    exists: bool,
}

/// entity_exists: whether an entity has this name.
pub(super) fn entity_exists(graph: &Graph, a: Args) -> Result<String, String> {
    let name = a.str("name")?;
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
pub(super) fn graph_stats(graph: &Graph) -> String {
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
    output::success(&output::pretty(&stats), &stats)
}

#[derive(Serialize)]
struct RelationsPage<'a> {
    relations: Vec<RelationJson<'a>>,
    total: usize,
}

/// search_relations: exact filters on from, to and type; a page of the matches in creation
/// order, and their total. A filter on an endpoint reads the endpoint index; a filter on the
/// type alone scans the relations.
pub(super) fn search_relations(graph: &Graph, a: Args) -> Result<String, String> {
    let (from, to, kind) = (
        a.opt_str("from"),
        a.opt_str("to"),
        a.opt_str("relationType"),
    );
    let limit = a.int("limit", 100, 0, None)?;
    let offset = a.int("offset", 0, 0, None)?;
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
        .map(|&id| RelationJson::of(graph, graph.relation(id)))
        .collect();
    ok(&RelationsPage {
        relations,
        total: ids.len(),
    })
}

#[derive(Serialize)]
struct DirectedRelation<'a> {
    from: &'a str,
    to: &'a str,
    #[serde(rename = "relationType")]
    relation_type: &'a str,
    direction: &'static str,
}

impl<'a> DirectedRelation<'a> {
    fn of(graph: &'a Graph, r: &Relation, direction: &'static str) -> Self {
        DirectedRelation {
            from: graph.text(r.from),
            to: graph.text(r.to),
            relation_type: graph.text(r.relation_type),
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
    entity: EntityJson<'a>,
    relations: Vec<DirectedRelation<'a>>,
    neighbors: Vec<&'a str>,
    degree: Degree,
}

/// describe_entity: the entity, its relations with their direction, its neighbours' names and
/// its degree. A relation from the entity to itself is listed twice (outgoing, then incoming)
/// and counts in both directions; the entity is not its own neighbour.
pub(super) fn describe_entity(graph: &Graph, a: Args) -> Result<String, String> {
    let name = a.str("name")?;
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
        entity: EntityJson::of(graph, entity),
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

/// degree: relations starting (out), ending (in) or either (both) at a name.
pub(super) fn degree(graph: &Graph, a: Args) -> Result<String, String> {
    let name = a.str("name")?;
    let direction = a.direction("direction")?;
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
fn ranked(graph: &Graph, types: impl Iterator<Item = Sym>) -> String {
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
    let result = Types { types };
    output::success(&output::pretty(&result), &result)
}

/// list_entity_types: entity types with their entity counts.
pub(super) fn list_entity_types(graph: &Graph) -> String {
    ranked(graph, graph.entities().map(|(_, e)| e.entity_type))
}

/// list_relation_types: relation types with their relation counts.
pub(super) fn list_relation_types(graph: &Graph) -> String {
    ranked(graph, graph.relations().map(|(_, r)| r.relation_type))
}
