//! A memory: the graph, the log it is persisted to, and the session state of the server.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::graph::Graph;
use crate::hash::HashSet;
use crate::log::{Changes, Contents, Log, LogError};
use crate::record::{DecodeError, Record};
use crate::tools::{Catalog, Plan, writes};
use crate::{frame, jsonl, record};

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

/// The server's state for one memory: graph, log, catalog, and the MCP sessions of the
/// clients that share it (one for stdio; one per connection for network transports).
pub struct Memory<L: Log> {
    pub(crate) graph: Graph,
    pub(crate) log: L,
    pub(crate) catalog: Catalog,
    /// The sessions (clients) subscribed to `memory://knowledge-graph`.
    pub(crate) subscribers: HashSet<u32>,
    /// The session whose message is being handled.
    pub(crate) session: u32,
    /// Messages for sessions other than the one being handled, not yet taken by the host.
    pub(crate) notices: Vec<(u32, String)>,
    /// Why tools are unavailable (a memory file that could not be imported), if they are.
    pub(crate) unavailable: Option<String>,
    /// Bytes of record payload in the log: what replay reads.
    log_bytes: u64,
    /// Log size at which to look again whether most of it is dead (see [`Memory::commit`]).
    compact_at: u64,
}

/// Logs smaller than this (payload bytes) are never compacted automatically.
pub const AUTO_COMPACT_MIN_BYTES: u64 = 1 << 20;

/// Payload bytes of these records.
fn payload_bytes(records: &[Vec<u8>]) -> u64 {
    records.iter().map(|r| r.len() as u64).sum()
}

impl<L: Log> Memory<L> {
    /// Replays the log into a memory. A log holding a reference JSONL file is converted to
    /// records (the host keeps the original); one that cannot be converted is left untouched
    /// and every tool call then fails with the reason. Returns warnings for the user.
    pub fn open(mut log: L) -> Result<(Self, Vec<String>), OpenError> {
        let mut graph = Graph::default();
        let mut warnings = Vec::new();
        let mut unavailable = None;
        let mut log_bytes = 0;
        match log.replay().map_err(OpenError::Log)? {
            Contents::Records(records) => {
                graph = replay(&records)?;
                log_bytes = payload_bytes(&records);
            }
            Contents::Foreign(bytes) => match convert(&mut log, &bytes) {
                Ok(converted) => {
                    graph = replay(&converted.records)?;
                    log_bytes = payload_bytes(&converted.records);
                    warnings.extend(converted.warnings);
                    warnings.push(format!(
                        "converted the reference JSONL memory file ({} entities, {} relations) to the mcp-memory log format",
                        graph.entity_count(),
                        graph.relation_count()
                    ));
                }
                Err(reason) => {
                    let reason = format!(
                        "The memory file is not a memory log or a readable reference JSONL file ({reason}). It was left untouched; fix or move it and restart."
                    );
                    warnings.push(reason.clone());
                    unavailable = Some(reason);
                }
            },
        }
        let memory = Memory {
            graph,
            log,
            catalog: Catalog::default(),
            subscribers: HashSet::default(),
            session: 0,
            notices: Vec::new(),
            unavailable,
            log_bytes,
            compact_at: AUTO_COMPACT_MIN_BYTES.max(log_bytes),
        };
        Ok((memory, warnings))
    }

