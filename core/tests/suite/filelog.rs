//! The memory file policy shared by every host (`filelog`): several processes on one file,
//! the lock and its stale cases, a file replaced under a process, torn tails left by a
//! writer that died. A simulated directory stands in for the file system: names point at
//! shared "inodes", so a rename over the path leaves an old handle on the old file.

use mcp_memory_core::filelog::{Disk, FileLog, LOCK_WAIT_MS, OWNERLESS_LOCK_MS, STALE_LOCK_MS};
use mcp_memory_core::frame;
use mcp_memory_core::log::all_entries;
use mcp_memory_core::record::CHECKPOINT;
use mcp_memory_core::testing::{MemDir, MemDisk, Op, frame_offset};
use mcp_memory_core::{Changes, Contents, Intent, Log};

const NAME: &str = "memory.jsonl";
const LOCK: &str = "memory.jsonl.lock";

/// Process `pid` opening the memory file in `dir` (the core's simulated directory).
fn process(dir: &MemDir, pid: u32) -> FileLog<MemDisk> {
    FileLog::new(dir.open(NAME, pid))
}

fn records(contents: Contents) -> Vec<Vec<u8>> {
    match contents {
        Contents::Records(r) => r,
        other => panic!("expected all records, got {other:?}"),
    }
}

fn appended(changes: Changes) -> Vec<Vec<u8>> {
    match changes {
        Changes::Appended(r) => r,
        Changes::Replaced { .. } => panic!("expected appended records"),
    }
}

/// Runs `f` holding the lock, as a host does around one message.
fn locked<T>(log: &mut FileLog<MemDisk>, f: impl FnOnce(&mut FileLog<MemDisk>) -> T) -> T {
    log.lock().unwrap();
    let out = f(log);
    log.unlock();
    out
}

fn lock_owner(dir: &MemDir) -> Option<String> {
    dir.file(LOCK)
        .map(|bytes| String::from_utf8(bytes).unwrap())
}

#[test]
fn two_processes_take_turns_and_see_each_others_records() {
    let dir = MemDir::new();
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
        assert_eq!(
            appended(a.refresh(Intent::Write).unwrap()),
            [b"two".to_vec()]
        );
        a.append(b"three").unwrap();
    });
    let bytes = dir.file(NAME).unwrap();
    let scan = frame::scan(&bytes).unwrap();
    assert_eq!(scan.records, [&b"one"[..], b"two", b"three"]);
}

#[test]
fn a_lock_left_by_a_dead_process_is_broken_with_a_warning() {
    let dir = MemDir::new();
    let mut a = process(&dir, 1);
    a.disk().create_new(LOCK, b"999 gone").unwrap();
    a.lock().unwrap();
    assert_eq!(lock_owner(&dir).as_deref(), Some("1 nonce1"));
    let warnings = a.take_warnings();
    assert!(warnings[0].contains("999 gone"), "{warnings:?}");
    assert_eq!(dir.clock(), 0, "a dead owner is not waited for");
}

/// A process killed between creating the lock and writing its token leaves an empty lock
/// (seen in one background-mode SIGKILL in five): it is broken after a second, not 30.
#[test]
fn an_empty_lock_left_by_a_killed_creator_is_broken_after_a_second() {
    let dir = MemDir::new();
    let mut a = process(&dir, 1);
    a.disk().create_new(LOCK, b"").unwrap();
    a.lock().unwrap();
    let waited = dir.clock();
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
    let dir = MemDir::new();
    let mut a = process(&dir, 1);
    a.disk().create_new(LOCK, b"1 a-sibling-nonce").unwrap();
    a.lock().unwrap();
    assert!(dir.clock() > STALE_LOCK_MS, "waited {} ms", dir.clock());
    assert_eq!(lock_owner(&dir).as_deref(), Some("1 nonce1"));
}

