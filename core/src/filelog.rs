//! A memory file as a [`Log`]: the policy of every host that keeps its memory in a file —
//! recovery, catching up with other processes, converting reference files, and the lock
//! that lets several processes share one file. The host supplies only raw file operations
//! ([`Disk`]), so the native host and the Node host read and write identical files and
//! take turns under the same lock.
//!
//! ## The lock
//!
//! A process holds the memory file's lock while it handles a message that changes the
//! memory: from [`FileLog::lock`] (taken by a refresh with [`Intent::Write`]) to
//! [`FileLog::unlock`] (the host's, once the message is answered, or a few milliseconds
//! later if the next message came meanwhile: a burst of writes takes the lock once) no
//! other process writes to the file. A message that only reads takes no lock: its refresh reads the whole frames
//! other writers appended, and takes the lock only when there is more to do (the file was
//! replaced or cut, or its tail is torn — being written, or left by a writer that died). The lock
//! is a companion file, `<name>.lock`, created exclusively and holding its owner's token
//! (`<pid> <nonce>`). A lock whose owner process is gone, or that is older than
//! [`STALE_LOCK_MS`] (owners hold it for milliseconds), or that names no owner and is older
//! than [`OWNERLESS_LOCK_MS`] (its creator was killed between creating and writing it), is
//! broken: moved aside, checked to be the one judged stale, and removed. Because breaking can race with a new owner, a holder
//! checks that the lock is still its own before every write, and refuses to write if not.
//! A request waits for a live owner's lock at most [`LOCK_WAIT_MS`], then fails naming the
//! owner's pid (a stopped or hung writer holds the others up that long, not until its lock
//! is stale); opening a memory waits until the lock is free or stale.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::frame::{self, ScanError, TornTail};
use crate::log::last_checkpoint;
use crate::log::{Changes, Contents, Foreign, IndexReader, Intent, Log, LogError, Page, SideFile};
use crate::record::is_checkpoint;
use crate::sidefiles;

/// A lock older than this (milliseconds) is stale whoever owns it.
pub const STALE_LOCK_MS: u64 = 30_000;
/// How long (milliseconds) a request waits for a live owner's lock before it fails naming
/// the owner (opening a memory waits until the lock is stale).
pub const LOCK_WAIT_MS: u64 = 10_000;
/// A lock naming no owner older than this (milliseconds) is stale: its creator writes its
/// token right after creating it, so an empty lock this old was left by a process killed in
/// between.
pub const OWNERLESS_LOCK_MS: u64 = 1_000;
/// Bytes of a superseded checkpoint [`Log::entries`] reads at a time to check it.
const WINDOW: u64 = 1 << 20;

/// Entries longer than this are appended in two writes, header then payload, instead of
/// being copied behind their header first.
const SEPARATE_WRITE: usize = 64 << 10;
/// Longest pause between two attempts to take the lock (milliseconds).
const MAX_BACKOFF_MS: u32 = 16;

/// Raw operations on a memory file and on companion files in its directory (named by their
/// file names). Implementations do the I/O and nothing else; `Err` carries the OS error and
/// the path, for the user.
pub trait Disk {
    /// The memory file's name (its last path component).
    fn name(&self) -> &str;
    /// This process's lock token, `<pid> <nonce>`: the pid first, then anything that tells
    /// this process from an earlier one with the same pid.
    fn token(&self) -> &str;

