//! Checking and repairing a memory file (`mcp-memory verify` and `repair`): pure functions
//! over the file's bytes, the same in every host.
//!
//! [`verify`] reads a log as opening it would ([`frame::walk`]: header, length checks,
//! checksums, the recovery rules), decodes and replays every record, and reports counts and
//! the first problem. A file that is not a log is read as the reference server's JSONL, past
//! the lines the reader refuses. [`repair`] keeps the valid prefix of a log (every whole
//! frame before the first problem) or the lines a JSONL reader accepts, as new bytes.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde_json::{Value, json};

use crate::frame::{self, End, ScanError, TornTail};
use crate::graph::Graph;
use crate::jsonl::{self, ImportError};
use crate::record::{DecodeError, Entry, OP_NAMES, Record};
use crate::seedlog;

/// What a check of a memory file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Report {
    /// An empty file: a server opens it as an empty memory.
    Empty,
    /// A memory log.
    Log(LogReport),
    /// A file that is not a memory log, read as the reference server's JSONL.
    Jsonl(JsonlReport),
    /// The Rust seed's 1.x/2.0 binary log, which opening converts.
    SeedLog(SeedLogReport),
}

/// What converting a Rust seed 1.x/2.0 log (as opening does) found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedLogReport {
    /// The file's size.
    pub bytes: usize,
    /// The graph it converts to, or why it cannot be converted.
    pub converted: Result<GraphCounts, String>,
    /// What converting dropped or skipped (a torn tail, an unfinished transaction).
    pub warnings: Vec<String>,
}

/// How a file fares when a server opens it; each verdict has its CLI exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing wrong. Exit code 0.
    Clean,
    /// A log that opens, but ends in a torn tail that opening cuts off. Exit code 3.
    TornTail,
    /// Damage a server refuses to open past (a log), or a line it refuses to convert (a
    /// JSONL file). Exit code 1.
    Damaged,
    /// A log in a framing version newer than this code reads. Exit code 1.
    Unsupported,
}

impl Verdict {
    /// The exit code of `verify` for this verdict (2 is left to usage errors).
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Clean => 0,
            Verdict::Damaged | Verdict::Unsupported => 1,
            Verdict::TornTail => 3,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::TornTail => "torn-tail",
            Verdict::Damaged => "damaged",
            Verdict::Unsupported => "unsupported",
        }
    }
}

/// What replaying records built.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GraphCounts {
    /// Entities (duplicate names counted each time).
    pub entities: usize,
    /// Relations.
    pub relations: usize,
    /// Observations over all entities.
    pub observations: usize,
}

impl GraphCounts {
    /// The counts of `graph`.
    pub fn of(graph: &Graph) -> Self {
        GraphCounts {
            entities: graph.entity_count(),
            relations: graph.relation_count(),
            observations: graph.entities().map(|(_, e)| e.observations.len()).sum(),
        }
    }

    fn json(&self) -> Value {
        json!({
            "entities": self.entities,
            "relations": self.relations,
            "observations": self.observations,
        })
    }
}

impl fmt::Display for GraphCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} entities, {} relations, {} observations",
            self.entities, self.relations, self.observations
        )
    }
}

/// Records, and the ops they hold by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RecordCounts {
    /// Records.
    pub records: usize,
    /// Records stamped with a time and who made them.
    pub stamped: usize,
    /// Ops by kind: the index is [`crate::record::Op::index`], the name in [`OP_NAMES`].
    pub ops: [usize; OP_NAMES.len()],
    /// Checkpoints (counted among the records).
    pub checkpoints: usize,
}

impl RecordCounts {
    /// Every record counted.
    pub fn total(&self) -> usize {
        self.records
    }

    fn count(&mut self, record: &Record<'_>) {
        self.records += 1;
        self.stamped += usize::from(record.stamp.is_some());
        for op in &record.ops {
            self.ops[op.index()] += 1;
        }
    }

