//! The memory file: the component's log, kept in a file in the format of
//! `mcp_memory_core::frame` (documented in `docs/file-format.md`).
//!
//! Reading applies the recovery rules: a torn tail is cut off with a warning, damage before
//! the tail is an error naming the offset, and the file is then never written. A file that is
//! not a log (a reference JSONL file) is handed to the guest as foreign bytes; the guest
//! converts it through [`FileLog::replace`], which keeps the original as `<name>.bak`.
//! Processes sharing a file take turns under its lock (see [`FileLog`]).

use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use mcp_memory_core::frame;

/// When appended records reach stable storage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Durability {
    /// fsync before every reply: an acknowledged change survives a crash.
    Sync,
    /// fsync in the background, at most one second behind.
    Background,
}

/// How far the background flusher may lag behind the last append.
const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// What the file held when it was read, before the guest took it.
pub enum Opened {
    /// Record payloads of a log.
    Records(Vec<Vec<u8>>),
    /// A file in another format.
    Foreign(Vec<u8>),
}

/// What other processes did to the file since this one last read it.
pub enum Changes {
    /// They appended these record payloads.
    Appended(Vec<Vec<u8>>),
    /// They replaced the file; these are all its records.
    Replaced(Vec<Vec<u8>>),
}

/// State shared with the background flusher.
struct Shared {
    file: Mutex<File>,
    dirty: AtomicBool,
    stop: AtomicBool,
}

impl Shared {
    fn file(&self) -> MutexGuard<'_, File> {
        // A panic while holding the lock cannot leave the File itself inconsistent.
        self.file.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A memory file opened as the component's log.
///
/// Several processes may use one file (two MCP clients configured with the same path). Each
/// takes the file's exclusive advisory lock around every message it handles ([`lock`] /
/// [`unlock`]); under the lock, [`refresh`] reads what the others appended (or notices that
/// one of them replaced the file) before this process appends at the true end.
///
/// [`lock`]: FileLog::lock
/// [`unlock`]: FileLog::unlock
/// [`refresh`]: FileLog::refresh
pub struct FileLog {
    path: PathBuf,
    shared: Arc<Shared>,
    /// Device and inode of the open file, to notice a replacement by another process.
    identity: (u64, u64),
    /// Bytes of valid log this process has read or written: where the next frame goes.
    len: u64,
    /// The file holds bytes that are not a log (a reference file not converted yet).
    foreign: bool,
    /// Another process replaced the file since this one last read it.
    replaced: bool,
    /// Whether the file system supports locks (if not, one process per file, warned about).
    lockable: bool,
    durability: Durability,
    flusher: Option<thread::JoinHandle<()>>,
    warnings: Vec<String>,
}

fn open_rw(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)
}

