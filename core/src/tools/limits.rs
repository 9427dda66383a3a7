//! Request limits: what one tool call may carry. A call over a limit fails as a whole with a
//! message naming the limit and where it was exceeded, and changes nothing. The reference has
//! no limits (docs/compatibility.md); these keep one request from making the memory
//! unusable (a 100 KB "name", a million-item batch).

use alloc::format;
use alloc::string::String;
use serde_json::Value;

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

/// Checks a call's arguments against the limits; `Err` names the first one exceeded and
/// where (`entities[3].name: a name of 3000 bytes exceeds the limit of 1024 bytes`).
pub fn check(arguments: &Value) -> Result<(), String> {
    walk(arguments, None).map_err(|(path, message)| {
        let path = path.strip_prefix('.').unwrap_or(&path);
        format!("{path}: {message}")
    })
}

/// The first limit exceeded in `value` (found under `key`): the path to it, built on the way
/// back up so that passing checks allocate nothing, and the message.
fn walk(value: &Value, key: Option<&str>) -> Result<(), (String, String)> {
    match value {
        Value::String(s) => {
            let (kind, limit) = match key {
                Some(k) if NAME_KEYS.contains(&k) => ("a name", MAX_NAME_BYTES),
                Some(k) if OBSERVATION_KEYS.contains(&k) => {
                    ("an observation", MAX_OBSERVATION_BYTES)
                }
                _ => return Ok(()),
            };
            if s.len() > limit {
                let message = format!(
                    "{kind} of {} bytes exceeds the limit of {limit} bytes",
                    s.len()
                );
                return Err((String::new(), message));
            }
            Ok(())
        }
        Value::Array(items) => {
            if items.len() > MAX_ITEMS {
                let message = format!(
                    "{} items exceed the limit of {MAX_ITEMS} per request",
                    items.len()
                );
                return Err((String::new(), message));
            }
            items.iter().enumerate().try_for_each(|(i, v)| {
                walk(v, key).map_err(|(path, m)| (format!("[{i}]{path}"), m))
            })
        }
        Value::Object(fields) => fields.iter().try_for_each(|(k, v)| {
            walk(v, Some(k)).map_err(|(path, m)| (format!(".{k}{path}"), m))
        }),
        _ => Ok(()),
    }
}
