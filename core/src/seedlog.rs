//! The Rust seed's memory file (`mcp-memory` 1.x and 2.0): a binary log that starts with
//! `MCPMEMV1` (no checksums) or `MCPMEMV2` (a CRC32 after each record), read into this
//! crate's records so the memory opens here.
//!
//! Each record: a u32 LE length (counting itself, the kind byte, the payload and the CRC),
//! a kind byte, the payload, and (V2) the payload's CRC32 (IEEE) LE. Payload strings are a
//! u16 LE byte length and UTF-8; lists a u32 LE count. Kinds: 0 create entity (name, type,
//! observations), 1 create relation (from, to, type), 2 add observations (name,
//! observations), 3 delete entity (name), 4 delete observations (name, observations), 5
//! delete relation (from, to, type), 6 and 7 begin and commit a transaction (records
//! between them are applied together, and not at all if the commit is missing).
//!
//! As the seed replays: a torn tail (a record cut short, or a V2 checksum that does not
//! match) ends the log; unknown kinds are skipped. Both are reported.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::graph::SNAPSHOT_CHUNK;
use crate::hash::HashSet;
use crate::model::{Entity, Observations, Relation};
use crate::record::{Op, Record};

const MAGIC_V1: &[u8; 8] = b"MCPMEMV1";
const MAGIC_V2: &[u8; 8] = b"MCPMEMV2";
/// The seed's largest record.
const MAX_RECORD: usize = 1 << 20;

/// Whether these bytes are the Rust seed's binary log.
pub fn is_seed_log(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC_V1) || bytes.starts_with(MAGIC_V2)
}

/// A seed log read as records of this crate, with what was dropped said.
#[derive(Debug, Default)]
pub struct Converted {
    /// The records: the seed's changes in order, up to `SNAPSHOT_CHUNK` ops each.
    pub records: Vec<Vec<u8>>,
    /// Entities, observations and relations the log created (counting later deletions).
    pub counts: [usize; 3],
    /// What was dropped reading it, one sentence each.
    pub warnings: Vec<String>,
}

/// Reads a payload's fields.
struct Fields<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let bytes = self.data.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(bytes)
    }

    fn str(&mut self) -> Option<&'a str> {
        let len = self.take(2)?;
        let len = u16::from_le_bytes([len[0], len[1]]) as usize;
        core::str::from_utf8(self.take(len)?).ok()
    }

    fn strs(&mut self) -> Option<Vec<&'a str>> {
        let n = self.take(4)?;
        let n = u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize;
        // Each string takes at least 2 bytes: a count beyond that is damage, not a list.
        if n > (self.data.len() - self.at) / 2 {
            return None;
        }
        (0..n).map(|_| self.str()).collect()
    }

    fn done(&self) -> bool {
        self.at == self.data.len()
    }
}

/// One seed record as an op of this crate, or `None` if its payload does not parse.
fn op<'a>(kind: u8, payload: &'a [u8], live: &mut HashSet<&'a str>) -> Option<Op<'a>> {
    let mut f = Fields {
        data: payload,
        at: 0,
    };
    let relation = |f: &mut Fields<'a>| {
        Some(Relation {
            from: f.str()?,
            to: f.str()?,
            relation_type: f.str()?,
        })
    };
    let op = match kind {
        0 => {
            let (name, entity_type, observations) = (f.str()?, f.str()?, f.strs()?);
            // The seed keeps one entity per name: creating a known one adds what it lacks.
            if !live.insert(name) {
                Op::AddObservations(alloc::vec![Observations {
                    entity: name,
                    contents: observations,
                }])
            } else {
                Op::CreateEntities(alloc::vec![Entity {
                    name,
                    entity_type,
                    observations,
                }])
            }
        }
        1 => Op::CreateRelations(alloc::vec![relation(&mut f)?]),
        2 => Op::AddObservations(alloc::vec![Observations {
            entity: f.str()?,
            contents: f.strs()?,
        }]),
        3 => {
            let name = f.str()?;
            live.remove(name);
            Op::DeleteEntities(alloc::vec![name])
        }
        4 => Op::DeleteObservations(alloc::vec![Observations {
            entity: f.str()?,
            contents: f.strs()?,
        }]),
        5 => Op::DeleteRelations(alloc::vec![relation(&mut f)?]),
        _ => return None,
    };
    f.done().then_some(op)
}

