//! The graph as a [`Checkpoint`] and back, and replay from a log's last checkpoint.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use super::Reflection;
use super::{AgentSyms, Ended, Entity, EntityId, Extra, FactMeta, Graph, Observer, Past};
use super::{Relation, RelationId, Target};
use crate::intern::Sym;
use crate::model::Millis;
use crate::record::{
    AgentRow, CHECKPOINT, DecodeError, EntityRow, Entry, FactRow, Op, OptStr, Part, Record,
    ReflectionRow, RelationRow, Str, TargetRow, Visit, is_checkpoint, read_checkpoint,
};
use serde::ser::{SerializeSeq, SerializeTuple};
use serde::{Serialize, Serializer};

/// What [`Graph::replay`] built.
pub struct Replayed {
    /// The graph the entries build.
    pub graph: Graph,
    /// A checkpoint that could not be read (its position and why), if replay started
    /// before it instead: the user should hear of it.
    pub unread_checkpoint: Option<(usize, DecodeError)>,
    /// The position of the checkpoint replay started from and the entities it held, if it
    /// started from one.
    pub checkpoint: Option<(usize, u32)>,
}

impl Graph {
    /// The graph a log's entries build: its last checkpoint loaded, then the changes after
    /// it applied. A last checkpoint that cannot be read is passed over: the entries before
    /// it build the same state (unless it is the first entry, which nothing before restates).
    /// `Err` names the first entry that cannot be read.
    pub fn replay<B: AsRef<[u8]>>(entries: &[B]) -> Result<Replayed, (usize, DecodeError)> {
        Graph::replay_observed(entries, &mut ())
    }

    /// [`Graph::replay`], telling `observer` of the changes applied after the checkpoint it
    /// starts from (of none if it starts from none).
    pub fn replay_observed<B: AsRef<[u8]>>(
        entries: &[B],
        observer: &mut impl Observer,
    ) -> Result<Replayed, (usize, DecodeError)> {
        let last = entries.iter().rposition(|e| is_checkpoint(e.as_ref()));
        let (mut graph, start, unread_checkpoint) = match last {
            None => (Graph::default(), 0, None),
            Some(at) => match Graph::from_checkpoint(entries[at].as_ref()) {
                Ok(g) => (g, at + 1, None),
                Err(e) if at == 0 => return Err((0, e)),
                Err(e) => (Graph::default(), 0, Some((at, e))),
            },
        };
        let checkpoint = (start.checked_sub(1)).map(|at| (at, graph.entity_count() as u32));
        for (index, bytes) in entries.iter().enumerate().skip(start) {
            match checkpoint {
                Some(_) => graph.apply_entry_observed(index, bytes.as_ref(), observer),
                None => graph.apply_entry(index, bytes.as_ref()),
            }
            .map_err(|e| (index, e))?;
        }
        Ok(Replayed {
            graph,
            unread_checkpoint,
            checkpoint,
        })
    }

    /// Applies entry `index` of a log read in order, from its first: a change, or a
    /// checkpoint, which is the state as the log's first entry and otherwise restates what
    /// the entries before it built (and is skipped unread).
    pub fn apply_entry(&mut self, index: usize, bytes: &[u8]) -> Result<(), DecodeError> {
        self.apply_entry_observed(index, bytes, &mut ())
    }

    /// [`Graph::apply_entry`], telling `observer` of a change.
    fn apply_entry_observed(
        &mut self,
        index: usize,
        bytes: &[u8],
        observer: &mut impl Observer,
    ) -> Result<(), DecodeError> {
        match Entry::decode(bytes)? {
            Entry::Change(record) => self.apply(&record, observer),
            Entry::Checkpoint if index == 0 => {
                *self = Graph::from_checkpoint(bytes)?;
            }
            Entry::Checkpoint => {}
        }
        Ok(())
    }

    /// The graph as a checkpoint entry's bytes: the bytes [`Checkpoint::encode`] gives for
    /// it, written straight from the graph (no rows are held besides the entry) into a
    /// buffer of their exact size.
    pub fn checkpoint(&self) -> Vec<u8> {
        let out = CheckpointOut::new(self);
        let size = postcard::serialize_with_flavor(&out, postcard::ser_flavors::Size::default())
            .expect("checkpoints always serialize");
        postcard::to_extend(&out, Vec::with_capacity(size)).expect("checkpoints always serialize")
    }

