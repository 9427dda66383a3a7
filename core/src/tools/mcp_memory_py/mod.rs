//! The Python seed's ("MCP Memory v2") shapes of the tools it shares with the reference,
//! and its `end_relation`, under profile `mcp-memory-py` (docs/compatibility.md, "The
//! Python MCP Memory v2's tools").
//!
//! Where the seed is weak these are not: a bad call is an `isError` naming the argument and
//! changes nothing (the seed answers `{"error"}` as a success, sometimes after a partial
//! change); entities and relations carry the ids its `end_relation` and `add_reflection`
//! need (the seed shows none); every answer has one shape; lists are bounded, with totals.

pub mod hygiene;
pub mod migrate;
pub mod semantic;
pub mod vocabulary;

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalog::parse_definitions;
use super::{Ctx, Dialect, Plan, Surface, ToolDef, memory, parse, read, write};
use crate::capabilities::reflections::{self, Wanted};
use crate::graph::{self, EntityId, Graph};
use crate::hash::HashSet;
use crate::index::search;
use crate::json;
use crate::memory::Change;
use crate::memory::merge::upsert;
use crate::model::{
    self, Entity, EntityPatch, Millis, NewFact, NewFacts, NewReflection, NewRelation, Observations,
    Relation, Target,
};
use crate::record::Op;
use crate::time;
use crate::tools::reference::query;
use vocabulary::{ACTIVE, GENERIC, INVERSES};

/// Ids fit in 53 bits, so a JSON number carries them exactly everywhere.
const ID_BITS: u64 = (1 << 53) - 1;

/// A stable id of some text parts: their FNV-1a hash (parts separated by a byte no UTF-8
/// text holds), cut to 53 bits. It depends on nothing but the text, so it is the same in
/// every process, host and version.
fn content_id(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, part) in parts.iter().enumerate() {
        let separator = (i > 0).then_some(0xff_u8);
        for &b in separator.iter().chain(part.as_bytes()) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h & ID_BITS
}

/// The id of the entity called `name`.
pub fn entity_id(name: &str) -> u64 {
    content_id(&[name])
}

/// The id of relation `r` (its triple).
pub fn relation_id(r: &Relation<'_>) -> u64 {
    content_id(&[r.from, r.relation_type, r.to])
}

/// The id of observation `fact` (its number in the entity) of the entity called `entity`:
/// unique in the memory, as the seed's (its table's row ids) are, so an id taken from
/// another entity's observations names none of this one's.
pub fn observation_id(entity: &str, fact: u32) -> u64 {
    content_id(&[entity, "observation", &fact.to_string()])
}

/// The current observation of entity `id` that `supersedes` names: its id as this surface
/// shows it ([`observation_id`]) or its exact text.
fn superseded(g: &Graph, id: EntityId, supersedes: &Value) -> Result<u32, String> {
    let Some(wanted) = supersedes.as_u64() else {
        return crate::tools::rules::superseded(g, id, "supersedes", supersedes);
    };
    let e = g.entity(id);
    let name = g.text(e.name);
    e.facts
        .iter()
        .find(|f| observation_id(name, f.id) == wanted)
        .map(|f| f.id)
        .ok_or_else(|| {
            format!(
                "supersedes: {wanted} is not the id of a current observation of {name:?} (open_nodes shows them)"
            )
        })
}

/// A time as the seed shows it (SQLite's `datetime('now')`: `2026-11-27 22:38:11`, UTC),
/// or `null` when not known.
pub fn seed_time(ms: Millis) -> Option<String> {
    (ms != 0).then(|| {
        let iso = time::iso(ms);
        iso.get(..19).unwrap_or(&iso).replacen('T', " ", 1)
    })
}

/// An entity as the seed's writes and searches show it, with its id.
#[derive(Serialize)]
struct EntityOut<'a> {
    id: u64,
    name: &'a str,
    #[serde(rename = "entityType")]
    entity_type: &'a str,
    status: &'a str,
    observations: Vec<&'a str>,
}

