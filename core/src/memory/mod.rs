//! A memory: the graph, its indexes, and the log it is persisted to. It replays the log,
//! catches up with other writers, commits changes (append → apply → sync), compacts the log,
//! and exports and imports memory files. What clients say to it is `mcp`'s business.

pub mod history;
pub mod merge;
mod store;
mod usage;

pub use store::Store;
pub use usage::{Pending, USES_EVERY};

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::embed::Table;
use crate::graph::{Graph, Observer, Replayed};
use crate::index::saved::{self, Checkpoint, Saved, touched::Touched};
use crate::index::{Indexes, TableSource, WARM_BYTES};
use crate::log::{self, Changes, Contents, Foreign, Intent, Log, LogError, SideFile};
use crate::model::{Millis, Provenance};
use crate::record::{Agent, DecodeError, Op, Record, Stamp, is_checkpoint};
use crate::{frame, jsonl, seedlog, sidefiles};
use history::{ChangeId, Compaction, Journal, Refused};

/// Why a memory could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// The host could not read the log.
    Log(LogError),
    /// A record in the log is not one this version knows.
    Record {
        /// 0-based position of the record in the log.
        index: usize,
        /// What could not be decoded.
        error: DecodeError,
    },
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Log(e) => write!(f, "cannot read the memory log: {}", e.0),
            OpenError::Record { index, error } => write!(f, "record {index}: {error}"),
        }
    }
}

/// Why a memory operation failed. Its `Display` is the message for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The host's log failed; `op` says which operation, and so what became of the change.
    Log {
        /// The operation that failed.
        op: LogOp,
        /// The host's words for it.
        error: LogError,
    },
    /// The memory cannot be used (its file could not be read or converted, or another
    /// process wrote records this version cannot read); the reason, for the user.
    Unavailable(String),
    /// A memory file to import could not be read; nothing was imported.
    ImportRefused(String),
}

/// A log operation, as [`Error::Log`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogOp {
    /// Catching up with other writers: nothing was read, nothing changed.
    Refresh,
    /// Appending a change: nothing was saved.
    Append,
    /// Making a change durable: it was written and applied, but may not survive a crash.
    Sync,
    /// Replacing the log by its compacted form: the log is as it was.
    Replace,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Log { op, error } => match op {
                LogOp::Refresh => write!(f, "cannot read the memory log: {}", error.0),
                LogOp::Append => write!(f, "The change was not saved: {}", error.0),
                LogOp::Sync => write!(
                    f,
                    "The change was written but may not be durable: {}",
                    error.0
                ),
                LogOp::Replace => write!(f, "the log was not compacted: {}", error.0),
            },
            Error::Unavailable(reason) | Error::ImportRefused(reason) => f.write_str(reason),
        }
    }
}

impl Error {
    fn log(op: LogOp) -> impl FnOnce(LogError) -> Error {
        move |error| Error::Log { op, error }
    }
}

/// A change to log and apply: ops, encoded as an unstamped record, or nothing (a no-op).
/// Whatever its parts, a change is one record, so replay applies it whole or not at all;
/// [`Memory::commit`] stamps it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Change(Option<Vec<u8>>);

impl Change {
    /// Nothing to log.
    pub const NONE: Change = Change(None);

    /// The change made of these ops, in order (none if there are none).
    pub fn of(ops: Vec<Op<'_>>) -> Change {
        Change((!ops.is_empty()).then(|| Record { stamp: None, ops }.encode()))
    }

    /// The change of one op, or none if `items` is empty.
    pub fn one<'a, T>(items: Vec<T>, op: fn(Vec<T>) -> Op<'a>) -> Change {
        if items.is_empty() {
            Change::NONE
        } else {
            Change::of(vec![op(items)])
        }
    }

    /// Whether nothing changes.
    pub fn is_none(&self) -> bool {
        self.0.is_none()
    }
}

/// What [`Memory::forget`] left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forgotten {
    /// Records the compacted log holds.
    pub records: usize,
    /// Names whose bytes still occur in the log, with how many records hold them.
    pub remaining: Vec<(String, usize)>,
}

