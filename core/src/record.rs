//! Log records: one per successful mutating call, encoded with postcard. This module knows
//! bytes only; the graph's own snapshot as records is `graph::snapshot`.
//!
//! A record holds the *effect* of a call (what changed), not the request, so replay applies
//! it without re-deciding anything: a [`Record`] is a list of [`Op`]s applied in order as
//! one change, with the [`Stamp`] of when and by whom it was made. Records are the file
//! format's payload, so they evolve append-only:
//! - variants are never reordered or removed, and a variant's fields never change;
//! - a new kind of change is a new variant at the end.
//!
//! On the wire a record is one of ([`Wire`]): a single unstamped op (variants 0–5, the
//! first format), a `Batch` of ops (6), or a stamped `Change` (7, what every change has
//! been written as since times were kept). An [`Op`]'s variants 0–5 are the first format's
//! records, byte for byte, so a single unstamped op and a batch encode as they always did.
//!
//! An old reader meeting a new variant reports [`DecodeError`] instead of guessing.

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Serialize};

mod checkpoint;

#[cfg(test)]
pub(crate) use checkpoint::arbitrary;
pub use checkpoint::{
    AgentRow, CHECKPOINT, Checkpoint, EntityRow, FactRow, OptStr, Part, ReflectionRow, RelationRow,
    Str, TargetRow, Visit, is_checkpoint, read_checkpoint,
};

use crate::model::{
    Archived, Entity, EntityPatch, EntityState, Millis, NewFacts, NewReflection, NewRelation,
    Observations, Provenance, Reflection, Relation, RelationState, Restore, SavedSearch, TagAlias,
    Usage,
};

