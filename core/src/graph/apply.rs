//! [`Graph::apply`]: the one way the graph changes, op by op, telling the observer.

use alloc::boxed::Box;
use alloc::vec::Vec;

use super::triples;
use super::{
    AgentSyms, Ended, Entity, EntityId, Extra, FactMeta, Graph, Ids, Observer, Past, Reflection,
    Relation, RelationId, Target,
};
use crate::intern::Sym;
use crate::model::{self, Millis};
use crate::record::{Agent, Op, Record};

impl Graph {
    /// Applies one log record, telling `observer` of each change to an entity. This is the
    /// only way the graph changes. The record's stamp gives the time of everything it
    /// creates or changes (`0` if it has none: a record from before times were kept).
    pub fn apply(&mut self, record: &Record<'_>, observer: &mut impl Observer) {
        let at = match &record.stamp {
            Some(stamp) => {
                if let Agent::New(p) = &stamp.by {
                    self.add_agent(p);
                }
                self.saw(stamp.at);
                stamp.at
            }
            None => 0,
        };
        for op in &record.ops {
            self.apply_op(op, at, observer);
        }
    }

    fn apply_op(&mut self, op: &Op<'_>, at: Millis, observer: &mut impl Observer) {
        match op {
            Op::CreateEntities(list) => {
                self.entities.reserve(list.len());
                self.by_name.reserve(list.len());
                for e in list {
                    let facts = e.observations.iter().map(|&text| (text, None, 0));
                    let id = self.insert_entity(e.name, e.entity_type, at, at);
                    self.append_facts(id, facts, at);
                    observer.entity_added(self, id);
                }
            }
            Op::CreateRelations(list) => {
                self.relations.reserve(list.len());
                if let Some(t) = self.by_triple.get_mut() {
                    t.reserve(list.len(), &self.relations);
                }
                list.iter().for_each(|r| self.insert_relation(r, at, None));
            }
            Op::AddObservations(list) => {
                for o in list {
                    let facts = o.contents.iter().map(|&text| (text, None, 0));
                    self.add_facts(o.entity, facts, at, observer);
                }
            }
            Op::DeleteEntities(names) => {
                names.iter().for_each(|n| self.delete_named(n, observer));
                self.repack_if_sparse(observer);
            }
            Op::DeleteObservations(list) => list
                .iter()
                .for_each(|o| self.remove_observations(o, at, observer)),
            Op::DeleteRelations(list) => {
                // Deleting a triple deletes its history too (its ended relations).
                list.iter().for_each(|r| self.unrelate(r));
                self.repack_if_sparse(observer);
            }
            Op::Reserved(never) => match *never {},
            Op::Agents(list) => list.iter().for_each(|p| self.add_agent(p)),
            Op::PutEntities(list) => {
                self.entities.reserve(list.len());
                self.by_name.reserve(list.len());
                list.iter().for_each(|e| self.put_entity(e, None, observer));
            }
            Op::PutRelations(list) => self.put_relations(list),
            Op::PutReflections(list) => list.iter().for_each(|r| self.put_reflection(r)),
            Op::PatchEntities(list) => list.iter().for_each(|p| self.patch(p, at)),
            Op::AddFacts(list) => {
                for f in list {
                    self.supersede(f, at, observer);
                    let facts = f.facts.iter().map(|n| (n.text, n.kind, n.supersedes));
                    self.add_facts(f.entity, facts, at, observer);
                }
            }
            Op::CreateRelationsWith(list) => {
                self.relations.reserve(list.len());
                list.iter()
                    .for_each(|r| self.insert_relation(&r.relation, at, r.context));
            }
            Op::EndRelations(list) => {
                // An end time is never 0, which a restated relation (`PutRelations`) reads
                // as "holds": without the host's time, a relation ends at the first instant.
                let at = at.max(1);
                list.iter().for_each(|r| self.remove_triple(r, Some(at)));
                self.repack_if_sparse(observer);
            }
            Op::Forget(names) => {
                names.iter().for_each(|n| self.forget(n, observer));
                self.repack_if_sparse(observer);
            }
            Op::Restore(r) => {
                // Entities put back take the places of those removed, in order.
                let mut freed: Vec<(&str, EntityId)> = Vec::new();
                for &name in &r.entities {
                    let ids = self.remove_entities(name, observer);
                    freed.extend(ids.into_iter().map(|id| (name, id)));
                }
                r.relations.iter().for_each(|t| self.unrelate(t));
                for e in &r.put_entities {
                    let place = freed.iter().position(|(name, _)| *name == e.name);
                    let slot = place.map(|at| freed.remove(at).1);
                    self.put_entity(e, slot, observer);
                }
                self.put_relations(&r.put_relations);
                r.entities.iter().for_each(|name| self.drop_usage(name));
                self.repack_if_sparse(observer);
            }
            Op::PutTagAliases(list) => list.iter().for_each(|a| self.put_tag_alias(a)),
            Op::RemoveTagAliases(list) => list.iter().for_each(|a| self.remove_tag_alias(a)),
            Op::PutSavedSearches(list) => list.iter().for_each(|q| self.put_saved_search(q)),
            Op::RemoveSavedSearches(list) => {
                list.iter().for_each(|n| self.remove_saved_search(n));
            }
            Op::PutArchived(list) => list.iter().for_each(|a| self.put_archived(a)),
            Op::RemoveArchived(list) => list.iter().for_each(|n| self.remove_archived(n)),
            Op::Used(usage) => self.add_usage(usage),
            Op::Reflect(list) => {
                for r in list {
                    let id = self.next_reflection_id();
                    self.put_reflection(&model::Reflection {
                        id,
                        target: r.target,
                        author: r.author,
                        mood: r.mood,
                        content: r.content,
                        created: at,
                    });
                }
            }
        }
    }

