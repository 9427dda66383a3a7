//! The detail the nine's reads show when asked (`include`: metadata, history): an entity's
//! times, tags, importance, parent, status and observations with their kinds and times (and
//! superseded ones), a relation's context and end.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::graph::{Entity, Graph, Relation};
use crate::json;
use crate::model;
use crate::time;

/// An observation in detail.
#[derive(Serialize)]
pub struct FactView<'a> {
    id: u32,
    text: &'a str,
    kind: &'a str,
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    supersedes: Option<u32>,
    #[serde(rename = "supersededAt", skip_serializing_if = "Option::is_none")]
    superseded_at: Option<String>,
}

/// An entity's metadata and observations in detail (and, with `history`, its superseded
/// observations).
#[derive(Serialize)]
pub struct EntityDetail<'a> {
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
    #[serde(rename = "updatedAt", skip_serializing_if = "Option::is_none")]
    updated_at: Option<String>,
    tags: Vec<&'a str>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "json::js_number"
    )]
    importance: Option<f64>,
    #[serde(rename = "parentId", skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    status: &'a str,
    facts: Vec<FactView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    superseded: Option<Vec<FactView<'a>>>,
}

/// The detail of entity `e`.
pub fn entity_detail<'g>(graph: &'g Graph, e: &Entity, history: bool) -> EntityDetail<'g> {
    let state = graph.entity_state(e);
    let view = |f: &model::Fact<'g>| FactView {
        id: f.id,
        text: f.text,
        kind: f.kind.unwrap_or("generic"),
        created_at: time::iso_known(f.created),
        supersedes: (f.supersedes != 0).then_some(f.supersedes),
        superseded_at: time::iso_known(f.superseded),
    };
    let (current, past): (Vec<_>, Vec<_>) = state.facts.iter().partition(|f| f.superseded == 0);
    EntityDetail {
        created_at: time::iso_known(state.created),
        updated_at: time::iso_known(state.updated),
        tags: state.tags,
        importance: state.importance,
        parent: state.parent,
        status: state.status.unwrap_or("active"),
        facts: current.into_iter().map(view).collect(),
        superseded: history.then(|| past.into_iter().map(view).collect()),
    }
}

/// A relation as reads show it: the reference's triple, and with `include` its time and
/// context (and, for an ended one, when it ended).
#[derive(Serialize)]
pub struct RelationView<'a> {
    from: &'a str,
    to: &'a str,
    #[serde(rename = "relationType")]
    relation_type: &'a str,
    #[serde(rename = "createdAt", skip_serializing_if = "Option::is_none")]
    created_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a str>,
    #[serde(rename = "endedAt", skip_serializing_if = "Option::is_none")]
    ended_at: Option<String>,
}

/// Relation `r` as shown: the triple only, or (`detail`) with its time and context.
pub fn relation_view<'g>(
    graph: &'g Graph,
    r: &Relation,
    detail: bool,
    ended: model::Millis,
) -> RelationView<'g> {
    let t = graph.relation_text(r);
    RelationView {
        from: t.from,
        to: t.to,
        relation_type: t.relation_type,
        created_at: if detail {
            time::iso_known(r.created)
        } else {
            None
        },
        context: if detail {
            r.context.map(|c| graph.text(c))
        } else {
            None
        },
        ended_at: time::iso_known(ended),
    }
}