    /// Length of the open memory file in bytes.
    fn size(&mut self) -> Result<u64, LogError>;
    /// `len` bytes of the open memory file from `offset`.
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, LogError>;
    /// Writes all of `bytes` at `offset` of the open memory file.
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), LogError>;
    /// Cuts (or extends) the open memory file to `len` bytes.
    fn set_len(&mut self, len: u64) -> Result<(), LogError>;
    /// Makes what was written durable as the host's durability policy says: before
    /// returning, or within the host's stated bound.
    fn sync(&mut self) -> Result<(), LogError>;
    /// Makes what was written durable before returning.
    fn sync_now(&mut self) -> Result<(), LogError>;
    /// Whether the memory file's path still names the open file (`false` once another
    /// process renamed a new file over it).
    fn is_current(&mut self) -> Result<bool, LogError>;
    /// Opens the file the path names now.
    fn reopen(&mut self) -> Result<(), LogError>;

    /// Creates the companion `name` holding `bytes`, unless it exists: then `Ok(false)`.
    /// On `Err` (its bytes could not be written: a full disk) it does not exist.
    fn create_new(&mut self, name: &str, bytes: &[u8]) -> Result<bool, LogError>;
    /// The content of the companion `name`, or `None` if it does not exist.
    fn read_file(&mut self, name: &str) -> Result<Option<Vec<u8>>, LogError>;
    /// Milliseconds since the companion `name` was modified, or `None` if it does not exist.
    fn age_ms(&mut self, name: &str) -> Result<Option<u64>, LogError>;
    /// Renames the companion `from` to `to`; `Ok(false)` if `from` does not exist.
    fn rename(&mut self, from: &str, to: &str) -> Result<bool, LogError>;
    /// Gives the companion `from` the additional name `to`; `Ok(false)` if `to` exists.
    fn link(&mut self, from: &str, to: &str) -> Result<bool, LogError>;
    /// Removes the companion `name` if it exists.
    fn remove(&mut self, name: &str) -> Result<(), LogError>;
    /// Writes `bytes` at `offset` of the companion `name`, creating it (readable by its
    /// owner only) if it does not exist. Not durable: for the saved search indexes, a cache.
    fn write_part(&mut self, name: &str, offset: u64, bytes: &[u8]) -> Result<(), LogError>;
    /// A reader of the companion `name` that does not borrow the disk (an
    /// [`IndexReader`]: up to `len` bytes from an offset, fewer at its end, `None` if it
    /// does not exist).
    fn part_reader(&mut self, name: &str) -> IndexReader;
    /// Writes `bytes` at offset `at` of the new companion `name`: at offset 0 it is
    /// created (or emptied) first, with the memory file's permissions (and owner, where
    /// allowed); with `done` it is then made durable.
    fn write_new(&mut self, name: &str, at: u64, bytes: &[u8], done: bool) -> Result<(), LogError>;
    /// Keeps the memory file's current content as the new companion `name` (a hard link
    /// where the file system allows, else a copy), durably.
    fn keep_copy(&mut self, name: &str) -> Result<(), LogError>;
    /// Renames the companion `name` over the memory file, makes the rename durable (syncs
    /// the directory) and opens the new file.
    fn install(&mut self, name: &str) -> Result<(), LogError>;

    /// The bytes of a file the user named by `path`, not the memory file nor a companion:
    /// what [`Log::read_named`] documents (resolved as `MEMORY_FILE_PATH` is, a regular
    /// file of at most [`crate::log::MAX_NAMED_BYTES`], never the memory file or a
    /// [`is_companion`] of it).
    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError>;

    /// Whether a process with this pid runs on this machine.
    fn alive(&mut self, pid: u32) -> bool;
    /// Waits this long.
    fn sleep_ms(&mut self, ms: u32);

    /// Closes the memory file and opens, in its place, the one the host keeps for workspace
    /// root `root` (creating it and its directory if missing; [`Log::rescope`]): later calls,
    /// [`Disk::name`] too, are about that file. `Err`: the old file is still open. By
    /// default a disk holds one file and refuses.
    fn rescope(&mut self, root: &str) -> Result<(), LogError> {
        Err(LogError(format!(
            "cannot keep a memory for workspace {root}: this host keeps one memory file"
        )))
    }
}

/// A memory file used as the log of one memory.
pub struct FileLog<D: Disk> {
    disk: D,
    /// Bytes of valid log read or written: where the next frame goes.
    len: u64,
    /// The file holds bytes that are not a log (a reference file not converted yet).
    foreign: bool,
    /// Another process replaced the file since this one last read it.
    replaced: bool,
    /// Whether this process holds the lock now.
    locked: bool,
    /// Whether the guest may write now: the lock was taken, and the last refresh (if any
    /// since) was for writing. A host may keep the lock between messages; a guest that
    /// refreshed for reading is still refused.
    writing: bool,
    /// A replacement being written, if one is.
    replacing: Option<Replacing>,
    warnings: Vec<String>,
}

