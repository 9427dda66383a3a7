//! The JSON shapes tools return, and the `CallToolResult` envelopes around them.
//!
//! A successful result is `{"content":[{"type":"text","text":T}],"structuredContent":S}` where
//! T is S (or its array) formatted like `JSON.stringify(x, null, 2)`, as the reference does.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::graph::{EntityId, Graph, RelationId};
use crate::json;

/// Writes `{entities, relations}` results directly, without intermediate values: read_graph
/// on a large graph is the biggest answer a tool gives, and this is its hot path.
struct GraphWriter<'g> {
    graph: &'g Graph,
    entities: &'g [EntityId],
    relations: &'g [RelationId],
}

impl GraphWriter<'_> {
    /// A little more than the bytes the pretty text and the compact copy take together,
    /// so the output buffer is allocated once and never doubles (a read_graph of 10,000
    /// entities is 10 MB; doubling would hold 20).
    fn estimate(&self) -> usize {
        let g = self.graph;
        let len = |sym| g.text(sym).len();
        let entities: usize = self
            .entities
            .iter()
            .map(|&id| {
                let e = g.entity(id);
                160 + 2 * (len(e.name) + len(e.entity_type))
                    + e.observations
                        .iter()
                        .map(|&o| 24 + 2 * len(o))
                        .sum::<usize>()
            })
            .sum();
        let relations: usize = self
            .relations
            .iter()
            .map(|&id| {
                let r = g.relation(id);
                136 + 2 * (len(r.from) + len(r.to) + len(r.relation_type))
            })
            .sum();
        let total = entities + relations;
        // Escapes (quotes, backslashes, control characters) take room the sum does not count.
        total + total / 32 + 1024
    }

    /// `JSON.stringify({entities, relations}, null, 2)`, written as the body of a JSON string.
    fn pretty_embedded(&self, out: &mut String) {
        let g = self.graph;
        // The structure below is written already escaped once; values are escaped twice.
        let val = |out: &mut String, sym| {
            out.push_str("\\\"");
            json::escape_twice_into(out, g.text(sym));
            out.push_str("\\\"");
        };
        out.push_str("{\\n  \\\"entities\\\": [");
        for (i, &id) in self.entities.iter().enumerate() {
            let e = g.entity(id);
            out.push_str(if i == 0 {
                "\\n    {\\n      \\\"name\\\": "
            } else {
                ",\\n    {\\n      \\\"name\\\": "
            });
            val(out, e.name);
            out.push_str(",\\n      \\\"entityType\\\": ");
            val(out, e.entity_type);
            out.push_str(",\\n      \\\"observations\\\": [");
            for (j, &o) in e.observations.iter().enumerate() {
                out.push_str(if j == 0 {
                    "\\n        "
                } else {
                    ",\\n        "
                });
                val(out, o);
            }
            out.push_str(if e.observations.is_empty() {
                "]\\n    }"
            } else {
                "\\n      ]\\n    }"
            });
        }
        out.push_str(if self.entities.is_empty() {
            "],\\n  \\\"relations\\\": ["
        } else {
            "\\n  ],\\n  \\\"relations\\\": ["
        });
        for (i, &id) in self.relations.iter().enumerate() {
            let r = g.relation(id);
            out.push_str(if i == 0 {
                "\\n    {\\n      \\\"from\\\": "
            } else {
                ",\\n    {\\n      \\\"from\\\": "
            });
            val(out, r.from);
            out.push_str(",\\n      \\\"to\\\": ");
            val(out, r.to);
            out.push_str(",\\n      \\\"relationType\\\": ");
            val(out, r.relation_type);
            out.push_str("\\n    }");
        }
        out.push_str(if self.relations.is_empty() {
            "]\\n}"
        } else {
            "\\n  ]\\n}"
        });
    }

    /// `{"entities":[...],"relations":[...]}`, compact.
    fn compact(&self, out: &mut String) {
        let g = self.graph;
        let val = |out: &mut String, sym| {
            out.push('"');
            json::escape_into(out, g.text(sym));
            out.push('"');
        };
        out.push_str("{\"entities\":[");
        for (i, &id) in self.entities.iter().enumerate() {
            let e = g.entity(id);
            out.push_str(if i == 0 { "{\"name\":" } else { ",{\"name\":" });
            val(out, e.name);
            out.push_str(",\"entityType\":");
            val(out, e.entity_type);
            out.push_str(",\"observations\":[");
            for (j, &o) in e.observations.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                val(out, o);
            }
            out.push_str("]}");
        }
        out.push_str("],\"relations\":[");
        for (i, &id) in self.relations.iter().enumerate() {
            let r = g.relation(id);
            out.push_str(if i == 0 { "{\"from\":" } else { ",{\"from\":" });
            val(out, r.from);
            out.push_str(",\"to\":");
            val(out, r.to);
            out.push_str(",\"relationType\":");
            val(out, r.relation_type);
            out.push('}');
        }
        out.push_str("]}");
    }
}