    /// Each op kind's name and count.
    fn by_kind(&self) -> impl Iterator<Item = (&'static str, usize)> + '_ {
        let kinds = OP_NAMES.iter().copied().zip(self.ops.iter().copied());
        kinds.filter(|&(name, _)| name != "reserved")
    }
}

impl fmt::Display for RecordCounts {
    /// `12 (11 stamped; ops: create_entities 5, add_facts 7)`: the records, then the op
    /// kinds present.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.records)?;
        let mut sep = " (";
        if self.stamped > 0 {
            write!(f, " ({} stamped", self.stamped)?;
            sep = "; ops: ";
        }
        for (name, n) in self.by_kind().filter(|&(_, n)| n > 0) {
            write!(f, "{sep}{name} {n}")?;
            sep = ", ";
        }
        if self.checkpoints > 0 {
            let sep = if sep == " (" { sep } else { "; " };
            write!(f, "{sep}checkpoints {}", self.checkpoints)?;
            return write!(f, ")");
        }
        if sep != " (" {
            write!(f, ")")?;
        }
        Ok(())
    }
}

/// The first problem in a log: what stops a server from opening it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The header names a framing version this code does not read.
    UnsupportedVersion(u32),
    /// A frame before the tail fails its length check or its checksum.
    Corrupt {
        /// Byte offset of the frame.
        offset: usize,
        /// 0-based index of the record it holds.
        record: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A checkpoint that does not restate the graph the records before it build (opening
    /// would start from it).
    Checkpoint {
        /// Byte offset of the frame.
        offset: usize,
        /// 0-based index of the record.
        record: usize,
    },
    /// A whole frame whose payload is no record this version knows.
    Undecodable {
        /// Byte offset of the frame.
        offset: usize,
        /// 0-based index of the record.
        record: usize,
        /// Why it does not decode.
        error: DecodeError,
    },
}

impl Problem {
    /// Byte offset of the problem in the file.
    pub fn offset(&self) -> usize {
        match self {
            Problem::UnsupportedVersion(_) => frame::MAGIC.len(),
            Problem::Corrupt { offset, .. }
            | Problem::Checkpoint { offset, .. }
            | Problem::Undecodable { offset, .. } => *offset,
        }
    }

    /// 0-based index of the record it is in, if it is in a record.
    pub fn record(&self) -> Option<usize> {
        match self {
            Problem::UnsupportedVersion(_) => None,
            Problem::Corrupt { record, .. }
            | Problem::Checkpoint { record, .. }
            | Problem::Undecodable { record, .. } => Some(*record),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Problem::UnsupportedVersion(_) => "unsupported-version",
            Problem::Corrupt { .. } => "corrupt",
            Problem::Checkpoint { .. } => "checkpoint",
            Problem::Undecodable { .. } => "undecodable",
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::UnsupportedVersion(v) => write!(
                f,
                "header at byte offset {}: {}",
                self.offset(),
                ScanError::UnsupportedVersion(*v)
            ),
            Problem::Corrupt {
                offset,
                record,
                reason,
            } => write!(
                f,
                "corrupt record at byte offset {offset} (record {record}): {reason}"
            ),
            Problem::Checkpoint { offset, record } => write!(
                f,
                "checkpoint {record} at byte offset {offset} does not restate the records before it"
            ),
            Problem::Undecodable {
                offset,
                record,
                error,
            } => write!(f, "record {record} at byte offset {offset}: {error}"),
        }
    }
}

/// What a check of a memory log found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogReport {
    /// The file's size in bytes.
    pub bytes: usize,
    /// Length of the valid prefix: the header and every whole frame before the first
    /// problem that decodes (what [`repair`] keeps); 0 if the header is not whole.
    pub valid_len: usize,
    /// The records in the valid prefix, by kind.
    pub records: RecordCounts,
    /// The graph those records replay to.
    pub graph: GraphCounts,
    /// The torn tail the file ends in, if any (opening cuts it off).
    pub torn: Option<TornTail>,
    /// The first problem, if any.
    pub problem: Option<Problem>,
}