impl<D: Disk> FileLog<D> {
    /// A log over an opened memory file. Nothing is read before [`Log::replay`].
    pub fn new(disk: D) -> Self {
        FileLog {
            disk,
            len: 0,
            foreign: false,
            replaced: false,
            locked: false,
            writing: false,
            replacing: None,
            warnings: Vec::new(),
        }
    }

    /// The disk underneath.
    pub fn disk(&mut self) -> &mut D {
        &mut self.disk
    }

    /// Warnings collected since the last call (torn tails cut off, stale locks broken).
    pub fn take_warnings(&mut self) -> Vec<String> {
        core::mem::take(&mut self.warnings)
    }

    fn lock_name(&self) -> String {
        format!("{}.lock", self.disk.name())
    }

    /// Takes the file's lock, waiting for other processes to release it (breaking a stale
    /// one), then notices whether another process replaced the file meanwhile.
    pub fn lock(&mut self) -> Result<(), LogError> {
        self.take_lock(None)
    }

    /// Takes the lock as [`FileLog::lock`] does, but waits at most `bound` milliseconds
    /// (slept, so at least that long in time) for a live owner: then `Err` names the owner
    /// and how long it has held the lock.
    fn take_lock(&mut self, bound: Option<u64>) -> Result<(), LogError> {
        let lock = self.lock_name();
        let token = String::from(self.disk.token());
        let (mut backoff, mut waited) = (1, 0u64);
        while !self.disk.create_new(&lock, token.as_bytes())? {
            let Some(owner) = self.disk.read_file(&lock)? else {
                continue; // released meanwhile
            };
            if owner == token.as_bytes() {
                break; // ours already (an earlier unlock failed)
            }
            if self.is_stale(&lock, &owner)? {
                self.break_lock(&lock, &owner)?;
                continue;
            }
            if bound.is_some_and(|bound| waited >= bound) {
                return Err(self.held_by(&lock, &owner));
            }
            self.disk.sleep_ms(backoff);
            waited += u64::from(backoff);
            backoff = (backoff * 2).min(MAX_BACKOFF_MS);
        }
        self.locked = true;
        self.writing = true;
        if !self.disk.is_current()? {
            self.disk.reopen()?;
            self.replaced = true;
        }
        Ok(())
    }

    /// The refusal of a write while `owner` holds the lock, alive, past [`LOCK_WAIT_MS`].
    fn held_by(&mut self, lock: &str, owner: &[u8]) -> LogError {
        let holder = match token_pid(owner) {
            Some(pid) => format!("process {pid}"),
            None => String::from("another process"),
        };
        let held = match self.disk.age_ms(lock) {
            Ok(Some(age)) => format!(" for {} s", age / 1000),
            _ => String::new(),
        };
        LogError(format!(
            "{} is locked by {holder}, which has held it{held} without finishing a write (is it stopped or hung?); nothing was changed, try again (a lock is broken once it is {} s old)",
            self.disk.name(),
            STALE_LOCK_MS / 1000
        ))
    }

    /// Whether a lock owned by someone else (`owner`) is stale: its process is gone, or it
    /// is older than any real hold. (A lock with our own pid but another token may be a
    /// sibling's in this process — another thread's memory on the same file — so only its
    /// age makes it stale.)
    fn is_stale(&mut self, lock: &str, owner: &[u8]) -> Result<bool, LogError> {
        let (gone, limit) = match token_pid(owner) {
            Some(pid) if Some(pid) == token_pid(self.disk.token().as_bytes()) => {
                (false, STALE_LOCK_MS)
            }
            Some(pid) => (!self.disk.alive(pid), STALE_LOCK_MS),
            None => (false, OWNERLESS_LOCK_MS),
        };
        let old = self.disk.age_ms(lock)?.is_some_and(|age| age > limit);
        Ok(gone || old)
    }