impl<'a> EntityOut<'a> {
    /// Entity `id` as it will be once `added` are added and `removed` removed.
    fn of(g: &'a Graph, id: EntityId, added: &[&'a str], removed: &[&str]) -> Self {
        let e = g.entity(id);
        let state = g.entity_state(e);
        let mut observations: Vec<&'a str> = e
            .observations
            .iter()
            .map(|&o| g.text(o))
            .filter(|o| !removed.contains(o))
            .collect();
        observations.extend_from_slice(added);
        EntityOut {
            id: entity_id(state.name),
            name: state.name,
            entity_type: state.entity_type,
            status: state.status.unwrap_or(ACTIVE),
            observations,
        }
    }
}

/// The answer `out`: its JSON, pretty, as the text and the same object as
/// structuredContent.
pub(super) fn answer<T: Serialize>(out: &T) -> String {
    crate::tools::output::success(&json::pretty(out), out)
}

/// The oldest entity called `name`, or an error naming `field`.
pub(super) fn named(g: &Graph, field: &str, name: &str) -> Result<EntityId, String> {
    g.first_named(name)
        .ok_or_else(|| format!("{field}: no entity is named {name:?}"))
}

#[derive(Deserialize)]
struct NewEntity<'a> {
    name: &'a str,
    #[serde(rename = "entityType", default)]
    entity_type: Option<&'a str>,
    #[serde(borrow, default)]
    observations: Vec<&'a str>,
    #[serde(default)]
    status: Option<&'a str>,
}

#[derive(Deserialize)]
struct CreateEntities<'a> {
    #[serde(borrow)]
    entities: Vec<NewEntity<'a>>,
}

/// create_entities (the seed's upsert): a new name becomes an entity (type `Generic`
/// unless given); a known one gains the observations it lacks and the status given. Unlike
/// the seed, an existing entity keeps its type, and its status unless one is given (the
/// seed overwrites both with the defaults when they are left out). One item per name.
pub fn create_entities(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let items = parse::<CreateEntities>(a)?.entities;
    // The seed's EntityInput: `name: str = Field(..., min_length=1)`.
    if let Some(i) = items.iter().position(|e| e.name.is_empty()) {
        return Err(format!(
            "entities[{i}].name: a name needs at least one character"
        ));
    }
    let g = t.graph;
    let entities: Vec<Entity<'_>> = items
        .iter()
        .map(|item| Entity {
            name: item.name,
            entity_type: item.entity_type.unwrap_or(GENERIC),
            observations: item.observations.clone(),
        })
        .collect();
    let (mut ops, results) = upsert(g, &entities);
    // The last status given per name.
    let mut patches: Vec<EntityPatch<'_>> = Vec::new();
    for item in &items {
        if let Some(status) = item.status {
            patches.retain(|p| p.name != item.name);
            patches.push(EntityPatch {
                name: item.name,
                status: Some(status),
                ..EntityPatch::default()
            });
        }
    }
    // One answer per name, in the order the names came.
    let mut out: Vec<EntityOut<'_>> = Vec::new();
    for (entity, done) in entities.iter().zip(&results) {
        if let Some(known) = out.iter_mut().find(|o| o.name == entity.name) {
            known.observations.extend(&done.added_observations);
            continue;
        }
        out.push(match g.first_named(entity.name) {
            Some(id) => EntityOut::of(g, id, &done.added_observations, &[]),
            None => EntityOut {
                id: entity_id(entity.name),
                name: entity.name,
                entity_type: entity.entity_type,
                status: ACTIVE,
                observations: done.added_observations.clone(),
            },
        });
    }
    for o in &mut out {
        if let Some(status) = patches.iter().find(|p| p.name == o.name) {
            o.status = status.status.unwrap_or(o.status);
        }
    }
    #[derive(Serialize)]
    struct Out<'a> {
        entities: Vec<EntityOut<'a>>,
    }
    let result = answer(&Out { entities: out });
    if !patches.is_empty() {
        ops.push(Op::PatchEntities(patches));
    }
    Ok(Plan {
        change: Change::of(ops),
        result,
    })
}

