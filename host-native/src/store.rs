//! Where a memory lives — a file, or a named memory in a PostgreSQL database — and the log
//! the host serves the guest from it.

use std::path::{Path, PathBuf};

use anyhow::Result;
use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::{Log, LogError};

use crate::disk::{Durability, FsDisk, open_log};
use crate::pglog::{PgLog, Target};

/// A log as the host drives it: the guest's `log` import, plus the writer's turn the host
/// takes around a call and releases after it.
pub trait HostLog: Log + Send {
    /// Takes the writer's turn (waiting for other writers' turns to end).
    fn lock(&mut self) -> Result<(), LogError>;
    /// Ends the writer's turn, if this log holds it.
    fn unlock(&mut self);
    /// Whether this log holds the writer's turn.
    fn is_locked(&self) -> bool;
    /// Warnings collected since the last call (torn tails cut off, reconnections).
    fn take_warnings(&mut self) -> Vec<String>;
    /// Whether keeping the turn for a burst of messages saves more than it costs others
    /// (a file's lock: yes; a database's turn, which commits each change anyway: no).
    fn lingers(&self) -> bool {
        true
    }
}

impl HostLog for FileLog<FsDisk> {
    fn lock(&mut self) -> Result<(), LogError> {
        FileLog::lock(self)
    }

    fn unlock(&mut self) {
        FileLog::unlock(self)
    }

    fn is_locked(&self) -> bool {
        FileLog::is_locked(self)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        FileLog::take_warnings(self)
    }
}

impl HostLog for PgLog {
    fn lock(&mut self) -> Result<(), LogError> {
        PgLog::lock(self)
    }

    fn unlock(&mut self) {
        PgLog::unlock(self)
    }

    fn is_locked(&self) -> bool {
        PgLog::is_locked(self)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        PgLog::take_warnings(self)
    }

    fn lingers(&self) -> bool {
        false
    }
}

/// Where a memory is kept.
#[derive(Clone, Debug)]
pub enum Location {
    /// A memory file.
    File(PathBuf),
    /// A named memory in a PostgreSQL database.
    Postgres(Box<Target>),
}

impl Location {
    /// The store `--store` (or `$MCP_MEMORY_STORE`) names: a `postgres://` or
    /// `postgresql://` address, else a file path. An address of another scheme, or one
    /// whose part before `?` is empty (an unset shell variable), is refused, not taken as
    /// a file's name.
    pub fn parse(store: &str) -> Result<Location, String> {
        if store.starts_with("postgres://") || store.starts_with("postgresql://") {
            return Target::parse(store).map(|t| Location::Postgres(Box::new(t)));
        }
        if let Some((scheme, _)) = store.split_once("://") {
            return Err(format!(
                "'{scheme}://' is not a store this server knows: give a postgres:// address or a file path"
            ));
        }
        if store.starts_with('?') {
            return Err(format!(
                "'{store}' has no address before its '?': give a postgres:// address or a file path"
            ));
        }
        crate::config::user_path(Path::new(store))
            .map(Location::File)
            .map_err(|e| format!("{e:#}"))
    }

    /// The location for messages (a path, or an address without its password).
    pub fn shown(&self) -> String {
        match self {
            Location::File(path) => path.display().to_string(),
            Location::Postgres(target) => target.shown.clone(),
        }
    }

    /// The memory called `name` in the same database (named memories live in a database).
    pub fn named(&self, name: &str) -> Result<Location, String> {
        match self {
            Location::Postgres(target) => target
                .with_memory(name)
                .map(|t| Location::Postgres(Box::new(t))),
            Location::File(_) => {
                Err("named memories live in a database: pass --store postgres://…".to_string())
            }
        }
    }

    /// Calls `wake` when another process changes the memory, if this store announces
    /// changes (a database does; a file's readers catch up at their next request).
    pub fn watch(&self, wake: Box<dyn Fn() + Send>) {
        if let Location::Postgres(target) = self {
            crate::pglog::watch(target, wake);
        }
    }

    /// Opens the log (a file is created if missing; a database is connected at replay).
    pub fn open_log(&self, durability: Durability) -> Result<Box<dyn HostLog>> {
        Ok(match self {
            Location::File(path) => Box::new(open_log(path, durability)?),
            Location::Postgres(target) => Box::new(PgLog::new((**target).clone())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Location;

    #[test]
    fn an_address_that_is_not_postgres_is_refused_not_taken_for_a_file() {
        for store in ["?memory=soak", "mysql://db/x", "http://host/mcp"] {
            let Err(e) = Location::parse(store) else {
                panic!("{store} was taken as a store");
            };
            assert!(e.contains("postgres:// address or a file path"), "{e}");
        }
        assert!(matches!(
            Location::parse("memory.mcpmem"),
            Ok(Location::File(_))
        ));
        assert!(matches!(
            Location::parse("postgres://u@h/db?memory=soak"),
            Ok(Location::Postgres(_))
        ));
    }
}