    /// The graph a checkpoint entry restates, built as the entry is read (no rows are
    /// held). `Err` if the entry cannot be read, or names a string it does not hold, or its
    /// entities' counts do not add up to the observations and tags it lists.
    pub fn from_checkpoint(bytes: &[u8]) -> Result<Graph, DecodeError> {
        let mut loader = Loader {
            g: Graph::default(),
            held: Vec::new(),
            due: Vec::new(),
            // A fact takes at least six bytes and a tag one, which bounds what the
            // entities' counts may announce before the lists are reached.
            room: [bytes.len() as u64 / 6, bytes.len() as u64],
            owners: [0, 0],
        };
        read_checkpoint(bytes, &mut loader)?;
        Ok(loader.finish())
    }
}

/// Builds a graph from a checkpoint's rows as they are read.
struct Loader {
    g: Graph,
    /// Each checkpoint string's handle (interned with one reference, for loading) and how
    /// many references the rows make to it (side by side: one cache miss a reference).
    held: Vec<(Sym, u32)>,
    /// Each entity's observations (current, then past) and tags still to come.
    due: Vec<Due>,
    /// How many more facts and tags the entities may announce.
    room: [u64; 2],
    /// The entity the next fact belongs to, and the entity the next tag does.
    owners: [usize; 2],
}

/// An entity's rows still to come.
#[derive(Clone, Copy)]
struct Due {
    current: u32,
    past: u32,
    tags: u32,
}

const UNHELD: &str = "a row naming a string the checkpoint does not hold";
const UNCOUNTED: &str = "entities whose counts do not add up to the observations and tags listed";

