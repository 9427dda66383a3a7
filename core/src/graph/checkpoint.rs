//! The graph as a [`Checkpoint`] and back, and replay from a log's last checkpoint.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use super::{AgentSyms, Ended, Entity, EntityId, Extra, FactMeta, Graph, Past, Reflection};
use super::{Relation, RelationId, Target};
use crate::intern::{Interner, Sym};
use crate::record::{
    AgentRow, CHECKPOINT, Checkpoint, DecodeError, EntityRow, Entry, FactRow, OptStr,
    ReflectionRow, RelationRow, Str, TargetRow, is_checkpoint,
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
}

impl Graph {
    /// The graph a log's entries build: its last checkpoint loaded, then the changes after
    /// it applied. A last checkpoint that cannot be read is passed over: the entries before
    /// it build the same state (unless it is the first entry, which nothing before restates).
    /// `Err` names the first entry that cannot be read.
    pub fn replay<B: AsRef<[u8]>>(entries: &[B]) -> Result<Replayed, (usize, DecodeError)> {
        let last = entries.iter().rposition(|e| is_checkpoint(e.as_ref()));
        let (mut graph, start, unread_checkpoint) = match last {
            None => (Graph::default(), 0, None),
            Some(at) => match Checkpoint::decode(entries[at].as_ref()) {
                Ok(c) => (Graph::from_checkpoint(&c), at + 1, None),
                Err(e) if at == 0 => return Err((0, e)),
                Err(e) => (Graph::default(), 0, Some((at, e))),
            },
        };
        for (index, bytes) in entries.iter().enumerate().skip(start) {
            graph
                .apply_entry(index, bytes.as_ref())
                .map_err(|e| (index, e))?;
        }
        Ok(Replayed {
            graph,
            unread_checkpoint,
        })
    }