/// The relation the other way round that `r`'s type pairs with, if it has one, and the
/// context the seed gives it when it creates it.
fn inverse<'a>(r: &Relation<'a>) -> Option<(Relation<'a>, &'static str)> {
    let (_, other, context) = INVERSES.iter().find(|(t, _, _)| *t == r.relation_type)?;
    let back = Relation {
        from: r.to,
        to: r.from,
        relation_type: other,
    };
    Some((back, context))
}

#[derive(Deserialize)]
struct NewRelationItem<'a> {
    from: &'a str,
    to: &'a str,
    #[serde(rename = "relationType")]
    relation_type: &'a str,
    #[serde(default)]
    context: Option<&'a str>,
}

#[derive(Deserialize)]
struct CreateRelations<'a> {
    #[serde(borrow)]
    relations: Vec<NewRelationItem<'a>>,
}

/// A relation as the seed's create_relations shows it, with its id.
#[derive(Serialize)]
struct RelationOut<'a> {
    id: u64,
    from: &'a str,
    to: &'a str,
    #[serde(rename = "relationType")]
    relation_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a str>,
    /// Whether it held already (nothing was created).
    existed: bool,
}

impl<'a> RelationOut<'a> {
    fn of(n: &NewRelation<'a>, existed: bool) -> Self {
        RelationOut {
            id: relation_id(&n.relation),
            from: n.relation.from,
            to: n.relation.to,
            relation_type: n.relation.relation_type,
            context: n.context,
            existed,
        }
    }
}

/// create_relations (the seed's): both ends must be entities; a `contiene` or `parte_de`
/// relation brings its inverse (listed in `inverses`). A relation that holds already is
/// reported (`existed`), not created again.
pub fn create_relations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let items = parse::<CreateRelations>(a)?.relations;
    let g = t.graph;
    for (i, item) in items.iter().enumerate() {
        named(g, &format!("relations[{i}].from"), item.from)?;
        named(g, &format!("relations[{i}].to"), item.to)?;
    }
    let mut new: Vec<NewRelation<'_>> = Vec::new();
    let holds = |new: &[NewRelation<'_>], r: &Relation<'_>| {
        g.has_relation(r.from, r.to, r.relation_type) || new.iter().any(|n| n.relation == *r)
    };
    let mut relations = Vec::with_capacity(items.len());
    let mut inverses = Vec::new();
    for item in &items {
        let given = NewRelation {
            relation: Relation {
                from: item.from,
                to: item.to,
                relation_type: item.relation_type,
            },
            context: item.context,
        };
        let existed = holds(&new, &given.relation);
        relations.push(RelationOut::of(&given, existed));
        if existed {
            continue;
        }
        new.push(given);
        if let Some((relation, context)) = inverse(&given.relation)
            && !holds(&new, &relation)
        {
            let back = NewRelation {
                relation,
                context: Some(context),
            };
            inverses.push(RelationOut::of(&back, false));
            new.push(back);
        }
    }
    #[derive(Serialize)]
    struct Out<'a> {
        relations: Vec<RelationOut<'a>>,
        inverses: Vec<RelationOut<'a>>,
    }
    let result = answer(&Out {
        relations,
        inverses,
    });
    Ok(Plan {
        change: Change::one(new, Op::CreateRelationsWith),
        result,
    })
}

#[derive(Deserialize)]
struct AddArgs<'a> {
    name: &'a str,
    #[serde(borrow)]
    observations: Vec<&'a str>,
    #[serde(default)]
    kind: Option<&'a str>,
    #[serde(default)]
    supersedes: Option<Value>,
}

#[derive(Serialize)]
struct EntityAnswer<'a> {
    entity: EntityOut<'a>,
}

