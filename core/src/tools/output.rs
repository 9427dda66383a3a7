//! The JSON shapes tools return, and the `CallToolResult` envelopes around them.
//!
//! A successful result is `{"content":[{"type":"text","text":T}],"structuredContent":S}` where
//! T is S (or its array) formatted like `JSON.stringify(x, null, 2)`, as the reference does.

use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

use crate::graph::{EntityId, Graph, RelationId};
use crate::intern::Sym;
use crate::json;

/// An `{entities, relations}` answer still to be written: as the pretty text of
/// `JSON.stringify(x, null, 2)` embedded in a JSON string and, for a tool result, the
/// compact structuredContent after it. Written straight from the graph, without
/// intermediate values, and a piece at a time ([`GraphText::write`]): read_graph of a large
/// graph is the biggest answer there is, and a host can send it on while the rest is
/// written, holding one piece instead of the whole.
pub struct GraphText {
    entities: Vec<EntityId>,
    relations: Vec<RelationId>,
    /// Whether the compact copy (structuredContent) follows the text.
    structured: bool,
    /// What is written next: the part, and the item in it.
    part: Part,
    at: usize,
}

/// The parts of a [`GraphText`], in the order written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    PrettyEntities,
    PrettyRelations,
    CompactEntities,
    CompactRelations,
    Done,
}

/// Between the text of a tool result and its structuredContent.
const TEXT_TO_STRUCTURED: &str = "\"}],\"structuredContent\":";

impl GraphText {
    /// The answer `{entities, relations}`: its text, then (when `structured`) the rest of a
    /// tool result, ending with the structuredContent.
    pub fn new(entities: Vec<EntityId>, relations: Vec<RelationId>, structured: bool) -> Self {
        GraphText {
            entities,
            relations,
            structured,
            part: Part::PrettyEntities,
            at: 0,
        }
    }

    /// A little more than the bytes the whole answer takes, so an output buffer for all of
    /// it is allocated once and never doubles (a read_graph of 10,000 entities is 10 MB;
    /// doubling would hold 20).
    pub fn estimate(&self, graph: &Graph) -> usize {
        let g = graph;
        let copies = 1 + usize::from(self.structured);
        let len = |sym| g.text(sym).len();
        let entities: usize = self
            .entities
            .iter()
            .map(|&id| {
                let e = g.entity(id);
                80 * copies
                    + copies * (len(e.name) + len(e.entity_type))
                    + e.observations
                        .iter()
                        .map(|&o| 12 * copies + copies * len(o))
                        .sum::<usize>()
            })
            .sum();
        let relations: usize = self
            .relations
            .iter()
            .map(|&id| {
                let r = g.relation(id);
                68 * copies + copies * (len(r.from) + len(r.to) + len(r.relation_type))
            })
            .sum();
        let total = entities + relations;
        // Escapes (quotes, backslashes, control characters) take room the sum does not count.
        total + total / 32 + 1024
    }

    /// Writes the next items to `out` until it holds `until` bytes or the answer is
    /// complete; returns whether it is.
    pub fn write(&mut self, graph: &Graph, out: &mut String, until: usize) -> bool {
        while out.len() < until {
            if self.part == Part::Done {
                return true;
            }
            self.write_item(graph, out);
        }
        self.part == Part::Done
    }

    /// Writes the whole rest of the answer to `out`.
    pub fn write_all(&mut self, graph: &Graph, out: &mut String) {
        self.write(graph, out, usize::MAX);
    }

    /// Writes one item, or the words that close a part and open the next.
    fn write_item(&mut self, g: &Graph, out: &mut String) {
        let first = self.at == 0;
        match self.part {
            Part::PrettyEntities => {
                if first {
                    out.push_str("{\\n  \\\"entities\\\": [");
                }
                match self.entities.get(self.at) {
                    Some(&id) => pretty_entity(g, id, first, out),
                    None => {
                        out.push_str(if first {
                            "],\\n  \\\"relations\\\": ["
                        } else {
                            "\\n  ],\\n  \\\"relations\\\": ["
                        });
                        return self.next(Part::PrettyRelations);
                    }
                }
            }
            Part::PrettyRelations => match self.relations.get(self.at) {
                Some(&id) => pretty_relation(g, id, first, out),
                None => {
                    out.push_str(if first { "]\\n}" } else { "\\n  ]\\n}" });
                    return self.next(if self.structured {
                        Part::CompactEntities
                    } else {
                        Part::Done
                    });
                }
            },
            Part::CompactEntities => {
                if first {
                    out.push_str(TEXT_TO_STRUCTURED);
                    out.push_str("{\"entities\":[");
                }
                match self.entities.get(self.at) {
                    Some(&id) => compact_entity(g, id, first, out),
                    None => {
                        out.push_str("],\"relations\":[");
                        return self.next(Part::CompactRelations);
                    }
                }
            }
            Part::CompactRelations => match self.relations.get(self.at) {
                Some(&id) => compact_relation(g, id, first, out),
                None => {
                    out.push_str("]}}");
                    return self.next(Part::Done);
                }
            },
            Part::Done => return,
        }
        self.at += 1;
    }