    /// Moves a stale lock aside; if what was moved is not the lock judged stale (a new owner
    /// took the name meanwhile), puts it back.
    fn break_lock(&mut self, lock: &str, stale: &[u8]) -> Result<(), LogError> {
        let aside = format!("{lock}.stale.{}", self.disk.token().replace(' ', "-"));
        if !self.disk.rename(lock, &aside)? {
            return Ok(());
        }
        if self.disk.read_file(&aside)?.as_deref() == Some(stale) {
            self.warnings.push(format!(
                "{}: broke a lock left by a process that is gone ({})",
                self.disk.name(),
                String::from_utf8_lossy(stale).trim()
            ));
        } else {
            self.disk.link(&aside, lock)?;
        }
        self.disk.remove(&aside)
    }

    /// Whether this process holds the file's lock.
    pub fn is_locked(&self) -> bool {
        self.locked
    }

    /// Releases the lock taken by [`FileLog::lock`] or a refresh (if it is still ours): the
    /// host calls it once each message is answered, or, keeping it for a burst of writes,
    /// once no message followed within a few milliseconds.
    pub fn unlock(&mut self) {
        self.writing = false;
        if !core::mem::take(&mut self.locked) {
            return;
        }
        let lock = self.lock_name();
        if let Ok(Some(owner)) = self.disk.read_file(&lock)
            && owner == self.disk.token().as_bytes()
        {
            let _ = self.disk.remove(&lock);
        }
    }

    /// Refuses to write unless this process still holds the lock.
    fn check_lock(&mut self) -> Result<(), LogError> {
        if !self.writing {
            return Err(LogError(format!(
                "{}: a write without the file's lock (after a refresh for reading); nothing was written",
                self.disk.name()
            )));
        }
        let lock = self.lock_name();
        if self.disk.read_file(&lock)?.as_deref() == Some(self.disk.token().as_bytes()) {
            return Ok(());
        }
        Err(LogError(format!(
            "{}: this process does not hold the file's lock (it was broken as stale); nothing was written",
            self.disk.name()
        )))
    }

    /// Reads the file: its records after cutting off a torn tail (`from_checkpoint`: only
    /// those from the last checkpoint on, when others come before it — read from the
    /// checkpoint the header names, when it names one, without reading what comes before),
    /// or its bytes if it is not a log. An empty file becomes an empty log.
    fn read(&mut self, from_checkpoint: bool) -> Result<Contents, LogError> {
        let size = self.disk.size()?;
        self.replaced = false;
        self.foreign = false;
        if from_checkpoint && let Some(contents) = self.read_from_named_checkpoint(size)? {
            return Ok(contents);
        }
        let bytes = self.disk.read_at(0, size as usize)?;
        if bytes.is_empty() {
            self.disk.write_at(0, &frame::header())?;
            self.len = frame::HEADER_LEN as u64;
            return Ok(Contents::Records(Vec::new()));
        }
        if !frame::is_log(&bytes) {
            self.foreign = true;
            self.len = 0;
            let mut side_files = Vec::new();
            for name in sidefiles::names(self.disk.name()) {
                if let Some(bytes) = self.disk.read_file(&name)? {
                    side_files.push(SideFile { name, bytes });
                }
            }
            return Ok(Contents::Foreign(Foreign { bytes, side_files }));
        }
        let records = self.take_walk(frame::walk(&bytes))?;
        match last_checkpoint(&records) {
            Some((at, skipped_bytes)) if from_checkpoint => Ok(Contents::FromCheckpoint {
                skipped_bytes,
                entries: owned(&records[at..]),
            }),
            _ => Ok(Contents::Records(owned(&records))),
        }
    }

