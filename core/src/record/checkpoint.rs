//! A checkpoint: the whole graph restated at a point of the log, in a layout that loads
//! without re-deciding anything, so that opening a memory starts at its last checkpoint
//! instead of replaying every change before it.
//!
//! A checkpoint changes nothing. Written after other entries, it restates the state they
//! build (a reader that applied them skips it); as a log's first entry (a compacted log) it
//! is the state history starts from. Every string is written once, in
//! [`Checkpoint::strings`]; everything else refers to strings by index ([`Str`], or
//! [`OptStr`] where a string may be absent), so loading interns each string once.
//!
//! On the wire a checkpoint is the tag [`CHECKPOINT`] (the record variant after the
//! stamped change), then the postcard encoding of [`Checkpoint`]. Like records, its layout is
//! the file format's: fields are never reordered or removed.

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use super::{DecodeError, decode_all};
use crate::model::Millis;

/// The wire tag of a checkpoint (records are variants 0–7).
pub const CHECKPOINT: u8 = 8;

/// A string of a checkpoint: its index in [`Checkpoint::strings`].
pub type Str = u32;

/// A string that may be absent: its index plus one, `0` for none.
pub type OptStr = u32;

/// The graph's whole state (see the module's docs).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Default)]
pub struct Checkpoint<'a> {
    /// Every string the graph holds, each once.
    #[serde(borrow)]
    pub strings: Vec<&'a str>,
    /// The latest time any change carried.
    pub last_at: Millis,
    /// The table of who made changes, in order.
    pub agents: Vec<AgentRow>,
    /// Entities in order.
    pub entities: Vec<EntityRow>,
    /// Every entity's observations, entity after entity: its current ones in order, then
    /// its superseded ones in the order they were superseded.
    pub facts: Vec<FactRow>,
    /// Every entity's tags, entity after entity.
    pub tags: Vec<Str>,
    /// Relations that hold, in order.
    pub relations: Vec<RelationRow>,
    /// Relations that ended, in the order they ended, with when.
    pub ended: Vec<(RelationRow, Millis)>,
    /// Reflections, oldest first.
    pub reflections: Vec<ReflectionRow>,
}

/// An entry of the table of who made changes.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct AgentRow {
    /// The client's name.
    pub client: Str,
    /// The client's version.
    pub version: Str,
    /// The session.
    pub session: Str,
    /// Who the host ran for.
    pub actor: OptStr,
}

/// An entity; its observations and tags follow those of the entities before it in
/// [`Checkpoint::facts`] and [`Checkpoint::tags`].
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
pub struct EntityRow {
    /// Its name.
    pub name: Str,
    /// Its type.
    pub entity_type: Str,
    /// When it was created.
    pub created: Millis,
    /// When it last changed.
    pub updated: Millis,
    /// The id its next observation gets.
    pub next_fact: u32,
    /// How many current observations it has.
    pub current: u32,
    /// How many superseded observations it keeps.
    pub past: u32,
    /// How many tags it has.
    pub tags: u32,
    /// Its importance.
    pub importance: Option<f64>,
    /// The entity it belongs under.
    pub parent: OptStr,
    /// Its status (`0`: active).
    pub status: OptStr,
}

/// An observation.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct FactRow {
    /// Its text.
    pub text: Str,
    /// Its id within the entity.
    pub id: u32,
    /// The id of the observation it superseded (`0`: none).
    pub supersedes: u32,
    /// Its kind (`0`: generic).
    pub kind: OptStr,
    /// When it was added.
    pub created: Millis,
    /// When it was superseded (`0` for a current one).
    pub superseded: Millis,
}

/// A relation.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct RelationRow {
    /// Where it starts.
    pub from: Str,
    /// Where it ends.
    pub to: Str,
    /// Its type.
    pub relation_type: Str,
    /// When it was created.
    pub created: Millis,
    /// Its context.
    pub context: OptStr,
}

/// What a reflection is about.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub enum TargetRow {
    /// The memory as a whole.
    Global,
    /// An entity, by name.
    Entity(Str),
    /// A relation: from, to, type.
    Relation([Str; 3]),
    /// A session, by id.
    Session(Str),
}

/// A reflection.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct ReflectionRow {
    /// Its id.
    pub id: u32,
    /// What it is about.
    pub target: TargetRow,
    /// Who wrote it.
    pub author: Str,
    /// The author's mood.
    pub mood: OptStr,
    /// Its text.
    pub content: Str,
    /// When it was written.
    pub created: Millis,
}

/// Whether a log entry is a checkpoint rather than a change.
pub fn is_checkpoint(bytes: &[u8]) -> bool {
    bytes.first() == Some(&CHECKPOINT)
}

impl<'a> Checkpoint<'a> {
    /// The entry's bytes: the tag, then the checkpoint.
    pub fn encode(&self) -> Vec<u8> {
        // Sized first: the entry is megabytes, and a buffer that doubles as it is written
        // leaves holes a WebAssembly heap never gives back.
        let entry = (CHECKPOINT, self);
        let size = postcard::serialize_with_flavor(&entry, postcard::ser_flavors::Size::default())
            .expect("checkpoints always serialize");
        postcard::to_extend(&entry, Vec::with_capacity(size)).expect("checkpoints always serialize")
    }

    /// Reads a checkpoint entry, borrowing strings from it. Every index must name a string
    /// and the entities' counts must add up to the facts and tags listed, so loading one
    /// never needs to check again.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let (tag, c): (u8, Checkpoint<'a>) = decode_all(bytes)?;
        if tag != CHECKPOINT {
            return Err(DecodeError(alloc::format!("tag {tag} is not a checkpoint")));
        }
        c.check()?;
        Ok(c)
    }

    fn check(&self) -> Result<(), DecodeError> {
        let n = self.strings.len() as u64;
        let str_ok = |s: Str| u64::from(s) < n;
        let opt_ok = |s: OptStr| u64::from(s) <= n;
        let agents = self
            .agents
            .iter()
            .all(|a| str_ok(a.client) && str_ok(a.version) && str_ok(a.session) && opt_ok(a.actor));
        let entities = self.entities.iter().all(|e| {
            str_ok(e.name) && str_ok(e.entity_type) && opt_ok(e.parent) && opt_ok(e.status)
        });
        let facts = self.facts.iter().all(|f| str_ok(f.text) && opt_ok(f.kind));
        let relation = |r: &RelationRow| {
            str_ok(r.from) && str_ok(r.to) && str_ok(r.relation_type) && opt_ok(r.context)
        };
        let relations =
            self.relations.iter().all(relation) && self.ended.iter().all(|(r, _)| relation(r));
        let reflections = self.reflections.iter().all(|r| {
            let target = match r.target {
                TargetRow::Global => true,
                TargetRow::Entity(s) | TargetRow::Session(s) => str_ok(s),
                TargetRow::Relation(t) => t.iter().all(|&s| str_ok(s)),
            };
            target && str_ok(r.author) && opt_ok(r.mood) && str_ok(r.content)
        });
        let sum =
            |f: fn(&EntityRow) -> u32| self.entities.iter().map(|e| u64::from(f(e))).sum::<u64>();
        let counts = sum(|e| e.current) + sum(|e| e.past) == self.facts.len() as u64
            && sum(|e| e.tags) == self.tags.len() as u64;
        if agents && entities && facts && relations && reflections && counts {
            Ok(())
        } else {
            Err(DecodeError(
                "a checkpoint refers to a string or an observation it does not hold".into(),
            ))
        }
    }
}