    /// Notes a time a change carried.
    pub(super) fn saw(&mut self, at: Millis) {
        self.last_at = self.last_at.max(at);
    }

    fn add_agent(&mut self, p: &model::Provenance<'_>) {
        let s = &mut self.strings;
        let agent = AgentSyms {
            client: s.intern(p.client),
            version: s.intern(p.version),
            session: s.intern(p.session),
            actor: p.actor.map(|a| s.intern(a)),
        };
        let id = self.agents.len() as u32;
        self.agents.push(agent);
        self.agent_ids.entry(agent).or_insert(id);
    }

    fn intern_opt(&mut self, text: Option<&str>) -> Option<Sym> {
        text.map(|t| self.strings.intern(t))
    }

    /// Appends an entity with no observations; the caller adds them, then tells the
    /// observer.
    fn insert_entity(
        &mut self,
        name: &str,
        entity_type: &str,
        created: Millis,
        updated: Millis,
    ) -> EntityId {
        let id = EntityId(self.entities.len() as u32);
        let name = self.strings.intern(name);
        let entity = Entity {
            name,
            entity_type: self.strings.intern(entity_type),
            observations: Vec::new(),
            facts: Vec::new(),
            created,
            updated,
            next_fact: 1,
            extra: None,
        };
        self.entities.push(Some(entity));
        self.entity_count += 1;
        self.by_name.get_or_default(name).push(id);
        id
    }

    /// Moves the entity just inserted as `id` (the last slot) to the free `slot`.
    fn move_last_entity(&mut self, id: EntityId, slot: EntityId) -> EntityId {
        let entity = self.entities.pop().flatten();
        debug_assert_eq!(self.entities.len(), id.0 as usize);
        let name = entity.as_ref().map(|e| e.name);
        self.entities[slot.0 as usize] = entity;
        if let Some(ids) = name.and_then(|n| self.by_name.get_mut(n)) {
            for listed in ids.iter_mut().filter(|i| **i == id) {
                *listed = slot;
            }
            ids.sort_unstable();
        }
        slot
    }

    fn entity_mut(&mut self, id: EntityId) -> &mut Entity {
        self.entities[id.0 as usize]
            .as_mut()
            .expect("entity ids are only handed out for live entities")
    }

