//! The JSON shapes tools return, and the `CallToolResult` envelopes around them.
//!
//! A successful result is `{"content":[{"type":"text","text":T}],"structuredContent":S}` where
//! T is S (or its array) formatted like `JSON.stringify(x, null, 2)`, as the reference does.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::graph::{Entity, EntityId, Graph, Relation, RelationId};

/// An entity as tools and files show it.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct EntityJson<'a> {
    /// The entity's name.
    pub name: &'a str,
    /// The entity's type.
    #[serde(rename = "entityType")]
    pub entity_type: &'a str,
    /// Its observations, oldest first.
    pub observations: Vec<&'a str>,
}

impl<'g> EntityJson<'g> {
    /// The JSON view of a graph entity.
    pub fn of(graph: &'g Graph, e: &'g Entity) -> Self {
        EntityJson {
            name: graph.text(e.name),
            entity_type: graph.text(e.entity_type),
            observations: e.observations.iter().map(|&o| graph.text(o)).collect(),
        }
    }
}

/// A relation as tools and files show it.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelationJson<'a> {
    /// Name where the relation starts.
    pub from: &'a str,
    /// Name where the relation ends.
    pub to: &'a str,
    /// The relation's type.
    #[serde(rename = "relationType")]
    pub relation_type: &'a str,
}

impl<'g> RelationJson<'g> {
    /// The JSON view of a graph relation.
    pub fn of(graph: &'g Graph, r: &'g Relation) -> Self {
        RelationJson {
            from: graph.text(r.from),
            to: graph.text(r.to),
            relation_type: graph.text(r.relation_type),
        }
    }
}

/// `{entities, relations}`: the shape of read_graph, search_nodes and open_nodes.
#[derive(Serialize)]
pub struct GraphJson<'a> {
    /// Entities, in graph order.
    pub entities: Vec<EntityJson<'a>>,
    /// Relations, in graph order.
    pub relations: Vec<RelationJson<'a>>,
}

impl<'g> GraphJson<'g> {
    /// The JSON view of some of a graph's entities and relations.
    pub fn of(graph: &'g Graph, entities: &[EntityId], relations: &[RelationId]) -> Self {
        GraphJson {
            entities: entities
                .iter()
                .map(|&id| EntityJson::of(graph, graph.entity(id)))
                .collect(),
            relations: relations
                .iter()
                .map(|&id| RelationJson::of(graph, graph.relation(id)))
                .collect(),
        }
    }

    /// The whole graph.
    pub fn all(graph: &'g Graph) -> Self {
        GraphJson {
            entities: graph
                .entities()
                .map(|(_, e)| EntityJson::of(graph, e))
                .collect(),
            relations: graph
                .relations()
                .map(|(_, r)| RelationJson::of(graph, r))
                .collect(),
        }
    }
}

/// One item of add_observations' result.
#[derive(Serialize)]
pub struct AddedJson<'a> {
    /// The entity's name.
    #[serde(rename = "entityName")]
    pub entity_name: &'a str,
    /// The observations that were new.
    #[serde(rename = "addedObservations")]
    pub added_observations: Vec<&'a str>,
}

#[derive(Serialize)]
struct Text<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

#[derive(Serialize)]
struct Success<'a, S> {
    content: [Text<'a>; 1],
    #[serde(rename = "structuredContent")]
    structured: &'a S,
}

#[derive(Serialize)]
struct Failure<'a> {
    content: [Text<'a>; 1],
    #[serde(rename = "isError")]
    is_error: bool,
}

#[derive(Serialize)]
struct Message<'a> {
    success: bool,
    message: &'a str,
}

/// `JSON.stringify(value, null, 2)`.
pub fn pretty<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string_pretty(value).expect("tool output always serializes")
}

/// Compact JSON text.
pub fn compact<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).expect("tool output always serializes")
}

/// A success whose text is `text` and whose structuredContent is `structured`.
pub fn success<S: Serialize>(text: &str, structured: &S) -> String {
    compact(&Success {
        content: [Text { kind: "text", text }],
        structured,
    })
}

/// A success whose text is the pretty JSON of `structured` itself.
pub fn success_json<S: Serialize>(structured: &S) -> String {
    success(&pretty(structured), structured)
}

/// A success carrying `{"success": true, "message": message}`.
pub fn success_message(message: &str) -> String {
    success(
        message,
        &Message {
            success: true,
            message,
        },
    )
}

/// A tool error: `{"content":[{"type":"text","text":message}],"isError":true}`.
pub fn failure(message: &str) -> String {
    compact(&Failure {
        content: [Text {
            kind: "text",
            text: message,
        }],
        is_error: true,
    })
}
