//! The inverted index behind ranked search.
//!
//! Every distinct token (a *term*) has a posting list: its occurrences as (entity arena
//! slot, position), ascending, 8 bytes each, and its number of entities (`df`). A position
//! carries its field in the top two bits, so one sorted list holds name, type and observation positions, and a
//! phrase is adjacent positions in one field. Observations of an entity share one position
//! space with a gap of one between observations, so a phrase never spans two of them, and
//! an observation position also carries the length of its observation (for BM25, which
//! normalises an observation match by the length of the observation, not of all of them:
//! an entity that has gathered many observations is not penalised for it).
//!
//! Terms are found by text through a hash table (exact lookup) and through a list of term
//! ids sorted by text, with each one's first 8 bytes alongside (prefix and typo lookup). New terms wait in a small unsorted list that
//! the next prefix or typo lookup merges in; terms whose last posting goes are dropped from
//! the hash table at once and from the sorted list at that merge, after which their ids are
//! reused.
//!
//! Per entity the index keeps each field's length in tokens (for BM25) and the next free
//! observation position. Changes are applied per entity, never by rebuilding: creating an
//! entity appends to the posting lists of its terms, new observations continue its
//! observation positions, deleting observations re-indexes that entity's observations, and
//! deleting an entity unlists it from the terms its text has. Removed occurrences stay in
//! place as dead postings (see [`DEAD`]): a common term's list holds most entities, and
//! closing the gap would move all the postings after it on every deletion.

use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::RefCell;
use core::hash::BuildHasher;
use core::mem;
use hashbrown::HashTable;

use super::text::tokens;
use crate::graph::{Entity, EntityId, Graph};
use crate::hash::Hasher;
use crate::index::lazy::Build;

/// The name field.
pub const NAME: usize = 0;
/// The entity-type field.
pub const TYPE: usize = 1;
/// The observations field (all observations of an entity).
pub const OBS: usize = 2;
/// Number of fields.
pub const FIELDS: usize = 3;

const FIELD_SHIFT: u32 = 30;
const LEN_SHIFT: u32 = 22;
const LEN_MAX: u32 = (1 << (FIELD_SHIFT - LEN_SHIFT)) - 1;
const POS_MAX: u32 = (1 << LEN_SHIFT) - 2;

/// A position: `field` in the top 2 bits, then (for observations) the observation's length
/// in 8 bits, then the token's number within the field in 22 bits.
pub(crate) fn position(field: usize, n: u32) -> u32 {
    (field as u32) << FIELD_SHIFT | n.min(POS_MAX)
}

/// The field of a position.
pub(crate) fn field_of(pos: u32) -> usize {
    (pos >> FIELD_SHIFT) as usize
}

/// The length in tokens of the observation an observation position is in (at most 255).
pub(crate) fn obs_len_of(pos: u32) -> u32 {
    (pos >> LEN_SHIFT) & LEN_MAX
}

/// One occurrence of a term: a posting. A term's postings are sorted by entity, then
/// position, so an entity's occurrences are a run. Saved indexes hold them as they lie in
/// memory (`repr(C)`, little-endian).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub(crate) struct Occ {
    /// The entity's arena slot.
    pub(crate) doc: u32,
    /// See [`position`].
    pub(crate) pos: u32,
}

/// The position of a dead posting: an occurrence whose text was removed. It keeps its place
/// in its entity's run (at the run's end: it sorts after every real position, whose field
/// is never 3), so removing text shifts no other postings; a term's list is compacted once
/// half of it is dead. Readers see runs through [`live`].
pub(crate) const DEAD: u32 = u32::MAX;

/// The live postings of a run (its dead ones are at its end).
pub(crate) fn live(run: &[Occ]) -> &[Occ] {
    &run[..run.partition_point(|o| o.pos != DEAD)]
}

/// A distinct token and where it occurs.
pub(crate) struct Term {
    pub(crate) text: Box<str>,
    pub(crate) postings: Vec<Occ>,
    /// Number of entities with a live posting in `postings`.
    pub(crate) df: u32,
    /// Number of dead postings in `postings`.
    pub(crate) dead: u32,
}

