//! One memory served to any number of clients: the component instance, replaced by a fresh
//! one from the memory file if it ever traps, with the memory file's warnings sent to stderr.

use std::time::Duration;

use anyhow::Result;

use crate::engine::{Replies, Server};

/// How long no message comes before a transport builds the search indexes
/// ([`Service::warm_while`]).
pub const IDLE: Duration = Duration::from_millis(100);

/// How a trapped instance is replaced: the memory opened again from its file.
pub type Reopen = Box<dyn Fn() -> Result<Server> + Send>;

/// The memory behind every transport.
pub struct Service {
    server: Server,
    reopen: Reopen,
    /// Whether the server keeps a lock between messages ([`Server::linger`]).
    linger: bool,
}

impl Service {
    /// Serves `server`; `reopen` rebuilds it from the memory file after a trap.
    pub fn new(server: Server, reopen: Reopen) -> Self {
        Service {
            server,
            reopen,
            linger: false,
        }
    }

    /// Keeps the lock a message takes for the messages that follow, until
    /// [`Service::release`] ([`Server::linger`]).
    pub fn linger(&mut self) {
        self.linger = true;
        self.server.linger();
    }

    /// Whether the memory file's lock is held between messages.
    pub fn holds_lock(&self) -> bool {
        self.server.holds_lock()
    }

    /// Releases the memory file's lock, if it is held.
    pub fn release(&mut self) {
        self.server.release();
    }

    /// Handles one message from the client of `session` and returns the messages for it,
    /// the last one perhaps only begun ([`Replies::continued`]; [`Service::next_piece`]
    /// has its rest). If the component traps, its state is lost (the file is the truth): it
    /// is reopened and the message is answered with a JSON-RPC internal error. `Err` only if
    /// reopening fails.
    pub fn handle(&mut self, session: u32, message: &str) -> Result<Replies> {
        let replies = match self.server.handle(session, message) {
            Ok(replies) => replies,
            Err(trap) => Replies {
                messages: self.failed(message, &trap)?,
                continued: false,
            },
        };
        self.report_warnings();
        Ok(replies)
    }

    /// The next piece of the last message [`Service::handle`] began, or `None` once it is
    /// complete. If the component traps, the message stays cut where it is (its client
    /// cannot parse it) and the memory is reloaded; `Err` only if reloading fails.
    pub fn next_piece(&mut self) -> Result<Option<String>> {
        match self.server.next_piece() {
            Ok(piece) => Ok(piece),
            Err(trap) => {
                self.reload(&trap)?;
                Ok(None)
            }
        }
    }

    /// Handles one message from the client of `session` and returns the messages for it,
    /// each whole; a trap is handled as by [`Service::handle`].
    pub fn handle_whole(&mut self, session: u32, message: &str) -> Result<Vec<String>> {
        let replies = match self.server.handle_whole(session, message) {
            Ok(replies) => replies,
            Err(trap) => self.failed(message, &trap)?,
        };
        self.report_warnings();
        Ok(replies)
    }

    /// The answer to a message whose handling trapped, from the reloaded memory.
    fn failed(&mut self, message: &str, trap: &anyhow::Error) -> Result<Vec<String>> {
        self.reload(trap)?;
        let reason = "internal error: the memory engine failed on this request and was reloaded from its file";
        Ok(self
            .server
            .failure_reply(message, reason)?
            .into_iter()
            .collect())
    }

    fn report_warnings(&mut self) {
        for w in self.server.take_warnings() {
            eprintln!("mcp-memory: warning: {w}");
        }
    }

    /// Replaces an instance that trapped with one reopened from the memory file.
    fn reload(&mut self, trap: &anyhow::Error) -> Result<()> {
        eprintln!(
            "mcp-memory: error: the memory component failed ({trap:#}); reloading the memory from its file"
        );
        self.server = (self.reopen)()?;
        if self.linger {
            self.server.linger();
        }
        Ok(())
    }

    /// Builds the search indexes a slice at a time (a few milliseconds each) while `idle()`
    /// says no message waits, so that the first search finds them ready; returns whether
    /// some are left (a message came first). A trap ends it (the memory is reloaded; `Err`
    /// only if that fails).
    pub fn warm_while(&mut self, mut idle: impl FnMut() -> bool) -> Result<bool> {
        loop {
            match self.server.warm() {
                Ok(true) if idle() => {}
                Ok(more) => return Ok(more),
                Err(trap) => {
                    self.reload(&trap)?;
                    return Ok(false);
                }
            }
        }
    }

    /// Messages waiting for other sessions' clients, as (session, message).
    pub fn take_notices(&mut self) -> Vec<(u32, String)> {
        self.server.take_notices().unwrap_or_else(|e| {
            eprintln!("mcp-memory: error: cannot take notifications: {e:#}");
            Vec::new()
        })
    }

    /// Catches up with other writers' changes, which the store announced; subscribers'
    /// notifications then wait in [`Service::take_notices`].
    /// A trap is handled as by [`Service::handle`]; `Err` only if reopening fails.
    pub fn poll(&mut self) -> Result<()> {
        if let Err(trap) = self.server.poll() {
            self.reload(&trap)?;
        }
        self.report_warnings();
        Ok(())
    }

    /// Closes the memory: writes what makes the next start fast (a checkpoint).
    pub fn close(mut self) {
        if let Err(e) = self.server.close() {
            eprintln!("mcp-memory: error: cannot close the memory: {e:#}");
        }
    }

    /// Forgets a session whose client went away.
    pub fn end_session(&mut self, session: u32) {
        if let Err(e) = self.server.end_session(session) {
            eprintln!("mcp-memory: error: cannot end session {session}: {e:#}");
        }
    }
}
