//! The graph's search indexes: the trigram index behind `search_nodes`' substring match
//! ([`substring`]), the ranked full-text index ([`search`]) and the entities' vectors for
//! semantic search ([`vectors`], when the host handed over an embedding table).
//!
//! [`Indexes`] holds them and keeps them up to date as an [`Observer`] of
//! [`Graph::apply`]. None is built during replay (which it would slow by half): each is
//! read from the indexes saved for the checkpoint the graph was loaded from ([`saved`]), if
//! there are such, else built, a slice at a time while the server is idle
//! ([`Indexes::warm`]), or finished by the first search that needs it ([`lazy`]); each is
//! dropped when the graph re-packs its arenas (slots are renumbered; it is built again). A
//! new index is a new field here, a section in [`saved`] and a few lines in the observer
//! hooks, not an edit inside `Graph::apply`.

pub mod hybrid;
mod lazy;
pub mod saved;
pub mod search;
pub mod substring;
pub mod vectors;

use alloc::boxed::Box;
use alloc::rc::Rc;
use alloc::vec::Vec;
use core::cell::{Cell, OnceCell, RefCell};

use crate::embed::{Table, TableError};

use crate::graph::{Entity, EntityId, Graph, Observer};
use crate::intern::Sym;
use crate::log::LogError;
use lazy::{Build, Lazy};
use saved::{Kind, Saved, Step};
use search::SearchIndex;
use substring::{SubstringIndex, buckets_of};
use vectors::VectorIndex;

/// Text an idle step of [`Indexes::warm`] indexes, in bytes: a few milliseconds of work, the
/// most a message arriving meanwhile waits for it.
pub const WARM_BYTES: usize = 1 << 15;

/// The indexes of one graph, each built lazily.
#[derive(Default)]
pub struct Indexes {
    substring: Lazy<SubstringIndex>,
    ranked: Lazy<SearchIndex>,
    vectors: Lazy<VectorIndex>,
    /// The embedding table semantic search uses, read from `source` by the first search
    /// that asks for it.
    table: OnceCell<Result<Rc<Table>, NoTable>>,
    /// Where the table comes from (the host), until it is read.
    source: Cell<Option<TableSource>>,
    /// The indexes saved for the checkpoint the graph was loaded from, while some are
    /// still to read.
    saved: RefCell<Option<Saved>>,
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

impl Build for SubstringIndex {
    fn add_all<'g>(
        &mut self,
        graph: &'g Graph,
        entities: impl Iterator<Item = (EntityId, &'g Entity)>,
    ) {
        let s = graph.strings();
        for (id, e) in entities {
            self.add(id.slot(), e.fields().map(|sym| s.lower(sym)));
        }
    }
}

impl Indexes {
    /// The trigram index of `graph` (built by the first call after start or a re-pack, if
    /// [`Indexes::warm`] has not). `graph` must be the graph these indexes observe.
    pub fn substring(&self, graph: &Graph) -> &SubstringIndex {
        let saved = || self.read_saved(|s| s.trigrams(graph));
        self.substring.get(graph, saved, SubstringIndex::default)
    }

    /// The ranked-search index of `graph` (built by the first call after start or a
    /// re-pack, if [`Indexes::warm`] has not). `graph` must be the graph these indexes
    /// observe.
    pub fn ranked(&self, graph: &Graph) -> &SearchIndex {
        let saved = || self.read_saved(|s| s.ranked(graph));
        self.ranked.get(graph, saved, || SearchIndex::new(graph))
    }

    /// What `read` reads of the saved indexes, if any are still to read (dropping them once
    /// every section is read or passed over).
    fn read_saved<T>(&self, read: impl FnOnce(&mut Saved) -> Option<T>) -> Option<T> {
        let mut slot = self.saved.borrow_mut();
        let saved = slot.as_mut()?;
        let index = read(saved);
        if saved.is_over() {
            *slot = None;
        }
        index
    }

    /// Reads the indexes saved for the checkpoint the graph was just loaded from, with the
    /// changes since noted in `saved` (and noted on from now on), instead of building them.
    pub(crate) fn expect_saved(&mut self, saved: Saved) {
        self.saved = RefCell::new(Some(saved));
    }

    /// Reads to their end the saved indexes still to read.
    pub fn read_saved_now(&mut self, graph: &Graph) {
        while self.saved.get_mut().is_some() {
            self.warm_saved(graph);
        }
    }

