//! MCP Streamable HTTP on `/mcp` (and named memories on `/mcp/<name>`, each with its own
//! token), in both protocol eras.
//!
//! Handshake era (2025-11-25 and before): POST carries one JSON-RPC message (the answer is
//! JSON, or an SSE stream when notifications precede the reply), GET opens the session's
//! stream of notifications, DELETE ends the session. Checked in this order: the Origin (403
//! unless allowed), the Host of a loopback server (403 unless a loopback name: DNS
//! rebinding), the bearer token (401), the `MCP-Protocol-Version` (400), the
//! `MCP-Session-Id` (400 missing, 404 unknown).
//!
//! Modern era (2026-07-28; a POST whose message carries the envelope, [`Kind::Request`]'s
//! `modern`): no session; after the same Origin, Host and token checks, the
//! `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers must agree with the body (400,
//! -32020). An error's status follows its code (400; 404 for an unknown method). A
//! `subscriptions/listen` is answered with an SSE stream: the acknowledgement, then the
//! notifications, until the client closes it.

use std::borrow::Cow;
use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Result;
use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{self, any};
use base64::Engine as _;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use mcp_memory_core::mcp::{self, Headers, Kind, MODERN_VERSIONS, PROTOCOL_VERSIONS};
use mcp_memory_core::tools::limits::MAX_MESSAGE_BYTES;
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;

use crate::auth::Token;
use crate::hub::{Hub, OUTBOX_MESSAGES};
use crate::listen;

/// The endpoint's path.
pub const PATH: &str = "/mcp";
/// Sessions kept at once; a new one past this ends the least recently used.
pub const MAX_SESSIONS: usize = 1024;
const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

/// Who may call, and what the endpoints must check.
pub struct Policy {
    /// The bearer token `/mcp` requires, if any.
    pub token: Option<Token>,
    /// Origins (`scheme://host[:port]`) whose pages may call; requests without an Origin
    /// header (non-browser clients) are always allowed.
    pub allowed_origins: Vec<String>,
    /// Whether the server listens on a loopback address (then Host must be a loopback name).
    pub loopback: bool,
}

struct Session {
    /// The memory's endpoint (its name; `""` for `/mcp`).
    memory: String,
    number: u32,
    streaming: bool,
    used: Instant,
}

struct App {
    policy: Policy,
    /// The memories served: `""` at `/mcp`, the named ones at `/mcp/<name>`.
    endpoints: HashMap<String, Arc<Endpoint>>,
    sessions: Mutex<HashMap<String, Session>>,
}

/// One memory's endpoint.
struct Endpoint {
    /// `""` for `/mcp`, else the memory's name (`/mcp/<name>`).
    name: String,
    hub: Hub,
    /// The bearer token it requires, if any.
    token: Option<Token>,
    /// The session number modern requests are handled in (they have no session; provenance
    /// names this one).
    stateless: u32,
}

/// A named memory served at `/mcp/<name>`, with its own token.
pub struct Named {
    /// The memory's name.
    pub name: String,
    /// Its memory's thread.
    pub hub: Hub,
    /// The bearer token its clients present.
    pub token: Token,
}

