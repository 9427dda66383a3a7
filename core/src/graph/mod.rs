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

mod apply;
mod checkpoint;
mod saved;
mod snapshot;
mod sym_map;
mod triples;
mod usage;

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::cell::OnceCell;
use smallvec::SmallVec;

use crate::hash::HashMap;
use crate::intern::{Interner, Sym};
use crate::model::{self, Millis};
pub use checkpoint::Replayed;
pub use snapshot::{SNAPSHOT_CHUNK, State, creating};
use sym_map::SymMap;
pub use usage::Use;

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
    /// Its current observations, oldest first.
    pub observations: Vec<Sym>,
    /// What is known of each current observation (same order and length).
    pub facts: Vec<FactMeta>,
    /// When it was created (`0`: not known).
    pub created: Millis,
    /// When it last changed (`0`: not known).
    pub updated: Millis,
    /// The id its next observation gets.
    pub next_fact: u32,
    /// Metadata most entities lack, boxed so they cost one pointer.
    pub extra: Option<Box<Extra>>,
}

impl Entity {
    /// Its searchable text: name, type, then observations.
    pub fn fields(&self) -> impl Iterator<Item = Sym> + '_ {
        [self.name, self.entity_type]
            .into_iter()
            .chain(self.observations.iter().copied())
    }
}

/// What is known of an observation beside its text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FactMeta {
    /// Its id within the entity (from 1, never reused there).
    pub id: u32,
    /// The id of the observation it superseded (`0`: none).
    pub supersedes: u32,
    /// Its kind; `None` is `generic`.
    pub kind: Option<Sym>,
    /// When it was added (`0`: not known).
    pub created: Millis,
}

/// An entity's metadata beside its name, type and observations.
#[derive(Debug, Default)]
pub struct Extra {
    /// Tags, lowercase, each once, in the order set.
    pub tags: Vec<Sym>,
    /// Importance, 0–10.
    pub importance: Option<f64>,
    /// The entity it belongs under.
    pub parent: Option<Sym>,
    /// Its status; `None` is `active`.
    pub status: Option<Sym>,
    /// Superseded observations, in the order they were superseded.
    pub past: Vec<Past>,
}

/// A superseded observation: still known, no longer current.
#[derive(Debug, Clone, Copy)]
pub struct Past {
    /// Its text.
    pub text: Sym,
    /// What was known of it.
    pub meta: FactMeta,
    /// When it was superseded.
    pub superseded: Millis,
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
    /// When it was created (`0`: not known).
    pub created: Millis,
    /// Free text on its circumstances.
    pub context: Option<Sym>,
}

/// A relation that ended: out of the graph, kept as history.
#[derive(Debug, Copy, Clone)]
pub struct Ended {
    /// The relation as it was.
    pub relation: Relation,
    /// When it ended.
    pub at: Millis,
}

/// What a reflection is about, interned.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum Target {
    /// The memory as a whole.
    Global,
    /// An entity, by name.
    Entity(Sym),
    /// A relation: from, to, type.
    Relation([Sym; 3]),
    /// A session, by id.
    Session(Sym),
}

/// A reflection, interned (see [`model::Reflection`]).
#[derive(Debug, Copy, Clone)]
pub struct Reflection {
    /// Its id (from 1).
    pub id: u32,
    /// What it is about.
    pub target: Target,
    /// Who wrote it.
    pub author: Sym,
    /// The author's mood.
    pub mood: Option<Sym>,
    /// Its text.
    pub content: Sym,
    /// When it was written.
    pub created: Millis,
}

/// A tag alias, interned (see [`model::TagAlias`]).
#[derive(Debug, Copy, Clone)]
pub struct TagAlias {
    /// The alias.
    pub alias: Sym,
    /// The tag it stands for.
    pub canonical: Sym,
    /// What it is for.
    pub description: Option<Sym>,
    /// When it was made.
    pub created: Millis,
}

/// A saved search, interned (see [`model::SavedSearch`]).
#[derive(Debug, Clone)]
pub struct SavedSearch {
    /// Its name.
    pub name: Sym,
    /// What it is for.
    pub description: Option<Sym>,
    /// The query.
    pub query: Sym,
    /// Tags an entity must have one of.
    pub tags: Vec<Sym>,
    /// The least importance an entity must have.
    pub min_importance: Option<f64>,
    /// The most importance an entity may have.
    pub max_importance: Option<f64>,
    /// The type an entity must have.
    pub entity_type: Option<Sym>,
    /// When it was saved.
    pub created: Millis,
    /// How many times it ran.
    pub use_count: u32,
    /// When it last ran (`0`: never).
    pub last_used: Millis,
}

/// An archived entity (see [`model::Archived`]), kept encoded: it is read only to be
/// listed or restored.
#[derive(Debug, Clone)]
pub struct ArchivedRow {
    /// The entity's name.
    pub name: alloc::string::String,
    /// The [`model::Archived`], in postcard.
    bytes: Vec<u8>,
}

