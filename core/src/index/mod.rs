//! The graph's search indexes: the trigram index behind `search_nodes`' substring match
//! ([`substring`]), the ranked full-text index ([`search`]) and the entities' vectors for
//! semantic search ([`vectors`], when the host handed over an embedding table).
//!
//! [`Indexes`] holds both and keeps them up to date as an [`Observer`] of
//! [`Graph::apply`]. Each is built by the first search that needs it (not during replay,
//! which it would slow by half) and dropped when the graph re-packs its arenas (slots are
//! renumbered; the next search builds it again). A new index is a new field here and a few
//! lines in the observer hooks, not an edit inside `Graph::apply`.

pub mod hybrid;
pub mod search;
pub mod substring;
pub mod vectors;

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::{Cell, OnceCell};

use crate::embed::{Table, TableError};

use crate::graph::{Entity, EntityId, Graph, Observer};
use crate::intern::Sym;
use search::SearchIndex;
use substring::{SubstringIndex, buckets_of};
use vectors::VectorIndex;

/// The indexes of one graph, each built lazily.
#[derive(Default)]
pub struct Indexes {
    substring: OnceCell<SubstringIndex>,
    ranked: OnceCell<SearchIndex>,
    vectors: OnceCell<VectorIndex>,
    /// The embedding table semantic search uses, read from `source` by the first search
    /// that asks for it.
    table: OnceCell<Result<Rc<Table>, NoTable>>,
    /// Where the table comes from (the host), until it is read.
    source: Cell<Option<TableSource>>,
}

/// Gives the embedding table's bytes, or `None` if the host has none; called at most once.
pub type TableSource = Box<dyn FnOnce() -> Option<alloc::vec::Vec<u8>>>;

/// How a server gets the embedding table, and what to search with meanwhile: for messages
/// saying it has none.
pub const TABLE_HOWTO: &str = "the native mcp-memory binary carries it, the npm package reads dist/embeddings.bin beside its engine, and BrowserMemory.open fetches it (its embeddings option); use mode \"lexical\" meanwhile";

/// Why there is no embedding table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoTable {
    /// The host has none (or gave no source).
    Missing,
    /// The host's bytes are not a table.
    Unreadable(TableError),
}

/// An entity's searchable fields: name, type, then observations.
fn fields(e: &Entity) -> impl Iterator<Item = Sym> + '_ {
    [e.name, e.entity_type]
        .into_iter()
        .chain(e.observations.iter().copied())
}

impl Indexes {
    /// The trigram index of `graph` (built by the first call after start or a re-pack).
    /// `graph` must be the graph these indexes observe.
    pub fn substring(&self, graph: &Graph) -> &SubstringIndex {
        self.substring.get_or_init(|| {
            let s = graph.strings();
            let mut index = SubstringIndex::default();
            for (id, e) in graph.entities() {
                index.add(id.slot(), fields(e).map(|sym| s.lower(sym)));
            }
            index
        })
    }

    /// The ranked-search index of `graph` (built by the first call after start or a
    /// re-pack). `graph` must be the graph these indexes observe.
    pub fn ranked(&self, graph: &Graph) -> &SearchIndex {
        self.ranked.get_or_init(|| SearchIndex::build(graph))
    }

    /// Drops every index built (the next search that needs one builds it again from the
    /// graph); the embedding table and its source stay.
    pub fn reset(&mut self) {
        *self = Indexes {
            table: core::mem::take(&mut self.table),
            source: self.source.take().into(),
            ..Indexes::default()
        };
    }

    /// Makes semantic search use `table`.
    pub fn set_table(&mut self, table: Table) {
        self.table = OnceCell::from(Ok(Rc::new(table)));
        self.vectors = OnceCell::new();
    }

    /// Makes semantic search read its table from `source` when it first needs it.
    pub fn set_table_source(&mut self, source: TableSource) {
        self.table = OnceCell::new();
        self.source = Some(source).into();
        self.vectors = OnceCell::new();
    }

