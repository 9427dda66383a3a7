//! The knowledge graph's data as it crosses every boundary: one shape per concept, used as
//! tool argument (serde_json), log record payload (postcard) and tool output (serde_json).
//!
//! Postcard writes a struct's fields in order and ignores their names, so the JSON names
//! here (`entityType`, `relationType`, `entityName`) cost nothing in the file format; the
//! field order and types are the format (`record::tests::encoding_is_frozen` and the
//! fixtures pin it). The graph keeps its own interned form ([`crate::graph::Entity`]).
//!
//! Two sizes of each concept: the reference's ([`Entity`], [`Relation`]: what its nine tools
//! and its JSONL file carry, and what the first records held) and the whole of it
//! ([`EntityState`], [`RelationState`]: times, tags, observation ids and history, as a
//! snapshot or a conversion writes them). Changes to the richer model have their own small
//! shapes ([`EntityPatch`], [`NewFacts`], [`NewRelation`], [`NewReflection`]).

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// A time: milliseconds since the Unix epoch (UTC), as the host's clock gave it; `0` is
/// "not known" (a change logged before times were kept, or by a host without a clock).
pub type Millis = u64;

/// An entity: a name, a type, and observations in order.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone)]
pub struct Entity<'a> {
    /// The entity's name.
    pub name: &'a str,
    /// The entity's type.
    #[serde(rename = "entityType")]
    pub entity_type: &'a str,
    /// Its observations, oldest first.
    #[serde(borrow)]
    pub observations: Vec<&'a str>,
}

/// A directed, typed relation between two names (which need not name existing entities);
/// the three together are its identity.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy, Hash)]
pub struct Relation<'a> {
    /// Name where the relation starts.
    pub from: &'a str,
    /// Name where the relation ends.
    pub to: &'a str,
    /// The relation's type, in active voice.
    #[serde(rename = "relationType")]
    pub relation_type: &'a str,
}

/// Observations of one entity, named: an item of `add_observations` and of the records that
/// add or delete observations.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone)]
pub struct Observations<'a> {
    /// The entity's name.
    #[serde(rename = "entityName")]
    pub entity: &'a str,
    /// The observation texts.
    #[serde(borrow)]
    pub contents: Vec<&'a str>,
}

/// Who made a change: the client (its `clientInfo`), the session it spoke in, and the actor
/// the host was started for, if any.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy, Hash, Default)]
pub struct Provenance<'a> {
    /// The client's name (`clientInfo.name`), empty if it never said.
    pub client: &'a str,
    /// The client's version (`clientInfo.version`).
    pub version: &'a str,
    /// The session: unique per connection and process start.
    pub session: &'a str,
    /// The actor the host was started for (`--actor`), if any.
    pub actor: Option<&'a str>,
}

/// An observation in full: its text, stable id, kind, time, and what it supersedes or
/// what superseded it.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct Fact<'a> {
    /// The observation's text.
    pub text: &'a str,
    /// Its id, unique within its entity and never reused there (from 1).
    pub id: u32,
    /// Its kind; `None` is `generic`.
    pub kind: Option<&'a str>,
    /// When it was added.
    pub created: Millis,
    /// The id of the observation it replaced, if any (`0`: none).
    pub supersedes: u32,
    /// When a newer observation replaced it (`0`: it is current).
    pub superseded: Millis,
}

impl<'a> Fact<'a> {
    /// A current observation numbered `id`, made at `created`, superseding nothing.
    pub fn current(text: &'a str, id: u32, created: Millis) -> Self {
        Fact {
            text,
            id,
            kind: None,
            created,
            supersedes: 0,
            superseded: 0,
        }
    }

    /// Current observations numbered from 1, all made at `created`.
    pub fn numbered(texts: impl IntoIterator<Item = &'a str>, created: Millis) -> Vec<Self> {
        texts
            .into_iter()
            .zip(1..)
            .map(|(text, id)| Fact::current(text, id, created))
            .collect()
    }
}

/// An entity in full: what a snapshot or a conversion writes, and what the extended reads
/// show.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct EntityState<'a> {
    /// The entity's name.
    pub name: &'a str,
    /// The entity's type.
    pub entity_type: &'a str,
    /// When it was created.
    pub created: Millis,
    /// When it last changed.
    pub updated: Millis,
    /// Its tags (lowercase, each once).
    #[serde(borrow)]
    pub tags: Vec<&'a str>,
    /// Its importance, 0–10, if set.
    pub importance: Option<f64>,
    /// The entity it belongs under, if any.
    pub parent: Option<&'a str>,
    /// Its status; `None` is `active`.
    pub status: Option<&'a str>,
    /// The id its next observation gets.
    pub next_fact: u32,
    /// Its observations: the current ones in order, then the superseded ones in order.
    pub facts: Vec<Fact<'a>>,
}

/// A relation in full.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct RelationState<'a> {
    /// Its triple.
    #[serde(borrow)]
    pub relation: Relation<'a>,
    /// When it was created.
    pub created: Millis,
    /// Free text on the circumstances of the relation, if any.
    pub context: Option<&'a str>,
    /// When it ended (`0`: it holds).
    pub ended: Millis,
}

