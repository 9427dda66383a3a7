//! Three tables kept beside the graph, by key, in the order made: tag aliases (by alias),
//! saved searches (by name) and archived entities (by name). Putting one whose key is taken
//! replaces it in its place.

use alloc::vec::Vec;

use super::{ArchivedRow, Graph, SavedSearch, TagAlias};
use crate::intern::Sym;
use crate::model;

impl Graph {
    /// Adds a tag alias, or replaces the one of the same alias.
    pub(super) fn put_tag_alias(&mut self, a: &model::TagAlias<'_>) {
        self.saw(a.created);
        let s = &mut self.strings;
        let row = TagAlias {
            alias: s.intern(a.alias),
            canonical: s.intern(a.canonical),
            description: a.description.map(|d| s.intern(d)),
            created: a.created,
        };
        let at = self.tag_aliases.iter().position(|x| x.alias == row.alias);
        match at {
            Some(i) => {
                let old = core::mem::replace(&mut self.tag_aliases[i], row);
                self.release_alias(&old);
            }
            None => self.tag_aliases.push(row),
        }
    }

    /// Removes the tag alias of this alias, if there is one.
    pub(super) fn remove_tag_alias(&mut self, alias: &str) {
        let Some(sym) = self.strings.lookup(alias) else {
            return;
        };
        if let Some(i) = self.tag_aliases.iter().position(|x| x.alias == sym) {
            let old = self.tag_aliases.remove(i);
            self.release_alias(&old);
        }
    }

    fn release_alias(&mut self, a: &TagAlias) {
        let syms = [a.alias, a.canonical].into_iter().chain(a.description);
        syms.for_each(|s| self.strings.release(s));
    }

    /// Adds a saved search, or replaces the one of the same name.
    pub(super) fn put_saved_search(&mut self, q: &model::SavedSearch<'_>) {
        self.saw(q.created.max(q.last_used));
        let s = &mut self.strings;
        let row = SavedSearch {
            name: s.intern(q.name),
            description: q.description.map(|d| s.intern(d)),
            query: s.intern(q.query),
            tags: q.tags.iter().map(|t| s.intern(t)).collect(),
            min_importance: q.min_importance,
            max_importance: q.max_importance,
            entity_type: q.entity_type.map(|t| s.intern(t)),
            created: q.created,
            use_count: q.use_count,
            last_used: q.last_used,
        };
        let at = self.saved_searches.iter().position(|x| x.name == row.name);
        match at {
            Some(i) => {
                let old = core::mem::replace(&mut self.saved_searches[i], row);
                self.release_search(old);
            }
            None => self.saved_searches.push(row),
        }
    }

    /// Removes the saved search of this name, if there is one.
    pub(super) fn remove_saved_search(&mut self, name: &str) {
        let Some(sym) = self.strings.lookup(name) else {
            return;
        };
        if let Some(i) = self.saved_searches.iter().position(|x| x.name == sym) {
            let old = self.saved_searches.remove(i);
            self.release_search(old);
        }
    }

    fn release_search(&mut self, q: SavedSearch) {
        let syms: Vec<Sym> = [q.name, q.query]
            .into_iter()
            .chain(q.description)
            .chain(q.entity_type)
            .chain(q.tags)
            .collect();
        syms.into_iter().for_each(|s| self.strings.release(s));
    }

    /// Adds an archived entity, or replaces the one of the same name.
    pub(super) fn put_archived(&mut self, a: &model::Archived<'_>) {
        self.saw(a.at);
        let row = ArchivedRow {
            name: a.entity.name.into(),
            bytes: postcard::to_allocvec(a).expect("an archived entity encodes"),
        };
        match self.archived.iter().position(|x| x.name == row.name) {
            Some(i) => self.archived[i] = row,
            None => self.archived.push(row),
        }
    }

    /// Removes the archived entity of this name, if there is one.
    pub(super) fn remove_archived(&mut self, name: &str) {
        self.archived.retain(|x| x.name != name);
    }

    /// Archived entities, in the order archived.
    pub fn archived(&self) -> impl Iterator<Item = model::Archived<'_>> {
        self.archived.iter().map(ArchivedRow::entry)
    }

    /// The archived entity of this name.
    pub fn archived_named(&self, name: &str) -> Option<model::Archived<'_>> {
        let row = self.archived.iter().find(|x| x.name == name)?;
        Some(row.entry())
    }

    /// A tag alias's text.
    pub fn tag_alias_text(&self, a: &TagAlias) -> model::TagAlias<'_> {
        model::TagAlias {
            alias: self.text(a.alias),
            canonical: self.text(a.canonical),
            description: a.description.map(|d| self.text(d)),
            created: a.created,
        }
    }

    /// A saved search's text.
    pub fn saved_search_text(&self, q: &SavedSearch) -> model::SavedSearch<'_> {
        model::SavedSearch {
            name: self.text(q.name),
            description: q.description.map(|d| self.text(d)),
            query: self.text(q.query),
            tags: q.tags.iter().map(|&t| self.text(t)).collect(),
            min_importance: q.min_importance,
            max_importance: q.max_importance,
            entity_type: q.entity_type.map(|t| self.text(t)),
            created: q.created,
            use_count: q.use_count,
            last_used: q.last_used,
        }
    }

    /// The ops that restate the tables and the usage counts (none for an empty one): a
    /// snapshot's, and a checkpoint's tail.
    pub fn saved_ops(&self) -> Vec<crate::record::Op<'_>> {
        use crate::record::Op;
        let aliases: Vec<_> = self
            .tag_aliases
            .iter()
            .map(|a| self.tag_alias_text(a))
            .collect();
        let searches: Vec<_> = self
            .saved_searches
            .iter()
            .map(|q| self.saved_search_text(q))
            .collect();
        let mut ops = Vec::new();
        if !aliases.is_empty() {
            ops.push(Op::PutTagAliases(aliases));
        }
        if !searches.is_empty() {
            ops.push(Op::PutSavedSearches(searches));
        }
        let archived: Vec<_> = self.archived().collect();
        if !archived.is_empty() {
            ops.push(Op::PutArchived(archived));
        }
        ops.extend(self.usage_text().map(Op::Used));
        ops
    }
}

impl ArchivedRow {
    /// The archived entity.
    fn entry(&self) -> model::Archived<'_> {
        postcard::from_bytes(&self.bytes).expect("a row holds what put_archived encoded")
    }
}
