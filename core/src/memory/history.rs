//! The memory's history, read back from its log: the changes it holds (when and by whom
//! each was made), the graph as it was at a time, the change that undoes one, and the log
//! compacted so that it keeps a horizon of history.
//!
//! Nothing here is kept in memory between requests: a [`Journal`] is the log's entries,
//! read through [`crate::log::Log::entries`] when a history tool asks, and every question
//! is answered by one pass over them (bounded by the compaction horizon), decoding one
//! record at a time: what a request holds is the log's bytes, never the log decoded (a
//! server answering `undo` held every record decoded, and its heap, which WebAssembly
//! never gives back, grew with the log).

use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use super::CHECKPOINT_MIN_TAIL;
use super::Error;
use crate::graph::Graph;
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

/// One change of the log: its id, where it is and who made it ([`Journal::record`]
/// decodes what it changed).
#[derive(Debug)]
pub struct Logged<'j> {
    /// Its id.
    pub id: ChangeId,
    /// Its position among the log's entries.
    pub index: usize,
    /// Who made it.
    pub by: Provenance<'j>,
}

/// The log's entries, as read for one request, and the table of who made changes.
pub struct Journal {
    entries: Vec<Vec<u8>>,
    agents: Vec<AgentText>,
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

impl Journal {
    /// The journal of these log entries, oldest first, whose changes name their makers by
    /// their place in `agents`: the table of the graph the entries build (it lists every
    /// maker in the order the log met them, as a change's stamp counts them).
    pub fn new<'a>(entries: Vec<Vec<u8>>, agents: impl Iterator<Item = Provenance<'a>>) -> Journal {
        let agents = agents
            .map(|p| AgentText {
                client: p.client.into(),
                version: p.version.into(),
                session: p.session.into(),
                actor: p.actor.map(Into::into),
            })
            .collect();
        Journal { entries, agents }
    }

    /// Every change the log holds, oldest first (only each record's stamp read); records
    /// without a stamp (from before times were kept, and snapshots) are history's start,
    /// not changes, and are left out, as are checkpoints.
    pub fn changes(&self) -> Result<Vec<Logged<'_>>, Error> {
        let mut changes = Vec::new();
        let mut last: Option<ChangeId> = None;
        for (index, bytes) in self.entries.iter().enumerate() {
            if is_checkpoint(bytes) {
                continue;
            }
            let Some(stamp) = Record::stamp_of(bytes).map_err(unreadable)? else {
                continue;
            };
            let by = match stamp.by {
                Agent::New(p) => p,
                Agent::Known(i) => self
                    .agents
                    .get(i as usize)
                    .map(AgentText::provenance)
                    .unwrap_or_default(),
            };
            let id = ChangeId {
                at: stamp.at,
                seq: match last {
                    Some(prev) if prev.at == stamp.at => prev.seq + 1,
                    _ => 0,
                },
            };
            last = Some(id);
            changes.push(Logged { id, index, by });
        }
        Ok(changes)
    }

    /// What `change` changed, decoded.
    pub fn record(&self, change: &Logged<'_>) -> Result<Record<'_>, Error> {
        Record::decode(&self.entries[change.index]).map_err(unreadable)
    }

    /// The graph of the first `count` entries.
    fn replay(&self, count: usize) -> Result<Graph, Error> {
        match Graph::replay(&self.entries[..count]) {
            Ok(replayed) => Ok(replayed.graph),
            Err((_, e)) => Err(unreadable(e)),
        }
    }

    /// The graph as it was at `at`: the state history starts from (the leading records
    /// without a stamp: a compacted log's snapshot) and every change stamped at or before
    /// `at`. `Err(start)` if the history does not reach back that far: `start` is the
    /// latest time in the state it starts from (`0` if that state carries no times).
    pub fn as_of(&self, at: Millis) -> Result<Result<Graph, Millis>, Error> {
        let mut graph = Graph::default();
        let mut started = false;
        for (index, bytes) in self.entries.iter().enumerate() {
            let Entry::Change(record) = Entry::decode(bytes).map_err(unreadable)? else {
                graph.apply_entry(index, bytes).map_err(unreadable)?;
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
    /// entities, or wrote reflections), or if a later change depends on it.
    pub fn undo(&self, id: ChangeId, current: &Graph) -> Result<Result<Vec<u8>, Refused>, Error> {
        let changes = self.changes()?;
        let Some(at) = changes.iter().position(|c| c.id == id) else {
            return Ok(Err(Refused(format!(
                "no change has id {id} (the history tool lists the changes the log holds)"
            ))));
        };
        let target = &changes[at];
        let mut footprint = Footprint::of(&self.record(target)?);
        if let Some(why) = footprint.final_ {
            return Ok(Err(Refused(format!("change {id} cannot be undone: {why}"))));
        }
        let before = self.replay(target.index)?;
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
        for later in &changes[at + 1..] {
            if let Some(why) = Footprint::of(&self.record(later)?).depends_on(&footprint, &appeared)
            {
                return Ok(Err(Refused(format!(
                    "change {id} cannot be undone: change {} made later depends on it ({why}); undo that one first",
                    later.id
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

    /// The log compacted to keep the history of the last `keep` milliseconds before the
    /// latest change: the state at the horizon as a checkpoint, then every change made
    /// since, as it was logged, then (if those changes are many) a checkpoint of `current`,
    /// the graph the whole log builds. A log whose changes carry no times (a host without a
    /// clock) keeps no history, nor does `keep` 0: it compacts to `current`'s checkpoint.
    pub fn compacted(self, keep: Millis, current: &Graph) -> Result<Vec<Vec<u8>>, Error> {
        let latest = current.last_at();
        let horizon = latest.saturating_sub(keep);
        let mut split = self.entries.len();
        if latest != 0 && keep != 0 {
            for (i, bytes) in self.entries.iter().enumerate() {
                if let Entry::Change(record) = Entry::decode(bytes).map_err(unreadable)?
                    && record.stamp.is_some_and(|s| s.at != 0 && s.at >= horizon)
                {
                    split = i;
                    break;
                }
            }
        }
        if split == self.entries.len() {
            return Ok(alloc::vec![current.checkpoint()]);
        }
        let mut records = Vec::new();
        if split > 0 {
            records.push(self.replay(split)?.checkpoint());
        }
        // Moved, not copied: at 40K entities the changes of a bulk load are megabytes.
        let changes = self.entries.into_iter().skip(split);
        let changes: Vec<Vec<u8>> = changes.filter(|e| !is_checkpoint(e)).collect();
        let tail: u64 = changes.iter().map(|e| e.len() as u64).sum();
        records.extend(changes);
        if tail >= CHECKPOINT_MIN_TAIL {
            records.push(current.checkpoint());
        }
        Ok(records)
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