/// add_observations(name, observations, kind, supersedes) (the seed's): the observations
/// the entity lacks, of `kind`; with `supersedes` (an observation's id, or its text) the
/// one observation given replaces it, which is kept as history. The seed ignores a
/// `supersedes` it cannot find; here it fails the call. The entity counts a use.
pub fn add_observations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let args = parse::<AddArgs>(a)?;
    let g = t.graph;
    let id = named(g, "name", args.name)?;
    let supersedes = match &args.supersedes {
        Some(target) => {
            if args.observations.len() != 1 {
                return Err(format!(
                    "observations: with supersedes, give exactly one observation (the one that replaces it); got {}",
                    args.observations.len()
                ));
            }
            superseded(g, id, target)?
        }
        None => 0,
    };
    let mut added: Vec<&str> = Vec::new();
    for &o in &args.observations {
        if !g.has_observation(id, o) && !added.contains(&o) {
            added.push(o);
        }
    }
    let kind = args.kind.filter(|&k| k != "generic");
    let replaced: Vec<&str> = g
        .entity(id)
        .observations
        .iter()
        .zip(&g.entity(id).facts)
        .filter(|(_, f)| supersedes != 0 && f.id == supersedes)
        .map(|(&o, _)| g.text(o))
        .collect();
    let removed = if added.is_empty() { &[][..] } else { &replaced };
    let result = answer(&EntityAnswer {
        entity: EntityOut::of(g, id, &added, removed),
    });
    let change = if added.is_empty() {
        Change::NONE
    } else if kind.is_some() || supersedes != 0 {
        let facts = added
            .iter()
            .map(|&text| NewFact {
                text,
                kind,
                supersedes,
            })
            .collect();
        Change::of(vec![Op::AddFacts(vec![NewFacts {
            entity: args.name,
            facts,
        }])])
    } else {
        Change::of(vec![Op::AddObservations(vec![Observations {
            entity: args.name,
            contents: added,
        }])])
    };
    t.uses.note([args.name]);
    Ok(Plan { change, result })
}

#[derive(Deserialize)]
struct DeleteArgs<'a> {
    name: &'a str,
    #[serde(borrow)]
    observations: Vec<&'a str>,
}

/// delete_observations(name, observations) (the seed's): those of the entity's current
/// observations; the entity as it is after.
pub fn delete_observations(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let args = parse::<DeleteArgs>(a)?;
    let g = t.graph;
    let id = named(g, "name", args.name)?;
    let mut present: Vec<&str> = Vec::new();
    for &o in &args.observations {
        if g.has_observation(id, o) && !present.contains(&o) {
            present.push(o);
        }
    }
    let result = answer(&EntityAnswer {
        entity: EntityOut::of(g, id, &[], &present),
    });
    let change = Change::one(
        vec![Observations {
            entity: args.name,
            contents: present,
        }]
        .into_iter()
        .filter(|o| !o.contents.is_empty())
        .collect(),
        Op::DeleteObservations,
    );
    Ok(Plan { change, result })
}

#[derive(Deserialize)]
struct SearchArgs<'a> {
    query: &'a str,
    #[serde(default)]
    limit: Option<u64>,
}

/// How many entities search_nodes shows unless asked for another number.
const SEARCH_LIMIT: usize = 50;

/// search_nodes (the seed's substring search): entities whose name, type or an
/// observation contains the query, ignoring case, best first (the seed's order is the
/// database's), at most `limit` of them, with the total. A blank query finds nothing.
pub fn search_nodes(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = parse::<SearchArgs>(a)?;
    let g = t.graph;
    let found = if args.query.trim().is_empty() {
        Vec::new()
    } else {
        let matches = query::reference_matches(g, t.indexes, args.query);
        search::rank(t.indexes.ranked(g), &matches, args.query)
    };
    let limit = args.limit.map_or(SEARCH_LIMIT, crate::tools::args::count);
    #[derive(Serialize)]
    struct Out<'a> {
        entities: Vec<EntityOut<'a>>,
        total: usize,
    }
    let out = Out {
        total: found.len(),
        entities: found
            .iter()
            .take(limit)
            .map(|&id| EntityOut::of(g, id, &[], &[]))
            .collect(),
    };
    Ok(answer(&out))
}

#[derive(Deserialize)]
struct OpenArgs<'a> {
    #[serde(borrow)]
    names: Vec<&'a str>,
    #[serde(borrow, default)]
    kinds: Option<Vec<&'a str>>,
    #[serde(default)]
    include_superseded: bool,
}

