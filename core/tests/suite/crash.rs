//! Crash consistency, in the spirit of redb's crash tests: mutations go to a [`CrashLog`]
//! that knows which bytes are durable, and simulated power cuts must leave a log that
//! scans cleanly (a torn tail at worst) and replays to the state after some prefix of the
//! acknowledged changes: all of them when the host's sync is durable.

use crate::common::model::Model;
use crate::common::ops::{self, Op};
use crate::common::*;
use mcp_memory_core::{Server, frame};
use proptest::prelude::*;

/// What a memory shows: its graph and its file export.
#[derive(Clone, Debug, PartialEq)]
struct State {
    graph: serde_json::Value,
    jsonl: String,
}

fn state(memory: &mut Server<CrashLog>) -> State {
    State {
        graph: graph(memory),
        jsonl: String::from_utf8(memory.memory_mut().export_jsonl().unwrap()).unwrap(),
    }
}

/// A run of mutations over one log, with the state (and model) after each record.
struct Session {
    log: CrashLog,
    memory: Server<CrashLog>,
    /// `snapshots[n]`: the state after the first `n` records of the log.
    snapshots: Vec<(State, Model)>,
}

impl Session {
    fn start(log: CrashLog, snapshots: Vec<(State, Model)>) -> Self {
        let mut memory = open(log.clone());
        let frames = log.frames();
        assert_eq!(
            state(&mut memory),
            snapshots[frames].0,
            "the log opens to the state after its {frames} records"
        );
        let mut snapshots = snapshots;
        snapshots.truncate(frames + 1);
        Session {
            log,
            memory,
            snapshots,
        }
    }

    /// Applies one mutation; `durable_sync` says whether the host's sync reaches the disk.
    fn apply(&mut self, op: &Op, durable_sync: bool) {
        self.log.set_sync_is_durable(durable_sync);
        let (frames, syncs) = (self.log.frames(), self.log.syncs());
        let mut model = self.snapshots.last().unwrap().1.clone();
        let changed = ops::apply(&mut self.memory, &mut model, op);
        assert_eq!(self.log.frames() - frames, usize::from(changed), "{op:?}");
        if changed {
            assert_eq!(
                self.log.syncs(),
                syncs + 1,
                "a change is synced before it is acknowledged: {op:?}"
            );
            if durable_sync {
                assert!(self.log.all_durable());
            }
            let now = state(&mut self.memory);
            self.snapshots.push((now, model));
        } else {
            assert_eq!(
                self.log.syncs(),
                syncs,
                "a no-op has nothing to sync: {op:?}"
            );
        }
    }

    /// A power cut that loses every unsynced byte: all durably acknowledged changes are
    /// there, and nothing else.
    fn check_clean_crash(&self) {
        let image = self.log.crash_losing_everything_unsynced();
        if image.is_empty() {
            assert_eq!(self.log.durable_frames(), 0, "nothing was synced yet");
            return;
        }
        let scan = frame::scan(&image).expect("a synced log scans");
        assert_eq!(scan.torn, None, "a synced prefix ends on a frame boundary");
        let durable = self.log.durable_frames();
        assert_eq!(scan.records.len(), durable);
        let mut memory = open(CrashLog::from_disk(&image));
        assert_eq!(state(&mut memory), self.snapshots[durable].0);
    }

    /// An arbitrary power cut: returns the disk image and how many records it replays.
    fn check_crash(&self, rng: &mut CrashRng) -> (Vec<u8>, usize) {
        let image = self.log.crash(rng);
        if image.is_empty() {
            // The file's creation itself was lost: the host starts a new log.
            assert_eq!(self.log.durable_frames(), 0);
            return (image, 0);
        }
        let scan = match frame::scan(&image) {
            Ok(scan) => scan,
            Err(e) => panic!(
                "a power cut left a log that does not scan ({e}); durable {} of {} bytes, image {} bytes",
                self.log.crash_losing_everything_unsynced().len(),
                self.log.bytes().len(),
                image.len()
            ),
        };
        let n = scan.records.len();
        assert!(
            n >= self.log.durable_frames(),
            "a durable record was lost: {n} < {}",
            self.log.durable_frames()
        );
        assert!(n <= self.log.frames(), "records appeared from nowhere");
        let written = self.log.bytes();
        for (i, r) in scan.records.iter().enumerate() {
            let end = image_frame_end(&scan.records, i);
            assert_eq!(&written[end - r.len()..end], *r, "record {i} is as written");
        }
        let mut memory = open(CrashLog::from_disk(&image));
        assert_eq!(
            state(&mut memory),
            self.snapshots[n].0,
            "the image replays to the state after {n} records"
        );
        (image, n)
    }
}

fn image_frame_end(records: &[&[u8]], i: usize) -> usize {
    frame::HEADER_LEN
        + records[..=i]
            .iter()
            .map(|r| frame::FRAME_HEADER_LEN + r.len())
            .sum::<usize>()
}

