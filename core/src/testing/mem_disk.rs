//! [`MemDir`] and [`MemDisk`]: a directory of files in memory, and one process's [`Disk`] on
//! it, for [`crate::filelog::FileLog`].
//!
//! Names point at shared inodes, so a rename over the memory file leaves another process's
//! handle on the old file, as on a real file system. Each inode knows how much of it is
//! durable, so a power cut ([`MemDir::power_cut`]) can lose what was never synced. Time is a
//! counter that only `sleep_ms` and [`MemDir::advance`] move, and processes are alive until
//! [`MemDir::kill`]: lock timeouts and stale owners are tested without waiting.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cell::RefCell;

use crate::filelog::{Disk, is_companion};
use crate::log::{IndexReader, LogError, MAX_NAMED_BYTES};

/// One file's content.
#[derive(Debug, Default)]
struct Inode {
    bytes: Vec<u8>,
    /// Length of the prefix of `bytes` a power cut keeps.
    durable: usize,
    /// The clock when it was last written.
    modified: u64,
}

impl Inode {
    /// Writes `bytes` at `start`, growing the file; what follows `start` is no longer durable.
    fn write(&mut self, start: usize, bytes: &[u8], clock: u64) {
        let end = start + bytes.len();
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        self.bytes[start..end].copy_from_slice(bytes);
        self.durable = self.durable.min(start);
        self.modified = clock;
    }
}

type Node = Rc<RefCell<Inode>>;

/// Raw operations a test can make fail.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// `write_at` on the memory file.
    Write,
    /// `sync` and `sync_now`.
    Sync,
}

/// A failure waiting for the `nth` next call of `op`.
#[derive(Debug)]
struct Fault {
    op: Op,
    nth: usize,
    message: String,
}

#[derive(Debug, Default)]
struct DirState {
    names: BTreeMap<String, Node>,
    clock: u64,
    alive: BTreeSet<u32>,
    faults: Vec<Fault>,
}

impl DirState {
    /// Counts one call of `op`; `Err` if a fault is due now.
    fn call(&mut self, op: Op) -> Result<(), LogError> {
        let mut due = None;
        for (i, f) in self.faults.iter_mut().enumerate() {
            if f.op == op {
                f.nth -= 1;
                if f.nth == 0 && due.is_none() {
                    due = Some(i);
                }
            }
        }
        match due {
            Some(i) => Err(LogError(self.faults.remove(i).message)),
            None => Ok(()),
        }
    }

    fn new_node(&self, bytes: &[u8]) -> Node {
        Rc::new(RefCell::new(Inode {
            bytes: bytes.to_vec(),
            durable: bytes.len(),
            modified: self.clock,
        }))
    }
}

/// A directory in memory, shared by the [`MemDisk`]s of every process a test opens on it.
/// Clones share one directory.
#[derive(Clone, Debug, Default)]
pub struct MemDir(Rc<RefCell<DirState>>);

impl MemDir {
    /// An empty directory.
    pub fn new() -> Self {
        Self::default()
    }

    /// A directory holding the file `name` with these (durable) bytes.
    pub fn with_file(name: &str, bytes: &[u8]) -> Self {
        let dir = Self::new();
        dir.put(name, bytes);
        dir
    }

    /// Process `pid` opening the file `name` (created empty if missing); the process is
    /// alive until [`MemDir::kill`]. Its token is `<pid> nonce<pid>`, and its `sync` is
    /// durable (see [`MemDisk::set_sync_is_durable`]).
    pub fn open(&self, name: &str, pid: u32) -> MemDisk {
        let open = {
            let mut d = self.0.borrow_mut();
            d.alive.insert(pid);
            let fresh = d.new_node(&[]);
            Rc::clone(d.names.entry(name.into()).or_insert(fresh))
        };
        MemDisk {
            dir: self.clone(),
            name: name.into(),
            token: format!("{pid} nonce{pid}"),
            open,
            sync_is_durable: true,
        }
    }

    /// The bytes of the file `name`, if it exists.
    pub fn file(&self, name: &str) -> Option<Vec<u8>> {
        let d = self.0.borrow();
        d.names.get(name).map(|n| n.borrow().bytes.clone())
    }

    /// Writes the file `name` anew with these (durable) bytes: a new inode, as another
    /// program replacing the file would.
    pub fn put(&self, name: &str, bytes: &[u8]) {
        let mut d = self.0.borrow_mut();
        let node = d.new_node(bytes);
        d.names.insert(name.into(), node);
    }

    /// Changes the bytes of the file `name` in place (every process that has it open sees
    /// them), as damage or another writer would; they count as durable.
    pub fn overwrite(&self, name: &str, bytes: &[u8]) {
        let d = self.0.borrow();
        if let Some(node) = d.names.get(name) {
            let mut f = node.borrow_mut();
            f.bytes = bytes.to_vec();
            f.durable = bytes.len();
        }
    }