/// The `CallToolResult` of read_graph, search_nodes and open_nodes: these entities and
/// relations as pretty text and as structuredContent.
pub fn graph_result(graph: &Graph, entities: &[EntityId], relations: &[RelationId]) -> String {
    let w = GraphWriter {
        graph,
        entities,
        relations,
    };
    let mut out = String::with_capacity(w.estimate());
    out.push_str("{\"content\":[{\"type\":\"text\",\"text\":\"");
    w.pretty_embedded(&mut out);
    out.push_str("\"}],\"structuredContent\":");
    w.compact(&mut out);
    out.push('}');
    out
}

/// The pretty JSON text of these entities and relations as a JSON string literal (quotes
/// included): the `text` of the knowledge-graph resource.
pub fn graph_text_literal(
    graph: &Graph,
    entities: &[EntityId],
    relations: &[RelationId],
) -> String {
    let w = GraphWriter {
        graph,
        entities,
        relations,
    };
    let mut out = String::with_capacity(w.estimate());
    out.push('"');
    w.pretty_embedded(&mut out);
    out.push('"');
    out
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

/// A success whose text is `text` and whose structuredContent is `structured`.
pub fn success<S: Serialize>(text: &str, structured: &S) -> String {
    json::compact(&Success {
        content: [Text { kind: "text", text }],
        structured,
    })
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
    json::compact(&Failure {
        content: [Text {
            kind: "text",
            text: message,
        }],
        is_error: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Entity, Relation};
    use crate::record::{Op, Record};
    use alloc::vec;
    use serde_json::Value;

    /// The writer must produce exactly what serde_json (= JSON.stringify) produces.
    #[test]
    fn graph_result_equals_serde_json_formatting() {
        let mut g = Graph::default();
        let nasty = "q\"b\\n\nt\tc\u{1}é😀\u{2028}";
        g.apply(
            &Record::from(Op::CreateEntities(vec![
                Entity {
                    name: "A",
                    entity_type: "t",
                    observations: vec![],
                },
                Entity {
                    name: nasty,
                    entity_type: "",
                    observations: vec!["x", nasty, ""],
                },
            ])),
            &mut (),
        );
        g.apply(
            &Record::from(Op::CreateRelations(vec![Relation {
                from: "A",
                to: nasty,
                relation_type: "r",
            }])),
            &mut (),
        );
        let ents: Vec<EntityId> = g.entities().map(|(id, _)| id).collect();
        let rels: Vec<RelationId> = g.relations().map(|(id, _)| id).collect();
        for (e, r) in [
            (&ents[..], &rels[..]),
            (&ents[..0], &rels[..0]),
            (&ents[..1], &rels[..0]),
            (&ents[..0], &rels[..]),
        ] {
            #[derive(Serialize)]
            struct Oracle<'a> {
                entities: Vec<Entity<'a>>,
                relations: Vec<Relation<'a>>,
            }
            let oracle = Oracle {
                entities: e.iter().map(|&id| g.entity_text(g.entity(id))).collect(),
                relations: r
                    .iter()
                    .map(|&id| g.relation_text(g.relation(id)))
                    .collect(),
            };
            let graph = serde_json::to_value(&oracle).unwrap();
            let text = serde_json::to_string_pretty(&oracle).unwrap();
            let result: Value = serde_json::from_str(&graph_result(&g, e, r)).unwrap();
            assert_eq!(result["content"][0]["text"], Value::String(text.clone()));
            assert_eq!(result["structuredContent"], graph);
            assert_eq!(
                graph_text_literal(&g, e, r),
                serde_json::to_string(&text).unwrap()
            );
        }
    }
}
