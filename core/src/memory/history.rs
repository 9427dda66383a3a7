//! The memory's history, read back from its log: the changes it holds (when and by whom
//! each was made), the graph as it was at a time, the change that undoes one, and the log
//! compacted so that it keeps a horizon of history.
//!
//! Nothing here is kept in memory between requests: a [`Journal`] reads the log's entries
//! forward, a page at a time ([`crate::log::Log::entries`]), when a history tool asks, and
//! every question is answered by one pass over them (bounded by the compaction horizon),
//! decoding one record at a time, and compaction writes the new log a piece at a time:
//! what a request holds is a page of the log and what its answer keeps, never the log
//! (a server holding the log whole for `history`, `undo`, `asOf` or a compaction grew with
//! its history, and WebAssembly never gives memory back).

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::{self, Vec};
use core::fmt;

use super::{CHECKPOINT_MIN_TAIL, Error, LogOp};
use crate::graph::Graph;
use crate::log::{Log, PAGE_BYTES};
use crate::model::{Millis, Provenance, Relation, Restore};
use crate::record::{Agent, DecodeError, Entry, Op, Record, is_checkpoint};

/// A record that replayed when the memory opened but not now (the log changed under it).
fn unreadable(e: DecodeError) -> Error {
    Error::Unavailable(format!("the memory log could not be read back: {e}"))
}

/// A change's id: the time it was stamped with and its place among the changes stamped
/// with the same millisecond (ids survive compaction: times in a log never go back, so a
/// compaction keeps or folds all the changes of one millisecond together).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ChangeId {
    /// When it was made.
    pub at: Millis,
    /// How many changes of the same millisecond came before it.
    pub seq: u32,
}

impl fmt::Display for ChangeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.at, self.seq)
    }
}

impl ChangeId {
    /// Reads an id as [`ChangeId`]'s `Display` writes it (`<at>-<seq>`).
    pub fn parse(text: &str) -> Option<ChangeId> {
        let (at, seq) = text.split_once('-')?;
        Some(ChangeId {
            at: at.parse().ok()?,
            seq: seq.parse().ok()?,
        })
    }
}

/// One entry of the log as a [`Journal`] reads it: its bytes, and its id if it is a change.
pub struct Read {
    /// The record's payload.
    pub bytes: Vec<u8>,
    /// Its id, if it is a change (a stamped record); records without a stamp (from
    /// before times were kept, and snapshots) are history's start, and checkpoints restate it.
    pub change: Option<ChangeId>,
}

/// The log's entries read forward a page at a time ([`Log::entries`]) for one request,
/// and the table of who made changes: what a request holds of the log is a page, the entry
/// it looks at, and what it keeps of them.
pub struct Journal<'l> {
    log: &'l mut dyn Log,
    agents: Vec<AgentText>,
    /// The rest of the page being read.
    page: vec::IntoIter<Vec<u8>>,
    /// Where the next page starts; `None` after the last.
    next: Option<u64>,
    /// The last change read.
    last: Option<ChangeId>,
}

/// An entry of the table of who made changes, owned.
struct AgentText {
    client: String,
    version: String,
    session: String,
    actor: Option<String>,
}

impl AgentText {
    fn provenance(&self) -> Provenance<'_> {
        Provenance {
            client: &self.client,
            version: &self.version,
            session: &self.session,
            actor: self.actor.as_deref(),
        }
    }
}

/// What a change touches, as far as undoing it is concerned.
#[derive(Default)]
struct Footprint<'a> {
    /// Names of the entities whose state it changes.
    entities: BTreeSet<&'a str>,
    /// Relations it creates, deletes, ends or puts.
    relations: BTreeSet<[&'a str; 3]>,
    /// Names whose entities it removes (and with them every relation at them).
    removed: BTreeSet<&'a str>,
    /// Names it points at: the ends of its relations, the parents it sets.
    refers: BTreeSet<&'a str>,
    /// Why it cannot be undone at all, if so.
    final_: Option<&'static str>,
}

fn triple<'a>(r: &Relation<'a>) -> [&'a str; 3] {
    [r.from, r.to, r.relation_type]
}

impl<'a> Footprint<'a> {
    fn of(record: &Record<'a>) -> Self {
        let mut f = Footprint::default();
        for op in &record.ops {
            f.add(op);
        }
        f
    }

