//! The TypeScript seed's `import_graph`, in its argument and result shapes: entities and
//! relations read from json, csv or graphml ([`formats`]) merged into the memory by a
//! strategy for names it already has (`skip`, `merge`, `replace`, `fail`), with counts of
//! what was added, skipped and updated.
//!
//! Where the seed is weak this server is not:
//! - the import is one logged change, all or nothing (`fail` with any error: nothing);
//! - `dryRun` counts exactly what the same call would do (relations to entities the import
//!   brings count as added, not as errors; a name given twice is added once);
//! - data that is not of its format is an error (`isError`) naming the line or element
//!   and the rule, and changes nothing (the seed answers it as a success with counts 0);
//! - an item breaking a rule is reported in `errors`, naming it (the seed drops it, or
//!   stops the whole CSV import);
//! - times given are kept (a missing one is the call's time), and `merge`/`replace` count
//!   an entity as updated only when it changes (else as skipped), so an import run twice
//!   changes nothing the second time.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::answer;
use super::formats;
use crate::graph::{EntityId, Graph};
use crate::hash::{HashMap, HashSet};
use crate::jsonl::EntityLine;
use crate::memory::Change;
use crate::model::{
    EntityPatch, EntityState, Fact, Millis, Observations, Relation, RelationState, Restore,
};
use crate::record::Op;
use crate::tools::Ctx;
use crate::tools::Plan;
use crate::tools::parse;

/// Most bytes of data one import takes (the seed's 10 MB).
pub const MAX_DATA_BYTES: usize = 10 * 1024 * 1024;
/// Most entities, and most relations, one import takes (the seed's).
pub const MAX_IMPORT_ITEMS: usize = 100_000;

/// What to do with an entity whose name the memory has (`mergeStrategy`).
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Default, Debug)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Its fields become the imported ones (those the data gives).
    Replace,
    /// It stays as it is.
    #[default]
    Skip,
    /// It gains the imported observations and tags, and the importance given.
    Merge,
    /// An error; with any error nothing is imported.
    Fail,
}

/// The answer: the seed's counts and errors.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
struct Outcome {
    entities_added: usize,
    entities_skipped: usize,
    entities_updated: usize,
    relations_added: usize,
    relations_skipped: usize,
    errors: Vec<String>,
}

/// An entity as the import leaves it.
#[derive(Clone, PartialEq)]
struct Draft<'a> {
    entity_type: &'a str,
    observations: Vec<&'a str>,
    created: Millis,
    updated: Millis,
    tags: Vec<&'a str>,
    importance: Option<f64>,
    parent: Option<&'a str>,
}

/// Where a draft comes from: an entity the import brings, or one the memory has (and
/// whether the import replaced it).
#[derive(Clone, Copy)]
enum Origin {
    New,
    Old(EntityId, bool),
}

impl<'a> Draft<'a> {
    /// The entity `e` brings; a time it does not give is `now`.
    fn new(e: &'a EntityLine, now: Millis) -> Self {
        let meta = e.meta.as_ref();
        let given = |f: fn(&crate::jsonl::EntityMeta) -> Millis| meta.map_or(0, f);
        let created = match (given(|m| m.created), given(|m| m.updated)) {
            (0, 0) => now,
            (0, updated) => updated,
            (created, _) => created,
        };
        Draft {
            entity_type: &e.entity_type,
            observations: e.observations.iter().map(String::as_str).collect(),
            created,
            updated: given(|m| m.updated).max(created),
            tags: meta.map_or(Vec::new(), |m| m.tags.iter().map(String::as_str).collect()),
            importance: meta.and_then(|m| m.importance),
            parent: meta.and_then(|m| m.parent.as_deref()),
        }
    }

    /// Entity `id` of the memory.
    fn of(g: &'a Graph, id: EntityId) -> Self {
        let e = g.entity(id);
        let extra = e.extra.as_deref();
        Draft {
            entity_type: g.text(e.entity_type),
            observations: e.observations.iter().map(|&o| g.text(o)).collect(),
            created: e.created,
            updated: e.updated,
            tags: extra.map_or(Vec::new(), |x| x.tags.iter().map(|&t| g.text(t)).collect()),
            importance: extra.and_then(|x| x.importance),
            parent: extra.and_then(|x| x.parent).map(|p| g.text(p)),
        }
    }

    /// `e`'s fields in place of these (the seed's `Object.assign`: what `e` does not give
    /// stays); whether anything changed. The time it changed is `e`'s, else `now`.
    fn replace(&mut self, e: &'a EntityLine, now: Millis) -> bool {
        let before = self.clone();
        self.entity_type = &e.entity_type;
        self.observations = e.observations.iter().map(String::as_str).collect();
        let mut updated = now;
        if let Some(m) = &e.meta {
            if m.created != 0 {
                self.created = m.created;
            }
            if m.updated != 0 {
                updated = m.updated;
            }
            if !m.tags.is_empty() {
                self.tags = m.tags.iter().map(String::as_str).collect();
            }
            if m.importance.is_some() {
                self.importance = m.importance;
            }
            if m.parent.is_some() {
                self.parent = m.parent.as_deref();
            }
        }
        self.changed_since(before, updated)
    }

