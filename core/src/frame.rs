//! The memory file's byte format: a header, then framed records. Pure byte work, no I/O;
//! every host frames and scans its log through this module.
//!
//! ```text
//! header  = magic (8 bytes: 89 'M' 'C' 'P' 'M' 'E' 'M' 0A) | version u32 LE | checkpoint u32 LE
//! frame   = len u32 LE | !len u32 LE | crc32(payload) u32 LE | payload (len bytes)
//! ```
//!
//! The header's `checkpoint` word is a hint: the offset of the frame of the log's last
//! checkpoint, or 0 when none is known ([`checkpoint_at`]). Opening reads from there when
//! the frame there is a whole checkpoint, and the whole log otherwise.
//!
//! Recovery rules ([`scan`]): a frame that runs past the end of the data, a partial frame
//! header, a tail of zero bytes, or a final frame whose checksum fails is a *torn tail*: it
//! is reported and the valid prefix is kept (a failed length check is a torn tail only when
//! zeros follow it, since a torn write leaves zeros, not another length). Zero bytes after a frame count
//! as the end of the data (a crash can leave allocated space that was never written), so a
//! frame cut short by zeros is a torn tail too, and so is a header cut short by zeros (an
//! empty log). Any other damage is [`ScanError::Corrupt`]
//! at an offset, and nothing is dropped. [`walk`] reads the same way but also returns the
//! valid prefix before damage (for checking and repairing a file, `crate::verify`).

use alloc::vec::Vec;
use core::fmt;

use crate::record::is_checkpoint;

/// First bytes of every memory log. Not valid UTF-8, so a log is never mistaken for JSONL.
pub const MAGIC: [u8; 8] = [0x89, b'M', b'C', b'P', b'M', b'E', b'M', b'\n'];
/// The framing version this code writes and reads.
pub const VERSION: u32 = 1;
/// Bytes in the file header.
pub const HEADER_LEN: usize = 16;
/// Bytes in a frame header.
pub const FRAME_HEADER_LEN: usize = 12;
/// Offset in the header of the last checkpoint's offset (see the module's docs).
pub const CHECKPOINT_AT: usize = 12;

/// The header of a new, empty log.
pub fn header() -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(&MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h
}

/// The offset of the frame of the last checkpoint a log's header names, if it names one and
/// is a header this code reads. A hint: the frame there may be anything.
pub fn checkpoint_at(header: &[u8]) -> Option<u64> {
    if header.len() < HEADER_LEN || header[..8] != MAGIC || u32_at(header, 8) != VERSION {
        return None;
    }
    let at = u32_at(header, CHECKPOINT_AT);
    (at as usize >= HEADER_LEN).then_some(u64::from(at))
}

/// The header word that names a checkpoint at `offset` (0, none, when it does not fit).
pub fn checkpoint_word(offset: Option<u64>) -> [u8; 4] {
    let at = offset.and_then(|o| u32::try_from(o).ok()).unwrap_or(0);
    at.to_le_bytes()
}

/// Makes a log's header (the first [`HEADER_LEN`] bytes of `log`) name the checkpoint at
/// `offset`, or none.
pub fn name_checkpoint(log: &mut [u8], offset: Option<u64>) {
    log[CHECKPOINT_AT..HEADER_LEN].copy_from_slice(&checkpoint_word(offset));
}

/// Whether these bytes start like a memory log (or are a torn prefix of its header, possibly
/// followed by zeros).
pub fn is_log(bytes: &[u8]) -> bool {
    let n = bytes.len().min(MAGIC.len());
    n > 0 && (bytes[..n] == MAGIC[..n] || zero_filled_header(bytes))
}

/// Whether the bytes are a strict prefix of the header followed only by zeros: a new log
/// whose header never fully reached the disk, which holds no data.
fn zero_filled_header(bytes: &[u8]) -> bool {
    let same = bytes
        .iter()
        .zip(header().iter())
        .take_while(|(a, b)| a == b)
        .count();
    same < HEADER_LEN && all_zero(&bytes[same..])
}

