//! [`MemLog`]: a [`Log`] of record payloads in memory, with other writers and failures on
//! demand.

use alloc::format;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::cell::RefCell;

use crate::log::{
    Changes, Contents, IndexReader, Intent, Log, LogError, Page, Pieces, last_checkpoint, page_of,
};

/// What a [`MemLog`] holds and how it has been used. Shared by the log a memory owns and the
/// clones the test keeps.
#[derive(Debug)]
pub struct MemState {
    /// What the log holds now (foreign bytes until replaced, then records).
    pub contents: Contents,
    /// Record payloads this log's owner appended since opening, in order (also in
    /// `contents`).
    pub appended: Vec<Vec<u8>>,
    /// Number of records durable after the last successful `sync` (or `replace`).
    pub synced_records: usize,
    /// Calls of `replay`.
    pub replays: usize,
    /// Calls of `refresh`.
    pub refreshes: usize,
    /// Reads of the log through `entries` (calls from its first entry on).
    pub entries_reads: usize,
    /// Payload bytes of the largest page `entries` returned, and of the largest piece
    /// `replace_piece` took.
    pub largest: (u64, u64),
    /// A replacement under way.
    pub pieces: Pieces,
    /// The last refresh was for reading ([`Intent::Read`]): the owner must not append or
    /// replace before its next refresh.
    pub reading: bool,
    /// Successful appends.
    pub appends: usize,
    /// Successful syncs.
    pub syncs: usize,
    /// Successful replaces.
    pub replaces: usize,
    /// What other writers did since the owner last refreshed, not yet seen by it.
    pub others: Option<Changes>,
    /// A failure to inject into the next `append`.
    pub fail_append: Option<String>,
    /// A failure to inject into the next `sync`.
    pub fail_sync: Option<String>,
    /// A failure to inject into the next `replace`.
    pub fail_replace: Option<String>,
    /// A failure to inject into the next `refresh`.
    pub fail_refresh: Option<String>,
    /// Files [`Log::read_named`] reads, by the path a test gave them
    /// ([`MemLog::put_named`]).
    pub named: Vec<(String, Vec<u8>)>,
    /// Whether [`Log::read_named`] refuses every path, as a host that reads no named
    /// files does ([`MemLog::read_no_named_files`]).
    pub no_named: bool,
    /// The search indexes saved beside the log ([`Log::save_indexes`]).
    pub indexes: SavedIndexes,
}

/// Search indexes saved beside a log kept in memory, as [`Log::save_indexes`] leaves them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SavedIndexes {
    /// The saved indexes, if any.
    pub saved: Option<Vec<u8>>,
    /// A save under way.
    pub pending: Vec<u8>,
    /// Saves finished (removals included).
    pub saves: usize,
    /// Reads through the log's [`IndexReader`]s.
    pub reads: usize,
}

impl SavedIndexes {
    /// Takes one piece of a save, as [`Log::save_indexes`] says.
    pub fn put(&mut self, at: u64, piece: &[u8], done: bool) {
        if at == 0 && done && piece.is_empty() {
            (self.saved, self.saves) = (None, self.saves + 1);
            self.pending.clear();
            return;
        }
        if at == 0 && !done {
            self.pending.clear();
        }
        let (from, to) = (at as usize, at as usize + piece.len());
        if self.pending.len() < to {
            self.pending.resize(to, 0);
        }
        self.pending[from..to].copy_from_slice(piece);
        if done {
            self.saved = Some(core::mem::take(&mut self.pending));
            self.saves += 1;
        }
    }

    /// What an [`IndexReader`] reads: up to `len` bytes from `at`.
    pub fn get(&self, at: u64, len: u32) -> Option<Vec<u8>> {
        let saved = self.saved.as_ref()?;
        let from = usize::try_from(at).unwrap_or(usize::MAX).min(saved.len());
        let to = from.saturating_add(len as usize).min(saved.len());
        Some(saved[from..to].to_vec())
    }
}

/// An in-memory [`Log`] that keeps record payloads. Clones share one state, so a test keeps
/// a clone to look inside the log it handed to a memory, to append as another process
/// would, or to make the next operation fail.
///
/// It also checks the core's side of the [`Log`] contract: `replay` once and first, no
/// `append` before the owner has seen what other writers did, and no `append` or `replace`
/// after a refresh for reading (panics otherwise).
#[derive(Clone, Debug)]
pub struct MemLog(pub Rc<RefCell<MemState>>);

impl Default for MemLog {
    fn default() -> Self {
        Self::new()
    }
}

