//! The memory file policy shared by every host (`filelog`): several processes on one file,
//! the lock and its stale cases, a file replaced under a process, torn tails left by a
//! writer that died. A simulated directory stands in for the file system: names point at
//! shared "inodes", so a rename over the path leaves an old handle on the old file.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use mcp_memory_core::filelog::{Disk, FileLog, OWNERLESS_LOCK_MS, STALE_LOCK_MS};
use mcp_memory_core::frame;
use mcp_memory_core::{Changes, Contents, Log, LogError};

const NAME: &str = "memory.jsonl";
const LOCK: &str = "memory.jsonl.lock";

#[derive(Default)]
struct Inode {
    bytes: Vec<u8>,
    modified: u64,
}

type Node = Rc<RefCell<Inode>>;

#[derive(Default)]
struct Dir {
    names: HashMap<String, Node>,
    clock: u64,
    alive: HashSet<u32>,
}

/// One process's view: its token and the file it has open.
struct SimDisk {
    dir: Rc<RefCell<Dir>>,
    token: String,
    open: Node,
}

fn process(dir: &Rc<RefCell<Dir>>, pid: u32) -> FileLog<SimDisk> {
    let open = {
        let mut d = dir.borrow_mut();
        d.alive.insert(pid);
        d.names.entry(NAME.into()).or_default().clone()
    };
    FileLog::new(SimDisk {
        dir: Rc::clone(dir),
        token: format!("{pid} nonce{pid}"),
        open,
    })
}

impl Disk for SimDisk {
    fn name(&self) -> &str {
        NAME
    }
    fn token(&self) -> &str {
        &self.token
    }
    fn size(&mut self) -> Result<u64, LogError> {
        Ok(self.open.borrow().bytes.len() as u64)
    }
    fn read_at(&mut self, offset: u64, len: usize) -> Result<Vec<u8>, LogError> {
        Ok(self.open.borrow().bytes[offset as usize..offset as usize + len].to_vec())
    }
    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> Result<(), LogError> {
        let mut f = self.open.borrow_mut();
        let end = offset as usize + bytes.len();
        if f.bytes.len() < end {
            f.bytes.resize(end, 0);
        }
        f.bytes[offset as usize..end].copy_from_slice(bytes);
        Ok(())
    }
    fn set_len(&mut self, len: u64) -> Result<(), LogError> {
        self.open.borrow_mut().bytes.resize(len as usize, 0);
        Ok(())
    }
    fn sync(&mut self) -> Result<(), LogError> {
        Ok(())
    }
    fn sync_now(&mut self) -> Result<(), LogError> {
        Ok(())
    }
    fn is_current(&mut self) -> Result<bool, LogError> {
        Ok(self
            .dir
            .borrow()
            .names
            .get(NAME)
            .is_none_or(|n| Rc::ptr_eq(n, &self.open)))
    }
    fn reopen(&mut self) -> Result<(), LogError> {
        self.open = self
            .dir
            .borrow_mut()
            .names
            .entry(NAME.into())
            .or_default()
            .clone();
        Ok(())
    }
    fn create_new(&mut self, name: &str, bytes: &[u8]) -> Result<bool, LogError> {
        let mut d = self.dir.borrow_mut();
        if d.names.contains_key(name) {
            return Ok(false);
        }
        let modified = d.clock;
        d.names.insert(
            name.into(),
            Rc::new(RefCell::new(Inode {
                bytes: bytes.to_vec(),
                modified,
            })),
        );
        Ok(true)
    }
    fn read_file(&mut self, name: &str) -> Result<Option<Vec<u8>>, LogError> {
        Ok(self
            .dir
            .borrow()
            .names
            .get(name)
            .map(|n| n.borrow().bytes.clone()))
    }
    fn age_ms(&mut self, name: &str) -> Result<Option<u64>, LogError> {
        let d = self.dir.borrow();
        Ok(d.names.get(name).map(|n| d.clock - n.borrow().modified))
    }
    fn rename(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        let mut d = self.dir.borrow_mut();
        let Some(node) = d.names.remove(from) else {
            return Ok(false);
        };
        d.names.insert(to.into(), node);
        Ok(true)
    }
    fn link(&mut self, from: &str, to: &str) -> Result<bool, LogError> {
        let mut d = self.dir.borrow_mut();
        if d.names.contains_key(to) {
            return Ok(false);
        }
        let node = d.names[from].clone();
        d.names.insert(to.into(), node);
        Ok(true)
    }
    fn remove(&mut self, name: &str) -> Result<(), LogError> {
        self.dir.borrow_mut().names.remove(name);
        Ok(())
    }
    fn write_new(&mut self, name: &str, bytes: &[u8]) -> Result<(), LogError> {
        let mut d = self.dir.borrow_mut();
        let modified = d.clock;
        d.names.insert(
            name.into(),
            Rc::new(RefCell::new(Inode {
                bytes: bytes.to_vec(),
                modified,
            })),
        );
        Ok(())
    }
    fn keep_copy(&mut self, name: &str) -> Result<(), LogError> {
        self.dir
            .borrow_mut()
            .names
            .insert(name.into(), Rc::clone(&self.open));
        Ok(())
    }
    fn install(&mut self, name: &str) -> Result<(), LogError> {
        let mut d = self.dir.borrow_mut();
        let node = d.names.remove(name).expect("installed file exists");
        d.names.insert(NAME.into(), Rc::clone(&node));
        self.open = node;
        Ok(())
    }
    fn alive(&mut self, pid: u32) -> bool {
        self.dir.borrow().alive.contains(&pid)
    }
    fn sleep_ms(&mut self, ms: u32) {
        self.dir.borrow_mut().clock += u64::from(ms);
    }
}

