//! The memory file's raw I/O for the native host ([`Disk`] over `std::fs`), and its fsync
//! policy. Everything else about the file — recovery, the lock shared with other processes,
//! conversion backups — is `mcp_memory_core::filelog`, shared with the Node host.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use mcp_memory_core::LogError;
use mcp_memory_core::filelog::{Disk, FileLog, is_companion};
use mcp_memory_core::log::{IndexReader, MAX_NAMED_BYTES};

use crate::{config, resident};

/// When appended records reach stable storage.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Durability {
    /// fsync before every reply: an acknowledged change survives a crash.
    Sync,
    /// fsync in the background, at most one second behind.
    Background,
}

/// How far the background flusher may lag behind the last write.
const FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// How the open file is made durable: `File::sync_data`, unless a test injects failures
/// ([`FsDisk::open_with_fsync`]).
pub type Fsync = fn(&File) -> io::Result<()>;

/// The open memory file, shared with the background flusher.
struct Shared {
    file: Mutex<File>,
    /// Bytes were written that no successful fsync covers yet.
    dirty: AtomicBool,
    stop: AtomicBool,
    fsync: Fsync,
    /// A failed background fsync that no client has heard of and no later fsync has made
    /// moot: the next `sync` reports it.
    failure: Mutex<Option<String>>,
}

impl Shared {
    fn file(&self) -> MutexGuard<'_, File> {
        // A panic while holding the lock cannot leave the File itself inconsistent.
        self.file.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn failure(&self) -> MutexGuard<'_, Option<String>> {
        self.failure.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Fsyncs the file if something written is not yet durable. A failure leaves it dirty,
    /// so the next attempt covers those bytes again; a success makes every earlier failure
    /// moot (nothing written is at risk any more).
    fn flush(&self) -> io::Result<()> {
        if !self.dirty.swap(false, Ordering::AcqRel) {
            return Ok(());
        }
        let synced = (self.fsync)(&self.file());
        match &synced {
            Ok(()) => *self.failure() = None,
            Err(_) => self.dirty.store(true, Ordering::Release),
        }
        synced
    }
}