    fn next(&mut self, part: Part) {
        self.part = part;
        self.at = 0;
    }
}

/// A stored string as a value inside the pretty text: escaped twice (once for the text,
/// once for the JSON string that carries it).
fn pretty_value(g: &Graph, sym: Sym, out: &mut String) {
    out.push_str("\\\"");
    json::escape_twice_into(out, g.text(sym));
    out.push_str("\\\"");
}

fn pretty_entity(g: &Graph, id: EntityId, first: bool, out: &mut String) {
    let e = g.entity(id);
    out.push_str(if first {
        "\\n    {\\n      \\\"name\\\": "
    } else {
        ",\\n    {\\n      \\\"name\\\": "
    });
    pretty_value(g, e.name, out);
    out.push_str(",\\n      \\\"entityType\\\": ");
    pretty_value(g, e.entity_type, out);
    out.push_str(",\\n      \\\"observations\\\": [");
    for (j, &o) in e.observations.iter().enumerate() {
        out.push_str(if j == 0 {
            "\\n        "
        } else {
            ",\\n        "
        });
        pretty_value(g, o, out);
    }
    out.push_str(if e.observations.is_empty() {
        "]\\n    }"
    } else {
        "\\n      ]\\n    }"
    });
}

fn pretty_relation(g: &Graph, id: RelationId, first: bool, out: &mut String) {
    let r = g.relation(id);
    out.push_str(if first {
        "\\n    {\\n      \\\"from\\\": "
    } else {
        ",\\n    {\\n      \\\"from\\\": "
    });
    pretty_value(g, r.from, out);
    out.push_str(",\\n      \\\"to\\\": ");
    pretty_value(g, r.to, out);
    out.push_str(",\\n      \\\"relationType\\\": ");
    pretty_value(g, r.relation_type, out);
    out.push_str("\\n    }");
}

/// A stored string as a compact JSON value.
fn compact_value(g: &Graph, sym: Sym, out: &mut String) {
    out.push('"');
    json::escape_into(out, g.text(sym));
    out.push('"');
}

fn compact_entity(g: &Graph, id: EntityId, first: bool, out: &mut String) {
    let e = g.entity(id);
    out.push_str(if first { "{\"name\":" } else { ",{\"name\":" });
    compact_value(g, e.name, out);
    out.push_str(",\"entityType\":");
    compact_value(g, e.entity_type, out);
    out.push_str(",\"observations\":[");
    for (j, &o) in e.observations.iter().enumerate() {
        if j > 0 {
            out.push(',');
        }
        compact_value(g, o, out);
    }
    out.push_str("]}");
}

fn compact_relation(g: &Graph, id: RelationId, first: bool, out: &mut String) {
    let r = g.relation(id);
    out.push_str(if first { "{\"from\":" } else { ",{\"from\":" });
    compact_value(g, r.from, out);
    out.push_str(",\"to\":");
    compact_value(g, r.to, out);
    out.push_str(",\"relationType\":");
    compact_value(g, r.relation_type, out);
    out.push('}');
}

/// What a `CallToolResult` of entities and relations starts with, before [`GraphText`].
pub const GRAPH_RESULT_HEAD: &str = "{\"content\":[{\"type\":\"text\",\"text\":\"";

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

/// A result of one text item and nothing else.
#[derive(Serialize)]
struct Plain<'a> {
    content: [Text<'a>; 1],
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

/// A success that is only `text` (no structuredContent), as the seed answers raw text.
pub fn success_text(text: &str) -> String {
    json::compact(&Plain {
        content: [Text { kind: "text", text }],
    })
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
    use crate::tools::Answer;
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
            let whole = Answer::Graph(GraphText::new(e.to_vec(), r.to_vec(), true)).into_text(&g);
            let result: Value = serde_json::from_str(&whole).unwrap();
            assert_eq!(result["content"][0]["text"], Value::String(text.clone()));
            assert_eq!(result["structuredContent"], graph);
            let mut literal = String::from("\"");
            GraphText::new(e.to_vec(), r.to_vec(), false).write_all(&g, &mut literal);
            literal.push('"');
            assert_eq!(literal, serde_json::to_string(&text).unwrap());
            // Written a piece at a time, whatever the pieces' size, it is the same answer.
            for piece in [1, 7, 100] {
                let mut answer = GraphText::new(e.to_vec(), r.to_vec(), true);
                let mut out = String::from(GRAPH_RESULT_HEAD);
                let mut pieces = 1;
                while !answer.write(&g, &mut out, piece * pieces) {
                    pieces += 1;
                }
                assert_eq!(out, whole);
                assert!(piece > 7 || pieces > 2, "{piece} bytes: {pieces} pieces");
            }
        }
    }
}