    fn relation(&mut self, r: &Relation<'a>) {
        self.relations.insert(triple(r));
        self.refers.extend([r.from, r.to]);
    }

    fn add(&mut self, op: &Op<'a>) {
        match op {
            Op::CreateEntities(list) => self.entities.extend(list.iter().map(|e| e.name)),
            Op::CreateRelations(list) | Op::DeleteRelations(list) | Op::EndRelations(list) => {
                list.iter().for_each(|r| self.relation(r));
            }
            Op::CreateRelationsWith(list) => list.iter().for_each(|r| self.relation(&r.relation)),
            Op::AddObservations(list) | Op::DeleteObservations(list) => {
                self.entities.extend(list.iter().map(|o| o.entity));
            }
            Op::AddFacts(list) => self.entities.extend(list.iter().map(|f| f.entity)),
            Op::DeleteEntities(names) => {
                self.entities.extend(names.iter().copied());
                self.removed.extend(names.iter().copied());
            }
            Op::Forget(names) => {
                self.entities.extend(names.iter().copied());
                self.removed.extend(names.iter().copied());
                self.final_ = Some("it forgot entities, whose every trace is gone");
            }
            Op::PutEntities(list) => {
                for e in list {
                    self.entities.insert(e.name);
                    self.refers.extend(e.parent);
                }
            }
            Op::PutRelations(list) => list.iter().for_each(|r| self.relation(&r.relation)),
            Op::PatchEntities(list) => {
                for p in list {
                    self.entities.insert(p.name);
                    self.refers.extend(p.parent.flatten());
                }
            }
            Op::Reflect(_) | Op::PutReflections(_) => {
                self.final_ = Some("reflections are not undone (add another one instead)");
            }
            Op::PutArchived(_) | Op::RemoveArchived(_) => {
                self.final_ = Some("archiving is not undone (restore_archived restores)");
            }
            Op::PutTagAliases(_)
            | Op::RemoveTagAliases(_)
            | Op::PutSavedSearches(_)
            | Op::RemoveSavedSearches(_) => {
                self.final_ =
                    Some("tag aliases and saved searches are not undone (change them again)");
            }
            Op::Restore(r) => {
                self.entities.extend(r.entities.iter().copied());
                self.removed.extend(r.entities.iter().copied());
                r.relations.iter().for_each(|t| self.relation(t));
                for e in &r.put_entities {
                    self.entities.insert(e.name);
                    self.refers.extend(e.parent);
                }
                r.put_relations
                    .iter()
                    .for_each(|s| self.relation(&s.relation));
            }
            // Bookkeeping, logged unstamped: never a change of its own.
            Op::Agents(_) | Op::Used(_) => {}
            Op::Reserved(never) => match *never {},
        }
    }

    /// What in `self` (a later change) depends on `target` (the change to undo), whose
    /// created or removed entities are `appeared`: the first thing found, in words.
    fn depends_on(&self, target: &Footprint<'a>, appeared: &BTreeSet<&str>) -> Option<String> {
        if let Some(name) = self.entities.intersection(&target.entities).next() {
            return Some(format!("it changed entity '{name}' again"));
        }
        if let Some([from, to, kind]) = self.relations.intersection(&target.relations).next() {
            return Some(format!("it changed relation {from} -{kind}-> {to} again"));
        }
        for [from, to, kind] in &target.relations {
            if let Some(name) = [from, to].into_iter().find(|n| self.removed.contains(*n)) {
                return Some(format!(
                    "it deleted '{name}', and with it relation {from} -{kind}-> {to}"
                ));
            }
        }
        let name = self.refers.iter().find(|n| appeared.contains(*n))?;
        Some(format!("it refers to entity '{name}'"))
    }
}

