//! JSON-RPC 2.0 as MCP uses it: what a message is ([`classify`]), request ids, replies and
//! errors (those of malformed params carrying zod's issues, as the reference sends them).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;
use serde_json::{Map, Value};

use super::era::{self, Headers};
use crate::json::{self, parse_lenient};
use crate::tools::limits::MAX_MESSAGE_BYTES;
use crate::tools::validate::{Issue, Seg};

/// Largest integer id JavaScript clients can send exactly (Number.MAX_SAFE_INTEGER).
pub(super) const MAX_SAFE_ID: f64 = 9_007_199_254_740_991.0;

/// A parsed request: its id as JSON text, method and params.
pub(super) struct Request<'a> {
    pub(super) id: String,
    pub(super) method: &'a str,
    pub(super) params: Option<&'a Map<String, Value>>,
}

/// What a transport received, as the core reads it. Every transport asks this one question
/// (or hands the message to [`Server::handle_in`], which asks it), so a message means the
/// same on stdio, TCP and HTTP.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A request: it gets exactly one reply, to this id (as JSON text).
    Request {
        /// The request's id, as JSON text (`"abc"`, `7`).
        id: String,
        /// Whether it is `initialize` (an HTTP session starts with it).
        initialize: bool,
        /// Whether it is a modern (2026-07-28) request, answered on its own
        /// ([`era::is_modern`]).
        modern: bool,
    },
    /// A notification, or a response to the server: handled, never answered.
    Notification,
    /// A JSON array: a JSON-RPC batch, which MCP does not allow (2025-06-18 on).
    Batch,
    /// Text that is not JSON.
    NotJson,
    /// JSON that is not a JSON-RPC 2.0 message as MCP defines one (unknown keys, an id that
    /// is neither a string nor a safe integer, params that are not an object).
    Invalid,
}

impl Kind {
    /// The error a transport that must answer every message (HTTP, with status 400) sends
    /// for one it refuses, with id `null`; `None` for a message the server accepts. Stream
    /// transports send nothing for such a line, as the reference server does.
    pub fn refusal(&self) -> Option<String> {
        let (code, message) = match self {
            Kind::Request { .. } | Kind::Notification => return None,
            Kind::Batch => (
                -32600,
                "Invalid Request: JSON-RPC batches are not supported; send one message at a time",
            ),
            Kind::NotJson => (-32700, "Parse error: the message is not JSON"),
            Kind::Invalid => (
                -32600,
                "Invalid Request: the message is not a JSON-RPC 2.0 request or notification",
            ),
        };
        Some(error("null", code, message))
    }
}

/// Reads a message: what it is, and whether it gets a reply (see [`Kind`]). Lone UTF-16
/// surrogate escapes are repaired as everywhere else (`json::parse_lenient`).
pub fn classify(message: &str) -> Kind {
    let Ok((msg, _)) = parse_lenient::<Value>(message) else {
        return Kind::NotJson;
    };
    if msg.is_array() {
        return Kind::Batch;
    }
    if let Some(req) = as_request(&msg) {
        return Kind::Request {
            initialize: req.method == "initialize",
            modern: era::is_modern(req.method, req.params),
            id: req.id,
        };
    }
    let obj = msg.as_object();
    let field = |k: &str| obj.and_then(|o| o.get(k));
    let jsonrpc = field("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let notification = field("method").is_some_and(Value::is_string) && field("id").is_none();
    let response = field("id").is_some() && (field("result").is_some() || field("error").is_some());
    if jsonrpc && (notification || response) {
        Kind::Notification
    } else {
        Kind::Invalid
    }
}

/// The reply to a message over [`MAX_MESSAGE_BYTES`]: error -32600 naming the limit (and
/// the message's size, where the transport counted it), to the request's id where the
/// transport read the whole message, else to `null` (a transport that stops reading at the
/// limit cannot know the id).
pub fn too_large(id: Option<&str>, bytes: Option<usize>) -> String {
    let message = match bytes {
        Some(n) => format!("Message of {n} bytes exceeds the limit of {MAX_MESSAGE_BYTES} bytes"),
        None => format!("Message exceeds the limit of {MAX_MESSAGE_BYTES} bytes"),
    };
    error(id.unwrap_or("null"), -32600, &message)
}

/// The request in a message, or `None` for anything that gets no reply (notifications,
/// responses, and messages that are not JSON-RPC requests).
pub(super) fn as_request(msg: &Value) -> Option<Request<'_>> {
    let obj = msg.as_object()?;
    if obj.get("jsonrpc")?.as_str()? != "2.0" {
        return None;
    }
    let method = obj.get("method")?.as_str()?;
    if obj
        .keys()
        .any(|k| !matches!(k.as_str(), "jsonrpc" | "id" | "method" | "params"))
    {
        return None;
    }
    let params = match obj.get("params") {
        None => None,
        Some(Value::Object(p)) => {
            if p.get("_meta").is_some_and(|m| !m.is_object()) {
                return None;
            }
            Some(p)
        }
        Some(_) => return None,
    };
    let id = id_text(obj.get("id")?)?;
    Some(Request { id, method, params })
}

