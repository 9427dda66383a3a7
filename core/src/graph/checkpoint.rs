//! The graph as a [`Checkpoint`] and back, and replay from a log's last checkpoint.

use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;

use super::{AgentSyms, Ended, Entity, EntityId, Extra, FactMeta, Graph, Past, Reflection};
use super::{Relation, RelationId, Target};
use crate::hash::HashMap;
use crate::intern::{Interner, Sym};
use crate::record::{
    AgentRow, Checkpoint, DecodeError, EntityRow, Entry, FactRow, OptStr, ReflectionRow,
    RelationRow, Str, TargetRow, is_checkpoint,
};

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

    /// The graph as a checkpoint entry's bytes.
    pub fn checkpoint(&self) -> Vec<u8> {
        let mut w = Writer {
            graph: self,
            index: HashMap::default(),
            c: Checkpoint {
                last_at: self.last_at,
                ..Checkpoint::default()
            },
        };
        w.index.reserve(self.strings.len());
        for a in &self.agents {
            let row = AgentRow {
                client: w.str(a.client),
                version: w.str(a.version),
                session: w.str(a.session),
                actor: w.opt(a.actor),
            };
            w.c.agents.push(row);
        }
        w.c.entities.reserve(self.entity_count);
        for (_, e) in self.entities() {
            w.entity(e);
        }
        w.c.relations.reserve(self.relation_count);
        for (_, r) in self.relations() {
            let row = w.relation(r);
            w.c.relations.push(row);
        }
        for e in &self.ended {
            let row = w.relation(&e.relation);
            w.c.ended.push((row, e.at));
        }
        for r in &self.reflections {
            w.reflection(r);
        }
        w.c.encode()
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
            let current = facts.by_ref().take(e.current as usize);
            let (observations, metas) = current.map(|f| (sym(f.text), fact_meta(f, opt))).unzip();
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
            g.by_name.entry(name).or_default().push(id);
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
        g.by_triple.reserve(c.relations.len(), &g.relations);
        // Each endpoint's list is allocated once, at its size.
        let mut degree = vec![0u32; c.strings.len()];
        for r in &c.relations {
            degree[r.from as usize] += 1;
            if r.to != r.from {
                degree[r.to as usize] += 1;
            }
        }
        g.by_endpoint
            .reserve(degree.iter().filter(|&&d| d > 0).count());
        for (s, &d) in degree.iter().enumerate().filter(|(_, d)| **d > 0) {
            g.by_endpoint
                .insert(sym(s as Str), Vec::with_capacity(d as usize));
        }
        for r in &c.relations {
            let id = RelationId(g.relations.len() as u32);
            let r = relation(r);
            g.relations.push(Some(r));
            g.list_relation(id, r);
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

/// Builds a checkpoint: numbers strings in the order first met.
struct Writer<'g> {
    graph: &'g Graph,
    index: HashMap<Sym, Str>,
    c: Checkpoint<'g>,
}

impl<'g> Writer<'g> {
    fn str(&mut self, sym: Sym) -> Str {
        let next = self.c.strings.len() as Str;
        let i = *self.index.entry(sym).or_insert(next);
        if i == next {
            self.c.strings.push(self.graph.text(sym));
        }
        i
    }

    fn opt(&mut self, sym: Option<Sym>) -> OptStr {
        sym.map_or(0, |s| self.str(s) + 1)
    }

    fn fact(&mut self, text: Sym, meta: &FactMeta, superseded: u64) -> FactRow {
        FactRow {
            text: self.str(text),
            id: meta.id,
            supersedes: meta.supersedes,
            kind: self.opt(meta.kind),
            created: meta.created,
            superseded,
        }
    }

    fn entity(&mut self, e: &Entity) {
        let extra = e.extra.as_deref();
        let past = extra.map_or(&[][..], |x| &x.past[..]);
        let tags = extra.map_or(&[][..], |x| &x.tags[..]);
        let row = EntityRow {
            name: self.str(e.name),
            entity_type: self.str(e.entity_type),
            created: e.created,
            updated: e.updated,
            next_fact: e.next_fact,
            current: e.observations.len() as u32,
            past: past.len() as u32,
            tags: tags.len() as u32,
            importance: extra.and_then(|x| x.importance),
            parent: self.opt(extra.and_then(|x| x.parent)),
            status: self.opt(extra.and_then(|x| x.status)),
        };
        self.c.entities.push(row);
        for (&text, meta) in e.observations.iter().zip(&e.facts) {
            let row = self.fact(text, meta, 0);
            self.c.facts.push(row);
        }
        for p in past {
            let row = self.fact(p.text, &p.meta, p.superseded);
            self.c.facts.push(row);
        }
        for &t in tags {
            let row = self.str(t);
            self.c.tags.push(row);
        }
    }

    fn relation(&mut self, r: &Relation) -> RelationRow {
        RelationRow {
            from: self.str(r.from),
            to: self.str(r.to),
            relation_type: self.str(r.relation_type),
            created: r.created,
            context: self.opt(r.context),
        }
    }

    fn reflection(&mut self, r: &Reflection) {
        let target = match r.target {
            Target::Global => TargetRow::Global,
            Target::Entity(s) => TargetRow::Entity(self.str(s)),
            Target::Relation(t) => TargetRow::Relation(t.map(|s| self.str(s))),
            Target::Session(s) => TargetRow::Session(self.str(s)),
        };
        let row = ReflectionRow {
            id: r.id,
            target,
            author: self.str(r.author),
            mood: self.opt(r.mood),
            content: self.str(r.content),
            created: r.created,
        };
        self.c.reflections.push(row);
    }
}