    /// Appends observations (text, kind, what each supersedes) to entity `id`, numbering
    /// them on; returns how many it had before (the new ones are the rest).
    fn append_facts<'t>(
        &mut self,
        id: EntityId,
        facts: impl Iterator<Item = (&'t str, Option<&'t str>, u32)>,
        at: Millis,
    ) -> usize {
        let strings = &mut self.strings;
        let entity = self.entities[id.0 as usize]
            .as_mut()
            .expect("entity ids are only handed out for live entities");
        let before = entity.observations.len();
        let (n, _) = facts.size_hint();
        entity.observations.reserve_exact(n);
        entity.facts.reserve_exact(n);
        for (text, kind, supersedes) in facts {
            entity.observations.push(strings.intern(text));
            entity.facts.push(FactMeta {
                id: entity.next_fact,
                supersedes,
                kind: kind.map(|k| strings.intern(k)),
                created: at,
            });
            entity.next_fact += 1;
        }
        if at != 0 {
            entity.updated = at;
        }
        before
    }

    fn add_facts<'t>(
        &mut self,
        name: &str,
        facts: impl Iterator<Item = (&'t str, Option<&'t str>, u32)>,
        at: Millis,
        observer: &mut impl Observer,
    ) {
        let Some(id) = self.first_named(name) else {
            return;
        };
        let before = self.append_facts(id, facts, at);
        let added = self.entity(id).observations[before..].to_vec();
        observer.observations_added(self, id, &added);
    }

    /// Moves the current observations these new ones supersede to the entity's past.
    fn supersede(&mut self, f: &model::NewFacts<'_>, at: Millis, observer: &mut impl Observer) {
        let Some(id) = self.first_named(f.entity) else {
            return;
        };
        let old: Vec<u32> = f
            .facts
            .iter()
            .map(|n| n.supersedes)
            .filter(|&s| s != 0)
            .collect();
        if old.is_empty() {
            return;
        }
        let entity = self.entity_mut(id);
        let mut removed = Vec::new();
        let mut past = Vec::new();
        let mut i = 0;
        while i < entity.facts.len() {
            if old.contains(&entity.facts[i].id) {
                let meta = entity.facts.remove(i);
                let text = entity.observations.remove(i);
                removed.push(text);
                past.push(Past {
                    text,
                    meta,
                    superseded: at,
                });
            } else {
                i += 1;
            }
        }
        if removed.is_empty() {
            return;
        }
        entity.extra.get_or_insert_default().past.extend(past);
        observer.observations_removed(self, id, &removed);
    }

    fn remove_observations(
        &mut self,
        o: &model::Observations<'_>,
        at: Millis,
        observer: &mut impl Observer,
    ) {
        let Some(id) = self.first_named(o.entity) else {
            return;
        };
        let doomed: Vec<Sym> = o
            .contents
            .iter()
            .filter_map(|c| self.strings.lookup(c))
            .collect();
        let entity = self.entity_mut(id);
        let mut removed = Vec::new();
        let mut released_kinds = Vec::new();
        let mut i = 0;
        while i < entity.observations.len() {
            if doomed.contains(&entity.observations[i]) {
                removed.push(entity.observations.remove(i));
                released_kinds.extend(entity.facts.remove(i).kind);
            } else {
                i += 1;
            }
        }
        if removed.is_empty() {
            return;
        }
        if at != 0 {
            entity.updated = at;
        }
        observer.observations_removed(self, id, &removed);
        for sym in removed.into_iter().chain(released_kinds) {
            self.strings.release(sym);
        }
    }

    /// Puts an entity in as given: in `slot` (a free one) if given, else after the others.
    fn put_entity(
        &mut self,
        e: &model::EntityState<'_>,
        slot: Option<EntityId>,
        observer: &mut impl Observer,
    ) {
        self.saw(e.created.max(e.updated));
        let id = self.insert_entity(e.name, e.entity_type, e.created, e.updated);
        let id = match slot {
            Some(slot) => self.move_last_entity(id, slot),
            None => id,
        };
        let current = e.facts.iter().filter(|f| f.superseded == 0);
        self.append_facts(id, current.map(|f| (f.text, f.kind, f.supersedes)), 0);
        let mut past = Vec::new();
        for f in e.facts.iter().filter(|f| f.superseded != 0) {
            past.push(Past {
                text: self.strings.intern(f.text),
                meta: FactMeta {
                    id: f.id,
                    supersedes: f.supersedes,
                    kind: self.intern_opt(f.kind),
                    created: f.created,
                },
                superseded: f.superseded,
            });
        }
        let extra = Extra {
            tags: e.tags.iter().map(|t| self.strings.intern(t)).collect(),
            importance: e.importance,
            parent: self.intern_opt(e.parent),
            status: self.intern_opt(e.status),
            past,
        };
        let entity = self.entity_mut(id);
        // The ids and times as given, not as appending numbered them.
        let given = e.facts.iter().filter(|f| f.superseded == 0);
        for (meta, f) in entity.facts.iter_mut().zip(given) {
            meta.id = f.id;
            meta.created = f.created;
        }
        entity.next_fact = e.next_fact;
        entity.updated = e.updated;
        if !extra.is_empty() {
            entity.extra = Some(Box::new(extra));
        }
        observer.entity_added(self, id);
    }

    fn patch(&mut self, p: &model::EntityPatch<'_>, at: Millis) {
        let Some(id) = self.first_named(p.name) else {
            return;
        };
        let tags = p
            .tags
            .as_ref()
            .map(|tags| tags.iter().map(|t| self.strings.intern(t)).collect());
        let parent = p.parent.map(|parent| self.intern_opt(parent));
        let status = p.status.map(|status| self.strings.intern(status));
        let mut released = Vec::new();
        let entity = self.entity_mut(id);
        let extra = entity.extra.get_or_insert_default();
        if let Some(tags) = tags {
            released.extend(core::mem::replace(&mut extra.tags, tags));
        }
        if let Some(importance) = p.importance {
            extra.importance = importance;
        }
        if let Some(parent) = parent {
            released.extend(core::mem::replace(&mut extra.parent, parent));
        }
        if let Some(status) = status {
            released.extend(extra.status.replace(status));
        }
        if extra.is_empty() {
            entity.extra = None;
        }
        if at != 0 {
            entity.updated = at;
        }
        released.into_iter().for_each(|s| self.strings.release(s));
    }

    /// Removes every entity with this name and every relation starting or ending at it.
    fn remove_named(&mut self, name: &str, observer: &mut impl Observer) {
        let Some(sym) = self.strings.lookup(name) else {
            return;
        };
        for id in self.by_endpoint.remove(sym).unwrap_or_default() {
            self.remove_relation(id, None);
        }
        self.remove_entities(name, observer);
        self.drop_usage(name);
    }

    /// Removes every entity with this name (relations at it stay); returns the slots they
    /// leave free, oldest first.
    fn remove_entities(&mut self, name: &str, observer: &mut impl Observer) -> Ids<EntityId> {
        let Some(sym) = self.strings.lookup(name) else {
            return Ids::new();
        };
        let ids = self.by_name.remove(sym).unwrap_or_default();
        for &id in &ids {
            if let Some(e) = self.entities[id.0 as usize].take() {
                self.entity_count -= 1;
                observer.entity_removed(self, id, &e);
                self.release_entity(e);
            }
        }
        ids
    }

    /// Deletes the entities called `name` with every relation at them, holding or ended.
    fn delete_named(&mut self, name: &str, observer: &mut impl Observer) {
        self.remove_named(name, observer);
        if let Some(sym) = self.strings.lookup(name) {
            self.drop_ended(|r| r.from == sym || r.to == sym);
        }
    }

    /// Removes every trace of `name` from the graph: its entities and relations, its ended
    /// relations, the reflections about it or its relations, and parent links to it.
    fn forget(&mut self, name: &str, observer: &mut impl Observer) {
        self.delete_named(name, observer);
        let Some(sym) = self.strings.lookup(name) else {
            return;
        };
        let mut released = Vec::new();
        self.reflections.retain(|r| {
            let keep = match r.target {
                Target::Entity(e) => e != sym,
                Target::Relation([from, to, _]) => from != sym && to != sym,
                Target::Global | Target::Session(_) => true,
            };
            if !keep {
                released.extend(reflection_syms(r));
            }
            keep
        });
        for entity in self.entities.iter_mut().flatten() {
            if let Some(extra) = entity.extra.as_mut()
                && extra.parent == Some(sym)
            {
                released.extend(extra.parent.take());
                if extra.is_empty() {
                    entity.extra = None;
                }
            }
        }
        released.into_iter().for_each(|s| self.strings.release(s));
    }

    fn release_entity(&mut self, e: Entity) {
        let s = &mut self.strings;
        [e.name, e.entity_type]
            .into_iter()
            .chain(e.observations)
            .chain(e.facts.iter().filter_map(|f| f.kind))
            .for_each(|sym| s.release(sym));
        if let Some(extra) = e.extra {
            extra
                .tags
                .into_iter()
                .chain(extra.parent)
                .chain(extra.status)
                .chain(
                    extra
                        .past
                        .iter()
                        .flat_map(|p| [Some(p.text), p.meta.kind])
                        .flatten(),
                )
                .for_each(|sym| s.release(sym));
        }
    }

    fn intern_relation(
        &mut self,
        r: &model::Relation<'_>,
        created: Millis,
        context: Option<&str>,
    ) -> Relation {
        Relation {
            from: self.strings.intern(r.from),
            to: self.strings.intern(r.to),
            relation_type: self.strings.intern(r.relation_type),
            created,
            context: self.intern_opt(context),
        }
    }

    fn insert_relation(&mut self, r: &model::Relation<'_>, created: Millis, context: Option<&str>) {
        let id = RelationId(self.relations.len() as u32);
        let rel = self.intern_relation(r, created, context);
        self.relations.push(Some(rel));
        self.relation_count += 1;
        self.list_relation(id, rel);
    }

    /// Lists a relation under its triple and its endpoints.
    pub(super) fn list_relation(&mut self, id: RelationId, r: Relation) {
        if let Some(t) = self.by_triple.get_mut() {
            t.insert(id, &triples::triple_of(&r), &self.relations);
        }
        self.by_endpoint.get_or_default(r.from).push(id);
        if r.to != r.from {
            self.by_endpoint.get_or_default(r.to).push(id);
        }
    }

    /// Removes (or, with a time, ends) every relation with this triple.
    fn remove_triple(&mut self, r: &model::Relation<'_>, ended: Option<Millis>) {
        let Some(key) = self.triple(r.from, r.to, r.relation_type) else {
            return;
        };
        for id in self.triples().ids(&key, &self.relations) {
            self.remove_relation(id, ended);
        }
    }

    /// Removes one relation from the arena and every index that still lists it; with a
    /// time, it moves to the ended relations instead of being forgotten.
    fn remove_relation(&mut self, id: RelationId, ended: Option<Millis>) {
        let Some(rel) = self.relations[id.0 as usize].take() else {
            return;
        };
        self.relation_count -= 1;
        let key = triples::triple_of(&rel);
        if let Some(t) = self.by_triple.get_mut() {
            t.remove(id, &key);
        }
        for end in [rel.from, rel.to] {
            if let Some(ids) = self.by_endpoint.get_mut(end) {
                ids.retain(|i| *i != id);
                if ids.is_empty() {
                    self.by_endpoint.remove(end);
                }
            }
        }
        match ended {
            Some(at) => self.ended.push(Ended { relation: rel, at }),
            None => {
                for sym in key.into_iter().chain(rel.context) {
                    self.strings.release(sym);
                }
            }
        }
    }

    fn put_relations(&mut self, list: &[model::RelationState<'_>]) {
        for r in list {
            self.saw(r.created.max(r.ended));
            if r.ended == 0 {
                self.insert_relation(&r.relation, r.created, r.context);
            } else {
                let relation = self.intern_relation(&r.relation, r.created, r.context);
                self.ended.push(Ended {
                    relation,
                    at: r.ended,
                });
            }
        }
    }

    /// Removes every relation with this triple, holding or ended.
    fn unrelate(&mut self, r: &model::Relation<'_>) {
        self.remove_triple(r, None);
        let Some(key) = self.triple(r.from, r.to, r.relation_type) else {
            return;
        };
        self.drop_ended(|rel| [rel.from, rel.to, rel.relation_type] == key);
    }

    /// Removes the ended relations `doomed` picks from the history, releasing their strings.
    fn drop_ended(&mut self, doomed: impl Fn(&Relation) -> bool) {
        let mut released = Vec::new();
        self.ended.retain(|e| {
            let r = e.relation;
            let keep = !doomed(&r);
            if !keep {
                released.extend([r.from, r.to, r.relation_type].into_iter().chain(r.context));
            }
            keep
        });
        released.into_iter().for_each(|s| self.strings.release(s));
    }

    fn put_reflection(&mut self, r: &model::Reflection<'_>) {
        self.saw(r.created);
        let s = &mut self.strings;
        let target = match r.target {
            model::Target::Global => Target::Global,
            model::Target::Entity(name) => Target::Entity(s.intern(name)),
            model::Target::Relation(t) => {
                Target::Relation([s.intern(t.from), s.intern(t.to), s.intern(t.relation_type)])
            }
            model::Target::Session(id) => Target::Session(s.intern(id)),
        };
        let reflection = Reflection {
            id: r.id,
            target,
            author: s.intern(r.author),
            mood: r.mood.map(|m| s.intern(m)),
            content: s.intern(r.content),
            created: r.created,
        };
        // Reflections stay in the order of their ids (each new one takes the next).
        match self.reflections.binary_search_by_key(&r.id, |x| x.id) {
            Ok(at) => {
                let old = core::mem::replace(&mut self.reflections[at], reflection);
                reflection_syms(&old).for_each(|sym| self.strings.release(sym));
            }
            Err(at) => self.reflections.insert(at, reflection),
        }
    }
}

impl Extra {
    /// Whether it holds nothing (and need not be kept).
    pub(super) fn is_empty(&self) -> bool {
        self.tags.is_empty()
            && self.importance.is_none()
            && self.parent.is_none()
            && self.status.is_none()
            && self.past.is_empty()
    }
}

/// Every string a reflection holds.
fn reflection_syms(r: &Reflection) -> impl Iterator<Item = Sym> + use<> {
    let target: Vec<Sym> = match r.target {
        Target::Global => Vec::new(),
        Target::Entity(s) | Target::Session(s) => alloc::vec![s],
        Target::Relation(t) => t.to_vec(),
    };
    target
        .into_iter()
        .chain([r.author, r.content])
        .chain(r.mood)
}
