//! Test doubles, shipped once for every test that needs them (feature `testing`): the core's
//! own tests, the fuzz targets, the benches and the hosts' tests use these, never copies.
//!
//! - [`MemLog`]: a [`crate::Log`] of records in memory; other writers and failures of the
//!   next append, sync, replace or refresh on demand.
//! - [`MemDir`] / [`MemDisk`]: a directory in memory and one process's
//!   [`crate::filelog::Disk`] on it, for a real [`crate::filelog::FileLog`]: several
//!   processes, a clock, dead lock owners, the Nth write or sync failing, torn tails, and
//!   power cuts that lose what was not synced.
//! - [`CrashLog`]: a [`crate::Log`] kept as file bytes with a durable prefix, and
//!   [`CrashRng`], for random power cuts.
//! - [`log_of`] and [`frame_offset`]: log files of given records, and where each frame
//!   starts (to damage one).
//! - [`seed_record`]: a record of the Rust seed's binary log (`crate::seedlog`), written
//!   following its documented layout.

mod crash_log;
mod mem_disk;
mod mem_log;

pub use crash_log::{CrashLog, CrashRng, CrashState};
pub use mem_disk::{MemDir, MemDisk, Op};
pub use mem_log::{MemLog, MemState, SavedIndexes};

use alloc::vec::Vec;

use crate::frame::{self, FRAME_HEADER_LEN, HEADER_LEN};

/// A memory log file holding these record payloads.
pub fn log_of(payloads: &[Vec<u8>]) -> Vec<u8> {
    frame::encode_log(payloads.iter().map(Vec::as_slice))
}

/// Where frame `i` starts in [`log_of`]`(payloads)`.
pub fn frame_offset(payloads: &[Vec<u8>], i: usize) -> usize {
    let frames: usize = payloads[..i]
        .iter()
        .map(|p| FRAME_HEADER_LEN + p.len())
        .sum();
    HEADER_LEN + frames
}

/// Appends a record of the Rust seed's log (`MCPMEMV2`, with its checksum) to `out`: `kind`,
/// these strings, then (if given) this list of strings.
pub fn seed_record(out: &mut Vec<u8>, kind: u8, strs: &[&str], list: Option<&[&str]>) {
    let mut payload = Vec::new();
    let string = |payload: &mut Vec<u8>, s: &str| {
        payload.extend_from_slice(&(s.len() as u16).to_le_bytes());
        payload.extend_from_slice(s.as_bytes());
    };
    strs.iter().for_each(|s| string(&mut payload, s));
    if let Some(list) = list {
        payload.extend_from_slice(&(list.len() as u32).to_le_bytes());
        list.iter().for_each(|s| string(&mut payload, s));
    }
    out.extend_from_slice(&((9 + payload.len()) as u32).to_le_bytes());
    out.push(kind);
    out.extend_from_slice(&payload);
    out.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
}