/// An observation as the seed's open_nodes shows it, with its id ([`observation_id`]).
#[derive(Serialize)]
struct ObservationOut<'a> {
    id: u64,
    content: &'a str,
    kind: &'a str,
    supersedes: Option<u64>,
    superseded_at: Option<String>,
    created_at: Option<String>,
}

/// A relation at an entity as the seed's open_nodes shows it, with its id.
#[derive(Serialize)]
struct RelationAt<'a> {
    id: u64,
    relation_type: &'a str,
    target_name: &'a str,
    direction: &'static str,
    context: Option<&'a str>,
    active: bool,
    ended_at: Option<String>,
}

/// A reflection as the seed shows it: what it is about as `target_type` and `target_id`
/// (an entity's or relation's id), and, here, `target` in words.
#[derive(Serialize)]
pub struct ReflectionOut<'a> {
    id: u32,
    target_type: &'static str,
    target_id: Option<u64>,
    target: Option<String>,
    author: &'a str,
    content: &'a str,
    mood: Option<&'a str>,
    created_at: Option<String>,
}

/// Reflection `r` as the seed shows it.
fn reflection_out(r: model::Reflection<'_>) -> ReflectionOut<'_> {
    let (target_type, target_id, target) = match r.target {
        Target::Global => ("global", None, None),
        Target::Entity(name) => ("entity", Some(entity_id(name)), Some(name.to_string())),
        Target::Relation(rel) => (
            "relation",
            Some(relation_id(&rel)),
            Some(format!(
                "{} --{}--> {}",
                rel.from, rel.relation_type, rel.to
            )),
        ),
        // A session given by a number (the seed's ids) shows it back as its id.
        Target::Session(session) => (
            "session",
            session.parse::<u64>().ok(),
            Some(session.to_string()),
        ),
    };
    ReflectionOut {
        id: r.id,
        target_type,
        target_id,
        target,
        author: r.author,
        content: r.content,
        mood: r.mood,
        created_at: seed_time(r.created),
    }
}

/// An entity as the seed's open_nodes shows it.
#[derive(Serialize)]
struct OpenedOut<'a> {
    id: u64,
    name: &'a str,
    #[serde(rename = "entityType")]
    entity_type: &'a str,
    status: &'a str,
    observations: Vec<ObservationOut<'a>>,
    relations: Vec<RelationAt<'a>>,
    reflections: Vec<ReflectionOut<'a>>,
}

/// Entity `id` as open_nodes shows it: its observations (of `kinds`, with the superseded
/// ones when asked), its relations both ways (ended ones too), its reflections.
fn opened<'g>(g: &'g Graph, id: EntityId, args: &OpenArgs<'_>) -> OpenedOut<'g> {
    let e = g.entity(id);
    let name = g.text(e.name);
    let state = g.entity_state(e);
    let observations = state
        .facts
        .iter()
        .filter(|f| args.include_superseded || f.superseded == 0)
        .filter(|f| {
            let kind = f.kind.unwrap_or("generic");
            // No kinds, or an empty list, is every kind (as in the seed).
            let kinds = args.kinds.as_ref().filter(|k| !k.is_empty());
            kinds.is_none_or(|k| k.contains(&kind))
        })
        .map(|f| ObservationOut {
            id: observation_id(name, f.id),
            content: f.text,
            kind: f.kind.unwrap_or("generic"),
            supersedes: (f.supersedes != 0).then(|| observation_id(name, f.supersedes)),
            superseded_at: seed_time(f.superseded),
            created_at: seed_time(f.created),
        })
        .collect();
    let at = |r: &graph::Relation, ended: Millis| {
        let text = g.relation_text(r);
        let outgoing = r.from == e.name;
        RelationAt {
            id: relation_id(&text),
            relation_type: text.relation_type,
            target_name: if outgoing { text.to } else { text.from },
            direction: if outgoing { "from" } else { "to" },
            context: r.context.map(|c| g.text(c)),
            active: ended == 0,
            ended_at: seed_time(ended),
        }
    };
    let mut relations: Vec<RelationAt<'_>> = g
        .relations_touching([e.name])
        .into_iter()
        .map(|rid| at(g.relation(rid), 0))
        .collect();
    relations.extend(
        g.ended()
            .iter()
            .filter(|x| x.relation.from == e.name || x.relation.to == e.name)
            .map(|x| at(&x.relation, x.at)),
    );
    let reflections = g
        .reflections()
        .iter()
        .filter(|r| r.target == graph::Target::Entity(e.name))
        .map(|r| reflection_out(g.reflection_text(r)))
        .collect();
    OpenedOut {
        id: entity_id(state.name),
        name: state.name,
        entity_type: state.entity_type,
        status: state.status.unwrap_or(ACTIVE),
        observations,
        relations,
        reflections,
    }
}

