//! Merging into a graph: entities into one another ([`merge_entities`], every surface's
//! merge), the upsert behind `upsert_entities` and the Python seed's `create_entities`
//! ([`upsert`]), and another graph into this one (an import into a memory that is not
//! empty: [`merge_graph`]).

use alloc::vec;
use alloc::vec::Vec;
use serde::Serialize;

use super::Change;
use crate::graph::{EntityId, Graph, RelationId};
use crate::hash::{HashMap, HashSet};
use crate::intern::Sym;
use crate::model::{
    Access, CoUse, Entity, EntityPatch, EntityState, Fact, Millis, Observations, Reflection,
    Relation, RelationState, Restore, Target, Usage,
};
use crate::record::Op;

/// What an upsert did to one entity of its input.
#[derive(Serialize, Debug, PartialEq, Eq)]
pub struct Upserted<'a> {
    /// The entity's name.
    pub name: &'a str,
    /// Whether this item created the entity.
    pub created: bool,
    /// The observations this item added, in order.
    #[serde(rename = "addedObservations")]
    pub added_observations: Vec<&'a str>,
}

/// Where an upserted name's new observations go.
#[derive(Clone, Copy)]
enum Slot {
    /// Into the `created` entity at this index.
    Created(usize),
    /// Into the `added` observations at this index.
    Added(usize),
}

/// What one name met in an upsert has: where its new observations go, the observations it
/// already had in the graph, and every one this upsert gave it.
struct Seen<'a> {
    slot: Slot,
    stored: HashSet<Sym>,
    gained: HashSet<&'a str>,
}

/// An upsert's records (entities created, then observations added) and per entity what it
/// did: a new name becomes an entity (its observations without repeats); a known name keeps
/// its type and gains the observations it lacks; a name repeated in the input is one
/// entity. Linear in the entities and their observations (and in the observations the
/// named entities already have).
pub fn upsert<'a>(graph: &Graph, entities: &[Entity<'a>]) -> (Vec<Op<'a>>, Vec<Upserted<'a>>) {
    let mut created: Vec<Entity<'a>> = Vec::new();
    let mut added: Vec<Observations<'a>> = Vec::new();
    let mut seen: HashMap<&'a str, Seen<'a>> = HashMap::default();
    let mut results: Vec<Upserted<'a>> = Vec::with_capacity(entities.len());
    for e in entities {
        let existing = graph.first_named(e.name);
        let first_sight = existing.is_none() && !seen.contains_key(e.name);
        let name = seen.entry(e.name).or_insert_with(|| {
            let (slot, stored) = match existing {
                Some(id) => {
                    added.push(Observations {
                        entity: e.name,
                        contents: Vec::new(),
                    });
                    let stored = graph.entity(id).observations.iter().copied().collect();
                    (Slot::Added(added.len() - 1), stored)
                }
                None => {
                    created.push(Entity {
                        name: e.name,
                        entity_type: e.entity_type,
                        observations: Vec::new(),
                    });
                    (Slot::Created(created.len() - 1), HashSet::default())
                }
            };
            Seen {
                slot,
                stored,
                gained: HashSet::default(),
            }
        });
        let mut fresh: Vec<&'a str> = Vec::new();
        for &o in &e.observations {
            let stored = graph
                .strings()
                .lookup(o)
                .is_some_and(|sym| name.stored.contains(&sym));
            if !stored && name.gained.insert(o) {
                fresh.push(o);
            }
        }
        match name.slot {
            Slot::Created(i) => created[i].observations.extend(fresh.iter().copied()),
            Slot::Added(i) => added[i].contents.extend(fresh.iter().copied()),
        }
        results.push(Upserted {
            name: e.name,
            created: first_sight,
            added_observations: fresh,
        });
    }
    added.retain(|a| !a.contents.is_empty());
    let mut records = Vec::new();
    if !created.is_empty() {
        records.push(Op::CreateEntities(created));
    }
    if !added.is_empty() {
        records.push(Op::AddObservations(added));
    }
    (records, results)
}

/// What merging another graph into `graph` changes (an import): its entities upserted, its
/// relations that `graph` lacks added — as one change, so replay applies the import whole
/// or not at all. A new entity or relation the file knows the times of comes in as the file
/// has it (times, tags, importance, parent, status, observations with their kinds and
/// history; a relation's context); others are made at the import's time. Also the counts
/// a summary gives ([`Merged`]).
pub fn merge_graph(graph: &Graph, other: &Graph) -> (Change, Merged) {
    let entities = other.entity_texts();
    let (mut records, results) = upsert(graph, &entities);
    let new_entities = results.iter().filter(|r| r.created).count();
    let extended: usize = results
        .iter()
        .filter(|r| graph.first_named(r.name).is_some())
        .map(|r| r.added_observations.len())
        .sum();
    let changed_entities = results
        .iter()
        .filter(|r| r.created || !r.added_observations.is_empty())
        .count();
    let mut exact = Vec::new();
    if let Some(Op::CreateEntities(created)) = records.first_mut() {
        created.retain(|e| match other.named(e.name) {
            [id] if other.entity(*id).created != 0 => {
                exact.push(other.entity_state(other.entity(*id)));
                false
            }
            _ => true,
        });
    }
    records.retain(|op| !matches!(op, Op::CreateEntities(list) if list.is_empty()));
    if !exact.is_empty() {
        records.insert(0, Op::PutEntities(exact));
    }
    let mut seen = HashSet::default();
    let (mut made, mut kept) = (Vec::new(), Vec::new());
    for (_, r) in other.relations() {
        let t = other.relation_text(r);
        if graph.has_relation(t.from, t.to, t.relation_type) || !seen.insert(t) {
            continue;
        }
        if r.created != 0 || r.context.is_some() {
            kept.push(other.relation_state(r, 0));
        } else {
            made.push(t);
        }
    }
    let new_relations = made.len() + kept.len();
    if !made.is_empty() {
        records.push(Op::CreateRelations(made));
    }
    if !kept.is_empty() {
        records.push(Op::PutRelations(kept));
    }
    let merged = Merged {
        new_entities,
        extended,
        changed_entities,
        new_relations,
    };
    (Change::of(records), merged)
}

