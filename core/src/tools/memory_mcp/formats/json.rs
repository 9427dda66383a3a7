//! JSON: `JSON.stringify({entities, relations}, null, 2)`, and reading the same shape.
//!
//! Where the seed drops an item silently (a key its strict schema does not know, such as
//! the `"type"` of its own file's lines) this reader ignores keys it does not use, and
//! reports an item it cannot read.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::{Doc, Fields, Read, RelationFields};
use crate::json::{pretty, type_name};

/// The graph as the seed's json export.
pub(crate) fn write(doc: &Doc<'_>) -> String {
    pretty(doc)
}

/// Reads `{entities: [...], relations: [...]}` (`relations` may be left out).
pub fn read(data: &str) -> Result<Read, String> {
    let value: Value = serde_json::from_str(data).map_err(|e| e.to_string())?;
    let list = |key: &str| match value.get(key) {
        Some(Value::Array(items)) => Ok(items.as_slice()),
        None if key == "relations" => Ok(&[][..]),
        other => Err(format!(
            "the data must be an object with an array `{key}`, found {}",
            match other {
                None if value.is_object() => "none",
                None => type_name(Some(&value)),
                Some(v) => type_name(Some(v)),
            }
        )),
    };
    let (entities, relations) = (list("entities")?, list("relations")?);
    let mut read = Read::default();
    for (i, item) in entities.iter().enumerate() {
        let at = || format!("entities[{i}]");
        match entity_fields(item) {
            Ok(fields) => read.entity(at, fields),
            Err(why) => read.error(at, why),
        }
    }
    for (i, item) in relations.iter().enumerate() {
        let at = || format!("relations[{i}]");
        let Value::Object(obj) = item else {
            read.error(
                at,
                format!("must be an object, found {}", type_name(Some(item))),
            );
            continue;
        };
        let fields = (|| {
            Ok::<_, String>(RelationFields {
                from: text(obj, "from")?.unwrap_or_default(),
                to: text(obj, "to")?.unwrap_or_default(),
                relation_type: text(obj, "relationType")?.unwrap_or_default(),
                created: text(obj, "createdAt")?,
                updated: text(obj, "lastModified")?,
            })
        })();
        match fields {
            Ok(fields) => read.relation(at, fields),
            Err(why) => read.error(at, why),
        }
    }
    Ok(read)
}

/// The string under `key`, if any (`null` is none).
fn text<'v>(obj: &'v Map<String, Value>, key: &str) -> Result<Option<&'v str>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!(
            "`{key}` must be a string, found {}",
            type_name(Some(other))
        )),
    }
}

/// The strings of the array under `key` (none: empty).
fn texts(obj: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!(
                    "`{key}` must hold strings, found {}",
                    type_name(Some(other))
                )),
            })
            .collect(),
        Some(other) => Err(format!(
            "`{key}` must be an array, found {}",
            type_name(Some(other))
        )),
    }
}

/// An entity item's fields.
fn entity_fields(item: &Value) -> Result<Fields, String> {
    let Value::Object(obj) = item else {
        return Err(format!(
            "must be an object, found {}",
            type_name(Some(item))
        ));
    };
    let importance = match obj.get("importance") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64(),
        Some(other) => {
            return Err(format!(
                "`importance` must be a number, found {}",
                type_name(Some(other))
            ));
        }
    };
    Ok(Fields {
        name: text(obj, "name")?.unwrap_or_default().to_string(),
        entity_type: text(obj, "entityType")?.unwrap_or_default().to_string(),
        observations: texts(obj, "observations")?,
        created: text(obj, "createdAt")?.map(ToString::to_string),
        updated: text(obj, "lastModified")?.map(ToString::to_string),
        tags: texts(obj, "tags")?,
        importance,
        parent: text(obj, "parentId")?.map(ToString::to_string),
    })
}