/// Appends one framed record to `out`.
pub fn encode_frame(payload: &[u8], out: &mut Vec<u8>) {
    out.reserve(FRAME_HEADER_LEN + payload.len());
    out.extend_from_slice(&frame_header(payload));
    out.extend_from_slice(payload);
}

/// The header that frames `payload`: its length, the length's complement, its checksum.
pub fn frame_header(payload: &[u8]) -> [u8; FRAME_HEADER_LEN] {
    let len = u32::try_from(payload.len()).expect("records are far smaller than 4 GiB");
    let mut header = [0; FRAME_HEADER_LEN];
    header[..4].copy_from_slice(&len.to_le_bytes());
    header[4..8].copy_from_slice(&(!len).to_le_bytes());
    header[8..].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    header
}

/// The payload length a frame header states, if its length check holds.
pub fn payload_len(frame_header: &[u8]) -> Option<usize> {
    if frame_header.len() < FRAME_HEADER_LEN {
        return None;
    }
    let len = u32_at(frame_header, 0);
    (u32_at(frame_header, 4) == !len).then_some(len as usize)
}

/// Whether `payload` has the checksum its frame header (one [`payload_len`] accepts) states.
pub fn checksum_holds(frame_header: &[u8], payload: &[u8]) -> bool {
    crc32fast::hash(payload) == checksum_of(frame_header)
}

/// The payload checksum a frame header (one [`payload_len`] accepts) states.
pub fn checksum_of(frame_header: &[u8]) -> u32 {
    u32_at(frame_header, 8)
}

/// A whole log file: header plus framed records, the header naming the last checkpoint.
pub fn encode_log<'a>(payloads: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = Vec::from(header());
    let mut checkpoint = None;
    for p in payloads {
        if is_checkpoint(p) {
            checkpoint = Some(out.len() as u64);
        }
        encode_frame(p, &mut out);
    }
    name_checkpoint(&mut out, checkpoint);
    out
}

/// Why the last frame was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TornKind {
    /// The file ends inside the header.
    Header,
    /// The file ends inside a frame header.
    FrameHeader,
    /// The frame's payload runs past the end of the file.
    Payload,
    /// The last frame's checksum fails.
    Checksum,
    /// The tail is zero bytes (space allocated but never written).
    Zeros,
}

/// A dropped tail: where the valid prefix ends and why the rest was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TornTail {
    /// Offset of the first byte not kept.
    pub offset: usize,
    /// Bytes dropped.
    pub dropped: usize,
    /// What was wrong with them.
    pub kind: TornKind,
}

impl fmt::Display for TornTail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.kind {
            TornKind::Header => "the file ends inside its header",
            TornKind::FrameHeader => "the file ends inside a record header",
            TornKind::Payload => "the last record is incomplete",
            TornKind::Checksum => "the last record fails its checksum",
            TornKind::Zeros => "the tail is zero bytes",
        };
        write!(
            f,
            "torn tail at offset {}: {} ({} bytes dropped)",
            self.offset, why, self.dropped
        )
    }
}

/// The result of reading a log: its records and what, if anything, was dropped at the end.
#[derive(Debug)]
pub struct Scan<'a> {
    /// Record payloads, in order.
    pub records: Vec<&'a [u8]>,
    /// Length of the valid prefix (header and whole frames).
    pub valid_len: usize,
    /// The dropped tail, if the data did not end on a frame boundary.
    pub torn: Option<TornTail>,
}

/// Damage that recovery must not paper over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScanError {
    /// The data does not start with [`MAGIC`].
    NotALog,
    /// The header names a framing version this code does not read.
    UnsupportedVersion(u32),
    /// A frame before the tail is damaged.
    Corrupt {
        /// Offset of the damaged frame.
        offset: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanError::NotALog => write!(f, "not an mcp-memory log (bad magic)"),
            ScanError::UnsupportedVersion(v) => write!(
                f,
                "log format version {v} is newer than this mcp-memory reads (version {VERSION})"
            ),
            ScanError::Corrupt { offset, reason } => {
                write!(f, "corrupt record at byte offset {offset}: {reason}")
            }
        }
    }
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

fn all_zero(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| b == 0)
}