/// What [`merge_graph`] counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merged {
    /// Entities the graph did not have.
    pub new_entities: usize,
    /// Observations added to entities it had.
    pub extended: usize,
    /// Entities created or given observations they lacked.
    pub changed_entities: usize,
    /// Relations it did not have.
    pub new_relations: usize,
}

/// What became of a relation at entities a merge joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Its ends did not change (a relation of a kept entity that keeps its name).
    Kept,
    /// It now joins the merged entities' new names, as it was otherwise (time, context).
    Redirected,
    /// It would have become a loop, or a repeat of a relation there is: dropped.
    Dropped,
}

/// What merging groups of entities changes ([`merge_entities`]).
pub struct Merging<'g> {
    /// Each group's entity, merged.
    pub merged: Vec<EntityState<'g>>,
    /// The change: one [`Op::Restore`], then parent links moved to the merged entities,
    /// reflections moved to them, and the usage counts of the names that went.
    pub ops: Vec<Op<'g>>,
    /// Current observations that were not carried over (repeats).
    pub observations_dropped: usize,
    /// The relations at the merged entities, and what became of each (those that changed
    /// as they were before).
    pub relations: Vec<(RelationId, Fate)>,
    /// The redirected relations as they are after the merge, in the order of `relations`.
    pub put_relations: Vec<RelationState<'g>>,
}

/// Merges each group of entities — its ids, the kept one first — into one entity called
/// as the group says, as one change that keeps everything the merged entities had:
///
/// - the kept entity's type, history and place; every current observation once (the
///   kept's, then the others' in order, renumbered after the kept's), each with its time
///   and kind, and the others' superseded ones too; all tags; the greatest importance;
///   the earliest creation; the kept's status, else another's; changed at `now`;
/// - relations at them follow to the new name, keeping their times and context, unless one
///   would become a loop or a repeat: those are dropped; a relation whose ends do not
///   change stays as it is where it is;
/// - children of merged entities belong to the merged one; reflections about them (or
///   about a redirected relation) are about it; their usage counts are its counts.
pub fn merge_entities<'g>(
    g: &'g Graph,
    groups: &[(&'g str, Vec<EntityId>)],
    now: Millis,
) -> Merging<'g> {
    let mut into: HashMap<&'g str, &'g str> = HashMap::default();
    for (name, ids) in groups {
        for &id in ids {
            into.insert(g.text(g.entity(id).name), name);
        }
    }
    let moved = |name: &'g str| into.get(name).copied().unwrap_or(name);
    let mut observations_dropped = 0;
    let merged: Vec<EntityState<'g>> = groups
        .iter()
        .map(|(name, ids)| {
            let states: Vec<EntityState<'g>> =
                ids.iter().map(|&id| g.entity_state(g.entity(id))).collect();
            let merged = merged_entity(name, &states, &moved, now);
            let current =
                |e: &EntityState<'_>| e.facts.iter().filter(|f| f.superseded == 0).count();
            observations_dropped += states.iter().map(current).sum::<usize>() - current(&merged);
            merged
        })
        .collect();
    let leaving: Vec<&'g str> = into.keys().copied().collect();
    let syms: Vec<Sym> = leaving
        .iter()
        .filter_map(|n| g.strings().lookup(n))
        .collect();
    let touching = g.relations_touching(syms.iter().copied());
    // What is there after the merge: the relations whose ends stay, then each redirected one.
    let mut there: HashSet<(&str, &str, &str)> = HashSet::default();
    let moves = |r: &Relation<'g>| moved(r.from) != r.from || moved(r.to) != r.to;
    for &id in &touching {
        let r = g.relation_text(g.relation(id));
        if !moves(&r) {
            there.insert((r.from, r.to, r.relation_type));
        }
    }
    let mut relations = Vec::with_capacity(touching.len());
    let mut removed: Vec<Relation<'g>> = Vec::new();
    let mut put_relations = Vec::new();
    for &id in &touching {
        let mut state = g.relation_state(g.relation(id), 0);
        let before = state.relation;
        if !moves(&before) {
            relations.push((id, Fate::Kept));
            continue;
        }
        removed.push(before);
        state.relation.from = moved(before.from);
        state.relation.to = moved(before.to);
        let after = state.relation;
        if after.from == after.to || !there.insert((after.from, after.to, after.relation_type)) {
            relations.push((id, Fate::Dropped));
        } else {
            relations.push((id, Fate::Redirected));
            put_relations.push(state);
        }
    }
    removed.sort_unstable_by_key(|r| (r.from, r.to, r.relation_type));
    removed.dedup();
    let mut ops = vec![Op::Restore(Restore {
        entities: leaving,
        relations: removed,
        put_entities: merged.clone(),
        put_relations: put_relations.clone(),
    })];
    let children: Vec<EntityPatch<'g>> = g
        .entities()
        .filter(|(_, e)| !into.contains_key(g.text(e.name)))
        .filter_map(|(_, e)| {
            let parent = g.text(e.extra.as_deref()?.parent?);
            let name = into.get(parent)?;
            Some(EntityPatch {
                name: g.text(e.name),
                parent: Some(Some(name)),
                ..EntityPatch::default()
            })
        })
        .collect();
    if !children.is_empty() {
        ops.push(Op::PatchEntities(children));
    }
    let reflections: Vec<Reflection<'g>> = g
        .reflections()
        .iter()
        .filter_map(|r| {
            let mut text = g.reflection_text(r);
            text.target = match text.target {
                Target::Entity(name) if moved(name) != name => Target::Entity(moved(name)),
                Target::Relation(t) if moves(&t) => Target::Relation(Relation {
                    from: moved(t.from),
                    to: moved(t.to),
                    relation_type: t.relation_type,
                }),
                _ => return None,
            };
            Some(text)
        })
        .collect();
    if !reflections.is_empty() {
        ops.push(Op::PutReflections(reflections));
    }
    if let Some(usage) = moved_usage(g, &syms, &moved) {
        ops.push(Op::Used(usage));
    }
    Merging {
        merged,
        ops,
        observations_dropped,
        relations,
        put_relations,
    }
}