/// open_nodes(names, kinds, include_superseded) (the seed's): each named entity, in the
/// order asked, with its observations in detail, its relations both ways (ended ones with
/// `active: false`) and its reflections; names no entity has are listed in `missing`.
/// The entities found count a use, together.
pub fn open_nodes(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = parse::<OpenArgs>(a)?;
    let g = t.graph;
    let mut seen = HashSet::default();
    let mut entities = Vec::new();
    let mut missing = Vec::new();
    let mut found = Vec::new();
    for &name in args.names.iter().filter(|n| seen.insert(**n)) {
        match g.first_named(name) {
            Some(id) => {
                entities.push(opened(g, id, &args));
                found.push(name);
            }
            None => missing.push(name),
        }
    }
    t.uses.note(found);
    #[derive(Serialize)]
    struct Out<'a> {
        entities: Vec<OpenedOut<'a>>,
        missing: Vec<&'a str>,
    }
    Ok(answer(&Out { entities, missing }))
}

/// The relation with id `id`: a holding one, else an ended one (and when it ended).
fn relation_with_id(g: &Graph, id: u64) -> Option<(graph::Relation, Millis)> {
    let holding = g
        .relations()
        .map(|(_, r)| (*r, 0))
        .find(|(r, _)| relation_id(&g.relation_text(r)) == id);
    holding.or_else(|| {
        g.ended()
            .iter()
            .rev()
            .find(|x| relation_id(&g.relation_text(&x.relation)) == id)
            .map(|x| (x.relation, x.at))
    })
}

#[derive(Deserialize)]
struct EndArgs {
    relation_id: u64,
}

/// end_relation(relation_id) (the seed's): the relation ends (it leaves the graph for its
/// history, with the time); a `contiene`/`parte_de` relation's inverse ends with it. A
/// relation that already ended is a notice, not a change.
pub fn end_relation(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let id = parse::<EndArgs>(a)?.relation_id;
    let g = t.graph;
    let Some((r, ended)) = relation_with_id(g, id) else {
        return Err(format!(
            "relation_id: no relation has id {id} (open_nodes shows relations' ids)"
        ));
    };
    let text = g.relation_text(&r);
    #[derive(Serialize)]
    struct Shown<'a> {
        id: u64,
        from: &'a str,
        to: &'a str,
        relation_type: &'a str,
        context: Option<&'a str>,
        active: bool,
        ended_at: Option<String>,
    }
    let shown = |at: Millis| Shown {
        id,
        from: text.from,
        to: text.to,
        relation_type: text.relation_type,
        context: r.context.map(|c| g.text(c)),
        active: false,
        ended_at: seed_time(at),
    };
    #[derive(Serialize)]
    struct Out<'a> {
        relation: Shown<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        inverse_expired_id: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        notice: Option<String>,
    }
    if ended != 0 {
        let out = Out {
            relation: shown(ended),
            inverse_expired_id: None,
            notice: Some(format!("Relation {id} is already inactive")),
        };
        return Ok(Plan {
            change: Change::NONE,
            result: answer(&out),
        });
    }
    let back = inverse(&text)
        .map(|(b, _)| b)
        .filter(|b| g.has_relation(b.from, b.to, b.relation_type));
    let out = Out {
        relation: shown(t.now),
        inverse_expired_id: back.as_ref().map(relation_id),
        notice: None,
    };
    let ending: Vec<Relation<'_>> = core::iter::once(text).chain(back).collect();
    Ok(Plan {
        change: Change::one(ending, Op::EndRelations),
        result: answer(&out),
    })
}

