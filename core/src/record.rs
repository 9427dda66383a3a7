//! Log records: one per successful mutating call, encoded with postcard. This module knows
//! bytes only; the graph's own snapshot as records is `graph::snapshot`.
//!
//! A record holds the *effect* of a call (what changed), not the request, so replay applies
//! it without re-deciding anything. Records are the file format's payload, so they evolve
//! append-only:
//! - variants are never reordered or removed, and a variant's fields never change;
//! - a new kind of change (timestamps, transactions, new tools) is a new variant at the end.
//!
//! An old reader meeting a new variant reports [`DecodeError`] instead of guessing.

use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde::{Deserialize, Serialize};

use crate::model::{Entity, Observations, Relation};

/// One change to the graph, as stored in the log.
#[derive(Serialize, Deserialize, Debug, PartialEq, Eq, Clone)]
pub enum Record<'a> {
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
    /// These records, applied in order as one change: a record is stored whole or not at
    /// all, so replay applies all of them or none (a merge, an upsert of many). A batch
    /// holds no batch: the reader refuses one, so decoding never recurses deeper than one
    /// level, however a damaged or hostile payload nests (a payload of `[6, 1]` repeated
    /// overflowed the stack: `core/tests/fuzz_regressions.rs`).
    #[serde(borrow, deserialize_with = "batch")]
    Batch(Vec<Record<'a>>),
}

/// A record inside a batch: the variants of [`Record`] but `Batch`, with the same indices,
/// so a batch inside a batch is an unknown variant to the reader.
#[derive(Deserialize)]
enum Inner<'a> {
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
}

/// Reads a batch's records (see [`Record::Batch`]).
fn batch<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Record<'de>>, D::Error> {
    let inner: Vec<Inner<'de>> = Deserialize::deserialize(d)?;
    Ok(inner
        .into_iter()
        .map(|r| match r {
            Inner::CreateEntities(v) => Record::CreateEntities(v),
            Inner::CreateRelations(v) => Record::CreateRelations(v),
            Inner::AddObservations(v) => Record::AddObservations(v),
            Inner::DeleteEntities(v) => Record::DeleteEntities(v),
            Inner::DeleteObservations(v) => Record::DeleteObservations(v),
            Inner::DeleteRelations(v) => Record::DeleteRelations(v),
        })
        .collect())
}

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

impl Record<'_> {
    /// The record's payload bytes.
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).expect("records always serialize")
    }
}

impl<'a> Record<'a> {
    /// Reads a record from its payload bytes, borrowing strings from them.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        match postcard::take_from_bytes::<Record<'a>>(bytes) {
            Ok((record, [])) => Ok(record),
            Ok((_, rest)) => Err(DecodeError(alloc::format!("{} trailing bytes", rest.len()))),
            Err(e) => Err(DecodeError(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn round_trips_every_variant() {
        let t = Relation {
            from: "a",
            to: "b",
            relation_type: "knows",
        };
        let o = Observations {
            entity: "a",
            contents: vec!["x", "ü"],
        };
        let simple = [
            Record::CreateEntities(vec![Entity {
                name: "a",
                entity_type: "t",
                observations: vec!["o"],
            }]),
            Record::CreateRelations(vec![t]),
            Record::AddObservations(vec![o.clone()]),
            Record::DeleteEntities(vec!["a"]),
            Record::DeleteObservations(vec![o]),
            Record::DeleteRelations(vec![t]),
        ];
        let batch = Record::Batch(simple.to_vec());
        for r in simple.into_iter().chain([batch]) {
            assert_eq!(Record::decode(&r.encode()), Ok(r));
        }
    }

    #[test]
    fn a_batch_inside_a_batch_is_refused_when_read() {
        let nested = Record::Batch(vec![Record::Batch(vec![Record::DeleteEntities(vec!["a"])])]);
        assert_eq!(
            Record::decode(&nested.encode()),
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
        let mut bytes = Record::DeleteEntities(vec!["a"]).encode();
        bytes.push(0);
        assert_eq!(
            Record::decode(&bytes),
            Err(DecodeError("1 trailing bytes".into()))
        );
    }

    /// The byte layout is the file format: this pins it.
    #[test]
    fn encoding_is_frozen() {
        let r = Record::CreateRelations(vec![Relation {
            from: "a",
            to: "b",
            relation_type: "r",
        }]);
        assert_eq!(r.encode(), [1, 1, 1, b'a', 1, b'b', 1, b'r']);
    }
}
