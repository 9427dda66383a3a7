//! The params of the methods that take some, as JSON Schemas checked by the tools'
//! validator ([`crate::tools::validate`]), so a malformed request gets zod's issues, as the
//! reference reports them, with their path from `params`.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use serde_json::{Map, Value, json};

use crate::tools::validate::{self, Issue, Seg};

/// The schema of `method`'s params, or `None` for a method that takes any (or none).
fn schema(method: &str) -> Option<Value> {
    let string = json!({"type": "string"});
    let object = json!({"type": "object"});
    Some(match method {
        "subscriptions/listen" => json!({
            "type": "object",
            "properties": {"notifications": object},
            "required": ["notifications"],
        }),
        "initialize" => json!({
            "type": "object",
            "properties": {
                "protocolVersion": string,
                "capabilities": object,
                "clientInfo": {
                    "type": "object",
                    "properties": {"name": string, "version": string},
                    "required": ["name", "version"],
                },
            },
            "required": ["protocolVersion", "capabilities", "clientInfo"],
        }),
        "tools/call" => json!({
            "type": "object",
            "properties": {
                "name": string,
                "arguments": {"type": "object", "additionalProperties": {}},
            },
            "required": ["name"],
        }),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => json!({
            "type": "object",
            "properties": {"uri": string},
            "required": ["uri"],
        }),
        _ => return None,
    })
}

/// What is wrong with `method`'s params (none for a method without a schema).
pub(super) fn issues(method: &str, params: Option<&Map<String, Value>>) -> Vec<Issue> {
    let Some(schema) = schema(method) else {
        return Vec::new();
    };
    let params = params.map(|p| Value::Object(p.clone()));
    let mut issues = Vec::new();
    let mut path = vec![Seg::Key("params".into())];
    validate::check(&schema, params.as_ref(), &mut path, &mut issues);
    issues
}

/// The string param `key` (empty when it is not one: its issue was reported).
pub(super) fn text<'a>(params: Option<&'a Map<String, Value>>, key: &str) -> &'a str {
    params
        .and_then(|p| p.get(key))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(method: &str, params: Value) -> Vec<String> {
        issues(method, params.as_object())
            .iter()
            .map(Issue::message_at)
            .collect()
    }

    #[test]
    fn each_issue_names_its_path_from_params_in_zods_words() {
        assert_eq!(
            messages("initialize", json!({"clientInfo": {"name": 1}})),
            [
                "Invalid input: expected string, received undefined at params.protocolVersion",
                "Invalid input: expected object, received undefined at params.capabilities",
                "Invalid input: expected string, received number at params.clientInfo.name",
                "Invalid input: expected string, received undefined at params.clientInfo.version",
            ]
        );
        assert_eq!(
            messages("tools/call", json!({"name": "x", "arguments": []})),
            ["Invalid input: expected record, received array at params.arguments"]
        );
        assert!(messages("tools/call", json!({"name": "x"})).is_empty());
        assert!(messages("ping", json!({})).is_empty());
        let missing: Vec<String> = issues("resources/read", None)
            .iter()
            .map(Issue::message_at)
            .collect();
        assert_eq!(
            missing,
            ["Invalid input: expected object, received undefined at params"]
        );
    }
}
