//! The knowledge graph: entities and directed relations, in insertion order, with the
//! lookups every tool needs (by name, by triple, by endpoint).
//!
//! The graph changes only through [`Graph::apply`], which applies one log [`Record`]. Live
//! mutations and replay both go through it, so replaying a log rebuilds exactly the graph that
//! wrote it. What else must follow the graph (the search indexes) follows it as an
//! [`Observer`] that `apply` tells of each change; replay without indexes passes `()`.
//!
//! Names are not unique by construction: a memory file written by the reference server can hold
//! two entities with one name, and such a file is imported as it is. The tools never create a
//! second entity with an existing name.

mod snapshot;

use alloc::vec::Vec;
use smallvec::SmallVec;

use crate::hash::HashMap;
use crate::intern::{Interner, Sym};
use crate::model;
use crate::record::Record;
pub use snapshot::{SNAPSHOT_CHUNK, creating};

/// Position of an entity in insertion order (stable until the graph is re-packed).
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
pub struct EntityId(u32);

impl EntityId {
    /// The entity's arena slot: a dense number for per-entity arrays of indexes.
    pub fn slot(self) -> u32 {
        self.0
    }

    /// The id of an arena slot (for indexes kept up to date with the arena).
    pub fn from_slot(slot: u32) -> Self {
        EntityId(slot)
    }
}

/// Position of a relation in insertion order (stable until the graph is re-packed).
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
pub struct RelationId(u32);

/// A node as the graph stores it: interned strings ([`Sym`]) rather than the borrowed text
/// of [`model::Entity`], which is how it crosses every boundary.
#[derive(Debug)]
pub struct Entity {
    /// The entity's name.
    pub name: Sym,
    /// The entity's type.
    pub entity_type: Sym,
    /// Observations, oldest first.
    pub observations: Vec<Sym>,
}

/// A directed, typed edge between two names (which need not name existing entities), as
/// the graph stores it (see [`model::Relation`] for its text).
#[derive(Debug, Copy, Clone, Eq, PartialEq)]
pub struct Relation {
    /// Name where the relation starts.
    pub from: Sym,
    /// Name where the relation ends.
    pub to: Sym,
    /// The relation's type, in active voice.
    pub relation_type: Sym,
}

type Ids<T> = SmallVec<[T; 1]>;

/// Arenas with fewer live slots than this are never re-packed.
const REPACK_MIN_SLOTS: usize = 1024;

/// The in-memory knowledge graph.
#[derive(Default)]
pub struct Graph {
    strings: Interner,
    entities: Vec<Option<Entity>>,
    entity_count: usize,
    by_name: HashMap<Sym, Ids<EntityId>>,
    relations: Vec<Option<Relation>>,
    relation_count: usize,
    by_triple: HashMap<[Sym; 3], Ids<RelationId>>,
    by_endpoint: HashMap<Sym, Vec<RelationId>>,
}

/// What must follow the graph's entities (an index) hears of each change from
/// [`Graph::apply`], right after it happened and before any string it released is freed.
/// Ids are valid until [`Observer::repacked`], which renumbers them all. Every hook does
/// nothing by default; `()` observes nothing (replay).
pub trait Observer {
    /// Entity `id` was created, with its observations.
    fn entity_added(&mut self, _graph: &Graph, _id: EntityId) {}
    /// Entity `id` gained these observations (already in it, at its end).
    fn observations_added(&mut self, _graph: &Graph, _id: EntityId, _added: &[Sym]) {}
    /// Entity `id` lost these observations (the ones it keeps are in the graph).
    fn observations_removed(&mut self, _graph: &Graph, _id: EntityId, _removed: &[Sym]) {}
    /// Entity `id` was removed; `entity` is what it was.
    fn entity_removed(&mut self, _graph: &Graph, _id: EntityId, _entity: &Entity) {}
    /// The arenas were re-packed: every id changed.
    fn repacked(&mut self) {}
}

impl Observer for () {}

impl Graph {
    /// The string table behind every [`Sym`] of this graph.
    pub fn strings(&self) -> &Interner {
        &self.strings
    }

    /// The text of a handle.
    pub fn text(&self, sym: Sym) -> &str {
        self.strings.resolve(sym)
    }

    /// Number of entities.
    pub fn entity_count(&self) -> usize {
        self.entity_count
    }

    /// Number of relations.
    pub fn relation_count(&self) -> usize {
        self.relation_count
    }

