//! Search indexes saved with a checkpoint (`index::saved`): a memory that opens from that
//! checkpoint reads them instead of building them, and answers exactly as one that built
//! its own, whatever changed since the checkpoint, before or after the indexes were read,
//! and whatever became of the saved bytes.

use crate::common::*;
use mcp_memory_core::embed::Table;
use mcp_memory_core::graph::{EntityId, Graph};
use mcp_memory_core::index::Indexes;
use mcp_memory_core::index::search::{self, Options};
use mcp_memory_core::memory::{Change, Memory};
use mcp_memory_core::model::{Entity, Observations, Provenance, Relation};
use mcp_memory_core::record::Op;
use proptest::prelude::*;

/// A change to make, by entity number among those that exist.
#[derive(Debug, Clone)]
enum Step {
    Create(String, String, Vec<String>),
    Add(usize, Vec<String>),
    DeleteObs(usize, usize),
    Delete(usize),
    Relate(usize, usize),
    /// A slice of the idle work (reading saved indexes, or building).
    Warm,
}

fn text() -> impl Strategy<Value = String> {
    "(ab|ba|abc|cab|zoë|Zoe|x|Ab-ab|dog|cat)( (ab|ba|abc|x|zoë|Ab|y|dog)){0,3}"
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (text(), "(t|u|T)", prop::collection::vec(text(), 0..3))
            .prop_map(|(n, t, o)| Step::Create(n, t, o)),
        (0..8usize, prop::collection::vec(text(), 1..3)).prop_map(|(i, o)| Step::Add(i, o)),
        (0..8usize, 0..4usize).prop_map(|(i, k)| Step::DeleteObs(i, k)),
        (0..8usize).prop_map(Step::Delete),
        (0..8usize, 0..8usize).prop_map(|(a, b)| Step::Relate(a, b)),
        Just(Step::Warm),
    ]
}

fn table() -> Table {
    Table::parse(embedding_table_bytes().to_vec()).expect("the committed table parses")
}