    /// Applies entry `index` of a log read in order, from its first: a change, or a
    /// checkpoint, which is the state as the log's first entry and otherwise restates what
    /// the entries before it built (and is skipped unread).
    pub fn apply_entry(&mut self, index: usize, bytes: &[u8]) -> Result<(), DecodeError> {
        match Entry::decode(bytes)? {
            Entry::Change(record) => self.apply(&record, &mut ()),
            Entry::Checkpoint if index == 0 => {
                *self = Graph::from_checkpoint(&Checkpoint::decode(bytes)?);
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

    /// The graph a checkpoint restates (one the decoder checked: every index is in range).
    pub fn from_checkpoint(c: &Checkpoint<'_>) -> Graph {
        // Each string is interned once, holding as many references as the graph makes to it.
        let mut uses = vec![0u32; c.strings.len()];
        c.each_string(|s| uses[s as usize] += 1);
        let mut strings = Interner::default();
        strings.reserve(uses.iter().filter(|&&n| n > 0).count());
        let syms: Vec<Option<Sym>> = c
            .strings
            .iter()
            .zip(&uses)
            .map(|(text, &n)| (n > 0).then(|| strings.intern_with_refs(text, n)))
            .collect();
        let sym = |s: Str| syms[s as usize].expect("a used string is interned");
        let opt = |s: OptStr| s.checked_sub(1).map(sym);
        let mut g = Graph {
            strings,
            last_at: c.last_at,
            ..Graph::default()
        };
        for a in &c.agents {
            let agent = AgentSyms {
                client: sym(a.client),
                version: sym(a.version),
                session: sym(a.session),
                actor: opt(a.actor),
            };
            let id = g.agents.len() as u32;
            g.agents.push(agent);
            g.agent_ids.entry(agent).or_insert(id);
        }
        g.entities.reserve(c.entities.len());
        g.by_name.reserve(c.entities.len());
        let (mut facts, mut tags) = (c.facts.iter(), c.tags.iter());
        for e in &c.entities {
            let n = e.current as usize;
            let (mut observations, mut metas) = (Vec::with_capacity(n), Vec::with_capacity(n));
            for f in facts.by_ref().take(n) {
                observations.push(sym(f.text));
                metas.push(fact_meta(f, opt));
            }
            let past: Vec<Past> = facts
                .by_ref()
                .take(e.past as usize)
                .map(|f| Past {
                    text: sym(f.text),
                    meta: fact_meta(f, opt),
                    superseded: f.superseded,
                })
                .collect();
            let extra = Extra {
                tags: tags
                    .by_ref()
                    .take(e.tags as usize)
                    .map(|&t| sym(t))
                    .collect(),
                importance: e.importance,
                parent: opt(e.parent),
                status: opt(e.status),
                past,
            };
            let id = EntityId(g.entities.len() as u32);
            let name = sym(e.name);
            g.entities.push(Some(Entity {
                name,
                entity_type: sym(e.entity_type),
                observations,
                facts: metas,
                created: e.created,
                updated: e.updated,
                next_fact: e.next_fact,
                extra: (!extra.is_empty()).then(|| Box::new(extra)),
            }));
            g.by_name.get_or_default(name).push(id);
        }
        g.entity_count = g.entities.len();
        let relation = |r: &RelationRow| Relation {
            from: sym(r.from),
            to: sym(r.to),
            relation_type: sym(r.relation_type),
            created: r.created,
            context: opt(r.context),
        };
        g.relations.reserve(c.relations.len());
        g.relations
            .extend(c.relations.iter().map(|r| Some(relation(r))));
        // Each endpoint's list is gathered into one array sorted by the checkpoint's string
        // number (a counting sort), then copied out in string order, which is handle order:
        // no list grows, and the map is filled front to back.
        let ends = |r: &RelationRow| [Some(r.from), (r.to != r.from).then_some(r.to)];
        let mut start = vec![0u32; c.strings.len() + 1];
        for s in c.relations.iter().flat_map(ends).flatten() {
            start[s as usize + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut next = start.clone();
        let mut sorted = vec![RelationId(0); start[c.strings.len()] as usize];
        for (id, r) in c.relations.iter().enumerate() {
            for s in ends(r).into_iter().flatten() {
                sorted[next[s as usize] as usize] = RelationId(id as u32);
                next[s as usize] += 1;
            }
        }
        g.by_endpoint
            .reserve(start.windows(2).filter(|w| w[1] > w[0]).count());
        for (s, w) in start.windows(2).enumerate() {
            if w[1] > w[0] {
                let ids = sorted[w[0] as usize..w[1] as usize].to_vec();
                *g.by_endpoint.get_or_default(sym(s as Str)) = ids;
            }
        }
        g.relation_count = g.relations.len();
        g.ended = c
            .ended
            .iter()
            .map(|(r, at)| Ended {
                relation: relation(r),
                at: *at,
            })
            .collect();
        g.reflections = c
            .reflections
            .iter()
            .map(|r| Reflection {
                id: r.id,
                target: match r.target {
                    TargetRow::Global => Target::Global,
                    TargetRow::Entity(s) => Target::Entity(sym(s)),
                    TargetRow::Relation(t) => Target::Relation(t.map(sym)),
                    TargetRow::Session(s) => Target::Session(sym(s)),
                },
                author: sym(r.author),
                mood: opt(r.mood),
                content: sym(r.content),
                created: r.created,
            })
            .collect();
        g
    }
}

fn fact_meta(f: &FactRow, opt: impl Fn(OptStr) -> Option<Sym>) -> FactMeta {
    FactMeta {
        id: f.id,
        supersedes: f.supersedes,
        kind: opt(f.kind),
        created: f.created,
    }
}

impl Checkpoint<'_> {
    /// Calls `f` with the index of every string the graph refers to, once per reference.
    fn each_string(&self, mut f: impl FnMut(Str)) {
        let relations = || {
            self.relations
                .iter()
                .chain(self.ended.iter().map(|(r, _)| r))
        };
        let agents = self
            .agents
            .iter()
            .flat_map(|a| [a.client, a.version, a.session]);
        let entities = self.entities.iter().flat_map(|e| [e.name, e.entity_type]);
        let facts = self.facts.iter().map(|f| f.text);
        let triples = relations().flat_map(|r| [r.from, r.to, r.relation_type]);
        let reflections = self.reflections.iter().flat_map(|r| {
            let target = match r.target {
                TargetRow::Global => [None; 3],
                TargetRow::Entity(s) | TargetRow::Session(s) => [Some(s), None, None],
                TargetRow::Relation(t) => t.map(Some),
            };
            target.into_iter().flatten().chain([r.author, r.content])
        });
        agents
            .chain(entities)
            .chain(facts)
            .chain(self.tags.iter().copied())
            .chain(triples)
            .chain(reflections)
            .for_each(&mut f);
        let actors = self.agents.iter().map(|a| a.actor);
        let entities = self.entities.iter().flat_map(|e| [e.parent, e.status]);
        let kinds = self.facts.iter().map(|f| f.kind);
        let contexts = relations().map(|r| r.context);
        let moods = self.reflections.iter().map(|r| r.mood);
        actors
            .chain(entities)
            .chain(kinds)
            .chain(contexts)
            .chain(moods)
            .filter_map(|s| s.checked_sub(1))
            .for_each(f);
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

/// One section of a [`CheckpointOut`], serialized as a sequence.
struct Section<'a, 'g>(&'a CheckpointOut<'g>, Part);

#[derive(Clone, Copy)]
enum Part {
    Strings,
    Agents,
    Entities,
    Facts,
    Tags,
    Relations,
    Ended,
    Reflections,
}

impl Serialize for Section<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (out, g) = (self.0, self.0.graph);
        let mut rows = out.rows();
        match self.1 {
            Part::Strings => seq(s, out.names.order.len(), |f| {
                out.names.order.iter().try_for_each(|&sym| f(g.text(sym)))
            }),
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
        t.serialize_element(&Section(self, Part::Strings))?;
        t.serialize_element(&self.graph.last_at)?;
        for part in [
            Part::Agents,
            Part::Entities,
            Part::Facts,
            Part::Tags,
            Part::Relations,
            Part::Ended,
            Part::Reflections,
        ] {
            t.serialize_element(&Section(self, part))?;
        }
        t.end()
    }
}