/// What a check of a reference JSONL file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonlReport {
    /// The file's size in bytes.
    pub bytes: usize,
    /// Lines that are not blank.
    pub lines: usize,
    /// Lines skipped as neither an entity nor a relation.
    pub skipped: usize,
    /// Numbers (1-based) of the lines the reader refuses.
    pub refused: Vec<usize>,
    /// The graph the accepted lines convert to.
    pub graph: GraphCounts,
    /// What the reader repairs or skips, one sentence each (as converting warns).
    pub warnings: Vec<String>,
    /// The first line the reader refuses, and why.
    pub problem: Option<ImportError>,
}

impl Report {
    /// How the file fares when a server opens it.
    pub fn verdict(&self) -> Verdict {
        match self {
            Report::Empty => Verdict::Clean,
            Report::Log(log) => match (&log.problem, &log.torn) {
                (Some(Problem::UnsupportedVersion(_)), _) => Verdict::Unsupported,
                (Some(_), _) => Verdict::Damaged,
                (None, Some(_)) => Verdict::TornTail,
                (None, None) => Verdict::Clean,
            },
            Report::Jsonl(jsonl) if jsonl.problem.is_some() => Verdict::Damaged,
            Report::Jsonl(_) => Verdict::Clean,
            Report::SeedLog(seed) if seed.converted.is_err() => Verdict::Damaged,
            Report::SeedLog(_) => Verdict::Clean,
        }
    }

    /// The report as a JSON object: the same facts as its text, for scripts.
    pub fn to_json(&self) -> String {
        let verdict = self.verdict();
        let mut value = match self {
            Report::Empty => json!({ "format": "empty", "bytes": 0 }),
            Report::Log(log) => {
                let mut by_kind = json!({});
                for (name, n) in log.records.by_kind() {
                    by_kind[name] = json!(n);
                }
                let records = json!({
                    "total": log.records.total(),
                    "stamped": log.records.stamped,
                    "checkpoints": log.records.checkpoints,
                    "byKind": by_kind,
                });
                json!({
                    "format": "log",
                    "bytes": log.bytes,
                    "validLength": log.valid_len,
                    "records": records,
                    "graph": log.graph.json(),
                    "tornTail": log.torn.map(|t| json!({
                        "offset": t.offset,
                        "dropped": t.dropped,
                        "message": t.to_string(),
                    })),
                    "problem": log.problem.as_ref().map(|p| json!({
                        "kind": p.kind(),
                        "offset": p.offset(),
                        "record": p.record(),
                        "message": p.to_string(),
                    })),
                })
            }
            Report::Jsonl(jsonl) => json!({
                "format": "jsonl",
                "bytes": jsonl.bytes,
                "lines": jsonl.lines,
                "skipped": jsonl.skipped,
                "refused": jsonl.refused,
                "graph": jsonl.graph.json(),
                "warnings": jsonl.warnings,
                "problem": jsonl.problem.as_ref().map(|p| json!({
                    "line": p.line,
                    "message": p.to_string(),
                })),
            }),
            Report::SeedLog(seed) => json!({
                "format": "rust-seed-log",
                "bytes": seed.bytes,
                "graph": seed.converted.as_ref().ok().map(GraphCounts::json),
                "warnings": seed.warnings,
                "problem": seed.converted.as_ref().err().map(|e| json!({ "message": e })),
            }),
        };
        value["verdict"] = json!(verdict.name());
        value["exitCode"] = json!(verdict.exit_code());
        value.to_string()
    }
}

