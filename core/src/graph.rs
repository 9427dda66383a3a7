//! The knowledge graph: entities and directed relations, in insertion order, with indexes.
//!
//! The graph changes only through [`Graph::apply`], which applies one log [`Record`]. Live
//! mutations and replay both go through it, so replaying a log rebuilds exactly the graph that
//! wrote it.
//!
//! Names are not unique by construction: a memory file written by the reference server can hold
//! two entities with one name, and such a file is imported as it is. The tools never create a
//! second entity with an existing name.

use alloc::vec::Vec;
use core::cell::OnceCell;
use smallvec::SmallVec;

use crate::hash::HashMap;
use crate::intern::{Interner, Sym};
use crate::record::{NewEntity, Observations, Record, Triple};
use crate::search::SearchIndex;
use crate::substring::{SubstringIndex, buckets_of};

/// Position of an entity in insertion order (stable until the graph is re-packed).
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
pub struct EntityId(u32);

impl EntityId {
    /// The entity's arena slot: a dense number for per-entity arrays of indexes.
    pub fn slot(self) -> u32 {
        self.0
    }

    /// The id of an arena slot (for indexes kept up to date with the arena).
    pub(crate) fn from_slot(slot: u32) -> Self {
        EntityId(slot)
    }
}

/// Position of a relation in insertion order (stable until the graph is re-packed).
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
pub struct RelationId(u32);

/// A node: a name, a type and observations in insertion order.
#[derive(Debug)]
pub struct Entity {
    /// The entity's name.
    pub name: Sym,
    /// The entity's type.
    pub entity_type: Sym,
    /// Observations, oldest first.
    pub observations: Vec<Sym>,
}