    /// Builds the indexes of `graph` if it has no entity (which costs nothing): the
    /// trigrams, the ranked index, and the vectors if the embedding table was read (it is
    /// not read for them: a browser fetches it over the network).
    pub fn build_if_empty(&self, graph: &Graph) {
        if graph.entity_count() == 0 {
            self.substring(graph);
            self.ranked(graph);
            if self.table.get().is_some_and(Result::is_ok) {
                let _ = self.vectors(graph);
            }
        }
    }

    /// Which indexes are built (ranked, trigrams, vectors), as [`saved::sections`] says
    /// which are saved.
    pub fn built(&self) -> [bool; 3] {
        [
            self.ranked.built().is_some(),
            self.substring.built().is_some(),
            self.vectors.built().is_some(),
        ]
    }

    /// Saves the built indexes of `graph`, whose checkpoint is `checkpoint`, through `sink`
    /// (see [`crate::log::Log::save_indexes`]); with none built, removes what was saved.
    /// Returns whether any was saved.
    pub fn save(
        &self,
        graph: &Graph,
        checkpoint: saved::Checkpoint,
        sink: &mut saved::Sink<'_>,
    ) -> Result<bool, LogError> {
        let (ranked, trigrams) = (self.ranked.built(), self.substring.built());
        saved::write(
            graph,
            checkpoint,
            ranked,
            trigrams,
            self.vectors.built(),
            sink,
        )
    }

    /// Builds a slice of the first index not built yet (the trigram, the ranked, then the
    /// vectors if the host has an embedding table): entities holding about `budget` bytes
    /// of text. Returns `false`, having done nothing, once every index is built. A server
    /// calls it while no message waits, so that the first search after a start or a large
    /// import finds its indexes ready. `graph` must be the graph these indexes observe.
    pub fn warm(&mut self, graph: &Graph, budget: usize) -> bool {
        if self.saved.get_mut().is_some() {
            self.warm_saved(graph);
            return true;
        }
        if self.substring.built().is_none() {
            self.substring.step(graph, budget, SubstringIndex::default);
        } else if self.ranked.built().is_none() {
            self.ranked.step(graph, budget, || SearchIndex::new(graph));
            // Its terms in text order too, which the first prefix or typo search would sort.
            if let Some(index) = self.ranked.built() {
                index.settle();
            }
        } else if self.vectors.built().is_none()
            && let Ok(table) = self.table()
        {
            let table = Rc::clone(table);
            self.vectors
                .step(graph, budget, || VectorIndex::new(graph, table));
        } else {
            return false;
        }
        true
    }

    /// Reads a chunk of the saved indexes (the vectors only with the embedding table);
    /// takes a section read to its end as its index.
    fn warm_saved(&mut self, graph: &Graph) {
        let Some(saved) = self.saved.get_mut() else {
            return;
        };
        // A build under way (a search finished one) wins over the saved section.
        for (kind, under_way) in [
            (Kind::Ranked, self.ranked.under_way()),
            (Kind::Trigrams, self.substring.under_way()),
            (Kind::Vectors, self.vectors.under_way()),
        ] {
            if under_way {
                saved.pass_over(kind);
            }
        }
        let table = || table_of(&self.table, &self.source).ok().cloned();
        match saved.step(graph, table) {
            Step::Read => {}
            Step::Ranked(index) => self.ranked.install(*index),
            Step::Trigrams(index) => self.substring.install(*index),
            Step::Vectors(index) => self.vectors.install(*index),
            Step::Over => *self.saved.get_mut() = None,
        }
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
        self.vectors = Lazy::default();
    }

    /// Makes semantic search read its table from `source` when it first needs it.
    pub fn set_table_source(&mut self, source: TableSource) {
        self.table = OnceCell::new();
        self.source = Some(source).into();
        self.vectors = Lazy::default();
    }

    /// The embedding table (read from its source by the first call), or why there is none.
    pub fn table(&self) -> Result<&Rc<Table>, &NoTable> {
        table_of(&self.table, &self.source)
    }

    /// The entities' vectors (built by the first call after start, a re-pack or a new
    /// table), or why there is no embedding table. `graph` must be the graph these indexes
    /// observe.
    pub fn vectors(&self, graph: &Graph) -> Result<&VectorIndex, &NoTable> {
        let table = self.table()?;
        let saved = || self.read_saved(|s| s.vectors(graph, table));
        Ok(self
            .vectors
            .get(graph, saved, || VectorIndex::new(graph, Rc::clone(table))))
    }