    /// Cuts the file `name` to `len` bytes in place: a torn tail.
    pub fn tear(&self, name: &str, len: usize) {
        let d = self.0.borrow();
        if let Some(node) = d.names.get(name) {
            let mut f = node.borrow_mut();
            f.bytes.truncate(len);
            f.durable = f.durable.min(len);
        }
    }

    /// Removes the file `name`.
    pub fn remove(&self, name: &str) {
        self.0.borrow_mut().names.remove(name);
    }

    /// The names in the directory, sorted.
    pub fn names(&self) -> Vec<String> {
        self.0.borrow().names.keys().cloned().collect()
    }

    /// Bytes of the file `name` not yet durable.
    pub fn unsynced(&self, name: &str) -> usize {
        let d = self.0.borrow();
        d.names.get(name).map_or(0, |n| {
            let f = n.borrow();
            f.bytes.len() - f.durable
        })
    }

    /// A power cut: every file keeps only its durable prefix (what was written but never
    /// synced is lost), and every process is gone.
    pub fn power_cut(&self) {
        let mut d = self.0.borrow_mut();
        for node in d.names.values() {
            let mut f = node.borrow_mut();
            let durable = f.durable;
            f.bytes.truncate(durable);
        }
        d.alive.clear();
    }

    /// The process `pid` dies (its locks become stale).
    pub fn kill(&self, pid: u32) {
        self.0.borrow_mut().alive.remove(&pid);
    }

    /// The clock, in milliseconds.
    pub fn clock(&self) -> u64 {
        self.0.borrow().clock
    }

    /// Moves the clock forward.
    pub fn advance(&self, ms: u64) {
        self.0.borrow_mut().clock += ms;
    }

    /// Makes the `nth` next call of `op` (1: the next one), by any process, fail with
    /// `message`, doing nothing.
    pub fn fail(&self, op: Op, nth: usize, message: &str) {
        assert!(nth > 0, "calls are counted from 1");
        self.0.borrow_mut().faults.push(Fault {
            op,
            nth,
            message: message.to_string(),
        });
    }
}

/// One process's [`Disk`] on a [`MemDir`]: its token, and the file it has open.
#[derive(Debug)]
pub struct MemDisk {
    dir: MemDir,
    name: String,
    token: String,
    open: Node,
    sync_is_durable: bool,
}

impl MemDisk {
    /// Chooses whether `sync` makes written bytes durable (a `sync` durability policy) or
    /// returns at once leaving them for later (`background`; `sync_now` still syncs).
    pub fn set_sync_is_durable(&mut self, durable: bool) {
        self.sync_is_durable = durable;
    }

    fn err(&self, what: &str) -> LogError {
        LogError(format!("{}: {what}", self.name))
    }

    fn state(&self) -> core::cell::RefMut<'_, DirState> {
        self.dir.0.borrow_mut()
    }
}

impl Disk for MemDisk {
    fn name(&self) -> &str {
        &self.name
    }

    fn token(&self) -> &str {
        &self.token
    }