impl Term {
    fn new(text: &str) -> Term {
        Term {
            text: text.into(),
            postings: Vec::new(),
            df: 0,
            dead: 0,
        }
    }

    /// A term as saved indexes restate it: its live postings, in order, of `df` entities.
    pub(crate) fn saved(text: Box<str>, postings: Vec<Occ>, df: u32) -> Term {
        Term {
            text,
            postings,
            df,
            dead: 0,
        }
    }

    /// Makes `doc`'s run (`run`, found by [`run_of`]) hold exactly `positions` (sorted,
    /// distinct): in place when they fit, the rest of the run dead, else by splicing. Keeps
    /// `df` and `dead`; compacts the list once half of it is dead (so each dead posting
    /// costs O(1), amortized). Returns whether the term lost its last entity.
    fn set_run(&mut self, doc: u32, run: core::ops::Range<usize>, positions: &[u32]) -> bool {
        let list = &mut self.postings;
        let (len, was_live) = (run.len(), live(&list[run.clone()]).len());
        let occs = positions.iter().map(|&pos| Occ { doc, pos });
        if positions.len() <= len {
            let dead = core::iter::repeat(Occ { doc, pos: DEAD });
            for (slot, o) in list[run].iter_mut().zip(occs.chain(dead)) {
                *slot = o;
            }
            self.dead = self.dead + (len - positions.len()) as u32 - (len - was_live) as u32;
        } else {
            list.splice(run, occs);
            self.dead -= (len - was_live) as u32;
        }
        if self.dead as usize * 2 > self.postings.len() {
            self.postings.retain(|o| o.pos != DEAD);
            self.dead = 0;
        }
        match (was_live > 0, !positions.is_empty()) {
            (false, true) => self.df += 1,
            (true, false) => {
                self.df -= 1;
                return self.df == 0;
            }
            _ => {}
        }
        false
    }
}

/// The range of `doc`'s run in postings. The list is in entity order and a common term's
/// entities are spread over the slots, so the search starts where `doc`'s share of the last
/// slot points and gallops from there: a few probes close together, where a binary search
/// over a list of 40K postings missed the cache at each of its 16 steps, twice (it was 97%
/// of deleting an observation's index update).
fn run_of(list: &[Occ], doc: u32) -> core::ops::Range<usize> {
    let Some(last) = list.last() else {
        return 0..0;
    };
    let guess = u64::from(doc) * list.len() as u64 / (u64::from(last.doc) + 1);
    let (mut from, mut step) = ((guess as usize).min(list.len()), 1);
    // Back until the posting before `from` is of an earlier entity, doubling the step.
    while from > 0 && list[from - 1].doc >= doc {
        from = from.saturating_sub(step);
        step *= 2;
    }
    let lo = gallop(list, from, doc, |o| o.doc);
    let hi = lo + list[lo..].iter().take_while(|o| o.doc == doc).count();
    lo..hi
}

/// Index of the first element at or after `from` whose key is `>= key` (galloping).
pub(crate) fn gallop<T>(list: &[T], from: usize, key: u32, k: impl Fn(&T) -> u32) -> usize {
    let mut lo = from;
    let mut step = 1;
    let mut hi = from;
    while hi < list.len() && k(&list[hi]) < key {
        lo = hi + 1;
        hi += step;
        step *= 2;
    }
    let hi = hi.min(list.len());
    lo + list[lo..hi].partition_point(|x| k(x) < key)
}

/// Per-entity figures.
#[derive(Clone, Copy, Default)]
pub(crate) struct Doc {
    /// Tokens in each field.
    pub(crate) len: [u32; FIELDS],
    /// The position the next observation starts at.
    pub(crate) next_obs: u32,
    /// Observations with at least one token.
    pub(crate) obs_count: u32,
    /// Whether the slot holds an indexed entity.
    pub(crate) live: bool,
}

impl Doc {
    /// A live entity's figures as saved indexes restate them.
    pub(crate) fn saved(len: [u32; FIELDS], next_obs: u32, obs_count: u32) -> Doc {
        Doc {
            len,
            next_obs,
            obs_count,
            live: true,
        }
    }
}

