//! The append log the host provides: the core's only way to persist anything.
//!
//! The contract mirrors `wit/memory.wit` (the component's `log` import), which is the
//! normative text; in short:
//! - [`Log::replay`] is called once, before anything else.
//! - [`Log::refresh`] is called at the start of every request that reads or changes the
//!   graph (`tools/call`, `resources/read`, export, import, compact): it returns what other
//!   writers (other processes, other tabs) put in the log since this memory last saw it.
//!   With [`Intent::Write`], from then until the request is answered no other writer
//!   appends; with [`Intent::Read`] others may (a reader takes no lock), and the request
//!   appends and replaces nothing.
//! - [`Log::append`] must leave either the whole entry or nothing in the log, in call order.
//! - [`Log::sync`] is called before every reply that follows an append.
//! - [`Log::entries`] returns the entries the log holds a page at a time (the history tools
//!   read them, within a request, after a refresh; opening reads them when a replay from
//!   the last checkpoint cannot be used), so no request holds the whole log.
//! - [`Log::replace`] swaps the whole log atomically, written a piece at a time: afterwards
//!   replay yields exactly the new entries, and a crash leaves either the old log or the new
//!   one.
//! - [`Log::read_named`] reads a file the user named (the `migrate` tool's `source_path`);
//!   a host that reads no such files refuses (the default).
//! - [`Log::save_indexes`] and [`Log::index_reader`] keep and give back the search indexes
//!   of the log's last checkpoint (`crate::index::saved`): derived data beside the log,
//!   never part of it; a host that keeps none drops them (the default).
//!
//! An `Err` from any operation means the operation did not happen; the core then reports the
//! failure to the client and leaves its graph unchanged.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::record::is_checkpoint;

/// What a log held when it was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Contents {
    /// Record payloads of a log in this crate's format, oldest first.
    Records(Vec<Vec<u8>>),
    /// The record payloads of a log in this crate's format from its last checkpoint on,
    /// oldest first (what opening needs; [`Log::entries`] has the entries before them), and
    /// how many bytes those hold (their payloads; a file may count their frames).
    FromCheckpoint {
        /// Bytes of the entries left out.
        skipped_bytes: u64,
        /// The last checkpoint and the entries after it.
        entries: Vec<Vec<u8>>,
    },
    /// A memory file in another format (a reference JSONL file), to be converted with
    /// [`Log::replace`].
    Foreign(Foreign),
}

/// A memory file in another format, and the files beside it that belong to it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Foreign {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The side files found beside it (the TypeScript seed's tag aliases and saved searches:
    /// [`crate::sidefiles::names`]); the host leaves them where they are.
    pub side_files: Vec<SideFile>,
}

/// A file beside a memory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideFile {
    /// Its name (the last path component).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

impl From<Vec<u8>> for Foreign {
    /// A foreign file with no side files.
    fn from(bytes: Vec<u8>) -> Self {
        Foreign {
            bytes,
            side_files: Vec::new(),
        }
    }
}

/// What other writers did to the log since this memory last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Changes {
    /// They appended these record payloads, oldest first (often none).
    Appended(Vec<Vec<u8>>),
    /// They replaced the whole log (a conversion or compaction): these are its records from
    /// its last checkpoint on, as [`Contents::FromCheckpoint`] holds them (all of them if
    /// `skipped_bytes` is 0).
    Replaced {
        /// Bytes of the entries left out.
        skipped_bytes: u64,
        /// The last checkpoint and the entries after it (or every entry).
        entries: Vec<Vec<u8>>,
    },
}

/// Entries of the log read a page at a time ([`Log::entries`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Page {
    /// Record payloads, oldest first.
    pub entries: Vec<Vec<u8>>,
    /// Where the next page starts (a position only the log reads), `None` after the last.
    pub next: Option<u64>,
}

/// Bytes of record payload the core asks a page of [`Log::entries`] to hold (and a piece of
/// [`Log::replace`] holds): what a request holds of the log at once.
pub const PAGE_BYTES: u32 = 256 << 10;

/// The page of `entries` (a log held whole, in memory) from index `from` on that
/// [`Log::entries`] returns: entries up to `budget` bytes, at least one.
pub fn page_of<B: AsRef<[u8]>>(entries: &[B], from: u64, budget: u32) -> Page {
    let start = usize::try_from(from).map_or(entries.len(), |i| i.min(entries.len()));
    let mut end = start;
    let mut bytes = 0u64;
    while let Some(entry) = entries.get(end) {
        let len = entry.as_ref().len() as u64;
        if end > start && bytes + len > u64::from(budget) {
            break;
        }
        bytes += len;
        end += 1;
    }
    Page {
        entries: entries[start..end]
            .iter()
            .map(|e| e.as_ref().to_vec())
            .collect(),
        next: (end < entries.len()).then_some(end as u64),
    }
}

/// Every entry `log` holds, read a page at a time ([`Log::entries`]; checkpoints after the
/// first may be left out): for a replay that cannot start from the last checkpoint.
pub fn all_entries(log: &mut (impl Log + ?Sized)) -> Result<Vec<Vec<u8>>, LogError> {
    let mut entries = Vec::new();
    let mut from = Some(0);
    while let Some(at) = from {
        let page = log.entries(at, PAGE_BYTES)?;
        entries.extend(page.entries);
        from = page.next;
    }
    Ok(entries)
}

/// A replacing log gathered from its pieces ([`Log::replace_piece`]), by a log held whole in
/// memory.
#[derive(Debug, Default)]
pub struct Pieces(Vec<Vec<u8>>);

impl Pieces {
    /// Takes a piece; returns the whole new log with the `last` one.
    pub fn put(&mut self, entries: &[Vec<u8>], first: bool, last: bool) -> Option<Vec<Vec<u8>>> {
        if first {
            self.0.clear();
        }
        self.0.extend_from_slice(entries);
        last.then(|| core::mem::take(&mut self.0))
    }

