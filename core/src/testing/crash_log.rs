//! [`CrashLog`]: a [`Log`] kept as the bytes of a log file, which knows what a power cut
//! would keep (in the spirit of redb's crash tests), and [`CrashRng`], the deterministic
//! random numbers that choose what a cut loses.

use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::RefCell;

use crate::frame;
use crate::log::{Changes, Contents, Intent, Log, LogError, Page, Pieces, page_of};

/// A deterministic random number generator for crash simulation.
#[derive(Clone, Debug)]
pub struct CrashRng(u64);

impl CrashRng {
    /// A generator with this seed.
    pub fn new(seed: u64) -> Self {
        CrashRng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..=max`.
    pub fn up_to(&mut self, max: usize) -> usize {
        (self.next_u64() % (max as u64 + 1)) as usize
    }

    /// True with probability 1/n.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next_u64().is_multiple_of(n)
    }
}

/// The bytes of a [`CrashLog`] and how much of them is durable.
#[derive(Debug)]
pub struct CrashState {
    /// The whole log file as written so far: header and frames.
    pub bytes: Vec<u8>,
    /// Length of the prefix of `bytes` that a power cut cannot lose.
    pub durable: usize,
    /// End offset of every whole frame in `bytes`, in order.
    pub frame_ends: Vec<usize>,
    /// Whether `sync` makes the bytes durable. `false` models a host whose durability
    /// policy returns from `sync` at once and flushes later.
    pub sync_is_durable: bool,
    /// Number of `sync` calls.
    pub syncs: usize,
    /// Records handed out by `replay`, taken once.
    pub replay: Option<Vec<Vec<u8>>>,
    /// A replacement under way.
    pub pieces: Pieces,
}

/// A [`Log`] kept as the bytes of a log file, in the spirit of redb's crash tests: it knows
/// which prefix has been synced, and [`CrashLog::crash`] returns what a disk might hold
/// after a power cut.
#[derive(Clone, Debug)]
pub struct CrashLog(pub Rc<RefCell<CrashState>>);

impl Default for CrashLog {
    fn default() -> Self {
        Self::new()
    }
}

impl CrashLog {
    /// A new log file: just the header, already durable (the host creates the file).
    pub fn new() -> Self {
        Self::from_disk(&frame::header())
    }

    /// A log file just created by the host: the header is written but, like any write
    /// before the first sync, not yet durable.
    pub fn new_file() -> Self {
        let log = Self::new();
        log.0.borrow_mut().durable = 0;
        log
    }

    /// The log a host opens after a restart from these file bytes: a new log for an empty
    /// file; otherwise it scans them, cuts off a torn tail as the host does, and hands the
    /// records to the memory. Panics when the bytes are not a readable log.
    pub fn from_disk(bytes: &[u8]) -> Self {
        if bytes.is_empty() {
            return Self::new(); // an empty file is a new log
        }
        let scan = frame::scan(bytes).unwrap_or_else(|e| panic!("the log does not scan: {e}"));
        let records: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
        let mut kept = bytes[..scan.valid_len].to_vec();
        if kept.is_empty() {
            kept = frame::header().to_vec();
        }
        let frame_ends = frame_ends(&kept);
        CrashLog(Rc::new(RefCell::new(CrashState {
            durable: kept.len(),
            bytes: kept,
            frame_ends,
            sync_is_durable: true,
            replay: Some(records),
            pieces: Pieces::default(),
            syncs: 0,
        })))
    }

    /// Chooses whether `sync` makes appended bytes durable from now on.
    pub fn set_sync_is_durable(&self, durable: bool) {
        self.0.borrow_mut().sync_is_durable = durable;
    }

    /// The whole file as written (what a clean shutdown leaves).
    pub fn bytes(&self) -> Vec<u8> {
        self.0.borrow().bytes.clone()
    }

    /// Number of whole frames written.
    pub fn frames(&self) -> usize {
        self.0.borrow().frame_ends.len()
    }

    /// Number of whole frames inside the durable prefix.
    pub fn durable_frames(&self) -> usize {
        let s = self.0.borrow();
        s.frame_ends.iter().filter(|&&end| end <= s.durable).count()
    }

    /// Whether every written byte is durable.
    pub fn all_durable(&self) -> bool {
        let s = self.0.borrow();
        s.durable == s.bytes.len()
    }

    /// Number of `sync` calls.
    pub fn syncs(&self) -> usize {
        self.0.borrow().syncs
    }

    /// What the disk might hold after a power cut now: the durable prefix, then an arbitrary
    /// prefix of the bytes written after it (possibly ending mid-frame), then possibly zeros
    /// where the file had grown but the data never reached the disk.
    pub fn crash(&self, rng: &mut CrashRng) -> Vec<u8> {
        let s = self.0.borrow();
        let unsynced = &s.bytes[s.durable..];
        let (kept, zeros) = match rng.up_to(3) {
            0 => (0, 0),
            1 => (unsynced.len(), 0),
            2 => (rng.up_to(unsynced.len()), 0),
            _ => {
                let kept = rng.up_to(unsynced.len());
                (kept, rng.up_to(unsynced.len() - kept))
            }
        };
        let mut image = s.bytes[..s.durable + kept].to_vec();
        image.resize(image.len() + zeros, 0);
        image
    }

    /// The durable prefix alone: what survives a power cut that loses everything unsynced.
    pub fn crash_losing_everything_unsynced(&self) -> Vec<u8> {
        let s = self.0.borrow();
        s.bytes[..s.durable].to_vec()
    }
}

/// End offsets of the frames of a well-formed log.
fn frame_ends(log: &[u8]) -> Vec<usize> {
    let scan = frame::scan(log).expect("well-formed log");
    assert!(scan.torn.is_none());
    let mut at = frame::HEADER_LEN;
    scan.records
        .iter()
        .map(|r| {
            at += frame::FRAME_HEADER_LEN + r.len();
            at
        })
        .collect()
}

impl Log for CrashLog {
    fn replay(&mut self) -> Result<Contents, LogError> {
        let records = self
            .0
            .borrow_mut()
            .replay
            .take()
            .expect("Log::replay must be called only once");
        Ok(Contents::Records(records))
    }

    fn refresh(&mut self, _: Intent) -> Result<Changes, LogError> {
        Ok(Changes::Appended(Vec::new()))
    }

    fn append(&mut self, entry: &[u8]) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        frame::encode_frame(entry, &mut s.bytes);
        let end = s.bytes.len();
        s.frame_ends.push(end);
        Ok(())
    }

    fn sync(&mut self) -> Result<(), LogError> {
        let mut s = self.0.borrow_mut();
        s.syncs += 1;
        if s.sync_is_durable {
            s.durable = s.bytes.len();
        }
        Ok(())
    }

    fn entries(&mut self, from: u64, budget: u32) -> Result<Page, LogError> {
        let s = self.0.borrow();
        let scan = frame::scan(&s.bytes).map_err(|e| LogError(alloc::format!("{e}")))?;
        Ok(page_of(&scan.records, from, budget))
    }

    fn replace_piece(
        &mut self,
        entries: &[Vec<u8>],
        first: bool,
        last: bool,
    ) -> Result<(), LogError> {
        let s = &mut *self.0.borrow_mut();
        let Some(whole) = s.pieces.put(entries, first, last) else {
            return Ok(());
        };
        s.bytes = frame::encode_log(whole.iter().map(Vec::as_slice));
        s.durable = s.bytes.len();
        s.frame_ends = frame_ends(&s.bytes);
        Ok(())
    }
}
