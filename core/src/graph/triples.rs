//! Relations by triple: a table of relation ids hashed by their triple, which is read back
//! from the arena. An entry costs four bytes (a map keyed by the triple cost seven times as
//! much, and its memory traffic dominated loading a large graph).

use alloc::vec::Vec;
use core::hash::BuildHasher;
use hashbrown::HashTable;

use super::{Relation, RelationId};
use crate::hash::Hasher;
use crate::intern::Sym;

/// A relation's triple: from, to, type.
pub(super) type Triple = [Sym; 3];

/// The triple of a relation.
pub(super) fn triple_of(r: &Relation) -> Triple {
    [r.from, r.to, r.relation_type]
}

/// Ids of the relations in the arena, by triple (several only in imported files).
#[derive(Default)]
pub(super) struct Triples(HashTable<RelationId>);

fn hash(key: &Triple) -> u64 {
    Hasher::default().hash_one(key)
}

/// The triple of the live relation `id` of `arena`.
fn key(arena: &[Option<Relation>], id: RelationId) -> Triple {
    triple_of(
        arena[id.0 as usize]
            .as_ref()
            .expect("only live relations are listed"),
    )
}

impl Triples {
    /// The table of every live relation of `arena`.
    pub(super) fn of(arena: &[Option<Relation>]) -> Triples {
        let mut t = Triples::default();
        t.reserve(arena.len(), arena);
        for (i, r) in arena.iter().enumerate() {
            if let Some(r) = r {
                t.insert(RelationId(i as u32), &triple_of(r), arena);
            }
        }
        t
    }

    /// Lists relation `id`, whose triple is `triple`; every id listed is live in `arena`.
    pub(super) fn insert(&mut self, id: RelationId, triple: &Triple, arena: &[Option<Relation>]) {
        self.0
            .insert_unique(hash(triple), id, |&i| hash(&key(arena, i)));
    }

    /// Makes room for `more` relations.
    pub(super) fn reserve(&mut self, more: usize, arena: &[Option<Relation>]) {
        self.0.reserve(more, |&i| hash(&key(arena, i)));
    }

    /// The ids of the relations with this triple, oldest first.
    pub(super) fn ids(&self, triple: &Triple, arena: &[Option<Relation>]) -> Vec<RelationId> {
        let mut ids: Vec<RelationId> = self
            .0
            .iter_hash(hash(triple))
            .copied()
            .filter(|&i| key(arena, i) == *triple)
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Whether a relation has this triple.
    pub(super) fn contains(&self, triple: &Triple, arena: &[Option<Relation>]) -> bool {
        self.0
            .find(hash(triple), |&i| key(arena, i) == *triple)
            .is_some()
    }

    /// Unlists relation `id`, whose triple was `triple`.
    pub(super) fn remove(&mut self, id: RelationId, triple: &Triple) {
        if let Ok(entry) = self.0.find_entry(hash(triple), |&i| i == id) {
            entry.remove();
        }
    }
}