impl App {
    fn sessions(&self) -> MutexGuard<'_, HashMap<String, Session>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Connections served at once, idle ones included (fewer if the process may not open as
/// many files); more are answered 503 and closed.
pub const MAX_CONNECTIONS: usize = 4096;

/// How long a connection may take to send a request's head, or stay idle before its next
/// request; then it is closed (a client sending its headers a byte at a time holds a
/// connection this long at most).
pub const HEAD_WAIT: Duration = Duration::from_secs(10);

/// Serves `/mcp` (and each of `named` at `/mcp/<name>`) until the process ends.
pub async fn serve(
    listener: TcpListener,
    hub: Hub,
    mut policy: Policy,
    named: Vec<Named>,
) -> Result<()> {
    let mut endpoints = HashMap::new();
    let mut add = |name: String, hub: Hub, token: Option<Token>| {
        let stateless = hub.new_session();
        let endpoint = Endpoint {
            name: name.clone(),
            hub,
            token,
            stateless,
        };
        endpoints.insert(name, Arc::new(endpoint));
    };
    add(String::new(), hub, policy.token.take());
    for memory in named {
        add(memory.name, memory.hub, Some(memory.token));
    }
    let app = Arc::new(App {
        policy,
        endpoints,
        sessions: Mutex::new(HashMap::new()),
    });
    let router = Router::new()
        .route(PATH, any(default_endpoint))
        .route(&format!("{PATH}/{{name}}"), any(named_endpoint))
        .route("/", routing::get(browser))
        .layer(DefaultBodyLimit::max(MAX_MESSAGE_BYTES))
        .with_state(app);
    let limit = listen::open_files_for(MAX_CONNECTIONS);
    listen::each_connection(listener, limit, busy(limit).into_bytes().into(), |stream| {
        let service = TowerToHyperService::new(router.clone());
        async move {
            let _ = stream.set_nodelay(true);
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new()).header_read_timeout(HEAD_WAIT);
            let _ = http.serve_connection(TokioIo::new(stream), service).await;
        }
    })
    .await
}

/// The answer to a connection over the limit (`limit` at once), and its close.
fn busy(limit: usize) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32000,"message":"Too many connections: this server serves at most {limit} at once"}}}}"#
    );
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// The memory browser (npm/ui/index.html): it holds no data, and calls `/mcp` with the
/// token the user gives it.
const BROWSER_PAGE: &str = include_str!("../../npm/ui/index.html");

/// Serves the memory browser, to requests that pass the Origin and Host checks.
async fn browser(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if let Err(refused) = admit_origin(&app.policy, &headers) {
        return refused.into_response();
    }
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        BROWSER_PAGE,
    )
        .into_response()
}

/// A refused request: an HTTP status and a JSON-RPC error (no id) saying why.
struct Refusal {
    status: StatusCode,
    code: i32,
    message: Cow<'static, str>,
}

fn refuse(status: StatusCode, code: i32, message: impl Into<Cow<'static, str>>) -> Refusal {
    Refusal {
        status,
        code,
        message: message.into(),
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": null,
            "error": {"code": self.code, "message": self.message}});
        let mut response = (
            self.status,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response();
        let extra = match self.status {
            StatusCode::UNAUTHORIZED => Some((header::WWW_AUTHENTICATE, "Bearer")),
            StatusCode::METHOD_NOT_ALLOWED => Some((header::ALLOW, "GET, POST, DELETE")),
            _ => None,
        };
        if let Some((name, value)) = extra {
            response
                .headers_mut()
                .insert(name, HeaderValue::from_static(value));
        }
        response
    }
}

/// A JSON body with this status.
fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn text(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Whether a Host header names this machine's loopback interface.
fn loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    matches!(name, "localhost" | "127.0.0.1" | "::1")
}

/// The Origin (one allowed with `--allow-origin`, or the server's own: the memory browser's
/// page) and, on a loopback server, the Host (DNS rebinding); `Err` is the refusal to send.
fn admit_origin(policy: &Policy, headers: &HeaderMap) -> Result<(), Refusal> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let own = text(headers, header::HOST).map(|host| format!("http://{host}"));
        let allowed = origin.to_str().is_ok_and(|o| {
            policy.allowed_origins.iter().any(|a| a == o) || own.as_deref() == Some(o)
        });
        if !allowed {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                -32000,
                "Forbidden: this Origin may not call the server (see --allow-origin)",
            ));
        }
    }
    if policy.loopback && !text(headers, header::HOST).is_some_and(loopback_host) {
        return Err(refuse(
            StatusCode::FORBIDDEN,
            -32000,
            "Forbidden: a loopback server answers only requests for localhost",
        ));
    }
    Ok(())
}