/// Why an undo was refused, in words for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl<'l> Journal<'l> {
    /// The journal of `log`'s entries, read from the first, whose changes name their makers
    /// by their place in `agents`: the table of the graph the entries build (it lists every
    /// maker in the order the log met them, as a change's stamp counts them).
    pub fn new<'a>(log: &'l mut dyn Log, agents: impl Iterator<Item = Provenance<'a>>) -> Self {
        let agents = agents
            .map(|p| AgentText {
                client: p.client.into(),
                version: p.version.into(),
                session: p.session.into(),
                actor: p.actor.map(Into::into),
            })
            .collect();
        Journal {
            log,
            agents,
            page: Vec::new().into_iter(),
            next: Some(0),
            last: None,
        }
    }

    /// Reads from the first entry again.
    fn rewind(&mut self) {
        (self.page, self.next, self.last) = (Vec::new().into_iter(), Some(0), None);
    }

    /// The next entry, oldest first; `None` after the last.
    pub fn next_entry(&mut self) -> Result<Option<Read>, Error> {
        let bytes = loop {
            if let Some(bytes) = self.page.next() {
                break bytes;
            }
            let Some(from) = self.next else {
                return Ok(None);
            };
            let page = (self.log.entries(from, PAGE_BYTES)).map_err(Error::log(LogOp::Refresh))?;
            (self.page, self.next) = (page.entries.into_iter(), page.next);
        };
        let change = match is_checkpoint(&bytes) {
            true => None,
            false => Record::stamp_of(&bytes).map_err(unreadable)?.map(|stamp| {
                let seq = match self.last {
                    Some(prev) if prev.at == stamp.at => prev.seq + 1,
                    _ => 0,
                };
                ChangeId { at: stamp.at, seq }
            }),
        };
        self.last = change.or(self.last);
        Ok(Some(Read { bytes, change }))
    }

    /// The next change, oldest first; `None` after the last.
    pub fn next_change(&mut self) -> Result<Option<(ChangeId, Vec<u8>)>, Error> {
        while let Some(read) = self.next_entry()? {
            if let Some(id) = read.change {
                return Ok(Some((id, read.bytes)));
            }
        }
        Ok(None)
    }

    /// Who made the change `bytes` (read by [`Journal::next_change`]).
    pub fn by<'a>(&'a self, bytes: &'a [u8]) -> Result<Provenance<'a>, Error> {
        let stamp = Record::stamp_of(bytes).map_err(unreadable)?;
        Ok(match stamp.map(|s| s.by) {
            Some(Agent::New(p)) => p,
            Some(Agent::Known(i)) => self
                .agents
                .get(i as usize)
                .map(AgentText::provenance)
                .unwrap_or_default(),
            None => Provenance::default(),
        })
    }

    /// What the change `bytes` changed, decoded.
    pub fn record(bytes: &[u8]) -> Result<Record<'_>, Error> {
        Record::decode(bytes).map_err(unreadable)
    }

    /// The graph as it was at `at`: the state history starts from (the leading records
    /// without a stamp: a compacted log's snapshot) and every change stamped at or before
    /// `at`. `Err(start)` if the history does not reach back that far: `start` is the
    /// latest time in the state it starts from (`0` if that state carries no times).
    pub fn as_of(&mut self, at: Millis) -> Result<Result<Graph, Millis>, Error> {
        let mut graph = Graph::default();
        let mut started = false;
        for index in 0.. {
            let Some(read) = self.next_entry()? else {
                break;
            };
            let Entry::Change(record) = Entry::decode(&read.bytes).map_err(unreadable)? else {
                graph.apply_entry(index, &read.bytes).map_err(unreadable)?;
                continue;
            };
            if let Some(stamp) = record.stamp {
                if !started && at < graph.last_at() {
                    return Ok(Err(graph.last_at()));
                }
                started = true;
                if stamp.at > at {
                    break;
                }
            }
            graph.apply(&record, &mut ());
        }
        if !started && at < graph.last_at() {
            return Ok(Err(graph.last_at()));
        }
        Ok(Ok(graph))
    }

    /// The change that undoes change `id` on `current` (the graph as it stands): a
    /// [`Op::Restore`] putting back, as they were before it, the entities and relations it
    /// changed. Refused if no change has that id, if it cannot be undone (it forgot
    /// entities, or wrote reflections), or if a later change depends on it. One pass: the
    /// graph before it is built up to it, the later changes are then read one at a time.
    pub fn undo(
        &mut self,
        id: ChangeId,
        current: &Graph,
    ) -> Result<Result<Vec<u8>, Refused>, Error> {
        let mut before = Graph::default();
        let mut index = 0;
        let target = loop {
            let read = self.next_entry()?;
            match read {
                Some(Read { bytes, change }) if change == Some(id) => break bytes,
                // Ids only grow along the log.
                Some(Read { change, .. }) if change.is_some_and(|c| c > id) => {}
                Some(Read { bytes, .. }) => {
                    before.apply_entry(index, &bytes).map_err(unreadable)?;
                    index += 1;
                    continue;
                }
                None => {}
            }
            return Ok(Err(Refused(format!(
                "no change has id {id} (the history tool lists the changes the log holds)"
            ))));
        };
        let mut footprint = Footprint::of(&Self::record(&target)?);
        if let Some(why) = footprint.final_ {
            return Ok(Err(Refused(format!("change {id} cannot be undone: {why}"))));
        }
        // Deleting an entity took every relation at it along, holding or ended.
        for &name in &footprint.removed {
            let syms = before.strings().lookup(name);
            for rid in before.relations_touching(syms) {
                footprint
                    .relations
                    .insert(triple(&before.relation_text(before.relation(rid))));
            }
            for e in before.ended() {
                if syms.is_some_and(|s| e.relation.from == s || e.relation.to == s) {
                    footprint
                        .relations
                        .insert(triple(&before.relation_text(&e.relation)));
                }
            }
        }
        // Nothing later changed what it touched, so `current` shows those as it left them.
        let exists = |g: &Graph, n: &str| !g.named(n).is_empty();
        let appeared: BTreeSet<&str> = footprint
            .entities
            .iter()
            .copied()
            .filter(|n| exists(&before, n) != exists(current, n))
            .collect();
        while let Some((later, bytes)) = self.next_change()? {
            if let Some(why) =
                Footprint::of(&Self::record(&bytes)?).depends_on(&footprint, &appeared)
            {
                return Ok(Err(Refused(format!(
                    "change {id} cannot be undone: change {later} made later depends on it ({why}); undo that one first"
                ))));
            }
        }
        let chosen = |t: [&str; 3]| footprint.relations.contains(&t);
        let holding = before
            .relations()
            .filter(|(_, r)| chosen(triple(&before.relation_text(r))))
            .map(|(_, r)| before.relation_state(r, 0));
        let ended = before
            .ended()
            .iter()
            .filter(|e| chosen(triple(&before.relation_text(&e.relation))))
            .map(|e| before.relation_state(&e.relation, e.at));
        let restore = Restore {
            entities: footprint.entities.iter().copied().collect(),
            relations: footprint
                .relations
                .iter()
                .map(|&[from, to, relation_type]| Relation {
                    from,
                    to,
                    relation_type,
                })
                .collect(),
            put_entities: footprint
                .entities
                .iter()
                .flat_map(|n| before.named(n))
                .map(|&e| before.entity_state(before.entity(e)))
                .collect(),
            put_relations: holding.chain(ended).collect(),
        };
        Ok(Ok(Record::from(Op::Restore(restore)).encode()))
    }

    /// What compacting the log writes to keep the history of the last `keep` milliseconds
    /// before the latest change: the state at the horizon as a checkpoint, then every change
    /// made since, as it was logged, then (if those changes are many) a checkpoint of
    /// `current`, the graph the whole log builds. A log whose changes carry no times (a host
    /// without a clock) keeps no history, nor does `keep` 0: it compacts to `current`'s
    /// checkpoint. Reads the log once; [`Journal::write`] reads it again to write it.
    pub fn compaction(&mut self, keep: Millis, current: &Graph) -> Result<Compaction, Error> {
        let latest = current.last_at();
        let horizon = latest.saturating_sub(keep);
        let mut older = Graph::default();
        let mut split = 0;
        let mut kept = None;
        let mut read = match latest != 0 && keep != 0 {
            true => self.next_entry()?,
            false => None,
        };
        while let Some(entry) = read {
            if let Entry::Change(record) = Entry::decode(&entry.bytes).map_err(unreadable)?
                && record.stamp.is_some_and(|s| s.at != 0 && s.at >= horizon)
            {
                kept = Some(entry.bytes);
                break;
            }
            older.apply_entry(split, &entry.bytes).map_err(unreadable)?;
            split += 1;
            read = self.next_entry()?;
        }
        let Some(first) = kept else {
            return Ok(Compaction::of(current));
        };
        // Moved on, not held: at 40K entities the changes of a bulk load are megabytes.
        let (mut changes, mut kept) = (first.len() as u64, 1);
        while let Some(read) = self.next_entry()? {
            if !is_checkpoint(&read.bytes) {
                (changes, kept) = (changes + read.bytes.len() as u64, kept + 1);
            }
        }
        Ok(Compaction {
            split,
            head: (split > 0).then(|| older.checkpoint()),
            changes,
            kept,
            last: (changes >= CHECKPOINT_MIN_TAIL).then(|| current.checkpoint()),
        })
    }

    /// Replaces the log with `compaction` (planned by [`Journal::compaction`] on this log, in
    /// the same request), a piece of about [`PAGE_BYTES`] at a time.
    pub fn write(&mut self, compaction: &Compaction) -> Result<(), Error> {
        self.rewind();
        let mut out = Replacement::default();
        if let Some(head) = &compaction.head {
            out.put(self.log, head.clone())?;
        }
        if compaction.changes > 0 {
            for _ in 0..compaction.split {
                self.next_entry()?;
            }
            while let Some(read) = self.next_entry()? {
                if !is_checkpoint(&read.bytes) {
                    out.put(self.log, read.bytes)?;
                }
            }
        }
        if let Some(last) = &compaction.last {
            out.put(self.log, last.clone())?;
        }
        out.finish(self.log)
    }
}