    /// Entities that may contain `needle` (lowercased) in a field, in graph order, or `None`
    /// when the needle is too short to narrow the search (then every entity may).
    pub fn substring_candidates(&self, graph: &Graph, needle: &str) -> Option<Vec<EntityId>> {
        let slots = self.substring(graph).candidates(needle)?;
        Some(slots.into_iter().map(EntityId::from_slot).collect())
    }
}

/// The embedding table in `table`, read from `source` by the first call, or why there is
/// none.
fn table_of<'t>(
    table: &'t OnceCell<Result<Rc<Table>, NoTable>>,
    source: &Cell<Option<TableSource>>,
) -> Result<&'t Rc<Table>, &'t NoTable> {
    let table = table.get_or_init(|| {
        let bytes = source.take().and_then(|source| source());
        let bytes = bytes.ok_or(NoTable::Missing)?;
        Table::parse(bytes)
            .map(Rc::new)
            .map_err(NoTable::Unreadable)
    });
    table.as_ref()
}

impl Observer for Indexes {
    // A build under way is told only of changes to the entities it holds already
    // ([`Lazy::covering`]).

    fn entity_added(&mut self, graph: &Graph, id: EntityId) {
        if let Some(saved) = self.saved.get_mut() {
            saved.touched.entity_added(graph, id);
        }
        // What a build adds for each entity ([`Build::add_all`]).
        let one = || core::iter::once((id, graph.entity(id)));
        if let Some(index) = self.substring.covering(id.slot()) {
            index.add_all(graph, one());
        }
        if let Some(index) = self.ranked.covering(id.slot()) {
            index.add_all(graph, one());
        }
        if let Some(index) = self.vectors.covering(id.slot()) {
            index.add_all(graph, one());
        }
    }

    fn observations_added(&mut self, graph: &Graph, id: EntityId, added: &[Sym]) {
        if let Some(saved) = self.saved.get_mut() {
            saved.touched.observations_added(graph, id, added);
        }
        let s = graph.strings();
        if let Some(index) = self.substring.covering(id.slot()) {
            index.add(id.slot(), added.iter().map(|&o| s.lower(o)));
        }
        if let Some(index) = self.ranked.covering(id.slot()) {
            index.add_observations(id.slot(), added.iter().map(|&o| s.resolve(o)));
        }
        if let Some(index) = self.vectors.covering(id.slot()) {
            index.set(graph, id.slot(), graph.entity(id));
        }
    }

    fn observations_removed(&mut self, graph: &Graph, id: EntityId, removed: &[Sym]) {
        if let Some(saved) = self.saved.get_mut() {
            saved.touched.observations_removed(graph, id, removed);
        }
        let s = graph.strings();
        let kept = graph.entity(id);
        if let Some(index) = self.ranked.covering(id.slot()) {
            let obs = kept.observations.iter().map(|&o| s.resolve(o));
            index.replace_observations(id.slot(), removed.iter().map(|&o| s.resolve(o)), obs);
        }
        if let Some(index) = self.substring.covering(id.slot()) {
            // Unlist the windows that only the removed observations had.
            let still = buckets_of(kept.fields().map(|sym| s.lower(sym)));
            let mut gone = buckets_of(removed.iter().map(|&o| s.lower(o)));
            gone.retain(|g| still.binary_search(g).is_err());
            index.remove(id.slot(), &gone);
        }
        if let Some(index) = self.vectors.covering(id.slot()) {
            index.set(graph, id.slot(), kept);
        }
    }

    fn entity_removed(&mut self, graph: &Graph, id: EntityId, entity: &Entity) {
        if let Some(saved) = self.saved.get_mut() {
            saved.touched.entity_removed(graph, id, entity);
        }
        let s = graph.strings();
        if let Some(index) = self.substring.covering(id.slot()) {
            index.remove(
                id.slot(),
                &buckets_of(entity.fields().map(|sym| s.lower(sym))),
            );
        }
        if let Some(index) = self.ranked.covering(id.slot()) {
            let obs = entity.observations.iter().map(|&o| s.resolve(o));
            let (name, kind) = (s.resolve(entity.name), s.resolve(entity.entity_type));
            index.remove_entity(id.slot(), name, kind, obs);
        }
        if let Some(index) = self.vectors.covering(id.slot()) {
            index.clear(id.slot());
        }
    }

    fn repacked(&mut self) {
        self.reset();
    }
}
