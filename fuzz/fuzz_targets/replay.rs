//! Opening arbitrary bytes as a memory file: `frame::scan`, `Memory::open` over the records
//! (or over the bytes as a foreign JSONL file), the file log's recovery, and `import`.
//!
//! Oracles:
//! - scan: the records it returns are exactly the frames of the valid prefix (re-encoding
//!   them gives back `data[..valid_len]`, but for the header's reserved word, which readers
//!   do not check); a torn tail covers exactly the rest; corruption
//!   at offset `o` means `data[..o]` is a clean log; scanning the valid prefix again, or
//!   scanning the frames from any record boundary, agrees; appending a frame to the valid
//!   prefix adds exactly that record.
//! - open: a failure names the first record that does not decode. A memory that opens
//!   exports a compacted log (`export_log`) that reopens to the same graph, and exporting
//!   that again gives the same bytes; a JSONL export reopens (as a foreign file) to the same
//!   graph.
//! - the file log (`core::filelog` on a simulated disk) opens what `scan` accepts, refuses
//!   what it refuses, cuts a torn tail off, converts a foreign file keeping a backup; after
//!   a write, a restart over the file gives the live graph.
//! - import into an empty memory gives the graph that opening the same bytes gives.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_memory_core::frame::{self, ScanError, TornKind};
use mcp_memory_core::record::{Checkpoint, Entry};
use mcp_memory_core::{Contents, OpenError, Server};
use std::cell::RefCell;

use mcp_memory_core::Log;
use mcp_memory_fuzz::{FILE_NAME, MemLog, compacted_log, dir_with_file, file_log, replayed};

fn check_scan(data: &[u8]) -> Option<Vec<Vec<u8>>> {
    let scan = match frame::scan(data) {
        Ok(scan) => scan,
        Err(ScanError::NotALog) => {
            assert!(!frame::is_log(data));
            return None;
        }
        Err(ScanError::UnsupportedVersion(v)) => {
            assert!(data.len() >= frame::HEADER_LEN && data[..8] == frame::MAGIC);
            assert_ne!(v, frame::VERSION);
            return None;
        }
        Err(ScanError::Corrupt { offset, .. }) => {
            assert!(offset >= frame::HEADER_LEN && offset < data.len());
            let prefix = frame::scan(&data[..offset]).expect("the prefix before corruption scans");
            assert!(
                prefix.torn.is_none(),
                "the prefix before corruption is clean"
            );
            assert_eq!(prefix.valid_len, offset);
            return None;
        }
    };
    let records: Vec<Vec<u8>> = scan.records.iter().map(|r| r.to_vec()).collect();
    assert!(scan.valid_len <= data.len());
    match scan.torn {
        None => assert_eq!(
            scan.valid_len,
            data.len(),
            "no torn tail: everything is valid"
        ),
        Some(t) => {
            assert_eq!(t.offset, scan.valid_len);
            assert_eq!(t.offset + t.dropped, data.len());
            assert!(t.dropped > 0);
            if t.kind == TornKind::Header {
                assert_eq!(scan.valid_len, 0);
                assert!(records.is_empty());
            }
            if t.kind == TornKind::Zeros {
                assert!(data[t.offset..].iter().all(|&b| b == 0));
            }
        }
    }
    if scan.valid_len > 0 {
        // The records are exactly the valid prefix's frames (the header's reserved word is
        // not checked by readers, so it may hold anything).
        let encoded = frame::encode_log(records.iter().map(Vec::as_slice));
        assert_eq!(
            encoded.len(),
            scan.valid_len,
            "records re-encode to the valid prefix"
        );
        assert!(encoded[..12] == data[..12], "the header is magic + version");
        assert!(
            encoded[16..] == data[16..scan.valid_len],
            "records re-encode to the valid prefix"
        );
        let again = frame::scan(&data[..scan.valid_len]).expect("the valid prefix scans");
        assert!(again.torn.is_none());
        assert_eq!(again.records, scan.records);
        // Scanning from any record boundary gives the rest.
        let mut at = frame::HEADER_LEN;
        for (i, r) in records.iter().enumerate() {
            let rest = frame::scan_frames(&data[at..], at).expect("scanning from a boundary");
            assert_eq!(rest.records.len(), records.len() - i);
            assert_eq!(rest.records[0], &r[..]);
            assert_eq!(rest.valid_len, scan.valid_len);
            assert_eq!(rest.torn, scan.torn);
            at += frame::FRAME_HEADER_LEN + r.len();
        }
        // Appending a frame to the valid prefix adds that record.
        let mut longer = data[..scan.valid_len].to_vec();
        frame::encode_frame(b"appended", &mut longer);
        let s = frame::scan(&longer).expect("valid prefix + frame");
        assert_eq!(s.records.len(), records.len() + 1);
        assert_eq!(s.records.last().copied(), Some(&b"appended"[..]));
    }
    Some(records)
}

