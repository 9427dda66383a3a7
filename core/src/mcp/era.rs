//! The two protocol eras. A request carrying the 2026-07-28 envelope
//! (`params._meta["io.modelcontextprotocol/protocolVersion"]`) is *modern*: checked and
//! answered on its own, whatever came before it on the connection. Everything else (and
//! `initialize` always) is the handshake era, answered exactly as before.

use alloc::format;
use alloc::string::{String, ToString};
use serde_json::{Map, Value};

use super::PROTOCOL_VERSIONS;
use super::jsonrpc::{REPLY_HEAD, error};
use crate::json;

/// The stateless protocol revisions served.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

/// `_meta` key: the modern request's protocol version (required).
pub const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities (required).
pub const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's name and version (should be sent).
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of a notification on a `subscriptions/listen` stream: the listen request's id.
pub const SUBSCRIPTION_KEY: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key of `server/discover`'s result: the server's name and version.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// An HTTP header disagrees with the body it came with.
pub const HEADER_MISMATCH: i32 = -32020;
/// The request's protocol version is not one served.
pub const UNSUPPORTED_VERSION: i32 = -32022;

/// How long a client may cache a list (tools, resources, templates) or the discovery
/// result: the catalog is fixed for the life of the process.
pub const LIST_TTL_MS: u64 = 60_000;

/// A modern request's envelope, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// The protocol version it speaks (one of [`MODERN_VERSIONS`]).
    pub version: String,
    /// `clientInfo.name` (empty where not sent).
    pub client: String,
    /// `clientInfo.version` (empty where not sent).
    pub client_version: String,
    /// Whether its capabilities declare MCP Apps ([`super::apps::declared`]).
    pub apps: bool,
}

/// Whether a request is modern: it carries the envelope's version key, or is
/// `server/discover` (which only the modern era has). `initialize` never is.
pub fn is_modern(method: &str, params: Option<&Map<String, Value>>) -> bool {
    method != "initialize"
        && (method == "server/discover"
            || meta(params).is_some_and(|m| m.contains_key(VERSION_KEY)))
}

fn meta(params: Option<&Map<String, Value>>) -> Option<&Map<String, Value>> {
    params?.get("_meta")?.as_object()
}

/// Checks a modern request's envelope: the required keys (-32602 naming the missing ones),
/// then the version (-32022 with the versions served). Returns the error reply to `id`.
pub fn envelope(id: &str, params: Option<&Map<String, Value>>) -> Result<Envelope, String> {
    let Some(meta) = meta(params) else {
        return Err(error(
            id,
            -32602,
            &format!(
                "params._meta must be an object carrying the required {VERSION_KEY} and {CAPABILITIES_KEY} keys"
            ),
        ));
    };
    let missing: alloc::vec::Vec<&str> = [VERSION_KEY, CAPABILITIES_KEY]
        .into_iter()
        .filter(|k| !meta.contains_key(*k))
        .collect();
    if !missing.is_empty() {
        return Err(error(
            id,
            -32602,
            &format!(
                "params._meta is missing the required key(s): {}",
                missing.join(", ")
            ),
        ));
    }
    if !meta[CAPABILITIES_KEY].is_object() {
        return Err(error(
            id,
            -32602,
            &format!("params._meta.{CAPABILITIES_KEY} must be an object"),
        ));
    }
    let Some(version) = meta[VERSION_KEY].as_str() else {
        return Err(error(
            id,
            -32602,
            &format!("params._meta.{VERSION_KEY} must be a string"),
        ));
    };
    if !MODERN_VERSIONS.contains(&version) {
        return Err(unsupported(id, version));
    }
    let info = meta.get(CLIENT_INFO_KEY).and_then(Value::as_object);
    let text = |k: &str| {
        info.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    Ok(Envelope {
        version: version.into(),
        client: text("name"),
        client_version: text("version"),
        apps: super::apps::declared(meta.get(CAPABILITIES_KEY)),
    })
}

/// Every version served, modern first: what `server/discover` and -32022 name.
pub fn supported_json() -> String {
    let all: alloc::vec::Vec<&str> = MODERN_VERSIONS
        .into_iter()
        .chain(PROTOCOL_VERSIONS)
        .collect();
    json::compact(&all)
}

/// Error -32022 for a request at `requested`, naming the versions served.
pub fn unsupported(id: &str, requested: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{UNSUPPORTED_VERSION},"message":"Unsupported protocol version","data":{{"supported":{},"requested":{}}}}}}}"#,
        supported_json(),
        json::compact(requested)
    )
}

/// What an HTTP request's routing headers say (the host decodes `Mcp-Name`'s base64 form).
#[derive(Debug, Default, Clone, Copy)]
pub struct Headers<'a> {
    /// `MCP-Protocol-Version`.
    pub version: Option<&'a str>,
    /// `Mcp-Method`.
    pub method: Option<&'a str>,
    /// `Mcp-Name`, decoded.
    pub name: Option<&'a str>,
}

/// The methods whose `Mcp-Name` header names a parameter, and which.
fn name_param(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    }
}

/// Checks a modern HTTP request's headers against its body: `MCP-Protocol-Version` equal to
/// the envelope's version, `Mcp-Method` to the method, `Mcp-Name` to the named parameter.
/// Returns error -32020 naming the header that disagrees, or `None`. An envelope missing a
/// required key is not checked: [`envelope`] names what it lacks.
pub fn header_mismatch(
    id: &str,
    method: &str,
    params: Option<&Map<String, Value>>,
    headers: Headers<'_>,
) -> Option<String> {
    let meta = meta(params)?;
    if !meta.contains_key(CAPABILITIES_KEY) {
        return None;
    }
    let version = meta.get(VERSION_KEY)?;
    let wrong = if headers.version.is_none() || headers.version != version.as_str() {
        "MCP-Protocol-Version header does not match params._meta's protocol version".into()
    } else if headers.method != Some(method) {
        "Mcp-Method header does not match the request's method".into()
    } else if let Some(key) = name_param(method)
        && let Some(value) = params.and_then(|p| p.get(key)).and_then(Value::as_str)
        && headers.name != Some(value)
    {
        format!("Mcp-Name header does not match the request's {key}")
    } else {
        return None;
    };
    Some(error(id, HEADER_MISMATCH, &wrong))
}

/// Adds what a modern result carries to `reply` (a reply whose result is a JSON object):
/// `resultType`, and for a cacheable result `ttlMs` and `cacheScope`.
pub fn stamp(reply: &mut String, ttl_ms: Option<u64>) {
    let Some(at) = reply
        .starts_with(REPLY_HEAD)
        .then_some(REPLY_HEAD.len() + 1)
    else {
        return;
    };
    let mut fields = String::from(r#""resultType":"complete""#);
    if let Some(ttl) = ttl_ms {
        fields.push_str(&format!(r#","ttlMs":{ttl},"cacheScope":"private""#));
    }
    if !reply[at..].starts_with('}') {
        fields.push(',');
    }
    reply.insert_str(at, &fields);
}

/// How long a modern client may cache the result of `method`, or `None` for a result that
/// is not cacheable.
pub fn ttl_of(method: &str) -> Option<u64> {
    match method {
        "server/discover" | "tools/list" | "resources/list" | "resources/templates/list" => {
            Some(LIST_TTL_MS)
        }
        // The graph changes with every write.
        "resources/read" => Some(0),
        _ => None,
    }
}