impl MemLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::holding(Contents::Records(Vec::new()))
    }

    /// A log that already holds `contents` (all of it durable; of a log given from its
    /// last checkpoint, only that part).
    pub fn holding(contents: Contents) -> Self {
        let contents = match contents {
            Contents::FromCheckpoint { entries, .. } => Contents::Records(entries),
            other => other,
        };
        let synced_records = match &contents {
            Contents::Records(r) | Contents::FromCheckpoint { entries: r, .. } => r.len(),
            Contents::Foreign(_) => 0,
        };
        MemLog(Rc::new(RefCell::new(MemState {
            contents,
            appended: Vec::new(),
            synced_records,
            replays: 0,
            refreshes: 0,
            entries_reads: 0,
            largest: (0, 0),
            pieces: Pieces::default(),
            reading: false,
            appends: 0,
            syncs: 0,
            replaces: 0,
            others: None,
            fail_append: None,
            fail_sync: None,
            fail_replace: None,
            fail_refresh: None,
            named: Vec::new(),
            no_named: false,
            indexes: SavedIndexes::default(),
        })))
    }

    /// A log holding bytes in another format (a reference JSONL file).
    pub fn foreign(bytes: &[u8]) -> Self {
        Self::holding(Contents::Foreign(bytes.to_vec().into()))
    }

    /// What the log holds now.
    pub fn contents(&self) -> Contents {
        self.0.borrow().contents.clone()
    }

    /// The record payloads the log holds now (panics if it still holds foreign bytes).
    pub fn records(&self) -> Vec<Vec<u8>> {
        match &self.0.borrow().contents {
            Contents::Records(r) | Contents::FromCheckpoint { entries: r, .. } => r.clone(),
            Contents::Foreign(_) => panic!("the log still holds foreign bytes"),
        }
    }

    /// Number of records the log holds now (panics if it still holds foreign bytes).
    pub fn len(&self) -> usize {
        self.records().len()
    }

    /// Whether the log holds no record (panics if it still holds foreign bytes).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Successful appends so far.
    pub fn appends(&self) -> usize {
        self.0.borrow().appends
    }

    /// Successful syncs so far.
    pub fn syncs(&self) -> usize {
        self.0.borrow().syncs
    }

    /// Successful replaces so far.
    pub fn replaces(&self) -> usize {
        self.0.borrow().replaces
    }

    /// Calls of `refresh` so far.
    pub fn refreshes(&self) -> usize {
        self.0.borrow().refreshes
    }

    /// Reads of the log through `entries` so far (calls from its first entry on).
    pub fn entries_reads(&self) -> usize {
        self.0.borrow().entries_reads
    }

    /// Payload bytes of the largest page of entries read so far, and of the largest piece
    /// of a replacement written.
    pub fn largest_page_and_piece(&self) -> (u64, u64) {
        self.0.borrow().largest
    }

    /// Makes the next append fail with `message` (and store nothing).
    pub fn fail_next_append(&self, message: &str) {
        self.0.borrow_mut().fail_append = Some(message.to_string());
    }

    /// Makes the next sync fail with `message`.
    pub fn fail_next_sync(&self, message: &str) {
        self.0.borrow_mut().fail_sync = Some(message.to_string());
    }

    /// Makes the next replace fail with `message` (and leave the log as it was).
    pub fn fail_next_replace(&self, message: &str) {
        self.0.borrow_mut().fail_replace = Some(message.to_string());
    }

    /// Makes the next refresh fail with `message`.
    pub fn fail_next_refresh(&self, message: &str) {
        self.0.borrow_mut().fail_refresh = Some(message.to_string());
    }

    /// Whether another writer changed the log since the owner last refreshed.
    pub fn has_unseen_changes(&self) -> bool {
        self.0.borrow().others.is_some()
    }

    /// Appends a record as another process would: the owner sees it at its next refresh.
    /// Nothing happens while the log holds foreign bytes (no writer appends to those).
    pub fn append_as_other_writer(&self, entry: Vec<u8>) {
        let mut s = self.0.borrow_mut();
        match &mut s.contents {
            Contents::Records(r) | Contents::FromCheckpoint { entries: r, .. } => {
                r.push(entry.clone())
            }
            Contents::Foreign(_) => return,
        }
        match &mut s.others {
            Some(Changes::Appended(r) | Changes::Replaced { entries: r, .. }) => r.push(entry),
            None => s.others = Some(Changes::Appended(vec![entry])),
        }
    }

    /// Replaces the whole log as another process would (a conversion or compaction).
    pub fn replace_as_other_writer(&self, entries: Vec<Vec<u8>>) {
        let mut s = self.0.borrow_mut();
        s.contents = Contents::Records(entries.clone());
        // As a file log hands it: from its last checkpoint on.
        s.others = Some(match last_checkpoint(&entries) {
            Some((at, skipped_bytes)) => Changes::Replaced {
                skipped_bytes,
                entries: entries[at..].to_vec(),
            },
            None => Changes::Replaced {
                skipped_bytes: 0,
                entries,
            },
        });
    }

    /// Puts a file [`Log::read_named`] reads at `path` (replacing one there).
    pub fn put_named(&self, path: &str, bytes: &[u8]) {
        let mut s = self.0.borrow_mut();
        s.named.retain(|(p, _)| p != path);
        s.named.push((path.to_string(), bytes.to_vec()));
    }

    /// Makes [`Log::read_named`] refuse every path, as a host that reads no named files.
    pub fn read_no_named_files(&self) {
        self.0.borrow_mut().no_named = true;
    }

    /// A fresh log holding what this one holds now, the indexes saved beside it too (a
    /// restart of the host).
    pub fn reopened(&self) -> MemLog {
        let log = MemLog::holding(self.contents());
        log.0.borrow_mut().indexes.saved = self.saved_indexes();
        log
    }

    /// The search indexes saved beside the log.
    pub fn saved_indexes(&self) -> Option<Vec<u8>> {
        self.0.borrow().indexes.saved.clone()
    }

    /// Puts these bytes beside the log as its saved search indexes (or none).
    pub fn set_saved_indexes(&self, bytes: Option<Vec<u8>>) {
        self.0.borrow_mut().indexes.saved = bytes;
    }
}

