//! [`Store`]: a memory as the tools use it, whatever log it is kept in (a trait object,
//! so tools need not be generic over the log).

use alloc::string::String;
use alloc::vec::Vec;

use super::history::{ChangeId, Journal, Refused};
use super::{Change, Error, Forgotten, Memory, Pending};
use crate::graph::Graph;
use crate::index::Indexes;
use crate::log::{Intent, Log, LogError};
use crate::model::{Millis, Provenance};

/// What a tool may do with a memory: read it, log a change, and what works on the log
/// itself (compaction, forgetting, its history, a file the user names). Each method is
/// [`Memory`]'s of the same name.
pub trait Store {
    /// [`Memory::graph`].
    fn graph(&self) -> &Graph;
    /// [`Memory::indexes`].
    fn indexes(&self) -> &Indexes;
    /// [`Memory::change_time`].
    fn change_time(&self, at: Millis) -> Millis;
    /// [`Memory::commit`].
    fn commit(&mut self, change: Change, at: Millis, by: &Provenance<'_>) -> Result<(), Error>;
    /// [`Memory::compact`].
    fn compact(&mut self) -> Result<usize, Error>;
    /// [`Memory::forget`].
    fn forget(
        &mut self,
        change: Change,
        at: Millis,
        by: &Provenance<'_>,
        names: &[&str],
    ) -> Result<Forgotten, Error>;
    /// [`Memory::journal`].
    fn journal(&mut self, intent: Intent) -> Result<Journal<'_>, Error>;
    /// [`Memory::undo`].
    fn undo(
        &mut self,
        id: ChangeId,
        at: Millis,
        by: &Provenance<'_>,
    ) -> Result<Result<(), Refused>, Error>;
    /// [`Memory::note_uses`].
    fn note_uses(&mut self, groups: Vec<Vec<String>>, at: Millis);
    /// The uses noted and not logged yet, which reads count at once.
    fn unlogged(&self) -> &Pending;
    /// The file the user names at `path`, read by the host ([`Log::read_named`]).
    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError>;
}

impl<L: Log> Store for Memory<L> {
    fn graph(&self) -> &Graph {
        Memory::graph(self)
    }
    fn indexes(&self) -> &Indexes {
        Memory::indexes(self)
    }
    fn change_time(&self, at: Millis) -> Millis {
        Memory::change_time(self, at)
    }
    fn commit(&mut self, change: Change, at: Millis, by: &Provenance<'_>) -> Result<(), Error> {
        Memory::commit(self, change, at, by)
    }
    fn compact(&mut self) -> Result<usize, Error> {
        Memory::compact(self)
    }
    fn forget(
        &mut self,
        change: Change,
        at: Millis,
        by: &Provenance<'_>,
        names: &[&str],
    ) -> Result<Forgotten, Error> {
        Memory::forget(self, change, at, by, names)
    }
    fn journal(&mut self, intent: Intent) -> Result<Journal<'_>, Error> {
        Memory::journal(self, intent)
    }
    fn undo(
        &mut self,
        id: ChangeId,
        at: Millis,
        by: &Provenance<'_>,
    ) -> Result<Result<(), Refused>, Error> {
        Memory::undo(self, id, at, by)
    }
    fn note_uses(&mut self, groups: Vec<Vec<String>>, at: Millis) {
        Memory::note_uses(self, groups, at);
    }
    fn unlogged(&self) -> &Pending {
        &self.uses
    }
    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError> {
        self.log_mut().read_named(path)
    }
}