#[test]
fn a_live_owner_is_waited_for_until_its_lock_is_stale() {
    let dir = MemDir::new();
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    b.lock().unwrap();
    a.lock().unwrap();
    assert!(dir.clock() > STALE_LOCK_MS, "waited {} ms", dir.clock());
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

/// A writer stopped (SIGSTOP) or hung while it holds the lock: a request waits
/// [`LOCK_WAIT_MS`], then fails naming it and changing nothing; requests go through as soon
/// as it lets go, or once its lock is stale.
#[test]
fn a_request_behind_a_stuck_owner_fails_naming_it_and_resumes_when_it_goes_on() {
    let dir = MemDir::new();
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    locked(&mut a, |a| a.replay().unwrap());
    locked(&mut b, |b| b.replay().unwrap());
    b.lock().unwrap();
    let err = a.refresh(Intent::Write).unwrap_err();
    assert!(
        (LOCK_WAIT_MS..LOCK_WAIT_MS + 100).contains(&dir.clock()),
        "waited {} ms",
        dir.clock()
    );
    assert!(
        err.0
            .starts_with("memory.jsonl is locked by process 2, which has held it for 10 s"),
        "{}",
        err.0
    );
    assert_eq!(lock_owner(&dir).as_deref(), Some("2 nonce2"), "not taken");
    // It goes on: the next request gets through at once.
    b.append(b"from b").unwrap();
    b.unlock();
    let waited = dir.clock();
    assert_eq!(
        appended(a.refresh(Intent::Write).unwrap()),
        [b"from b".to_vec()]
    );
    assert_eq!(dir.clock(), waited);
    a.unlock();
    // It never does: requests fail until its lock is stale, then one breaks it.
    b.lock().unwrap();
    while a.refresh(Intent::Write).is_err() {
        assert!(dir.clock() < waited + STALE_LOCK_MS + LOCK_WAIT_MS);
    }
    assert!(dir.clock() > waited + STALE_LOCK_MS);
    assert_eq!(lock_owner(&dir).as_deref(), Some("1 nonce1"));
}

#[test]
fn a_file_replaced_by_another_process_is_read_again_whole() {
    let dir = MemDir::new();
    dir.put(NAME, b"{\"type\":\"entity\"}");
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    locked(&mut b, |b| {
        assert!(matches!(b.replay().unwrap(), Contents::Foreign(_)))
    });
    locked(&mut a, |a| {
        assert!(matches!(a.replay().unwrap(), Contents::Foreign(_)));
        a.replace(&[b"converted".to_vec()]).unwrap();
        a.append(b"after").unwrap();
    });
    assert!(dir.file("memory.jsonl.bak").is_some(), "original kept");
    locked(&mut b, |b| match b.refresh(Intent::Write).unwrap() {
        Changes::Replaced { entries, .. } => {
            assert_eq!(entries, [b"converted".to_vec(), b"after".to_vec()])
        }
        Changes::Appended(r) => panic!("expected the new file, got {r:?}"),
    });
    locked(&mut b, |b| b.append(b"from b").unwrap());
    locked(&mut a, |a| {
        assert_eq!(
            appended(a.refresh(Intent::Write).unwrap()),
            [b"from b".to_vec()]
        )
    });
}

/// A file holding one whole record and the first bytes of a second (its writer died, or
/// is still writing), and process 2, which has seen the first; the whole part's length.
fn torn_after_one_record() -> (MemDir, FileLog<MemDisk>, usize) {
    let dir = MemDir::new();
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    locked(&mut a, |a| {
        a.replay().unwrap();
        a.append(b"whole").unwrap();
    });
    locked(&mut b, |b| b.replay().unwrap());
    let mut bytes = dir.file(NAME).unwrap();
    let valid = bytes.len();
    let mut frame_bytes = Vec::new();
    frame::encode_frame(b"half written", &mut frame_bytes);
    bytes.extend_from_slice(&frame_bytes[..7]);
    dir.overwrite(NAME, &bytes);
    (dir, b, valid)
}

#[test]
fn a_torn_tail_left_by_a_writer_that_died_is_cut_on_refresh() {
    let (dir, mut b, valid) = torn_after_one_record();
    locked(&mut b, |b| {
        assert!(appended(b.refresh(Intent::Write).unwrap()).is_empty());
        b.append(b"next").unwrap();
    });
    assert!(b.take_warnings()[0].contains(&format!("torn tail at offset {valid}")));
    let bytes = dir.file(NAME).unwrap();
    assert_eq!(
        frame::scan(&bytes).unwrap().records,
        [&b"whole"[..], b"next"]
    );
}

/// A message that only reads takes no lock: it sees the whole frames a writer appended,
/// even while that writer still holds the lock, without waiting for it.
#[test]
fn a_reader_takes_no_lock_and_sees_whole_frames_at_once() {
    let dir = MemDir::new();
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    locked(&mut a, |a| a.replay().unwrap());
    b.lock().unwrap();
    b.replay().unwrap();
    b.append(b"from b").unwrap();
    assert_eq!(
        appended(a.refresh(Intent::Read).unwrap()),
        [b"from b".to_vec()]
    );
    assert_eq!(dir.clock(), 0, "the reader did not wait");
    assert_eq!(lock_owner(&dir).as_deref(), Some("2 nonce2"), "nor lock");
    let err = a.append(b"no lock").unwrap_err();
    assert!(err.0.contains("without the file's lock"), "{}", err.0);
    b.append(b"more").unwrap();
    b.unlock();
    assert_eq!(
        appended(a.refresh(Intent::Read).unwrap()),
        [b"more".to_vec()]
    );
    assert_eq!(records(process(&dir, 3).replay().unwrap()).len(), 2);
}

/// A host may keep the lock between messages (a burst of writes takes it once): a message
/// that refreshed for reading still may not write, and one that refreshed for writing may,
/// without taking the lock again.
#[test]
fn a_lock_kept_between_messages_lets_only_writers_write() {
    let dir = MemDir::new();
    let mut a = process(&dir, 1);
    locked(&mut a, |a| a.replay().unwrap());
    assert!(appended(a.refresh(Intent::Write).unwrap()).is_empty());
    a.append(b"first").unwrap();
    assert!(a.is_locked(), "kept: the host did not unlock");
    assert!(appended(a.refresh(Intent::Read).unwrap()).is_empty());
    let err = a.append(b"after a read").unwrap_err();
    assert!(err.0.contains("without the file's lock"), "{}", err.0);
    assert!(appended(a.refresh(Intent::Write).unwrap()).is_empty());
    a.append(b"second").unwrap();
    a.unlock();
    assert!(!a.is_locked());
    assert_eq!(lock_owner(&dir), None);
    assert_eq!(records(process(&dir, 2).replay().unwrap()).len(), 2);
}

/// A reader that meets a torn tail catches up under the lock: a writer holding it is
/// waited for (never cut short), one that died has its tail cut as at opening.
#[test]
fn a_reader_meeting_a_torn_tail_takes_the_lock_first() {
    let (dir, mut b, valid) = torn_after_one_record();
    b.disk().create_new(LOCK, b"999 gone").unwrap();
    assert!(appended(b.refresh(Intent::Read).unwrap()).is_empty());
    assert_eq!(lock_owner(&dir).as_deref(), Some("2 nonce2"));
    let warnings = b.take_warnings();
    assert!(
        warnings.iter().any(|w| w.contains("torn tail")),
        "{warnings:?}"
    );
    b.unlock();
    assert_eq!(lock_owner(&dir), None);
    assert_eq!(dir.file(NAME).unwrap().len(), valid, "the tail was cut");
}

/// A file another process replaced is read again whole by a reader too (under the lock).
#[test]
fn a_reader_sees_a_replaced_file_whole() {
    let dir = MemDir::new();
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    locked(&mut a, |a| {
        a.replay().unwrap();
        a.append(b"old").unwrap();
    });
    locked(&mut b, |b| b.replay().unwrap());
    locked(&mut a, |a| a.replace(&[b"new".to_vec()]).unwrap());
    match b.refresh(Intent::Read).unwrap() {
        Changes::Replaced { entries, .. } => assert_eq!(entries, [b"new".to_vec()]),
        Changes::Appended(r) => panic!("expected the new file, got {r:?}"),
    }
    b.unlock();
}

#[test]
fn a_failed_write_leaves_no_frame_and_the_next_append_follows_the_last_whole_one() {
    let dir = MemDir::new();
    let mut a = process(&dir, 1);
    locked(&mut a, |a| {
        a.replay().unwrap();
        a.append(b"one").unwrap();
        dir.fail(Op::Write, 1, "write: No space left on device (os error 28)");
        let err = a.append(b"two").unwrap_err();
        assert_eq!(err.0, "write: No space left on device (os error 28)");
        a.append(b"three").unwrap();
    });
    let bytes = dir.file(NAME).unwrap();
    assert_eq!(
        frame::scan(&bytes).unwrap().records,
        [&b"one"[..], b"three"]
    );
}

/// A long entry is written in two steps, header then payload: a payload write that fails
/// leaves no header behind, and long entries read back whole.
#[test]
fn a_long_entry_whose_payload_write_fails_leaves_no_header() {
    let long: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    let dir = MemDir::new();
    let mut a = process(&dir, 1);
    locked(&mut a, |a| {
        a.replay().unwrap();
        a.append(b"one").unwrap();
        dir.fail(Op::Write, 2, "write: No space left on device (os error 28)");
        a.append(&long).unwrap_err();
    });
    let bytes = dir.file(NAME).unwrap();
    let scan = frame::scan(&bytes).unwrap();
    assert_eq!((scan.records, scan.torn), (vec![&b"one"[..]], None));
    locked(&mut a, |a| {
        a.append(&long).unwrap();
        a.append(b"three").unwrap();
    });
    let bytes = dir.file(NAME).unwrap();
    assert_eq!(
        frame::scan(&bytes).unwrap().records,
        [&b"one"[..], &long, b"three"]
    );
}

#[test]
fn a_power_cut_keeps_what_was_synced_and_a_failed_sync_is_not_synced() {
    let dir = MemDir::new();
    let mut a = process(&dir, 1);
    locked(&mut a, |a| {
        a.replay().unwrap();
        a.append(b"synced").unwrap();
        a.sync().unwrap();
        a.append(b"also synced").unwrap();
        dir.fail(Op::Sync, 2, "sync: Input/output error (os error 5)");
        a.sync().unwrap();
        a.append(b"sync failed").unwrap();
        assert_eq!(
            a.sync().unwrap_err().0,
            "sync: Input/output error (os error 5)"
        );
    });
    let unsynced = dir.unsynced(NAME);
    assert!(unsynced > 0, "the last frame is not durable");
    dir.power_cut();
    let mut b = process(&dir, 2);
    locked(&mut b, |b| {
        let kept = records(b.replay().unwrap());
        assert_eq!(kept, [b"synced".to_vec(), b"also synced".to_vec()]);
    });
    assert!(
        b.take_warnings().is_empty(),
        "a cut at a frame end is no torn tail"
    );
}

#[test]
fn a_file_torn_inside_its_last_frame_loses_that_frame_with_a_warning() {
    let dir = MemDir::new();
    let mut a = process(&dir, 1);
    locked(&mut a, |a| {
        a.replay().unwrap();
        a.append(b"whole").unwrap();
        a.append(b"torn").unwrap();
    });
    let len = dir.file(NAME).unwrap().len();
    dir.tear(NAME, len - 2);
    let mut b = process(&dir, 2);
    locked(&mut b, |b| {
        assert_eq!(records(b.replay().unwrap()), [b"whole".to_vec()])
    });
    let warnings = b.take_warnings();
    assert!(warnings[0].contains("torn tail"), "{warnings:?}");
}

#[test]
fn opening_reads_from_the_last_checkpoint_and_entries_has_the_rest() {
    let dir = MemDir::new();
    let mut a = process(&dir, 1);
    let checkpoint = |n: u8| vec![CHECKPOINT, n];
    let written = [
        b"one".to_vec(),
        checkpoint(1),
        b"three".to_vec(),
        checkpoint(2),
        b"five".to_vec(),
    ];
    locked(&mut a, |a| {
        a.replay().unwrap();
        for entry in &written {
            a.append(entry).unwrap();
        }
    });
    let mut b = process(&dir, 2);
    locked(&mut b, |b| {
        let Contents::FromCheckpoint {
            skipped_bytes,
            entries,
        } = b.replay().unwrap()
        else {
            panic!("entries precede the last checkpoint")
        };
        // The frames before the checkpoint the header names (the file's bytes).
        let frames = (3 + 2 + 5) + 3 * frame::FRAME_HEADER_LEN as u64;
        assert_eq!(skipped_bytes, frames);
        assert_eq!(entries, written[3..]);
        // Every entry, but the checkpoints that restate the entries before them.
        let changes = [&written[0], &written[2], &written[4]].map(Clone::clone);
        assert_eq!(all_entries(b).unwrap(), changes);
    });
    // A log whose first entry is its last checkpoint is given whole.
    let dir = MemDir::new();
    let mut c = process(&dir, 3);
    locked(&mut c, |c| {
        c.replay().unwrap();
        c.append(&checkpoint(1)).unwrap();
        c.append(b"two").unwrap();
    });
    let mut d = process(&dir, 4);
    let read = locked(&mut d, |d| d.replay().unwrap());
    assert_eq!(records(read), [checkpoint(1), b"two".to_vec()]);
    // ... and entries keeps a first checkpoint: it is the state the others change.
    let all = locked(&mut d, |d| all_entries(d).unwrap());
    assert_eq!(all, [checkpoint(1), b"two".to_vec()]);
}

/// Process 1 appends `entries` to a new file in `dir`.
fn written_by_one(dir: &MemDir, entries: &[Vec<u8>]) {
    let mut a = process(dir, 1);
    locked(&mut a, |a| {
        a.replay().unwrap();
        for entry in entries {
            a.append(entry).unwrap();
        }
    });
}

#[test]
fn the_header_names_the_last_checkpoint_and_opening_reads_nothing_before_it() {
    let dir = MemDir::new();
    let entries = [
        b"one".to_vec(),
        vec![CHECKPOINT, 1],
        b"three".to_vec(),
        vec![CHECKPOINT, 2],
        b"five".to_vec(),
    ];
    written_by_one(&dir, &entries);
    let mut bytes = dir.file(NAME).unwrap();
    let at = frame_offset(&entries, 3);
    assert_eq!(frame::checkpoint_at(&bytes), Some(at as u64));
    // Damage before the checkpoint: opening does not read it, a full read reports it.
    bytes[frame::HEADER_LEN + frame::FRAME_HEADER_LEN] ^= 0xff;
    dir.overwrite(NAME, &bytes);
    let mut b = process(&dir, 2);
    locked(&mut b, |b| {
        let Contents::FromCheckpoint { entries: read, .. } = b.replay().unwrap() else {
            panic!("entries precede the last checkpoint")
        };
        assert_eq!(read, entries[3..]);
        let error = all_entries(b).unwrap_err();
        assert!(error.0.contains("checksum mismatch"), "{error:?}");
    });
}

#[test]
fn a_header_naming_no_checkpoint_frame_makes_opening_read_the_whole_file() {
    let entries = [b"one".to_vec(), vec![CHECKPOINT, 1], b"three".to_vec()];
    // Inside a frame, at a frame that is not a checkpoint, past the end.
    for at in [frame::HEADER_LEN + 2, frame_offset(&entries, 2), 100_000] {
        let dir = MemDir::new();
        written_by_one(&dir, &entries);
        let mut bytes = dir.file(NAME).unwrap();
        frame::name_checkpoint(&mut bytes, Some(at as u64));
        dir.overwrite(NAME, &bytes);
        let mut b = process(&dir, 2);
        let read = locked(&mut b, |b| b.replay().unwrap());
        let Contents::FromCheckpoint {
            skipped_bytes,
            entries: read,
        } = read
        else {
            panic!("entries precede the last checkpoint")
        };
        assert_eq!((skipped_bytes, read), (3, entries[1..].to_vec()), "at {at}");
    }
}

#[test]
fn a_torn_checkpoint_the_header_names_is_cut_and_no_longer_named() {
    let dir = MemDir::new();
    let checkpoint = vec![CHECKPOINT; 40];
    let entries = [b"one".to_vec(), checkpoint.clone()];
    written_by_one(&dir, &entries);
    let at = frame_offset(&entries, 1);
    assert_eq!(
        frame::checkpoint_at(&dir.file(NAME).unwrap()),
        Some(at as u64)
    );
    dir.tear(NAME, at + 20);
    let mut b = process(&dir, 2);
    locked(&mut b, |b| {
        assert_eq!(records(b.replay().unwrap()), [b"one".to_vec()]);
        // What is appended where the checkpoint was is not taken for it.
        b.append(&[CHECKPOINT + 1; 40]).unwrap();
    });
    let bytes = dir.file(NAME).unwrap();
    assert_eq!(frame::checkpoint_at(&bytes), None);
    let mut c = process(&dir, 3);
    let read = locked(&mut c, |c| c.replay().unwrap());
    assert_eq!(records(read), [b"one".to_vec(), vec![CHECKPOINT + 1; 40]]);
}

#[test]
fn a_header_naming_an_earlier_checkpoint_opens_at_the_last_one() {
    let dir = MemDir::new();
    let entries = [
        vec![CHECKPOINT, 1],
        b"two".to_vec(),
        vec![CHECKPOINT, 3],
        b"four".to_vec(),
    ];
    written_by_one(&dir, &entries);
    // As a version that does not name checkpoints leaves it after appending the second.
    let mut bytes = dir.file(NAME).unwrap();
    frame::name_checkpoint(&mut bytes, Some(frame::HEADER_LEN as u64));
    dir.overwrite(NAME, &bytes);
    let mut b = process(&dir, 2);
    let Contents::FromCheckpoint {
        skipped_bytes,
        entries: read,
    } = locked(&mut b, |b| b.replay().unwrap())
    else {
        panic!("entries precede the last checkpoint")
    };
    let before = frame_offset(&entries, 2) - frame::HEADER_LEN;
    assert_eq!(
        (skipped_bytes, read),
        (before as u64, entries[2..].to_vec())
    );
}

/// Entries are read a window (1 MiB) at a time, never the whole file at once: a record
/// longer than a window comes whole, a superseded checkpoint longer than one is left out
/// but its checksum is still checked, and damage in it is reported.
#[test]
fn entries_leave_out_long_superseded_checkpoints_but_check_them() {
    let big = |tag: u8, fill: u8| {
        let mut payload = vec![fill; 3 << 20];
        payload[0] = tag;
        payload
    };
    let (first, superseded, record) = (big(CHECKPOINT, 1), big(CHECKPOINT, 2), big(0, 3));
    let payloads = [
        first.clone(),
        b"between".to_vec(),
        superseded,
        record.clone(),
        vec![CHECKPOINT],
        b"last".to_vec(),
    ];
    let bytes = frame::encode_log(payloads.iter().map(Vec::as_slice));
    let entries_of = |bytes: &[u8]| {
        let dir = MemDir::with_file(NAME, bytes);
        let mut log = process(&dir, 1);
        log.replay().expect("opens from the last checkpoint");
        all_entries(&mut log)
    };
    let expected = [first, b"between".to_vec(), record, b"last".to_vec()];
    assert_eq!(entries_of(&bytes).expect("reads"), expected);
    let inside = frame_offset(&payloads, 2) + frame::FRAME_HEADER_LEN + (2 << 20);
    let mut damaged = bytes.clone();
    damaged[inside] ^= 1;
    let err = entries_of(&damaged).expect_err("damage is reported");
    assert!(err.0.contains("checksum mismatch"), "{}", err.0);
}

/// Entries come a page at a time, each one read of about the budget (a longer frame whole):
/// none twice or missed, the checkpoints after the first left out across pages.
#[test]
fn entries_come_a_page_at_a_time_each_about_the_budget() {
    let mut payloads: Vec<Vec<u8>> = (0..200u8)
        .map(|i| match i % 50 {
            0 | 49 => vec![CHECKPOINT, i],
            _ => vec![i; 100 + usize::from(i)],
        })
        .collect();
    payloads.insert(120, vec![7; 5_000]);
    let dir = MemDir::with_file(NAME, &frame::encode_log(payloads.iter().map(Vec::as_slice)));
    let mut log = process(&dir, 1);
    log.replay().unwrap();
    let (mut read, mut from, mut pages) = (Vec::new(), 0, 0);
    loop {
        let page = log.entries(from, 1_000).unwrap();
        let bytes: usize = page.entries.iter().map(Vec::len).sum();
        assert!(
            bytes <= 1_000 || page.entries.len() == 1,
            "page {pages}: {bytes}"
        );
        assert!(!page.entries.is_empty(), "page {pages} is empty");
        read.extend(page.entries);
        pages += 1;
        match page.next {
            Some(next) => from = next,
            None => break,
        }
    }
    let kept = payloads.iter().enumerate();
    let kept = kept.filter(|(i, p)| *i == 0 || p[0] != CHECKPOINT);
    assert_eq!(read, kept.map(|(_, p)| p.clone()).collect::<Vec<_>>());
    assert!(pages > 20, "{pages} pages");
}

/// A log replaced in pieces is the log only once the last piece is in: then the file is
/// what writing it whole makes, and another process reads it from its checkpoint on.
#[test]
fn a_log_replaced_in_pieces_takes_the_old_ones_place_with_the_last() {
    let dir = MemDir::new();
    let (mut a, mut b) = (process(&dir, 1), process(&dir, 2));
    locked(&mut a, |a| {
        a.replay().unwrap();
        a.append(b"old").unwrap();
    });
    locked(&mut b, |b| b.replay().unwrap());
    let new = [b"one".to_vec(), vec![CHECKPOINT, 1], b"three".to_vec()];
    locked(&mut a, |a| {
        a.replace_piece(&new[..2], true, false).unwrap();
        assert_eq!(
            all_entries(a).unwrap(),
            [b"old".to_vec()],
            "not yet replaced"
        );
        a.replace_piece(&new[2..], false, true).unwrap();
    });
    let whole = frame::encode_log(new.iter().map(Vec::as_slice));
    assert_eq!(dir.file(NAME).unwrap(), whole);
    locked(&mut a, |a| {
        let e = a.replace_piece(&new, false, true).unwrap_err();
        assert!(e.0.contains("no first one"), "{e:?}");
    });
    assert_eq!(
        dir.file(NAME).unwrap(),
        whole,
        "a piece with no first one is refused"
    );
    locked(&mut b, |b| match b.refresh(Intent::Read).unwrap() {
        Changes::Replaced {
            skipped_bytes,
            entries,
        } => {
            assert_eq!(skipped_bytes, (3 + frame::FRAME_HEADER_LEN) as u64);
            assert_eq!(entries, new[1..]);
        }
        other => panic!("expected the new log, got {other:?}"),
    });
}