/// A request id as JSON text (`"abc"`, `7`), or `None` for one MCP does not allow (not a
/// string or a safe integer).
pub(super) fn id_text(id: &Value) -> Option<String> {
    match id {
        Value::String(s) => Some(json::compact(s)),
        Value::Number(n) => {
            let f = n.as_f64()?;
            let whole = f as i64;
            if whole as f64 != f || !(-MAX_SAFE_ID..=MAX_SAFE_ID).contains(&f) {
                return None;
            }
            Some(format!("{whole}"))
        }
        _ => None,
    }
}

/// For an HTTP host: error -32020 for a modern request whose routing headers disagree with
/// its body ([`era::header_mismatch`]), or `None` (also for a message that is not a modern
/// request).
pub fn header_refusal(message: &str, headers: Headers<'_>) -> Option<String> {
    let (msg, _) = parse_lenient::<Value>(message).ok()?;
    let req = as_request(&msg)?;
    if !era::is_modern(req.method, req.params) {
        return None;
    }
    era::header_mismatch(&req.id, req.method, req.params, headers)
}

/// What a reply starts with, before its result.
pub(super) const REPLY_HEAD: &str = r#"{"result":"#;

/// What a reply to request `id` ends with, after its result.
pub(super) fn reply_tail(id: &str) -> String {
    format!(r#","jsonrpc":"2.0","id":{id}}}"#)
}

/// `{"result":<result>,"jsonrpc":"2.0","id":<id>}`, built in `result`'s own buffer (a
/// result can be megabytes; it is not copied into a second one).
pub(super) fn reply(id: &str, result: impl Into<String>) -> String {
    let mut out = result.into();
    let tail = reply_tail(id);
    out.reserve_exact(REPLY_HEAD.len() + tail.len());
    out.insert_str(0, REPLY_HEAD);
    out.push_str(&tail);
    out
}

/// What an error reply starts with (before its id); a result reply starts with
/// [`REPLY_HEAD`].
pub(super) const ERROR_HEAD: &str = r#"{"jsonrpc":"2.0","id":"#;

/// The code of an error reply, or `None` for any other message (read without parsing a
/// result, which can be megabytes).
pub fn error_code(message: &str) -> Option<i64> {
    if !message.starts_with(ERROR_HEAD) {
        return None;
    }
    let reply: Value = serde_json::from_str(message).ok()?;
    reply.pointer("/error/code")?.as_i64()
}

pub(super) fn error(id: &str, code: i32, message: &str) -> String {
    format!(
        r#"{ERROR_HEAD}{id},"error":{{"code":{code},"message":{}}}}}"#,
        json::compact(message)
    )
}

#[derive(Serialize)]
pub(super) struct IssueJson<'a> {
    expected: &'static str,
    code: &'static str,
    path: &'a [Seg],
    message: String,
}