impl Log for MemLog {
    fn replay(&mut self) -> Result<Contents, LogError> {
        let mut s = self.0.borrow_mut();
        s.replays += 1;
        assert_eq!(s.replays, 1, "Log::replay must be called only once");
        assert_eq!(
            (s.appends, s.syncs, s.replaces),
            (0, 0, 0),
            "Log::replay must come before any other operation"
        );
        // As a file log does: the entries from the last checkpoint on, when others precede it.
        Ok(match &s.contents {
            Contents::Records(r) => match last_checkpoint(r) {
                Some((at, skipped_bytes)) => Contents::FromCheckpoint {
                    skipped_bytes,
                    entries: r[at..].to_vec(),
                },
                None => Contents::Records(r.clone()),
            },
            other => other.clone(),
        })
    }

    fn refresh(&mut self, intent: Intent) -> Result<Changes, LogError> {
        let mut s = self.0.borrow_mut();
        assert_eq!(s.replays, 1, "refresh before replay");
        s.refreshes += 1;
        s.reading = intent == Intent::Read;
        if let Some(e) = s.fail_refresh.take() {
            return Err(LogError(e));
        }
        Ok(s.others.take().unwrap_or(Changes::Appended(Vec::new())))
    }

    fn append(&mut self, entry: &[u8]) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        assert_eq!(s.replays, 1, "append before replay");
        assert!(s.others.is_none(), "append before catching up");
        assert!(!s.reading, "append after a refresh for reading");
        if let Some(e) = s.fail_append.take() {
            return Err(LogError(e));
        }
        match &mut s.contents {
            Contents::Records(r) | Contents::FromCheckpoint { entries: r, .. } => {
                r.push(entry.to_vec())
            }
            Contents::Foreign(_) => return Err(LogError("the log holds foreign bytes".into())),
        }
        s.appended.push(entry.to_vec());
        s.appends += 1;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        if let Some(e) = s.fail_sync.take() {
            return Err(LogError(e));
        }
        s.syncs += 1;
        s.synced_records = match &s.contents {
            Contents::Records(r) | Contents::FromCheckpoint { entries: r, .. } => r.len(),
            Contents::Foreign(_) => 0,
        };
        Ok(())
    }

    fn entries(&mut self, from: u64, budget: u32) -> Result<Page, LogError> {
        let s = &mut *self.0.borrow_mut();
        s.entries_reads += usize::from(from == 0);
        let page = match &s.contents {
            Contents::Records(r) | Contents::FromCheckpoint { entries: r, .. } => {
                page_of(r, from, budget)
            }
            Contents::Foreign(_) => Page::default(),
        };
        let bytes = page.entries.iter().map(|e| e.len() as u64).sum();
        s.largest.0 = s.largest.0.max(bytes);
        Ok(page)
    }

    fn replace_piece(
        &mut self,
        entries: &[Vec<u8>],
        first: bool,
        last: bool,
    ) -> Result<(), LogError> {
        let s = &mut *self.0.borrow_mut();
        assert!(!s.reading, "replace after a refresh for reading");
        if let Some(e) = s.fail_replace.take() {
            s.pieces.drop_unfinished();
            return Err(LogError(e));
        }
        let bytes = entries.iter().map(|e| e.len() as u64).sum();
        s.largest.1 = s.largest.1.max(bytes);
        let Some(whole) = s.pieces.put(entries, first, last) else {
            return Ok(());
        };
        s.synced_records = whole.len();
        s.contents = Contents::Records(whole);
        s.replaces += 1;
        Ok(())
    }

    fn save_indexes(&mut self, at: u64, piece: &[u8], done: bool) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        assert!(!s.reading, "indexes saved after a refresh for reading");
        s.indexes.put(at, piece, done);
        Ok(())
    }

    fn index_reader(&mut self) -> Option<IndexReader> {
        let state = Rc::clone(&self.0);
        Some(alloc::boxed::Box::new(move |at, len| {
            let indexes = &mut state.borrow_mut().indexes;
            indexes.reads += 1;
            Ok(indexes.get(at, len))
        }))
    }

    /// A file a test put at `path` ([`MemLog::put_named`]).
    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError> {
        let s = self.0.borrow();
        if s.no_named {
            return Err(crate::log::reads_no_named_files(path));
        }
        let found = s.named.iter().find(|(p, _)| p == path);
        found
            .map(|(_, bytes)| bytes.clone())
            .ok_or_else(|| LogError(format!("cannot read {path}: no such file")))
    }
}