/// Term ids in text order, maintained lazily.
#[derive(Default)]
struct Order {
    sorted: Vec<u32>,
    /// The first 8 bytes of each sorted term, big-endian, zero-padded (no term holds a
    /// zero byte, so these keys are in the same order): prefix ranges of up to 8 bytes are
    /// found without reading the terms.
    keys: Vec<u64>,
    /// New terms, not yet in `sorted`.
    pending: Vec<u32>,
    /// Terms whose postings emptied, still in `sorted` or `pending`.
    dead: Vec<u32>,
    /// Ids free for new terms.
    free: Vec<u32>,
}

/// The ranked-search index of a graph. Built by the first search after start (or after the
/// graph re-packs its arenas) and kept up to date by [`Graph::apply`].
#[derive(Default)]
pub struct SearchIndex {
    pub(crate) terms: Vec<Term>,
    table: HashTable<u32>,
    hasher: Hasher,
    order: RefCell<Order>,
    pub(crate) docs: Vec<Doc>,
    /// Number of live entities.
    pub(crate) live: u32,
    /// Sum of each field's length over live entities.
    pub(crate) total_len: [u64; FIELDS],
    /// Observations (with a token) of live entities.
    pub(crate) total_obs: u64,
    /// Occurrences being collected: term id << 32 | position.
    occ: Vec<u64>,
    buf: String,
}

impl Build for SearchIndex {
    fn add_all<'g>(
        &mut self,
        graph: &'g Graph,
        entities: impl Iterator<Item = (EntityId, &'g Entity)>,
    ) {
        for (id, e) in entities {
            self.add_entity(
                id.slot(),
                graph.text(e.name),
                graph.text(e.entity_type),
                e.observations.iter().map(|&o| graph.text(o)),
            );
        }
    }
}

impl SearchIndex {
    /// Indexes every entity of `graph`.
    #[inline(never)]
    pub fn build(graph: &Graph) -> SearchIndex {
        let mut index = SearchIndex::new(graph);
        index.add_all(graph, graph.entities());
        index
    }

    /// An index of no entity yet, sized for `graph`'s (grown with [`Build::add_all`]).
    pub fn new(graph: &Graph) -> SearchIndex {
        let mut index = SearchIndex::default();
        let slots = graph.entities().last().map_or(0, |(id, _)| id.slot() + 1);
        index.docs.reserve(slots as usize);
        index
    }