    /// The entries from the checkpoint the header names on, if the frame there is a whole
    /// checkpoint (else the whole file must be read). The checkpoint is read into its own
    /// buffer (it is most of what opening reads: one copy, not two).
    fn read_from_named_checkpoint(&mut self, size: u64) -> Result<Option<Contents>, LogError> {
        const FRAME_HEADER: u64 = frame::FRAME_HEADER_LEN as u64;
        if size < frame::HEADER_LEN as u64 {
            return Ok(None);
        }
        let header = self.disk.read_at(0, frame::HEADER_LEN)?;
        let Some(at) = frame::checkpoint_at(&header).filter(|&at| at + FRAME_HEADER <= size) else {
            return Ok(None);
        };
        let head = self.disk.read_at(at, frame::FRAME_HEADER_LEN)?;
        let Some(len) =
            frame::payload_len(&head).filter(|&len| at + FRAME_HEADER + len as u64 <= size)
        else {
            return Ok(None);
        };
        let checkpoint = self.disk.read_at(at + FRAME_HEADER, len)?;
        if !is_checkpoint(&checkpoint) || !frame::checksum_holds(&head, &checkpoint) {
            return Ok(None);
        }
        let after = at + FRAME_HEADER + len as u64;
        let tail = self.disk.read_at(after, (size - after) as usize)?;
        let records = self.take_walk(frame::walk_frames(&tail, after as usize))?;
        let frames = |records: &[&[u8]]| -> u64 {
            records.iter().map(|r| FRAME_HEADER + r.len() as u64).sum()
        };
        let (skipped_bytes, entries) = match records.iter().rposition(|r| is_checkpoint(r)) {
            Some(last) => (after + frames(&records[..last]), owned(&records[last..])),
            None => {
                let mut entries = Vec::with_capacity(1 + records.len());
                entries.push(checkpoint);
                entries.extend(records.iter().map(|r| r.to_vec()));
                (at, entries)
            }
        };
        let skipped_bytes = skipped_bytes - frame::HEADER_LEN as u64;
        Ok(Some(if skipped_bytes == 0 {
            Contents::Records(entries)
        } else {
            Contents::FromCheckpoint {
                skipped_bytes,
                entries,
            }
        }))
    }