/// Opens `contents`; on success checks export round trips and returns the JSONL graph, or
/// `None` when the memory is unavailable.
fn check_open(contents: Contents) -> Option<Vec<u8>> {
    let records = match &contents {
        Contents::Records(r) | Contents::FromCheckpoint { entries: r, .. } => Some(r.clone()),
        Contents::Foreign(_) => None,
    };
    let log = MemLog::holding(contents.clone());
    let (mut memory, _warnings) = match Server::open(log.clone()) {
        Ok(m) => m,
        Err(OpenError::Record { index, .. }) => {
            let records = records.expect("only records can fail to decode");
            let r = &records[index];
            assert!(Entry::decode(r).is_err() || Checkpoint::decode(r).is_err());
            assert!(replayed(&contents).is_none());
            return None;
        }
        Err(e) => panic!("a MemLog never fails: {e}"),
    };
    let Ok(graph) = memory.memory_mut().export_jsonl() else {
        assert!(memory.memory_mut().export_log().is_err());
        assert!(
            replayed(&contents).is_none(),
            "the memory refuses a file that reads"
        );
        assert_eq!(log.contents(), contents, "an unreadable file was changed");
        return None;
    };
    assert!(
        replayed(&contents).as_ref() == Some(&graph),
        "open differs from a replay"
    );
    if let Contents::Foreign(_) = contents {
        // Converted: the log now holds records that replay to the same graph.
        let Contents::Records(converted) = log.contents() else {
            panic!("a converted file still holds foreign bytes")
        };
        assert!(replayed(&Contents::Records(converted)).as_ref() == Some(&graph));
    }
    let exported = memory
        .memory_mut()
        .export_log()
        .expect("export_jsonl worked");
    let scan = frame::scan(&exported).expect("exported logs scan");
    assert!(scan.torn.is_none());
    let compacted = Contents::Records(scan.records.iter().map(|r| r.to_vec()).collect());
    assert!(
        replayed(&compacted).as_ref() == Some(&graph),
        "export_log reopens to another graph"
    );
    assert!(
        compacted_log(&compacted).as_ref() == Some(&exported),
        "export_log is not a fixed point"
    );
    // The JSONL export, read as a reference file, is the same graph, and exports the same.
    let from_jsonl = Contents::Foreign(graph.clone().into());
    assert!(
        replayed(&from_jsonl).as_ref() == Some(&graph),
        "JSONL export reads back as another graph"
    );
    // Compacted, it is still that graph (the log export also keeps what JSONL cannot say:
    // times, history, reflections; so the two logs differ when the graph has any).
    let rewritten = compacted_log(&from_jsonl).expect("the JSONL export converts");
    let rewritten = frame::scan(&rewritten).expect("compacted logs scan");
    let rewritten = Contents::Records(rewritten.records.iter().map(|r| r.to_vec()).collect());
    assert!(replayed(&rewritten).as_ref() == Some(&graph));
    Some(graph)
}

