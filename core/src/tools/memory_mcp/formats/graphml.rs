//! GraphML: the seed's keys (`d0`–`d5` for an entity's type, observations, times, tags and
//! importance; `e0`–`e2` for a relation's type and times), a `<node>` per entity (its id the
//! name) and an `<edge>` per relation.
//!
//! Read with a real XML parser ([`roxmltree`]; no DTD, so no entity expansion): every XML
//! escape is decoded, attributes may come in any order, and a `<key>` declaration's
//! `attr.name` says what its data is (the seed's regular expressions fix the ids and ignore
//! declarations). A document that is not XML or not GraphML, a node without an id, an edge
//! without both ends and a `<data>` without a key are refused, naming the element and line.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use roxmltree::{Document, Node};

use super::{
    Doc, Fields, Read, RelationFields, importance_text, js_number, split_list, xml_escape,
};

/// The seed's key declarations.
const KEYS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="entityType" attr.type="string"/>
  <key id="d1" for="node" attr.name="observations" attr.type="string"/>
  <key id="d2" for="node" attr.name="createdAt" attr.type="string"/>
  <key id="d3" for="node" attr.name="lastModified" attr.type="string"/>
  <key id="d4" for="node" attr.name="tags" attr.type="string"/>
  <key id="d5" for="node" attr.name="importance" attr.type="double"/>
  <key id="e0" for="edge" attr.name="relationType" attr.type="string"/>
  <key id="e1" for="edge" attr.name="createdAt" attr.type="string"/>
  <key id="e2" for="edge" attr.name="lastModified" attr.type="string"/>
  <graph id="G" edgedefault="directed">
"#;

/// `<data key="K">value</data>` on its own line, at `indent`.
fn data(out: &mut String, key: &str, value: &str) {
    out.push_str("      <data key=\"");
    out.push_str(key);
    out.push_str("\">");
    out.push_str(value);
    out.push_str("</data>\n");
}

/// The graph as the seed's graphml export.
pub(crate) fn write(doc: &Doc<'_>) -> String {
    let mut out = String::from(KEYS);
    for e in &doc.entities {
        out.push_str(&format!(
            "    <node id=\"{}\">\n",
            xml_escape(e.entity.name)
        ));
        data(&mut out, "d0", &xml_escape(e.entity.entity_type));
        data(
            &mut out,
            "d1",
            &xml_escape(&e.entity.observations.join("; ")),
        );
        if let Some(t) = &e.created {
            data(&mut out, "d2", &xml_escape(t));
        }
        if let Some(t) = &e.updated {
            data(&mut out, "d3", &xml_escape(t));
        }
        if !e.tags.is_empty() {
            data(&mut out, "d4", &xml_escape(&e.tags.join("; ")));
        }
        if let Some(x) = e.importance {
            data(&mut out, "d5", &js_number(x));
        }
        out.push_str("    </node>\n");
    }
    for (i, r) in doc.relations.iter().enumerate() {
        out.push_str(&format!(
            "    <edge id=\"e{i}\" source=\"{}\" target=\"{}\">\n",
            xml_escape(r.relation.from),
            xml_escape(r.relation.to)
        ));
        data(&mut out, "e0", &xml_escape(r.relation.relation_type));
        if let Some(t) = &r.created {
            data(&mut out, "e1", &xml_escape(t));
        }
        if let Some(t) = &r.updated {
            data(&mut out, "e2", &xml_escape(t));
        }
        out.push_str("    </edge>\n");
    }
    out.push_str("  </graph>\n</graphml>");
    out
}

/// What a key's data is: its declared `attr.name`, else the seed's fixed meaning of its id.
struct Keys<'d> {
    /// `(id, for, attr.name)` of each declaration.
    declared: Vec<(&'d str, &'d str, &'d str)>,
}

impl Keys<'_> {
    /// The field a `<data key>` of an element named `element` (node or edge) holds.
    fn field<'k>(&'k self, element: &str, key: &'k str) -> &'k str {
        let declared = self
            .declared
            .iter()
            .find(|(id, on, _)| *id == key && (*on == element || *on == "all" || on.is_empty()));
        if let Some((_, _, name)) = declared {
            return name;
        }
        let fixed: &[(&str, &str)] = if element == "node" {
            &[
                ("d0", "entityType"),
                ("d1", "observations"),
                ("d2", "createdAt"),
                ("d3", "lastModified"),
                ("d4", "tags"),
                ("d5", "importance"),
            ]
        } else {
            &[
                ("e0", "relationType"),
                ("e1", "createdAt"),
                ("e2", "lastModified"),
            ]
        };
        fixed
            .iter()
            .find(|(id, _)| *id == key)
            .map_or(key, |(_, name)| name)
    }
}

