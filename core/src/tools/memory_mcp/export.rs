//! The TypeScript seed's `export_graph`, in its argument and result shapes: the graph (or
//! the part its `filter` picks) as text in one of its formats ([`formats`]), the text itself
//! the answer's one item, as the seed answers an export it does not compress
//! (structuredContent `{format, output}`, as this server's `export_graph` answers).
//!
//! The filter picks as `search_by_date_range` does ([`super::dates::in_range`]: created in
//! the range, of the type, with one of the tags, and the relations among them made in the
//! range) but without its cap of 50: an export is everything that matches. The core does no
//! I/O and has no brotli, so `outputPath` and `compress: true` are refused, saying the
//! export is in the answer; `streaming` changes nothing (the seed streams only to a file);
//! `redactPii` (the seed's regular expressions for e-mails, phone and card numbers, ...) is
//! refused.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Deserialize;
use serde_json::Value;

use super::dates::in_range;
use super::formats::{self, Doc};
use super::search::relations_among;
use crate::graph::{EntityId, RelationId};
use crate::tools::Ctx;
use crate::tools::output;
use crate::tools::parse;

/// `export_graph` (the seed's): the graph, or what `filter` picks, as `format`.
pub fn export_graph(t: Ctx<'_>, a: &Value) -> Result<String, String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Args<'a> {
        format: &'a str,
        compress: Option<bool>,
        output_path: Option<&'a str>,
        #[serde(default)]
        redact_pii: bool,
    }
    let args = parse::<Args>(a)?;
    if args.output_path.is_some() {
        return Err(
            "outputPath: this server writes no files; the export is the answer's text (leave outputPath out)"
                .into(),
        );
    }
    if args.compress == Some(true) {
        return Err(
            "compress: this server does not compress exports; the export is the answer's text, uncompressed (leave compress out or false)"
                .into(),
        );
    }
    if args.redact_pii {
        return Err(
            "redactPii: this server does not redact personal data from exports (leave redactPii out or false)"
                .into(),
        );
    }
    let g = t.graph;
    let (entities, relations): (Vec<EntityId>, Vec<RelationId>) = match a.get("filter") {
        Some(filter) if !filter.is_null() => {
            let picked = in_range(g, filter).map_err(|e| format!("filter.{e}"))?;
            let relations = relations_among(g, &picked.matching, |r| picked.holds(r.created));
            (picked.matching, relations)
        }
        _ => (
            g.entities().map(|(id, _)| id).collect(),
            g.relations().map(|(id, _)| id).collect(),
        ),
    };
    let doc = Doc::of(g, &entities, &relations);
    let text = formats::write(args.format, &doc, t.now).ok_or_else(|| {
        format!(
            "format: {:?} is not a format this server writes",
            args.format
        )
    })?;
    /// structuredContent: what this server's `export_graph` answers.
    #[derive(serde::Serialize)]
    struct Export<'a> {
        format: &'a str,
        output: &'a str,
    }
    let export = Export {
        format: args.format,
        output: &text,
    };
    Ok(output::success(&text, &export))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_schema_lists_the_formats_written() {
        let defs: Value =
            serde_json::from_str(include_str!("export.json")).expect("export.json is valid");
        let tool = &defs["tools"][0];
        assert_eq!(tool["name"], "export_graph");
        let listed: Vec<&str> = tool["inputSchema"]["properties"]["format"]["enum"]
            .as_array()
            .expect("an enum")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(listed, formats::WRITTEN);
        let graph = crate::graph::Graph::default();
        for format in formats::WRITTEN {
            let doc = Doc {
                entities: Vec::new(),
                relations: Vec::new(),
            };
            assert!(formats::write(format, &doc, 0).is_some(), "{format}");
        }
        assert!(graph.entities().next().is_none());
    }
}