/// What a reflection is about.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub enum Target<'a> {
    /// The memory as a whole.
    Global,
    /// An entity, by name.
    Entity(&'a str),
    /// A relation, by triple.
    #[serde(borrow)]
    Relation(Relation<'a>),
    /// A session, by its id.
    Session(&'a str),
}

/// A reflection: a note about the memory, an entity, a relation or a session.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct Reflection<'a> {
    /// Its id in the memory (from 1).
    pub id: u32,
    /// What it is about.
    #[serde(borrow)]
    pub target: Target<'a>,
    /// Who wrote it.
    pub author: &'a str,
    /// The author's mood, if given.
    pub mood: Option<&'a str>,
    /// Its text.
    pub content: &'a str,
    /// When it was written.
    pub created: Millis,
}

/// A tag alias: a tag read as another, its canonical tag.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct TagAlias<'a> {
    /// The alias (lowercase).
    pub alias: &'a str,
    /// The tag it stands for (lowercase).
    pub canonical: &'a str,
    /// What it is for, if said.
    pub description: Option<&'a str>,
    /// When it was made.
    pub created: Millis,
}

/// A saved search: a search by name, to run again.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct SavedSearch<'a> {
    /// Its name.
    pub name: &'a str,
    /// What it is for, if said.
    pub description: Option<&'a str>,
    /// The query.
    pub query: &'a str,
    /// Tags an entity must have one of (lowercase; none: no filter).
    #[serde(borrow)]
    pub tags: Vec<&'a str>,
    /// The least importance an entity must have.
    pub min_importance: Option<f64>,
    /// The most importance an entity may have.
    pub max_importance: Option<f64>,
    /// The type an entity must have.
    pub entity_type: Option<&'a str>,
    /// When it was saved.
    pub created: Millis,
    /// How many times it ran.
    pub use_count: u32,
    /// When it last ran (`0`: never).
    pub last_used: Millis,
}

/// An entity archived: out of the graph, kept to be restored, with the relations it had.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Archived<'a> {
    /// The entity as it was.
    #[serde(borrow)]
    pub entity: EntityState<'a>,
    /// The relations at it that held, as they were.
    #[serde(borrow)]
    pub relations: Vec<RelationState<'a>>,
    /// When it was archived.
    pub at: Millis,
}

/// A reflection to add (its id and time come from the memory and the change).
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct NewReflection<'a> {
    /// What it is about.
    #[serde(borrow)]
    pub target: Target<'a>,
    /// Who wrote it.
    pub author: &'a str,
    /// The author's mood, if given.
    pub mood: Option<&'a str>,
    /// Its text.
    pub content: &'a str,
}

/// Changes to an entity's metadata; `None` leaves a field as it is.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
pub struct EntityPatch<'a> {
    /// The entity's name (the oldest entity with it).
    pub name: &'a str,
    /// Its new tags (lowercase, each once), replacing the old ones.
    #[serde(borrow)]
    pub tags: Option<Vec<&'a str>>,
    /// Its new importance, or `Some(None)` to clear it.
    pub importance: Option<Option<f64>>,
    /// Its new parent, or `Some(None)` to clear it.
    pub parent: Option<Option<&'a str>>,
    /// Its new status.
    pub status: Option<&'a str>,
}

/// An observation to add, with its kind and what it supersedes.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct NewFact<'a> {
    /// The text.
    pub text: &'a str,
    /// Its kind; `None` is `generic`.
    pub kind: Option<&'a str>,
    /// The id of a current observation of the same entity it replaces (`0`: none).
    pub supersedes: u32,
}

/// Observations to add to one entity.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone)]
pub struct NewFacts<'a> {
    /// The entity's name (the oldest entity with it).
    pub entity: &'a str,
    /// The observations, in order.
    #[serde(borrow)]
    pub facts: Vec<NewFact<'a>>,
}

/// A relation to create, with its context.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct NewRelation<'a> {
    /// Its triple.
    #[serde(borrow)]
    pub relation: Relation<'a>,
    /// Free text on its circumstances, if any.
    pub context: Option<&'a str>,
}

/// Part of the graph put back as it was (what an undo logs): first the entities and
/// relations named leave, then the given states are put in.
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
pub struct Restore<'a> {
    /// Names whose every entity leaves (relations at them stay).
    #[serde(borrow)]
    pub entities: Vec<&'a str>,
    /// Triples whose every relation, holding or ended, leaves.
    #[serde(borrow)]
    pub relations: Vec<Relation<'a>>,
    /// Entities put in, as given.
    #[serde(borrow)]
    pub put_entities: Vec<EntityState<'a>>,
    /// Relations put in, as given (ended ones to the history).
    #[serde(borrow)]
    pub put_relations: Vec<RelationState<'a>>,
}

/// How entities were used (read back by the salience ranking): accesses and entities
/// returned together, each counted. Added, never replaced: a process logs what it saw
/// since it last logged, so processes sharing a memory sum their counts, and a snapshot
/// restates the totals as one.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Default)]
pub struct Usage<'a> {
    /// Accesses, per entity and day.
    #[serde(borrow)]
    pub accesses: Vec<Access<'a>>,
    /// Entities returned together, per pair.
    #[serde(borrow)]
    pub pairs: Vec<CoUse<'a>>,
}

/// An entity's accesses on one day.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct Access<'a> {
    /// The entity's name.
    pub entity: &'a str,
    /// The day (days since the Unix epoch, UTC).
    pub day: u32,
    /// How many times.
    pub count: u32,
    /// When the last of them was.
    pub last: Millis,
}

/// Two entities returned together (the first name sorts before the second).
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct CoUse<'a> {
    /// One entity's name.
    pub a: &'a str,
    /// The other's.
    pub b: &'a str,
    /// How many times.
    pub count: u32,
    /// When the last of them was.
    pub last: Millis,
}