/// Reads a whole log, applying the recovery rules in the module docs.
pub fn scan(bytes: &[u8]) -> Result<Scan<'_>, ScanError> {
    walk(bytes).into_scan()
}

/// Reads the frames in `bytes`, which start at offset `base` of the log (after the header,
/// or where an earlier scan stopped), applying the recovery rules in the module docs.
/// Offsets in the result and in errors are offsets in the log.
pub fn scan_frames(bytes: &[u8], base: usize) -> Result<Scan<'_>, ScanError> {
    walk_frames(bytes, base).into_scan()
}

/// Where a [`Walk`] over a log stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// At the end of the data, on a frame boundary.
    Clean,
    /// At a torn tail, which recovery drops.
    Torn(TornTail),
    /// At damage recovery must not paper over ([`scan`] fails with it).
    Damaged(ScanError),
}

/// A log's whole frames up to the first problem, and that problem: what [`scan`] reads, but
/// keeping the valid prefix before damage too (for checking and repairing a file).
#[derive(Debug)]
pub struct Walk<'a> {
    /// Payloads of the whole frames before the first problem, in order.
    pub records: Vec<&'a [u8]>,
    /// Length of the valid prefix (header and those frames); 0 if the header is not whole.
    pub valid_len: usize,
    /// Where and why the walk stopped.
    pub end: End,
}

impl<'a> Walk<'a> {
    /// The walk as [`scan`] reports it: damage is an error.
    pub fn into_scan(self) -> Result<Scan<'a>, ScanError> {
        let torn = match self.end {
            End::Clean => None,
            End::Torn(t) => Some(t),
            End::Damaged(e) => return Err(e),
        };
        Ok(Scan {
            records: self.records,
            valid_len: self.valid_len,
            torn,
        })
    }
}

/// Walks a whole log up to its first problem, applying the recovery rules in the module docs.
pub fn walk(bytes: &[u8]) -> Walk<'_> {
    let stop = |end| Walk {
        records: Vec::new(),
        valid_len: 0,
        end,
    };
    if !is_log(bytes) {
        return stop(End::Damaged(ScanError::NotALog));
    }
    if bytes.len() < HEADER_LEN || zero_filled_header(bytes) {
        return stop(End::Torn(TornTail {
            offset: 0,
            dropped: bytes.len(),
            kind: TornKind::Header,
        }));
    }
    let version = u32_at(bytes, 8);
    if version != VERSION {
        return stop(End::Damaged(ScanError::UnsupportedVersion(version)));
    }
    walk_frames(&bytes[HEADER_LEN..], HEADER_LEN)
}