impl fmt::Display for Report {
    /// A few lines: what the file is and the verdict, the first problem, then the counts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = self.verdict();
        match self {
            Report::Empty => write!(f, "empty file: clean (opens as an empty memory)"),
            Report::Log(log) => {
                let status = match verdict {
                    Verdict::Clean => "clean",
                    Verdict::TornTail => {
                        "torn tail (opens; opening or `mcp-memory repair` drops the tail)"
                    }
                    Verdict::Damaged => {
                        "damaged (does not open; `mcp-memory repair` keeps the valid prefix)"
                    }
                    Verdict::Unsupported => "written by a newer mcp-memory (does not open)",
                };
                writeln!(f, "mcp-memory log, {} bytes: {status}", log.bytes)?;
                if let Some(problem) = &log.problem {
                    writeln!(f, "first problem: {problem}")?;
                }
                if let Some(torn) = &log.torn {
                    writeln!(f, "{torn}")?;
                }
                if verdict == Verdict::Clean {
                    writeln!(f, "records: {}", log.records)?;
                    write!(f, "graph: {}", log.graph)
                } else {
                    writeln!(
                        f,
                        "valid prefix: {} bytes, records: {}",
                        log.valid_len, log.records
                    )?;
                    write!(f, "graph of the valid prefix: {}", log.graph)
                }
            }
            Report::Jsonl(jsonl) => {
                let status = match verdict {
                    Verdict::Clean => "clean (opening converts it to a log)",
                    _ => {
                        "damaged (opening refuses to convert it; `mcp-memory repair` keeps the lines it accepts)"
                    }
                };
                writeln!(
                    f,
                    "reference JSONL file (not an mcp-memory log), {} bytes: {status}",
                    jsonl.bytes
                )?;
                if let Some(problem) = &jsonl.problem {
                    writeln!(f, "first problem: {problem}")?;
                }
                write!(
                    f,
                    "lines: {} ({} entities, {} relations, {} skipped, {} refused)",
                    jsonl.lines,
                    jsonl.graph.entities,
                    jsonl.graph.relations,
                    jsonl.skipped,
                    jsonl.refused.len()
                )?;
                let graph = if jsonl.refused.is_empty() {
                    "graph"
                } else {
                    "graph of the accepted lines"
                };
                write!(f, "\n{graph}: {}", jsonl.graph)?;
                for warning in &jsonl.warnings {
                    write!(f, "\nwarning: {warning}")?;
                }
                Ok(())
            }
            Report::SeedLog(seed) => {
                write!(
                    f,
                    "Rust mcp-memory 1.x/2.0 log (not an mcp-memory log), {} bytes: ",
                    seed.bytes
                )?;
                match &seed.converted {
                    Ok(graph) => write!(f, "clean (opening converts it to a log)\ngraph: {graph}")?,
                    Err(e) => write!(
                        f,
                        "damaged (opening refuses to convert it)\nfirst problem: {e}"
                    )?,
                }
                for warning in &seed.warnings {
                    write!(f, "\nwarning: {warning}")?;
                }
                Ok(())
            }
        }
    }
}

/// Checks a memory file's bytes: a log (header, frames, records, replay), an empty file, or
/// a reference JSONL file.
pub fn verify(bytes: &[u8]) -> Report {
    if bytes.is_empty() {
        Report::Empty
    } else if frame::is_log(bytes) {
        Report::Log(verify_log(bytes))
    } else if seedlog::is_seed_log(bytes) {
        Report::SeedLog(verify_seed_log(bytes))
    } else {
        Report::Jsonl(verify_jsonl(bytes))
    }
}

fn verify_seed_log(bytes: &[u8]) -> SeedLogReport {
    let (converted, warnings) = match seedlog::convert(bytes) {
        Ok(c) => {
            let graph = c
                .records
                .iter()
                .try_fold(Graph::default(), |mut g, payload| {
                    g.apply(&Record::decode(payload)?, &mut ());
                    Ok::<_, DecodeError>(g)
                });
            let counts = graph.map(|g| GraphCounts::of(&g));
            (counts.map_err(|e| e.to_string()), c.warnings)
        }
        Err(e) => (Err(e), Vec::new()),
    };
    SeedLogReport {
        bytes: bytes.len(),
        converted,
        warnings,
    }
}

