//! Torn tails at every byte: a real memory log (written by a [`Memory`] through the hosts'
//! `FileLog`, records of every kind) is cut at every byte offset, and cut tails are followed
//! by zeros or garbage. Opening (replay) and catching up (another process died mid-append)
//! must keep exactly the records whose frames are complete, report the torn tail, cut the
//! file back, and go on appending after it; damage that is not a torn tail must refuse to
//! open and leave the file untouched.
//!
//! `core/tests/crash.rs` checks random power cuts through `frame::scan` and `CrashLog`, and
//! `frame.rs` cuts a two-record log; this file walks every offset of the path the hosts
//! run (`FileLog` reading a file, cutting it, warning).

use crate::common::{CrashRng, MemDir, MemDisk, call_ok, entity, graph, graph_of, relation};
use mcp_memory_core::filelog::FileLog;
use mcp_memory_core::{Contents, Log, Server, frame};
use serde_json::{Value, json};

const NAME: &str = "memory.mcpmem";

/// A directory in memory (the core's test double): the memory file and its companions
/// (the lock), shared by the disks of every memory the test opens on it.
type Files = MemDir;

type FileMemory = Server<FileLog<MemDisk>>;

fn files_holding(bytes: &[u8]) -> Files {
    MemDir::with_file(NAME, bytes)
}

fn bytes_of(files: &Files) -> Vec<u8> {
    files.file(NAME).expect("the memory file exists")
}

/// The only process's disk on `files`. It never waits for the lock: no other process
/// holds it (checked after each open).
fn disk(files: &Files) -> MemDisk {
    files.open(NAME, 1)
}