    /// The records of a walk to the end of the file, after cutting off its torn tail;
    /// damage is an error.
    fn take_walk<'a>(&mut self, walk: frame::Walk<'a>) -> Result<Vec<&'a [u8]>, LogError> {
        let scan = walk.into_scan().map_err(|e| self.untouched(e))?;
        self.len = scan.valid_len as u64;
        if let Some(torn) = scan.torn {
            self.cut_torn_tail(torn)?;
        }
        Ok(scan.records)
    }

    /// The error for damage `e` found while reading.
    fn untouched(&self, e: ScanError) -> LogError {
        LogError(format!(
            "{}: {e}; the file was left untouched",
            self.disk.name()
        ))
    }

    /// Reads the frame at `at`, longer than a page's window (unless it is a checkpoint
    /// other than the `first` entry: a superseded one, whose checksum is checked a
    /// [`WINDOW`] at a time); returns it and where the next frame starts.
    fn long_entry(&mut self, at: u64, first: bool) -> Result<(Option<Vec<u8>>, u64), LogError> {
        const HEAD: u64 = frame::FRAME_HEADER_LEN as u64;
        let corrupt = |reason| ScanError::Corrupt {
            offset: at as usize,
            reason,
        };
        let head = self.disk.read_at(at, frame::FRAME_HEADER_LEN)?;
        let Some(len) = frame::payload_len(&head) else {
            return Err(self.untouched(corrupt("record length check failed")));
        };
        let end = at + HEAD + len as u64;
        if end > self.len {
            return Err(self.untouched(corrupt("record runs past the end")));
        }
        let tag = self.disk.read_at(at + HEAD, 1)?;
        let mut entry = None;
        let holds = if first || !is_checkpoint(&tag) {
            let payload = self.disk.read_at(at + HEAD, len)?;
            let holds = frame::checksum_holds(&head, &payload);
            entry = Some(payload);
            holds
        } else {
            let mut crc = crc32fast::Hasher::new();
            let mut from = at + HEAD;
            while from < end {
                let chunk = self.disk.read_at(from, (end - from).min(WINDOW) as usize)?;
                crc.update(&chunk);
                from += chunk.len() as u64;
            }
            frame::checksum_of(&head) == crc.finalize()
        };
        if !holds {
            return Err(self.untouched(corrupt("checksum mismatch")));
        }
        Ok((entry, end))
    }

    /// Cuts the file back to the valid prefix after a torn tail (the writer that left it
    /// is gone: the lock is ours), with a warning.
    fn cut_torn_tail(&mut self, torn: TornTail) -> Result<(), LogError> {
        self.warnings.push(format!(
            "{}: {torn}; the tail was cut off",
            self.disk.name()
        ));
        // A checkpoint the header names in the tail goes with it (frames written later
        // there are something else).
        if self.len >= frame::HEADER_LEN as u64 {
            let header = self.disk.read_at(0, frame::HEADER_LEN)?;
            if frame::checkpoint_at(&header).is_some_and(|at| at >= self.len) {
                let none = frame::checkpoint_word(None);
                self.disk.write_at(frame::CHECKPOINT_AT as u64, &none)?;
            }
        }
        self.disk.set_len(self.len)?;
        if self.len == 0 {
            self.disk.write_at(0, &frame::header())?;
            self.len = frame::HEADER_LEN as u64;
        }
        self.disk.sync_now()
    }

    /// `<name>.bak`, or `<name>.bak.N` for the first N that does not exist yet.
    fn backup_name(&mut self) -> Result<String, LogError> {
        let first = format!("{}.bak", self.disk.name());
        if self.disk.age_ms(&first)?.is_none() {
            return Ok(first);
        }
        let mut n = 1;
        loop {
            let name = format!("{first}.{n}");
            if self.disk.age_ms(&name)?.is_none() {
                return Ok(name);
            }
            n += 1;
        }
    }

    /// What a reader may take without the lock: nothing new, or the whole frames other
    /// writers appended; `None` when catching up needs the lock (the file was replaced or
    /// cut, or its tail is torn: still being written, or left by a writer that died).
    fn peek(&mut self) -> Result<Option<Changes>, LogError> {
        if self.replaced || !self.disk.is_current()? {
            return Ok(None);
        }
        let size = self.disk.size()?;
        if self.foreign || size == self.len {
            return Ok(Some(Changes::Appended(Vec::new())));
        }
        if size < self.len {
            return Ok(None);
        }
        let tail = self.disk.read_at(self.len, (size - self.len) as usize)?;
        Ok(match frame::scan_frames(&tail, self.len as usize) {
            Ok(scan) if scan.torn.is_none() => {
                self.len = scan.valid_len as u64;
                Some(Changes::Appended(owned(&scan.records)))
            }
            _ => None,
        })
    }

    /// Writes a piece of a replacement into `tmp` ([`Log::replace_piece`]), and with the
    /// `last` one installs it.
    fn write_replacement(
        &mut self,
        tmp: &str,
        entries: &[Vec<u8>],
        first: bool,
        last: bool,
    ) -> Result<(), LogError> {
        let (at, mut checkpoint) = match (first, self.replacing) {
            (true, _) => (0, None),
            (false, Some(r)) => (r.len, r.checkpoint),
            (false, None) => {
                return Err(LogError(format!(
                    "{}: a piece of a new log came with no first one; nothing was written",
                    self.disk.name()
                )));
            }
        };
        self.replacing = None;
        let mut bytes = match first {
            true => frame::header().to_vec(),
            false => Vec::new(),
        };
        for e in entries {
            if is_checkpoint(e) {
                checkpoint = Some(at + bytes.len() as u64);
            }
            frame::encode_frame(e, &mut bytes);
        }
        let len = at + bytes.len() as u64;
        self.disk.write_new(tmp, at, &bytes, false)?;
        if !last {
            self.replacing = Some(Replacing { len, checkpoint });
            return Ok(());
        }
        let word = frame::checkpoint_word(checkpoint);
        self.disk
            .write_new(tmp, frame::CHECKPOINT_AT as u64, &word, true)?;
        if self.foreign {
            let bak = self.backup_name()?;
            self.disk.keep_copy(&bak)?;
        }
        self.check_lock()?;
        self.disk.install(tmp)?;
        self.len = len;
        self.foreign = false;
        Ok(())
    }
}

/// A replacement being written ([`Log::replace_piece`]).
#[derive(Debug, Clone, Copy)]
struct Replacing {
    /// Bytes written so far.
    len: u64,
    /// Where its last checkpoint so far starts.
    checkpoint: Option<u64>,
}

