//! Typed arguments of the reference's nine tools (and of `upsert_entities`), borrowed from
//! the request's JSON after it passed its schema. Unknown properties are ignored, as the
//! reference's validator strips them. Entities, relations and observations to add are the
//! [`crate::model`] shapes; the other tools read their few arguments next to their code.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;
use serde_json::Value;

use crate::model::{Entity, Millis, Observations, Relation};
use crate::time;

/// One item of delete_observations. Not [`Observations`]: its JSON names the texts
/// `observations`, not `contents`.
#[derive(Deserialize, Debug, Clone)]
pub struct DeleteObsArg<'a> {
    /// The entity to delete from.
    #[serde(rename = "entityName")]
    pub entity_name: &'a str,
    /// Observations to delete.
    #[serde(borrow)]
    pub observations: Vec<&'a str>,
}

/// create_entities' and upsert_entities' arguments.
#[derive(Deserialize)]
pub struct Entities<'a> {
    /// The entities to create.
    #[serde(borrow)]
    pub entities: Vec<Entity<'a>>,
}

/// create_relations' and delete_relations' arguments.
#[derive(Deserialize)]
pub struct Relations<'a> {
    /// The relations to create or delete.
    #[serde(borrow)]
    pub relations: Vec<Relation<'a>>,
}

/// add_observations' arguments.
#[derive(Deserialize)]
pub struct AddObservations<'a> {
    /// Per entity, the observations to add.
    #[serde(borrow)]
    pub observations: Vec<Observations<'a>>,
}

/// delete_entities' arguments.
#[derive(Deserialize)]
pub struct DeleteEntities<'a> {
    /// Names of the entities to delete.
    #[serde(rename = "entityNames", borrow)]
    pub entity_names: Vec<&'a str>,
}

/// delete_observations' arguments.
#[derive(Deserialize)]
pub struct DeleteObservations<'a> {
    /// Per entity, the observations to delete.
    #[serde(borrow)]
    pub deletions: Vec<DeleteObsArg<'a>>,
}

/// search_nodes' arguments.
#[derive(Deserialize)]
pub struct SearchNodes<'a> {
    /// The text to look for.
    pub query: &'a str,
}

/// open_nodes' arguments.
#[derive(Deserialize)]
pub struct OpenNodes<'a> {
    /// Names of the entities to open.
    #[serde(borrow)]
    pub names: Vec<&'a str>,
}

/// A count argument as `usize`, saturating (wasm32's `usize` is 32 bits).
pub fn count(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// A time argument (ISO 8601), or an error naming the field and the rule.
pub fn time_arg(a: &Value, field: &str) -> Result<Option<Millis>, String> {
    match a.get(field).and_then(Value::as_str) {
        None => Ok(None),
        Some(text) => time::parse(text)
            .map(Some)
            .map_err(|why| format!("{field}: {why}")),
    }
}

/// An argument that may be given as `null` (`Some(Value::Null)`), unlike one left out
/// (`None`, with `#[serde(default)]`).
pub fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}