    /// The embedding table (read from its source by the first call), or why there is none.
    pub fn table(&self) -> Result<&Rc<Table>, &NoTable> {
        let table = self.table.get_or_init(|| {
            let bytes = self.source.take().and_then(|source| source());
            let bytes = bytes.ok_or(NoTable::Missing)?;
            Table::parse(bytes)
                .map(Rc::new)
                .map_err(NoTable::Unreadable)
        });
        table.as_ref()
    }

    /// The entities' vectors (built by the first call after start, a re-pack or a new
    /// table), or why there is no embedding table. `graph` must be the graph these indexes
    /// observe.
    pub fn vectors(&self, graph: &Graph) -> Result<&VectorIndex, &NoTable> {
        let table = self.table()?;
        Ok(self
            .vectors
            .get_or_init(|| VectorIndex::build(graph, Rc::clone(table))))
    }

    /// Entities that may contain `needle` (lowercased) in a field, in graph order, or `None`
    /// when the needle is too short to narrow the search (then every entity may).
    pub fn substring_candidates(&self, graph: &Graph, needle: &str) -> Option<Vec<EntityId>> {
        let slots = self.substring(graph).candidates(needle)?;
        Some(slots.into_iter().map(EntityId::from_slot).collect())
    }
}

impl Observer for Indexes {
    fn entity_added(&mut self, graph: &Graph, id: EntityId) {
        let e = graph.entity(id);
        let s = graph.strings();
        if let Some(index) = self.substring.get_mut() {
            index.add(id.slot(), fields(e).map(|sym| s.lower(sym)));
        }
        if let Some(index) = self.ranked.get_mut() {
            let obs = e.observations.iter().map(|&o| s.resolve(o));
            index.add_entity(id.slot(), s.resolve(e.name), s.resolve(e.entity_type), obs);
        }
        if let Some(index) = self.vectors.get_mut() {
            index.set(graph, id.slot(), e);
        }
    }

    fn observations_added(&mut self, graph: &Graph, id: EntityId, added: &[Sym]) {
        let s = graph.strings();
        if let Some(index) = self.substring.get_mut() {
            index.add(id.slot(), added.iter().map(|&o| s.lower(o)));
        }
        if let Some(index) = self.ranked.get_mut() {
            index.add_observations(id.slot(), added.iter().map(|&o| s.resolve(o)));
        }
        if let Some(index) = self.vectors.get_mut() {
            index.set(graph, id.slot(), graph.entity(id));
        }
    }

    fn observations_removed(&mut self, graph: &Graph, id: EntityId, removed: &[Sym]) {
        let s = graph.strings();
        let kept = graph.entity(id);
        if let Some(index) = self.ranked.get_mut() {
            let obs = kept.observations.iter().map(|&o| s.resolve(o));
            index.replace_observations(id.slot(), removed.iter().map(|&o| s.resolve(o)), obs);
        }
        if let Some(index) = self.substring.get_mut() {
            // Unlist the windows that only the removed observations had.
            let still = buckets_of(fields(kept).map(|sym| s.lower(sym)));
            let mut gone = buckets_of(removed.iter().map(|&o| s.lower(o)));
            gone.retain(|g| still.binary_search(g).is_err());
            index.remove(id.slot(), &gone);
        }
        if let Some(index) = self.vectors.get_mut() {
            index.set(graph, id.slot(), kept);
        }
    }

    fn entity_removed(&mut self, graph: &Graph, id: EntityId, entity: &Entity) {
        let s = graph.strings();
        if let Some(index) = self.substring.get_mut() {
            index.remove(
                id.slot(),
                &buckets_of(fields(entity).map(|sym| s.lower(sym))),
            );
        }
        if let Some(index) = self.ranked.get_mut() {
            let obs = entity.observations.iter().map(|&o| s.resolve(o));
            let (name, kind) = (s.resolve(entity.name), s.resolve(entity.entity_type));
            index.remove_entity(id.slot(), name, kind, obs);
        }
        if let Some(index) = self.vectors.get_mut() {
            index.clear(id.slot());
        }
    }

    fn repacked(&mut self) {
        self.reset();
    }
}