/// A new log written a piece of at most [`PAGE_BYTES`] (or one longer entry) at a time
/// ([`Log::replace_piece`]).
struct Replacement {
    piece: Vec<Vec<u8>>,
    bytes: u64,
    first: bool,
}

impl Default for Replacement {
    fn default() -> Self {
        Replacement {
            piece: Vec::new(),
            bytes: 0,
            first: true,
        }
    }
}

impl Replacement {
    /// Adds `entry`, writing the piece before it first if it would not fit.
    fn put(&mut self, log: &mut dyn Log, entry: Vec<u8>) -> Result<(), Error> {
        let len = entry.len() as u64;
        if !self.piece.is_empty() && self.bytes + len > u64::from(PAGE_BYTES) {
            let written = log.replace_piece(&self.piece, self.first, false);
            written.map_err(Error::log(LogOp::Replace))?;
            (self.piece, self.bytes, self.first) = (Vec::new(), 0, false);
        }
        self.bytes += len;
        self.piece.push(entry);
        Ok(())
    }

    /// Writes the last piece: the new log takes the old one's place.
    fn finish(self, log: &mut dyn Log) -> Result<(), Error> {
        let written = log.replace_piece(&self.piece, self.first, true);
        written.map_err(Error::log(LogOp::Replace))
    }
}