    /// Brings the graph up to date with what other writers logged since this memory last
    /// looked. Returns whether the graph may have changed. Records this version cannot read
    /// make the memory unavailable (it must not write on top of a log it does not understand).
    pub(crate) fn catch_up(&mut self) -> Result<bool, String> {
        let changes = self
            .log
            .refresh()
            .map_err(|e| format!("cannot read the memory log: {}", e.0))?;
        let result = match changes {
            Changes::Appended(records) if records.is_empty() => return Ok(false),
            // A memory that missed records cannot apply later ones; only a whole new log
            // (Replaced) makes it usable again.
            Changes::Appended(_) if self.unavailable.is_some() => return Ok(false),
            Changes::Appended(records) => records
                .iter()
                .map(|bytes| Record::decode(bytes))
                .collect::<Result<Vec<_>, _>>()
                .map(|decoded| {
                    decoded.iter().for_each(|r| self.graph.apply(r));
                    self.log_bytes += payload_bytes(&records);
                })
                .map_err(|e| e.to_string()),
            Changes::Replaced(records) => replay(&records)
                .map(|graph| {
                    self.graph = graph;
                    self.log_bytes = payload_bytes(&records);
                })
                .map_err(|e| e.to_string()),
        };
        match result {
            Ok(()) => {
                self.unavailable = None;
                Ok(true)
            }
            Err(e) => {
                let reason = format!("Another process wrote to the memory log: {e}");
                self.unavailable = Some(reason.clone());
                Err(reason)
            }
        }
    }

    /// The log underneath (a host takes a file log's lock around each message).
    pub fn log_mut(&mut self) -> &mut L {
        &mut self.log
    }

    /// The graph as it stands.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The graph in the reference's JSONL file format, after catching up with other
    /// writers; an error if the memory is unavailable (its file could not be read), so an
    /// export never passes for an empty memory.
    pub fn export_jsonl(&mut self) -> Result<Vec<u8>, String> {
        Ok(jsonl::export(self.current()?))
    }

    /// The graph as a memory log file in this crate's format, after catching up with other
    /// writers: a compacted copy (the graph's entities and relations as records, not the
    /// history that built them); an error if the memory is unavailable.
    pub fn export_log(&mut self) -> Result<Vec<u8>, String> {
        let records = record::snapshot(self.current()?);
        Ok(frame::encode_log(records.iter().map(Vec::as_slice)))
    }

    /// Rewrites the log as the records of the graph as it stands (its history, deleted
    /// strings included, leaves the log), atomically through [`Log::replace`]. Returns the
    /// number of records the log now holds; on failure the log is as it was.
    pub fn compact(&mut self) -> Result<usize, String> {
        let records = record::snapshot(self.current()?);
        self.install(&records)?;
        Ok(records.len())
    }

    /// Replaces the log with `records` (the graph's snapshot).
    fn install(&mut self, records: &[Vec<u8>]) -> Result<(), String> {
        self.log
            .replace(records)
            .map_err(|e| format!("the log was not compacted: {}", e.0))?;
        self.log_bytes = payload_bytes(records);
        self.compact_at = AUTO_COMPACT_MIN_BYTES.max(2 * self.log_bytes);
        Ok(())
    }

    /// Compacts the log if it has reached `compact_at` bytes and at least half of it is
    /// dead (deleted or superseded). Looking costs a snapshot, so after a look the next one
    /// waits until the log is twice the live size: amortized, a constant cost per byte
    /// logged. A failed compaction leaves the log as it was and is tried again later.
    fn compact_if_mostly_dead(&mut self) {
        if self.log_bytes < self.compact_at {
            return;
        }
        let records = record::snapshot(&self.graph);
        let live = payload_bytes(&records);
        if self.log_bytes < 2 * live {
            self.compact_at = AUTO_COMPACT_MIN_BYTES.max(2 * live);
        } else if self.install(&records).is_err() {
            self.compact_at = 2 * self.log_bytes;
        }
    }

    /// The graph, caught up with other writers; an error if the memory is unavailable.
    fn current(&mut self) -> Result<&Graph, String> {
        self.catch_up()?;
        match &self.unavailable {
            Some(reason) => Err(reason.clone()),
            None => Ok(&self.graph),
        }
    }