    fn size(&mut self) -> Result<u64, LogError> {
        Ok(self.open.borrow().bytes.len() as u64)
    }

    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, LogError> {
        let f = self.open.borrow();
        let range = usize::try_from(offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(len)?));
        range
            .and_then(|r| f.bytes.get(r))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| self.err("read past the end"))
    }

    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), LogError> {
        self.state().call(Op::Write)?;
        let clock = self.dir.clock();
        let start = usize::try_from(offset).map_err(|_| self.err("offset too large"))?;
        self.open.borrow_mut().write(start, bytes, clock);
        Ok(())
    }

    fn set_len(&mut self, len: u64) -> Result<(), LogError> {
        let len = usize::try_from(len).map_err(|_| self.err("length too large"))?;
        let mut f = self.open.borrow_mut();
        f.bytes.resize(len, 0);
        f.durable = f.durable.min(len);
        Ok(())
    }

    fn sync(&mut self) -> Result<(), LogError> {
        if self.sync_is_durable {
            self.sync_now()
        } else {
            Ok(())
        }
    }

    fn sync_now(&mut self) -> Result<(), LogError> {
        self.state().call(Op::Sync)?;
        let mut f = self.open.borrow_mut();
        f.durable = f.bytes.len();
        Ok(())
    }

    fn is_current(&mut self) -> Result<bool, LogError> {
        let d = self.dir.0.borrow();
        // A removed path: keep using the open file.
        Ok(d.names
            .get(&self.name)
            .is_none_or(|n| Rc::ptr_eq(n, &self.open)))
    }

    fn reopen(&mut self) -> Result<(), LogError> {
        let mut d = self.state();
        let fresh = d.new_node(&[]);
        let node = Rc::clone(d.names.entry(self.name.clone()).or_insert(fresh));
        drop(d);
        self.open = node;
        Ok(())
    }

    fn create_new(&mut self, name: &str, bytes: &[u8]) -> Result<bool, LogError> {
        let mut d = self.state();
        if d.names.contains_key(name) {
            return Ok(false);
        }
        let node = d.new_node(bytes);
        d.names.insert(name.into(), node);
        Ok(true)
    }

    fn read_file(&mut self, name: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(self.dir.file(name))
    }

    fn age_ms(&mut self, name: &str) -> Result<Option<u64>, LogError> {
        let d = self.dir.0.borrow();
        Ok(d.names.get(name).map(|n| d.clock - n.borrow().modified))
    }

    fn rename(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        let mut d = self.state();
        let Some(node) = d.names.remove(from) else {
            return Ok(false);
        };
        d.names.insert(to.into(), node);
        Ok(true)
    }

    fn link(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        let mut d = self.state();
        if d.names.contains_key(to) {
            return Ok(false);
        }
        let node = d.names.get(from).cloned();
        let node = node.ok_or_else(|| LogError(format!("{from}: no such file")))?;
        d.names.insert(to.into(), node);
        Ok(true)
    }

    fn remove(&mut self, name: &str) -> Result<(), LogError> {
        self.state().names.remove(name);
        Ok(())
    }

    fn write_new(&mut self, name: &str, at: u64, bytes: &[u8], _: bool) -> Result<(), LogError> {
        if at == 0 {
            self.dir.put(name, bytes);
            return Ok(());
        }
        self.write_part(name, at, bytes)
    }

    fn write_part(&mut self, name: &str, offset: u64, bytes: &[u8]) -> Result<(), LogError> {
        let mut d = self.state();
        let clock = d.clock;
        let fresh = d.new_node(&[]);
        let node = Rc::clone(d.names.entry(name.into()).or_insert(fresh));
        drop(d);
        let start = usize::try_from(offset).map_err(|_| self.err("offset too large"))?;
        node.borrow_mut().write(start, bytes, clock);
        Ok(())
    }

    fn part_reader(&mut self, name: &str) -> IndexReader {
        let (dir, name) = (self.dir.clone(), String::from(name));
        alloc::boxed::Box::new(move |at, len| {
            let d = dir.0.borrow();
            let Some(node) = d.names.get(&name) else {
                return Ok(None);
            };
            let bytes = &node.borrow().bytes;
            let from = usize::try_from(at).unwrap_or(usize::MAX).min(bytes.len());
            let to = from.saturating_add(len as usize).min(bytes.len());
            Ok(Some(bytes[from..to].to_vec()))
        })
    }

    fn keep_copy(&mut self, name: &str) -> Result<(), LogError> {
        // A hard link, as the native host makes where it can.
        self.state()
            .names
            .insert(name.into(), Rc::clone(&self.open));
        Ok(())
    }

    fn install(&mut self, name: &str) -> Result<(), LogError> {
        let mut d = self.state();
        let node = d.names.remove(name);
        let node = node.ok_or_else(|| LogError(format!("{name}: no such file")))?;
        d.names.insert(self.name.clone(), Rc::clone(&node));
        drop(d);
        self.open = node;
        Ok(())
    }

    /// The root's memory is the file [`crate::roots::file_name`] of the same directory.
    fn rescope(&mut self, root: &str) -> Result<(), LogError> {
        let path = crate::roots::path_of(root).ok_or_else(|| self.err("not a file:// root"))?;
        let name = crate::roots::file_name(&path);
        let open = {
            let mut d = self.state();
            let fresh = d.new_node(&[]);
            Rc::clone(d.names.entry(name.clone()).or_insert(fresh))
        };
        self.open = open;
        self.name = name;
        Ok(())
    }

    /// A file a test put in the directory by name ([`MemDir::put`]): the directory is the
    /// whole file system, so `path` is a name in it.
    fn read_named(&mut self, path: &str) -> Result<Vec<u8>, LogError> {
        let d = self.dir.0.borrow();
        let refuse = |rule: &str| Err(LogError(format!("cannot read {path}: {rule}")));
        let Some(node) = d.names.get(path) else {
            return refuse("no such file");
        };
        if path == self.name || Rc::ptr_eq(node, &self.open) {
            return refuse("it is the memory file itself");
        }
        if is_companion(&self.name, path) {
            return refuse(
                "it is a companion of the memory file (its lock, a backup or a temporary file)",
            );
        }
        let bytes = &node.borrow().bytes;
        if bytes.len() as u64 > MAX_NAMED_BYTES {
            return refuse("it is larger than 256 MiB");
        }
        Ok(bytes.clone())
    }

    fn alive(&mut self, pid: u32) -> bool {
        self.dir.0.borrow().alive.contains(&pid)
    }

    fn sleep_ms(&mut self, ms: u32) {
        self.dir.advance(u64::from(ms));
    }
}