fn identity(meta: &fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

impl FileLog {
    /// Opens (creating it and its directory if needed) the memory file at `path`. Nothing
    /// is read until [`FileLog::replay`], which needs the lock.
    pub fn open(path: &Path, durability: Durability) -> Result<FileLog> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the directory {}", dir.display()))?;
        }
        let file = open_rw(path).with_context(|| format!("cannot open {}", path.display()))?;
        let id = identity(&file.metadata()?);
        let shared = Arc::new(Shared {
            file: Mutex::new(file),
            dirty: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        });
        let flusher = (durability == Durability::Background).then(|| spawn_flusher(&shared));
        Ok(FileLog {
            identity: id,
            path: path.to_path_buf(),
            shared,
            len: 0,
            foreign: false,
            replaced: false,
            lockable: true,
            durability,
            flusher,
            warnings: Vec::new(),
        })
    }

    /// Takes the file's exclusive lock, waiting for other processes to release it. If
    /// another process replaced the file meanwhile, switches to the new file first.
    pub fn lock(&mut self) -> Result<()> {
        while self.lockable {
            if let Err(e) = self.shared.file().lock() {
                if e.kind() != io::ErrorKind::Unsupported {
                    return Err(e).with_context(|| format!("cannot lock {}", self.path.display()));
                }
                self.lockable = false;
                self.warnings.push(format!(
                    "{}: the file system cannot lock files; do not let two mcp-memory processes use this file at once",
                    self.path.display()
                ));
                break;
            }
            match fs::metadata(&self.path) {
                Ok(meta) if identity(&meta) != self.identity => {
                    // Locked the old file: the path now names the one that replaced it.
                    let file = open_rw(&self.path)
                        .with_context(|| format!("cannot open {}", self.path.display()))?;
                    self.identity = identity(&file.metadata()?);
                    *self.shared.file() = file;
                    self.replaced = true;
                }
                // Still our file (or the path was removed: keep using the file we have).
                _ => break,
            }
        }
        Ok(())
    }

    /// Releases the lock taken by [`FileLog::lock`].
    pub fn unlock(&mut self) {
        if self.lockable {
            let _ = self.shared.file().unlock();
        }
    }

    /// Warnings collected since the last call (torn tails cut off, missing locks).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Reads the whole file (under the lock): its records, after cutting off a torn tail
    /// with a warning, or its bytes if it is not a log. An empty file becomes an empty log.
    /// Damage before the tail is an error naming the offset, and the file is not touched.
    pub fn replay(&mut self) -> Result<Opened> {
        let bytes = {
            let file = self.shared.file();
            let mut bytes = vec![0; file.metadata()?.len() as usize];
            file.read_exact_at(&mut bytes, 0)
                .with_context(|| format!("cannot read {}", self.path.display()))?;
            bytes
        };
        self.replaced = false;
        self.foreign = false;
        if bytes.is_empty() {
            self.shared.file().write_all_at(&frame::header(), 0)?;
            self.len = frame::HEADER_LEN as u64;
            return Ok(Opened::Records(Vec::new()));
        }
        if !frame::is_log(&bytes) {
            self.foreign = true;
            self.len = 0;
            return Ok(Opened::Foreign(bytes));
        }
        let scan = frame::scan(&bytes).map_err(|e| {
            anyhow::anyhow!("{}: {e}; the file was left untouched", self.path.display())
        })?;
        self.len = scan.valid_len as u64;
        if let Some(torn) = scan.torn {
            self.cut_torn_tail(torn)?;
        }
        Ok(Opened::Records(
            scan.records.iter().map(|r| r.to_vec()).collect(),
        ))
    }

    /// Cuts the file back to `self.len` after a torn tail (under the lock: the writer that
    /// left it has died), with a warning.
    fn cut_torn_tail(&mut self, torn: frame::TornTail) -> Result<()> {
        self.warnings.push(format!(
            "{}: {torn}; the tail was cut off",
            self.path.display()
        ));
        let file = self.shared.file();
        file.set_len(self.len)?;
        if self.len == 0 {
            file.write_all_at(&frame::header(), 0)?;
            self.len = frame::HEADER_LEN as u64;
        }
        file.sync_all()?;
        Ok(())
    }

    /// What other processes did since this one last read the file (under the lock).
    pub fn refresh(&mut self) -> Result<Changes> {
        let size = self.shared.file().metadata()?.len();
        if self.replaced || (!self.foreign && size < self.len) {
            return match self.replay()? {
                Opened::Records(records) => Ok(Changes::Replaced(records)),
                Opened::Foreign(_) => Ok(Changes::Appended(Vec::new())),
            };
        }
        if self.foreign || size == self.len {
            return Ok(Changes::Appended(Vec::new()));
        }
        let mut tail = vec![0; (size - self.len) as usize];
        self.shared
            .file()
            .read_exact_at(&mut tail, self.len)
            .with_context(|| format!("cannot read {}", self.path.display()))?;
        let base = self.len as usize;
        let scan = frame::scan_frames(&tail, base).map_err(|e| {
            anyhow::anyhow!("{}: {e}; the file was left untouched", self.path.display())
        })?;
        let records = scan.records.iter().map(|r| r.to_vec()).collect();
        self.len = scan.valid_len as u64;
        if let Some(torn) = scan.torn {
            self.cut_torn_tail(torn)?;
        }
        Ok(Changes::Appended(records))
    }

    /// Appends one framed record; on failure the file is cut back to its previous length.
    pub fn append(&mut self, entry: &[u8]) -> Result<()> {
        if self.foreign {
            bail!("the memory file is not a memory log yet, so nothing can be appended to it");
        }
        let mut frame = Vec::with_capacity(frame::FRAME_HEADER_LEN + entry.len());
        frame::encode_frame(entry, &mut frame);
        let file = self.shared.file();
        if let Err(e) = file.write_all_at(&frame, self.len) {
            // Best effort: leave no partial frame behind (replay would drop it as torn).
            let _ = file.set_len(self.len);
            return Err(e).with_context(|| format!("cannot write to {}", self.path.display()));
        }
        self.len += frame.len() as u64;
        self.shared.dirty.store(true, Ordering::Release);
        Ok(())
    }

    /// Makes appended records durable now (`sync`) or leaves them to the flusher.
    pub fn sync(&mut self) -> Result<()> {
        if self.durability == Durability::Sync && self.shared.dirty.swap(false, Ordering::AcqRel) {
            self.shared
                .file()
                .sync_data()
                .with_context(|| format!("cannot sync {}", self.path.display()))?;
        }
        Ok(())
    }

    /// Atomically replaces the file with a log of `entries` (temp file, fsync, rename,
    /// fsync of the directory), keeping its permissions, and keeping a foreign original as
    /// `<name>.bak`.
    pub fn replace(&mut self, entries: &[Vec<u8>]) -> Result<()> {
        let bytes = frame::encode_log(entries.iter().map(Vec::as_slice));
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let name = self
            .path
            .file_name()
            .context("the memory file path has a file name")?
            .to_string_lossy()
            .into_owned();
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let result = self.install(&bytes, &tmp, &name);
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }

    fn install(&mut self, bytes: &[u8], tmp: &Path, name: &str) -> Result<()> {
        let old_meta = fs::metadata(&self.path)?;
        let new = open_rw(tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
        new.set_len(0)?;
        new.write_all_at(bytes, 0)?;
        new.set_permissions(old_meta.permissions())?;
        {
            // Keeping the owner needs privileges we usually lack; the mode is what matters.
            let _ = std::os::unix::fs::fchown(&new, Some(old_meta.uid()), Some(old_meta.gid()));
        }
        new.sync_all()?;
        // The lock must cover the file that will be at the path before it gets there.
        if self.lockable {
            new.try_lock()
                .with_context(|| format!("cannot lock {}", tmp.display()))?;
        }
        if self.foreign {
            let bak = backup_path(&self.path, name);
            if fs::hard_link(&self.path, &bak).is_err() {
                fs::copy(&self.path, &bak)
                    .with_context(|| format!("cannot keep the original as {}", bak.display()))?;
            }
        }
        fs::rename(tmp, &self.path)
            .with_context(|| format!("cannot replace {}", self.path.display()))?;
        sync_dir(self.path.parent().unwrap_or(Path::new(".")))?;
        self.identity = identity(&new.metadata()?);
        *self.shared.file() = new;
        self.len = bytes.len() as u64;
        self.foreign = false;
        self.shared.dirty.store(false, Ordering::Release);
        Ok(())
    }
}