    /// Imports a memory file — a log in this crate's format or a reference JSONL file. Into
    /// an empty memory it brings the file's graph exactly (duplicates included, as opening
    /// the file would); otherwise it merges: new names become entities, known names gain the
    /// observations they lack, new relations are added. Either way the import is one record,
    /// so replay applies it whole or not at all. Returns a summary; changes nothing if the
    /// file cannot be read.
    pub fn import(&mut self, bytes: &[u8]) -> Result<String, String> {
        self.current()?;
        let (graph, notes) = imported(bytes)?;
        let mut summary = if self.graph.entity_count() + self.graph.relation_count() == 0 {
            let (entities, relations) = (record::entities_of(&graph), record::relations_of(&graph));
            let mut whole = Vec::new();
            if !entities.is_empty() {
                whole.push(Record::CreateEntities(entities));
            }
            if !relations.is_empty() {
                whole.push(Record::CreateRelations(relations));
            }
            self.commit(Plan {
                record: writes::one_record(whole),
                result: String::new(),
            })
            .map_err(|e| e.to_string())?;
            format!(
                "imported {} entities and {} relations into the empty memory, as in the file",
                graph.entity_count(),
                graph.relation_count()
            )
        } else {
            let (record, [entities, observations, relations]) =
                writes::merge_graph(&self.graph, &graph);
            self.commit(Plan {
                record,
                result: String::new(),
            })
            .map_err(|e| e.to_string())?;
            format!(
                "imported {entities} new entities, {observations} new observations on existing entities, {relations} new relations"
            )
        };
        for note in notes {
            summary.push_str("; ");
            summary.push_str(&note);
        }
        Ok(summary)
    }

    /// Logs a plan's record, applies it, and makes it durable; then compacts the log if most
    /// of it is dead. Nothing changes if the log refuses the record.
    pub(crate) fn commit(&mut self, plan: Plan) -> Result<String, CommitError> {
        if let Some(bytes) = &plan.record {
            // Decoded before the append: a record this version cannot read is never logged.
            let record = Record::decode(bytes).map_err(|e| CommitError::NotSaved(e.to_string()))?;
            self.log
                .append(bytes)
                .map_err(|e| CommitError::NotSaved(e.0))?;
            self.graph.apply(&record);
            self.log_bytes += bytes.len() as u64;
            self.log.sync().map_err(|e| CommitError::NotDurable(e.0))?;
            self.compact_if_mostly_dead();
        }
        Ok(plan.result)
    }
}

/// Why a change was not acknowledged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CommitError {
    /// The log refused the record: nothing changed.
    NotSaved(String),
    /// The record was written and applied, but making it durable failed.
    NotDurable(String),
}

impl fmt::Display for CommitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommitError::NotSaved(e) => write!(f, "The change was not saved: {e}"),
            CommitError::NotDurable(e) => {
                write!(f, "The change was written but may not be durable: {e}")
            }
        }
    }
}

/// The graph these records build.
fn replay(records: &[Vec<u8>]) -> Result<Graph, OpenError> {
    let mut graph = Graph::default();
    for (index, bytes) in records.iter().enumerate() {
        let record = Record::decode(bytes).map_err(|error| OpenError::Record { index, error })?;
        graph.apply(&record);
    }
    Ok(graph)
}

/// The graph in a memory file (log or reference JSONL), and notes for the user on what was
/// repaired or dropped reading it.
fn imported(bytes: &[u8]) -> Result<(Graph, Vec<String>), String> {
    if !frame::is_log(bytes) {
        let parsed = jsonl::parse(bytes).map_err(|e| e.to_string())?;
        let graph = replay(&parsed.records()).map_err(|e| e.to_string())?;
        return Ok((graph, parsed.warnings));
    }
    let scan = frame::scan(bytes).map_err(|e| e.to_string())?;
    let records: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
    let graph = replay(&records).map_err(|e| e.to_string())?;
    let notes = scan.torn.map(|torn| format!("the imported log's {torn}"));
    Ok((graph, notes.into_iter().collect()))
}

struct Converted {
    records: Vec<Vec<u8>>,
    warnings: Vec<String>,
}

/// Converts a reference JSONL file into records and swaps them in for it.
fn convert<L: Log>(log: &mut L, bytes: &[u8]) -> Result<Converted, String> {
    let parsed = jsonl::parse(bytes).map_err(|e| e.to_string())?;
    let records = parsed.records();
    log.replace(&records)
        .map_err(|e| format!("could not convert it: {}", e.0))?;
    Ok(Converted {
        records,
        warnings: parsed.warnings,
    })
}