/// The file log over the bytes: opens exactly when scan (or the JSONL reader) accepts them.
fn check_file(data: &[u8], scanned: &Option<Vec<Vec<u8>>>, opened: &Option<Vec<u8>>) {
    let disk = dir_with_file(data);
    let result = Server::open(file_log(&disk));
    let is_log = data.is_empty() || frame::is_log(data);
    let (mut memory, _) = match result {
        Ok(m) => m,
        Err(OpenError::Log(_)) => {
            assert!(
                is_log && scanned.is_none(),
                "the file log refused what scan accepts"
            );
            assert_eq!(
                disk.file(FILE_NAME).unwrap_or_default(),
                data,
                "a refused file is left untouched"
            );
            return;
        }
        Err(OpenError::Record { .. }) => {
            assert!(opened.is_none());
            return;
        }
    };
    memory.memory_mut().log_mut().unlock();
    if is_log && !data.is_empty() {
        assert!(scanned.is_some(), "the file log opened what scan refuses");
    }
    let graph = memory.memory_mut().export_jsonl().ok();
    if !data.is_empty() {
        assert!(graph == *opened, "the file log opened another graph");
    }
    if graph.is_none() {
        // Unavailable (a foreign file that does not convert): untouched.
        assert_eq!(disk.file(FILE_NAME).unwrap_or_default(), data);
        return;
    }
    if !is_log {
        assert_eq!(
            disk.file("memory.jsonl.bak").as_deref(),
            Some(data),
            "a converted file is kept as a backup"
        );
    }
    // The file is now a clean log of the graph; a write and a restart keep it so.
    let file = disk.file(FILE_NAME).unwrap_or_default();
    let s = frame::scan(&file).expect("an opened file scans");
    assert!(s.torn.is_none(), "the torn tail was cut off");
    memory.memory_mut().log_mut().lock().expect("lock");
    let out = memory.handle(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"fuzz-new","entityType":"t","observations":["o"]}]}}}"#,
    );
    assert!(!out[0].contains("isError"), "{out:?}");
    memory.memory_mut().log_mut().unlock();
    let live = memory.memory_mut().export_jsonl().expect("available");
    drop(memory);
    let mut restarted = file_log(&disk);
    let contents = restarted.replay().expect("the written file reads");
    assert!(
        replayed(&contents).as_ref() == Some(&live),
        "a restart loses or changes data"
    );
}

thread_local! {
    /// A memory for import, emptied before each use by another writer's (empty) replace.
    static IMPORTER: (MemLog, RefCell<Server<MemLog>>) = {
        let log = MemLog::holding(Contents::Records(Vec::new()));
        let (memory, _) = Server::open(log.clone()).expect("open");
        (log, RefCell::new(memory))
    };
}

/// Import into an empty memory brings exactly what opening the bytes gives; importing the
/// same bytes again (a merge) logs what it does.
fn check_import(data: &[u8], opened: &Option<Vec<u8>>) {
    IMPORTER.with(|(log, memory)| {
        let mut memory = memory.borrow_mut();
        log.replace_as_other_writer(Vec::new());
        match memory.import(data, 1) {
            Ok(_) => {
                let graph = memory.memory_mut().export_jsonl().expect("available");
                if let Some(opened) = opened {
                    assert!(&graph == opened, "import differs from open");
                }
                assert!(
                    replayed(&log.contents()).as_ref() == Some(&graph),
                    "import logged another graph"
                );
                memory
                    .import(data, 2)
                    .expect("a second import of the same bytes");
                let after = memory.memory_mut().export_jsonl().expect("available");
                assert!(
                    replayed(&log.contents()).as_ref() == Some(&after),
                    "merge logged another graph"
                );
            }
            Err(_) => {
                assert!(
                    memory
                        .memory_mut()
                        .export_jsonl()
                        .expect("available")
                        .is_empty(),
                    "a failed import changed the memory"
                );
                assert_eq!(
                    log.contents(),
                    Contents::Records(Vec::new()),
                    "a failed import wrote"
                );
            }
        }
    });
}

fuzz_target!(|data: &[u8]| {
    let scanned = check_scan(data);
    let opened = if frame::is_log(data) {
        scanned
            .clone()
            .and_then(|records| check_open(Contents::Records(records)))
    } else {
        check_open(Contents::Foreign(data.to_vec().into()))
    };
    check_file(data, &scanned, &opened);
    check_import(data, &opened);
});
