//! An index read from saved indexes or built whole by the first search that needs it, or
//! read or built a slice at a time while the server is idle ([`super::Indexes::warm`]).
//!
//! A build under way holds the entities before some slot. Changes to those are applied to
//! it as to a built index; changes to the others are not, since the build reads them as
//! they stand when it gets there. So a build finished in slices, whatever changed between
//! them, holds what a build at once would.

use core::cell::{Cell, OnceCell};

use crate::graph::{Entity, EntityId, Graph};

/// An index that grows one entity at a time.
pub(super) trait Build {
    /// Adds `entities`, none of which it holds yet, in slot order.
    fn add_all<'g>(
        &mut self,
        graph: &'g Graph,
        entities: impl Iterator<Item = (EntityId, &'g Entity)>,
    );
}

/// One index: built, under way, or not begun.
pub(super) struct Lazy<T> {
    built: OnceCell<T>,
    /// A build under way: the index of the entities before the slot.
    partial: Cell<Option<(T, u32)>>,
}

impl<T> Default for Lazy<T> {
    fn default() -> Self {
        Lazy {
            built: OnceCell::new(),
            partial: Cell::new(None),
        }
    }
}

impl<T: Build> Lazy<T> {
    /// The index of `graph`: the build under way finished now, else the saved one if
    /// `saved` reads it, else one built now (begun with `new`).
    pub(super) fn get(
        &self,
        graph: &Graph,
        saved: impl FnOnce() -> Option<T>,
        new: impl FnOnce() -> T,
    ) -> &T {
        self.built.get_or_init(|| {
            let (mut index, from) = match self.partial.take() {
                Some(partial) => partial,
                None => match saved() {
                    Some(index) => return index,
                    None => (new(), 0),
                },
            };
            index.add_all(graph, graph.entities_from(from));
            index
        })
    }

    /// Takes `index` (read from saved indexes) as the built one, unless one is built or
    /// under way.
    pub(super) fn install(&mut self, index: T) {
        if self.built.get().is_none() && self.partial.get_mut().is_none() {
            self.built = OnceCell::from(index);
        }
    }

    /// Whether a build is under way.
    pub(super) fn under_way(&mut self) -> bool {
        self.partial.get_mut().is_some()
    }

    /// The index, if it is built.
    pub(super) fn built(&self) -> Option<&T> {
        self.built.get()
    }

    /// Adds the next entities holding about `budget` bytes of text (at least one entity) to
    /// the build under way, begun with `new` if none is.
    pub(super) fn step(&mut self, graph: &Graph, budget: usize, new: impl FnOnce() -> T) {
        if self.built().is_some() {
            return;
        }
        let (mut index, from) = self.partial.take().unwrap_or_else(|| (new(), 0));
        let (mut spent, mut next) = (0, from);
        let slice = graph.entities_from(from).take_while(|&(id, e)| {
            let more = spent == 0 || spent < budget;
            if more {
                spent += 1 + e.fields().map(|s| graph.text(s).len()).sum::<usize>();
                next = id.slot() + 1;
            }
            more
        });
        index.add_all(graph, slice);
        if graph.entities_from(next).next().is_none() {
            self.built = OnceCell::from(index);
        } else {
            self.partial.set(Some((index, next)));
        }
    }

    /// The index a change to slot `slot` must be applied to: the built one, or the one under
    /// way if it holds that slot already.
    pub(super) fn covering(&mut self, slot: u32) -> Option<&mut T> {
        if let Some(index) = self.built.get_mut() {
            return Some(index);
        }
        match self.partial.get_mut() {
            Some((index, next)) if slot < *next => Some(index),
            _ => None,
        }
    }
}