    /// `e`'s observations and tags added to these, its importance if given (the seed's
    /// merge); whether anything changed (then at `now`).
    fn merge(&mut self, e: &'a EntityLine, now: Millis) -> bool {
        let before = self.clone();
        for o in &e.observations {
            if !self.observations.contains(&o.as_str()) {
                self.observations.push(o);
            }
        }
        if let Some(m) = &e.meta {
            for t in &m.tags {
                if !self.tags.contains(&t.as_str()) {
                    self.tags.push(t);
                }
            }
            if m.importance.is_some() {
                self.importance = m.importance;
            }
        }
        self.changed_since(before, now)
    }

    /// Whether this differs from `before`; if so it changed at `at`, else it is `before`.
    fn changed_since(&mut self, before: Draft<'a>, at: Millis) -> bool {
        self.updated = before.updated;
        if *self == before {
            return false;
        }
        self.updated = at;
        true
    }

    /// The entity called `name` in full, its observations as old as it.
    fn state(&self, name: &'a str) -> EntityState<'a> {
        EntityState {
            name,
            entity_type: self.entity_type,
            created: self.created,
            updated: self.updated,
            tags: self.tags.clone(),
            importance: self.importance,
            parent: self.parent,
            status: None,
            next_fact: self.observations.len() as u32 + 1,
            facts: Fact::numbered(self.observations.iter().copied(), self.created),
        }
    }
}

/// Entity `id` of the memory as `draft` has it: observations it keeps keep their ids, kinds
/// and times; new ones are numbered on, made at `now`; superseded ones stay.
fn replaced<'a>(g: &'a Graph, id: EntityId, draft: &Draft<'a>, now: Millis) -> EntityState<'a> {
    let mut old = g.entity_state(g.entity(id));
    let (mut current, past): (Vec<Fact<'a>>, Vec<Fact<'a>>) =
        old.facts.drain(..).partition(|f| f.superseded == 0);
    let mut facts = Vec::with_capacity(draft.observations.len() + past.len());
    for &text in &draft.observations {
        match current.iter().position(|f| f.text == text) {
            Some(at) => facts.push(current.remove(at)),
            None => {
                facts.push(Fact::current(text, old.next_fact, now));
                old.next_fact += 1;
            }
        }
    }
    facts.extend(past);
    EntityState {
        entity_type: draft.entity_type,
        created: draft.created,
        updated: draft.updated,
        tags: draft.tags.clone(),
        importance: draft.importance,
        parent: draft.parent,
        facts,
        ..old
    }
}

/// `import_graph`: reads `data` as `format` and merges it into the memory.
pub fn import_graph(t: Ctx<'_>, a: &Value) -> Result<Plan, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        format: &'a str,
        data: &'a str,
        #[serde(default)]
        merge_strategy: Strategy,
        #[serde(default)]
        dry_run: bool,
    }
    let args = parse::<Args>(a)?;
    if args.data.len() > MAX_DATA_BYTES {
        return Err(format!(
            "data: {} bytes, more than the {MAX_DATA_BYTES} (10 MB) an import may hold",
            args.data.len()
        ));
    }
    let (format, data) = (args.format, args.data);
    import(
        t,
        format,
        data,
        args.merge_strategy,
        args.dry_run,
        MAX_IMPORT_ITEMS,
    )
}