    /// Drops an unfinished one.
    pub fn drop_unfinished(&mut self) {
        self.0 = Vec::new();
    }
}

/// Where the last checkpoint among a log's entries is, and the payload bytes of the entries
/// before it, when any come before it: what [`Contents::FromCheckpoint`] leaves out.
pub fn last_checkpoint<B: AsRef<[u8]>>(entries: &[B]) -> Option<(usize, u64)> {
    let at = entries.iter().rposition(|e| is_checkpoint(e.as_ref()))?;
    let skipped = entries[..at].iter().map(|e| e.as_ref().len() as u64).sum();
    (at > 0).then_some((at, skipped))
}

/// What a request means to do after catching up ([`Log::refresh`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Only read: the request appends and replaces nothing, so other writers need not wait.
    Read,
    /// Change the log: no other writer appends until the request is answered, so what is
    /// planned on the refreshed graph still holds when it is appended.
    Write,
}

/// A host-side failure, in words for the user (e.g. the OS error and the path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogError(pub String);

/// Reads the saved search indexes ([`Log::index_reader`]): up to `len` bytes from offset
/// `at` (fewer at their end, none past it), or `None` if none are saved.
pub type IndexReader = alloc::boxed::Box<dyn FnMut(u64, u32) -> Result<Option<Vec<u8>>, LogError>>;

/// The storage a [`crate::Memory`] writes its records to.
pub trait Log {
    /// Everything the log held when it was opened.
    fn replay(&mut self) -> Result<Contents, LogError>;
    /// What other writers appended or replaced since the last replay or refresh, for a
    /// request that means to do `intent` next.
    fn refresh(&mut self, intent: Intent) -> Result<Changes, LogError>;
    /// Appends one record payload after all earlier ones.
    fn append(&mut self, entry: &[u8]) -> Result<(), LogError>;
    /// Makes every appended entry durable, as the host's durability policy defines.
    fn sync(&mut self) -> Result<(), LogError>;
    /// The record payloads the log holds now, oldest first, a page at a time, except that
    /// checkpoints after the first entry may be left out (they restate the entries before
    /// them): from the first (`from` 0) or from where the page before ended (its `next`),
    /// entries of about `budget` bytes (at least one, if any remain; a page may stop short
    /// of the budget, never short of the end without a `next`). Called only after a refresh,
    /// within the same request (positions hold within it), or while opening, after the
    /// replay.
    fn entries(&mut self, from: u64, budget: u32) -> Result<Page, LogError>;
    /// Writes these record payloads as the next piece of a log that replaces the whole
    /// log: a `first` piece begins it (dropping an unfinished one), the `last` one ends it,
    /// and the replacement then takes the old log's place atomically (until then the old
    /// log is the log, and reads of it go on). An `Err` drops the unfinished one. Called
    /// within a request that writes.
    fn replace_piece(
        &mut self,
        entries: &[Vec<u8>],
        first: bool,
        last: bool,
    ) -> Result<(), LogError>;

    /// Atomically replaces the whole log with these record payloads, in one piece.
    fn replace(&mut self, entries: &[Vec<u8>]) -> Result<(), LogError> {
        self.replace_piece(entries, true, true)
    }

    /// The bytes of the file the user named by `path` (the `migrate` tool's `source_path`),
    /// read and nothing else. The host resolves `path` as it resolves `MEMORY_FILE_PATH`
    /// (a leading `~` is the home directory, a relative path is from the working
    /// directory) and reads only a regular file of at most [`MAX_NAMED_BYTES`]; it refuses
    /// a directory, device or pipe, and the memory file itself and its companions (lock,
    /// backups, temporary files). `Err` says which rule refused it, or the OS error. By
    /// default a host reads no named files and refuses every path.
    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError> {
        Err(reads_no_named_files(path))
    }

    /// Turns to the memory of workspace root `root` (a `file://` URI a client listed; the
    /// names hosts give those memories are [`crate::roots`]'s): the writer's turn on the
    /// old one ends, and `replay` then reads the new one as at opening (under a turn, so a
    /// conversion may write). `Err`: nothing changed, the old memory is still the log's. By
    /// default a host keeps one memory and refuses.
    fn rescope(&mut self, root: &str) -> Result<(), LogError> {
        Err(LogError(format!(
            "cannot keep a memory for workspace {root}: this host keeps one memory"
        )))
    }

    /// Writes `piece` at offset `at` of the search indexes being saved. A piece at offset
    /// 0 that is not `done` begins a save (dropping an unfinished one); the call with `done`
    /// writes its piece and finishes the save, which then replaces the saved indexes whole
    /// (a reader sees the old ones or the new ones). A save of one empty piece removes
    /// them. They are a cache: a host need not make them durable, and one that keeps none
    /// drops them (the default). Called within a request that writes (the writer's turn).
    fn save_indexes(&mut self, _at: u64, _piece: &[u8], _done: bool) -> Result<(), LogError> {
        Ok(())
    }

    /// A reader of the saved search indexes that does not borrow the log (they are read
    /// while tools hold the memory, and while the server is idle); `None` if this log
    /// keeps none (the default). Reads may see a save finished meanwhile: the core checks
    /// every section against its hash.
    fn index_reader(&mut self) -> Option<IndexReader> {
        None
    }
}

/// The refusal of [`Log::read_named`] by a host that reads no named files.
pub fn reads_no_named_files(path: &str) -> LogError {
    LogError(format!(
        "cannot read {path}: this host reads no named files"
    ))
}

/// Most bytes [`Log::read_named`] reads (256 MiB).
pub const MAX_NAMED_BYTES: u64 = 256 << 20;