impl<D: Disk> Drop for FileLog<D> {
    /// Leaves no lock behind (one left by a crash is broken as stale by the next process).
    fn drop(&mut self) {
        self.unlock();
    }
}

/// Copies of the records a scan found.
fn owned(records: &[&[u8]]) -> Vec<Vec<u8>> {
    records.iter().map(|r| r.to_vec()).collect()
}

/// Whether the file called `file` (a last path component) beside the memory file called
/// `memory` is one of the companions a [`FileLog`] makes: its lock (`<memory>.lock`, and a
/// stale one moved aside), a conversion backup (`<memory>.bak`, `<memory>.bak.N`), its
/// saved search indexes (`<memory>.indexes`), or a temporary file of a replacement or of a
/// save (`.<memory>.<token>.tmp`, `.<memory>.indexes.tmp`). The memory file itself is not
/// its own companion.
pub fn is_companion(memory: &str, file: &str) -> bool {
    if let Some(rest) = file.strip_prefix(memory) {
        return rest == ".lock"
            || rest.starts_with(".lock.stale.")
            || rest == INDEXES
            || rest == ".bak"
            || rest
                .strip_prefix(".bak.")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    }
    file.strip_prefix('.')
        .and_then(|f| f.strip_prefix(memory))
        .is_some_and(|rest| rest.starts_with('.') && rest.ends_with(".tmp"))
}

/// The saved search indexes' companion: `<memory>.indexes`, written as
/// `.<memory>.indexes.tmp` and renamed over it.
const INDEXES: &str = ".indexes";