/// A memory file on a local file system.
pub struct FsDisk {
    path: PathBuf,
    /// The memory file the server was started on: workspace roots' memories are found from
    /// it ([`crate::config::root_memory`]).
    started_on: PathBuf,
    dir: PathBuf,
    name: String,
    token: String,
    shared: Arc<Shared>,
    /// Device and inode of the open file, to notice a replacement by another process.
    identity: (u64, u64),
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

fn identity(meta: &fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

fn err(e: io::Error, what: &str, path: &Path) -> LogError {
    LogError(format!("cannot {what} {}: {e}", path.display()))
}

/// A file the user named that is not read, and why.
fn named_err(path: &str, why: &str) -> LogError {
    LogError(format!("cannot read {path}: {why}"))
}

/// The memory file at `path` as a [`FileLog`], creating the file and its directory if
/// needed. Nothing is read until the log is replayed.
pub fn open_log(path: &Path, durability: Durability) -> Result<FileLog<FsDisk>> {
    Ok(FileLog::new(FsDisk::open(path, durability)?))
}

impl FsDisk {
    /// Opens (creating it and its directory if needed) the memory file at `path`.
    pub fn open(path: &Path, durability: Durability) -> Result<FsDisk> {
        Self::open_with_fsync(path, durability, File::sync_data)
    }

    /// [`FsDisk::open`] with `fsync` making the file durable: for tests that make the disk
    /// fail (ENOSPC, EIO) and recover.
    pub fn open_with_fsync(path: &Path, durability: Durability, fsync: Fsync) -> Result<FsDisk> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create the directory {}", dir.display()))?;
        let name = path
            .file_name()
            .context("the memory file path names no file")?
            .to_string_lossy()
            .into_owned();
        let file = open_rw(path).with_context(|| format!("cannot open {}", path.display()))?;
        let id = identity(&file.metadata()?);
        let shared = Arc::new(Shared {
            file: Mutex::new(file),
            dirty: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            fsync,
            failure: Mutex::new(None),
        });
        let flusher = (durability == Durability::Background).then(|| spawn_flusher(&shared, path));
        let nonce = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Ok(FsDisk {
            path: path.to_path_buf(),
            started_on: path.to_path_buf(),
            dir,
            name,
            token: format!("{} {nonce}", std::process::id()),
            shared,
            identity: id,
            durability,
            flusher,
        })
    }

    fn companion(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn open_current(&mut self) -> Result<(), LogError> {
        let file = open_rw(&self.path).map_err(|e| err(e, "open", &self.path))?;
        let meta = file.metadata().map_err(|e| err(e, "stat", &self.path))?;
        self.identity = identity(&meta);
        *self.shared.file() = file;
        Ok(())
    }
}

impl Disk for FsDisk {
    fn name(&self) -> &str {
        &self.name
    }

    fn token(&self) -> &str {
        &self.token
    }

    fn size(&mut self) -> Result<u64, LogError> {
        let meta = self.shared.file().metadata();
        meta.map(|m| m.len())
            .map_err(|e| err(e, "stat", &self.path))
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, LogError> {
        let mut bytes = vec![0; len];
        resident::populate(&mut bytes);
        let read = self.shared.file().read_exact_at(&mut bytes, offset);
        read.map_err(|e| err(e, "read", &self.path))?;
        Ok(bytes)
    }

    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), LogError> {
        let written = self.shared.file().write_all_at(bytes, offset);
        written.map_err(|e| err(e, "write to", &self.path))?;
        self.shared.dirty.store(true, Ordering::Release);
        Ok(())
    }

    fn set_len(&mut self, len: u64) -> Result<(), LogError> {
        let cut = self.shared.file().set_len(len);
        cut.map_err(|e| err(e, "truncate", &self.path))
    }

    fn sync(&mut self) -> Result<(), LogError> {
        match self.durability {
            Durability::Sync => self.sync_now(),
            // The flusher makes it durable within FLUSH_INTERVAL; what it could not make
            // durable since the last sync is this call's error, once.
            Durability::Background => match self.shared.failure().take() {
                Some(failure) => Err(LogError(failure)),
                None => Ok(()),
            },
        }
    }

    fn sync_now(&mut self) -> Result<(), LogError> {
        self.shared.flush().map_err(|e| err(e, "sync", &self.path))
    }

    fn is_current(&mut self) -> Result<bool, LogError> {
        // A removed path: keep using the open file.
        Ok(fs::metadata(&self.path).map_or(true, |m| identity(&m) == self.identity))
    }

    fn reopen(&mut self) -> Result<(), LogError> {
        self.open_current()
    }

    fn rescope(&mut self, root: &str) -> Result<(), LogError> {
        let path = crate::config::root_memory(&self.started_on, root).map_err(LogError)?;
        // The old file's writes made durable first: a failed fsync is reported, not dropped
        // with the file.
        self.sync_now()?;
        let mut next = FsDisk::open_with_fsync(&path, self.durability, self.shared.fsync)
            .map_err(|e| LogError(format!("{e:#}")))?;
        next.started_on = std::mem::take(&mut self.started_on);
        *self = next;
        Ok(())
    }

    fn create_new(&mut self, name: &str, bytes: &[u8]) -> Result<bool, LogError> {
        let path = self.companion(name);
        let created = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path);
        match created {
            Ok(mut file) => match file.write_all(bytes) {
                Ok(()) => Ok(true),
                Err(e) => {
                    // Not left empty: an empty lock would hold every writer off until it
                    // went stale (a full disk made one, and every write then failed as
                    // "locked by another process" instead of "No space left on device").
                    let _ = fs::remove_file(&path);
                    Err(err(e, "write", &path))
                }
            },
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(err(e, "create", &path)),
        }
    }

    fn read_file(&mut self, name: &str) -> Result<Option<Vec<u8>>, LogError> {
        let path = self.companion(name);
        match fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(err(e, "read", &path)),
        }
    }

    fn age_ms(&mut self, name: &str) -> Result<Option<u64>, LogError> {
        let path = self.companion(name);
        match fs::metadata(&path).and_then(|m| m.modified()) {
            Ok(modified) => Ok(Some(
                SystemTime::now()
                    .duration_since(modified)
                    .map_or(0, |d| d.as_millis() as u64),
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(err(e, "stat", &path)),
        }
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        let (from, to) = (self.companion(from), self.companion(to));
        match fs::rename(&from, &to) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(err(e, "rename", &from)),
        }
    }

    fn link(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        let (from, to) = (self.companion(from), self.companion(to));
        match fs::hard_link(&from, &to) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(err(e, "link", &to)),
        }
    }