/// Opens a memory on `files` as a host does (holding the lock); returns it and the
/// warnings of the open, or the error.
fn try_open(files: &Files) -> Result<(FileMemory, Vec<String>), String> {
    let mut log = FileLog::new(disk(files));
    log.lock().unwrap();
    assert_eq!(files.clock(), 0, "waited for a lock no other process holds");
    match Server::open(log) {
        Ok((mut memory, mut warnings)) => {
            memory.memory_mut().log_mut().unlock();
            warnings.extend(memory.memory_mut().log_mut().take_warnings());
            Ok((memory, warnings))
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Replays the file through a `FileLog` alone (what a host's open reads, before the
/// records are applied): the record payloads and the warnings, or the error.
fn try_replay(files: &Files) -> Result<(Vec<Vec<u8>>, Vec<String>), String> {
    let mut log = FileLog::new(disk(files));
    log.lock().unwrap();
    let contents = log.replay().map_err(|e| e.0);
    log.unlock();
    match contents? {
        Contents::Records(records) => Ok((records, log.take_warnings())),
        Contents::FromCheckpoint { .. } => Err("read from a checkpoint".into()),
        Contents::Foreign(_) => Err("read as a foreign file".into()),
    }
}

/// Makes a tool call as a host does (holding the lock); returns the result and warnings.
fn locked_call(memory: &mut FileMemory, tool: &str, args: Value) -> (Value, Vec<String>) {
    memory.memory_mut().log_mut().lock().unwrap();
    let result = call_ok(memory, tool, args);
    memory.memory_mut().log_mut().unlock();
    (result, memory.memory_mut().log_mut().take_warnings())
}

/// A log with records of every kind (and sizes from a few bytes to a few hundred), the
/// graph after each prefix of its records, and where each frame ends.
struct Written {
    bytes: Vec<u8>,
    /// The record payloads, in order.
    records: Vec<Vec<u8>>,
    /// `states[n]`: read_graph after the first `n` records.
    states: Vec<Value>,
    /// `ends[n]`: where the first `n` records end (`ends[0]` is the header's end).
    ends: Vec<usize>,
}

fn write_log() -> Written {
    let files = files_holding(&[]);
    let (mut m, _) = try_open(&files).unwrap();
    let long = "a longer observation, so that frames differ in size: ".repeat(6);
    let calls = [
        (
            "create_entities",
            json!({"entities": [entity("Alice", "person", &["likes tea", &long]),
                                entity("Bob", "person", &[])]}),
        ),
        (
            "create_relations",
            json!({"relations": [relation("Alice", "Bob", "knows"),
                                 relation("Bob", "Alice", "owes")]}),
        ),
        (
            "add_observations",
            json!({"observations": [{"entityName": "Bob", "contents": ["b1", "é 😀"]}]}),
        ),
        (
            "create_entities",
            json!({"entities": [entity("Carol", "person", &["c"])]}),
        ),
        (
            "delete_observations",
            json!({"deletions": [{"entityName": "Alice", "observations": ["likes tea"]}]}),
        ),
        (
            "delete_relations",
            json!({"relations": [relation("Bob", "Alice", "owes")]}),
        ),
        (
            "upsert_entities",
            json!({"entities": [entity("Carol", "x", &["c", "c2"]), entity("Dave", "person", &["d"])]}),
        ),
        (
            "create_relations",
            json!({"relations": [relation("Dave", "Carol", "knows")]}),
        ),
        (
            "merge_entities",
            json!({"source": "Dave", "target": "Carol"}),
        ),
        ("delete_entities", json!({"entityNames": ["Bob"]})),
        (
            "create_entities",
            json!({"entities": [entity("E", "t", &[])]}),
        ),
    ];
    let mut states = vec![graph(&mut m)];
    for (tool, args) in calls {
        let before = frame::scan(&bytes_of(&files)).unwrap().records.len();
        locked_call(&mut m, tool, args);
        let after = frame::scan(&bytes_of(&files)).unwrap().records.len();
        assert!(after > before, "{tool} wrote no record");
        // A call writes one record (a batch for several changes): one state per record.
        assert_eq!(after, before + 1, "{tool} wrote more than one record");
        states.push(graph(&mut m));
    }
    let bytes = bytes_of(&files);
    let scan = frame::scan(&bytes).unwrap();
    assert_eq!(scan.torn, None);
    let mut ends = vec![frame::HEADER_LEN];
    for r in &scan.records {
        ends.push(ends.last().unwrap() + frame::FRAME_HEADER_LEN + r.len());
    }
    assert_eq!(*ends.last().unwrap(), bytes.len());
    let records = scan.records.iter().map(|r| r.to_vec()).collect();
    Written {
        bytes,
        records,
        states,
        ends,
    }
}

impl Written {
    /// How many records end at or before `offset`.
    fn complete_at(&self, offset: usize) -> usize {
        self.ends[1..].iter().filter(|&&end| end <= offset).count()
    }

    /// How many complete records `image` holds: those of the longest prefix it shares with
    /// the log (bytes appended after a cut may happen to equal the bytes that were cut).
    fn complete_in(&self, image: &[u8]) -> usize {
        let same = image
            .iter()
            .zip(&self.bytes)
            .take_while(|(a, b)| a == b)
            .count();
        self.complete_at(same)
    }

    /// Where the valid prefix of `n` complete records ends.
    fn end_of(&self, n: usize) -> usize {
        self.ends[n]
    }
}

fn torn_warnings(warnings: &[String]) -> usize {
    warnings.iter().filter(|w| w.contains("torn tail")).count()
}

/// After a recovery that kept `n` records: the file is cut back to them, the next write
/// goes right after, and the file then replays as the `n` records and the write, with no
/// warning.
fn check_appending_after_recovery(w: &Written, files: &Files, m: &mut FileMemory, n: usize) {
    assert_eq!(
        bytes_of(files),
        w.bytes[..w.end_of(n)],
        "the file is cut back to its {n} complete records"
    );
    let (_, warnings) = locked_call(
        m,
        "create_entities",
        json!({"entities": [entity("after", "t", &["recovery"])]}),
    );
    assert_eq!(warnings, Vec::<String>::new());
    let mut expected = w.states[n].clone();
    expected["entities"]
        .as_array_mut()
        .unwrap()
        .push(entity("after", "t", &["recovery"]));
    assert_eq!(graph(m), expected, "after {n} records and one more");
    let (records, warnings) = try_replay(files).unwrap();
    assert_eq!(warnings, Vec::<String>::new(), "a recovered file is clean");
    assert_eq!(records.len(), n + 1, "the {n} records and the new one");
    assert_eq!(records[..n], w.records[..n]);
}

#[test]
fn a_cut_at_any_byte_opens_to_exactly_the_complete_records_with_a_warning() {
    let w = write_log();
    let mut tried = 0;
    for cut in 0..=w.bytes.len() {
        let files = files_holding(&w.bytes[..cut]);
        let (mut m, warnings) =
            try_open(&files).unwrap_or_else(|e| panic!("cut at {cut}: open failed: {e}"));
        let n = w.complete_at(cut);
        assert_eq!(graph(&mut m), w.states[n], "cut at {cut}");
        let on_boundary = cut == 0 || w.ends.contains(&cut);
        assert_eq!(
            torn_warnings(&warnings),
            usize::from(!on_boundary),
            "cut at {cut}: {warnings:?}"
        );
        check_appending_after_recovery(&w, &files, &mut m, n);
        tried += 1;
    }
    eprintln!(
        "torn tails: {tried} cut offsets opened ({} records, {} bytes)",
        w.states.len() - 1,
        w.bytes.len()
    );
}

#[test]
fn a_writer_dying_mid_append_at_any_byte_is_caught_up_to_the_complete_records() {
    let w = write_log();
    let mut tried = 0;
    // Another process has the log open with `first` records; a writer then appends the
    // rest and dies at `cut`.
    for first in [0, 1] {
        for cut in w.end_of(first)..=w.bytes.len() {
            let files = files_holding(&w.bytes[..w.end_of(first)]);
            let (mut m, _) = try_open(&files).unwrap();
            files.overwrite(NAME, &w.bytes[..cut]);
            let n = w.complete_at(cut);
            m.memory_mut().log_mut().lock().unwrap();
            let seen = graph(&mut m);
            m.memory_mut().log_mut().unlock();
            let warnings = m.memory_mut().log_mut().take_warnings();
            assert_eq!(seen, w.states[n], "from {first}, cut at {cut}");
            assert_eq!(
                torn_warnings(&warnings),
                usize::from(!w.ends.contains(&cut)),
                "from {first}, cut at {cut}: {warnings:?}"
            );
            check_appending_after_recovery(&w, &files, &mut m, n);
            tried += 1;
        }
    }
    eprintln!("torn tails: {tried} cut offsets caught up by a running memory");
}

/// Tails through `FileLog` alone (the records it hands to the memory; the tests above
/// check that records make the states): many variants per cut stay fast.
#[test]
fn a_cut_followed_by_zeros_is_a_torn_tail_never_corruption() {
    let w = write_log();
    let mut tried = 0;
    for cut in 0..=w.bytes.len() {
        for zeros in [1, 4, 8, 11, 12, 13, 100, 4096] {
            let mut image = w.bytes[..cut].to_vec();
            image.resize(cut + zeros, 0);
            let files = files_holding(&image);
            let (records, warnings) = try_replay(&files)
                .unwrap_or_else(|e| panic!("cut at {cut} + {zeros} zeros: open failed: {e}"));
            let n = w.complete_in(&image);
            assert_eq!(records, w.records[..n], "cut at {cut} + {zeros} zeros");
            assert_eq!(
                torn_warnings(&warnings),
                usize::from(image != w.bytes[..w.end_of(n)]),
                "cut at {cut} + {zeros} zeros: {warnings:?}"
            );
            assert_eq!(bytes_of(&files), w.bytes[..w.end_of(n)]);
            tried += 1;
        }
    }
    eprintln!("torn tails: {tried} cuts followed by zeros opened");
}

/// A final frame whose checksum fails (its crc or payload bytes not all written) is a torn
/// tail: dropped with a warning, the records before it kept. A final frame whose length
/// fields disagree cannot be told from damage (where it ends is unknown): the open is
/// refused at its offset and the file left untouched.
#[test]
fn a_garbled_last_frame_is_dropped_as_torn_or_refused_untouched_if_its_length_is_garbled() {
    let w = write_log();
    let mut rng = CrashRng::new(7);
    let last = w.states.len() - 1;
    let start = w.end_of(last - 1);
    let (mut dropped, mut refused) = (0, 0);
    for at in start..w.bytes.len() {
        let mut image = w.bytes.clone();
        image[at] ^= 1 + rng.up_to(254) as u8;
        let files = files_holding(&image);
        if at < start + 8 {
            let e = try_open(&files).err().unwrap_or_else(|| {
                panic!("byte {at} (a length field of the last frame) garbled: opened")
            });
            let expected = format!("corrupt record at byte offset {start}");
            assert!(e.contains(&expected), "byte {at}: {e}");
            assert_eq!(bytes_of(&files), image, "a refused file is left untouched");
            refused += 1;
            continue;
        }
        let (mut m, warnings) =
            try_open(&files).unwrap_or_else(|e| panic!("byte {at} garbled: open failed: {e}"));
        assert_eq!(graph(&mut m), w.states[last - 1], "byte {at} garbled");
        assert_eq!(torn_warnings(&warnings), 1, "byte {at}: {warnings:?}");
        check_appending_after_recovery(&w, &files, &mut m, last - 1);
        dropped += 1;
    }
    eprintln!(
        "torn tails: {dropped} garbled bytes of the last frame dropped as torn, {refused} (length fields) refused"
    );
}

/// Garbage after a cut either reads as a torn tail (then only complete records are kept) or
/// is refused as corruption at the end of the complete records — and then the file is not
/// touched. It never opens to anything else.
#[test]
fn garbage_after_a_cut_is_torn_or_refused_and_never_changes_the_records_kept() {
    let w = write_log();
    let mut rng = CrashRng::new(11);
    let (mut opened, mut refused) = (0, 0);
    for cut in frame::HEADER_LEN..=w.bytes.len() {
        for len in [1, 5, 11, 12, 40, 600] {
            let mut image = w.bytes[..cut].to_vec();
            image.extend((0..len).map(|_| rng.next_u64() as u8));
            let files = files_holding(&image);
            let n = w.complete_in(&image);
            match try_replay(&files) {
                Ok((records, warnings)) => {
                    assert_eq!(records, w.records[..n], "cut at {cut} + {len} garbage");
                    assert_eq!(
                        torn_warnings(&warnings),
                        usize::from(image != w.bytes[..w.end_of(n)]),
                        "cut at {cut} + {len} garbage: {warnings:?}"
                    );
                    assert_eq!(bytes_of(&files), w.bytes[..w.end_of(n)]);
                    opened += 1;
                }
                Err(e) => {
                    let at = format!("corrupt record at byte offset {}", w.end_of(n));
                    assert!(e.contains(&at), "cut at {cut} + {len} garbage: {e}");
                    assert_eq!(bytes_of(&files), image, "a refused file is left untouched");
                    assert!(
                        len >= frame::FRAME_HEADER_LEN || !w.ends.contains(&cut),
                        "cut at {cut}: {len} bytes after whole frames cannot hold a frame header, so they are a torn tail: {e}"
                    );
                    refused += 1;
                }
            }
        }
    }
    eprintln!("torn tails: {opened} cuts + garbage opened as torn, {refused} refused as corrupt");
    assert!(opened > 0 && refused > 0, "both outcomes were exercised");
}

#[test]
fn an_empty_file_is_a_new_log_without_warning() {
    let files = files_holding(&[]);
    let (mut m, warnings) = try_open(&files).unwrap();
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(graph(&mut m), graph_of(&[], &[]));
    assert_eq!(bytes_of(&files), frame::header());
}
