//! Which entities an answer keeps: of a type, with one of some tags, of an importance
//! within bounds (the TypeScript seed's search filters, and this server's `entityType`).
//! A tag alias counts as its canonical tag, on both sides.

use alloc::string::String;
use alloc::vec::Vec;

use crate::graph::{Entity, Graph};

/// A filter of entities; an empty one keeps every entity.
#[derive(Default)]
pub struct Filter<'a> {
    /// Only entities of this type.
    pub entity_type: Option<&'a str>,
    /// Only entities with at least one of these tags (lowercase, canonical).
    pub tags: Vec<String>,
    /// Only entities of at least this importance (one without importance fails).
    pub min_importance: Option<f64>,
    /// Only entities of at most this importance (one without importance fails).
    pub max_importance: Option<f64>,
}

/// The tag `tag` stands for: its canonical tag if it is an alias, else itself.
pub fn canonical<'g>(graph: &'g Graph, tag: &'g str) -> &'g str {
    let aliases = graph.tag_aliases().iter();
    aliases
        .map(|a| (graph.text(a.alias), a.canonical))
        .find(|&(alias, _)| alias == tag)
        .map_or(tag, |(_, c)| graph.text(c))
}

impl<'a> Filter<'a> {
    /// The filter of these arguments; `tags` are lowercased and read through the aliases.
    pub fn new(
        graph: &Graph,
        entity_type: Option<&'a str>,
        tags: &[&str],
        (min_importance, max_importance): (Option<f64>, Option<f64>),
    ) -> Filter<'a> {
        let tags = tags
            .iter()
            .map(|t| {
                let lower = t.to_lowercase();
                String::from(canonical(graph, &lower))
            })
            .collect();
        Filter {
            entity_type,
            tags,
            min_importance,
            max_importance,
        }
    }

    /// Whether it keeps every entity.
    pub fn is_empty(&self) -> bool {
        self.entity_type.is_none()
            && self.tags.is_empty()
            && self.min_importance.is_none()
            && self.max_importance.is_none()
    }

    /// Whether entity `e` passes.
    pub fn admits(&self, graph: &Graph, e: &Entity) -> bool {
        if self
            .entity_type
            .is_some_and(|t| graph.text(e.entity_type) != t)
        {
            return false;
        }
        let extra = e.extra.as_deref();
        if !self.tags.is_empty() {
            let has = extra.map_or(&[][..], |x| &x.tags[..]);
            let tagged = has.iter().any(|&t| {
                self.tags
                    .iter()
                    .any(|f| f == canonical(graph, graph.text(t)))
            });
            if !tagged {
                return false;
            }
        }
        if self.min_importance.is_none() && self.max_importance.is_none() {
            return true;
        }
        extra.and_then(|x| x.importance).is_some_and(|i| {
            self.min_importance.is_none_or(|m| i >= m) && self.max_importance.is_none_or(|m| i <= m)
        })
    }
}