    /// The index saved indexes restate: `terms` in text order (strictly), `docs` the
    /// entities (all live), the fields' total lengths and the observations. `Err` if the
    /// terms are not in order or the figures do not add up.
    pub(crate) fn saved(
        terms: Vec<Term>,
        docs: Vec<Doc>,
        total_len: [u64; FIELDS],
        total_obs: u64,
    ) -> Result<SearchIndex, &'static str> {
        if terms.windows(2).any(|t| t[0].text >= t[1].text) {
            return Err("terms out of order");
        }
        let sums = docs
            .iter()
            .fold(([0u64; FIELDS], 0u64), |(mut len, obs), d| {
                for (sum, &l) in len.iter_mut().zip(&d.len) {
                    *sum += u64::from(l);
                }
                (len, obs + u64::from(d.obs_count))
            });
        if sums != (total_len, total_obs) {
            return Err("entities' figures that do not add up");
        }
        let mut index = SearchIndex {
            live: docs.len() as u32,
            docs,
            total_len,
            total_obs,
            ..SearchIndex::default()
        };
        let (table, hasher) = (&mut index.table, &index.hasher);
        table.reserve(terms.len(), |&i| hasher.hash_one(&*terms[i as usize].text));
        for (id, term) in terms.iter().enumerate() {
            let hash = hasher.hash_one(&*term.text);
            table.insert_unique(hash, id as u32, |&i| {
                hasher.hash_one(&*terms[i as usize].text)
            });
        }
        let order = index.order.get_mut();
        order.sorted = (0..terms.len() as u32).collect();
        order.keys = terms.iter().map(|t| key8(&t.text)).collect();
        index.terms = terms;
        Ok(index)
    }

    /// Number of indexed entities.
    pub fn len(&self) -> usize {
        self.live as usize
    }

    /// True when no entity is indexed.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Number of distinct terms.
    pub fn term_count(&self) -> usize {
        self.table.len()
    }

    /// The id of the term with this (folded) text.
    pub(crate) fn term(&self, text: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(text);
        let terms = &self.terms;
        self.table
            .find(hash, |&id| &*terms[id as usize].text == text)
            .copied()
    }

    fn intern(&mut self, text: &str) -> u32 {
        if let Some(id) = self.term(text) {
            return id;
        }
        let order = self.order.get_mut();
        let term = Term::new(text);
        let id = match order.free.pop() {
            Some(id) => {
                self.terms[id as usize] = term;
                id
            }
            None => {
                self.terms.push(term);
                (self.terms.len() - 1) as u32
            }
        };
        order.pending.push(id);
        let hash = self.hasher.hash_one(text);
        let (terms, hasher) = (&self.terms, &self.hasher);
        self.table
            .insert_unique(hash, id, |&i| hasher.hash_one(&*terms[i as usize].text));
        id
    }

    /// A term lost its last posting.
    fn kill(&mut self, id: u32) {
        let term = &mut self.terms[id as usize];
        term.postings = Vec::new();
        term.dead = 0;
        let hash = self.hasher.hash_one(&*term.text);
        if let Ok(entry) = self.table.find_entry(hash, |&i| i == id) {
            entry.remove();
        }
        self.order.get_mut().dead.push(id);
    }

    /// Adds (term, position) for each token of `text` in `field` from position `start` to
    /// `self.occ`; returns the number of tokens.
    fn collect(&mut self, field: usize, start: u32, text: &str) -> u32 {
        let mut buf = mem::take(&mut self.buf);
        let mut occ = mem::take(&mut self.occ);
        let mut n = 0u32;
        let before = occ.len();
        tokens(text, &mut buf, &mut |tok| {
            let id = self.intern(tok);
            let pos = position(field, start.saturating_add(n));
            occ.push(u64::from(id) << 32 | u64::from(pos));
            n += 1;
        });
        if field == OBS {
            for o in &mut occ[before..] {
                *o |= u64::from(n.min(LEN_MAX) << LEN_SHIFT);
            }
        }
        self.buf = buf;
        self.occ = occ;
        n
    }

    /// Lists `doc` under the terms collected in `self.occ`, and clears it.
    fn post(&mut self, doc: u32) {
        let mut occ = mem::take(&mut self.occ);
        super::sort::by_u64(&mut occ, |&o| o);
        let mut i = 0;
        while i < occ.len() {
            let id = (occ[i] >> 32) as u32;
            let from = i;
            while i < occ.len() && (occ[i] >> 32) as u32 == id {
                i += 1;
            }
            let group = occ[from..i].iter().map(|&o| o as u32);
            let term = &mut self.terms[id as usize];
            let list = &mut term.postings;
            if list.last().is_none_or(|last| last.doc < doc) {
                // The newest entity: the common case.
                list.extend(group.map(|pos| Occ { doc, pos }));
                term.df += 1;
                continue;
            }
            // An older entity gaining text: merge into its run, keeping the order.
            self.rewrite_run(id, doc, |_| true, group);
        }
        occ.clear();
        self.occ = occ;
    }

    /// The distinct existing terms of these texts.
    fn terms_of<'a>(&mut self, texts: impl IntoIterator<Item = &'a str>) -> Vec<u32> {
        let mut buf = mem::take(&mut self.buf);
        let mut ids = Vec::new();
        for text in texts {
            tokens(text, &mut buf, &mut |tok| ids.extend(self.term(tok)));
        }
        self.buf = buf;
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    fn doc_mut(&mut self, slot: u32) -> &mut Doc {
        let i = slot as usize;
        if self.docs.len() <= i {
            self.docs.resize(i + 1, Doc::default());
        }
        &mut self.docs[i]
    }

    /// Indexes a new entity.
    #[inline(never)] // out of `Graph::apply`, which replay runs hot
    pub(crate) fn add_entity<'a>(
        &mut self,
        slot: u32,
        name: &str,
        entity_type: &str,
        observations: impl IntoIterator<Item = &'a str>,
    ) {
        if self.doc_mut(slot).live {
            return;
        }
        let name_len = self.collect(NAME, 0, name);
        let type_len = self.collect(TYPE, 0, entity_type);
        let mut doc = Doc {
            len: [name_len, type_len, 0],
            next_obs: 0,
            obs_count: 0,
            live: true,
        };
        self.collect_observations(&mut doc, observations);
        for f in 0..FIELDS {
            self.total_len[f] += doc.len[f] as u64;
        }
        self.total_obs += doc.obs_count as u64;
        self.live += 1;
        *self.doc_mut(slot) = doc;
        self.post(slot);
    }

    /// Collects the tokens of observations added to `doc`.
    fn collect_observations<'a>(
        &mut self,
        doc: &mut Doc,
        observations: impl IntoIterator<Item = &'a str>,
    ) {
        for text in observations {
            let n = self.collect(OBS, doc.next_obs, text);
            doc.len[OBS] += n;
            doc.obs_count += u32::from(n > 0);
            doc.next_obs = doc.next_obs.saturating_add(n + 1);
        }
    }

    /// Indexes observations added to an entity.
    #[inline(never)] // out of `Graph::apply`, which replay runs hot
    pub(crate) fn add_observations<'a>(
        &mut self,
        slot: u32,
        observations: impl IntoIterator<Item = &'a str>,
    ) {
        let mut doc = *self.doc_mut(slot);
        if !doc.live {
            return;
        }
        let (len, count) = (doc.len[OBS], doc.obs_count);
        self.collect_observations(&mut doc, observations);
        self.total_len[OBS] += (doc.len[OBS] - len) as u64;
        self.total_obs += (doc.obs_count - count) as u64;
        *self.doc_mut(slot) = doc;
        self.post(slot);
    }

    /// Re-indexes an entity's observations after `removed` were deleted and `kept` remain:
    /// the kept ones are numbered from the first position again, as indexing them afresh
    /// would. A term whose run of occurrences keeps its length is rewritten in place, so
    /// only the terms of the removed text shift their (possibly long) postings.
    #[inline(never)] // out of `Graph::apply`, which replay runs hot
    pub(crate) fn replace_observations<'a>(
        &mut self,
        slot: u32,
        removed: impl IntoIterator<Item = &'a str>,
        kept: impl Iterator<Item = &'a str>,
    ) {
        let doc = *self.doc_mut(slot);
        if !doc.live {
            return;
        }
        // The kept text's terms come from collecting it again (below).
        let mut ids = self.terms_of(removed);
        let mut fresh = Doc {
            len: [doc.len[NAME], doc.len[TYPE], 0],
            next_obs: 0,
            obs_count: 0,
            live: true,
        };
        self.collect_observations(&mut fresh, kept);
        let mut occ = mem::take(&mut self.occ);
        super::sort::by_u64(&mut occ, |&o| o);
        ids.extend(occ.iter().map(|&o| (o >> 32) as u32));
        ids.sort_unstable();
        ids.dedup();
        let mut new_occ = occ.iter().peekable();
        for id in ids {
            let mut obs = Vec::new();
            while let Some(&&o) = new_occ.peek().filter(|&&&o| (o >> 32) as u32 == id) {
                obs.push(o as u32);
                new_occ.next();
            }
            self.rewrite_run(id, slot, |p| field_of(p) != OBS, obs);
        }
        occ.clear();
        self.occ = occ;
        self.total_len[OBS] -= u64::from(doc.len[OBS]);
        self.total_len[OBS] += u64::from(fresh.len[OBS]);
        self.total_obs -= u64::from(doc.obs_count);
        self.total_obs += u64::from(fresh.obs_count);
        *self.doc_mut(slot) = fresh;
    }

    /// Makes `doc`'s positions under term `id` its live ones that `keep` keeps, plus
    /// `added`; drops the term once no entity has it.
    fn rewrite_run(
        &mut self,
        id: u32,
        doc: u32,
        keep: impl Fn(u32) -> bool,
        added: impl IntoIterator<Item = u32>,
    ) {
        let term = &mut self.terms[id as usize];
        let run = run_of(&term.postings, doc);
        let mut positions: Vec<u32> = (live(&term.postings[run.clone()]).iter())
            .map(|o| o.pos)
            .filter(|&p| keep(p))
            .chain(added)
            .collect();
        positions.sort_unstable();
        positions.dedup();
        if term.set_run(doc, run, &positions) {
            self.kill(id);
        }
    }

    /// Unindexes a deleted entity, given its text.
    #[inline(never)] // out of `Graph::apply`, which replay runs hot
    pub(crate) fn remove_entity<'a>(
        &mut self,
        slot: u32,
        name: &'a str,
        entity_type: &'a str,
        observations: impl IntoIterator<Item = &'a str>,
    ) {
        let doc = *self.doc_mut(slot);
        if !doc.live {
            return;
        }
        let texts = [name, entity_type].into_iter().chain(observations);
        for id in self.terms_of(texts) {
            self.rewrite_run(id, slot, |_| false, []);
        }
        for f in 0..FIELDS {
            self.total_len[f] -= doc.len[f] as u64;
        }
        self.total_obs -= doc.obs_count as u64;
        self.live -= 1;
        *self.doc_mut(slot) = Doc::default();
    }

    /// Calls `f` with every term id in text order and their keys (see [`key8`]), merging
    /// new terms in first.
    pub(crate) fn with_sorted<R>(&self, f: impl FnOnce(&[u32], &[u64]) -> R) -> R {
        self.settle();
        let order = self.order.borrow();
        f(&order.sorted, &order.keys)
    }

    /// Sorts the terms added since the last search into text order (which the next prefix
    /// or typo search would otherwise do).
    pub fn settle(&self) {
        self.order.borrow_mut().settle(&self.terms);
    }

    /// Live terms starting with `prefix` (other than `prefix` itself), in text order, at
    /// most `scan` of them.
    pub(crate) fn prefixed(&self, prefix: &str, scan: usize) -> Vec<u32> {
        self.with_sorted(|sorted, _| {
            let at = sorted.partition_point(|&id| &*self.terms[id as usize].text <= prefix);
            sorted[at..]
                .iter()
                .take_while(|&&id| self.terms[id as usize].text.starts_with(prefix))
                .take(scan)
                .copied()
                .collect()
        })
    }

    /// Heap bytes held by the index (an estimate from capacities).
    pub fn heap_bytes(&self) -> usize {
        let order = self.order.borrow();
        let terms: usize = self
            .terms
            .iter()
            .map(|t| t.text.len() + t.postings.capacity() * mem::size_of::<Occ>())
            .sum();
        terms
            + self.terms.capacity() * mem::size_of::<Term>()
            + self.table.capacity() * (mem::size_of::<u32>() + 1)
            + self.docs.capacity() * mem::size_of::<Doc>()
            + (order.sorted.capacity() + order.pending.capacity()) * 4
    }
}