/// The import of `data` as `format` (any size: [`import_graph`] checks it) of at most
/// `max_items` entities and as many relations, by `strategy`; a dry run changes nothing.
pub fn import(
    t: Ctx<'_>,
    format: &str,
    data: &str,
    strategy: Strategy,
    dry_run: bool,
    max_items: usize,
) -> Result<Plan, String> {
    let read = formats::read(format, data).map_err(|e| {
        let name = match format {
            "csv" => "CSV",
            "graphml" => "GraphML",
            _ => "JSON",
        };
        format!("data: not valid {name}: {e}; nothing was imported")
    })?;
    for (what, n) in [
        ("entities", read.entities.len()),
        ("relations", read.relations.len()),
    ] {
        if n > max_items {
            return Err(format!(
                "data: {n} {what}, more than the {max_items} an import may hold"
            ));
        }
    }
    let (g, now) = (t.graph, t.now);
    let mut out = Outcome {
        errors: read.errors.clone(),
        ..Outcome::default()
    };
    let mut drafts: Vec<(&str, Origin, Draft<'_>)> = Vec::new();
    let mut by_name: HashMap<&str, usize> = HashMap::default();
    for e in &read.entities {
        let name = e.name.as_str();
        let found = match by_name.get(name) {
            Some(&i) => Some(i),
            None => match g.first_named(name) {
                Some(_) if matches!(strategy, Strategy::Skip | Strategy::Fail) => None,
                Some(id) => {
                    drafts.push((name, Origin::Old(id, false), Draft::of(g, id)));
                    by_name.insert(name, drafts.len() - 1);
                    Some(drafts.len() - 1)
                }
                None => {
                    drafts.push((name, Origin::New, Draft::new(e, now)));
                    by_name.insert(name, drafts.len() - 1);
                    out.entities_added += 1;
                    continue;
                }
            },
        };
        let changed = match (strategy, found) {
            (Strategy::Fail, _) => {
                out.errors.push(format!("Entity \"{name}\" already exists"));
                continue;
            }
            (Strategy::Replace, Some(i)) => {
                let (_, origin, draft) = &mut drafts[i];
                if let Origin::Old(_, replaced) = origin {
                    *replaced = true;
                }
                draft.replace(e, now)
            }
            (Strategy::Merge, Some(i)) => drafts[i].2.merge(e, now),
            _ => false,
        };
        if changed {
            out.entities_updated += 1;
        } else {
            out.entities_skipped += 1;
        }
    }
    let known = |name: &str| by_name.contains_key(name) || g.first_named(name).is_some();
    let mut seen: HashSet<Relation<'_>> = HashSet::default();
    let mut relations = Vec::new();
    for r in &read.relations {
        let relation = r.relation();
        if !known(relation.from) {
            let from = relation.from;
            out.errors
                .push(format!("Relation source entity \"{from}\" does not exist"));
        } else if !known(relation.to) {
            let to = relation.to;
            out.errors
                .push(format!("Relation target entity \"{to}\" does not exist"));
        } else if g.has_relation(relation.from, relation.to, relation.relation_type)
            || !seen.insert(relation)
        {
            if strategy == Strategy::Fail {
                let Relation {
                    from,
                    to,
                    relation_type,
                } = relation;
                out.errors.push(format!(
                    "Relation \"{from}|{to}|{relation_type}\" already exists"
                ));
            } else {
                out.relations_skipped += 1;
            }
        } else {
            out.relations_added += 1;
            relations.push(RelationState {
                relation,
                created: if r.created != 0 { r.created } else { now },
                context: None,
                ended: 0,
            });
        }
    }
    let refused = strategy == Strategy::Fail && !out.errors.is_empty();
    let change = if dry_run || refused {
        Change::NONE
    } else {
        Change::of(ops(g, &drafts, relations, now))
    };
    Ok(Plan {
        change,
        result: answer(&out),
    })
}

/// The ops making the import: new entities, replaced ones (in their places; others of the
/// same name as they are), observations and metadata merged, new relations.
fn ops<'a>(
    g: &'a Graph,
    drafts: &[(&'a str, Origin, Draft<'a>)],
    relations: Vec<RelationState<'a>>,
    now: Millis,
) -> Vec<Op<'a>> {
    let mut new = Vec::new();
    let mut restore = Restore::default();
    let (mut observations, mut patches) = (Vec::new(), Vec::new());
    for (name, origin, draft) in drafts {
        match *origin {
            Origin::New => new.push(draft.state(name)),
            Origin::Old(id, true) => {
                if *draft == Draft::of(g, id) {
                    continue;
                }
                restore.entities.push(*name);
                restore.put_entities.push(replaced(g, id, draft, now));
                let others = g.named(name).iter().filter(|&&other| other != id);
                restore
                    .put_entities
                    .extend(others.map(|&other| g.entity_state(g.entity(other))));
            }
            Origin::Old(id, false) => {
                let old = Draft::of(g, id);
                if *draft == old {
                    continue;
                }
                let added = &draft.observations[old.observations.len()..];
                if !added.is_empty() {
                    observations.push(Observations {
                        entity: name,
                        contents: added.to_vec(),
                    });
                }
                let patch = EntityPatch {
                    name,
                    tags: (draft.tags != old.tags).then(|| draft.tags.clone()),
                    importance: (draft.importance != old.importance).then_some(draft.importance),
                    ..EntityPatch::default()
                };
                if patch.tags.is_some() || patch.importance.is_some() {
                    patches.push(patch);
                }
            }
        }
    }
    let mut ops = Vec::new();
    if !new.is_empty() {
        ops.push(Op::PutEntities(new));
    }
    if !restore.entities.is_empty() {
        ops.push(Op::Restore(restore));
    }
    if !observations.is_empty() {
        ops.push(Op::AddObservations(observations));
    }
    if !patches.is_empty() {
        ops.push(Op::PatchEntities(patches));
    }
    if !relations.is_empty() {
        ops.push(Op::PutRelations(relations));
    }
    ops
}