fn empty_snapshots() -> Vec<(State, Model)> {
    let mut memory = open(CrashLog::new());
    vec![(state(&mut memory), Model::default())]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(128), ..ProptestConfig::default() })]

    #[test]
    fn durable_sync_keeps_every_acknowledged_change_across_crash(
        ops in prop::collection::vec(ops::mutation(), 1..30),
        seed in any::<u64>(),
    ) {
        let mut rng = CrashRng::new(seed);
        let mut s = Session::start(CrashLog::new(), empty_snapshots());
        for op in &ops {
            s.apply(op, true);
            // Every acknowledged change is durable, so any crash now keeps all of them.
            prop_assert!(s.log.all_durable());
            s.check_clean_crash();
            let (_, n) = s.check_crash(&mut rng);
            prop_assert_eq!(n, s.log.frames());
        }
    }

    #[test]
    fn power_cut_leaves_state_of_an_acknowledged_prefix(
        steps in prop::collection::vec((ops::mutation(), any::<bool>(), 0u8..4), 1..40),
        new_file in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut rng = CrashRng::new(seed);
        let log = if new_file { CrashLog::new_file() } else { CrashLog::new() };
        let mut s = Session::start(log, empty_snapshots());
        for _ in 0..4 {
            s.check_crash(&mut rng);
        }
        for (op, durable_sync, crashes) in &steps {
            s.apply(op, *durable_sync);
            s.check_clean_crash();
            for _ in 0..*crashes {
                s.check_crash(&mut rng);
            }
        }
        for _ in 0..8 {
            s.check_crash(&mut rng);
        }
    }

    #[test]
    fn appends_after_crash_recovery_survive_next_crash(
        rounds in prop::collection::vec(
            prop::collection::vec((ops::mutation(), any::<bool>()), 1..12),
            1..5,
        ),
        seed in any::<u64>(),
    ) {
        let mut rng = CrashRng::new(seed);
        let mut s = Session::start(CrashLog::new(), empty_snapshots());
        for round in &rounds {
            for (op, durable_sync) in round {
                s.apply(op, *durable_sync);
            }
            // Crash, recover the way the host does (cut the torn tail), and go on writing.
            let (image, _) = s.check_crash(&mut rng);
            let snapshots = s.snapshots.clone();
            s = Session::start(CrashLog::from_disk(&image), snapshots);
        }
        s.check_clean_crash();
        s.check_crash(&mut rng);
    }
}

/// Zero bytes where a frame should be (space the file system allocated, data that never
/// arrived) after a partly written frame are a torn tail, not corruption.
#[test]
fn zero_filled_tail_after_torn_frame_is_torn_not_corrupt() {
    let log = CrashLog::new();
    let mut memory = open(log.clone());
    log.set_sync_is_durable(false);
    for name in ["first", "second", "third"] {
        call_ok(
            &mut memory,
            "create_entities",
            serde_json::json!({"entities": [entity(name, "t", &["o"])]}),
        );
    }
    let written = log.bytes();
    let start = frame::HEADER_LEN;
    for kept in 0..written.len() - start {
        for zeros in 0..=written.len() - start - kept {
            let mut image = written[..start + kept].to_vec();
            image.resize(image.len() + zeros, 0);
            let scan = frame::scan(&image).unwrap_or_else(|e| {
                panic!("{kept} bytes kept, {zeros} zeros: {e}");
            });
            let whole = scan.records.len();
            assert!(image_frame_end_or_header(&scan.records, whole) <= start + kept);
        }
    }
}

fn image_frame_end_or_header(records: &[&[u8]], n: usize) -> usize {
    if n == 0 {
        frame::HEADER_LEN
    } else {
        image_frame_end(records, n - 1)
    }
}

/// A crash right after the host created a log file can leave the header cut short and
/// the rest of the file zeros (size updated, data never written). That file holds no
/// data: it must read as an empty log with a torn header, not as a foreign file (which
/// would make every tool call fail) nor as corruption.
#[test]
fn zero_filled_header_of_a_new_log_is_an_empty_log() {
    let header = frame::header();
    for written in 0..frame::HEADER_LEN {
        for len in written + 1..=frame::HEADER_LEN + 40 {
            let mut image = header[..written].to_vec();
            image.resize(len, 0);
            assert!(frame::is_log(&image), "{written} bytes, {len} long");
            let scan = frame::scan(&image)
                .unwrap_or_else(|e| panic!("{written} header bytes, {len} long: {e}"));
            assert!(scan.records.is_empty());
            if image.len() >= frame::HEADER_LEN && image[..frame::HEADER_LEN] == header {
                // The missing header bytes were zeros anyway: an intact empty log.
                assert_eq!(scan.valid_len, frame::HEADER_LEN);
            } else {
                assert_eq!(scan.valid_len, 0, "{written} bytes, {len} long");
                assert_eq!(
                    scan.torn.map(|t| t.kind),
                    Some(frame::TornKind::Header),
                    "{written} bytes, {len} long"
                );
            }
            let mut memory = open(CrashLog::from_disk(&image));
            assert_eq!(graph(&mut memory), graph_of(&[], &[]));
        }
    }
    // Text that merely starts with NUL or garbage is still not taken for a log.
    assert!(!frame::is_log(b"{\"type\":\"entity\"}"));
    assert!(!frame::is_log(b"\0{\"type\":\"entity\"}"));
}