fn verify_log(bytes: &[u8]) -> LogReport {
    let walk = frame::walk(bytes);
    let (mut torn, mut problem) = (None, None);
    match walk.end {
        End::Clean => {}
        End::Torn(t) => torn = Some(t),
        End::Damaged(ScanError::UnsupportedVersion(v)) => {
            problem = Some(Problem::UnsupportedVersion(v));
        }
        End::Damaged(ScanError::Corrupt { offset, reason }) => {
            problem = Some(Problem::Corrupt {
                offset,
                record: walk.records.len(),
                reason,
            });
        }
        // `verify` reads only logs as logs.
        End::Damaged(ScanError::NotALog) => {}
    }
    let mut graph = Graph::default();
    let mut records = RecordCounts::default();
    let mut offset = if walk.valid_len == 0 {
        0
    } else {
        frame::HEADER_LEN
    };
    for (index, payload) in walk.records.iter().enumerate() {
        match read_entry(&mut graph, index, payload) {
            Ok(Some(record)) => {
                records.count(&record);
                graph.apply(&record, &mut ());
                offset += frame::FRAME_HEADER_LEN + payload.len();
            }
            Ok(None) => {
                records.records += 1;
                records.checkpoints += 1;
                offset += frame::FRAME_HEADER_LEN + payload.len();
            }
            Err(None) => {
                problem = Some(Problem::Checkpoint {
                    offset,
                    record: index,
                });
                break;
            }
            Err(Some(error)) => {
                problem = Some(Problem::Undecodable {
                    offset,
                    record: index,
                    error,
                });
                break;
            }
        }
    }
    LogReport {
        bytes: bytes.len(),
        valid_len: offset,
        records,
        graph: GraphCounts::of(&graph),
        torn,
        problem,
    }
}

/// Reads entry `index` of a log read in order: a change to apply, or (`None`) a checkpoint,
/// loaded into `graph` as the first entry and otherwise checked against it. `Err(None)`: a
/// checkpoint that does not restate `graph`.
fn read_entry<'a>(
    graph: &mut Graph,
    index: usize,
    payload: &'a [u8],
) -> Result<Option<Record<'a>>, Option<DecodeError>> {
    match Entry::decode(payload)? {
        Entry::Change(record) => Ok(Some(record)),
        Entry::Checkpoint => {
            if index == 0 {
                *graph = Graph::from_checkpoint(payload)?;
            } else if graph.checkpoint() != payload {
                return Err(None);
            }
            Ok(None)
        }
    }
}

fn verify_jsonl(bytes: &[u8]) -> JsonlReport {
    let accepted = jsonl::read_accepted(bytes);
    let mut graph = Graph::default();
    for payload in accepted.parsed.records() {
        // Records built here always decode.
        if let Ok(record) = Record::decode(&payload) {
            graph.apply(&record, &mut ());
        }
    }
    JsonlReport {
        bytes: bytes.len(),
        lines: accepted.lines,
        skipped: accepted.skipped,
        refused: accepted.refused,
        graph: GraphCounts::of(&graph),
        warnings: accepted.parsed.warnings,
        problem: accepted.first_refused,
    }
}

/// A repaired copy of a memory file: the bytes to write and what was kept and dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repair {
    /// The repaired file: the valid prefix of a log (a new empty log if not even its header
    /// is whole), the accepted lines of a JSONL file, or a copy of an empty file.
    pub bytes: Vec<u8>,
    /// Bytes of the input left out.
    pub dropped: usize,
    /// The check of the input the repair followed.
    pub report: Report,
}

/// Why a file cannot be repaired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepairError {
    /// The log's framing version is newer than this code reads: nothing here knows what its
    /// valid prefix is.
    UnsupportedVersion(u32),
    /// A Rust seed log that does not convert: repairing it is the seed's business.
    SeedLog(String),
}

impl fmt::Display for RepairError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RepairError::UnsupportedVersion(v) => write!(
                f,
                "cannot repair: {}; use a newer mcp-memory",
                ScanError::UnsupportedVersion(*v)
            ),
            RepairError::SeedLog(e) => write!(
                f,
                "cannot repair a Rust mcp-memory 1.x/2.0 log that does not convert: {e}"
            ),
        }
    }
}