/// One memory: its graph with indexes, the log it is persisted to, and whether it can be
/// used.
///
/// A change is one record: logged, applied, then made durable, so replay rebuilds exactly
/// what was acknowledged.
///
/// ```
/// use mcp_memory_core::memory::{Change, Memory};
/// use mcp_memory_core::model::{Entity, Provenance};
/// use mcp_memory_core::record::Op;
/// use mcp_memory_core::testing::MemLog;
///
/// let log = MemLog::new();
/// let (mut memory, _warnings) = Memory::open(log.clone()).expect("an empty log opens");
/// let ada = Entity { name: "Ada", entity_type: "person", observations: vec!["wrote programs"] };
/// let now = 1_700_000_000_000; // the host's clock, in milliseconds
/// let by = Provenance { client: "example", ..Provenance::default() };
/// memory.commit(Change::of(vec![Op::CreateEntities(vec![ada])]), now, &by).expect("logged");
/// assert_eq!(log.len(), 1);
///
/// // A restart replays the log into the same graph.
/// let (mut again, _) = Memory::open(log.reopened()).expect("the log opens");
/// let (_, entity) = again.graph().entities().next().expect("one entity");
/// assert_eq!(entity.created, now, "with the time it was made");
/// let jsonl = again.export_jsonl().expect("available");
/// assert_eq!(
///     String::from_utf8(jsonl).unwrap(),
///     r#"{"type":"entity","name":"Ada","entityType":"person","observations":["wrote programs"]}"#
/// );
/// ```
pub struct Memory<L: Log> {
    graph: Graph,
    indexes: Indexes,
    log: L,
    /// Why the memory cannot be used (a memory file that could not be imported), if so.
    unavailable: Option<String>,
    /// Bytes of record payload in the log: what replay reads.
    log_bytes: u64,
    /// Log size at which to look again whether most of it is dead (see [`Memory::commit`]).
    compact_at: u64,
    /// What a compacted log would hold (payload bytes) as of the last look, plus the changes
    /// and checkpoint growth logged since: changes younger than the history kept stay in a
    /// compacted log, so while it is fresh they need no look to count as live.
    live_estimate: u64,
    /// The latest change's time when `live_estimate` was last measured.
    estimated_at: Millis,
    /// Bytes of changes logged after the last checkpoint: what replay applies one by one.
    tail_bytes: u64,
    /// Bytes of the last checkpoint (`0`: none).
    checkpoint_bytes: u64,
    /// How much history compaction keeps (milliseconds before the latest change).
    history: Millis,
    /// Uses noted and not logged yet.
    uses: usage::Pending,
    /// Whether the log holds no change, only a state (compacted with no history kept,
    /// converted): its latest time may be a folded change's, whose id (`<at>-0`) a new change
    /// of that millisecond would take; so the next change is stamped a millisecond later, and
    /// an undo of the folded one can never undo another ([`Memory::change_time`]).
    folded: bool,
    /// The log's last checkpoint, which saved indexes restate ([`crate::index::saved`]).
    checkpoint: Option<Checkpoint>,
}

/// Days of history compaction keeps by default.
pub const DEFAULT_HISTORY_DAYS: u32 = 30;

pub use crate::time::DAY_MS;

/// Logs smaller than this (payload bytes) are never compacted automatically.
pub const AUTO_COMPACT_MIN_BYTES: u64 = 1 << 20;

/// Changes after the last checkpoint are never fewer bytes than this when a new one is
/// written (small memories replay fast without one).
pub const CHECKPOINT_MIN_TAIL: u64 = 256 << 10;

/// Changes since the last checkpoint that make closing a memory write one.
pub const CLOSE_MIN_TAIL: u64 = 64 << 10;

/// A memory whose checkpoint and changes after it hold fewer bytes than this builds its
/// indexes about as fast as it would read them: closing it saves none it lacks.
pub const SAVE_MIN_BYTES: u64 = 256 << 10;

/// A log's state as replay leaves it (what [`Memory::open`] and [`Memory::rescope`] read).
#[derive(Default)]
struct Loaded {
    graph: Graph,
    unavailable: Option<String>,
    log_bytes: u64,
    checkpoint_bytes: u64,
    tail_bytes: u64,
    folded: bool,
    /// The checkpoint the graph was loaded from, if any, for the indexes saved with it.
    start: Option<Start>,
}

/// The checkpoint a graph was loaded from, and what changed since.
struct Start {
    checkpoint: Checkpoint,
    entities: u32,
    touched: Touched,
}

/// The graph these records build, from their last checkpoint (when it can be read) and
/// the changes after it, which are noted for the indexes saved with it.
fn replay_from_checkpoint(
    records: &[Vec<u8>],
    warnings: &mut Vec<String>,
) -> Result<(Graph, Option<Start>), OpenError> {
    let mut touched = Touched::default();
    let replayed = replay_observed(records, warnings, &mut touched)?;
    let start = started(records, replayed.checkpoint, touched);
    Ok((replayed.graph, start))
}

/// Where replay of `records` started: the checkpoint at `at` of `entities` entities, with
/// what changed since.
fn started(records: &[Vec<u8>], at: Option<(usize, u32)>, touched: Touched) -> Option<Start> {
    at.map(|(at, entities)| Start {
        checkpoint: Checkpoint::of(&records[at]),
        entities,
        touched,
    })
}

/// Whether any of these records is a change ([`is_change`]).
fn holds_a_change(records: &[Vec<u8>]) -> bool {
    records.iter().any(|r| is_change(r))
}

/// Whether a record is a change: stamped, one history lists.
fn is_change(record: &[u8]) -> bool {
    !is_checkpoint(record) && matches!(Record::stamp_of(record), Ok(Some(_)))
}

/// Payload bytes of these records.
fn payload_bytes(records: &[Vec<u8>]) -> u64 {
    records.iter().map(|r| r.len() as u64).sum()
}

/// Bytes of the last checkpoint among these entries and of the changes after it.
fn checkpoint_and_tail(records: &[Vec<u8>]) -> (u64, u64) {
    match records.iter().rposition(|r| is_checkpoint(r)) {
        Some(at) => (records[at].len() as u64, payload_bytes(&records[at + 1..])),
        None => (0, payload_bytes(records)),
    }
}

impl<L: Log> Memory<L> {
    /// Replays the log into a memory. A log holding a reference JSONL file is converted to
    /// records (the host keeps the original); one that cannot be converted is left untouched
    /// and every tool call then fails with the reason. Returns warnings for the user.
    pub fn open(mut log: L) -> Result<(Self, Vec<String>), OpenError> {
        let (loaded, warnings) = Self::load(&mut log)?;
        let mut memory = Memory {
            graph: Graph::default(),
            indexes: Indexes::default(),
            log,
            unavailable: None,
            log_bytes: 0,
            compact_at: 0,
            live_estimate: 0,
            estimated_at: 0,
            tail_bytes: 0,
            checkpoint_bytes: 0,
            history: DEFAULT_HISTORY_DAYS as Millis * DAY_MS,
            uses: usage::Pending::default(),
            folded: false,
            checkpoint: None,
        };
        memory.take_state(loaded);
        Ok((memory, warnings))
    }