/// A directed, typed edge between two names (which need not name existing entities).
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
    /// Built by the first substring search (not at replay, which it would slow by half),
    /// then kept up to date by every change.
    text_index: OnceCell<SubstringIndex>,
    /// The ranked-search index: built like `text_index` by the first search, then kept up
    /// to date by every change.
    search_index: OnceCell<SearchIndex>,
}

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

    /// Entities that may contain `needle` (lowercased) in a field, in graph order, or `None`
    /// when the needle is too short to narrow the search (then every entity may).
    pub fn substring_candidates(&self, needle: &str) -> Option<Vec<EntityId>> {
        let index = self.text_index.get_or_init(|| {
            let mut index = SubstringIndex::default();
            for (id, e) in self.entities() {
                index.add(id.0, Self::fields(e).map(|&s| self.strings.lower(s)));
            }
            index
        });
        let slots = index.candidates(needle)?;
        Some(slots.into_iter().map(EntityId).collect())
    }

    /// The ranked-search index (built by the first call after start or a re-pack).
    pub fn search_index(&self) -> &SearchIndex {
        self.search_index.get_or_init(|| SearchIndex::build(self))
    }

    /// The index buckets these strings' lowercased windows reach.
    fn buckets_of<'a>(&'a self, syms: impl IntoIterator<Item = &'a Sym>) -> Vec<u32> {
        buckets_of(syms.into_iter().map(|&s| self.strings.lower(s)))
    }

    fn fields(e: &Entity) -> impl Iterator<Item = &Sym> {
        [&e.name, &e.entity_type].into_iter().chain(&e.observations)
    }

    fn triple(&self, from: &str, to: &str, relation_type: &str) -> Option<[Sym; 3]> {
        let s = &self.strings;
        Some([s.lookup(from)?, s.lookup(to)?, s.lookup(relation_type)?])
    }

    /// Applies one log record. This is the only way the graph changes.
    pub fn apply(&mut self, record: &Record<'_>) {
        match record {
            Record::CreateEntities(list) => {
                self.entities.reserve(list.len());
                self.by_name.reserve(list.len());
                list.iter().for_each(|e| self.insert_entity(e));
            }
            Record::CreateRelations(list) => {
                self.relations.reserve(list.len());
                self.by_triple.reserve(list.len());
                list.iter().for_each(|r| self.insert_relation(r));
            }
            Record::AddObservations(list) => list.iter().for_each(|o| self.add_observations(o)),
            Record::DeleteEntities(names) => {
                names.iter().for_each(|n| self.remove_named(n));
                self.repack_if_sparse();
            }
            Record::DeleteObservations(list) => {
                list.iter().for_each(|o| self.remove_observations(o))
            }
            Record::DeleteRelations(list) => {
                list.iter().for_each(|r| self.remove_triple(r));
                self.repack_if_sparse();
            }
            Record::Batch(records) => records.iter().for_each(|r| self.apply(r)),
        }
    }

    fn insert_entity(&mut self, e: &NewEntity<'_>) {
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
        if let Some(index) = self.text_index.get_mut() {
            let strings = &self.strings;
            index.add(id.0, Self::fields(&entity).map(|&s| strings.lower(s)));
        }
        if let Some(index) = self.search_index.get_mut() {
            let s = &self.strings;
            let obs = entity.observations.iter().map(|&o| s.resolve(o));
            index.add_entity(id.0, s.resolve(name), s.resolve(entity.entity_type), obs);
        }
        self.entities.push(Some(entity));
        self.entity_count += 1;
        self.by_name.entry(name).or_default().push(id);
    }

    fn add_observations(&mut self, o: &Observations<'_>) {
        let Some(id) = self.first_named(o.entity) else {
            return;
        };
        let syms: Vec<Sym> = o.contents.iter().map(|c| self.strings.intern(c)).collect();
        if let Some(index) = self.text_index.get_mut() {
            let strings = &self.strings;
            index.add(id.0, syms.iter().map(|&s| strings.lower(s)));
        }
        if let Some(index) = self.search_index.get_mut() {
            let s = &self.strings;
            index.add_observations(id.0, syms.iter().map(|&o| s.resolve(o)));
        }
        if let Some(entity) = self.entities[id.0 as usize].as_mut() {
            entity.observations.extend(syms);
        }
    }

    fn remove_observations(&mut self, o: &Observations<'_>) {
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
        if let Some(index) = self.search_index.get_mut() {
            let s = &self.strings;
            let kept = entity.observations.iter().map(|&o| s.resolve(o));
            index.replace_observations(id.0, removed.iter().map(|&o| s.resolve(o)), kept);
        }
        if self.text_index.get().is_some() {
            // Unlist the windows that only the removed observations had.
            let kept = self.buckets_of(Self::fields(self.entity(id)));
            let mut gone = self.buckets_of(&removed);
            gone.retain(|g| kept.binary_search(g).is_err());
            if let Some(index) = self.text_index.get_mut() {
                index.remove(id.0, &gone);
            }
        }
        for sym in removed {
            self.strings.release(sym);
        }
    }

    /// Removes every entity with this name and every relation starting or ending at it.
    fn remove_named(&mut self, name: &str) {
        let Some(sym) = self.strings.lookup(name) else {
            return;
        };
        for id in self.by_endpoint.remove(&sym).unwrap_or_default() {
            self.remove_relation(id);
        }
        for id in self.by_name.remove(&sym).unwrap_or_default() {
            if let Some(e) = self.entities[id.0 as usize].take() {
                if self.text_index.get().is_some() {
                    let buckets = self.buckets_of(Self::fields(&e));
                    if let Some(index) = self.text_index.get_mut() {
                        index.remove(id.0, &buckets);
                    }
                }
                if let Some(index) = self.search_index.get_mut() {
                    let s = &self.strings;
                    let obs = e.observations.iter().map(|&o| s.resolve(o));
                    index.remove_entity(id.0, s.resolve(e.name), s.resolve(e.entity_type), obs);
                }
                self.entity_count -= 1;
                self.strings.release(e.name);
                self.strings.release(e.entity_type);
                e.observations.iter().for_each(|&o| self.strings.release(o));
            }
        }
    }

    fn insert_relation(&mut self, r: &Triple<'_>) {
        let id = RelationId(self.relations.len() as u32);
        let rel = Relation {
            from: self.strings.intern(r.from),
            to: self.strings.intern(r.to),
            relation_type: self.strings.intern(r.relation_type),
        };
        self.relations.push(Some(rel));
        self.relation_count += 1;
        self.by_triple
            .entry([rel.from, rel.to, rel.relation_type])
            .or_default()
            .push(id);
        self.by_endpoint.entry(rel.from).or_default().push(id);
        if rel.to != rel.from {
            self.by_endpoint.entry(rel.to).or_default().push(id);
        }
    }

    fn remove_triple(&mut self, r: &Triple<'_>) {
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
    fn repack_if_sparse(&mut self) {
        let holes = (self.entities.len() - self.entity_count)
            + (self.relations.len() - self.relation_count);
        let live = self.entity_count + self.relation_count;
        if holes <= live.max(REPACK_MIN_SLOTS) {
            return;
        }
        self.entities.retain(Option::is_some);
        self.relations.retain(Option::is_some);
        self.by_name.clear();
        // Slots are renumbered: the next search rebuilds the text index.
        self.text_index = OnceCell::new();
        self.search_index = OnceCell::new();
        for (i, e) in self.entities.iter().flatten().enumerate() {
            self.by_name
                .entry(e.name)
                .or_default()
                .push(EntityId(i as u32));
        }
        self.by_triple.clear();
        self.by_endpoint.clear();
        for (i, r) in self.relations.iter().flatten().enumerate() {
            let id = RelationId(i as u32);
            self.by_triple
                .entry([r.from, r.to, r.relation_type])
                .or_default()
                .push(id);
            self.by_endpoint.entry(r.from).or_default().push(id);
            if r.to != r.from {
                self.by_endpoint.entry(r.to).or_default().push(id);
            }
        }
    }
}
