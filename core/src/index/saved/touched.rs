//! What changed since the checkpoint saved indexes restate: the entities' slots touched
//! since, each with the text the checkpoint gave it. A section read later is brought up to
//! date slot by slot: what the checkpoint held unlisted (by that text), what the graph holds
//! now listed, as the live hooks would have done change by change.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::graph::{Entity, EntityId, Graph, Observer};
use crate::index::search::SearchIndex;
use crate::index::substring::{SubstringIndex, buckets_of};
use crate::index::vectors::VectorIndex;
use crate::intern::{Lower, Sym};

/// An entity's fields as the checkpoint had them: name, type, then its observations.
pub(crate) struct Old(Vec<String>);

impl Old {
    fn of(graph: &Graph, fields: impl Iterator<Item = Sym>) -> Old {
        Old(fields.map(|s| graph.text(s).to_string()).collect())
    }
}

/// Slots touched since the checkpoint, with what each held then (`None`: nothing).
#[derive(Default)]
pub(crate) struct Touched(BTreeMap<u32, Option<Old>>);

impl Touched {
    /// Notes what `slot` held before its first change since the checkpoint.
    fn first(&mut self, slot: u32, before: impl FnOnce() -> Option<Old>) {
        self.0.entry(slot).or_insert_with(before);
    }

    /// The slots touched, each with what it held then and the entity it holds now.
    fn each<'g>(
        &self,
        graph: &'g Graph,
    ) -> impl Iterator<Item = (u32, Option<&Old>, Option<&'g Entity>)> {
        self.0.iter().map(move |(&slot, old)| {
            let now = graph
                .entities_from(slot)
                .next()
                .filter(|(id, _)| id.slot() == slot);
            (slot, old.as_ref(), now.map(|(_, e)| e))
        })
    }

    /// Brings a ranked index read for the checkpoint up to date.
    pub(crate) fn apply_ranked(&self, index: &mut SearchIndex, graph: &Graph) {
        for (slot, old, now) in self.each(graph) {
            if let Some(Old(fields)) = old
                && let [name, kind, observations @ ..] = &fields[..]
            {
                index.remove_entity(slot, name, kind, observations.iter().map(String::as_str));
            }
            if let Some(e) = now {
                let obs = e.observations.iter().map(|&o| graph.text(o));
                index.add_entity(slot, graph.text(e.name), graph.text(e.entity_type), obs);
            }
        }
    }

    /// Brings a trigram index read for the checkpoint up to date.
    pub(crate) fn apply_trigrams(&self, index: &mut SubstringIndex, graph: &Graph) {
        let s = graph.strings();
        for (slot, old, now) in self.each(graph) {
            if let Some(Old(fields)) = old {
                let lowered: Vec<(bool, String)> = fields
                    .iter()
                    .map(|f| match f.is_ascii() {
                        true => (true, String::new()),
                        false => (false, f.to_lowercase()),
                    })
                    .collect();
                let texts = fields
                    .iter()
                    .zip(&lowered)
                    .map(|(f, (ascii, low))| match ascii {
                        true => Lower::Ascii(f.as_bytes()),
                        false => Lower::Text(low),
                    });
                index.remove(slot, &buckets_of(texts));
            }
            if let Some(e) = now {
                index.add(slot, e.fields().map(|sym| s.lower(sym)));
            }
        }
    }

    /// Brings vectors read for the checkpoint up to date.
    pub(crate) fn apply_vectors(&self, index: &mut VectorIndex, graph: &Graph) {
        for (slot, _, now) in self.each(graph) {
            match now {
                Some(e) => index.set(graph, slot, e),
                None => index.clear(slot),
            }
        }
    }
}

impl Observer for Touched {
    fn entity_added(&mut self, _graph: &Graph, id: EntityId) {
        self.first(id.slot(), || None);
    }

    fn observations_added(&mut self, graph: &Graph, id: EntityId, added: &[Sym]) {
        let e = graph.entity(id);
        let kept = e.observations.len() - added.len();
        let before = [e.name, e.entity_type].into_iter();
        self.first(id.slot(), || {
            Some(Old::of(
                graph,
                before.chain(e.observations[..kept].iter().copied()),
            ))
        });
    }

    fn observations_removed(&mut self, graph: &Graph, id: EntityId, removed: &[Sym]) {
        let e = graph.entity(id);
        self.first(id.slot(), || {
            Some(Old::of(graph, e.fields().chain(removed.iter().copied())))
        });
    }

    fn entity_removed(&mut self, graph: &Graph, id: EntityId, entity: &Entity) {
        self.first(id.slot(), || Some(Old::of(graph, entity.fields())));
    }
}
