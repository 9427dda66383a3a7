//! The history tools: `history` (what changed, when, by which client), `undo` (put back
//! what a change changed), and the `asOf` argument of the read tools. They read the log
//! through [`Journal`], which the server fetches when a call asks for it.

use alloc::collections::VecDeque;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use serde::Serialize;
use serde_json::{Value, json};

use super::meta::reflection_view;
use crate::json;
use crate::log::Intent;
use crate::memory::Store;
use crate::memory::history::{ChangeId, Journal};
use crate::model::{self, Millis, Relation};
use crate::record::{OP_NAMES, Op};
use crate::time;
use crate::tools::args::time_arg;
use crate::tools::{Call, Done, output};

/// Changes a `history` answer lists when the call gives no `limit`.
const DEFAULT_LIMIT: usize = 50;

/// What a `history` call asks for.
pub struct Query {
    /// Only changes touching this entity (or relations at it).
    entity: Option<String>,
    /// Only changes made at or after this time.
    since: Millis,
    /// Only changes made before this time.
    until: Millis,
    /// Only changes made by this client (`clientInfo.name`).
    client: Option<String>,
    /// At most this many, newest first.
    limit: usize,
    /// At most this many items (entities, relations, observations…) shown per op; the
    /// number left out is its `omitted`.
    items_per_op: usize,
}

/// Reads a `history` call's arguments (checked against the schema already).
fn query(a: &Value) -> Result<Query, String> {
    let text = |k: &str| a.get(k).and_then(Value::as_str).map(String::from);
    let since = time_arg(a, "since")?.unwrap_or(0);
    let until = time_arg(a, "until")?.unwrap_or(Millis::MAX);
    if since >= until {
        return Err(format!(
            "since: must be before until ({} is not before {})",
            time::iso(since),
            time::iso(until)
        ));
    }
    Ok(Query {
        entity: text("entityName"),
        since,
        until,
        client: text("client"),
        limit: a
            .get("limit")
            .and_then(Value::as_u64)
            .map_or(DEFAULT_LIMIT, |n| n as usize),
        items_per_op: a
            .get("itemsPerOp")
            .and_then(Value::as_u64)
            .map_or(usize::MAX, |n| n as usize),
    })
}

/// The id an `undo` call names, or an error naming the field and the rule.
fn change_id(a: &Value) -> Result<ChangeId, String> {
    let text = a
        .get("changeId")
        .and_then(Value::as_str)
        .unwrap_or_default();
    ChangeId::parse(text).ok_or_else(|| {
        format!(
            "changeId: {text:?} is not a change id (the history tool lists them, like \"1700000000000-0\")"
        )
    })
}

#[derive(Serialize)]
struct ChangeView<'j> {
    id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    at: Option<String>,
    client: &'j str,
    #[serde(rename = "clientVersion")]
    client_version: &'j str,
    session: &'j str,
    #[serde(skip_serializing_if = "Option::is_none")]
    actor: Option<&'j str>,
    ops: Vec<Value>,
}

#[derive(Serialize)]
struct HistoryView<'j> {
    changes: Vec<ChangeView<'j>>,
    /// More changes matched than the limit let through (older ones).
    more: bool,
}

/// history: the changes the log holds that match the arguments (see [`answer`]).
pub fn history(m: &mut dyn Store, c: Call<'_>) -> Done {
    let result = query(c.args).and_then(|q| {
        let mut journal = m.journal(Intent::Read).map_err(|e| e.to_string())?;
        answer(&mut journal, &q)
    });
    Done::unchanged(result.unwrap_or_else(|e| output::failure(&e)))
}

/// undo: the change the arguments name undone (see [`Store::undo`]), as a change of its own.
pub fn undo(m: &mut dyn Store, c: Call<'_>) -> Done {
    let id = match change_id(c.args) {
        Ok(id) => id,
        Err(e) => return Done::failure(&e),
    };
    match m.undo(id, c.now, &c.by) {
        Ok(Ok(())) => Done {
            result: undone(id),
            changed: true,
        },
        Ok(Err(refused)) => Done::failure(&refused.0),
        Err(e) => Done::failure(&e.to_string()),
    }
}