/// One operation on the graph. The first six are the reference's changes; the rest carry
/// the richer model (times and who come from the record's [`Stamp`]).
#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub enum Op<'a> {
    /// Append these entities, in order.
    #[serde(borrow)]
    CreateEntities(Vec<Entity<'a>>),
    /// Append these relations, in order.
    #[serde(borrow)]
    CreateRelations(Vec<Relation<'a>>),
    /// Append observations to the oldest entity with each name.
    #[serde(borrow)]
    AddObservations(Vec<Observations<'a>>),
    /// Remove every entity with each name, and every relation starting or ending at it.
    #[serde(borrow)]
    DeleteEntities(Vec<&'a str>),
    /// Remove every occurrence of these observations from the oldest entity with each name.
    #[serde(borrow)]
    DeleteObservations(Vec<Observations<'a>>),
    /// Remove every relation equal to one of these triples.
    #[serde(borrow)]
    DeleteRelations(Vec<Relation<'a>>),
    /// Variant 6 was the first format's batch; it never occurs inside a record, so a batch
    /// inside a batch is refused when read (decoding never recurses).
    Reserved(Never),
    /// Append these to the table of who made changes ([`Stamp::by`]): a snapshot's first op.
    #[serde(borrow)]
    Agents(Vec<Provenance<'a>>),
    /// Append these entities as they are given (a snapshot, a conversion).
    #[serde(borrow)]
    PutEntities(Vec<EntityState<'a>>),
    /// Append these relations as they are given (ended ones to the history).
    #[serde(borrow)]
    PutRelations(Vec<RelationState<'a>>),
    /// Put these reflections as they are given: one whose id the memory holds replaces that
    /// one in its place (a merge moving it to another entity), others are appended.
    #[serde(borrow)]
    PutReflections(Vec<Reflection<'a>>),
    /// Change the metadata of the oldest entity with each name.
    #[serde(borrow)]
    PatchEntities(Vec<EntityPatch<'a>>),
    /// Append observations with kinds, each superseding a current one if it says so.
    #[serde(borrow)]
    AddFacts(Vec<NewFacts<'a>>),
    /// Append relations with their context.
    #[serde(borrow)]
    CreateRelationsWith(Vec<NewRelation<'a>>),
    /// End every relation equal to one of these triples: it leaves the graph for its
    /// history, with the time it ended.
    #[serde(borrow)]
    EndRelations(Vec<Relation<'a>>),
    /// Append reflections, numbered on from the memory's last.
    #[serde(borrow)]
    Reflect(Vec<NewReflection<'a>>),
    /// Forget entities: as `DeleteEntities`, and also their ended relations, the
    /// reflections about them (or about their relations) and other entities' parent links
    /// to them, so no trace of them stays in the graph.
    #[serde(borrow)]
    Forget(Vec<&'a str>),
    /// Put part of the graph back as it was (an undo).
    #[serde(borrow)]
    Restore(Restore<'a>),
    /// Add these tag aliases, each replacing the one of the same alias in its place.
    #[serde(borrow)]
    PutTagAliases(Vec<TagAlias<'a>>),
    /// Remove the tag aliases of these aliases.
    #[serde(borrow)]
    RemoveTagAliases(Vec<&'a str>),
    /// Add these saved searches, each replacing the one of the same name in its place.
    #[serde(borrow)]
    PutSavedSearches(Vec<SavedSearch<'a>>),
    /// Remove the saved searches of these names.
    #[serde(borrow)]
    RemoveSavedSearches(Vec<&'a str>),
    /// Add these to the archive, each replacing the one of the same name in its place
    /// (the graph is not touched: a change archiving entities also removes them).
    #[serde(borrow)]
    PutArchived(Vec<Archived<'a>>),
    /// Remove the archived entities of these names from the archive.
    #[serde(borrow)]
    RemoveArchived(Vec<&'a str>),
    /// Add these uses of entities to the counts (logged unstamped: not a change anyone
    /// made, so history and undo pass it by).
    #[serde(borrow)]
    Used(Usage<'a>),
}

/// The names of [`Op`]'s variants, by index (snake case, as reports print them).
pub const OP_NAMES: [&str; 25] = [
    "create_entities",
    "create_relations",
    "add_observations",
    "delete_entities",
    "delete_observations",
    "delete_relations",
    "reserved",
    "agents",
    "put_entities",
    "put_relations",
    "put_reflections",
    "patch_entities",
    "add_facts",
    "create_relations_with",
    "end_relations",
    "reflect",
    "forget",
    "restore",
    "put_tag_aliases",
    "remove_tag_aliases",
    "put_saved_searches",
    "remove_saved_searches",
    "put_archived",
    "remove_archived",
    "used",
];

impl Op<'_> {
    /// The variant's index (its number in the encoding; its name in [`OP_NAMES`]).
    pub fn index(&self) -> usize {
        match self {
            Op::CreateEntities(_) => 0,
            Op::CreateRelations(_) => 1,
            Op::AddObservations(_) => 2,
            Op::DeleteEntities(_) => 3,
            Op::DeleteObservations(_) => 4,
            Op::DeleteRelations(_) => 5,
            Op::Reserved(never) => match *never {},
            Op::Agents(_) => 7,
            Op::PutEntities(_) => 8,
            Op::PutRelations(_) => 9,
            Op::PutReflections(_) => 10,
            Op::PatchEntities(_) => 11,
            Op::AddFacts(_) => 12,
            Op::CreateRelationsWith(_) => 13,
            Op::EndRelations(_) => 14,
            Op::Reflect(_) => 15,
            Op::Forget(_) => 16,
            Op::Restore(_) => 17,
            Op::PutTagAliases(_) => 18,
            Op::RemoveTagAliases(_) => 19,
            Op::PutSavedSearches(_) => 20,
            Op::RemoveSavedSearches(_) => 21,
            Op::PutArchived(_) => 22,
            Op::RemoveArchived(_) => 23,
            Op::Used(_) => 24,
        }
    }

    /// Whether this op was a record of the first format (variants 0–5), which a single
    /// unstamped op is still written as.
    fn is_first_format(&self) -> bool {
        self.index() < 6
    }
}

/// A type with no values: [`Op::Reserved`] can never be decoded or built.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub enum Never {}

/// Who made a change: an entry of the memory's table of agents, or a new one (which is
/// appended to the table, so each is written once per log).
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub enum Agent<'a> {
    /// The table's entry with this index.
    Known(u32),
    /// A new entry, appended to the table.
    #[serde(borrow)]
    New(Provenance<'a>),
}

/// When and by whom a change was made. The time is the host's, never read at replay.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone, Copy)]
pub struct Stamp<'a> {
    /// When.
    pub at: Millis,
    /// By whom.
    #[serde(borrow)]
    pub by: Agent<'a>,
}

/// One change: ops applied in order, whole or not at all, and when and by whom.
#[derive(Debug, PartialEq, Clone, Default)]
pub struct Record<'a> {
    /// When and by whom (`None` in records written before times were kept, and in
    /// snapshots, whose ops carry their own times).
    pub stamp: Option<Stamp<'a>>,
    /// What changed.
    pub ops: Vec<Op<'a>>,
}

impl<'a> From<Op<'a>> for Record<'a> {
    fn from(op: Op<'a>) -> Self {
        Record {
            stamp: None,
            ops: vec![op],
        }
    }
}

/// A record's bytes (see the module's docs).
#[derive(Deserialize)]
enum Wire<'a> {
    #[serde(borrow)]
    CreateEntities(Vec<Entity<'a>>),
    #[serde(borrow)]
    CreateRelations(Vec<Relation<'a>>),
    #[serde(borrow)]
    AddObservations(Vec<Observations<'a>>),
    #[serde(borrow)]
    DeleteEntities(Vec<&'a str>),
    #[serde(borrow)]
    DeleteObservations(Vec<Observations<'a>>),
    #[serde(borrow)]
    DeleteRelations(Vec<Relation<'a>>),
    #[serde(borrow)]
    Batch(Vec<Op<'a>>),
    #[serde(borrow)]
    Change(Stamped<'a>),
}

/// [`Wire::Change`]'s fields.
#[derive(Deserialize)]
struct Stamped<'a> {
    #[serde(borrow)]
    stamp: Stamp<'a>,
    #[serde(borrow)]
    ops: Vec<Op<'a>>,
}

/// [`Wire`]'s variant numbers.
const BATCH: u8 = 6;
const CHANGE: u8 = 7;

/// A record payload that is not a record this version knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "undecodable record ({}); was it written by a newer mcp-memory?",
            self.0
        )
    }
}

fn encoded(value: &impl Serialize) -> Vec<u8> {
    postcard::to_allocvec(value).expect("records always serialize")
}

/// The value these bytes encode, all of them.
fn decode_all<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, DecodeError> {
    match postcard::take_from_bytes::<T>(bytes) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(DecodeError(alloc::format!("{} trailing bytes", rest.len()))),
        Err(e) => Err(DecodeError(e.to_string())),
    }
}

impl Record<'_> {
    /// The record's payload bytes: a stamped change, or (unstamped) a single op as the
    /// first format wrote it, or a batch.
    pub fn encode(&self) -> Vec<u8> {
        match (&self.stamp, self.ops.as_slice()) {
            (Some(stamp), ops) => encoded(&(CHANGE, stamp, ops)),
            (None, [op]) if op.is_first_format() => encoded(op),
            (None, ops) => encoded(&(BATCH, ops)),
        }
    }
}

/// The payload of an unstamped record's `bytes` (as [`Record::encode`] writes it) with
/// `stamp` added: the bytes of the same ops as a stamped change, without encoding them again.
pub fn stamped(bytes: &[u8], stamp: &Stamp<'_>) -> Vec<u8> {
    let mut out = encoded(&(CHANGE, stamp));
    match bytes.split_first() {
        // A batch: its list of ops is the change's.
        Some((&BATCH, ops)) => out.extend_from_slice(ops),
        // A single op: a list of one.
        _ => {
            out.push(1);
            out.extend_from_slice(bytes);
        }
    }
    out
}

/// A log entry: a change, or a [`Checkpoint`] (whose body is read only by whoever loads it).
#[derive(Debug, PartialEq, Clone)]
pub enum Entry<'a> {
    /// A change.
    Change(Record<'a>),
    /// A checkpoint: the graph restated.
    Checkpoint,
}

impl<'a> Entry<'a> {
    /// Reads a log entry from its payload bytes, borrowing strings from them.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        if is_checkpoint(bytes) {
            Ok(Entry::Checkpoint)
        } else {
            Record::decode(bytes).map(Entry::Change)
        }
    }
}

impl<'a> Record<'a> {
    /// The stamp of a record's payload bytes, read without its ops (`None`: a record
    /// without one, from before changes carried times). A checkpoint is not a record.
    pub fn stamp_of(bytes: &'a [u8]) -> Result<Option<Stamp<'a>>, DecodeError> {
        match bytes.split_first() {
            _ if is_checkpoint(bytes) => Err(DecodeError("a checkpoint, not a change".into())),
            Some((&CHANGE, rest)) => postcard::take_from_bytes::<Stamp<'a>>(rest)
                .map(|(stamp, _)| Some(stamp))
                .map_err(|e| DecodeError(e.to_string())),
            Some(_) => Ok(None),
            None => Err(DecodeError("an empty record".into())),
        }
    }

    /// Reads a record from its payload bytes, borrowing strings from them. A checkpoint is
    /// not a record (see [`Entry`]).
    pub fn decode(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        if is_checkpoint(bytes) {
            return Err(DecodeError("a checkpoint, not a change".into()));
        }
        let wire = decode_all::<Wire<'a>>(bytes)?;
        let single = |op| Record::from(op);
        Ok(match wire {
            Wire::CreateEntities(v) => single(Op::CreateEntities(v)),
            Wire::CreateRelations(v) => single(Op::CreateRelations(v)),
            Wire::AddObservations(v) => single(Op::AddObservations(v)),
            Wire::DeleteEntities(v) => single(Op::DeleteEntities(v)),
            Wire::DeleteObservations(v) => single(Op::DeleteObservations(v)),
            Wire::DeleteRelations(v) => single(Op::DeleteRelations(v)),
            Wire::Batch(ops) => Record { stamp: None, ops },
            Wire::Change(Stamped { stamp, ops }) => Record {
                stamp: Some(stamp),
                ops,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Fact, NewFact, Target};

    fn t() -> Relation<'static> {
        Relation {
            from: "a",
            to: "b",
            relation_type: "knows",
        }
    }

    /// One op of every variant but the reserved one.
    fn every_op() -> Vec<Op<'static>> {
        let o = Observations {
            entity: "a",
            contents: vec!["x", "ü"],
        };
        let entity = EntityState {
            name: "a",
            entity_type: "t",
            created: 1,
            updated: 2,
            tags: vec!["x"],
            importance: Some(7.5),
            parent: Some("p"),
            status: Some("archived"),
            next_fact: 3,
            facts: vec![Fact {
                text: "o",
                id: 2,
                kind: Some("decision"),
                created: 2,
                supersedes: 1,
                superseded: 0,
            }],
        };
        vec![
            Op::CreateEntities(vec![Entity {
                name: "a",
                entity_type: "t",
                observations: vec!["o"],
            }]),
            Op::CreateRelations(vec![t()]),
            Op::AddObservations(vec![o.clone()]),
            Op::DeleteEntities(vec!["a"]),
            Op::DeleteObservations(vec![o]),
            Op::DeleteRelations(vec![t()]),
            Op::Agents(vec![Provenance {
                client: "c",
                version: "1",
                session: "s",
                actor: Some("me"),
            }]),
            Op::PutEntities(vec![entity]),
            Op::PutRelations(vec![RelationState {
                relation: t(),
                created: 5,
                context: Some("at work"),
                ended: 9,
            }]),
            Op::PutReflections(vec![Reflection {
                id: 1,
                target: Target::Relation(t()),
                author: "c",
                mood: None,
                content: "r",
                created: 3,
            }]),
            Op::PatchEntities(vec![EntityPatch {
                name: "a",
                tags: Some(vec![]),
                importance: Some(None),
                parent: None,
                status: Some("done"),
            }]),
            Op::AddFacts(vec![NewFacts {
                entity: "a",
                facts: vec![NewFact {
                    text: "n",
                    kind: None,
                    supersedes: 2,
                }],
            }]),
            Op::CreateRelationsWith(vec![NewRelation {
                relation: t(),
                context: None,
            }]),
            Op::EndRelations(vec![t()]),
            Op::Reflect(vec![NewReflection {
                target: Target::Global,
                author: "c",
                mood: Some("calm"),
                content: "r",
            }]),
            Op::Forget(vec!["a"]),
            Op::Restore(Restore {
                entities: vec!["a"],
                relations: vec![t()],
                put_entities: vec![],
                put_relations: vec![RelationState {
                    relation: t(),
                    created: 5,
                    context: None,
                    ended: 0,
                }],
            }),
        ]
    }

    #[test]
    fn round_trips_every_op_alone_batched_and_stamped() {
        let stamp = Stamp {
            at: 1_700_000_000_000,
            by: Agent::Known(3),
        };
        for op in every_op() {
            let alone = Record::from(op.clone());
            assert_eq!(Record::decode(&alone.encode()), Ok(alone));
            let stamped = Record {
                stamp: Some(stamp),
                ops: vec![op],
            };
            assert_eq!(Record::decode(&stamped.encode()), Ok(stamped));
        }
        let batch = Record {
            stamp: None,
            ops: every_op(),
        };
        assert_eq!(Record::decode(&batch.encode()), Ok(batch));
    }

    #[test]
    fn stamping_bytes_is_encoding_the_stamped_record() {
        let stamp = Stamp {
            at: 1_700_000_000_000,
            by: Agent::New(Provenance::default()),
        };
        let ops = every_op();
        for record in [
            Record::from(ops[0].clone()),
            Record::from(ops[7].clone()),
            Record {
                stamp: None,
                ops: ops.clone(),
            },
        ] {
            let stamped_record = Record {
                stamp: Some(stamp),
                ops: record.ops.clone(),
            };
            assert_eq!(stamped(&record.encode(), &stamp), stamped_record.encode());
        }
    }

    #[test]
    fn op_index_is_the_variant_number() {
        for op in every_op() {
            assert_eq!(
                encoded(&op)[0] as usize,
                op.index(),
                "{}",
                OP_NAMES[op.index()]
            );
        }
    }

    #[test]
    fn a_batch_inside_a_batch_is_refused_when_read() {
        // [Batch, 1 op, Batch, 1 op, DeleteEntities ["a"]]
        let nested = [6, 1, 6, 1, 3, 1, 1, b'a'];
        assert_eq!(
            Record::decode(&nested),
            Err(DecodeError("Serde Deserialization Error".into()))
        );
    }

    #[test]
    fn unknown_variant_is_a_decode_error_not_a_guess() {
        let err = Record::decode(&[200, 1, 0]).unwrap_err();
        assert!(err.to_string().contains("newer mcp-memory"), "{err}");
    }

    #[test]
    fn trailing_bytes_are_rejected() {
        let mut bytes = Record::from(Op::DeleteEntities(vec!["a"])).encode();
        bytes.push(0);
        assert_eq!(
            Record::decode(&bytes),
            Err(DecodeError("1 trailing bytes".into()))
        );
    }

    /// The byte layout is the file format: this pins it.
    #[test]
    fn encoding_is_frozen() {
        let r = Op::CreateRelations(vec![Relation {
            from: "a",
            to: "b",
            relation_type: "r",
        }]);
        assert_eq!(
            Record::from(r.clone()).encode(),
            [1, 1, 1, b'a', 1, b'b', 1, b'r']
        );
        let batch = Record {
            stamp: None,
            ops: vec![Op::DeleteEntities(vec!["a"]), Op::DeleteEntities(vec![])],
        };
        assert_eq!(batch.encode(), [6, 2, 3, 1, 1, b'a', 3, 0]);
        // A stamped change: 7, the time (varint), the agent (New: client, version,
        // session, no actor), then the ops.
        let change = Record {
            stamp: Some(Stamp {
                at: 300,
                by: Agent::New(Provenance {
                    client: "c",
                    version: "1",
                    session: "s",
                    actor: None,
                }),
            }),
            ops: vec![Op::EndRelations(vec![Relation {
                from: "a",
                to: "b",
                relation_type: "r",
            }])],
        };
        assert_eq!(
            change.encode(),
            [
                7, 0xac, 2, 1, 1, b'c', 1, b'1', 1, b's', 0, 1, 14, 1, 1, b'a', 1, b'b', 1, b'r'
            ]
        );
        // A new op alone, unstamped, is a batch of one (variants 7+ are not records).
        let alone = Record::from(Op::EndRelations(vec![]));
        assert_eq!(alone.encode(), [6, 1, 14, 0]);
    }
}