/// The checks every method passes first; `Err` is the refusal to send.
fn admit(app: &App, ep: &Endpoint, headers: &HeaderMap) -> Result<(), Refusal> {
    admit_origin(&app.policy, headers)?;
    if let Some(token) = &ep.token {
        let ok = text(headers, header::AUTHORIZATION).is_some_and(|h| token.authorizes(h));
        if !ok {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                -32001,
                "Unauthorized: send `Authorization: Bearer <token>`",
            ));
        }
    }
    // A modern request's version is the core's to check, against its body.
    if let Some(version) = headers.get(VERSION_HEADER)
        && !headers.contains_key(METHOD_HEADER)
    {
        let known = version
            .to_str()
            .is_ok_and(|v| PROTOCOL_VERSIONS.contains(&v) || MODERN_VERSIONS.contains(&v));
        if !known {
            let message = format!(
                "Bad Request: unsupported MCP-Protocol-Version (supported: {})",
                PROTOCOL_VERSIONS.join(", ")
            );
            return Err(refuse(StatusCode::BAD_REQUEST, -32000, message));
        }
    }
    Ok(())
}

/// `/mcp`: the memory the server was started on.
async fn default_endpoint(
    State(app): State<Arc<App>>,
    method: Method,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let ep = Arc::clone(&app.endpoints[""]);
    endpoint(app, ep, method, headers, body).await
}

/// `/mcp/<name>`: a named memory (404 for a name not served).
async fn named_endpoint(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
    method: Method,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let Some(ep) = app
        .endpoints
        .get(&name)
        .filter(|_| !name.is_empty())
        .cloned()
    else {
        return refuse(
            StatusCode::NOT_FOUND,
            -32000,
            "Not Found: no memory of this name is served here",
        )
        .into_response();
    };
    endpoint(app, ep, method, headers, body).await
}

async fn endpoint(
    app: Arc<App>,
    ep: Arc<Endpoint>,
    method: Method,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    if let Err(refused) = admit(&app, &ep, &headers) {
        return refused.into_response();
    }
    let body = match body {
        Ok(body) => body,
        // Over the core's message limit: its error, to no id (the body was not read).
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            let bytes = text(&headers, header::CONTENT_LENGTH).and_then(|n| n.parse().ok());
            return json_response(StatusCode::PAYLOAD_TOO_LARGE, mcp::too_large(None, bytes));
        }
        Err(e) => return e.into_response(),
    };
    // The modern era has no GET stream and no sessions to delete.
    let modern = text(&headers, VERSION_HEADER).is_some_and(|v| MODERN_VERSIONS.contains(&v));
    match method {
        Method::POST => post(&app, &ep, &headers, body).await,
        Method::GET | Method::DELETE if modern => refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            -32000,
            "Method Not Allowed: MCP 2026-07-28 requests are POSTs",
        )
        .into_response(),
        Method::GET => get(&app, &ep, &headers),
        Method::DELETE => delete(&app, &ep, &headers),
        _ => refuse(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method Not Allowed").into_response(),
    }
}

fn accepts(headers: &HeaderMap, kind: &str) -> bool {
    text(headers, header::ACCEPT).is_some_and(|a| {
        a.split(',').any(|part| {
            let media = part.split(';').next().unwrap_or_default().trim();
            media == kind || media == "*/*"
        })
    })
}

/// The session a request names (one of this endpoint's): its number, or the refusal.
fn session_of(app: &App, ep: &Endpoint, headers: &HeaderMap) -> Result<(String, u32), Refusal> {
    let Some(id) = text(headers, SESSION_HEADER) else {
        return Err(refuse(
            StatusCode::BAD_REQUEST,
            -32000,
            "Bad Request: no MCP-Session-Id header (initialize first)",
        ));
    };
    let mut sessions = app.sessions();
    match sessions.get_mut(id).filter(|s| s.memory == ep.name) {
        Some(session) => {
            session.used = Instant::now();
            Ok((id.to_string(), session.number))
        }
        None => Err(refuse(StatusCode::NOT_FOUND, -32001, "Session not found")),
    }
}