/// `node`'s element name and line, for messages: `<node> at line 12`.
fn place(doc: &Document<'_>, node: Node<'_, '_>) -> String {
    let pos = doc.text_pos_at(node.range().start);
    format!("<{}> at line {}", node.tag_name().name(), pos.row)
}

/// The text an element holds (its text nodes, in order).
fn text_of(node: Node<'_, '_>) -> String {
    node.descendants()
        .filter(Node::is_text)
        .filter_map(|n| n.text())
        .collect()
}

/// Each `<data>` child of `element`: the field it holds (by the keys) and its text.
fn data_of<'k>(
    doc: &Document<'_>,
    keys: &'k Keys<'_>,
    element: Node<'k, '_>,
) -> Result<Vec<(&'k str, String)>, String> {
    let kind = element.tag_name().name();
    let mut out = Vec::new();
    for d in element.children().filter(|c| c.has_tag_name("data")) {
        let key = d
            .attribute("key")
            .ok_or_else(|| format!("{} has no key attribute", place(doc, d)))?;
        out.push((keys.field(kind, key), text_of(d)));
    }
    Ok(out)
}

/// Reads the seed's GraphML.
pub fn read(data: &str) -> Result<Read, String> {
    let doc = Document::parse(data).map_err(|e| format!("not XML: {e}"))?;
    let root = doc.root_element();
    if root.tag_name().name() != "graphml" {
        return Err(format!(
            "the root element is {}, not <graphml>",
            place(&doc, root)
        ));
    }
    let keys = Keys {
        declared: root
            .children()
            .filter(|c| c.has_tag_name("key"))
            .filter_map(|k| {
                Some((
                    k.attribute("id")?,
                    k.attribute("for").unwrap_or_default(),
                    k.attribute("attr.name")?,
                ))
            })
            .collect(),
    };
    let graph = root
        .children()
        .find(|c| c.has_tag_name("graph"))
        .ok_or_else(|| format!("{} holds no <graph>", place(&doc, root)))?;
    let mut read = Read::default();
    let (mut nodes, mut edges) = (0, 0);
    for element in graph.children().filter(Node::is_element) {
        match element.tag_name().name() {
            "node" => {
                nodes += 1;
                let name = element
                    .attribute("id")
                    .ok_or_else(|| format!("{} has no id", place(&doc, element)))?;
                let mut f = Fields {
                    name: name.to_string(),
                    entity_type: "unknown".to_string(),
                    ..Fields::default()
                };
                let mut importance = Ok(None);
                for (field, value) in data_of(&doc, &keys, element)? {
                    let given = (!value.is_empty()).then(|| value.clone());
                    match field {
                        "entityType" => f.entity_type = value,
                        "observations" => f.observations = split_list(&value),
                        "createdAt" => f.created = given,
                        "lastModified" => f.updated = given,
                        "tags" => f.tags = split_list(&value),
                        "importance" => importance = importance_text(&value),
                        "parentId" => f.parent = given,
                        _ => {}
                    }
                }
                let at = || format!("node {nodes} ({})", place(&doc, element));
                match importance {
                    Ok(importance) => read.entity(at, Fields { importance, ..f }),
                    Err(why) => read.error(at, why),
                }
            }
            "edge" => {
                edges += 1;
                let (Some(from), Some(to)) =
                    (element.attribute("source"), element.attribute("target"))
                else {
                    return Err(format!(
                        "{} needs both a source and a target",
                        place(&doc, element)
                    ));
                };
                let values = data_of(&doc, &keys, element)?;
                let get = |name: &str| {
                    values
                        .iter()
                        .find(|(f, v)| *f == name && !v.is_empty())
                        .map(|(_, v)| v.as_str())
                };
                read.relation(
                    || format!("edge {edges} ({})", place(&doc, element)),
                    RelationFields {
                        from,
                        to,
                        relation_type: get("relationType").unwrap_or("related_to"),
                        created: get("createdAt"),
                        updated: get("lastModified"),
                    },
                );
            }
            _ => {}
        }
    }
    Ok(read)
}
