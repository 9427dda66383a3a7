//! The knowledge graph's data as it crosses every boundary: one shape per concept, used as
//! tool argument (serde_json), log record payload (postcard) and tool output (serde_json).
//!
//! Postcard writes a struct's fields in order and ignores their names, so the JSON names
//! here (`entityType`, `relationType`, `entityName`) cost nothing in the file format; the
//! field order and types are the format (`record::tests::encoding_is_frozen` and the v1
//! fixtures pin it). The graph keeps its own interned form ([`crate::graph::Entity`]).

use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

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