/// The first 8 bytes of a text, big-endian, zero-padded.
pub(crate) fn key8(text: &str) -> u64 {
    let mut b = [0u8; 8];
    let n = text.len().min(8);
    b[..n].copy_from_slice(&text.as_bytes()[..n]);
    u64::from_be_bytes(b)
}

impl Order {
    /// Drops dead terms from the order and merges pending ones in.
    fn settle(&mut self, terms: &[Term]) {
        if !self.dead.is_empty() {
            self.dead.sort_unstable();
            let dead = &self.dead;
            let live = |id: &u32| dead.binary_search(id).is_err();
            let mut kept = 0;
            for at in 0..self.sorted.len() {
                if live(&self.sorted[at]) {
                    self.sorted[kept] = self.sorted[at];
                    self.keys[kept] = self.keys[at];
                    kept += 1;
                }
            }
            self.sorted.truncate(kept);
            self.keys.truncate(kept);
            self.pending.retain(live);
            self.free.append(&mut self.dead);
        }
        if self.pending.is_empty() {
            return;
        }
        let text = |id: u32| &*terms[id as usize].text;
        let mut pending = mem::take(&mut self.pending);
        // By key, then by text among terms sharing their first 8 bytes.
        let mut keyed: Vec<(u64, u32)> = pending.iter().map(|&id| (key8(text(id)), id)).collect();
        super::sort::by_u64(&mut keyed, |k| k.0);
        super::sort::insertion(&mut keyed, |a, b| a.0 == b.0 && text(a.1) < text(b.1));
        pending.clear();
        pending.extend(keyed.iter().map(|k| k.1));
        let mut out = Vec::with_capacity(self.sorted.len() + pending.len());
        let mut keys = Vec::with_capacity(out.capacity());
        let mut from = 0;
        for &p in &pending {
            let at = from + self.sorted[from..].partition_point(|&id| text(id) < text(p));
            out.extend_from_slice(&self.sorted[from..at]);
            keys.extend_from_slice(&self.keys[from..at]);
            out.push(p);
            keys.push(key8(text(p)));
            from = at;
        }
        out.extend_from_slice(&self.sorted[from..]);
        keys.extend_from_slice(&self.keys[from..]);
        self.sorted = out;
        self.keys = keys;
        pending.clear();
        self.pending = pending;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_the_first_not_below() {
        let v = [1u32, 3, 5, 7, 9, 11];
        for key in 0..13 {
            for from in 0..v.len() {
                let want = from + v[from..].partition_point(|&x| x < key);
                assert_eq!(gallop(&v, from, key, |&x| x), want);
            }
        }
    }

    #[test]
    fn run_of_finds_a_run_wherever_the_entities_cluster() {
        // Runs of 1-3 postings; entities spread evenly, bunched at the start, and bunched
        // at the end (where the guess from the last slot lands far off).
        let docs: [Vec<u32>; 3] = [
            (0..200).step_by(2).collect(),
            (0..50).chain([10_000]).collect(),
            [0].into_iter().chain(9_000..9_050).collect(),
        ];
        for docs in docs {
            let list: Vec<Occ> = docs
                .iter()
                .flat_map(|&doc| (0..1 + doc % 3).map(move |pos| Occ { doc, pos }))
                .collect();
            for doc in 0..=10_001 {
                let lo = list.partition_point(|o| o.doc < doc);
                let hi = list.partition_point(|o| o.doc <= doc);
                assert_eq!(run_of(&list, doc), lo..hi, "doc {doc}");
            }
        }
        assert_eq!(run_of(&[], 3), 0..0);
    }

    /// 100 entities whose one observation holds the term "shared".
    fn shared_by_100() -> (SearchIndex, u32) {
        let mut index = SearchIndex::default();
        for slot in 0..100 {
            index.add_entity(slot, "e", "t", ["shared word"]);
        }
        let id = index.term("shared").expect("indexed");
        (index, id)
    }

    #[test]
    fn removed_text_leaves_dead_postings_in_place_until_half_the_list_is_dead() {
        let (mut index, id) = shared_by_100();
        let before: Vec<Occ> = index.terms[id as usize].postings[1..].to_vec();
        index.replace_observations(0, ["shared word"], core::iter::empty());
        let term = &index.terms[id as usize];
        assert_eq!(
            term.postings[0].pos, DEAD,
            "the removed occurrence stays, dead"
        );
        assert_eq!(term.postings[1..], before[..], "no other posting moved");
        assert_eq!((term.df, term.dead), (99, 1));
        for slot in 1..50 {
            index.remove_entity(slot, "e", "t", ["shared word"]);
        }
        assert_eq!(
            index.terms[id as usize].postings.len(),
            100,
            "half dead: kept"
        );
        index.remove_entity(50, "e", "t", ["shared word"]);
        let term = &index.terms[id as usize];
        assert_eq!((term.postings.len(), term.df, term.dead), (49, 49, 0));
        assert!(term.postings.iter().all(|o| o.doc > 50 && o.pos != DEAD));
    }

    #[test]
    fn text_added_to_an_entity_fills_its_dead_postings_first() {
        let (mut index, id) = shared_by_100();
        index.replace_observations(7, ["shared word"], core::iter::empty());
        index.add_observations(7, ["shared again"]);
        let term = &index.terms[id as usize];
        assert_eq!((term.postings.len(), term.df, term.dead), (100, 100, 0));
        assert_ne!(term.postings[7].pos, DEAD);
    }
}
