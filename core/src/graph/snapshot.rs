//! The graph as records: what rebuilds it from nothing (export, compaction, conversion of a
//! reference file), and its entities and relations as text ([`model`] shapes).

use alloc::vec::Vec;

use super::{Ended, Entity, Graph, Past, Reflection, Relation, Target};
use crate::model;
use crate::record::{Op, Record};

/// A graph's whole state in the model's shapes (what its snapshot writes).
#[derive(serde::Serialize)]
pub struct State<'g> {
    /// The table of who made changes, in order.
    pub agents: Vec<model::Provenance<'g>>,
    /// Entities in full, in order.
    pub entities: Vec<model::EntityState<'g>>,
    /// Relations in full: the holding ones in order, then the ended ones.
    pub relations: Vec<model::RelationState<'g>>,
    /// Reflections, oldest first.
    pub reflections: Vec<model::Reflection<'g>>,
    /// Tag aliases, in the order made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tag_aliases: Vec<model::TagAlias<'g>>,
    /// Saved searches, in the order saved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub saved_searches: Vec<model::SavedSearch<'g>>,
    /// Archived entities, in the order archived.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub archived: Vec<model::Archived<'g>>,
    /// How entities were used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<model::Usage<'g>>,
}

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

    /// An entity in full: current observations, then superseded ones.
    pub fn entity_state(&self, e: &Entity) -> model::EntityState<'_> {
        let text = |sym| self.text(sym);
        let current = e.observations.iter().zip(&e.facts).map(|(&o, m)| (o, m, 0));
        let past = e.extra.iter().flat_map(|x| &x.past);
        let past = past.map(|p: &Past| (p.text, &p.meta, p.superseded));
        let facts = current
            .chain(past)
            .map(|(o, m, superseded)| model::Fact {
                text: text(o),
                id: m.id,
                kind: m.kind.map(text),
                created: m.created,
                supersedes: m.supersedes,
                superseded,
            })
            .collect();
        let extra = e.extra.as_deref();
        model::EntityState {
            name: text(e.name),
            entity_type: text(e.entity_type),
            created: e.created,
            updated: e.updated,
            tags: extra.map_or(Vec::new(), |x| x.tags.iter().map(|&t| text(t)).collect()),
            importance: extra.and_then(|x| x.importance),
            parent: extra.and_then(|x| x.parent).map(text),
            status: extra.and_then(|x| x.status).map(text),
            next_fact: e.next_fact,
            facts,
        }
    }

    /// A relation in full (`ended` 0 for one that holds).
    pub fn relation_state(&self, r: &Relation, ended: model::Millis) -> model::RelationState<'_> {
        model::RelationState {
            relation: self.relation_text(r),
            created: r.created,
            context: r.context.map(|c| self.text(c)),
            ended,
        }
    }

    /// A reflection's text.
    pub fn reflection_text(&self, r: &Reflection) -> model::Reflection<'_> {
        let text = |sym| self.text(sym);
        model::Reflection {
            id: r.id,
            target: match r.target {
                Target::Global => model::Target::Global,
                Target::Entity(name) => model::Target::Entity(text(name)),
                Target::Relation([from, to, relation_type]) => {
                    model::Target::Relation(model::Relation {
                        from: text(from),
                        to: text(to),
                        relation_type: text(relation_type),
                    })
                }
                Target::Session(id) => model::Target::Session(text(id)),
            },
            author: text(r.author),
            mood: r.mood.map(text),
            content: text(r.content),
            created: r.created,
        }
    }

    /// The whole graph in the model's shapes.
    pub fn state(&self) -> State<'_> {
        let holding = self.relations().map(|(_, r)| self.relation_state(r, 0));
        let ended = self
            .ended
            .iter()
            .map(|e: &Ended| self.relation_state(&e.relation, e.at));
        State {
            agents: self.agents().collect(),
            entities: self.entities().map(|(_, e)| self.entity_state(e)).collect(),
            relations: holding.chain(ended).collect(),
            reflections: self
                .reflections
                .iter()
                .map(|r| self.reflection_text(r))
                .collect(),
            tag_aliases: self
                .tag_aliases
                .iter()
                .map(|a| self.tag_alias_text(a))
                .collect(),
            saved_searches: self
                .saved_searches
                .iter()
                .map(|q| self.saved_search_text(q))
                .collect(),
            archived: self.archived().collect(),
            usage: self.usage_text(),
        }
    }

    /// Records that build this graph from nothing, whole: entities, relations (holding,
    /// then ended), reflections, [`SNAPSHOT_CHUNK`] per record, the first record starting
    /// with the table of who made changes; then tag aliases, saved searches, the archive and
    /// the usage counts.
    pub fn snapshot(&self) -> Vec<Vec<u8>> {
        let State {
            agents,
            entities,
            relations,
            reflections,
            ..
        } = self.state();
        let agents = (!agents.is_empty()).then_some(Op::Agents(agents));
        let mut records: Vec<Record<'_>> = chunks(&entities, Op::PutEntities)
            .chain(chunks(&relations, Op::PutRelations))
            .chain(chunks(&reflections, Op::PutReflections))
            .chain(self.saved_ops())
            .map(Record::from)
            .collect();
        if let Some(agents) = agents {
            match records.first_mut() {
                Some(first) => first.ops.insert(0, agents),
                None => records.push(Record::from(agents)),
            }
        }
        records.iter().map(Record::encode).collect()
    }
}

/// `items` in ops of [`SNAPSHOT_CHUNK`] each.
fn chunks<'s, 'a: 's, T: Clone>(
    items: &'s [T],
    op: fn(Vec<T>) -> Op<'a>,
) -> impl Iterator<Item = Op<'a>> + 's {
    items.chunks(SNAPSHOT_CHUNK).map(move |c| op(c.to_vec()))
}

/// Records that create these entities, then these relations, [`SNAPSHOT_CHUNK`] per record
/// (the reference's shapes: a converted reference file).
pub fn creating(entities: &[model::Entity<'_>], relations: &[model::Relation<'_>]) -> Vec<Vec<u8>> {
    let entities = chunks(entities, Op::CreateEntities);
    let relations = chunks(relations, Op::CreateRelations);
    entities
        .chain(relations)
        .map(|op| Record::from(op).encode())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn creating_writes_the_first_formats_records() {
        let e = model::Entity {
            name: "a",
            entity_type: "t",
            observations: vec!["o"],
        };
        let records = creating(&[e], &[]);
        assert_eq!(records, vec![vec![0, 1, 1, b'a', 1, b't', 1, 1, b'o']]);
    }
}