/// Walks the frames in `bytes`, which start at offset `base` of the log, up to the first
/// problem (see [`scan_frames`]). Offsets are offsets in the log.
pub fn walk_frames(bytes: &[u8], base: usize) -> Walk<'_> {
    let torn = |at: usize, kind| {
        End::Torn(TornTail {
            offset: base + at,
            dropped: bytes.len() - at,
            kind,
        })
    };
    let corrupt = |at: usize, reason| {
        End::Damaged(ScanError::Corrupt {
            offset: base + at,
            reason,
        })
    };
    let mut records = Vec::new();
    let mut at = 0;
    let end = loop {
        let rest = &bytes[at..];
        if rest.is_empty() {
            break End::Clean;
        }
        if all_zero(rest) {
            break torn(at, TornKind::Zeros);
        }
        if rest.len() < FRAME_HEADER_LEN {
            break torn(at, TornKind::FrameHeader);
        }
        let Some(len) = payload_len(rest) else {
            if all_zero(&rest[8..]) {
                break torn(at, TornKind::FrameHeader);
            }
            break corrupt(at, "record length check failed");
        };
        let end = FRAME_HEADER_LEN + len;
        if rest.len() < end {
            break torn(at, TornKind::Payload);
        }
        let payload = &rest[FRAME_HEADER_LEN..end];
        if !checksum_holds(rest, payload) {
            if all_zero(&rest[end..]) {
                break torn(at, TornKind::Checksum);
            }
            break corrupt(at, "checksum mismatch");
        }
        records.push(payload);
        at += end;
    };
    Walk {
        records,
        valid_len: base + at,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn log_of(payloads: &[&[u8]]) -> Vec<u8> {
        encode_log(payloads.iter().copied())
    }

    #[test]
    fn round_trip() {
        let data = log_of(&[b"one", b"", b"three"]);
        let scan = scan(&data).unwrap();
        assert_eq!(scan.records, vec![&b"one"[..], b"", b"three"]);
        assert_eq!(scan.valid_len, data.len());
        assert_eq!(scan.torn, None);
    }

    #[test]
    fn torn_tail_at_every_offset_keeps_the_prefix() {
        let full = log_of(&[b"first", b"second record"]);
        let first_end = HEADER_LEN + FRAME_HEADER_LEN + 5;
        for cut in first_end + 1..full.len() {
            let s = scan(&full[..cut]).unwrap();
            assert_eq!(s.records, vec![&b"first"[..]], "cut at {cut}");
            assert_eq!(s.valid_len, first_end);
            assert_eq!(s.torn.unwrap().dropped, cut - first_end);
        }
    }

    #[test]
    fn torn_header_is_an_empty_log() {
        let h = header();
        for cut in 1..HEADER_LEN {
            let s = scan(&h[..cut]).unwrap();
            assert!(s.records.is_empty());
            assert_eq!(s.valid_len, 0);
            assert_eq!(s.torn.unwrap().kind, TornKind::Header);
        }
    }

    #[test]
    fn checksum_failure_in_last_frame_is_torn() {
        let mut data = log_of(&[b"a", b"bb"]);
        let last = data.len() - 1;
        data[last] ^= 1;
        let s = scan(&data).unwrap();
        assert_eq!(s.records, vec![&b"a"[..]]);
        assert_eq!(s.torn.unwrap().kind, TornKind::Checksum);
    }

    #[test]
    fn flipped_byte_before_the_tail_is_corruption_with_offset() {
        let data = log_of(&[b"alpha", b"beta", b"gamma"]);
        for i in HEADER_LEN..HEADER_LEN + FRAME_HEADER_LEN + 5 {
            let mut bad = data.clone();
            bad[i] ^= 0x40;
            match scan(&bad) {
                Err(ScanError::Corrupt { offset, .. }) => assert_eq!(offset, HEADER_LEN),
                other => panic!("byte {i}: expected corruption, got {other:?}"),
            }
        }
    }

    #[test]
    fn zero_filled_tail_is_torn() {
        let mut data = log_of(&[b"a"]);
        let keep = data.len();
        data.extend_from_slice(&[0; 40]);
        let s = scan(&data).unwrap();
        assert_eq!(s.valid_len, keep);
        assert_eq!(s.torn.unwrap().kind, TornKind::Zeros);
    }

    #[test]
    fn newer_version_is_refused() {
        let mut data = log_of(&[]);
        data[8] = 2;
        assert_eq!(scan(&data).unwrap_err(), ScanError::UnsupportedVersion(2));
    }

    #[test]
    fn scanning_a_tail_reports_log_offsets() {
        let full = log_of(&[b"first", b"second"]);
        let second = HEADER_LEN + FRAME_HEADER_LEN + 5;
        let s = scan_frames(&full[second..], second).unwrap();
        assert_eq!(s.records, vec![&b"second"[..]]);
        assert_eq!(s.valid_len, full.len());
        let s = scan_frames(&full[second..full.len() - 1], second).unwrap();
        assert_eq!(s.torn.unwrap().offset, second);
        let mut bad = full.clone();
        bad[second + 1] ^= 1;
        bad.extend_from_slice(b"more bytes after the damage");
        assert_eq!(
            scan_frames(&bad[second..], second).unwrap_err(),
            ScanError::Corrupt {
                offset: second,
                reason: "record length check failed"
            }
        );
    }

    #[test]
    fn jsonl_is_not_a_log() {
        assert!(!is_log(b"{\"type\":\"entity\"}"));
        assert_eq!(scan(b"{}").unwrap_err(), ScanError::NotALog);
    }
}