    /// Serves, in place of this memory, the one of workspace root `root` (a `file://` URI):
    /// what is pending here is logged here first ([`Memory::close`]), then the log turns to
    /// the root's memory ([`Log::rescope`]) and it is read as [`Memory::open`] reads one. The
    /// history kept stays as set. `Err`: the root's memory cannot be opened or read; then no
    /// memory is served (every call fails with the reason) rather than the wrong one.
    pub fn rescope(&mut self, root: &str) -> Result<Vec<String>, String> {
        self.close();
        let loaded = match self.log.rescope(root) {
            Ok(()) => Self::load(&mut self.log).map_err(|e| e.to_string()),
            Err(e) => Err(e.0),
        };
        match loaded {
            Ok((loaded, warnings)) => {
                self.take_state(loaded);
                Ok(warnings)
            }
            Err(e) => {
                let reason = format!("the memory of workspace {root} cannot be opened: {e}");
                self.take_state(Loaded {
                    unavailable: Some(reason.clone()),
                    ..Loaded::default()
                });
                Err(reason)
            }
        }
    }

    /// Takes a log's state as read by [`Memory::load`]: indexes to read from those saved
    /// with its checkpoint or to build anew (the embedding table kept), no pending uses.
    fn take_state(&mut self, loaded: Loaded) {
        let Loaded {
            graph,
            unavailable,
            log_bytes,
            checkpoint_bytes,
            tail_bytes,
            folded,
            start,
        } = loaded;
        // The checkpoint and the changes after it bound the live bytes: the first look is
        // due once the log holds twice that (at once if what the checkpoint superseded is
        // most of it), not at the first change (a look costs a snapshot: 0.2 s at 40K).
        let live_bound = checkpoint_bytes + tail_bytes;
        self.estimated_at = graph.last_at();
        self.graph = graph;
        self.start_indexes(start);
        self.unavailable = unavailable;
        self.log_bytes = log_bytes;
        self.compact_at = AUTO_COMPACT_MIN_BYTES.max(2 * live_bound);
        self.live_estimate = live_bound;
        self.tail_bytes = tail_bytes;
        self.checkpoint_bytes = checkpoint_bytes;
        self.uses = usage::Pending::default();
        self.folded = folded;
    }

    /// Drops the indexes of the graph that was; those of the graph just loaded from `start`
    /// are read from the ones saved with its checkpoint, if the log keeps such.
    fn start_indexes(&mut self, start: Option<Start>) {
        self.indexes.reset();
        self.checkpoint = start.as_ref().map(|s| s.checkpoint);
        if let Some(start) = start
            && let Some(reader) = self.log.index_reader()
        {
            let saved = Saved::new(reader, start.checkpoint, start.entities, start.touched);
            self.indexes.expect_saved(saved);
        }
    }

    /// Replays `log` (see [`Memory::open`]).
    fn load(log: &mut L) -> Result<(Loaded, Vec<String>), OpenError> {
        let mut warnings = Vec::new();
        let loaded = match log.replay().map_err(OpenError::Log)? {
            Contents::Records(records) => Self::loaded(log, 0, records, &mut warnings)?,
            Contents::FromCheckpoint {
                skipped_bytes,
                entries,
            } => Self::loaded(log, skipped_bytes, entries, &mut warnings)?,
            Contents::Foreign(file) => match convert(log, &file) {
                Ok(converted) => {
                    let records = converted.records;
                    let graph = replay(&records, &mut warnings)?;
                    warnings.extend(converted.warnings);
                    warnings.push(format!(
                        "converted {} ({} entities, {} relations) to the mcp-memory log format",
                        converted.what,
                        graph.entity_count(),
                        graph.relation_count()
                    ));
                    let (checkpoint_bytes, tail_bytes) = checkpoint_and_tail(&records);
                    Loaded {
                        graph,
                        log_bytes: payload_bytes(&records),
                        checkpoint_bytes,
                        tail_bytes,
                        folded: !holds_a_change(&records),
                        ..Loaded::default()
                    }
                }
                Err(reason) => {
                    let reason = format!(
                        "The memory file is not a memory log or a memory file this version converts (a reference or Memory MCP JSONL file, a Rust mcp-memory 1.x/2.0 log): {reason}. It was left untouched; fix or move it and restart."
                    );
                    warnings.push(reason.clone());
                    Loaded {
                        unavailable: Some(reason),
                        ..Loaded::default()
                    }
                }
            },
        };
        Ok((loaded, warnings))
    }

