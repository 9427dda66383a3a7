//! Request limits: what one tool call may carry. A call over a limit fails as a whole with a
//! message naming the limit and where it was exceeded, and changes nothing. The reference has
//! no limits (docs/compatibility.md); these keep one request from making the memory
//! unusable (a 100 KB "name", a million-item batch).
//!
//! The limits are written here once and enforced by the schema validator: [`constrain`]
//! adds them to each tool's input schema as `maxItems` (every list) and `maxBytes` (names
//! and observations) when the catalog is loaded. The schemas `tools/list` shows stay the
//! reference's, byte for byte.

use alloc::format;
use alloc::string::String;
use serde_json::Value;

use super::validate::{Issue, Problem, Seg};

/// Largest MCP message accepted, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// Largest name (of an entity, a type or a relation type), in bytes of UTF-8.
pub const MAX_NAME_BYTES: usize = 1024;
/// Largest observation, in bytes of UTF-8.
pub const MAX_OBSERVATION_BYTES: usize = 64 * 1024;
/// Most items in one list of a request (entities, relations, names, ...).
pub const MAX_ITEMS: usize = 1000;

/// Keys whose string values (or items) are names.
const NAME_KEYS: [&str; 10] = [
    "name",
    "entityName",
    "entityType",
    "from",
    "to",
    "relationType",
    "source",
    "target",
    "names",
    "entityNames",
];
/// Keys whose string items are observations.
const OBSERVATION_KEYS: [&str; 2] = ["observations", "contents"];

/// What the strings under `key` are, and the most bytes one may have.
fn string_limit(key: &str) -> Option<(&'static str, usize)> {
    if NAME_KEYS.contains(&key) {
        Some(("a name", MAX_NAME_BYTES))
    } else if OBSERVATION_KEYS.contains(&key) {
        Some(("an observation", MAX_OBSERVATION_BYTES))
    } else {
        None
    }
}

/// Adds the request limits to an input schema whose value sits under `key`: `maxItems` to
/// every array, `maxBytes` to every string that is a name or an observation (by its
/// property's key, or its array's).
pub fn constrain(schema: &mut Value, key: Option<&str>) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    match obj.get("type").and_then(Value::as_str) {
        Some("array") => {
            obj.insert("maxItems".into(), MAX_ITEMS.into());
            if let Some(items) = obj.get_mut("items") {
                constrain(items, key);
            }
        }
        Some("string") => {
            if let Some((_, max)) = key.and_then(string_limit) {
                obj.insert("maxBytes".into(), max.into());
            }
        }
        Some("object") => {
            if let Some(props) = obj.get_mut("properties").and_then(Value::as_object_mut) {
                for (k, v) in props.iter_mut() {
                    constrain(v, Some(k));
                }
            }
        }
        _ => {}
    }
}

/// A limit issue as the refusal names it: `entities[1].name: a name of 1025 bytes exceeds
/// the limit of 1024 bytes`, `entities: 1001 items exceed the limit of 1000 per request`.
pub fn describe(issue: &Issue) -> String {
    let key = issue.path.iter().rev().find_map(|s| match s {
        Seg::Key(k) => Some(k.as_str()),
        Seg::Index(_) => None,
    });
    let noun = match issue.problem {
        Problem::TooLong { .. } => key.and_then(string_limit).map_or("a string", |(n, _)| n),
        _ => "",
    };
    let space = if noun.is_empty() { "" } else { " " };
    format!("{}: {noun}{space}{}", issue.path_text(), issue.message())
}