/// `<name>.bak`, or `<name>.bak.N` for the first N that does not exist yet.
fn backup_path(path: &Path, name: &str) -> PathBuf {
    let first = path.with_file_name(format!("{name}.bak"));
    if !first.exists() {
        return first;
    }
    (1..)
        .map(|n| path.with_file_name(format!("{name}.bak.{n}")))
        .find(|p| !p.exists())
        .expect("some backup name is free")
}

fn sync_dir(dir: &Path) -> Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot sync the directory {}", dir.display()))
}

fn spawn_flusher(shared: &Arc<Shared>) -> thread::JoinHandle<()> {
    let shared = Arc::clone(shared);
    thread::spawn(move || {
        while !shared.stop.load(Ordering::Acquire) {
            thread::park_timeout(FLUSH_INTERVAL);
            if shared.dirty.swap(false, Ordering::AcqRel)
                && let Err(e) = shared.file().sync_data()
            {
                eprintln!("mcp-memory: error: background fsync failed: {e}");
            }
        }
    })
}

impl Drop for FileLog {
    /// Stops the flusher and makes everything appended durable.
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(flusher) = self.flusher.take() {
            flusher.thread().unpark();
            let _ = flusher.join();
        }
        if self.shared.dirty.swap(false, Ordering::AcqRel)
            && let Err(e) = self.shared.file().sync_data()
        {
            eprintln!("mcp-memory: error: final fsync failed: {e}");
        }
    }
}
