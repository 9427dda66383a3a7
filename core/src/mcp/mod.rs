//! MCP over JSON-RPC 2.0: one incoming message in, the outgoing messages out. This layer
//! speaks the protocol only; what a tool call does to the memory is the tools' (`tools::call`).
//!
//! Behaviour follows the reference server (`tests/scenarios/no-reply.json`): messages that are not valid
//! JSON-RPC (garbage, batches, unknown shapes) get no reply; malformed parameters of known
//! methods get error -32603 carrying zod-style issues; tool failures are `isError` results.
//!
//! `jsonrpc.rs`: messages, ids, replies and errors; `methods.rs`: each method answered;
//! `params.rs`: their params checked; `sessions.rs`: clients and who hears of changes;
//! `era.rs`: MCP 2026-07-28 beside the handshake era; `apps.rs`: the memory browser.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::OnceCell;
use serde_json::Value;

use crate::hash::{HashMap, HashSet};
use crate::json::parse_lenient;
use crate::log::Log;
use crate::memory::{Error, Memory, OpenError};
use crate::model::{Millis, Provenance};
use crate::tools::Catalog;
use crate::tools::limits::MAX_MESSAGE_BYTES;
use crate::tools::output::GraphText;
use crate::tools::profile::Selection;
use jsonrpc::as_request;
use sessions::Client;

pub mod apps;
pub mod era;
mod jsonrpc;
mod methods;
mod params;
pub mod roots;
mod sessions;

pub use era::{Envelope, Headers, MODERN_VERSIONS};
pub use jsonrpc::{Kind, classify, error_code, failure_reply, header_refusal, too_large};

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

/// Bytes of a piece of a reply sent a piece at a time ([`Server::next_piece`]).
pub const PIECE_BYTES: usize = 256 << 10;

/// The rest of a reply still to be written: a large answer of entities and relations, then
/// the words that close the reply.
struct Unsent {
    text: GraphText,
    tail: String,
}

/// An MCP server for one memory: the memory, the tool catalog, and the sessions of the
/// clients that share it (one for stdio; one per connection for network transports).
pub struct Server<L: Log> {
    memory: Memory<L>,
    /// The tools it lists and answers: built once, by the host's choice of profile, else
    /// (an engine on its own) of every tool at first use.
    catalog: OnceCell<Catalog>,
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
    /// A memory per workspace root, when the host asks for it ([`roots`]).
    scope: roots::Scope,
}

/// The catalog a server answers with (every tool when the host chose none).
fn catalog(cell: &OnceCell<Catalog>) -> &Catalog {
    cell.get_or_init(Catalog::default)
}

impl<L: Log> Server<L> {
    /// Opens the memory in `log` ([`Memory::open`]) and serves it. Returns warnings for the
    /// user.
    pub fn open(log: L) -> Result<(Self, Vec<String>), OpenError> {
        let (memory, warnings) = Memory::open(log)?;
        let server = Server {
            memory,
            catalog: OnceCell::new(),
            subscribers: HashSet::default(),
            listeners: Vec::new(),
            envelope: None,
            session: 0,
            now: 0,
            clients: HashMap::default(),
            actor: None,
            notices: Vec::new(),
            unsent: None,
            scope: roots::Scope::default(),
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
        self.catalog = OnceCell::from(Catalog::new(&Selection::new(profile, tools)?));
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
            roots: false,
            id: format!("{now}.{session}"),
        });
        let Ok((msg, _)) = parse_lenient::<Value>(message) else {
            return Vec::new();
        };
        if let Some(out) = self.roots_answered(&msg) {
            return out;
        }
        if self.waits_for_roots() {
            self.hold(message);
            return Vec::new();
        }
        match as_request(&msg) {
            Some(req) if message.len() > MAX_MESSAGE_BYTES => {
                vec![too_large(Some(&req.id), Some(message.len()))]
            }
            Some(req) => self.dispatch(req),
            None => self.notified(&msg),
        }
    }
}