    /// The state of a log whose entries from its last checkpoint on are `entries`, after
    /// `skipped_bytes` of entries left out (`0`: `entries` are all of them).
    fn loaded(
        log: &mut L,
        skipped_bytes: u64,
        entries: Vec<Vec<u8>>,
        warnings: &mut Vec<String>,
    ) -> Result<Loaded, OpenError> {
        let (graph, start, records, skipped_bytes) = if skipped_bytes == 0 {
            let (graph, start) = replay_from_checkpoint(&entries, warnings)?;
            (graph, start, entries, 0)
        } else {
            let mut touched = Touched::default();
            match Graph::replay_observed(&entries, &mut touched) {
                Ok(replayed) if replayed.unread_checkpoint.is_none() => {
                    let start = started(&entries, replayed.checkpoint, touched);
                    (replayed.graph, start, entries, skipped_bytes)
                }
                // The checkpoint cannot be read: the entries before it build the state. Said
                // here, once: `entries` may leave the checkpoint out, so replaying them may
                // not meet it.
                failed => {
                    let records = log::all_entries(log).map_err(OpenError::Log)?;
                    let graph = replay(&records, &mut Vec::new())?;
                    if let Err((0, error)) = failed {
                        warnings.push(unread_checkpoint("the last checkpoint", &error));
                    }
                    (graph, None, records, 0)
                }
            }
        };
        let (checkpoint_bytes, tail_bytes) = checkpoint_and_tail(&records);
        Ok(Loaded {
            graph,
            unavailable: None,
            log_bytes: skipped_bytes + payload_bytes(&records),
            checkpoint_bytes,
            tail_bytes,
            folded: skipped_bytes == 0 && !holds_a_change(&records),
            start,
        })
    }

    /// Brings the graph up to date with what other writers logged since this memory last
    /// looked. Returns whether the graph may have changed. Records this version cannot read
    /// make the memory unavailable (it must not write on top of a log it does not understand).
    /// `intent` says whether the request goes on to change the memory ([`Log::refresh`]).
    pub fn catch_up(&mut self, intent: Intent) -> Result<bool, Error> {
        let changes = self
            .log
            .refresh(intent)
            .map_err(Error::log(LogOp::Refresh))?;
        let result = match changes {
            Changes::Appended(records) if records.is_empty() => return Ok(false),
            // A memory that missed records cannot apply later ones; only a whole new log
            // (Replaced) makes it usable again.
            Changes::Appended(_) if self.unavailable.is_some() => return Ok(false),
            // Appended to an empty log, the records are the whole log, read as a restart
            // reads it: a first entry that is a checkpoint is the state.
            Changes::Appended(records) if self.log_bytes == 0 => self.reread(0, records),
            // A checkpoint restates what this memory has applied: it is skipped.
            Changes::Appended(records) => records
                .iter()
                .filter(|bytes| !is_checkpoint(bytes))
                .map(|bytes| Record::decode(bytes))
                .collect::<Result<Vec<_>, _>>()
                .map(|decoded| {
                    let (graph, indexes) = (&mut self.graph, &mut self.indexes);
                    decoded.iter().for_each(|r| graph.apply(r, indexes));
                    for bytes in &records {
                        self.count_logged(bytes);
                    }
                })
                .map_err(|e| e.to_string()),
            Changes::Replaced {
                skipped_bytes,
                entries,
            } => self.reread(skipped_bytes, entries),
        };
        match result {
            Ok(()) => {
                self.unavailable = None;
                Ok(true)
            }
            Err(e) => {
                let reason = format!("Another process wrote to the memory log: {e}");
                self.unavailable = Some(reason.clone());
                Err(Error::Unavailable(reason))
            }
        }
    }

    /// Rebuilds the graph from the log's entries from its last checkpoint on, `entries`,
    /// after `skipped_bytes` of entries left out (`0`: the whole log).
    fn reread(&mut self, skipped_bytes: u64, entries: Vec<Vec<u8>>) -> Result<(), String> {
        let loaded = Self::loaded(&mut self.log, skipped_bytes, entries, &mut Vec::new())
            .map_err(|e| e.to_string())?;
        self.graph = loaded.graph;
        self.start_indexes(loaded.start);
        let (checkpoint, tail) = (loaded.checkpoint_bytes, loaded.tail_bytes);
        self.measured_parts(loaded.log_bytes, checkpoint, tail, loaded.folded);
        Ok(())
    }

    /// The log underneath (a host takes a file log's lock around each message).
    pub fn log_mut(&mut self) -> &mut L {
        &mut self.log
    }

    /// The graph as it stands.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The graph's search indexes.
    pub fn indexes(&self) -> &Indexes {
        &self.indexes
    }

    /// Builds a slice of a search index no search has needed yet ([`Indexes::warm`], a few
    /// milliseconds); `false`, having done nothing, once all are built. Hosts call it while
    /// no message waits.
    pub fn warm(&mut self) -> bool {
        self.indexes.warm(&self.graph, WARM_BYTES)
    }

    /// Makes semantic and hybrid search use this embedding table.
    pub fn set_embedding_table(&mut self, table: Table) {
        self.indexes.set_table(table);
    }

    /// Makes semantic and hybrid search read their embedding table from `source` (the
    /// host) when a search first needs it.
    pub fn set_embedding_source(&mut self, source: TableSource) {
        self.indexes.set_table_source(source);
    }

    /// Why the memory cannot be used, if it cannot (every tool call then fails with this).
    pub fn unavailable(&self) -> Option<&str> {
        self.unavailable.as_deref()
    }

    /// The graph in the reference's JSONL file format, after catching up with other
    /// writers; an error if the memory is unavailable (its file could not be read), so an
    /// export never passes for an empty memory.
    pub fn export_jsonl(&mut self) -> Result<Vec<u8>, Error> {
        Ok(jsonl::export(self.current(Intent::Read)?))
    }

    /// The graph in the TypeScript seed's JSONL format (the reference's lines with its
    /// `createdAt`, `lastModified`, `tags`, `importance`, `parentId`), after catching up; an
    /// error if the memory is unavailable.
    pub fn export_memory_mcp(&mut self) -> Result<Vec<u8>, Error> {
        Ok(jsonl::export_memory_mcp(self.current(Intent::Read)?))
    }

