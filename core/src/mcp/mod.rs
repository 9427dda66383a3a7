//! MCP over JSON-RPC 2.0: one incoming message in, the outgoing messages out.
//!
//! Behaviour follows the reference server (`tests/scenarios/no-reply.json`): messages that are not valid
//! JSON-RPC (garbage, batches, unknown shapes) get no reply; malformed parameters of known
//! methods get error -32603 carrying zod-style issues; tool failures are `isError` results.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::hash::{HashMap, HashSet};
use crate::index::Indexes;
use crate::json::{self, parse_lenient, type_name};
use crate::log::{Intent, Log};
use crate::memory::{Error, LogOp, Memory, OpenError};
use crate::model::{Millis, Provenance};
use crate::tools::limits::MAX_MESSAGE_BYTES;
use crate::tools::output::{self, GraphText};
use crate::tools::profile::Selection;
use crate::tools::validate::{Issue, Seg};
use crate::tools::{self, Answer, Catalog, Ctx, Outcome, Uses};

pub mod apps;
pub mod era;

pub use era::{Envelope, Headers, MODERN_VERSIONS};

/// The compact tool's structured result: how many records the log holds now.
#[derive(serde::Serialize)]
struct CompactJson {
    records: usize,
}

/// The one resource: the whole graph.
pub const GRAPH_URI: &str = "memory://knowledge-graph";

/// Protocol versions answered as asked; anything else gets the first.
pub const PROTOCOL_VERSIONS: [&str; 5] = [
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
    "2024-10-07",
];

/// Shown to the model by clients that surface server instructions.
pub const INSTRUCTIONS: &str = "Persistent memory as a knowledge graph that outlives this conversation. \
Entities have a unique name, a type and observations (short, atomic facts); relations are directed and typed, written in active voice (\"Alice works_at Acme\"). \
Before answering, look up what you already know: search_nodes with a distinctive word or name, or open_nodes with exact names, then follow relations. \
When you learn something durable (people, projects, preferences, decisions), store it: create_entities for new things, add_observations to extend known ones, create_relations to connect them; reuse existing names exactly instead of creating near-duplicates. \
Remove facts that became wrong with delete_observations, and use read_graph only for small memories.";

const SUBSCRIBE_CAPS: &str =
    r#"{"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true}}"#;

/// Largest integer id JavaScript clients can send exactly (Number.MAX_SAFE_INTEGER).
const MAX_SAFE_ID: f64 = 9_007_199_254_740_991.0;

