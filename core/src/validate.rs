//! Type checks of JSON values against the catalog's JSON Schemas, reported the way the
//! reference server's validator (zod 4) reports them, so clients see the same messages.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;
use serde::Serialize;
use serde_json::Value;

/// One step of a path into a JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Seg {
    /// An object key.
    Key(String),
    /// An array index.
    Index(usize),
}

/// A value of the wrong type, or a missing required one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// The expected type, in zod's words (`string`, `array`, `object`, `record`, ...).
    pub expected: &'static str,
    /// The type found (`undefined` when missing).
    pub received: &'static str,
    /// Where in the value.
    pub path: Vec<Seg>,
}

impl Issue {
    /// `Invalid input: expected X, received Y`.
    pub fn message(&self) -> String {
        format!(
            "Invalid input: expected {}, received {}",
            self.expected, self.received
        )
    }

    /// The message with its path, as in tool-argument errors: `... at entities[0].name`.
    pub fn message_at(&self) -> String {
        let mut s = self.message();
        if !self.path.is_empty() {
            s.push_str(" at ");
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
        }
        s
    }
}

/// The type name zod reports for a value (`None` is a missing value).
pub fn type_name(value: Option<&Value>) -> &'static str {
    match value {
        None => "undefined",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "array",
        Some(Value::Object(_)) => "object",
    }
}

/// Checks `value` against a JSON Schema made of `type`, `properties`, `required` and
/// `items`, appending issues in the order zod finds them.
pub fn check(schema: &Value, value: Option<&Value>, path: &mut Vec<Seg>, out: &mut Vec<Issue>) {
    let expected = match schema.get("type").and_then(Value::as_str) {
        Some("object") => "object",
        Some("array") => "array",
        Some("string") => "string",
        Some("boolean") => "boolean",
        Some("number") => "number",
        Some("integer") => "int",
        _ => return,
    };
    let ok = match (expected, value) {
        ("object", Some(Value::Object(_))) => true,
        ("array", Some(Value::Array(_))) => true,
        ("string", Some(Value::String(_))) => true,
        ("boolean", Some(Value::Bool(_))) => true,
        ("number", Some(Value::Number(_))) => true,
        ("int", Some(Value::Number(n))) => n.is_i64() || n.is_u64(),
        _ => false,
    };
    if !ok {
        out.push(Issue {
            expected,
            received: type_name(value),
            path: path.clone(),
        });
        return;
    }
    match value {
        Some(Value::Object(map)) => {
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
        Some(Value::Array(items)) => {
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
}