    /// The graph as a memory log file in this crate's format, after catching up with other
    /// writers: a compacted copy (the graph's entities and relations as records, not the
    /// history that built them); an error if the memory is unavailable.
    pub fn export_log(&mut self) -> Result<Vec<u8>, Error> {
        let records = self.current(Intent::Read)?.snapshot();
        Ok(frame::encode_log(records.iter().map(Vec::as_slice)))
    }

    /// Sets how much history compaction keeps: the changes of the last `keep` milliseconds
    /// before the latest one (`0`: none, the log becomes the graph as it stands).
    pub fn set_history(&mut self, keep: Millis) {
        self.history = keep;
    }

    /// The log's entries as they stand, after catching up with other writers (for a
    /// request that goes on to do `intent`), read forward: the history tools' source; an
    /// error if the log cannot be read or the memory is unavailable.
    pub fn journal(&mut self, intent: Intent) -> Result<Journal<'_>, Error> {
        self.current(intent)?;
        Ok(Journal::new(&mut self.log, self.graph.agents()))
    }

    /// Rewrites the log as the graph as it stood at the history horizon
    /// ([`Memory::set_history`]) followed by the changes made since (older history and
    /// deleted strings leave the log), atomically through [`Log::replace_piece`]. Returns
    /// the number of records the log now holds; on failure the log is as it was.
    pub fn compact(&mut self) -> Result<usize, Error> {
        let compaction = self.compaction()?;
        self.install_compaction(&compaction)?;
        Ok(compaction.records())
    }

    /// What [`Memory::compact`] writes ([`Journal::compaction`]: with no history kept, the
    /// graph's checkpoint, and the log is not read).
    fn compaction(&mut self) -> Result<Compaction, Error> {
        self.current(Intent::Write)?;
        Journal::new(&mut self.log, self.graph.agents()).compaction(self.history, &self.graph)
    }

    /// Writes `compaction` as the log, and saves the indexes with its last checkpoint if
    /// that restates the graph as it stands (the log's last record).
    fn install_compaction(&mut self, compaction: &Compaction) -> Result<(), Error> {
        Journal::new(&mut self.log, self.graph.agents()).write(compaction)?;
        let (checkpoint, tail) = compaction.checkpoint_and_tail();
        let checkpoint_bytes = checkpoint.map_or(0, |c| c.len() as u64);
        let folded = !compaction.holds_a_change();
        self.measured_parts(compaction.bytes(), checkpoint_bytes, tail, folded);
        self.checkpoint = checkpoint.map(Checkpoint::of);
        self.save_indexes(compaction.ends_with_checkpoint());
        Ok(())
    }

    /// Undoes change `id` ([`Journal::undo`]): logs, at `at` by `by`, the change that puts
    /// back what it changed. The inner `Err` says why it was refused (nothing changed).
    pub fn undo(
        &mut self,
        id: ChangeId,
        at: Millis,
        by: &Provenance<'_>,
    ) -> Result<Result<(), Refused>, Error> {
        self.current(Intent::Write)?;
        let undone = Journal::new(&mut self.log, self.graph.agents()).undo(id, &self.graph)?;
        match undone {
            Ok(bytes) => self.commit(Change(Some(bytes)), at, by).map(Ok),
            Err(refused) => Ok(Err(refused)),
        }
    }

    /// Forgets entities now: logs `change` (an [`Op::Forget`]), then compacts the log to
    /// the graph as it stands (no history kept), so the names' bytes leave the file; returns how many records the log holds and, for each
    /// of `names` whose bytes still occur in it (in another entity's text), in how many
    /// records.
    pub fn forget(
        &mut self,
        change: Change,
        at: Millis,
        by: &Provenance<'_>,
        names: &[&str],
    ) -> Result<Forgotten, Error> {
        self.commit(change, at, by)?;
        let records = vec![self.current(Intent::Write)?.checkpoint()];
        self.install(&records)?;
        self.save_indexes(true);
        let remaining = names
            .iter()
            .filter(|n| !n.is_empty())
            .filter_map(|&name| {
                let finder = memchr::memmem::Finder::new(name.as_bytes());
                let count = records.iter().filter(|r| finder.find(r).is_some()).count();
                (count > 0).then(|| (name.to_string(), count))
            })
            .collect();
        Ok(Forgotten {
            records: records.len(),
            remaining,
        })
    }

    /// Takes a log file whole as the log of this memory, which has logged nothing: its
    /// graph, history and provenance are the file's. Returns a summary.
    fn adopt(&mut self, bytes: &[u8]) -> Result<String, Error> {
        let scan = frame::scan(bytes).map_err(|e| Error::ImportRefused(e.to_string()))?;
        let records: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
        let mut notes = Vec::new();
        let graph =
            replay(&records, &mut notes).map_err(|e| Error::ImportRefused(e.to_string()))?;
        notes.extend(scan.torn.map(|torn| format!("the imported log's {torn}")));
        self.install(&records)?;
        let mut summary = format!(
            "copied the log's {} records into the empty memory: {} entities and {} relations, with their history",
            records.len(),
            graph.entity_count(),
            graph.relation_count()
        );
        self.graph = graph;
        self.indexes.reset();
        for note in notes {
            summary.push_str("; ");
            summary.push_str(&note);
        }
        Ok(summary)
    }

    /// Replaces the log with `records` (the graph's snapshot).
    fn install(&mut self, records: &[Vec<u8>]) -> Result<(), Error> {
        self.log
            .replace(records)
            .map_err(Error::log(LogOp::Replace))?;
        self.measured(records);
        let last = records.iter().rev().find(|r| is_checkpoint(r));
        self.checkpoint = last.map(|r| Checkpoint::of(r));
        Ok(())
    }

    /// Saves the built indexes (reading first those saved ones still to read) with the
    /// log's last checkpoint, just written, if `current`: if it restates the graph as it
    /// stands. Otherwise, or with none built, removes the saved ones (they restate an older
    /// checkpoint). A failure is let go: saved indexes are a cache. A log that keeps none
    /// (it gives no reader) is not asked to.
    fn save_indexes(&mut self, current: bool) {
        if self.log.index_reader().is_none() {
            return; // a log that keeps none
        }
        let Some(checkpoint) = self.checkpoint.filter(|_| current) else {
            let _ = self.log.save_indexes(0, &[], true);
            return;
        };
        self.indexes.read_saved_now(&self.graph);
        let (indexes, graph, log) = (&self.indexes, &self.graph, &mut self.log);
        let mut sink = |at, piece: &[u8], done| log.save_indexes(at, piece, done);
        let _ = indexes.save(graph, checkpoint, &mut sink);
    }

    /// Makes sure, as the memory closes, that the next start reads its indexes instead of
    /// building them: when the memory is large enough for that to matter and an index is
    /// built that is not saved with the log's last checkpoint, the built ones are saved,
    /// with a new checkpoint if changes came after that one.
    fn keep_indexes(&mut self) {
        let built = self.indexes.built();
        if self.checkpoint_bytes + self.tail_bytes < SAVE_MIN_BYTES || built == [false; 3] {
            return;
        }
        let saved = match (self.checkpoint, self.log.index_reader()) {
            (_, None) => return,
            (Some(checkpoint), Some(mut read)) => saved::sections(&mut read, checkpoint),
            (None, Some(_)) => [false; 3],
        };
        if built
            .iter()
            .zip(saved)
            .all(|(&built, saved)| !built || saved)
        {
            return;
        }
        if self.tail_bytes == 0 && self.checkpoint.is_some() {
            self.save_indexes(true);
        } else if self.append_checkpoint() {
            let _ = self.log.sync();
        }
    }

    /// Takes `records`, the whole log just read or written, as the log's measure: all of
    /// it live (a log just compacted, or another writer's), the next look at twice its size.
    fn measured(&mut self, records: &[Vec<u8>]) {
        let (checkpoint_bytes, tail_bytes) = checkpoint_and_tail(records);
        let folded = !holds_a_change(records);
        self.measured_parts(payload_bytes(records), checkpoint_bytes, tail_bytes, folded);
    }

    /// [`Memory::measured`] of a log of `log_bytes` whose last checkpoint holds
    /// `checkpoint_bytes` and the changes after it `tail_bytes`; `folded`: it holds no
    /// change.
    fn measured_parts(
        &mut self,
        log_bytes: u64,
        checkpoint_bytes: u64,
        tail_bytes: u64,
        folded: bool,
    ) {
        self.log_bytes = log_bytes;
        self.compact_at = AUTO_COMPACT_MIN_BYTES.max(2 * log_bytes);
        (self.live_estimate, self.estimated_at) = (log_bytes, self.graph.last_at());
        (self.checkpoint_bytes, self.tail_bytes) = (checkpoint_bytes, tail_bytes);
        self.folded = folded;
    }

    /// Counts an entry appended to the log: its bytes to the log's; a change adds to the
    /// tail and, kept in a compacted log while it is within the history, to the live
    /// estimate; a checkpoint starts a new tail and supersedes the last (only its growth
    /// is live).
    fn count_logged(&mut self, bytes: &[u8]) {
        let len = bytes.len() as u64;
        self.log_bytes += len;
        if is_checkpoint(bytes) {
            self.live_estimate += len.saturating_sub(self.checkpoint_bytes);
            (self.checkpoint_bytes, self.tail_bytes) = (len, 0);
            self.checkpoint = Some(Checkpoint::of(bytes));
        } else {
            self.live_estimate += len;
            self.tail_bytes += len;
            self.folded = self.folded && !is_change(bytes);
        }
    }

    /// Compacts the log if it has reached `compact_at` bytes and at least half of it is
    /// dead (deleted, superseded, or history older than the horizon). Looking costs a snapshot, so after a look the next one
    /// waits until the log is twice the live size: amortized, a constant cost per byte
    /// logged. A failed compaction leaves the log as it was and is tried again later.
    fn compact_if_mostly_dead(&mut self) {
        if self.log_bytes < self.compact_at || self.live_by_estimate() {
            return;
        }
        let Ok(compaction) = self.compaction() else {
            self.compact_at = 2 * self.log_bytes;
            return;
        };
        let live = compaction.bytes();
        if self.log_bytes < 2 * live {
            self.compact_at = AUTO_COMPACT_MIN_BYTES.max(2 * live);
            (self.live_estimate, self.estimated_at) = (live, self.graph.last_at());
        } else if self.install_compaction(&compaction).is_err() {
            self.compact_at = 2 * self.log_bytes;
        }
    }

    /// The graph, caught up with other writers for a request that goes on to do `intent`;
    /// an error if the memory is unavailable.
    fn current(&mut self, intent: Intent) -> Result<&Graph, Error> {
        self.catch_up(intent)?;
        match &self.unavailable {
            Some(reason) => Err(Error::Unavailable(reason.clone())),
            None => Ok(&self.graph),
        }
    }

    /// Imports a memory file — a log in this crate's format or a reference JSONL file. A
    /// memory that has logged nothing takes a log file whole (its history too: a move between
    /// stores); into an empty memory a file brings its graph exactly (duplicates included, as
    /// opening the file would); otherwise it merges: new names become entities, known names gain the
    /// observations they lack, new relations are added. Either way the import is one record,
    /// so replay applies it whole or not at all. Returns a summary; changes nothing if the
    /// file cannot be read.
    pub fn import(
        &mut self,
        bytes: &[u8],
        at: Millis,
        by: &Provenance<'_>,
    ) -> Result<String, Error> {
        self.current(Intent::Write)?;
        if self.log_bytes == 0 && frame::is_log(bytes) {
            return self.adopt(bytes);
        }
        let (graph, notes) = imported(bytes).map_err(Error::ImportRefused)?;
        let mut summary = if self.graph.entity_count() + self.graph.relation_count() == 0 {
            let state = graph.state();
            let whole = [
                Op::PutEntities(state.entities),
                Op::PutRelations(state.relations),
                Op::PutReflections(state.reflections),
            ];
            let nonempty = |op: &Op<'_>| match op {
                Op::PutEntities(v) => !v.is_empty(),
                Op::PutRelations(v) => !v.is_empty(),
                Op::PutReflections(v) => !v.is_empty(),
                _ => true,
            };
            self.commit(
                Change::of(whole.into_iter().filter(nonempty).collect()),
                at,
                by,
            )?;
            format!(
                "imported {} entities and {} relations into the empty memory, as in the file",
                graph.entity_count(),
                graph.relation_count()
            )
        } else {
            let (change, merged) = merge::merge_graph(&self.graph, &graph);
            self.commit(change, at, by)?;
            format!(
                "imported {} new entities, {} new observations on existing entities, {} new relations",
                merged.new_entities, merged.extended, merged.new_relations
            )
        };
        for note in notes {
            summary.push_str("; ");
            summary.push_str(&note);
        }
        Ok(summary)
    }

    /// The time a change made at the host's time `at` carries: never earlier than the
    /// log's latest, and later than it when the log holds no change, only a state that may
    /// have folded changes of that millisecond (`0` stays "not known"). So a change's id
    /// (its time, and how many of the log's changes of that millisecond came before it) is
    /// never one a folded change had.
    pub fn change_time(&self, at: Millis) -> Millis {
        let last = self.graph.last_at();
        if at == 0 {
            0
        } else if self.folded && last > 0 {
            at.max(last + 1)
        } else {
            at.max(last)
        }
    }

    /// The stamp of a change made now by `by`: the table's entry for it if it has one, and
    /// the host's time, never earlier than the log's latest (`0` stays "not known").
    fn stamp<'p>(&self, at: Millis, by: &Provenance<'p>) -> Stamp<'p> {
        Stamp {
            at: self.change_time(at),
            by: match self.graph.agent_id(by) {
                Some(id) => Agent::Known(id),
                None => Agent::New(*by),
            },
        }
    }

    /// Logs a change's record, stamped with the time `at` (the host's clock) and who made
    /// it, applies it, and makes it durable; then compacts the log if most of it is dead.
    /// Nothing changes if the log refuses the record ([`LogOp::Append`]); after a failed
    /// sync ([`LogOp::Sync`]) the change is applied but may not survive a crash.
    pub fn commit(&mut self, change: Change, at: Millis, by: &Provenance<'_>) -> Result<(), Error> {
        let Some(bytes) = &change.0 else {
            return Ok(());
        };
        // Decoded before the append: a record this version cannot read is never logged.
        let mut record = Record::decode(bytes)
            .map_err(|e| LogError(e.to_string()))
            .map_err(Error::log(LogOp::Append))?;
        let stamp = self.stamp(at, by);
        let bytes = crate::record::stamped(bytes, &stamp);
        record.stamp = Some(stamp);
        self.log.append(&bytes).map_err(Error::log(LogOp::Append))?;
        // An empty memory's indexes cost nothing to build: built now, a memory loaded from
        // empty keeps them up to date (it may never be idle before its first search); the
        // vectors only once the embedding table was read.
        self.indexes.build_if_empty(&self.graph);
        self.graph.apply(&record, &mut self.indexes);
        self.count_logged(&bytes);
        self.log.sync().map_err(Error::log(LogOp::Sync))?;
        self.compact_if_mostly_dead();
        self.checkpoint_if_due();
        Ok(())
    }

    /// Whether, with history kept (and changes with times: see [`Memory::compacted`]), the
    /// live estimate shows at least half the log live without a look, which reads the whole
    /// log (a growing memory read it at every doubling: at 40K entities, 6 MiB more peak
    /// memory during a bulk load). The estimate holds while the history's horizon has moved
    /// less than an eighth of its length since it was measured: older changes fold into a
    /// checkpoint as the horizon passes them.
    fn live_by_estimate(&self) -> bool {
        let latest = self.graph.last_at();
        self.history != 0
            && latest != 0
            && latest < self.estimated_at.saturating_add(self.history / 8)
            && self.log_bytes < 2 * self.live_estimate
    }

    /// Appends a checkpoint when the changes logged since the last one have grown past its
    /// size (and [`CHECKPOINT_MIN_TAIL`]): replay then applies at most that many bytes of
    /// changes one by one, and checkpoints cost at most as many bytes as the changes logged.
    /// (At a quarter, a growing memory wrote five times the final checkpoint's bytes, and
    /// their transient buffers took a bulk load of 40K entities from 52 to 149 MiB.) A
    /// checkpoint is not a change: it is made durable with the next one (a crash before
    /// leaves the log as it was), and a failure to append it is tried again later.
    fn checkpoint_if_due(&mut self) {
        if self.tail_bytes >= CHECKPOINT_MIN_TAIL.max(self.checkpoint_bytes)
            && !self.append_checkpoint()
        {
            self.tail_bytes = 0;
        }
    }

    /// Appends a checkpoint of the graph, and saves the indexes with it; returns whether
    /// the log took it.
    fn append_checkpoint(&mut self) -> bool {
        let bytes = self.graph.checkpoint();
        let appended = self.log.append(&bytes).is_ok();
        if appended {
            self.count_logged(&bytes);
            self.save_indexes(true);
        }
        appended
    }

    /// Readies the log for the next start as the host closes the memory (its last client
    /// went away): after catching up with other writers, logs the uses not logged yet, and
    /// appends and syncs a checkpoint if the changes since the last one reach
    /// [`CLOSE_MIN_TAIL`], so the next start loads it and replays nothing. Nothing acknowledged depends on it: on failure the log is as it
    /// was, and the next start replays more.
    pub fn close(&mut self) {
        let caught_up = self.catch_up(Intent::Write).is_ok() && self.unavailable.is_none();
        // Uses are not changes anyone waits for: one that cannot be logged is let go.
        if caught_up {
            let _ = self.log_uses();
        }
        if caught_up && self.tail_bytes >= CLOSE_MIN_TAIL && self.append_checkpoint() {
            // A failed sync is the host's to remember; the checkpoint is not a change.
            let _ = self.log.sync();
        } else if caught_up {
            self.keep_indexes();
        }
    }
}

