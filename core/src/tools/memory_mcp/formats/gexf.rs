//! GEXF 1.2 (draft): nodes with their type and observations as attributes, edges labelled
//! with their type; no times, tags or importance, as the seed writes it.

use alloc::format;
use alloc::string::String;

use super::{Doc, xml_escape};

/// The graph as the seed's gexf export.
pub(crate) fn write(doc: &Doc<'_>) -> String {
    let mut out = String::from(concat!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
        "<gexf xmlns=\"http://www.gexf.net/1.2draft\" version=\"1.2\">\n",
        "  <meta>\n",
        "    <creator>Memory MCP Server</creator>\n",
        "  </meta>\n",
        "  <graph mode=\"static\" defaultedgetype=\"directed\">\n",
        "    <attributes class=\"node\">\n",
        "      <attribute id=\"0\" title=\"entityType\" type=\"string\"/>\n",
        "      <attribute id=\"1\" title=\"observations\" type=\"string\"/>\n",
        "    </attributes>\n",
        "    <nodes>\n",
    ));
    for e in &doc.entities {
        let id = xml_escape(e.entity.name);
        out.push_str(&format!(
            concat!(
                "      <node id=\"{id}\" label=\"{id}\">\n",
                "        <attvalues>\n",
                "          <attvalue for=\"0\" value=\"{t}\"/>\n",
                "          <attvalue for=\"1\" value=\"{o}\"/>\n",
                "        </attvalues>\n",
                "      </node>\n",
            ),
            id = id,
            t = xml_escape(e.entity.entity_type),
            o = xml_escape(&e.entity.observations.join("; ")),
        ));
    }
    out.push_str("    </nodes>\n    <edges>\n");
    for (i, r) in doc.relations.iter().enumerate() {
        out.push_str(&format!(
            "      <edge id=\"{i}\" source=\"{}\" target=\"{}\" label=\"{}\"/>\n",
            xml_escape(r.relation.from),
            xml_escape(r.relation.to),
            xml_escape(r.relation.relation_type)
        ));
    }
    out.push_str("    </edges>\n  </graph>\n</gexf>");
    out
}