/// Reads a Rust seed log (see [`is_seed_log`]) into records. Refuses a file whose records
/// do not parse (naming the offset); a torn tail and an unclosed transaction are dropped
/// and reported, as the seed drops them.
pub fn convert<'a>(bytes: &'a [u8]) -> Result<Converted, String> {
    let crc = bytes.starts_with(MAGIC_V2);
    let mut out = Converted::default();
    let mut live = HashSet::default();
    let mut txn: Option<Vec<Op<'a>>> = None;
    let (mut at, mut unknown) = (8, 0usize);
    // The converted log replaces the file whole, so its records need not follow the seed's:
    // ops are written SNAPSHOT_CHUNK to a record (fewer, larger records replay faster).
    let mut pending: Vec<Op<'a>> = Vec::new();
    let mut push = |out: &mut Converted, ops: Vec<Op<'a>>| {
        for op in &ops {
            match op {
                Op::CreateEntities(e) => out.counts[0] += e.len(),
                Op::CreateRelations(r) => out.counts[2] += r.len(),
                _ => {}
            }
            if let Op::CreateEntities(e) = op {
                out.counts[1] += e.iter().map(|e| e.observations.len()).sum::<usize>();
            }
            if let Op::AddObservations(o) = op {
                out.counts[1] += o.iter().map(|o| o.contents.len()).sum::<usize>();
            }
        }
        pending.extend(ops);
        if pending.len() >= SNAPSHOT_CHUNK {
            let ops = core::mem::take(&mut pending);
            out.records.push(Record { stamp: None, ops }.encode());
        }
    };
    while at < bytes.len() {
        let torn = |out: &mut Converted, why: &str| {
            out.warnings.push(format!(
                "the seed log's tail at byte {at} was dropped ({why}), as the seed drops it"
            ));
        };
        let Some(len) = bytes.get(at..at + 4) else {
            torn(&mut out, "a record length cut short");
            break;
        };
        let total = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let overhead = if crc { 9 } else { 5 };
        if total < overhead || total > MAX_RECORD {
            return Err(format!(
                "the Rust seed log has an invalid record length {total} at byte {at}"
            ));
        }
        let Some(record) = bytes.get(at..at + total) else {
            torn(&mut out, "the last record is incomplete");
            break;
        };
        let (kind, payload) = (record[4], &record[5..total - (overhead - 5)]);
        if crc {
            let stored = &record[total - 4..];
            if crc32fast::hash(payload)
                != u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]])
            {
                torn(&mut out, "its checksum does not match");
                break;
            }
        }
        match kind {
            6 => {
                if let Some(open) = txn.replace(Vec::new()) {
                    push(&mut out, open);
                }
            }
            7 => {
                let ops = txn.take().unwrap_or_default();
                push(&mut out, ops);
            }
            0..=5 => {
                let Some(op) = op(kind, payload, &mut live) else {
                    return Err(format!(
                        "the Rust seed log's record at byte {at} does not parse"
                    ));
                };
                match &mut txn {
                    Some(ops) => ops.push(op),
                    None => push(&mut out, alloc::vec![op]),
                }
            }
            _ => unknown += 1,
        }
        at += total;
    }
    if !pending.is_empty() {
        out.records.push(
            Record {
                stamp: None,
                ops: pending,
            }
            .encode(),
        );
    }
    if txn.is_some() {
        out.warnings.push(
            "an unfinished transaction at the end of the seed log was dropped (the seed drops it)"
                .into(),
        );
    }
    if unknown > 0 {
        out.warnings.push(format!(
            "{unknown} record(s) of unknown kinds were skipped (the seed skips them)"
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;
    use crate::jsonl;
    use crate::testing::seed_record;

    /// A seed log of version 1 (no checksums) or 2, written record by record.
    struct Writer {
        bytes: Vec<u8>,
        crc: bool,
    }

    impl Writer {
        fn new(crc: bool) -> Self {
            let magic = if crc { MAGIC_V2 } else { MAGIC_V1 };
            Writer {
                bytes: magic.to_vec(),
                crc,
            }
        }

        /// A record of `kind` holding these strings, then (if given) this list.
        fn record(&mut self, kind: u8, strs: &[&str], list: Option<&[&str]>) -> &mut Self {
            let mut v2 = Vec::new();
            seed_record(&mut v2, kind, strs, list);
            if !self.crc {
                // Version 1: the same record without its checksum (and 4 bytes shorter).
                v2.truncate(v2.len() - 4);
                let len = (v2.len() as u32).to_le_bytes();
                v2[..4].copy_from_slice(&len);
            }
            self.bytes.extend_from_slice(&v2);
            self
        }
    }

    fn graph_of(converted: &Converted) -> String {
        let mut g = Graph::default();
        for r in &converted.records {
            g.apply(&Record::decode(r).unwrap(), &mut ());
        }
        String::from_utf8(jsonl::export(&g)).unwrap()
    }

    /// One of each kind, a committed transaction (a merge), then an unfinished one.
    fn sample(crc: bool) -> Vec<u8> {
        let mut w = Writer::new(crc);
        w.record(0, &["Alice", "person"], Some(&["likes tea", "ΟΔΟΣ"]))
            .record(0, &["Bob", "person"], Some(&[]))
            .record(0, &["Temp", "t"], Some(&["gone"]))
            .record(1, &["Alice", "Bob", "knows"], None)
            .record(1, &["Temp", "Bob", "knows"], None)
            .record(2, &["Bob"], Some(&["tall", "kind"]))
            .record(4, &["Bob"], Some(&["kind"]))
            .record(6, &[], None)
            .record(2, &["Alice"], Some(&["gone"]))
            .record(3, &["Temp"], None)
            .record(7, &[], None)
            .record(5, &["Alice", "Bob", "knows"], None)
            .record(6, &[], None)
            .record(3, &["Alice"], None);
        w.bytes.clone()
    }

    #[test]
    fn reads_every_kind_both_versions_and_drops_an_unfinished_transaction() {
        for crc in [false, true] {
            let converted = convert(&sample(crc)).unwrap();
            assert_eq!(
                graph_of(&converted),
                concat!(
                    r#"{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea","ΟΔΟΣ","gone"]}"#,
                    "\n",
                    r#"{"type":"entity","name":"Bob","entityType":"person","observations":["tall"]}"#
                ),
                "crc {crc}"
            );
            assert_eq!(converted.counts, [3, 6, 2]);
            assert_eq!(converted.warnings.len(), 1, "{:?}", converted.warnings);
            assert!(converted.warnings[0].contains("unfinished transaction"));
        }
    }

    #[test]
    fn a_torn_tail_or_a_bad_checksum_ends_the_log_and_is_reported() {
        let whole = sample(true);
        let cut = &whole[..whole.len() - 3];
        let converted = convert(cut).unwrap();
        assert!(
            converted.warnings[0].contains("incomplete"),
            "{:?}",
            converted.warnings
        );
        let mut bad = sample(true);
        let last = bad.len() - 1;
        bad[last] ^= 1;
        let converted = convert(&bad).unwrap();
        assert!(
            converted.warnings[0].contains("checksum"),
            "{:?}",
            converted.warnings
        );
    }

    #[test]
    fn a_record_that_does_not_parse_is_refused_with_its_offset() {
        let mut w = Writer::new(false);
        w.record(1, &["only one string"], None);
        let err = convert(&w.bytes).unwrap_err();
        assert_eq!(err, "the Rust seed log's record at byte 8 does not parse");
    }
}