/// The graph these records build; a checkpoint that could not be read (and was replayed
/// around) is reported in `warnings`.
fn replay(records: &[Vec<u8>], warnings: &mut Vec<String>) -> Result<Graph, OpenError> {
    Ok(replay_observed(records, warnings, &mut ())?.graph)
}

/// [`replay`], telling `observer` of the changes after the checkpoint it starts from.
fn replay_observed(
    records: &[Vec<u8>],
    warnings: &mut Vec<String>,
    observer: &mut impl Observer,
) -> Result<Replayed, OpenError> {
    let replayed = Graph::replay_observed(records, observer)
        .map_err(|(index, error)| OpenError::Record { index, error })?;
    if let Some((index, error)) = &replayed.unread_checkpoint {
        warnings.push(unread_checkpoint(
            &format!("the checkpoint in record {index}"),
            error,
        ));
    }
    Ok(replayed)
}

/// The warning for a checkpoint (`which`) that could not be read and was replayed around.
fn unread_checkpoint(which: &str, error: &DecodeError) -> String {
    format!(
        "{which} could not be read ({error}); the memory was rebuilt from the changes before it"
    )
}

/// The graph in a memory file (log or reference JSONL), and notes for the user on what was
/// repaired or dropped reading it.
pub(crate) fn imported(bytes: &[u8]) -> Result<(Graph, Vec<String>), String> {
    if !frame::is_log(bytes) {
        let converted = foreign_records(bytes, &[])?;
        let graph = replay(&converted.records, &mut Vec::new()).map_err(|e| e.to_string())?;
        return Ok((graph, converted.warnings));
    }
    let scan = frame::scan(bytes).map_err(|e| e.to_string())?;
    let records: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
    let mut notes = Vec::new();
    let graph = replay(&records, &mut notes).map_err(|e| e.to_string())?;
    notes.extend(scan.torn.map(|torn| format!("the imported log's {torn}")));
    Ok((graph, notes))
}