/// The entity `states` merge into, named `name` (see [`merge_entities`]).
fn merged_entity<'g>(
    name: &'g str,
    states: &[EntityState<'g>],
    moved: &dyn Fn(&'g str) -> &'g str,
    now: Millis,
) -> EntityState<'g> {
    let mut kept = states[0].clone();
    kept.name = name;
    kept.updated = now;
    kept.parent = kept.parent.map(moved).filter(|&p| p != name);
    let (mut current, mut past): (Vec<Fact<'g>>, Vec<Fact<'g>>) =
        kept.facts.iter().partition(|f| f.superseded == 0);
    for other in &states[1..] {
        // The other's facts take ids after the kept's; what they supersede follows them.
        let mut renumbered: HashMap<u32, u32> = HashMap::default();
        for fact in &other.facts {
            let carried = fact.superseded != 0 || !current.iter().any(|f| f.text == fact.text);
            if carried {
                renumbered.insert(fact.id, kept.next_fact);
                kept.next_fact += 1;
            }
        }
        for fact in &other.facts {
            let Some(&id) = renumbered.get(&fact.id) else {
                continue;
            };
            let supersedes = renumbered.get(&fact.supersedes).copied().unwrap_or(0);
            let fact = Fact {
                id,
                supersedes,
                ..*fact
            };
            if fact.superseded == 0 {
                current.push(fact);
            } else {
                past.push(fact);
            }
        }
        for &tag in &other.tags {
            if !kept.tags.contains(&tag) {
                kept.tags.push(tag);
            }
        }
        kept.importance = match (kept.importance, other.importance) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if other.created != 0 && (kept.created == 0 || other.created < kept.created) {
            kept.created = other.created;
        }
        kept.status = kept.status.or(other.status);
    }
    current.extend(past);
    kept.facts = current;
    kept
}

/// The usage counts of the merged names that go (`syms`), as the counts of the names they
/// merge into (pairs between two merged entities left out), or `None` if there were none.
fn moved_usage<'g>(
    g: &'g Graph,
    syms: &[Sym],
    moved: &dyn Fn(&'g str) -> &'g str,
) -> Option<Usage<'g>> {
    let mut usage = Usage::default();
    for &sym in syms {
        let name = g.text(sym);
        if moved(name) == name {
            continue;
        }
        let Some(uses) = g.usage(sym) else {
            continue;
        };
        usage
            .accesses
            .extend(uses.days.iter().map(|&(day, count)| Access {
                entity: moved(name),
                day,
                count,
                last: uses.last,
            }));
        for &(other, count, last) in &uses.with {
            let (a, b) = (moved(name), moved(g.text(other)));
            // A pair with another name that goes is counted once, from the smaller symbol.
            let twice =
                syms.contains(&other) && other < sym && moved(g.text(other)) != g.text(other);
            if a != b && !twice {
                usage.pairs.push(CoUse { a, b, count, last });
            }
        }
    }
    (!usage.accesses.is_empty() || !usage.pairs.is_empty()).then_some(usage)
}