    /// Entities in insertion order.
    pub fn entities(&self) -> impl Iterator<Item = (EntityId, &Entity)> {
        self.entities
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.as_ref().map(|e| (EntityId(i as u32), e)))
    }

    /// Relations in insertion order.
    pub fn relations(&self) -> impl Iterator<Item = (RelationId, &Relation)> {
        self.relations
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.as_ref().map(|r| (RelationId(i as u32), r)))
    }

    /// The entity behind an id handed out by this graph since its last change.
    pub fn entity(&self, id: EntityId) -> &Entity {
        self.entities[id.0 as usize]
            .as_ref()
            .expect("entity ids are only handed out for live entities")
    }

    /// The relation behind an id handed out by this graph since its last change.
    pub fn relation(&self, id: RelationId) -> &Relation {
        self.relations[id.0 as usize]
            .as_ref()
            .expect("relation ids are only handed out for live relations")
    }

    /// Every entity with this name, oldest first (more than one only in imported files).
    pub fn named(&self, name: &str) -> &[EntityId] {
        self.strings
            .lookup(name)
            .and_then(|sym| self.by_name.get(&sym))
            .map_or(&[], |ids| ids.as_slice())
    }

    /// The oldest entity with this name: the one the observation tools act on.
    pub fn first_named(&self, name: &str) -> Option<EntityId> {
        self.named(name).first().copied()
    }

    /// Whether entity `id` has this observation (a scan of its observations).
    pub fn has_observation(&self, id: EntityId, text: &str) -> bool {
        self.strings
            .lookup(text)
            .is_some_and(|sym| self.entity(id).observations.contains(&sym))
    }

    /// Whether a relation with exactly this triple exists.
    pub fn has_relation(&self, from: &str, to: &str, relation_type: &str) -> bool {
        self.triple(from, to, relation_type)
            .is_some_and(|t| self.by_triple.contains_key(&t))
    }

    /// Whether any relation starts or ends at this name.
    pub fn has_relations_at(&self, name: &str) -> bool {
        self.strings
            .lookup(name)
            .is_some_and(|sym| self.by_endpoint.contains_key(&sym))
    }

    /// Relations that start or end at any of `names`, in insertion order, each once.
    pub fn relations_touching(&self, names: impl IntoIterator<Item = Sym>) -> Vec<RelationId> {
        let mut ids: Vec<RelationId> = names
            .into_iter()
            .filter_map(|n| self.by_endpoint.get(&n))
            .flatten()
            .copied()
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    fn triple(&self, from: &str, to: &str, relation_type: &str) -> Option<[Sym; 3]> {
        let s = &self.strings;
        Some([s.lookup(from)?, s.lookup(to)?, s.lookup(relation_type)?])
    }

    /// Applies one log record, telling `observer` of each change to an entity. This is the
    /// only way the graph changes.
    pub fn apply(&mut self, record: &Record<'_>, observer: &mut impl Observer) {
        match record {
            Record::CreateEntities(list) => {
                self.entities.reserve(list.len());
                self.by_name.reserve(list.len());
                list.iter().for_each(|e| self.insert_entity(e, observer));
            }
            Record::CreateRelations(list) => {
                self.relations.reserve(list.len());
                self.by_triple.reserve(list.len());
                list.iter().for_each(|r| self.insert_relation(r));
            }
            Record::AddObservations(list) => {
                list.iter().for_each(|o| self.add_observations(o, observer))
            }
            Record::DeleteEntities(names) => {
                names.iter().for_each(|n| self.remove_named(n, observer));
                self.repack_if_sparse(observer);
            }
            Record::DeleteObservations(list) => list
                .iter()
                .for_each(|o| self.remove_observations(o, observer)),
            Record::DeleteRelations(list) => {
                list.iter().for_each(|r| self.remove_triple(r));
                self.repack_if_sparse(observer);
            }
            Record::Batch(records) => records.iter().for_each(|r| self.apply(r, observer)),
        }
    }

    fn insert_entity(&mut self, e: &model::Entity<'_>, observer: &mut impl Observer) {
        let id = EntityId(self.entities.len() as u32);
        let name = self.strings.intern(e.name);
        let entity = Entity {
            name,
            entity_type: self.strings.intern(e.entity_type),
            observations: e
                .observations
                .iter()
                .map(|o| self.strings.intern(o))
                .collect(),
        };
        self.entities.push(Some(entity));
        self.entity_count += 1;
        self.by_name.entry(name).or_default().push(id);
        observer.entity_added(self, id);
    }

    fn add_observations(&mut self, o: &model::Observations<'_>, observer: &mut impl Observer) {
        let Some(id) = self.first_named(o.entity) else {
            return;
        };
        let syms: Vec<Sym> = o.contents.iter().map(|c| self.strings.intern(c)).collect();
        if let Some(entity) = self.entities[id.0 as usize].as_mut() {
            entity.observations.extend_from_slice(&syms);
        }
        observer.observations_added(self, id, &syms);
    }

    fn remove_observations(&mut self, o: &model::Observations<'_>, observer: &mut impl Observer) {
        let Some(id) = self.first_named(o.entity) else {
            return;
        };
        let doomed: Vec<Sym> = o
            .contents
            .iter()
            .filter_map(|c| self.strings.lookup(c))
            .collect();
        let Some(entity) = self.entities[id.0 as usize].as_mut() else {
            return;
        };
        let mut removed = Vec::new();
        entity.observations.retain(|obs| {
            let keep = !doomed.contains(obs);
            if !keep {
                removed.push(*obs);
            }
            keep
        });
        if removed.is_empty() {
            return;
        }
        observer.observations_removed(self, id, &removed);
        for sym in removed {
            self.strings.release(sym);
        }
    }

    /// Removes every entity with this name and every relation starting or ending at it.
    fn remove_named(&mut self, name: &str, observer: &mut impl Observer) {
        let Some(sym) = self.strings.lookup(name) else {
            return;
        };
        for id in self.by_endpoint.remove(&sym).unwrap_or_default() {
            self.remove_relation(id);
        }
        for id in self.by_name.remove(&sym).unwrap_or_default() {
            if let Some(e) = self.entities[id.0 as usize].take() {
                self.entity_count -= 1;
                observer.entity_removed(self, id, &e);
                self.strings.release(e.name);
                self.strings.release(e.entity_type);
                e.observations.iter().for_each(|&o| self.strings.release(o));
            }
        }
    }

    fn insert_relation(&mut self, r: &model::Relation<'_>) {
        let id = RelationId(self.relations.len() as u32);
        let rel = Relation {
            from: self.strings.intern(r.from),
            to: self.strings.intern(r.to),
            relation_type: self.strings.intern(r.relation_type),
        };
        self.relations.push(Some(rel));
        self.relation_count += 1;
        self.list_relation(id, rel);
    }

    /// Lists a relation under its triple and its endpoints.
    fn list_relation(&mut self, id: RelationId, r: Relation) {
        self.by_triple
            .entry([r.from, r.to, r.relation_type])
            .or_default()
            .push(id);
        self.by_endpoint.entry(r.from).or_default().push(id);
        if r.to != r.from {
            self.by_endpoint.entry(r.to).or_default().push(id);
        }
    }

    fn remove_triple(&mut self, r: &model::Relation<'_>) {
        let Some(key) = self.triple(r.from, r.to, r.relation_type) else {
            return;
        };
        for id in self.by_triple.get(&key).cloned().unwrap_or_default() {
            self.remove_relation(id);
        }
    }

    /// Removes one relation from the arena and every index that still lists it.
    fn remove_relation(&mut self, id: RelationId) {
        let Some(rel) = self.relations[id.0 as usize].take() else {
            return;
        };
        self.relation_count -= 1;
        let key = [rel.from, rel.to, rel.relation_type];
        if let Some(ids) = self.by_triple.get_mut(&key) {
            ids.retain(|i| *i != id);
            if ids.is_empty() {
                self.by_triple.remove(&key);
            }
        }
        for end in [rel.from, rel.to] {
            if let Some(ids) = self.by_endpoint.get_mut(&end) {
                ids.retain(|i| *i != id);
                if ids.is_empty() {
                    self.by_endpoint.remove(&end);
                }
            }
        }
        for sym in key {
            self.strings.release(sym);
        }
    }

    /// Re-packs the arenas when more than half their slots are holes, renumbering ids.
    fn repack_if_sparse(&mut self, observer: &mut impl Observer) {
        let holes = (self.entities.len() - self.entity_count)
            + (self.relations.len() - self.relation_count);
        let live = self.entity_count + self.relation_count;
        if holes <= live.max(REPACK_MIN_SLOTS) {
            return;
        }
        self.entities.retain(Option::is_some);
        self.relations.retain(Option::is_some);
        self.by_name.clear();
        observer.repacked();
        for (i, e) in self.entities.iter().flatten().enumerate() {
            self.by_name
                .entry(e.name)
                .or_default()
                .push(EntityId(i as u32));
        }
        self.by_triple.clear();
        self.by_endpoint.clear();
        let live: Vec<Relation> = self.relations.iter().flatten().copied().collect();
        for (i, r) in live.into_iter().enumerate() {
            self.list_relation(RelationId(i as u32), r);
        }
    }
}