/// The `history` result: the changes matching `q`, newest first, each with its id, time,
/// who made it, and its ops (with an entity, only the parts that touch it). The log is read
/// forward, keeping the newest `limit` matches read so far.
fn answer(journal: &mut Journal<'_>, q: &Query) -> Result<String, String> {
    let mut newest: VecDeque<(ChangeId, Vec<u8>)> = VecDeque::new();
    let mut matched = 0usize;
    while let Some((id, bytes)) = journal.next_change().map_err(|e| e.to_string())? {
        if id.at < q.since || id.at >= q.until {
            continue;
        }
        let by = journal.by(&bytes).map_err(|e| e.to_string())?;
        if q.client.as_deref().is_some_and(|c| c != by.client) {
            continue;
        }
        let record = Journal::record(&bytes).map_err(|e| e.to_string())?;
        let shown = |op| op_view(op, q.entity.as_deref(), 1).is_some();
        if !record.ops.iter().any(shown) {
            continue;
        }
        matched += 1;
        if newest.len() == q.limit {
            newest.pop_front();
        }
        if q.limit > 0 {
            newest.push_back((id, bytes));
        }
    }
    let mut shown = Vec::with_capacity(newest.len());
    for (id, bytes) in newest.iter().rev() {
        let by = journal.by(bytes).map_err(|e| e.to_string())?;
        let record = Journal::record(bytes).map_err(|e| e.to_string())?;
        shown.push(ChangeView {
            id: format!("{id}"),
            at: time::iso_known(id.at),
            client: by.client,
            client_version: by.version,
            session: by.session,
            actor: by.actor,
            ops: record
                .ops
                .iter()
                .filter_map(|op| op_view(op, q.entity.as_deref(), q.items_per_op))
                .collect(),
        });
    }
    let view = HistoryView {
        more: matched > shown.len(),
        changes: shown,
    };
    Ok(output::success(&json::pretty(&view), &view))
}

fn touches(r: &Relation<'_>, name: &str) -> bool {
    r.from == name || r.to == name
}

fn relation_json(r: &Relation<'_>) -> Value {
    json!({"from": r.from, "to": r.to, "relationType": r.relation_type})
}

/// The first `cap` of `list`'s items that `keep` lets through, as JSON by `view`, and how
/// many more it lets through; `None` if none.
fn kept<T>(
    cap: usize,
    list: &[T],
    keep: impl Fn(&T) -> bool,
    view: impl Fn(&T) -> Value,
) -> Option<(Vec<Value>, usize)> {
    let mut through = list.iter().filter(|t| keep(t));
    let items: Vec<Value> = through.by_ref().take(cap).map(view).collect();
    (!items.is_empty()).then(|| (items, through.count()))
}