fn opened(log: MemLog) -> Memory<MemLog> {
    let (mut memory, _) = Memory::open(log).expect("opens");
    memory.set_embedding_table(table());
    memory
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Makes `step` on `memory` (at time `at`).
fn make(memory: &mut Memory<MemLog>, step: &Step, at: u64) {
    let names: Vec<String> = (memory.graph().entities())
        .map(|(_, e)| memory.graph().text(e.name).to_string())
        .collect();
    let pick = |i: &usize| {
        names
            .get(i % names.len().max(1))
            .cloned()
            .unwrap_or_default()
    };
    let (a, b);
    let op = match step {
        Step::Create(n, t, o) => Op::CreateEntities(vec![Entity {
            name: n,
            entity_type: t,
            observations: strs(o),
        }]),
        Step::Add(i, o) => {
            a = pick(i);
            Op::AddObservations(vec![Observations {
                entity: &a,
                contents: strs(o),
            }])
        }
        Step::DeleteObs(i, k) => {
            a = pick(i);
            let g = memory.graph();
            let had = g.named(&a).first().map(|&id| &g.entity(id).observations);
            let gone = had
                .and_then(|obs| obs.get(k % obs.len().max(1)))
                .map(|&sym| g.text(sym).to_string());
            b = gone.unwrap_or_default();
            Op::DeleteObservations(vec![Observations {
                entity: &a,
                contents: vec![&b],
            }])
        }
        Step::Delete(i) => {
            a = pick(i);
            Op::DeleteEntities(vec![&a])
        }
        Step::Relate(i, j) => {
            (a, b) = (pick(i), pick(j));
            Op::CreateRelations(vec![Relation {
                from: &a,
                to: &b,
                relation_type: "r",
            }])
        }
        Step::Warm => {
            memory.warm();
            return;
        }
    };
    let by = Provenance::default();
    memory
        .commit(Change::of(vec![op]), at, &by)
        .expect("logged");
}

/// Names, scores and fields of a ranked search; the entities the trigram index lists for
/// the needle; the nearest vectors with their cosines (bits).
type Answers = (
    Vec<(String, u32, u8)>,
    Option<Vec<String>>,
    Vec<(String, u32)>,
);

fn answers(g: &Graph, ix: &Indexes, query: &str) -> Answers {
    let name = |id: EntityId| g.text(g.entity(id).name).to_string();
    let options = Options {
        limit: 100,
        ..Options::default()
    };
    let ranked = search::search(g, ix.ranked(g), query, &options);
    let hits = (ranked.hits.iter())
        .map(|f| (name(f.id), f.score.to_bits(), f.fields))
        .collect();
    let needle = query.to_lowercase();
    let listed = ix
        .substring_candidates(g, &needle)
        .map(|ids| ids.into_iter().map(name).collect());
    let v = ix.vectors(g).expect("a table");
    let near = match v.query(query) {
        Some(q) => (v.nearest(&q, 100, |_| true).0.into_iter())
            .map(|(slot, cos)| (name(EntityId::from_slot(slot)), cos.to_bits()))
            .collect(),
        None => Vec::new(),
    };
    (hits, listed, near)
}

const QUERIES: [&str; 12] = [
    "ab",
    "a",
    "abc",
    "zoe",
    "ab ba",
    "\"ab ba\"",
    "ab -x",
    "abx",
    "type:t",
    "name:ab",
    "ab OR y",
    "dog cat",
];

/// Builds every index of `memory` (as an idle server does).
fn warm_all(memory: &mut Memory<MemLog>) {
    while memory.warm() {}
}

/// A memory with `before`'s changes, its indexes built and saved with a checkpoint (a
/// compaction keeping no history), then `tail`'s changes: its log.
fn saved_then(before: &[Step], tail: &[Step]) -> MemLog {
    let log = MemLog::new();
    let mut memory = opened(log.clone());
    for (i, s) in before.iter().enumerate() {
        make(&mut memory, s, 1_000 + i as u64);
    }
    warm_all(&mut memory);
    memory.set_history(0);
    memory.compact().expect("compacts");
    for (i, s) in tail.iter().enumerate() {
        make(&mut memory, s, 2_000 + i as u64);
    }
    log
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// A memory reopened on a log with saved indexes, changed (before, between and after
    /// the idle slices that read them), answers every query exactly as the same memory
    /// reopened without them: ranked hits with bit-identical scores, trigram candidates,
    /// nearest vectors.
    #[test]
    fn read_indexes_answer_as_built_ones(
        before in prop::collection::vec(step(), 1..30),
        tail in prop::collection::vec(step(), 0..12),
        after in prop::collection::vec(step(), 0..12),
    ) {
        let log = saved_then(&before, &tail);
        prop_assert!(log.saved_indexes().is_some(), "the compaction saved the indexes");
        let without = log.reopened();
        without.set_saved_indexes(None);
        let (mut read, mut built) = (opened(log.reopened()), opened(without));
        for (i, s) in after.iter().enumerate() {
            make(&mut read, s, 3_000 + i as u64);
            make(&mut built, s, 3_000 + i as u64);
        }
        for q in QUERIES {
            prop_assert_eq!(
                answers(read.graph(), read.indexes(), q),
                answers(built.graph(), built.indexes(), q),
                "query {:?}", q
            );
        }
    }
}

/// A memory of `n` entities whose indexes are saved, and the entity names.
fn saved_memory(n: usize) -> MemLog {
    let steps: Vec<Step> = (0..n)
        .map(|i| {
            Step::Create(
                format!("e{i} dog"),
                "t".into(),
                vec![format!("abc {i} cat")],
            )
        })
        .collect();
    saved_then(
        &steps,
        &[Step::Add(3, vec!["zoë ab".into()]), Step::Delete(5)],
    )
}

#[test]
fn a_start_reads_the_saved_indexes_instead_of_building_them() {
    let log = saved_memory(50);
    let saved = log.saved_indexes().expect("saved");
    let mut memory = opened(log.reopened());
    assert_eq!(memory_reads(&mut memory), 0, "nothing is read at opening");
    warm_all(&mut memory);
    assert!(
        memory_reads(&mut memory) > 3,
        "the idle slices read the header and sections"
    );
    assert_eq!(memory.indexes().built(), [true; 3]);
    let hits = answers(memory.graph(), memory.indexes(), "zoe").0;
    assert_eq!(
        hits.len(),
        1,
        "the change after the checkpoint is found: {hits:?}"
    );
    assert!(
        answers(memory.graph(), memory.indexes(), "e5").0.is_empty(),
        "the deleted one is not"
    );
    // Unchanged beside the log: reading it writes nothing.
    assert_eq!(memory.log_mut().saved_indexes(), Some(saved));
}

/// Reads of the saved indexes so far.
fn memory_reads(memory: &mut Memory<MemLog>) -> usize {
    memory.log_mut().0.borrow().indexes.reads
}

#[test]
fn a_search_before_any_idle_slice_reads_what_it_needs_at_once() {
    let log = saved_memory(30);
    let mut memory = opened(log.reopened());
    let built = opened({
        let l = log.reopened();
        l.set_saved_indexes(None);
        l
    });
    for q in QUERIES {
        assert_eq!(
            answers(memory.graph(), memory.indexes(), q),
            answers(built.graph(), built.indexes(), q)
        );
    }
    assert!(memory_reads(&mut memory) > 0);
}

#[test]
fn damaged_or_stale_saved_indexes_are_passed_over_and_the_indexes_built() {
    let log = saved_memory(40);
    let good = log.saved_indexes().expect("saved");
    let fresh = || {
        let l = log.reopened();
        l.set_saved_indexes(None);
        opened(l)
    };
    let want: Vec<Answers> = {
        let m = fresh();
        QUERIES
            .iter()
            .map(|q| answers(m.graph(), m.indexes(), q))
            .collect()
    };
    let mut variants = Vec::new();
    // A byte flipped in each region: the header, a section, the contents at the end.
    for at in [20, 100, good.len() / 2, good.len() - 10] {
        let mut bad = good.clone();
        bad[at] ^= 0x40;
        variants.push(bad);
    }
    // A count in a section's first record past what the section holds (the section's hash
    // is checked only at its end, so the count must not size anything first): the ranked
    // section's entities and terms, the trigram buckets, the vectors' entities.
    for (kind, at) in section_starts(&good) {
        let fields: &[usize] = match kind {
            1 => &[0, 4],
            2 => &[0],
            _ => &[4],
        };
        for field in fields {
            let mut bad = good.clone();
            bad[at + field..at + field + 4].copy_from_slice(&u32::MAX.to_le_bytes());
            variants.push(bad);
        }
    }
    variants.push(good[..good.len() / 3].to_vec());
    variants.push(Vec::new());
    variants.push(b"not indexes at all".to_vec());
    // Saved for another checkpoint: the memory's own indexes after another change.
    let other = saved_then(&[Step::Create("other".into(), "t".into(), vec![])], &[]);
    variants.push(other.saved_indexes().expect("saved"));
    for bytes in variants {
        let l = log.reopened();
        l.set_saved_indexes(Some(bytes));
        let mut memory = opened(l);
        warm_all(&mut memory);
        let got: Vec<Answers> = (QUERIES.iter())
            .map(|q| answers(memory.graph(), memory.indexes(), q))
            .collect();
        assert_eq!(got, want);
    }
}

/// Each section's kind and where its first chunk starts, from the table of contents
/// (docs/file-format.md, "Saved search indexes").
fn section_starts(save: &[u8]) -> Vec<(u32, usize)> {
    let u32_at = |at: usize| u32::from_le_bytes(save[at..at + 4].try_into().unwrap());
    let contents = u64::from_le_bytes(save[40..48].try_into().unwrap()) as usize;
    let (mut at, mut start, mut starts) = (contents + 4, 72, Vec::new());
    for _ in 0..u32_at(contents) {
        let (kind, chunks) = (u32_at(at), u32_at(at + 4) as usize);
        starts.push((kind, start));
        at += 16;
        for _ in 0..chunks {
            start += u32_at(at) as usize;
            at += 4;
        }
    }
    assert_eq!(start, contents, "the chunks end where the contents begin");
    assert_eq!(starts.len(), 3, "all three sections are saved");
    starts
}

#[test]
fn forgetting_leaves_no_trace_in_the_saved_indexes() {
    let log = saved_memory(20);
    let mut memory = opened(log.reopened());
    warm_all(&mut memory);
    assert!(contains(&log_saved(&mut memory), b"e7"));
    let by = Provenance::default();
    let forget = Change::of(vec![Op::Forget(vec!["e7 dog"])]);
    memory
        .forget(forget, 9_000, &by, &["e7 dog"])
        .expect("forgets");
    let saved = log_saved(&mut memory);
    assert!(!saved.is_empty(), "saved again, for the new checkpoint");
    assert!(
        !contains(&saved, b"e7"),
        "the name's terms and text are gone"
    );
}

fn log_saved(memory: &mut Memory<MemLog>) -> Vec<u8> {
    memory.log_mut().saved_indexes().unwrap_or_default()
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_checkpoint_written_without_built_indexes_removes_the_saved_ones() {
    let log = saved_memory(20);
    let mut memory = opened(log.reopened());
    // Nothing read or built yet; a compaction writes a checkpoint the old save does not
    // restate (the saved ones are read first, and saved again).
    memory.set_history(0);
    memory.compact().expect("compacts");
    assert!(
        log_saved(&mut memory).len() > 100,
        "read, then saved for the new checkpoint"
    );
    let mut unbuilt = opened({
        let l = log.reopened();
        l.set_saved_indexes(None);
        l
    });
    unbuilt.set_history(0);
    unbuilt.log_mut().set_saved_indexes(Some(b"stale".to_vec()));
    unbuilt.compact().expect("compacts");
    let left = unbuilt.log_mut().saved_indexes();
    assert_eq!(left, None, "nothing built: the stale save is removed");
}