/// A parsed request: its id as JSON text, method and params.
struct Request<'a> {
    id: String,
    method: &'a str,
    params: Option<&'a Map<String, Value>>,
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
fn as_request(msg: &Value) -> Option<Request<'_>> {
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
fn id_text(id: &Value) -> Option<String> {
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

/// `notifications/resources/updated` for the graph resource.
fn updated_notification() -> String {
    format!(
        r#"{{"method":"notifications/resources/updated","params":{{"uri":"{GRAPH_URI}"}},"jsonrpc":"2.0"}}"#
    )
}

/// `notifications/resources/updated` for the graph resource on the `subscriptions/listen`
/// stream of request `id`.
fn listened_notification(id: &str) -> String {
    format!(
        r#"{{"method":"notifications/resources/updated","params":{{"uri":"{GRAPH_URI}","_meta":{{"{}":{id}}}}},"jsonrpc":"2.0"}}"#,
        era::SUBSCRIPTION_KEY
    )
}

/// What a reply starts with, before its result.
const REPLY_HEAD: &str = r#"{"result":"#;

/// What a reply to request `id` ends with, after its result.
fn reply_tail(id: &str) -> String {
    format!(r#","jsonrpc":"2.0","id":{id}}}"#)
}

/// `{"result":<result>,"jsonrpc":"2.0","id":<id>}`, built in `result`'s own buffer (a
/// result can be megabytes; it is not copied into a second one).
fn reply(id: &str, result: impl Into<String>) -> String {
    let mut out = result.into();
    let tail = reply_tail(id);
    out.reserve_exact(REPLY_HEAD.len() + tail.len());
    out.insert_str(0, REPLY_HEAD);
    out.push_str(&tail);
    out
}

/// Bytes of a piece of a reply sent a piece at a time ([`Server::next_piece`]).
pub const PIECE_BYTES: usize = 256 << 10;

/// The rest of a reply still to be written: a large answer of entities and relations, then
/// the words that close the reply.
struct Unsent {
    text: GraphText,
    tail: String,
}

/// What an error reply starts with (before its id); a result reply starts with
/// [`REPLY_HEAD`].
const ERROR_HEAD: &str = r#"{"jsonrpc":"2.0","id":"#;

/// The code of an error reply, or `None` for any other message (read without parsing a
/// result, which can be megabytes).
pub fn error_code(message: &str) -> Option<i64> {
    if !message.starts_with(ERROR_HEAD) {
        return None;
    }
    let reply: Value = serde_json::from_str(message).ok()?;
    reply.pointer("/error/code")?.as_i64()
}

fn error(id: &str, code: i32, message: &str) -> String {
    format!(
        r#"{ERROR_HEAD}{id},"error":{{"code":{code},"message":{}}}}}"#,
        json::compact(message)
    )
}

#[derive(Serialize)]
struct IssueJson<'a> {
    expected: &'static str,
    code: &'static str,
    path: &'a [Seg],
    message: String,
}

/// The error for malformed params, carrying zod issues as pretty JSON (the reference sends
/// them with `code` -32603).
fn params_error(id: &str, code: i32, issues: &[Issue]) -> String {
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

/// Checks that `params.<path>` has the expected JSON type, as zod would.
struct ParamCheck<'a> {
    params: Option<&'a Map<String, Value>>,
    issues: Vec<Issue>,
}

impl<'a> ParamCheck<'a> {
    fn new(params: Option<&'a Map<String, Value>>) -> Self {
        let mut issues = Vec::new();
        if params.is_none() {
            let path = vec![Seg::Key("params".into())];
            issues.push(Issue::of_type("object", "undefined", path));
        }
        ParamCheck { params, issues }
    }

    /// Requires `params[key]` (or `params[parent][key]`) to be of the `expected` type.
    fn want(&mut self, parent: Option<&str>, key: &str, expected: &'static str, optional: bool) {
        let Some(params) = self.params else { return };
        let scope = match parent {
            Some(p) => match params.get(p) {
                Some(Value::Object(o)) => o,
                _ => return,
            },
            None => params,
        };
        let value = scope.get(key);
        let ok = match (expected, value) {
            (_, None) => optional,
            ("string", Some(Value::String(_))) => true,
            ("object" | "record", Some(Value::Object(_))) => true,
            _ => false,
        };
        if !ok {
            let mut path = vec![Seg::Key("params".into())];
            path.extend(parent.map(|p| Seg::Key(p.into())));
            path.push(Seg::Key(key.into()));
            self.issues
                .push(Issue::of_type(expected, type_name(value), path));
        }
    }

    fn str(&self, key: &str) -> &'a str {
        self.params
            .and_then(|p| p.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

/// The reply to a message whose handling failed outside the protocol (the engine trapped):
/// a JSON-RPC internal error (-32603) carrying `reason`, or `None` for a message that gets
/// no reply. Needs no memory, so a host can ask a fresh instance after the old one died.
pub fn failure_reply(message: &str, reason: &str) -> Option<String> {
    let (msg, _) = parse_lenient::<Value>(message).ok()?;
    let req = as_request(&msg)?;
    Some(error(&req.id, -32603, reason))
}

/// The session being handled while none is ([`Server::poll`]): no host numbers one so.
const NO_SESSION: u32 = u32::MAX;

/// A client session as provenance sees it.
struct Client {
    /// `clientInfo.name` and `.version` from `initialize` (empty until then).
    name: String,
    version: String,
    /// Whether its `initialize` declared MCP Apps ([`apps::declared`]).
    apps: bool,
    /// The session's id in provenance: the time of its first message and its number.
    id: String,
}

/// An MCP server for one memory: the memory, the tool catalog, and the sessions of the
/// clients that share it (one for stdio; one per connection for network transports).
pub struct Server<L: Log> {
    memory: Memory<L>,
    catalog: Catalog,
    /// The sessions (clients) subscribed to `memory://knowledge-graph`.
    subscribers: HashSet<u32>,
    /// The `subscriptions/listen` streams for `memory://knowledge-graph`: the session and
    /// the listen request's id (JSON text).
    listeners: Vec<(u32, String)>,
    /// The envelope of the modern request being handled (`None`: the handshake era).
    envelope: Option<Envelope>,
    /// The session whose message is being handled.
    session: u32,
    /// The host's time for the message being handled.
    now: Millis,
    /// Who each session's client is.
    clients: HashMap<u32, Client>,
    /// The actor the host was started for, stamped on every change.
    actor: Option<String>,
    /// Messages for sessions other than the one being handled, not yet taken by the host.
    notices: Vec<(u32, String)>,
    /// The rest of the last reply, when it is sent a piece at a time.
    unsent: Option<Unsent>,
}

impl<L: Log> Server<L> {
    /// Opens the memory in `log` ([`Memory::open`]) and serves it. Returns warnings for the
    /// user.
    pub fn open(log: L) -> Result<(Self, Vec<String>), OpenError> {
        let (memory, warnings) = Memory::open(log)?;
        let server = Server {
            memory,
            catalog: Catalog::default(),
            subscribers: HashSet::default(),
            listeners: Vec::new(),
            envelope: None,
            session: 0,
            now: 0,
            clients: HashMap::default(),
            actor: None,
            notices: Vec::new(),
            unsent: None,
        };
        Ok((server, warnings))
    }

    /// Names the actor the host was started for (`--actor`): stamped on every change from
    /// now on, beside the client and session.
    pub fn set_actor(&mut self, actor: Option<String>) {
        self.actor = actor;
    }

    /// Lists and answers the tools of `profile` adjusted by `tools` (see
    /// [`Selection::new`]); an error names an unknown profile or tool, and changes nothing.
    pub fn set_tools(&mut self, profile: &str, tools: &str) -> Result<(), String> {
        self.catalog = Catalog::new(&Selection::new(profile, tools)?);
        Ok(())
    }

    /// Sets how many days of history compaction keeps before the latest change (`0`: none).
    pub fn set_history_days(&mut self, days: u32) {
        self.memory
            .set_history(Millis::from(days) * crate::memory::DAY_MS);
    }

    /// Imports a memory file into the memory ([`Memory::import`]) at the host's time `now`,
    /// as the host's own change (client `mcp-memory`, session `import`).
    pub fn import(&mut self, bytes: &[u8], now: Millis) -> Result<String, Error> {
        let by = Provenance {
            client: "mcp-memory",
            version: env!("CARGO_PKG_VERSION"),
            session: "import",
            actor: self.actor.as_deref(),
        };
        self.memory.import(bytes, now, &by)
    }

    /// The memory served.
    pub fn memory(&self) -> &Memory<L> {
        &self.memory
    }

    /// The memory served, for what hosts do beside MCP (export, import, compact, the log's
    /// lock). Drops what is left of a reply sent in pieces.
    pub fn memory_mut(&mut self) -> &mut Memory<L> {
        // What is left of a reply sent in pieces would be written from a changed graph.
        self.unsent = None;
        &mut self.memory
    }

    /// Handles one incoming JSON-RPC message (one line of the stdio transport) in session 0,
    /// at the time of the previous message (`0`, "not known", at first: for tests and
    /// embedders without a clock), and returns the messages to send, in order: resource
    /// notifications first, then the reply.
    pub fn handle(&mut self, message: &str) -> Vec<String> {
        self.handle_in(0, self.now, message)
    }

    /// Handles one message from the client of `session` (a number the host gives each
    /// connection) at the host's time `now` (milliseconds since the Unix epoch; what a
    /// change made by it is stamped with) and returns the messages for that client. What
    /// other sessions should hear (a subscriber learning of this client's change) waits in
    /// [`Server::take_notices`].
    pub fn handle_in(&mut self, session: u32, now: Millis, message: &str) -> Vec<String> {
        let mut out = self.handle_started(session, now, message);
        if let (Some(mut rest), Some(last)) = (self.unsent.take(), out.last_mut()) {
            let graph = self.memory.graph();
            last.reserve_exact(rest.text.estimate(graph) + rest.tail.len());
            rest.text.write_all(graph, last);
            last.push_str(&rest.tail);
        }
        out
    }

    /// Like [`Server::handle_in`], but a long last message (an answer holding many entities)
    /// comes a piece at a time: returns the messages with only the first piece of the last
    /// one, and whether it continues. The host then sends what [`Server::next_piece`] returns
    /// after it, until `None`, before anything else; any other call drops the rest.
    pub fn handle_pieces(
        &mut self,
        session: u32,
        now: Millis,
        message: &str,
    ) -> (Vec<String>, bool) {
        let mut out = self.handle_started(session, now, message);
        let continued = match out.last_mut() {
            Some(last) if self.unsent.is_some() => {
                let until = last.len() + PIECE_BYTES;
                self.write_unsent(last, until)
            }
            _ => false,
        };
        (out, continued)
    }

    /// The next piece of the last message [`Server::handle_pieces`] returned, or `None` once
    /// it was all sent.
    pub fn next_piece(&mut self) -> Option<String> {
        self.unsent.as_ref()?;
        let mut piece = String::with_capacity(PIECE_BYTES + (PIECE_BYTES >> 3));
        self.write_unsent(&mut piece, PIECE_BYTES);
        Some(piece)
    }

    /// Writes the unsent rest of the last reply to `out` until it holds `until` bytes;
    /// returns whether some of it is still unsent.
    fn write_unsent(&mut self, out: &mut String, until: usize) -> bool {
        let Some(rest) = self.unsent.as_mut() else {
            return false;
        };
        if !rest.text.write(self.memory.graph(), out, until) {
            return true;
        }
        out.push_str(&rest.tail);
        self.unsent = None;
        false
    }

    /// Handles a message, leaving the rest of a long last reply in `self.unsent`.
    fn handle_started(&mut self, session: u32, now: Millis, message: &str) -> Vec<String> {
        self.unsent = None;
        self.session = session;
        self.now = now;
        self.clients.entry(session).or_insert_with(|| Client {
            name: String::new(),
            version: String::new(),
            apps: false,
            id: format!("{now}.{session}"),
        });
        let Ok((msg, _)) = parse_lenient::<Value>(message) else {
            return Vec::new();
        };
        match as_request(&msg) {
            Some(req) if message.len() > MAX_MESSAGE_BYTES => {
                vec![too_large(Some(&req.id), Some(message.len()))]
            }
            Some(req) => self.dispatch(req),
            None => {
                self.notified(&msg);
                Vec::new()
            }
        }
    }

    /// Takes note of a notification: `notifications/cancelled` ends the session's
    /// `subscriptions/listen` stream it names.
    fn notified(&mut self, msg: &Value) {
        if msg.get("method").and_then(Value::as_str) != Some("notifications/cancelled") {
            return;
        }
        let Some(id) = msg.pointer("/params/requestId").and_then(id_text) else {
            return;
        };
        let session = self.session;
        self.listeners.retain(|(s, i)| !(*s == session && *i == id));
    }

    /// Answers a request in its era: a modern one only once its envelope checks out, and
    /// with what modern results carry.
    fn dispatch(&mut self, req: Request<'_>) -> Vec<String> {
        if !era::is_modern(req.method, req.params) {
            return self.answer(req);
        }
        match era::envelope(&req.id, req.params) {
            Err(refused) => vec![refused],
            Ok(envelope) => {
                let method = req.method;
                self.envelope = Some(envelope);
                let mut out = self.answer(req);
                self.envelope = None;
                if let Some(last) = out.last_mut() {
                    era::stamp(last, era::ttl_of(method));
                }
                out
            }
        }
    }

    /// The error for malformed params: -32602 in the modern era, and in the handshake era
    /// the reference's -32603 carrying zod-style issues.
    fn invalid(&self, id: &str, issues: &[Issue]) -> String {
        let code = if self.envelope.is_some() {
            -32602
        } else {
            -32603
        };
        params_error(id, code, issues)
    }

    /// Answers a request.
    fn answer(&mut self, req: Request<'_>) -> Vec<String> {
        let id = req.id.as_str();
        let modern = self.envelope.is_some();
        let mut check = ParamCheck::new(req.params);
        let one = |s: String| vec![s];
        match req.method {
            "server/discover" => one(reply(
                id,
                format!(
                    r#"{{"supportedVersions":{},"capabilities":{SUBSCRIBE_CAPS},"instructions":{},"_meta":{{"{}":{{"name":"mcp-memory","version":"{}"}}}}}}"#,
                    era::supported_json(),
                    json::compact(INSTRUCTIONS),
                    era::SERVER_INFO_KEY,
                    env!("CARGO_PKG_VERSION"),
                ),
            )),
            // Removed in the modern era (`subscriptions/listen` replaces subscribing).
            "ping" | "resources/subscribe" | "resources/unsubscribe" if modern => {
                one(error(id, -32601, "Method not found"))
            }
            "subscriptions/listen" if modern => {
                check.want(None, "notifications", "object", false);
                if !check.issues.is_empty() {
                    return one(self.invalid(id, &check.issues));
                }
                one(self.listen(id, req.params))
            }
            "initialize" => {
                check.want(None, "protocolVersion", "string", false);
                check.want(None, "capabilities", "object", false);
                check.want(None, "clientInfo", "object", false);
                check.want(Some("clientInfo"), "name", "string", false);
                check.want(Some("clientInfo"), "version", "string", false);
                if !check.issues.is_empty() {
                    return one(self.invalid(id, &check.issues));
                }
                if let (Some(client), Some(info)) = (
                    self.clients.get_mut(&self.session),
                    req.params
                        .and_then(|p| p.get("clientInfo"))
                        .and_then(Value::as_object),
                ) {
                    let text = |k| info.get(k).and_then(Value::as_str).unwrap_or_default();
                    client.name = text("name").into();
                    client.version = text("version").into();
                    client.apps = apps::declared(req.params.and_then(|p| p.get("capabilities")));
                }
                let asked = check.str("protocolVersion");
                let version = PROTOCOL_VERSIONS
                    .into_iter()
                    .find(|v| *v == asked)
                    .unwrap_or(PROTOCOL_VERSIONS[0]);
                one(reply(
                    id,
                    format!(
                        r#"{{"protocolVersion":"{version}","capabilities":{SUBSCRIBE_CAPS},"serverInfo":{{"name":"mcp-memory","version":"{}"}},"instructions":{}}}"#,
                        env!("CARGO_PKG_VERSION"),
                        json::compact(INSTRUCTIONS)
                    ),
                ))
            }
            "ping" => one(reply(id, "{}")),
            "tools/list" => one(reply(id, self.catalog.list_result())),
            "tools/call" => {
                check.want(None, "name", "string", false);
                check.want(None, "arguments", "record", true);
                if !check.issues.is_empty() {
                    return one(self.invalid(id, &check.issues));
                }
                let empty = Value::Object(Map::new());
                let args = req
                    .params
                    .and_then(|p| p.get("arguments"))
                    .unwrap_or(&empty);
                self.call_tool(id, check.str("name"), args)
            }
            "resources/list" => {
                // The memory browser only for clients that can show it.
                let browser = if self.apps() {
                    format!(",{}", apps::listed())
                } else {
                    String::new()
                };
                one(reply(
                    id,
                    format!(
                        r#"{{"resources":[{{"uri":"{GRAPH_URI}","name":"knowledge-graph","title":"Knowledge Graph","description":"The full knowledge graph with all entities and relations","mimeType":"application/json"}}{browser}]}}"#
                    ),
                ))
            }
            "resources/templates/list" => one(reply(id, r#"{"resourceTemplates":[]}"#)),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                check.want(None, "uri", "string", false);
                if !check.issues.is_empty() {
                    return one(self.invalid(id, &check.issues));
                }
                self.resource(id, req.method, check.str("uri"))
            }
            _ => one(error(id, -32601, "Method not found")),
        }
    }

    /// Opens a `subscriptions/listen` stream: acknowledges what it honors (changes to
    /// `memory://knowledge-graph`, if asked for); the notifications that follow carry the
    /// request's id, until the client cancels the request.
    fn listen(&mut self, id: &str, params: Option<&Map<String, Value>>) -> String {
        let graph = params
            .and_then(|p| p.get("notifications"))
            .and_then(|n| n.get("resourceSubscriptions"))
            .and_then(Value::as_array)
            .is_some_and(|uris| uris.iter().any(|u| u == GRAPH_URI));
        let honored = if graph {
            let listener = (self.session, id.to_string());
            // The same id again is the same stream.
            if !self.listeners.contains(&listener) {
                self.listeners.push(listener);
            }
            format!(r#"{{"resourceSubscriptions":["{GRAPH_URI}"]}}"#)
        } else {
            "{}".to_string()
        };
        format!(
            r#"{{"method":"notifications/subscriptions/acknowledged","params":{{"notifications":{honored},"_meta":{{"{}":{id}}}}},"jsonrpc":"2.0"}}"#,
            era::SUBSCRIPTION_KEY
        )
    }

    /// Whether the client of the request being handled declared MCP Apps (a modern
    /// request in its envelope, else its session's `initialize`).
    fn apps(&self) -> bool {
        match &self.envelope {
            Some(envelope) => envelope.apps,
            None => self.clients.get(&self.session).is_some_and(|c| c.apps),
        }
    }

    fn resource(&mut self, id: &str, method: &str, uri: &str) -> Vec<String> {
        if method == "resources/read" && uri == apps::BROWSER_URI {
            return vec![reply(id, apps::read_result())];
        }
        let is_graph = uri == GRAPH_URI;
        let mut out = Vec::with_capacity(2);
        if method == "resources/read"
            && is_graph
            && let Err(reason) = self.catch_up_notifying(Intent::Read, &mut out)
        {
            out.push(error(id, -32603, &reason.to_string()));
            return out;
        }
        let answer = match method {
            "resources/subscribe" => {
                if is_graph {
                    self.subscribers.insert(self.session);
                }
                reply(id, "{}")
            }
            "resources/unsubscribe" => {
                if is_graph {
                    self.subscribers.remove(&self.session);
                }
                reply(id, "{}")
            }
            _ if !is_graph => error(
                id,
                -32602,
                &format!("MCP error -32602: Resource {uri} not found"),
            ),
            _ => match self.memory.unavailable() {
                Some(reason) => error(id, -32603, reason),
                None => {
                    self.unsent = Some(Unsent {
                        text: tools::query::read_graph_text(self.memory.graph()),
                        tail: format!("\"}}]}}{}", reply_tail(id)),
                    });
                    format!(
                        r#"{REPLY_HEAD}{{"contents":[{{"uri":"{GRAPH_URI}","mimeType":"application/json","text":""#
                    )
                }
            },
        };
        out.push(answer);
        out
    }

    fn call_tool(&mut self, id: &str, name: &str, args: &Value) -> Vec<String> {
        let mut out = Vec::with_capacity(2);
        // Uses noted by earlier calls are logged by the first call a second after the
        // oldest of them (a read then takes the writer's turn for it).
        let log_uses = self.memory.uses_due(self.now);
        let intent = if log_uses || self.catalog.mutates(name) {
            Intent::Write
        } else {
            Intent::Read
        };
        if let Err(reason) = self.catch_up_notifying(intent, &mut out) {
            out.push(reply(id, output::failure(&reason.to_string())));
            return out;
        }
        if let Some(reason) = self.memory.unavailable() {
            out.push(reply(id, output::failure(reason)));
            return out;
        }
        if log_uses {
            // Not a change the caller asked for: one the log refuses stays noted.
            let _ = self.memory.log_uses();
        }
        let uses = Uses::default();
        let client = &self.clients[&self.session];
        // A modern request names its client itself.
        let (client_name, version) = match &self.envelope {
            Some(envelope) => (&envelope.client, &envelope.client_version),
            None => (&client.name, &client.version),
        };
        let by = Provenance {
            client: client_name,
            version,
            session: &client.id,
            actor: self.actor.as_deref(),
        };
        let ctx = Ctx {
            graph: self.memory.graph(),
            indexes: self.memory.indexes(),
            by,
            now: self.memory.change_time(self.now),
            uses: &uses,
        };
        let outcome = match tools::run(&self.catalog, ctx, name, args) {
            Outcome::Migrate(path) => migrate(&mut self.memory, by, self.now, &path),
            outcome => outcome,
        };
        // A change's uses count once it is logged; a read's, now.
        let mut groups = uses.into_groups();
        if !matches!(outcome, Outcome::Change(_)) {
            self.memory
                .note_uses(core::mem::take(&mut groups), self.now);
        }
        let result = match outcome {
            Outcome::Done(result) => result,
            Outcome::Answer(Answer::Text(result)) => result,
            Outcome::Answer(Answer::Graph(text)) => {
                self.unsent = Some(Unsent {
                    text,
                    tail: reply_tail(id),
                });
                out.push(format!("{REPLY_HEAD}{}", output::GRAPH_RESULT_HEAD));
                return out;
            }
            Outcome::Change(plan) => {
                // Subscribers hear of every call that may have changed the graph (the
                // reference notifies no-ops too); a refused append changed nothing.
                let (notify, result) = match self.memory.commit(plan.change, self.now, &by) {
                    Ok(()) => {
                        self.memory.note_uses(groups, self.now);
                        (true, plan.result)
                    }
                    Err(e) => (
                        matches!(
                            e,
                            Error::Log {
                                op: LogOp::Sync,
                                ..
                            }
                        ),
                        output::failure(&e.to_string()),
                    ),
                };
                if notify {
                    self.graph_changed(&mut out);
                }
                result
            }
            Outcome::Forget(plan, names) => {
                let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                let forgotten = self.memory.forget(plan.change, self.now, &by, &refs);
                self.graph_changed(&mut out);
                match forgotten {
                    Ok(f) => tools::meta::forgotten(&names, f.records, &f.remaining),
                    Err(e) => output::failure(&e.to_string()),
                }
            }
            Outcome::History(query) => match self.memory.journal(Intent::Read) {
                Ok(journal) => tools::history::history(&journal, &query)
                    .unwrap_or_else(|e| output::failure(&e)),
                Err(e) => output::failure(&e.to_string()),
            },
            Outcome::Undo(change) => match self.memory.undo(change, self.now, &by) {
                Ok(Ok(())) => {
                    self.graph_changed(&mut out);
                    tools::history::undone(change)
                }
                Ok(Err(refused)) => output::failure(&refused.0),
                Err(e) => output::failure(&e.to_string()),
            },
            Outcome::AsOf(at) => read_as_of(&mut self.memory, &self.catalog, at, (name, args), by),
            // Planned above: a file read through the log becomes a change or a failure.
            Outcome::Migrate(_) => output::failure("migrate: the file was not read"),
            Outcome::Compact => match self.memory.compact() {
                Ok(records) => {
                    let result = CompactJson { records };
                    output::success(&json::pretty(&result), &result)
                }
                Err(e) => output::failure(&e.to_string()),
            },
        };
        out.push(reply(id, result));
        out
    }

    /// Catches up with other writers for a request that goes on to do `intent`;
    /// subscribers hear if that changed the graph.
    fn catch_up_notifying(&mut self, intent: Intent, out: &mut Vec<String>) -> Result<(), Error> {
        if self.memory.catch_up(intent)? {
            self.graph_changed(out);
        }
        Ok(())
    }

    /// Tells every subscriber the graph may have changed: this session's client in `out`,
    /// the others through the notices.
    fn graph_changed(&mut self, out: &mut Vec<String>) {
        let legacy = self
            .subscribers
            .iter()
            .map(|&session| (session, updated_notification()));
        let modern = self
            .listeners
            .iter()
            .map(|(session, id)| (*session, listened_notification(id)));
        for (session, notice) in legacy.chain(modern) {
            if session == self.session {
                out.push(notice);
            } else {
                self.notices.push((session, notice));
            }
        }
    }

    /// Catches up with what other writers logged, as the host heard they did (a database
    /// announced a change): subscribers hear of it through [`Server::take_notices`]. Does
    /// nothing while no one subscribes (the next request catches up anyway); a log that
    /// cannot be read now is read by the next request, which reports it.
    pub fn poll(&mut self) {
        if self.subscribers.is_empty() && self.listeners.is_empty() {
            return;
        }
        self.unsent = None;
        // No session's message is being handled: every subscriber hears through the notices.
        self.session = NO_SESSION;
        let mut out = Vec::new();
        let _ = self.catch_up_notifying(Intent::Read, &mut out);
        debug_assert!(out.is_empty());
    }

    /// Takes the messages waiting for sessions other than the ones they were produced in,
    /// oldest first, as (session, message).
    pub fn take_notices(&mut self) -> Vec<(u32, String)> {
        core::mem::take(&mut self.notices)
    }

    /// Forgets a session whose client went away (its subscription and waiting notices).
    pub fn end_session(&mut self, session: u32) {
        self.subscribers.remove(&session);
        self.listeners.retain(|(s, _)| *s != session);
        self.clients.remove(&session);
        self.notices.retain(|(s, _)| *s != session);
    }
}

/// The `migrate` tool's file at `path`, read through the log and planned as a change to
/// the graph ([`tools::py_migrate::plan`]), or a failure naming `source_path`.
fn migrate<L: Log>(memory: &mut Memory<L>, by: Provenance<'_>, now: Millis, path: &str) -> Outcome {
    let bytes = match memory.log_mut().read_named(path) {
        Ok(bytes) => bytes,
        Err(e) => return Outcome::Done(output::failure(&tools::py_migrate::refused(path, &e.0))),
    };
    // An import uses nothing.
    let uses = Uses::default();
    let ctx = Ctx {
        graph: memory.graph(),
        indexes: memory.indexes(),
        by,
        now: memory.change_time(now),
        uses: &uses,
    };
    match tools::py_migrate::plan(ctx, path, &bytes) {
        Ok(plan) => Outcome::Change(plan),
        Err(e) => Outcome::Done(output::failure(&e)),
    }
}

/// Answers a read asked `asOf` a time on the graph as it was then.
fn read_as_of<L: Log>(
    memory: &mut Memory<L>,
    catalog: &Catalog,
    at: Millis,
    (name, args): (&str, &Value),
    by: Provenance<'_>,
) -> String {
    match memory
        .journal(Intent::Read)
        .and_then(|journal| journal.as_of(at))
    {
        Ok(Ok(graph)) => {
            let indexes = Indexes::default();
            // What the past's graph returns is not a use of the present's.
            let uses = Uses::default();
            let ctx = Ctx {
                graph: &graph,
                indexes: &indexes,
                by,
                now: at,
                uses: &uses,
            };
            tools::run_past(catalog, ctx, name, args)
        }
        Ok(Err(start)) => tools::history::before_start(at, start),
        Err(e) => output::failure(&e.to_string()),
    }
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