impl Loader {
    /// The handle of string `s`, counting the reference.
    fn sym(&mut self, s: Str) -> Result<Sym, &'static str> {
        let (sym, uses) = self.held.get_mut(s as usize).ok_or(UNHELD)?;
        *uses += 1;
        Ok(*sym)
    }

    fn opt(&mut self, s: OptStr) -> Result<Option<Sym>, &'static str> {
        s.checked_sub(1).map(|s| self.sym(s)).transpose()
    }

    fn relation(&mut self, r: RelationRow) -> Result<Relation, &'static str> {
        Ok(Relation {
            from: self.sym(r.from)?,
            to: self.sym(r.to)?,
            relation_type: self.sym(r.relation_type)?,
            created: r.created,
            context: self.opt(r.context)?,
        })
    }

    fn fact_meta(&mut self, f: &FactRow) -> Result<FactMeta, &'static str> {
        Ok(FactMeta {
            id: f.id,
            supersedes: f.supersedes,
            kind: self.opt(f.kind)?,
            created: f.created,
        })
    }

    /// The entity whose rows of kind `k` (0: facts, 1: tags) come next: the first from
    /// the last owner on with some still due (the part's length was checked against the
    /// counts, so there is one).
    fn owner(&mut self, k: usize, due: impl Fn(&Due) -> bool) -> usize {
        while !due(&self.due[self.owners[k]]) {
            self.owners[k] += 1;
        }
        self.owners[k]
    }

    fn entity_mut(&mut self, at: usize) -> &mut Entity {
        self.g.entities[at]
            .as_mut()
            .expect("a loading graph's entities are all live")
    }

    /// The graph, each string holding the references its rows made, and its endpoint
    /// lists.
    fn finish(self) -> Graph {
        let Loader { mut g, held, .. } = self;
        for (sym, uses) in held {
            match uses {
                0 => g.strings.release(sym),
                n => g.strings.add_refs(sym, n - 1),
            }
        }
        g.entity_count = g.entities.len();
        g.relation_count = g.relations.len();
        // Each endpoint's list is gathered into one array sorted by the string's slot (a
        // counting sort), then copied out in slot order: no list grows, and the map is
        // filled front to back.
        let ends = |r: &Relation| [Some(r.from), (r.to != r.from).then_some(r.to)];
        let slots = g.strings.slots();
        let mut start = vec![0u32; slots + 1];
        for sym in g.relations.iter().flatten().flat_map(ends).flatten() {
            start[sym.index() + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        let mut sorted = vec![RelationId(0); start[slots] as usize];
        for (id, r) in g.relations.iter().flatten().enumerate() {
            for sym in ends(r).into_iter().flatten() {
                sorted[next[sym.index()] as usize] = RelationId(id as u32);
                next[sym.index()] += 1;
            }
        }
        g.by_endpoint
            .reserve(start.windows(2).filter(|w| w[1] > w[0]).count());
        for (slot, w) in start.windows(2).enumerate() {
            if w[1] > w[0] {
                let ids = sorted[w[0] as usize..w[1] as usize].to_vec();
                *g.by_endpoint.get_or_default(g.strings.sym_at(slot)) = ids;
            }
        }
        g
    }
}

impl<'a> Visit<'a> for Loader {
    fn strings(&mut self, strings: Vec<&'a str>, last_at: Millis) {
        self.g.strings.reserve(strings.len());
        self.held = strings
            .iter()
            .map(|t| (self.g.strings.intern(t), 0))
            .collect();
        self.g.last_at = last_at;
    }

    fn part(&mut self, part: Part, len: usize) -> Result<(), &'static str> {
        let sum = |f: fn(&Due) -> u32| self.due.iter().map(|d| u64::from(f(d))).sum::<u64>();
        match part {
            Part::Entities => {
                self.g.entities.reserve(len);
                self.g.by_name.reserve(len);
                self.due.reserve(len);
            }
            Part::Facts if sum(|d| d.current) + sum(|d| d.past) != len as u64 => {
                return Err(UNCOUNTED);
            }
            Part::Tags if sum(|d| d.tags) != len as u64 => return Err(UNCOUNTED),
            Part::Relations => self.g.relations.reserve(len),
            _ => {}
        }
        Ok(())
    }

    fn agent(&mut self, a: AgentRow) -> Result<(), &'static str> {
        let agent = AgentSyms {
            client: self.sym(a.client)?,
            version: self.sym(a.version)?,
            session: self.sym(a.session)?,
            actor: self.opt(a.actor)?,
        };
        let id = self.g.agents.len() as u32;
        self.g.agents.push(agent);
        self.g.agent_ids.entry(agent).or_insert(id);
        Ok(())
    }

    fn entity(&mut self, e: EntityRow) -> Result<(), &'static str> {
        let facts = u64::from(e.current) + u64::from(e.past);
        let tags = u64::from(e.tags);
        if facts > self.room[0] || tags > self.room[1] {
            return Err(UNCOUNTED);
        }
        self.room[0] -= facts;
        self.room[1] -= tags;
        let name = self.sym(e.name)?;
        let entity_type = self.sym(e.entity_type)?;
        let extra = Extra {
            tags: Vec::with_capacity(e.tags as usize),
            importance: e.importance,
            parent: self.opt(e.parent)?,
            status: self.opt(e.status)?,
            past: Vec::with_capacity(e.past as usize),
        };
        let has_extra = e.tags > 0 || e.past > 0 || !extra.is_empty();
        let id = EntityId(self.g.entities.len() as u32);
        let n = e.current as usize;
        self.g.entities.push(Some(Entity {
            name,
            entity_type,
            observations: Vec::with_capacity(n),
            facts: Vec::with_capacity(n),
            created: e.created,
            updated: e.updated,
            next_fact: e.next_fact,
            extra: has_extra.then(|| Box::new(extra)),
        }));
        self.g.by_name.get_or_default(name).push(id);
        self.due.push(Due {
            current: e.current,
            past: e.past,
            tags: e.tags,
        });
        Ok(())
    }

    fn fact(&mut self, f: FactRow) -> Result<(), &'static str> {
        let at = self.owner(0, |d| d.current + d.past > 0);
        let text = self.sym(f.text)?;
        let meta = self.fact_meta(&f)?;
        let due = &mut self.due[at];
        if due.current > 0 {
            due.current -= 1;
            let entity = self.entity_mut(at);
            entity.observations.push(text);
            entity.facts.push(meta);
        } else {
            due.past -= 1;
            let past = Past {
                text,
                meta,
                superseded: f.superseded,
            };
            if let Some(extra) = self.entity_mut(at).extra.as_mut() {
                extra.past.push(past);
            }
        }
        Ok(())
    }

    fn tag(&mut self, t: Str) -> Result<(), &'static str> {
        let at = self.owner(1, |d| d.tags > 0);
        let tag = self.sym(t)?;
        self.due[at].tags -= 1;
        if let Some(extra) = self.entity_mut(at).extra.as_mut() {
            extra.tags.push(tag);
        }
        Ok(())
    }

    fn relation(&mut self, r: RelationRow) -> Result<(), &'static str> {
        let relation = Loader::relation(self, r)?;
        self.g.relations.push(Some(relation));
        Ok(())
    }

    fn ended(&mut self, r: RelationRow, at: Millis) -> Result<(), &'static str> {
        let relation = Loader::relation(self, r)?;
        self.g.ended.push(Ended { relation, at });
        Ok(())
    }

    fn reflection(&mut self, r: ReflectionRow) -> Result<(), &'static str> {
        let target = match r.target {
            TargetRow::Global => Target::Global,
            TargetRow::Entity(s) => Target::Entity(self.sym(s)?),
            TargetRow::Relation([from, to, kind]) => {
                Target::Relation([self.sym(from)?, self.sym(to)?, self.sym(kind)?])
            }
            TargetRow::Session(s) => Target::Session(self.sym(s)?),
        };
        let reflection = Reflection {
            id: r.id,
            target,
            author: self.sym(r.author)?,
            mood: self.opt(r.mood)?,
            content: self.sym(r.content)?,
            created: r.created,
        };
        self.g.reflections.push(reflection);
        Ok(())
    }

    fn more(&mut self, ops: Vec<Op<'a>>) -> Result<(), &'static str> {
        let record = Record { stamp: None, ops };
        self.g.apply(&record, &mut ());
        Ok(())
    }
}

