//! The memory file: the component's log, kept in a file in the format of
//! `mcp_memory_core::frame` (documented in `docs/file-format.md`).
//!
//! Opening applies the recovery rules: a torn tail is cut off with a warning, damage before
//! the tail is an error naming the offset, and the file is then never written. A file that is
//! not a log (a reference JSONL file) is handed to the guest as foreign bytes; the guest
//! converts it through [`FileLog::replace`], which keeps the original as `<name>.bak`.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read};
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

/// What the file held when it was opened, before the guest took it.
pub enum Opened {
    /// Record payloads of a log.
    Records(Vec<Vec<u8>>),
    /// A file in another format.
    Foreign(Vec<u8>),
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
pub struct FileLog {
    path: PathBuf,
    shared: Arc<Shared>,
    /// Bytes of valid log in the file: where the next frame goes.
    len: u64,
    contents: Option<Opened>,
    foreign: bool,
    durability: Durability,
    flusher: Option<thread::JoinHandle<()>>,
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

/// Opens (creating if needed) the file at `path` and takes an exclusive lock on it: every
/// process appends at the end it saw when it opened the file, so a second writer would
/// overwrite the first one's records.
fn open_locked(path: &Path, warnings: &mut Vec<String>) -> Result<File> {
    loop {
        let file = open_rw(path).with_context(|| format!("cannot open {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => bail!(
                "{} is in use by another mcp-memory process; a memory file serves one process at a time",
                path.display()
            ),
            Err(TryLockError::Error(e)) => {
                warnings.push(format!(
                    "{}: cannot lock the file ({e}); do not let two mcp-memory processes use it at once",
                    path.display()
                ));
                return Ok(file);
            }
        }
        // A conversion by the previous holder may have renamed a new file over the path
        // between our open and our lock: then the lock is on the old file; open again.
        let (locked, current) = (file.metadata()?, fs::metadata(path));
        if current.is_ok_and(|c| (c.dev(), c.ino()) == (locked.dev(), locked.ino())) {
            return Ok(file);
        }
    }
}

impl FileLog {
    /// Opens (creating if needed) the memory file at `path`. Returns the log and warnings.
    pub fn open(path: &Path, durability: Durability) -> Result<(FileLog, Vec<String>)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the directory {}", dir.display()))?;
        }
        let mut warnings = Vec::new();
        let mut file = open_locked(path, &mut warnings)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let (contents, len, foreign) = if bytes.is_empty() {
            file.write_all_at(&frame::header(), 0)?;
            (Opened::Records(Vec::new()), frame::HEADER_LEN as u64, false)
        } else if frame::is_log(&bytes) {
            let scan = frame::scan(&bytes).map_err(|e| {
                anyhow::anyhow!("{}: {e}; the file was left untouched", path.display())
            })?;
            let mut len = scan.valid_len as u64;
            if let Some(torn) = scan.torn {
                warnings.push(format!("{}: {torn}; the tail was cut off", path.display()));
                file.set_len(len)?;
                if len == 0 {
                    file.write_all_at(&frame::header(), 0)?;
                    len = frame::HEADER_LEN as u64;
                }
                file.sync_all()?;
            }
            let records = scan.records.iter().map(|r| r.to_vec()).collect();
            (Opened::Records(records), len, false)
        } else {
            (Opened::Foreign(bytes), 0, true)
        };
        let shared = Arc::new(Shared {
            file: Mutex::new(file),
            dirty: AtomicBool::new(false),
            stop: AtomicBool::new(false),
        });
        let flusher = (durability == Durability::Background).then(|| spawn_flusher(&shared));
        let log = FileLog {
            path: path.to_path_buf(),
            shared,
            len,
            contents: Some(contents),
            foreign,
            durability,
            flusher,
        };
        Ok((log, warnings))
    }

    /// The contents as of opening (once; later calls get an empty log).
    pub fn replay(&mut self) -> Opened {
        self.contents.take().unwrap_or(Opened::Records(Vec::new()))
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
        // The lock must cover the file that will be at the path. Locking a file nobody else
        // has open fails only where locks are unsupported, which `open_locked` reported.
        let _ = new.try_lock();
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