fn records(contents: Contents) -> Vec<Vec<u8>> {
    match contents {
        Contents::Records(r) => r,
        Contents::Foreign(_) => panic!("expected records"),
    }
}

fn appended(changes: Changes) -> Vec<Vec<u8>> {
    match changes {
        Changes::Appended(r) => r,
        Changes::Replaced(_) => panic!("expected appended records"),
    }
}

/// Runs `f` holding the lock, as a host does around one message.
fn locked<T>(log: &mut FileLog<SimDisk>, f: impl FnOnce(&mut FileLog<SimDisk>) -> T) -> T {
    log.lock().unwrap();
    let out = f(log);
    log.unlock();
    out
}

fn lock_owner(dir: &Rc<RefCell<Dir>>) -> Option<String> {
    let d = dir.borrow();
    d.names
        .get(LOCK)
        .map(|n| String::from_utf8(n.borrow().bytes.clone()).unwrap())
}

#[test]
fn two_processes_take_turns_and_see_each_others_records() {
    let dir = Rc::new(RefCell::new(Dir::default()));
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    locked(&mut a, |a| {
        assert!(records(a.replay().unwrap()).is_empty());
        a.append(b"one").unwrap();
    });
    assert_eq!(lock_owner(&dir), None, "unlock removes the lock");
    locked(&mut b, |b| {
        assert_eq!(records(b.replay().unwrap()), [b"one".to_vec()]);
        b.append(b"two").unwrap();
    });
    locked(&mut a, |a| {
        assert_eq!(appended(a.refresh().unwrap()), [b"two".to_vec()]);
        a.append(b"three").unwrap();
    });
    let bytes = dir.borrow().names[NAME].borrow().bytes.clone();
    let scan = frame::scan(&bytes).unwrap();
    assert_eq!(scan.records, [&b"one"[..], b"two", b"three"]);
}

#[test]
fn a_lock_left_by_a_dead_process_is_broken_with_a_warning() {
    let dir = Rc::new(RefCell::new(Dir::default()));
    let mut a = process(&dir, 1);
    a.disk().create_new(LOCK, b"999 gone").unwrap();
    a.lock().unwrap();
    assert_eq!(lock_owner(&dir).as_deref(), Some("1 nonce1"));
    let warnings = a.take_warnings();
    assert!(warnings[0].contains("999 gone"), "{warnings:?}");
    assert_eq!(dir.borrow().clock, 0, "a dead owner is not waited for");
}

