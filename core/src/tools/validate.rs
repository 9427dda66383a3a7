//! Checks of JSON values against the catalog's JSON Schemas: types reported the way the
//! reference server's validator (zod 4) reports them, so clients see the same messages, and
//! the constraints the schemas declare (`enum`, `minimum`, `maximum`, `maxItems`, and
//! `maxBytes`, which the request limits add; see `limits.rs`), so each is written once, in
//! the schema, and no tool checks its arguments again.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;
use serde::Serialize;
use serde_json::Value;

use crate::json::type_name;

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Seg {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// What is wrong with a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// A value of the wrong type, or a missing required one: the expected type in zod's
    /// words (`string`, `array`, `object`, `record`, `int`, ...) and the type found
    /// (`undefined` when missing).
    Type {
        /// The expected type.
        expected: &'static str,
        /// The type found.
        received: &'static str,
    },
    /// A value not among the schema's `enum`.
    NotOneOf(Vec<Value>),
    /// A number below the schema's `minimum`.
    Below(f64),
    /// A number above the schema's `maximum`.
    Above(f64),
    /// A string of `len` UTF-8 bytes, more than the `maxBytes` its schema allows.
    TooLong {
        /// The string's length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// An argument the tool does not take (refused where a seed refuses it).
    Unexpected,
    /// An array of `len` items, more than the `maxItems` its schema allows.
    TooMany {
        /// The array's length.
        len: usize,
        /// The limit.
        max: usize,
    },
}

/// A problem and where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    /// Where in the value.
    pub path: Vec<Seg>,
    /// What is wrong there.
    pub problem: Problem,
}

impl Issue {
    /// A type issue.
    pub fn of_type(expected: &'static str, received: &'static str, path: Vec<Seg>) -> Self {
        Issue {
            path,
            problem: Problem::Type { expected, received },
        }
    }

    /// Whether this is a type issue (zod's kind), as opposed to a constraint.
    pub fn is_type(&self) -> bool {
        matches!(self.problem, Problem::Type { .. })
    }

    /// The expected type of a type issue (`""` for a constraint).
    pub fn expected(&self) -> &'static str {
        match self.problem {
            Problem::Type { expected, .. } => expected,
            _ => "",
        }
    }

    /// The message without its path: zod's `Invalid input: expected X, received Y` for a
    /// type issue; for a constraint, what the path must be (`must be at most 16`).
    pub fn message(&self) -> String {
        match &self.problem {
            Problem::Type { expected, received } => {
                format!("Invalid input: expected {expected}, received {received}")
            }
            Problem::NotOneOf(allowed) => {
                let mut s = String::from("must be ");
                for (i, v) in allowed.iter().enumerate() {
                    if i > 0 {
                        s.push_str(if i + 1 == allowed.len() { " or " } else { ", " });
                    }
                    s.push_str(&v.to_string());
                }
                s
            }
            Problem::Below(min) => format!("must be at least {min}"),
            Problem::Above(max) => format!("must be at most {max}"),
            Problem::TooLong { len, max } => {
                format!("of {len} bytes exceeds the limit of {max} bytes")
            }
            Problem::TooMany { len, max } => {
                format!("{len} items exceed the limit of {max} per request")
            }
            Problem::Unexpected => String::from("is not an argument of this tool"),
        }
    }

    /// The path as text: `entities[0].name` (empty at the top).
    pub fn path_text(&self) -> String {
        let mut s = String::new();
        for (i, seg) in self.path.iter().enumerate() {
            match seg {
                Seg::Key(k) if i == 0 => s.push_str(k),
                Seg::Key(k) => {
                    let _ = write!(s, ".{k}");
                }
                Seg::Index(n) => {
                    let _ = write!(s, "[{n}]");
                }
            }
        }
        s
    }

    /// The message with its path, as in tool-argument errors: zod's `... at entities[0].name`
    /// for a type issue, `maxDepth must be at most 16` for a constraint.
    pub fn message_at(&self) -> String {
        let path = self.path_text();
        if !self.is_type() {
            return format!("{path} {}", self.message());
        }
        let mut s = self.message();
        if !path.is_empty() {
            s.push_str(" at ");
            s.push_str(&path);
        }
        s
    }
}

