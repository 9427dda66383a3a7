//! A memory per workspace (`--scope roots`): after the handshake, and again whenever the
//! client says its roots changed, the server asks for them (`roots/list`); the first
//! `file://` root names the memory the log serves from then on ([`Memory::rescope`]).
//! Messages that come while the answer is awaited wait for it, so none is answered from
//! another workspace's memory. A client that declares no roots, or lists none, is served the
//! default memory, and `initialize`'s instructions say which it is.
//!
//! Roots are a handshake-era feature (MCP 2026-07-28 deprecates them and has no server to
//! client requests): a modern request is served by the memory the session's handshake chose,
//! else the default one. Where a host keeps a root's memory is its own; their names are the
//! same in every host ([`crate::roots`]).
//!
//! [`Memory::rescope`]: crate::memory::Memory::rescope

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde_json::Value;

use super::Server;
use super::jsonrpc::id_text;
use crate::log::Log;
use crate::roots::path_of;

/// What `initialize`'s instructions add when the client's roots choose its memory.
const BY_ROOTS: &str =
    " This server keeps one memory per workspace: the one of the first root the client lists.";

/// What `server/discover`'s instructions add: modern requests carry no roots.
const MODERN: &str = " This server keeps one memory per workspace for clients that list roots in the handshake (initialize); requests of MCP 2026-07-28, which deprecates roots, are served the memory the handshake chose, else the default one (a client gives a project its memory with MEMORY_FILE_PATH).";

/// What they add when the client declares no roots.
const NO_ROOTS: &str = " This server keeps one memory per workspace, but this client declares no workspace roots (the roots capability): it is served the default memory, shared by every workspace without roots.";

impl<L: Log> Server<L> {
    /// Serves the memory of each client's first workspace root (the host maps roots to
    /// memories: [`Log::rescope`]) instead of the log's own, for clients that list roots.
    pub fn set_scope_roots(&mut self, on: bool) {
        self.scope.on = on;
    }

    /// Whether the session being handled declared roots in its `initialize`.
    fn client_has_roots(&self) -> bool {
        self.clients.get(&self.session).is_some_and(|c| c.roots)
    }

    /// What `initialize`'s instructions add for the session being handled.
    pub(super) fn scope_note(&self) -> &'static str {
        match (self.scope.on, self.client_has_roots()) {
            (false, _) => "",
            (true, true) => BY_ROOTS,
            (true, false) => NO_ROOTS,
        }
    }

    /// What `server/discover`'s instructions add.
    pub(super) fn discover_note(&self) -> &'static str {
        if self.scope.on { MODERN } else { "" }
    }

    /// Asks the client for its roots (after `notifications/initialized`, and after
    /// `notifications/roots/list_changed`), when they choose its memory.
    pub(super) fn ask_roots(&mut self) -> Vec<String> {
        if !self.scope.on || !self.client_has_roots() {
            return Vec::new();
        }
        self.scope.asked += 1;
        let id = format!("\"mcp-memory/roots/{}\"", self.scope.asked);
        let request = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"roots/list"}}"#);
        self.scope.awaiting = Some((self.session, id));
        alloc::vec![request]
    }

    /// Whether a message from the session being handled waits for its roots' answer.
    pub(super) fn waits_for_roots(&self) -> bool {
        matches!(&self.scope.awaiting, Some((session, _)) if *session == self.session)
    }

    /// Keeps a message to handle once the roots are known.
    pub(super) fn hold(&mut self, message: &str) {
        let held = (self.session, self.now, message.to_string());
        self.scope.held.push(held);
    }

    /// If `msg` answers the `roots/list` awaited: turns to the first `file://` root's memory
    /// (keeps the one served when the client lists none, or answers with an error), then
    /// handles the messages that waited; returns what to send.
    pub(super) fn roots_answered(&mut self, msg: &Value) -> Option<Vec<String>> {
        let (session, id) = self.scope.awaiting.as_ref()?;
        let answers = *session == self.session
            && msg.get("method").is_none()
            && msg.get("id").and_then(id_text).as_ref() == Some(id);
        if !answers {
            return None;
        }
        self.scope.awaiting = None;
        let root = msg
            .pointer("/result/roots")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|r| r.get("uri")?.as_str())
            .find(|uri| path_of(uri).is_some());
        if let Some(root) = root
            && self.scope.root.as_deref() != Some(root)
        {
            self.unsent = None;
            // A root whose memory cannot be opened leaves none served (calls fail saying
            // why), never another workspace's; its roots asked again try it again.
            let opened = self.memory.rescope(root).is_ok();
            self.scope.root = opened.then(|| root.to_string());
        }
        let mut out = Vec::new();
        for (session, now, message) in core::mem::take(&mut self.scope.held) {
            out.extend(self.handle_in(session, now, &message));
        }
        Some(out)
    }
}

/// Whose roots choose the memory, and what waits for them.
#[derive(Default)]
pub(super) struct Scope {
    /// Whether roots choose the memory ([`Server::set_scope_roots`]).
    on: bool,
    /// `roots/list` requests sent so far (their ids count up).
    asked: u32,
    /// The session and request id (JSON text) of the `roots/list` awaited.
    awaiting: Option<(u32, String)>,
    /// Messages that came meanwhile: session, time, text.
    held: Vec<(u32, crate::model::Millis, String)>,
    /// The root whose memory is served, once one is.
    root: Option<String>,
}
