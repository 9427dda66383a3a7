//! A memory: the graph, the log it is persisted to, and the session state of the server.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::graph::Graph;
use crate::log::{Changes, Contents, Log, LogError};
use crate::record::{DecodeError, Record};
use crate::tools::args::{AddArg, EntityArg, RelationArg};
use crate::tools::{Catalog, Plan, plan};
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

/// The server's state for one memory: graph, log, catalog and MCP session.
pub struct Memory<L: Log> {
    pub(crate) graph: Graph,
    pub(crate) log: L,
    pub(crate) catalog: Catalog,
    /// Whether the client subscribed to `memory://knowledge-graph`.
    pub(crate) subscribed: bool,
    /// Why tools are unavailable (a memory file that could not be imported), if they are.
    pub(crate) unavailable: Option<String>,
}

impl<L: Log> Memory<L> {
    /// Replays the log into a memory. A log holding a reference JSONL file is converted to
    /// records (the host keeps the original); one that cannot be converted is left untouched
    /// and every tool call then fails with the reason. Returns warnings for the user.
    pub fn open(mut log: L) -> Result<(Self, Vec<String>), OpenError> {
        let mut graph = Graph::default();
        let mut warnings = Vec::new();
        let mut unavailable = None;
        match log.replay().map_err(OpenError::Log)? {
            Contents::Records(records) => graph = replay(&records)?,
            Contents::Foreign(bytes) => match convert(&mut log, &bytes) {
                Ok(converted) => {
                    graph = replay(&converted.records)?;
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
            subscribed: false,
            unavailable,
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
                .map(|decoded| decoded.iter().for_each(|r| self.graph.apply(r)))
                .map_err(|e| e.to_string()),
            Changes::Replaced(records) => replay(&records)
                .map(|graph| self.graph = graph)
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
        self.log
            .replace(&records)
            .map_err(|e| format!("the log was not compacted: {}", e.0))?;
        Ok(records.len())
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
    /// observations they lack, new relations are added. Returns a summary; changes nothing
    /// if the file cannot be read.
    pub fn import(&mut self, bytes: &[u8]) -> Result<String, String> {
        self.current()?;
        let (graph, notes) = imported(bytes)?;
        let mut summary = if self.graph.entity_count() + self.graph.relation_count() == 0 {
            for record in record::snapshot(&graph) {
                self.log
                    .append(&record)
                    .map_err(|e| CommitError::NotSaved(e.0).to_string())?;
                let decoded = Record::decode(&record).map_err(|e| e.to_string())?;
                self.graph.apply(&decoded);
            }
            self.log
                .sync()
                .map_err(|e| CommitError::NotDurable(e.0).to_string())?;
            format!(
                "imported {} entities and {} relations into the empty memory, as in the file",
                graph.entity_count(),
                graph.relation_count()
            )
        } else {
            self.merge(&graph).map_err(|e| e.to_string())?
        };
        for note in notes {
            summary.push_str("; ");
            summary.push_str(&note);
        }
        Ok(summary)
    }

    /// Merges `other` into the memory (see [`Memory::import`]); returns a summary.
    fn merge(&mut self, other: &Graph) -> Result<String, CommitError> {
        let before = (self.graph.entity_count(), self.graph.relation_count());
        let entities: Vec<EntityArg<'_>> = record::entities_of(other)
            .into_iter()
            .map(|e| EntityArg {
                name: e.name,
                entity_type: e.entity_type,
                observations: e.observations,
            })
            .collect();
        self.commit(plan::create_entities(&self.graph, &entities))?;
        let additions: Vec<AddArg<'_>> = entities
            .iter()
            .map(|e| AddArg {
                entity_name: e.name,
                contents: e.observations.clone(),
            })
            .collect();
        // Every name was created above, so every addition applies.
        let add = plan::add_observations(&self.graph, &additions).map_err(CommitError::NotSaved)?;
        let added: usize = match add.record.as_deref().map(Record::decode) {
            Some(Ok(Record::AddObservations(items))) => {
                items.iter().map(|i| i.contents.len()).sum()
            }
            _ => 0,
        };
        self.commit(add)?;
        let relations: Vec<RelationArg<'_>> = record::relations_of(other)
            .into_iter()
            .map(|t| RelationArg {
                from: t.from,
                to: t.to,
                relation_type: t.relation_type,
            })
            .collect();
        self.commit(plan::create_relations(&self.graph, &relations))?;
        Ok(format!(
            "imported {} new entities, {} new observations on existing entities, {} new relations",
            self.graph.entity_count() - before.0,
            added,
            self.graph.relation_count() - before.1
        ))
    }

    /// Logs a plan's record, applies it, and makes it durable. Nothing changes if the log
    /// refuses the record.
    pub(crate) fn commit(&mut self, plan: Plan) -> Result<String, CommitError> {
        if let Some(bytes) = &plan.record {
            // Decoded before the append: a record this version cannot read is never logged.
            let record = Record::decode(bytes).map_err(|e| CommitError::NotSaved(e.to_string()))?;
            self.log
                .append(bytes)
                .map_err(|e| CommitError::NotSaved(e.0))?;
            self.graph.apply(&record);
            self.log.sync().map_err(|e| CommitError::NotDurable(e.0))?;
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
