//! What the TypeScript seed's ("Memory MCP") tools share: finding an entity by name, with
//! its error; its shapes of entities and relations; and answers as it prints them (the
//! text `JSON.stringify(x, null, 2)`; structuredContent the same object, or a list under
//! one key, since structuredContent is always an object).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;
use serde::ser::SerializeMap;

use super::{Plan, output};
use crate::graph::{EntityId, Graph};
use crate::json;
use crate::memory::Change;
use crate::model::EntityPatch;
use crate::record::Op;

pub(crate) use crate::jsonl::{MemoryMcpEntity as EntityJson, MemoryMcpRelation as RelationJson};

/// The entity called `name` (the oldest of that name), or the seed's error.
pub fn named(g: &Graph, name: &str) -> Result<EntityId, String> {
    g.first_named(name)
        .ok_or_else(|| format!("Entity \"{name}\" not found"))
}

/// The answer `result`, an object.
pub fn answer<T: Serialize>(result: &T) -> String {
    output::success(&json::pretty(result), result)
}

/// The answer `items`, a list: the text is the list, structuredContent `{key: items}`.
pub fn answer_list<T: Serialize>(key: &str, items: &[T]) -> String {
    output::success(&json::pretty(items), &Keyed(key, items))
}

/// A plan changing entities' metadata, answered with `result`.
pub fn planned(patches: Vec<EntityPatch<'_>>, result: String) -> Plan {
    Plan {
        change: Change::one(patches, Op::PatchEntities),
        result,
    }
}

/// An object of one entry.
struct Keyed<'a, T>(&'a str, T);

impl<T: Serialize> Serialize for Keyed<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &self.1)?;
        map.end()
    }
}
