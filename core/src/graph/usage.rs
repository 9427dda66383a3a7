//! How entities were used: accesses per day and entities returned together, the sums of
//! every [`Op::Used`](crate::record::Op::Used) logged (what the salience ranking reads).
//!
//! Counts belong to a name while an entity has it: uses of a name no entity has are not
//! counted, and deleting or forgetting an entity drops its counts (and its pairs).

use alloc::vec::Vec;

use super::Graph;
use crate::intern::Sym;
use crate::model::{self, Millis};

/// An entity's uses.
#[derive(Debug, Default, Clone)]
pub struct Use {
    /// Accesses per day: (day since the Unix epoch, count), by day.
    pub days: Vec<(u32, u32)>,
    /// When the last access was.
    pub last: Millis,
    /// Entities returned with it: (name, count, when last).
    pub with: Vec<(Sym, u32, Millis)>,
}

impl Use {
    /// How many accesses in all.
    pub fn count(&self) -> u64 {
        self.days.iter().map(|&(_, n)| u64::from(n)).sum()
    }

    /// How many times it was returned together with `other`, and when last.
    pub fn with(&self, other: Sym) -> Option<(u32, Millis)> {
        let &(_, count, last) = self.with.iter().find(|(s, ..)| *s == other)?;
        Some((count, last))
    }

    /// Counts `count` accesses on `day`, the last at `last`.
    pub(crate) fn add_accesses(&mut self, day: u32, count: u32, last: Millis) {
        match self.days.binary_search_by_key(&day, |d| d.0) {
            Ok(i) => self.days[i].1 = self.days[i].1.saturating_add(count),
            Err(i) => self.days.insert(i, (day, count)),
        }
        self.last = self.last.max(last);
    }

    /// Counts `count` returns together with `other`, the last at `last`; whether `other`
    /// is new among them.
    pub(crate) fn add_with(&mut self, other: Sym, count: u32, last: Millis) -> bool {
        match self.with.iter_mut().find(|(s, ..)| *s == other) {
            Some(pair) => {
                pair.1 = pair.1.saturating_add(count);
                pair.2 = pair.2.max(last);
                false
            }
            None => {
                self.with.push((other, count, last));
                true
            }
        }
    }
}

impl Graph {
    /// The uses of the entities named `name`, if any were counted.
    pub fn usage(&self, name: Sym) -> Option<&Use> {
        self.usage.get(&name)
    }

    /// Adds these uses to the counts (those of names no entity has are passed by).
    pub(super) fn add_usage(&mut self, u: &model::Usage<'_>) {
        for a in &u.accesses {
            let Some(sym) = self.live_name(a.entity) else {
                continue;
            };
            self.use_entry(sym).add_accesses(a.day, a.count, a.last);
        }
        for p in &u.pairs {
            let (Some(a), Some(b)) = (self.live_name(p.a), self.live_name(p.b)) else {
                continue;
            };
            if a != b {
                self.add_pair(a, b, p.count, p.last);
                self.add_pair(b, a, p.count, p.last);
            }
        }
    }

    /// The name's symbol, if an entity has it.
    pub(crate) fn live_name(&self, name: &str) -> Option<Sym> {
        let sym = self.strings.lookup(name)?;
        self.by_name
            .get(sym)
            .is_some_and(|ids| !ids.is_empty())
            .then_some(sym)
    }

    /// The uses of `sym`, counted from now on if they were not (the table holds the name).
    fn use_entry(&mut self, sym: Sym) -> &mut Use {
        let strings = &mut self.strings;
        self.usage.entry(sym).or_insert_with(|| {
            strings.add_refs(sym, 1);
            Use::default()
        })
    }

    fn add_pair(&mut self, a: Sym, b: Sym, count: u32, last: Millis) {
        if self.use_entry(a).add_with(b, count, last) {
            self.strings.add_refs(b, 1);
        }
    }

    /// Drops the uses of `name` and its pairs, unless an entity has the name.
    pub(super) fn drop_usage(&mut self, name: &str) {
        let Some(sym) = self.strings.lookup(name) else {
            return;
        };
        if self.live_name(name).is_some() {
            return;
        }
        let Some(gone) = self.usage.remove(&sym) else {
            return;
        };
        for &(other, ..) in &gone.with {
            if let Some(u) = self.usage.get_mut(&other)
                && let Some(i) = u.with.iter().position(|(s, ..)| *s == sym)
            {
                u.with.swap_remove(i);
                self.strings.release(sym);
            }
            self.strings.release(other);
        }
        self.strings.release(sym);
    }

    /// The counts restated as one [`model::Usage`] (accesses by name and day, each pair
    /// once, by names), or `None` if nothing was counted: a snapshot's and a checkpoint's.
    pub fn usage_text(&self) -> Option<model::Usage<'_>> {
        if self.usage.is_empty() {
            return None;
        }
        let mut named: Vec<(&str, &Use)> = self
            .usage
            .iter()
            .map(|(&sym, u)| (self.text(sym), u))
            .collect();
        named.sort_unstable_by_key(|(name, _)| *name);
        let mut usage = model::Usage::default();
        for (entity, u) in named {
            usage
                .accesses
                .extend(u.days.iter().map(|&(day, count)| model::Access {
                    entity,
                    day,
                    count,
                    last: u.last,
                }));
            let mut pairs: Vec<model::CoUse<'_>> = u
                .with
                .iter()
                .map(|&(other, count, last)| model::CoUse {
                    a: entity,
                    b: self.text(other),
                    count,
                    last,
                })
                .filter(|p| p.a < p.b)
                .collect();
            pairs.sort_unstable_by_key(|p| p.b);
            usage.pairs.extend(pairs);
        }
        Some(usage)
    }
}