/// A new session's id: 128 random bits in hex.
fn new_session_id() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| anyhow::anyhow!("no randomness for a session id: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Registers a session, ending the least recently used one if there are too many.
fn open_session(app: &App, ep: &Endpoint) -> Result<(String, u32)> {
    let id = new_session_id()?;
    let number = ep.hub.new_session();
    let mut sessions = app.sessions();
    if sessions.len() >= MAX_SESSIONS
        && let Some(oldest) = sessions
            .iter()
            .min_by_key(|(_, s)| s.used)
            .map(|(k, _)| k.clone())
        && let Some(gone) = sessions.remove(&oldest)
        && let Some(owner) = app.endpoints.get(&gone.memory)
    {
        owner.hub.end(gone.number);
    }
    sessions.insert(
        id.clone(),
        Session {
            memory: ep.name.clone(),
            number,
            streaming: false,
            used: Instant::now(),
        },
    );
    Ok((id, number))
}

async fn post(app: &Arc<App>, ep: &Arc<Endpoint>, headers: &HeaderMap, body: Bytes) -> Response {
    if !text(headers, header::CONTENT_TYPE).is_some_and(|c| {
        c.split(';')
            .next()
            .is_some_and(|m| m.trim() == "application/json")
    }) {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            -32000,
            "Unsupported Media Type: send application/json",
        )
        .into_response();
    }
    if !accepts(headers, "application/json") {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "Not Acceptable: accept application/json (and text/event-stream)",
        )
        .into_response();
    }
    // As on stdio and TCP: invalid UTF-8 becomes U+FFFD, and the core says what the
    // message is; what it refuses gets its error with status 400 here (a stream transport
    // sends nothing back).
    let message = String::from_utf8_lossy(&body);
    let kind = mcp::classify(&message);
    if let Some(refusal) = kind.refusal() {
        return json_response(StatusCode::BAD_REQUEST, refusal);
    }
    if let Kind::Request { modern: true, .. } = kind {
        return modern(ep, headers, message.into_owned()).await;
    }
    let initialize = matches!(
        kind,
        Kind::Request {
            initialize: true,
            ..
        }
    );
    let (id, number) = if initialize {
        match open_session(app, ep) {
            Ok(opened) => opened,
            Err(e) => {
                return refuse(StatusCode::INTERNAL_SERVER_ERROR, -32603, format!("{e:#}"))
                    .into_response();
            }
        }
    } else {
        match session_of(app, ep, headers) {
            Ok(session) => session,
            Err(refused) => return refused.into_response(),
        }
    };
    let mut replies = ep.hub.handle(number, message.into_owned()).await;
    let mut response = if replies.is_empty() {
        StatusCode::ACCEPTED.into_response()
    } else if replies.len() > 1 && accepts(headers, "text/event-stream") {
        let events = replies
            .into_iter()
            .map(|m| Ok::<_, Infallible>(Event::default().data(m)));
        Sse::new(tokio_stream::iter(events)).into_response()
    } else {
        let reply = replies.pop().unwrap_or_default();
        ([(header::CONTENT_TYPE, "application/json")], reply).into_response()
    };
    if initialize && let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
    response
}

/// `Mcp-Name` as sent: plain, or `=?base64?<base64 of UTF-8>?=` for a value that is not a
/// plain header value (`None` for a malformed one).
fn decoded_name(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_string()),
    }
}