/// What a reflection is about (its schema's `enum`).
#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum TargetType {
    Entity,
    Relation,
    Session,
    Global,
}

impl TargetType {
    fn name(self) -> &'static str {
        match self {
            TargetType::Entity => "entity",
            TargetType::Relation => "relation",
            TargetType::Session => "session",
            TargetType::Global => "global",
        }
    }
}

#[derive(Deserialize)]
struct ReflectArgs<'a> {
    target_type: TargetType,
    #[serde(default)]
    target_id: Option<Value>,
    #[serde(default)]
    author: Option<&'a str>,
    content: &'a str,
    #[serde(default)]
    mood: Option<&'a str>,
}

/// What a reflection's `target_id` names: an entity (by its id), a holding relation (by
/// its id), or a session (by its id: any text or number; the current one when left out).
fn reflection_target<'g>(
    t: &Ctx<'g>,
    kind: TargetType,
    target_id: Option<&Value>,
) -> Result<Target<'g>, String> {
    let g = t.graph;
    let number = || {
        target_id.and_then(Value::as_u64).ok_or_else(|| {
            format!(
                "target_id: a reflection on a {} needs its id (a number; open_nodes shows ids)",
                kind.name()
            )
        })
    };
    match kind {
        TargetType::Global => Ok(Target::Global),
        TargetType::Entity => {
            let id = number()?;
            g.entities()
                .map(|(_, e)| g.text(e.name))
                .find(|&name| entity_id(name) == id)
                .map(Target::Entity)
                .ok_or_else(|| format!("target_id: no entity has id {id}"))
        }
        TargetType::Relation => {
            let id = number()?;
            match relation_with_id(g, id) {
                Some((r, 0)) => Ok(Target::Relation(g.relation_text(&r))),
                _ => Err(format!("target_id: no holding relation has id {id}")),
            }
        }
        TargetType::Session => Ok(Target::Session(t.by.session)),
    }
}

/// add_reflection(target_type, target_id, author, content, mood) (the seed's): a note on
/// an entity, a relation, a session or the memory as a whole. Any author and mood are
/// taken (the seed's are fixed lists); the author defaults to the client's name.
pub fn add_reflection(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    let args = parse::<ReflectArgs>(a)?;
    if args.content.trim().is_empty() {
        return Err("content: a reflection needs some text".to_string());
    }
    let session_id;
    let target = match (args.target_type, &args.target_id) {
        (TargetType::Session, Some(given)) => {
            session_id = match given {
                Value::String(s) => s.clone(),
                other => json::compact(other),
            };
            Target::Session(&session_id)
        }
        (kind, given) => reflection_target(&t, kind, given.as_ref())?,
    };
    let author = args.author.unwrap_or(if t.by.client.is_empty() {
        "unknown"
    } else {
        t.by.client
    });
    let reflection = model::Reflection {
        id: t.graph.next_reflection_id(),
        target,
        author,
        mood: args.mood,
        content: args.content,
        created: t.now,
    };
    #[derive(Serialize)]
    struct Out<'a> {
        reflection: ReflectionOut<'a>,
    }
    let result = answer(&Out {
        reflection: reflection_out(reflection),
    });
    let new = NewReflection {
        target,
        author,
        mood: args.mood,
        content: args.content,
    };
    Ok(Plan {
        change: Change::of(vec![Op::Reflect(vec![new])]),
        result,
    })
}

#[derive(Deserialize)]
struct SearchReflectionsArgs<'a> {
    #[serde(default)]
    query: &'a str,
    #[serde(default)]
    author: Option<&'a str>,
    #[serde(default)]
    mood: Option<&'a str>,
    #[serde(default)]
    target_type: Option<&'a str>,
    #[serde(default)]
    limit: Option<u64>,
}