/// The pid a lock token starts with.
fn token_pid(token: &[u8]) -> Option<u32> {
    core::str::from_utf8(token)
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

impl<D: Disk> Log for FileLog<D> {
    fn replay(&mut self) -> Result<Contents, LogError> {
        self.read(true)
    }

    fn refresh(&mut self, intent: Intent) -> Result<Changes, LogError> {
        if !self.locked {
            if intent == Intent::Read
                && let Some(changes) = self.peek()?
            {
                return Ok(changes);
            }
            self.take_lock(Some(LOCK_WAIT_MS))?;
        }
        self.writing = intent == Intent::Write;
        let size = self.disk.size()?;
        if self.replaced || (!self.foreign && size < self.len) {
            return match self.read(true)? {
                Contents::Records(entries) => Ok(Changes::Replaced {
                    skipped_bytes: 0,
                    entries,
                }),
                Contents::FromCheckpoint {
                    skipped_bytes,
                    entries,
                } => Ok(Changes::Replaced {
                    skipped_bytes,
                    entries,
                }),
                Contents::Foreign(_) => Ok(Changes::Appended(Vec::new())),
            };
        }
        if self.foreign || size == self.len {
            return Ok(Changes::Appended(Vec::new()));
        }
        let tail = self.disk.read_at(self.len, (size - self.len) as usize)?;
        let records = self.take_walk(frame::walk_frames(&tail, self.len as usize))?;
        Ok(Changes::Appended(owned(&records)))
    }

    fn append(&mut self, entry: &[u8]) -> Result<(), LogError> {
        if self.foreign {
            return Err(LogError(format!(
                "{}: the file is not a memory log yet, so nothing can be appended to it",
                self.disk.name()
            )));
        }
        self.check_lock()?;
        // A long entry (a checkpoint: megabytes at 40K entities) is written after its header
        // rather than copied behind it; a short one in one write.
        let header = frame::frame_header(entry);
        let written = if entry.len() > SEPARATE_WRITE {
            let body_at = self.len + header.len() as u64;
            (self.disk.write_at(self.len, &header))
                .and_then(|()| self.disk.write_at(body_at, entry))
        } else {
            self.disk.write_at(self.len, &[&header[..], entry].concat())
        };
        if let Err(e) = written {
            // Leave no partial frame behind (replay would drop it as torn anyway).
            let _ = self.disk.set_len(self.len);
            return Err(e);
        }
        if is_checkpoint(entry) {
            // The entry is in the log either way: a header that still names an older
            // checkpoint only makes the next opening read more.
            let word = frame::checkpoint_word(Some(self.len));
            let _ = self.disk.write_at(frame::CHECKPOINT_AT as u64, &word);
        }
        self.len += (header.len() + entry.len()) as u64;
        Ok(())
    }

    fn sync(&mut self) -> Result<(), LogError> {
        self.disk.sync()
    }

    /// A page is one read of `budget` bytes from `from` (a frame's offset; 0, the first),
    /// more while it holds none: checkpoints after the first entry restate the entries
    /// before them and are left out (at 40K entities a bulk-loaded log is 32 MB, of which
    /// 26 are superseded checkpoints), so the file is never in memory at once.
    fn entries(&mut self, from: u64, budget: u32) -> Result<Page, LogError> {
        const FIRST: u64 = frame::HEADER_LEN as u64;
        if self.foreign {
            return Ok(Page::default());
        }
        if from == 0 {
            let head = self.disk.read_at(0, frame::HEADER_LEN)?;
            if let frame::End::Damaged(e) = frame::walk(&head).end {
                return Err(self.untouched(e));
            }
        }
        let mut entries = Vec::new();
        let mut at = from.max(FIRST);
        while entries.is_empty() && at < self.len {
            let window = (self.disk).read_at(at, (self.len - at).min(budget.into()) as usize)?;
            let walk = frame::walk_frames(&window, at as usize);
            for (i, r) in walk.records.iter().enumerate() {
                if (at == FIRST && i == 0) || !is_checkpoint(r) {
                    entries.push(r.to_vec());
                }
            }
            at = match walk.end {
                frame::End::Damaged(e) => return Err(self.untouched(e)),
                // A frame longer than the window.
                frame::End::Torn(_) if walk.records.is_empty() => {
                    let (entry, end) = self.long_entry(at, at == FIRST)?;
                    entries.extend(entry);
                    end
                }
                _ => walk.valid_len as u64,
            };
        }
        Ok(Page {
            entries,
            next: (at < self.len).then_some(at),
        })
    }

    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError> {
        self.disk.read_named(path)
    }

    /// Writes the save into `.<memory>.indexes.tmp` and renames it over `<memory>.indexes`.
    fn save_indexes(&mut self, at: u64, piece: &[u8], done: bool) -> Result<(), LogError> {
        let saved = format!("{}{INDEXES}", self.disk.name());
        let tmp = format!(".{saved}.tmp");
        if at == 0 && done && piece.is_empty() {
            return self.disk.remove(&saved);
        }
        if at == 0 && !done {
            self.disk.remove(&tmp)?;
        }
        let written = self.disk.write_part(&tmp, at, piece);
        let finished = written.and_then(|()| match done {
            true => self.disk.rename(&tmp, &saved).map(drop),
            false => Ok(()),
        });
        if finished.is_err() {
            let _ = self.disk.remove(&tmp);
        }
        finished
    }

    fn index_reader(&mut self) -> Option<IndexReader> {
        let saved = format!("{}{INDEXES}", self.disk.name());
        Some(self.disk.part_reader(&saved))
    }

    fn rescope(&mut self, root: &str) -> Result<(), LogError> {
        // Its lock is named beside the old file: released while the disk still opens there.
        self.unlock();
        self.disk.rescope(root)?;
        // Read from its start, as a new log over the new file would be; the lock held for
        // the replay (a conversion writes) ends with the host's turn.
        self.len = 0;
        self.foreign = false;
        self.replaced = false;
        self.lock()
    }

    /// Writes the new log into `.<memory>.<token>.tmp`, then renames it over the file.
    fn replace_piece(
        &mut self,
        entries: &[Vec<u8>],
        first: bool,
        last: bool,
    ) -> Result<(), LogError> {
        let tmp = format!(
            ".{}.{}.tmp",
            self.disk.name(),
            self.disk.token().replace(' ', "-")
        );
        let result = self.write_replacement(&tmp, entries, first, last);
        if result.is_err() {
            self.replacing = None;
            let _ = self.disk.remove(&tmp);
        }
        result
    }
}