struct Converted {
    /// What the file was, for the user.
    what: &'static str,
    records: Vec<Vec<u8>>,
    warnings: Vec<String>,
}

/// The records a memory file of another server converts to, as opening it converts it (a
/// reference or TypeScript seed JSONL file with its side files, the Rust seed's binary log),
/// or why it cannot be converted.
pub fn foreign(file: &Foreign) -> Result<Vec<Vec<u8>>, String> {
    foreign_records(&file.bytes, &file.side_files).map(|c| c.records)
}

/// Reads a memory file of another server — a reference (or TypeScript seed) JSONL file and
/// its side files, or the Rust seed's binary log — as records.
fn foreign_records(bytes: &[u8], side_files: &[SideFile]) -> Result<Converted, String> {
    if seedlog::is_seed_log(bytes) {
        let converted = seedlog::convert(bytes)?;
        return Ok(Converted {
            what: "the Rust mcp-memory 1.x/2.0 log",
            records: converted.records,
            warnings: converted.warnings,
        });
    }
    let parsed = jsonl::parse(bytes).map_err(|e| e.to_string())?;
    let sides = sidefiles::read(side_files);
    let mut records = parsed.records();
    records.extend(sides.records);
    let memory_mcp = parsed.has_meta() || !side_files.is_empty();
    let mut warnings = parsed.warnings;
    warnings.extend(sides.notes);
    Ok(Converted {
        what: if memory_mcp {
            "the Memory MCP (TypeScript) JSONL memory file, with its times, tags, importance and parents"
        } else {
            "the reference JSONL memory file"
        },
        records,
        warnings,
    })
}

/// Converts a foreign memory file into records and swaps them in for it.
fn convert<L: Log>(log: &mut L, file: &Foreign) -> Result<Converted, String> {
    let converted = foreign_records(&file.bytes, &file.side_files)?;
    log.replace(&converted.records)
        .map_err(|e| format!("could not convert it: {}", e.0))?;
    Ok(converted)
}