/// An entry of the table of who made changes (see [`model::Provenance`]), interned.
#[derive(Debug, Copy, Clone, PartialEq, Eq, Hash)]
struct AgentSyms {
    client: Sym,
    version: Sym,
    session: Sym,
    actor: Option<Sym>,
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
    by_name: SymMap<Ids<EntityId>>,
    relations: Vec<Option<Relation>>,
    relation_count: usize,
    /// Built by the first lookup by triple (a start that only reads never needs it), then
    /// kept up to date.
    by_triple: OnceCell<triples::Triples>,
    by_endpoint: SymMap<Vec<RelationId>>,
    ended: Vec<Ended>,
    reflections: Vec<Reflection>,
    tag_aliases: Vec<TagAlias>,
    saved_searches: Vec<SavedSearch>,
    archived: Vec<ArchivedRow>,
    agents: Vec<AgentSyms>,
    agent_ids: HashMap<AgentSyms, u32>,
    /// How entities were used, by name.
    usage: HashMap<Sym, Use>,
    /// The latest time a change carried.
    last_at: Millis,
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
        self.entities_from(0)
    }

    /// Entities in insertion order from arena slot `slot` on.
    pub fn entities_from(&self, slot: u32) -> impl Iterator<Item = (EntityId, &Entity)> {
        let skip = (slot as usize).min(self.entities.len());
        self.entities[skip..]
            .iter()
            .zip(skip as u32..)
            .filter_map(|(e, i)| e.as_ref().map(|e| (EntityId(i), e)))
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
            .and_then(|sym| self.by_name.get(sym))
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
            .is_some_and(|t| self.triples().contains(&t, &self.relations))
    }

    /// Whether any relation starts or ends at this name.
    pub fn has_relations_at(&self, name: &str) -> bool {
        self.strings
            .lookup(name)
            .is_some_and(|sym| self.by_endpoint.contains_key(sym))
    }

    /// Whether a relation with this triple ended (it is history).
    pub fn has_ended(&self, from: &str, to: &str, relation_type: &str) -> bool {
        self.triple(from, to, relation_type).is_some_and(|key| {
            self.ended
                .iter()
                .any(|e| [e.relation.from, e.relation.to, e.relation.relation_type] == key)
        })
    }

    /// Whether a relation that ended started or ended at this name.
    pub fn has_ended_at(&self, name: &str) -> bool {
        self.strings.lookup(name).is_some_and(|sym| {
            self.ended
                .iter()
                .any(|e| e.relation.from == sym || e.relation.to == sym)
        })
    }

    /// How many relations start or end at this name (its degree).
    pub fn degree(&self, name: Sym) -> usize {
        self.by_endpoint.get(name).map_or(0, Vec::len)
    }

    /// Relations that ended, in the order they ended (their history).
    pub fn ended(&self) -> &[Ended] {
        &self.ended
    }

    /// Reflections, oldest first.
    pub fn reflections(&self) -> &[Reflection] {
        &self.reflections
    }

    /// Tag aliases, in the order made.
    pub fn tag_aliases(&self) -> &[TagAlias] {
        &self.tag_aliases
    }

    /// Saved searches, in the order saved.
    pub fn saved_searches(&self) -> &[SavedSearch] {
        &self.saved_searches
    }

    /// The id the next reflection gets (one more than the last one's).
    pub fn next_reflection_id(&self) -> u32 {
        self.reflections.last().map_or(1, |last| last.id + 1)
    }

    /// The latest time any change carried (`0` if none did): a new change is never stamped
    /// earlier, so the log's times never go back.
    pub fn last_at(&self) -> Millis {
        self.last_at
    }

    /// The index of this agent in the table of who made changes, if it is there.
    pub fn agent_id(&self, p: &model::Provenance<'_>) -> Option<u32> {
        let s = &self.strings;
        let key = AgentSyms {
            client: s.lookup(p.client)?,
            version: s.lookup(p.version)?,
            session: s.lookup(p.session)?,
            actor: match p.actor {
                Some(a) => Some(s.lookup(a)?),
                None => None,
            },
        };
        self.agent_ids.get(&key).copied()
    }

    /// The table of who made changes, in order.
    pub fn agents(&self) -> impl Iterator<Item = model::Provenance<'_>> {
        self.agents.iter().map(|a| model::Provenance {
            client: self.text(a.client),
            version: self.text(a.version),
            session: self.text(a.session),
            actor: a.actor.map(|s| self.text(s)),
        })
    }

    /// Relations that start or end at any of `names`, in insertion order, each once.
    pub fn relations_touching(&self, names: impl IntoIterator<Item = Sym>) -> Vec<RelationId> {
        let mut ids: Vec<RelationId> = names
            .into_iter()
            .filter_map(|n| self.by_endpoint.get(n))
            .flatten()
            .copied()
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Relation ids by triple, built now if no lookup needed them before.
    fn triples(&self) -> &triples::Triples {
        self.by_triple
            .get_or_init(|| triples::Triples::of(&self.relations))
    }

    fn triple(&self, from: &str, to: &str, relation_type: &str) -> Option<[Sym; 3]> {
        let s = &self.strings;
        Some([s.lookup(from)?, s.lookup(to)?, s.lookup(relation_type)?])
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
            self.by_name.get_or_default(e.name).push(EntityId(i as u32));
        }
        self.by_triple = OnceCell::new();
        self.by_endpoint.clear();
        let live: Vec<Relation> = self.relations.iter().flatten().copied().collect();
        for (i, r) in live.into_iter().enumerate() {
            self.list_relation(RelationId(i as u32), r);
        }
    }
}