/// Repairs a memory file's bytes: keeps every whole frame of a log before its first problem
/// (a torn tail, damage, or a record that does not decode), or the lines of a reference
/// JSONL file its reader accepts (verbatim, blank and skipped lines included).
pub fn repair(bytes: &[u8]) -> Result<Repair, RepairError> {
    let report = verify(bytes);
    let kept = match &report {
        Report::Empty => Vec::new(),
        Report::Log(log) => match log.problem {
            Some(Problem::UnsupportedVersion(v)) => {
                return Err(RepairError::UnsupportedVersion(v));
            }
            _ if log.valid_len == 0 => frame::header().to_vec(),
            _ => {
                let mut kept = bytes[..log.valid_len].to_vec();
                // The header names no checkpoint that was not kept.
                if frame::checkpoint_at(&kept).is_some_and(|at| at >= kept.len() as u64) {
                    frame::name_checkpoint(&mut kept, None);
                }
                kept
            }
        },
        // Converting drops what it must (a torn tail, an unfinished transaction).
        Report::SeedLog(seed) => match &seed.converted {
            Ok(_) => bytes.to_vec(),
            Err(e) => return Err(RepairError::SeedLog(e.clone())),
        },
        Report::Jsonl(jsonl) => {
            let mut out = Vec::with_capacity(bytes.len());
            let mut refused = jsonl.refused.iter().peekable();
            let mut first = true;
            for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
                if refused.next_if_eq(&&(i + 1)).is_some() {
                    continue;
                }
                if !first {
                    out.push(b'\n');
                }
                first = false;
                out.extend_from_slice(line);
            }
            out
        }
    };
    let dropped = match &report {
        Report::Log(log) => bytes.len() - log.valid_len,
        _ => bytes.len() - kept.len(),
    };
    Ok(Repair {
        bytes: kept,
        dropped,
        report,
    })
}

impl fmt::Display for Repair {
    /// What was kept, what was dropped and why, one line each.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.report {
            Report::Empty => write!(f, "kept: nothing (the file is empty)\ndropped: nothing"),
            Report::SeedLog(_) => write!(
                f,
                "kept: the whole file (a Rust mcp-memory 1.x/2.0 log: opening converts it, dropping what verify warns of)\ndropped: nothing"
            ),
            Report::Log(log) => {
                if log.valid_len == 0 {
                    writeln!(f, "kept: 0 records (written as a new, empty log)")?;
                } else {
                    writeln!(
                        f,
                        "kept: {} records, the first {} bytes",
                        log.records.total(),
                        log.valid_len
                    )?;
                }
                let cause = match (&log.problem, &log.torn) {
                    (Some(problem), _) => problem.to_string(),
                    (None, Some(torn)) => torn.to_string(),
                    (None, None) => return write!(f, "dropped: nothing (the log is clean)"),
                };
                write!(
                    f,
                    "dropped: {} bytes from offset {}\nbecause: {cause}",
                    self.dropped, log.valid_len
                )
            }
            Report::Jsonl(jsonl) => {
                writeln!(
                    f,
                    "kept: {} lines ({} entities, {} relations, {} skipped)",
                    jsonl.lines - jsonl.refused.len(),
                    jsonl.graph.entities,
                    jsonl.graph.relations,
                    jsonl.skipped
                )?;
                let Some(problem) = &jsonl.problem else {
                    return write!(f, "dropped: nothing (every line is accepted)");
                };
                let shown = 10;
                let mut numbers: Vec<String> = jsonl
                    .refused
                    .iter()
                    .take(shown)
                    .map(ToString::to_string)
                    .collect();
                if jsonl.refused.len() > shown {
                    numbers.push(format!("and {} more", jsonl.refused.len() - shown));
                }
                write!(
                    f,
                    "dropped: {} lines, {} bytes: line {}\nbecause: {problem}",
                    jsonl.refused.len(),
                    self.dropped,
                    numbers.join(", ")
                )
            }
        }
    }
}