/// Checks `value` against a JSON Schema made of `type`, `properties` (or
/// `additionalProperties` alone: a record), `required`, `items`, `enum`, `minimum`,
/// `maximum`, `maxItems` and `maxBytes`, appending issues in the order
/// zod finds them: properties in declaration order (required ones first), then items. A
/// value of the wrong type gets no constraint checks.
pub fn check(schema: &Value, value: Option<&Value>, path: &mut Vec<Seg>, out: &mut Vec<Issue>) {
    let record = schema.get("properties").is_none()
        && schema
            .get("additionalProperties")
            .is_some_and(Value::is_object);
    let expected = match schema.get("type").and_then(Value::as_str) {
        // zod's record: an object whose every value follows one schema.
        Some("object") if record => "record",
        Some("object") => "object",
        Some("array") => "array",
        Some("string") => "string",
        Some("boolean") => "boolean",
        Some("number") => "number",
        Some("integer") => "int",
        _ => return,
    };
    let ok = match (expected, value) {
        ("object" | "record", Some(Value::Object(_))) => true,
        ("array", Some(Value::Array(_))) => true,
        ("string", Some(Value::String(_))) => true,
        ("boolean", Some(Value::Bool(_))) => true,
        ("number", Some(Value::Number(_))) => true,
        ("int", Some(Value::Number(n))) => n.is_i64() || n.is_u64(),
        _ => false,
    };
    let Some(value) = value.filter(|_| ok) else {
        out.push(Issue::of_type(expected, type_name(value), path.clone()));
        return;
    };
    if let Some(problem) = constraint(schema, value) {
        out.push(Issue {
            path: path.clone(),
            problem,
        });
    }
    match value {
        Value::Object(map) => {
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            // zod checks properties in declaration order; the catalog lists required ones first.
            let optional = props
                .keys()
                .map(String::as_str)
                .filter(|k| !required.contains(k));
            for key in required.iter().copied().chain(optional) {
                let Some(prop_schema) = props.get(key) else {
                    continue;
                };
                let v = map.get(key);
                if v.is_none() && !required.contains(&key) {
                    continue;
                }
                path.push(Seg::Key(key.to_string()));
                check(prop_schema, v, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    path.push(Seg::Index(i));
                    check(item_schema, Some(item), path, out);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// The first constraint of `schema` that `value` (of the schema's type) breaks.
fn constraint(schema: &Value, value: &Value) -> Option<Problem> {
    let limit = |key| schema.get(key).and_then(Value::as_u64).map(saturating);
    match value {
        Value::String(s) => {
            if let Some(max) = limit("maxBytes").filter(|&max| s.len() > max) {
                return Some(Problem::TooLong { len: s.len(), max });
            }
        }
        Value::Array(items) => {
            if let Some(max) = limit("maxItems").filter(|&max| items.len() > max) {
                return Some(Problem::TooMany {
                    len: items.len(),
                    max,
                });
            }
        }
        Value::Number(n) => {
            let bound = |key| schema.get(key).and_then(Value::as_f64);
            let below = |min: f64| match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => (i as f64) < min,
                (None, Some(_)) => false,
                _ => n.as_f64().is_some_and(|x| x < min),
            };
            let above = |max: f64| match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => (u as f64) > max,
                (None, Some(_)) => false,
                _ => n.as_f64().is_some_and(|x| x > max),
            };
            if let Some(min) = bound("minimum").filter(|&m| below(m)) {
                return Some(Problem::Below(min));
            }
            if let Some(max) = bound("maximum").filter(|&m| above(m)) {
                return Some(Problem::Above(max));
            }
        }
        _ => {}
    }
    let allowed = schema.get("enum").and_then(Value::as_array)?;
    (!allowed.contains(value)).then(|| Problem::NotOneOf(allowed.clone()))
}

/// A `u64` as `usize`, saturating (wasm32's `usize` is 32 bits).
fn saturating(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn issues(schema: Value, value: Value) -> Vec<String> {
        let mut out = Vec::new();
        check(&schema, Some(&value), &mut Vec::new(), &mut out);
        out.iter().map(Issue::message_at).collect()
    }

    #[test]
    fn reports_every_issue_in_declaration_order_with_paths() {
        let schema = json!({"type":"object","properties":{
            "entities":{"type":"array","items":{"type":"object","properties":{
                "name":{"type":"string"},"entityType":{"type":"string"},
                "observations":{"type":"array","items":{"type":"string"}}},
                "required":["name","entityType","observations"]}}},"required":["entities"]});
        let got = issues(
            schema,
            json!({"entities":[{"name":2.5,"entityType":true,"observations":[{},[],"x",null]},7]}),
        );
        assert_eq!(
            got,
            [
                "Invalid input: expected string, received number at entities[0].name",
                "Invalid input: expected string, received boolean at entities[0].entityType",
                "Invalid input: expected string, received object at entities[0].observations[0]",
                "Invalid input: expected string, received array at entities[0].observations[1]",
                "Invalid input: expected string, received null at entities[0].observations[3]",
                "Invalid input: expected object, received number at entities[1]",
            ]
        );
    }

    #[test]
    fn missing_required_is_undefined_and_optional_is_skipped() {
        let schema = json!({"type":"object","properties":{
            "query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]});
        assert_eq!(
            issues(schema.clone(), json!({})),
            ["Invalid input: expected string, received undefined at query"]
        );
        assert!(issues(schema.clone(), json!({"query":"x"})).is_empty());
        assert_eq!(
            issues(schema, json!({"query":"x","limit":1.5})),
            ["Invalid input: expected int, received number at limit"]
        );
    }

    #[test]
    fn constraints_name_the_path_and_the_bound() {
        let schema = json!({"type":"object","properties":{
            "depth":{"type":"integer","minimum":1,"maximum":16},
            "direction":{"type":"string","enum":["out","in","both"]},
            "names":{"type":"array","maxItems":2,"items":{"type":"string","maxBytes":3}}}});
        let ok = json!({"depth": 16, "direction": "in", "names": ["abc", "é"]});
        assert!(issues(schema.clone(), ok).is_empty());
        assert_eq!(
            issues(schema.clone(), json!({"depth": 0, "direction": "up"})),
            [
                "depth must be at least 1",
                r#"direction must be "out", "in" or "both""#
            ]
        );
        assert_eq!(
            issues(schema.clone(), json!({"depth": 17})),
            ["depth must be at most 16"]
        );
        assert_eq!(
            issues(schema.clone(), json!({"depth": -9_000_000_000_i64})),
            ["depth must be at least 1"]
        );
        assert_eq!(
            issues(schema.clone(), json!({"depth": u64::MAX})),
            ["depth must be at most 16"]
        );
        assert_eq!(
            issues(schema.clone(), json!({"names": ["abcd", "ok", "x"]})),
            [
                "names 3 items exceed the limit of 2 per request",
                "names[0] of 4 bytes exceeds the limit of 3 bytes"
            ]
        );
        // A wrongly typed value gets its type issue only.
        assert_eq!(
            issues(schema, json!({"depth": "deep"})),
            ["Invalid input: expected int, received string at depth"]
        );
    }
}