/// A process killed between creating the lock and writing its token leaves an empty lock
/// (seen in one background-mode SIGKILL in five): it is broken after a second, not 30.
#[test]
fn an_empty_lock_left_by_a_killed_creator_is_broken_after_a_second() {
    let dir = Rc::new(RefCell::new(Dir::default()));
    let mut a = process(&dir, 1);
    a.disk().create_new(LOCK, b"").unwrap();
    a.lock().unwrap();
    let waited = dir.borrow().clock;
    assert!(
        (OWNERLESS_LOCK_MS..STALE_LOCK_MS).contains(&waited),
        "waited {waited} ms"
    );
    assert_eq!(lock_owner(&dir).as_deref(), Some("1 nonce1"));
}

/// Another token with our pid may be another memory on this file in this process (another
/// thread's): it is waited for, not broken, until it is stale by age.
#[test]
fn a_lock_with_our_pid_and_another_token_is_waited_for() {
    let dir = Rc::new(RefCell::new(Dir::default()));
    let mut a = process(&dir, 1);
    a.disk().create_new(LOCK, b"1 a-sibling-nonce").unwrap();
    a.lock().unwrap();
    assert!(
        dir.borrow().clock > STALE_LOCK_MS,
        "waited {} ms",
        dir.borrow().clock
    );
    assert_eq!(lock_owner(&dir).as_deref(), Some("1 nonce1"));
}

#[test]
fn a_live_owner_is_waited_for_until_its_lock_is_stale() {
    let dir = Rc::new(RefCell::new(Dir::default()));
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    b.lock().unwrap();
    a.lock().unwrap();
    assert!(
        dir.borrow().clock > STALE_LOCK_MS,
        "waited {} ms",
        dir.borrow().clock
    );
    assert_eq!(lock_owner(&dir).as_deref(), Some("1 nonce1"));
    // The owner whose lock was broken must not write on top of the new owner.
    let err = b.append(b"late").unwrap_err();
    assert!(err.0.contains("does not hold the file's lock"), "{}", err.0);
    b.unlock();
    assert_eq!(
        lock_owner(&dir).as_deref(),
        Some("1 nonce1"),
        "unlock leaves others' locks"
    );
}

#[test]
fn a_file_replaced_by_another_process_is_read_again_whole() {
    let dir = Rc::new(RefCell::new(Dir::default()));
    dir.borrow_mut().names.insert(
        NAME.into(),
        Rc::new(RefCell::new(Inode {
            bytes: b"{\"type\":\"entity\"}".to_vec(),
            modified: 0,
        })),
    );
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    locked(&mut b, |b| {
        assert!(matches!(b.replay().unwrap(), Contents::Foreign(_)))
    });
    locked(&mut a, |a| {
        assert!(matches!(a.replay().unwrap(), Contents::Foreign(_)));
        a.replace(&[b"converted".to_vec()]).unwrap();
        a.append(b"after").unwrap();
    });
    assert!(
        dir.borrow().names.contains_key("memory.jsonl.bak"),
        "original kept"
    );
    locked(&mut b, |b| match b.refresh().unwrap() {
        Changes::Replaced(r) => assert_eq!(r, [b"converted".to_vec(), b"after".to_vec()]),
        Changes::Appended(r) => panic!("expected the new file, got {r:?}"),
    });
    locked(&mut b, |b| b.append(b"from b").unwrap());
    locked(&mut a, |a| {
        assert_eq!(appended(a.refresh().unwrap()), [b"from b".to_vec()])
    });
}

#[test]
fn a_torn_tail_left_by_a_writer_that_died_is_cut_on_refresh() {
    let dir = Rc::new(RefCell::new(Dir::default()));
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    locked(&mut a, |a| {
        a.replay().unwrap();
        a.append(b"whole").unwrap();
    });
    locked(&mut b, |b| b.replay().unwrap());
    let valid = dir.borrow().names[NAME].borrow().bytes.len();
    let mut frame_bytes = Vec::new();
    frame::encode_frame(b"half written", &mut frame_bytes);
    dir.borrow().names[NAME]
        .borrow_mut()
        .bytes
        .extend_from_slice(&frame_bytes[..7]);
    locked(&mut b, |b| {
        assert!(appended(b.refresh().unwrap()).is_empty());
        b.append(b"next").unwrap();
    });
    assert!(b.take_warnings()[0].contains(&format!("torn tail at offset {valid}")));
    let bytes = dir.borrow().names[NAME].borrow().bytes.clone();
    assert_eq!(
        frame::scan(&bytes).unwrap().records,
        [&b"whole"[..], b"next"]
    );
}