/// Numbers strings in the order the rows first name them.
struct Names {
    /// Each handle's number ([`Names::NONE`] until named), by handle index.
    of: Vec<Str>,
    /// The handles in number order.
    order: Vec<Sym>,
}

impl Names {
    const NONE: Str = Str::MAX;

    /// `sym`'s number, giving it the next one if it has none.
    fn name(&mut self, sym: Sym) -> Str {
        let slot = &mut self.of[sym.index()];
        if *slot == Self::NONE {
            *slot = self.order.len() as Str;
            self.order.push(sym);
        }
        *slot
    }
}

/// The rows of a checkpoint, built from the graph with `name` giving strings their numbers.
struct Rows<N> {
    name: N,
}

impl<N: FnMut(Sym) -> Str> Rows<N> {
    fn opt(&mut self, sym: Option<Sym>) -> OptStr {
        sym.map_or(0, |s| (self.name)(s) + 1)
    }

    fn agent(&mut self, a: &AgentSyms) -> AgentRow {
        AgentRow {
            client: (self.name)(a.client),
            version: (self.name)(a.version),
            session: (self.name)(a.session),
            actor: self.opt(a.actor),
        }
    }

    fn entity(&mut self, e: &Entity) -> EntityRow {
        let extra = e.extra.as_deref();
        EntityRow {
            name: (self.name)(e.name),
            entity_type: (self.name)(e.entity_type),
            created: e.created,
            updated: e.updated,
            next_fact: e.next_fact,
            current: e.observations.len() as u32,
            past: past_of(e).len() as u32,
            tags: tags_of(e).len() as u32,
            importance: extra.and_then(|x| x.importance),
            parent: self.opt(extra.and_then(|x| x.parent)),
            status: self.opt(extra.and_then(|x| x.status)),
        }
    }

    /// Calls `f` with each of the entity's observations: its current ones, then its past.
    fn facts(&mut self, e: &Entity, mut f: impl FnMut(FactRow)) {
        for (&text, meta) in e.observations.iter().zip(&e.facts) {
            let row = self.fact(text, meta, 0);
            f(row);
        }
        for p in past_of(e) {
            let row = self.fact(p.text, &p.meta, p.superseded);
            f(row);
        }
    }

    fn fact(&mut self, text: Sym, meta: &FactMeta, superseded: u64) -> FactRow {
        FactRow {
            text: (self.name)(text),
            id: meta.id,
            supersedes: meta.supersedes,
            kind: self.opt(meta.kind),
            created: meta.created,
            superseded,
        }
    }

    fn relation(&mut self, r: &Relation) -> RelationRow {
        RelationRow {
            from: (self.name)(r.from),
            to: (self.name)(r.to),
            relation_type: (self.name)(r.relation_type),
            created: r.created,
            context: self.opt(r.context),
        }
    }

    fn reflection(&mut self, r: &Reflection) -> ReflectionRow {
        let target = match r.target {
            Target::Global => TargetRow::Global,
            Target::Entity(s) => TargetRow::Entity((self.name)(s)),
            Target::Relation(t) => TargetRow::Relation(t.map(|s| (self.name)(s))),
            Target::Session(s) => TargetRow::Session((self.name)(s)),
        };
        ReflectionRow {
            id: r.id,
            target,
            author: (self.name)(r.author),
            mood: self.opt(r.mood),
            content: (self.name)(r.content),
            created: r.created,
        }
    }
}

