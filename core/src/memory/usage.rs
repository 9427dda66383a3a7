//! Usage counts on their way to the log: the entities reads returned, summed in memory and
//! logged as one [`Op::Used`] record at most once per [`USES_EVERY`] (and at close), so a
//! read is never a disk write of its own. A crash loses the uses not logged yet: those of
//! at most the last [`USES_EVERY`] of activity.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::{DAY_MS, Error, LogOp, Memory};
use crate::graph::{Graph, Use};
use crate::intern::Sym;
use crate::log::Log;
use crate::model::{Access, CoUse, Millis, Usage};
use crate::record::{Op, Record};

/// The least time between two records of uses (milliseconds).
pub const USES_EVERY: Millis = 1000;

/// Most entities of one group whose pairs are counted (a group of `n` makes `n(n-1)/2`).
const MAX_GROUP_PAIRS: usize = 50;

/// Uses not logged yet, by name (and day), in the order a record lists them. Reads count
/// them at once ([`Pending::usage_of`]); only their logging waits.
#[derive(Debug, Default)]
pub struct Pending {
    accesses: BTreeMap<(String, u32), (u32, Millis)>,
    pairs: BTreeMap<(String, String), (u32, Millis)>,
    /// When the oldest of them was noted (host time). A record is due [`USES_EVERY`] after
    /// it, so records are at least that far apart.
    since: Millis,
}

fn add(entry: &mut (u32, Millis), at: Millis) {
    entry.0 = entry.0.saturating_add(1);
    entry.1 = entry.1.max(at);
}

impl Pending {
    fn note(&mut self, group: &[String], at: Millis) {
        if self.is_empty() {
            self.since = at;
        }
        let day = (at / DAY_MS) as u32;
        for name in group {
            add(self.accesses.entry((name.clone(), day)).or_default(), at);
        }
        let paired = &group[..group.len().min(MAX_GROUP_PAIRS)];
        for (i, a) in paired.iter().enumerate() {
            for b in &paired[i + 1..] {
                let key = match a.cmp(b) {
                    core::cmp::Ordering::Less => (a.clone(), b.clone()),
                    core::cmp::Ordering::Greater => (b.clone(), a.clone()),
                    core::cmp::Ordering::Equal => continue,
                };
                add(self.pairs.entry(key).or_default(), at);
            }
        }
    }

    fn is_empty(&self) -> bool {
        self.accesses.is_empty() && self.pairs.is_empty()
    }

    /// The uses of the entities named `name` in `graph`: those logged and those noted
    /// since, counted as logging them will count them.
    pub fn usage_of(&self, graph: &Graph, name: Sym) -> Option<Use> {
        let logged = graph.usage(name);
        if self.is_empty() {
            return logged.cloned();
        }
        let text = graph.text(name);
        let mut u = logged.cloned().unwrap_or_default();
        let mut noted = false;
        for ((_, day), &(count, last)) in self
            .accesses
            .range((String::from(text), 0)..=(String::from(text), u32::MAX))
        {
            noted = true;
            u.add_accesses(*day, count, last);
        }
        for ((a, b), &(count, last)) in &self.pairs {
            let other = match (a.as_str() == text, b.as_str() == text) {
                (true, false) => graph.live_name(b),
                (false, true) => graph.live_name(a),
                _ => None,
            };
            if let Some(other) = other {
                noted = true;
                u.add_with(other, count, last);
            }
        }
        (noted || logged.is_some()).then_some(u)
    }

    fn usage(&self) -> Usage<'_> {
        Usage {
            accesses: self
                .accesses
                .iter()
                .map(|((entity, day), &(count, last))| Access {
                    entity,
                    day: *day,
                    count,
                    last,
                })
                .collect(),
            pairs: self
                .pairs
                .iter()
                .map(|((a, b), &(count, last))| CoUse { a, b, count, last })
                .collect(),
        }
    }
}

impl<L: Log> Memory<L> {
    /// Notes that a call at `at` (the host's time) returned these groups of entities
    /// together: counted when next logged ([`Memory::uses_due`]).
    pub fn note_uses(&mut self, groups: Vec<Vec<String>>, at: Millis) {
        for group in &groups {
            self.uses.note(group, at);
        }
    }

    /// Whether uses wait to be logged, the oldest noted at least [`USES_EVERY`] before
    /// `now` (then the request logs them: [`Memory::log_uses`]).
    pub fn uses_due(&self, now: Millis) -> bool {
        !self.uses.is_empty() && now >= self.uses.since.saturating_add(USES_EVERY)
    }

    /// Logs the uses noted since they were last logged, as one unstamped record, and
    /// applies it; called after catching up to write ([`crate::Intent::Write`]). On an
    /// append failure they stay noted, for the next time.
    pub fn log_uses(&mut self) -> Result<(), Error> {
        if self.uses.is_empty() {
            return Ok(());
        }
        let bytes = {
            let record = Record::from(Op::Used(self.uses.usage()));
            let bytes = record.encode();
            self.log.append(&bytes).map_err(Error::log(LogOp::Append))?;
            self.graph.apply(&record, &mut self.indexes);
            bytes
        };
        self.count_logged(&bytes);
        self.uses = Pending::default();
        self.log.sync().map_err(Error::log(LogOp::Sync))
    }
}
