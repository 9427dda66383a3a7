//! Sessions: who each client is, who listens for changes to the graph (a resource
//! subscription, or a `subscriptions/listen` stream), and telling them of a change, in the
//! session that made it or, through the notices, in the others.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::{Map, Value};

use super::jsonrpc::id_text;
use super::{GRAPH_URI, Server, era};
use crate::log::{Intent, Log};
use crate::memory::Error;

/// The session being handled while none is ([`Server::poll`]): no host numbers one so.
pub(super) const NO_SESSION: u32 = u32::MAX;

/// A client session as provenance sees it.
pub(super) struct Client {
    /// `clientInfo.name` and `.version` from `initialize` (empty until then).
    pub(super) name: String,
    pub(super) version: String,
    /// Whether its `initialize` declared MCP Apps ([`apps::declared`]).
    pub(super) apps: bool,
    /// Whether its `initialize` declared workspace roots (`capabilities.roots`).
    pub(super) roots: bool,
    /// The session's id in provenance: the time of its first message and its number.
    pub(super) id: String,
}

/// `notifications/resources/updated` for the graph resource.
pub(super) fn updated_notification() -> String {
    format!(
        r#"{{"method":"notifications/resources/updated","params":{{"uri":"{GRAPH_URI}"}},"jsonrpc":"2.0"}}"#
    )
}

/// `notifications/resources/updated` for the graph resource on the `subscriptions/listen`
/// stream of request `id`.
pub(super) fn listened_notification(id: &str) -> String {
    format!(
        r#"{{"method":"notifications/resources/updated","params":{{"uri":"{GRAPH_URI}","_meta":{{"{}":{id}}}}},"jsonrpc":"2.0"}}"#,
        era::SUBSCRIPTION_KEY
    )
}

impl<L: Log> Server<L> {
    /// Takes note of a notification: `notifications/cancelled` ends the session's
    /// `subscriptions/listen` stream it names; the end of the handshake and a change of the
    /// client's roots make the server ask for them, when they choose its memory
    /// ([`super::roots`]). Returns what to send.
    pub(super) fn notified(&mut self, msg: &Value) -> Vec<String> {
        match msg.get("method").and_then(Value::as_str) {
            Some("notifications/initialized" | "notifications/roots/list_changed") => {
                return self.ask_roots();
            }
            Some("notifications/cancelled") => {}
            _ => return Vec::new(),
        }
        let Some(id) = msg.pointer("/params/requestId").and_then(id_text) else {
            return Vec::new();
        };
        let session = self.session;
        self.listeners.retain(|(s, i)| !(*s == session && *i == id));
        Vec::new()
    }

    /// Opens a `subscriptions/listen` stream: acknowledges what it honors (changes to
    /// `memory://knowledge-graph`, if asked for); the notifications that follow carry the
    /// request's id, until the client cancels the request.
    pub(super) fn listen(&mut self, id: &str, params: Option<&Map<String, Value>>) -> String {
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
    pub(super) fn apps(&self) -> bool {
        match &self.envelope {
            Some(envelope) => envelope.apps,
            None => self.clients.get(&self.session).is_some_and(|c| c.apps),
        }
    }

    /// Catches up with other writers for a request that goes on to do `intent`;
    /// subscribers hear if that changed the graph.
    pub(super) fn catch_up_notifying(
        &mut self,
        intent: Intent,
        out: &mut Vec<String>,
    ) -> Result<(), Error> {
        if self.memory.catch_up(intent)? {
            self.graph_changed(out);
        }
        Ok(())
    }

    /// Tells every subscriber the graph may have changed: this session's client in `out`,
    /// the others through the notices.
    pub(super) fn graph_changed(&mut self, out: &mut Vec<String>) {
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