fn past_of(e: &Entity) -> &[Past] {
    e.extra.as_deref().map_or(&[], |x| &x.past[..])
}

fn tags_of(e: &Entity) -> &[Sym] {
    e.extra.as_deref().map_or(&[], |x| &x.tags[..])
}

/// A graph serializing as a checkpoint entry (`(CHECKPOINT, Checkpoint)`), its strings
/// numbered as the rows first name them.
struct CheckpointOut<'g> {
    graph: &'g Graph,
    names: Names,
    /// How many facts and tags the sequences hold, counted while numbering (the graph
    /// keeps its entity and relation counts).
    facts: usize,
    tags: usize,
}

impl<'g> CheckpointOut<'g> {
    /// Numbers the graph's strings, walking the rows in the order they are written.
    fn new(graph: &'g Graph) -> Self {
        let mut names = Names {
            of: vec![Names::NONE; graph.strings.slots()],
            order: Vec::with_capacity(graph.strings.len()),
        };
        let (mut facts, mut tags) = (0, 0);
        let mut rows = Rows {
            name: |s| names.name(s),
        };
        for a in &graph.agents {
            rows.agent(a);
        }
        for (_, e) in graph.entities() {
            rows.entity(e);
            rows.facts(e, |_| facts += 1);
            for &t in tags_of(e) {
                (rows.name)(t);
                tags += 1;
            }
        }
        for (_, r) in graph.relations() {
            rows.relation(r);
        }
        for e in &graph.ended {
            rows.relation(&e.relation);
        }
        for r in &graph.reflections {
            rows.reflection(r);
        }
        CheckpointOut {
            graph,
            names,
            facts,
            tags,
        }
    }

    /// The rows, every string already numbered.
    fn rows(&self) -> Rows<impl FnMut(Sym) -> Str + '_> {
        Rows {
            name: |s: Sym| self.names.of[s.index()],
        }
    }
}

/// Serializes what `items` yields as a sequence of `len` elements (postcard writes the
/// length first).
fn seq<S: Serializer, T: Serialize>(
    s: S,
    len: usize,
    items: impl FnOnce(&mut dyn FnMut(T) -> Result<(), S::Error>) -> Result<(), S::Error>,
) -> Result<S::Ok, S::Error> {
    let mut out = s.serialize_seq(Some(len))?;
    items(&mut |item| out.serialize_element(&item))?;
    out.end()
}

/// The strings of a [`CheckpointOut`], serialized as a sequence.
struct Strings<'a, 'g>(&'a CheckpointOut<'g>);

impl Serialize for Strings<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (order, g) = (&self.0.names.order, self.0.graph);
        seq(s, order.len(), |f| {
            order.iter().try_for_each(|&sym| f(g.text(sym)))
        })
    }
}

/// One part of a [`CheckpointOut`], serialized as a sequence.
struct Section<'a, 'g>(&'a CheckpointOut<'g>, Part);

impl Serialize for Section<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (out, g) = (self.0, self.0.graph);
        let mut rows = out.rows();
        match self.1 {
            Part::Agents => seq(s, g.agents.len(), |f| {
                g.agents.iter().try_for_each(|a| f(rows.agent(a)))
            }),
            Part::Entities => seq(s, g.entity_count(), |f| {
                g.entities().try_for_each(|(_, e)| f(rows.entity(e)))
            }),
            Part::Facts => seq(s, out.facts, |f| {
                g.entities().try_for_each(|(_, e)| {
                    let mut result = Ok(());
                    rows.facts(e, |row| {
                        if result.is_ok() {
                            result = f(row);
                        }
                    });
                    result
                })
            }),
            Part::Tags => seq(s, out.tags, |f| {
                g.entities()
                    .flat_map(|(_, e)| tags_of(e))
                    .try_for_each(|&t| f((rows.name)(t)))
            }),
            Part::Relations => seq(s, g.relation_count(), |f| {
                g.relations().try_for_each(|(_, r)| f(rows.relation(r)))
            }),
            Part::Ended => seq(s, g.ended.len(), |f| {
                g.ended
                    .iter()
                    .try_for_each(|e| f((rows.relation(&e.relation), e.at)))
            }),
            Part::Reflections => seq(s, g.reflections.len(), |f| {
                g.reflections.iter().try_for_each(|r| f(rows.reflection(r)))
            }),
        }
    }
}