/// search_reflections(query, author, mood, target_type, limit) (the seed's): reflections
/// ranked by relevance to the query, newest first among equals, filtered; with the total.
pub fn search_reflections(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    let args = parse::<SearchReflectionsArgs>(a)?;
    let g = t.graph;
    let kind_of = |target: &graph::Target| match target {
        graph::Target::Global => "global",
        graph::Target::Entity(_) => "entity",
        graph::Target::Relation(_) => "relation",
        graph::Target::Session(_) => "session",
    };
    let wanted = Wanted {
        author: args.author,
        mood: args.mood,
        about: |target: &graph::Target| args.target_type.is_none_or(|x| kind_of(target) == x),
    };
    let scored = reflections::ranked(g, args.query, wanted);
    #[derive(Serialize)]
    struct Hit<'a> {
        #[serde(flatten)]
        reflection: ReflectionOut<'a>,
        score: f64,
    }
    #[derive(Serialize)]
    struct Out<'a> {
        results: Vec<Hit<'a>>,
        total: usize,
    }
    let limit = args.limit.map_or(10, crate::tools::args::count);
    let out = Out {
        total: scored.len(),
        results: scored
            .into_iter()
            .take(limit)
            .map(|(score, r)| Hit {
                reflection: reflection_out(g.reflection_text(r)),
                score,
            })
            .collect(),
    };
    Ok(answer(&out))
}

/// The nine it does not have.
pub const NOT_LISTED: [&str; 1] = ["read_graph"];

/// Its tools, in listing order: its shapes of eight of the nine, then its own.
pub const TOOLS: &[ToolDef] = &[
    write("create_entities", create_entities),
    write("create_relations", create_relations),
    write("add_observations", add_observations),
    write("delete_observations", delete_observations),
    read("search_nodes", search_nodes),
    read("open_nodes", open_nodes),
    write("end_relation", end_relation),
    write("add_reflection", add_reflection),
    read("search_reflections", search_reflections),
    read("search_semantic", semantic::search_semantic),
    read("find_split_candidates", hygiene::find_split_candidates),
    read("analyze_entity_split", hygiene::analyze_entity_split),
    read(
        "propose_entity_split_tool",
        hygiene::propose_entity_split_tool,
    ),
    write(
        "execute_entity_split_tool",
        hygiene::execute_entity_split_tool,
    ),
    read(
        "find_duplicate_observations",
        hygiene::find_duplicate_observations,
    ),
    read("consolidation_report", hygiene::consolidation_report),
    memory("migrate", migrate::migrate, true),
];

/// Its surface.
pub const SURFACE: Surface = Surface {
    dialect: Dialect::McpMemoryPy,
    tools: TOOLS,
    definitions,
};

fn definitions() -> Vec<Value> {
    parse_definitions(&[
        include_str!("tools.json"),
        include_str!("hygiene.json"),
        include_str!("migrate.json"),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fixed_53_bit_numbers_of_the_text() {
        // Frozen: ids shown to clients must not change between versions.
        assert_eq!(entity_id("Ada"), content_id(&["Ada"]));
        assert_eq!(entity_id(""), 0xcbf2_9ce4_8422_2325 & ID_BITS);
        let r = Relation {
            from: "a",
            to: "b",
            relation_type: "knows",
        };
        let swapped = Relation {
            from: "b",
            to: "a",
            relation_type: "knows",
        };
        assert_ne!(relation_id(&r), relation_id(&swapped));
        // The separator keeps ("ab", "c") apart from ("a", "bc").
        assert_ne!(content_id(&["ab", "c"]), content_id(&["a", "bc"]));
        assert!(relation_id(&r) <= ID_BITS);
    }

    #[test]
    fn seed_time_is_sqlites_datetime() {
        assert_eq!(seed_time(0), None);
        assert_eq!(
            seed_time(1_764_282_691_000).as_deref(),
            Some("2025-11-27 22:31:31")
        );
    }
}