    fn remove(&mut self, name: &str) -> Result<(), LogError> {
        let path = self.companion(name);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(err(e, "remove", &path)),
            _ => Ok(()),
        }
    }

    fn write_part(&mut self, name: &str, offset: u64, bytes: &[u8]) -> Result<(), LogError> {
        let path = self.companion(name);
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(&path)
            .map_err(|e| err(e, "create", &path))?;
        file.write_all_at(bytes, offset)
            .map_err(|e| err(e, "write to", &path))
    }

    fn part_reader(&mut self, name: &str) -> IndexReader {
        let path = self.companion(name);
        Box::new(move |at, len| {
            let file = match File::open(&path) {
                Ok(file) => file,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(err(e, "open", &path)),
            };
            // Read into capacity, not into zeroed bytes: megabytes at a start.
            let mut bytes = Vec::with_capacity(len as usize);
            let read = (&file)
                .seek(io::SeekFrom::Start(at))
                .and_then(|_| (&file).take(u64::from(len)).read_to_end(&mut bytes));
            read.map_err(|e| err(e, "read", &path))?;
            Ok(Some(bytes))
        })
    }

    fn write_new(&mut self, name: &str, at: u64, bytes: &[u8], done: bool) -> Result<(), LogError> {
        let path = self.companion(name);
        let old = fs::metadata(&self.path).map_err(|e| err(e, "stat", &self.path))?;
        let write = || -> io::Result<()> {
            let new = open_rw(&path)?;
            if at == 0 {
                new.set_len(0)?;
                new.set_permissions(old.permissions())?;
                // Keeping the owner needs privileges we usually lack; the mode is what matters.
                let _ = std::os::unix::fs::fchown(&new, Some(old.uid()), Some(old.gid()));
            }
            new.write_all_at(bytes, at)?;
            match done {
                true => new.sync_all(),
                false => Ok(()),
            }
        };
        write().map_err(|e| err(e, "write", &path))
    }

    fn keep_copy(&mut self, name: &str) -> Result<(), LogError> {
        let copy = self.companion(name);
        if fs::hard_link(&self.path, &copy).is_err() {
            fs::copy(&self.path, &copy).map_err(|e| err(e, "create", &copy))?;
            File::open(&copy)
                .and_then(|f| f.sync_all())
                .map_err(|e| err(e, "sync", &copy))?;
        }
        Ok(())
    }

    fn install(&mut self, name: &str) -> Result<(), LogError> {
        let from = self.companion(name);
        fs::rename(&from, &self.path).map_err(|e| err(e, "replace", &self.path))?;
        File::open(&self.dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| err(e, "sync the directory", &self.dir))?;
        self.shared.dirty.store(false, Ordering::Release);
        self.open_current()
    }

    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError> {
        let given = Path::new(path);
        let resolved = config::user_path(given).map_err(|e| named_err(path, &format!("{e:#}")))?;
        let shown = resolved.display().to_string();
        let refuse = |rule: &str| named_err(&shown, rule);
        let os = |e: io::Error| named_err(&shown, &e.to_string());
        // Not blocking: a pipe is refused below, after the open, not waited on.
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&resolved)
            .map_err(os)?;
        let meta = file.metadata().map_err(os)?;
        if meta.is_dir() {
            return Err(refuse(
                "it is a directory; migrate reads only a regular file",
            ));
        }
        if !meta.is_file() {
            return Err(refuse(
                "it is not a regular file (a device, pipe or socket); migrate reads only a regular file",
            ));
        }
        let memory = fs::metadata(&self.path).map(|m| identity(&m));
        if identity(&meta) == self.identity || memory.is_ok_and(|m| m == identity(&meta)) {
            return Err(refuse("it is the memory file itself"));
        }
        let canonical = fs::canonicalize(&resolved).map_err(os)?;
        let dir = fs::canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone());
        let beside = canonical.parent() == Some(dir.as_path());
        let file_name = canonical.file_name().map(|n| n.to_string_lossy());
        if beside && file_name.is_some_and(|n| is_companion(&self.name, &n)) {
            return Err(refuse(
                "it is a companion of the memory file (its lock, a backup or a temporary file)",
            ));
        }
        if meta.len() > MAX_NAMED_BYTES {
            return Err(refuse("it is larger than 256 MiB"));
        }
        let mut bytes = Vec::new();
        // Taken one byte past the limit: a file that grew since the stat is still refused.
        (&file)
            .take(MAX_NAMED_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(os)?;
        if bytes.len() as u64 > MAX_NAMED_BYTES {
            return Err(refuse("it is larger than 256 MiB"));
        }
        Ok(bytes)
    }

    fn alive(&mut self, pid: u32) -> bool {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 sends nothing; kill only checks that the process exists.
        let found = unsafe { libc::kill(pid, 0) } == 0;
        found || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }

    fn sleep_ms(&mut self, ms: u32) {
        thread::sleep(Duration::from_millis(ms.into()));
    }
}

/// Fsyncs what was written at most [`FLUSH_INTERVAL`] later. A failure keeps the file
/// dirty (the next round tries again, covering the same bytes) and waits for the next
/// `sync` to report it to a client.
fn spawn_flusher(shared: &Arc<Shared>, path: &Path) -> thread::JoinHandle<()> {
    let shared = Arc::clone(shared);
    let path = path.to_path_buf();
    thread::spawn(move || {
        while !shared.stop.load(Ordering::Acquire) {
            thread::park_timeout(FLUSH_INTERVAL);
            if let Err(e) = shared.flush() {
                let failure = format!(
                    "cannot sync {} in the background: {e} (recent changes may not survive a crash; retrying)",
                    path.display()
                );
                eprintln!("mcp-memory: error: {failure}");
                *shared.failure() = Some(failure);
            }
        }
    })
}

impl Drop for FsDisk {
    /// Stops the flusher and makes everything written durable.
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(flusher) = self.flusher.take() {
            flusher.thread().unpark();
            let _ = flusher.join();
        }
        if let Err(e) = self.shared.flush() {
            eprintln!("mcp-memory: error: final fsync failed: {e}");
        }
    }
}