/// The error for malformed params, carrying zod issues as pretty JSON (the reference sends
/// them with `code` -32603).
pub(super) fn params_error(id: &str, code: i32, issues: &[Issue]) -> String {
    let list: Vec<IssueJson<'_>> = issues
        .iter()
        .map(|i| IssueJson {
            expected: i.expected(),
            code: "invalid_type",
            path: &i.path,
            message: i.message(),
        })
        .collect();
    error(id, code, &json::pretty(&list))
}

/// The reply to a message whose handling failed outside the protocol (the engine trapped):
/// a JSON-RPC internal error (-32603) carrying `reason`, or `None` for a message that gets
/// no reply. Needs no memory, so a host can ask a fresh instance after the old one died.
pub fn failure_reply(message: &str, reason: &str) -> Option<String> {
    let (msg, _) = parse_lenient::<Value>(message).ok()?;
    let req = as_request(&msg)?;
    Some(error(&req.id, -32603, reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_reply_answers_requests_only() {
        assert_eq!(
            failure_reply(
                r#"{"jsonrpc":"2.0","id":"x","method":"tools/call"}"#,
                "boom"
            )
            .as_deref(),
            Some(r#"{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"boom"}}"#)
        );
        assert_eq!(
            failure_reply(
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                "boom"
            ),
            None
        );
        assert_eq!(failure_reply("garbage", "boom"), None);
    }

    #[test]
    fn classify_tells_what_gets_a_reply_and_what_a_transport_refuses() {
        let request = |id: &str, initialize| Kind::Request {
            id: id.into(),
            initialize,
            modern: false,
        };
        let cases = [
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                request("1", false),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}"#,
                request("\"a\"", true),
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                Kind::Notification,
            ),
            (
                r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
                Kind::Notification,
            ),
            (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, Kind::Batch),
            ("[]", Kind::Batch),
            ("{not json", Kind::NotJson),
            ("", Kind::NotJson),
            ("42", Kind::Invalid),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":1}"#,
                Kind::Invalid,
            ),
            (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, Kind::Invalid),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                Kind::Invalid,
            ),
        ];
        for (message, kind) in cases {
            assert_eq!(classify(message), kind, "{message}");
        }
        // A lone surrogate escape is repaired, as in every other reading.
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","id":"\ud800","method":"ping"}"#),
            request("\"\u{fffd}\"", false)
        );
        assert_eq!(request("1", false).refusal(), None);
        assert_eq!(Kind::Notification.refusal(), None);
        assert_eq!(
            Kind::Batch.refusal().as_deref(),
            Some(
                r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not supported; send one message at a time"}}"#
            )
        );
        assert!(Kind::NotJson.refusal().unwrap().contains("-32700"));
        assert!(Kind::Invalid.refusal().unwrap().contains("-32600"));
    }

    #[test]
    fn error_code_reads_errors_only() {
        assert_eq!(
            error_code(&error("7", -32601, "Method not found")),
            Some(-32601)
        );
        assert_eq!(error_code(&reply("7", r#"{"code":-32601}"#)), None);
        assert_eq!(error_code("not json"), None);
    }

    #[test]
    fn too_large_names_the_limit_and_the_size_when_known() {
        assert_eq!(
            too_large(Some("7"), Some(16_777_300)),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Message of 16777300 bytes exceeds the limit of 16777216 bytes"}}"#
        );
        assert_eq!(
            too_large(None, None),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Message exceeds the limit of 16777216 bytes"}}"#
        );
    }

    #[test]
    fn ids_follow_the_sdk_schema() {
        let id = |s: &str| as_request(&serde_json::from_str(s).unwrap()).map(|r| r.id);
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":"abc-é","method":"ping"}"#).as_deref(),
            Some("\"abc-é\"")
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":3.0,"method":"ping"}"#).as_deref(),
            Some("3")
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":-1,"method":"ping"}"#).as_deref(),
            Some("-1")
        );
        for ignored in [
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","extra":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":5}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        ] {
            assert_eq!(id(ignored), None, "{ignored}");
        }
    }
}