/// The log as compaction writes it ([`Journal::compaction`]): a checkpoint of the state at
/// the horizon, the changes since (the log's entries after the first `split`, checkpoints
/// left out), and a checkpoint of the graph as it stands.
pub struct Compaction {
    /// Entries of the log before the first change kept.
    split: usize,
    /// The state at the horizon, if any entry comes before it.
    head: Option<Vec<u8>>,
    /// Payload bytes of the changes kept.
    changes: u64,
    /// How many changes are kept.
    kept: usize,
    /// The graph as it stands, if it ends the log.
    last: Option<Vec<u8>>,
}

impl Compaction {
    /// The log compacted to the checkpoint of `current` alone (no history kept).
    pub fn of(current: &Graph) -> Compaction {
        Compaction {
            split: 0,
            head: None,
            changes: 0,
            kept: 0,
            last: Some(current.checkpoint()),
        }
    }

    /// Records of the compacted log.
    pub fn records(&self) -> usize {
        usize::from(self.head.is_some()) + self.kept + usize::from(self.last.is_some())
    }

    /// Whether its last record is a checkpoint of the graph as it stands.
    pub fn ends_with_checkpoint(&self) -> bool {
        self.last.is_some()
    }

    /// Payload bytes of the compacted log.
    pub fn bytes(&self) -> u64 {
        let len = |c: &Option<Vec<u8>>| c.as_ref().map_or(0, |c| c.len() as u64);
        len(&self.head) + self.changes + len(&self.last)
    }

    /// Its last checkpoint, and the payload bytes of the changes after it.
    pub fn checkpoint_and_tail(&self) -> (Option<&[u8]>, u64) {
        match (&self.last, &self.head) {
            (Some(last), _) => (Some(last), 0),
            (None, head) => (head.as_deref(), self.changes),
        }
    }

    /// Whether it holds a change (else it is the graph's checkpoint alone).
    pub fn holds_a_change(&self) -> bool {
        self.changes > 0
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