impl Serialize for CheckpointOut<'_> {
    /// As `(CHECKPOINT, Checkpoint)` serializes: the tag, then the fields in order.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(10)?;
        t.serialize_element(&CHECKPOINT)?;
        t.serialize_element(&Strings(self))?;
        t.serialize_element(&self.graph.last_at)?;
        for part in Part::ALL {
            t.serialize_element(&Section(self, part))?;
        }
        let more = self.graph.saved_ops();
        if !more.is_empty() {
            t.serialize_element(&more)?;
        }
        t.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Checkpoint;
    use crate::record::arbitrary::{encoded, valid};
    use alloc::collections::BTreeMap;
    use proptest::prelude::*;

    /// Every string index the rows hold, once per row naming it (absent ones left out).
    fn references(c: &Checkpoint<'_>) -> Vec<Str> {
        let opt = |s: OptStr| s.checked_sub(1);
        let mut refs = Vec::new();
        for a in &c.agents {
            refs.extend([a.client, a.version, a.session]);
            refs.extend(opt(a.actor));
        }
        for e in &c.entities {
            refs.extend([e.name, e.entity_type]);
            refs.extend(opt(e.parent).into_iter().chain(opt(e.status)));
        }
        for f in &c.facts {
            refs.push(f.text);
            refs.extend(opt(f.kind));
        }
        refs.extend(&c.tags);
        for r in c.relations.iter().chain(c.ended.iter().map(|(r, _)| r)) {
            refs.extend([r.from, r.to, r.relation_type]);
            refs.extend(opt(r.context));
        }
        for r in &c.reflections {
            match r.target {
                TargetRow::Global => {}
                TargetRow::Entity(s) | TargetRow::Session(s) => refs.push(s),
                TargetRow::Relation(t) => refs.extend(t),
            }
            refs.extend([r.author, r.content]);
            refs.extend(opt(r.mood));
        }
        refs
    }

    proptest! {
        /// Loading refuses exactly what decoding to rows and checking them refuses.
        #[test]
        fn loads_what_decoding_accepts(bytes in encoded()) {
            prop_assert_eq!(
                Graph::from_checkpoint(&bytes).is_ok(),
                Checkpoint::decode(&bytes).is_ok()
            );
        }

        /// Loading refuses a valid checkpoint damaged in one place as decoding does: a fact
        /// or tag more or less than the entities count, an index one past the strings.
        #[test]
        fn refuses_what_decoding_refuses(mut c in valid(), damage in 0u8..8, at in any::<usize>()) {
            let past = c.strings.len() as u32;
            let fact = FactRow { text: 0, id: 1, supersedes: 0, kind: 0, created: 0, superseded: 0 };
            let pick = |len: usize| (len > 0).then(|| at % len);
            match damage {
                0 => { c.facts.pop(); }
                1 => c.facts.insert(pick(c.facts.len() + 1).unwrap_or(0), fact),
                2 => { c.tags.pop(); }
                3 => c.tags.push(0),
                4 => if let Some(i) = pick(c.entities.len()) { c.entities[i].name = past },
                5 => if let Some(i) = pick(c.relations.len()) { c.relations[i].context = past + 1 },
                6 => if let Some(i) = pick(c.facts.len()) { c.facts[i].kind = past + 1 },
                _ => if let Some(i) = pick(c.reflections.len()) { c.reflections[i].author = past },
            }
            let bytes = c.encode();
            prop_assert_eq!(
                Graph::from_checkpoint(&bytes).is_ok(),
                Checkpoint::decode(&bytes).is_ok()
            );
        }

        /// A loaded string holds one reference per row naming it (a string listed twice
        /// is held once, with both's), and a string no row names is not held; the graph
        /// writes a checkpoint that loads to the same state.
        #[test]
        fn each_string_holds_a_reference_per_row_naming_it(c in valid()) {
            let g = Graph::from_checkpoint(&c.encode()).expect("a valid checkpoint loads");
            let mut expected = BTreeMap::<&str, u32>::new();
            for s in references(&c) {
                *expected.entry(c.strings[s as usize]).or_default() += 1;
            }
            for &text in &c.strings {
                let refs = g.strings.lookup(text).map(|s| g.strings.refs(s));
                prop_assert_eq!(refs, expected.get(text).copied(), "{:?}", text);
            }
            prop_assert_eq!(g.strings.len(), expected.len());
            let again = Graph::from_checkpoint(&g.checkpoint()).expect("loads");
            prop_assert_eq!(again.checkpoint(), g.checkpoint());
        }
    }
}