/// One op as `history` shows it, limited to what touches `entity` if given and to `cap`
/// items (the number left out is `omitted`); `None` if nothing of it does (or it is
/// bookkeeping: the table of agents, usage counts).
fn op_view(op: &Op<'_>, entity: Option<&str>, cap: usize) -> Option<Value> {
    let is = |name: &str| entity.is_none_or(|e| e == name);
    let at = |r: &Relation<'_>| entity.is_none_or(|e| touches(r, e));
    let (key, items) = match op {
        Op::Agents(_) | Op::Used(_) => return None,
        Op::Reserved(never) => match *never {},
        Op::CreateEntities(list) => ("entities", kept(cap, list, |e| is(e.name), |e| json!(e))?),
        Op::CreateRelations(list) | Op::DeleteRelations(list) | Op::EndRelations(list) => {
            ("relations", kept(cap, list, at, relation_json)?)
        }
        Op::CreateRelationsWith(list) => (
            "relations",
            kept(
                cap,
                list,
                |r| at(&r.relation),
                |r| {
                    let mut v = relation_json(&r.relation);
                    if let Some(context) = r.context {
                        v["context"] = json!(context);
                    }
                    v
                },
            )?,
        ),
        Op::AddObservations(list) | Op::DeleteObservations(list) => (
            "observations",
            kept(cap, list, |o| is(o.entity), |o| json!(o))?,
        ),
        Op::AddFacts(list) => (
            "observations",
            kept(
                cap,
                list,
                |f| is(f.entity),
                |f| {
                    let facts: Vec<Value> = f
                        .facts
                        .iter()
                        .map(|n| {
                            let mut v =
                                json!({"text": n.text, "kind": n.kind.unwrap_or("generic")});
                            if n.supersedes != 0 {
                                v["supersedes"] = json!(n.supersedes);
                            }
                            v
                        })
                        .collect();
                    json!({"entityName": f.entity, "contents": facts})
                },
            )?,
        ),
        Op::DeleteEntities(names) | Op::Forget(names) => {
            ("entityNames", kept(cap, names, |n| is(n), |n| json!(n))?)
        }
        Op::PutEntities(list) => (
            "entityNames",
            kept(cap, list, |e| is(e.name), |e| json!(e.name))?,
        ),
        Op::PutRelations(list) => (
            "relations",
            kept(
                cap,
                list,
                |r| at(&r.relation),
                |r| relation_json(&r.relation),
            )?,
        ),
        Op::PatchEntities(list) => (
            "entities",
            kept(
                cap,
                list,
                |p| is(p.name) || p.parent.flatten().is_some_and(is),
                patch_json,
            )?,
        ),
        Op::Reflect(list) => (
            "reflections",
            kept(
                cap,
                list,
                |r| reflection_about(&r.target, entity),
                |r| {
                    let mut v = json!(reflection_view(model::Reflection {
                        id: 0,
                        target: r.target,
                        author: r.author,
                        mood: r.mood,
                        content: r.content,
                        created: 0,
                    }));
                    if let Some(v) = v.as_object_mut() {
                        v.remove("id");
                    }
                    v
                },
            )?,
        ),
        Op::PutReflections(list) => (
            "reflections",
            kept(
                cap,
                list,
                |r| reflection_about(&r.target, entity),
                |r| json!(reflection_view(*r)),
            )?,
        ),
        // Not about any entity: shown only when the history asked is the whole memory's.
        Op::PutTagAliases(list) => (
            "tagAliases",
            kept(cap, list, |_| entity.is_none(), |a| json!(a))?,
        ),
        Op::PutSavedSearches(list) => (
            "savedSearches",
            kept(cap, list, |_| entity.is_none(), |q| json!(q))?,
        ),
        Op::PutArchived(list) => (
            "archived",
            kept(cap, list, |a| is(a.entity.name), |a| json!(a.entity.name))?,
        ),
        Op::RemoveArchived(names) => ("restored", kept(cap, names, |n| is(n), |n| json!(n))?),
        Op::RemoveTagAliases(names) | Op::RemoveSavedSearches(names) => (
            "names",
            kept(cap, names, |_| entity.is_none(), |n| json!(n))?,
        ),
        Op::Restore(r) => {
            let names = r
                .entities
                .iter()
                .copied()
                .chain(r.put_entities.iter().map(|e| e.name));
            let mut names: Vec<&str> = names.filter(|n| is(n)).collect();
            names.sort_unstable();
            names.dedup();
            let relations: Vec<&Relation<'_>> = r.relations.iter().filter(|t| at(t)).collect();
            if names.is_empty() && relations.is_empty() {
                return None;
            }
            let omitted = names.len().saturating_sub(cap) + relations.len().saturating_sub(cap);
            names.truncate(cap);
            let relations: Vec<Value> =
                relations.into_iter().take(cap).map(relation_json).collect();
            let mut view = json!({
                "op": OP_NAMES[op.index()],
                "entityNames": names,
                "relations": relations,
            });
            if omitted > 0 {
                view["omitted"] = json!(omitted);
            }
            return Some(view);
        }
    };
    let (items, omitted) = items;
    let mut view = json!({"op": OP_NAMES[op.index()], key: items});
    if omitted > 0 {
        view["omitted"] = json!(omitted);
    }
    Some(view)
}

fn reflection_about(target: &model::Target<'_>, entity: Option<&str>) -> bool {
    let Some(name) = entity else {
        return true;
    };
    match target {
        model::Target::Entity(e) => *e == name,
        model::Target::Relation(r) => touches(r, name),
        model::Target::Global | model::Target::Session(_) => false,
    }
}

fn patch_json(p: &model::EntityPatch<'_>) -> Value {
    let mut v = json!({"name": p.name});
    if let Some(tags) = &p.tags {
        v["tags"] = json!(tags);
    }
    if let Some(importance) = p.importance {
        v["importance"] = json!(importance);
    }
    if let Some(parent) = p.parent {
        v["parentId"] = json!(parent);
    }
    if let Some(status) = p.status {
        v["status"] = json!(status);
    }
    v
}

#[derive(Serialize)]
struct Undone {
    success: bool,
    undone: String,
    message: String,
}

/// The `undo` result: `id` was undone.
fn undone(id: ChangeId) -> String {
    let view = Undone {
        success: true,
        undone: format!("{id}"),
        message: format!(
            "Change {id} was undone: what it changed is as it was before it (the undo is itself a change in the history)"
        ),
    };
    output::success(&view.message, &view)
}
