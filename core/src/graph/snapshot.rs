//! The graph as records: what rebuilds it from nothing (export, compaction, conversion of a
//! reference file), and its entities and relations as text ([`model`] shapes).

use alloc::vec::Vec;

use super::{Entity, Graph, Relation};
use crate::model;
use crate::record::Record;

/// Entities or relations per record in a [`Graph::snapshot`] (bounds a record's size).
pub const SNAPSHOT_CHUNK: usize = 1000;

impl Graph {
    /// An entity's text.
    pub fn entity_text(&self, e: &Entity) -> model::Entity<'_> {
        model::Entity {
            name: self.text(e.name),
            entity_type: self.text(e.entity_type),
            observations: e.observations.iter().map(|&o| self.text(o)).collect(),
        }
    }

    /// A relation's text.
    pub fn relation_text(&self, r: &Relation) -> model::Relation<'_> {
        model::Relation {
            from: self.text(r.from),
            to: self.text(r.to),
            relation_type: self.text(r.relation_type),
        }
    }

    /// Every entity's text, in order.
    pub fn entity_texts(&self) -> Vec<model::Entity<'_>> {
        self.entities().map(|(_, e)| self.entity_text(e)).collect()
    }

    /// Every relation's text, in order.
    pub fn relation_texts(&self) -> Vec<model::Relation<'_>> {
        self.relations()
            .map(|(_, r)| self.relation_text(r))
            .collect()
    }

    /// Records that build this graph from nothing: its entities, then its relations, in
    /// order, [`SNAPSHOT_CHUNK`] per record.
    pub fn snapshot(&self) -> Vec<Vec<u8>> {
        creating(&self.entity_texts(), &self.relation_texts())
    }
}

/// Records that create these entities, then these relations, [`SNAPSHOT_CHUNK`] per record.
pub fn creating(entities: &[model::Entity<'_>], relations: &[model::Relation<'_>]) -> Vec<Vec<u8>> {
    let entities = entities
        .chunks(SNAPSHOT_CHUNK)
        .map(|chunk| Record::CreateEntities(chunk.to_vec()).encode());
    let relations = relations
        .chunks(SNAPSHOT_CHUNK)
        .map(|chunk| Record::CreateRelations(chunk.to_vec()).encode());
    entities.chain(relations).collect()
}