/// The HTTP status of a modern reply: that of its error's code, else 200.
fn modern_status(reply: &str) -> StatusCode {
    match mcp::error_code(reply) {
        Some(-32601) => StatusCode::NOT_FOUND,
        Some(-32700 | -32600 | -32602 | -32020 | -32021 | -32022) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Answers a modern request: its headers checked against its body, no session.
async fn modern(ep: &Arc<Endpoint>, headers: &HeaderMap, message: String) -> Response {
    let name = text(headers, NAME_HEADER).map(decoded_name);
    let routing = Headers {
        version: text(headers, VERSION_HEADER),
        method: text(headers, METHOD_HEADER),
        name: name.as_ref().and_then(|n| n.as_deref()),
    };
    if let Some(refusal) = mcp::header_refusal(&message, routing) {
        return json_response(StatusCode::BAD_REQUEST, refusal);
    }
    if routing.method == Some("subscriptions/listen") {
        return listen(ep, headers, message).await;
    }
    let mut replies = ep.hub.handle(ep.stateless, message).await;
    let reply = replies.pop().unwrap_or_default();
    json_response(modern_status(&reply), reply)
}

/// Ends a `subscriptions/listen` stream's session when the client closes the stream.
struct ListenGuard {
    hub: Hub,
    number: u32,
}

impl Drop for ListenGuard {
    fn drop(&mut self) {
        self.hub.end(self.number);
    }
}

/// Answers `subscriptions/listen` with an SSE stream in a session of its own: the
/// acknowledgement, then each notification, until the client closes it.
async fn listen(ep: &Endpoint, headers: &HeaderMap, message: String) -> Response {
    if !accepts(headers, "text/event-stream") {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "Not Acceptable: subscriptions/listen answers with text/event-stream",
        )
        .into_response();
    }
    let number = ep.hub.new_session();
    let guard = ListenGuard {
        hub: ep.hub.clone(),
        number,
    };
    let (outbox, queue) = mpsc::channel(OUTBOX_MESSAGES);
    ep.hub.attach(number, outbox);
    let replies = ep.hub.handle(number, message).await;
    // A refused listen is a reply, not an acknowledgement: answered as JSON.
    if let [reply] = replies.as_slice()
        && mcp::error_code(reply).is_some()
    {
        return json_response(modern_status(reply), reply.clone());
    }
    notification_stream(replies, queue, guard)
}

/// An SSE stream of `first`, then the messages of `queue` until the client closes it, which
/// drops `guard`.
fn notification_stream<G: Send + Sync + 'static>(
    first: Vec<String>,
    queue: mpsc::Receiver<String>,
    guard: G,
) -> Response {
    let stream = tokio_stream::iter(first)
        .chain(ReceiverStream::new(queue))
        .map(move |m| {
            let _ = &guard;
            Ok::<_, Infallible>(Event::default().data(m))
        });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// Marks a session's notification stream closed when the client drops it.
struct StreamGuard {
    app: Arc<App>,
    hub: Hub,
    id: String,
    number: u32,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        self.hub.detach(self.number);
        if let Some(session) = self.app.sessions().get_mut(&self.id) {
            session.streaming = false;
        }
    }
}

fn get(app: &Arc<App>, ep: &Endpoint, headers: &HeaderMap) -> Response {
    if !accepts(headers, "text/event-stream") {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "Not Acceptable: accept text/event-stream",
        )
        .into_response();
    }
    let (id, number) = match session_of(app, ep, headers) {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    {
        let mut sessions = app.sessions();
        let Some(session) = sessions.get_mut(&id) else {
            return refuse(StatusCode::NOT_FOUND, -32001, "Session not found").into_response();
        };
        if session.streaming {
            return refuse(
                StatusCode::CONFLICT,
                -32000,
                "Conflict: this session already has a notification stream",
            )
            .into_response();
        }
        session.streaming = true;
    }
    let (outbox, queue) = mpsc::channel(OUTBOX_MESSAGES);
    ep.hub.attach(number, outbox);
    let guard = StreamGuard {
        app: Arc::clone(app),
        hub: ep.hub.clone(),
        id,
        number,
    };
    notification_stream(Vec::new(), queue, guard)
}

fn delete(app: &App, ep: &Endpoint, headers: &HeaderMap) -> Response {
    let (id, number) = match session_of(app, ep, headers) {
        Ok(session) => session,
        Err(refused) => return refused.into_response(),
    };
    app.sessions().remove(&id);
    ep.hub.end(number);
    StatusCode::OK.into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_the_loopback_names_with_any_port() {
        for host in [
            "localhost",
            "localhost:80",
            "127.0.0.1:8808",
            "[::1]:9",
            "[::1]",
        ] {
            assert!(loopback_host(host), "{host}");
        }
        for host in [
            "evil.example",
            "evil.example:8808",
            "127.0.0.2:1",
            "localhost.evil:1",
            "[::2]:1",
        ] {
            assert!(!loopback_host(host), "{host}");
        }
    }
}
