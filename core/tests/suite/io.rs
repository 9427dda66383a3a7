//! The TypeScript Memory MCP's import_graph (through `Server::handle`) and its
//! export_graph's formats (the tool fn, which the catalog does not list yet): round trips
//! through every format that can be read, exports checked by real parsers, malformed data
//! refused naming where, every merge strategy, and dry runs counting what a run does.

use crate::common::*;
use mcp_memory_core::Server;
use mcp_memory_core::model::Provenance;
use mcp_memory_core::tools::memory_mcp::export::export_graph;
use mcp_memory_core::tools::{Ctx, Uses};
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;
const MINUTE: u64 = 60_000;

/// The seed's export of `m`'s graph (`args`), at `now`: the answer's one text item (the
/// export itself), which structuredContent repeats as `output`.
fn export(m: &Server<MemLog>, args: Value, now: u64) -> Result<String, String> {
    let uses = Uses::default();
    let ctx = Ctx::of(m.memory(), Provenance::default(), now, &uses);
    let answer: Value = serde_json::from_str(&export_graph(ctx, &args)?).unwrap();
    assert_eq!(answer.as_object().unwrap().len(), 2, "{answer}");
    assert_eq!(answer["content"].as_array().unwrap().len(), 1);
    let text = answer["content"][0]["text"].as_str().unwrap();
    assert_eq!(answer["structuredContent"]["output"], text);
    assert_eq!(answer["structuredContent"]["format"], args["format"]);
    Ok(text.to_string())
}

fn export_ok(m: &Server<MemLog>, format: &str) -> String {
    export(m, json!({"format": format}), T0).unwrap()
}

/// Gives entity `name` these tags and this importance.
fn tag_and_rate(m: &mut Server<MemLog>, name: &str, tags: Value, importance: f64) {
    call_ok(m, "add_tags", json!({"entityName": name, "tags": tags}));
    let args = json!({"entityName": name, "importance": importance});
    call_ok(m, "set_importance", args);
}

/// A memory with tags, importance, a parent, times, and texts that need escaping.
fn sample() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = open(log.clone());
    at(&mut m, T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [
            entity("Alice", "person", &["-starts like a formula", "likes tea, coffee & \"cake\" <b>", "it's\nmultiline"]),
            entity("Zoë 日本", "place", &[]),
            entity("Acme & Co", "company", &["makes <things>"]),
        ]}),
    );
    at(&mut m, T0 + MINUTE);
    tag_and_rate(&mut m, "Alice", json!(["work", "vip"]), 7.0);
    call_ok(
        &mut m,
        "set_importance",
        json!({"entityName": "Acme & Co", "importance": 2.5}),
    );
    at(&mut m, T0 + 2 * MINUTE);
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [
            relation("Alice", "Acme & Co", "works_at"),
            relation("Acme & Co", "Zoë 日本", "based \"in\""),
        ]}),
    );
    (m, log)
}

/// Imports `data` as `format` into `m` (with `more` arguments), answering the counts.
fn import(m: &mut Server<MemLog>, format: &str, data: &str, more: Value) -> Value {
    let mut args = json!({"format": format, "data": data});
    args.as_object_mut()
        .unwrap()
        .extend(more.as_object().unwrap().clone());
    call_ok(m, "import_graph", args)
}

fn counts(added: u64, skipped: u64, updated: u64, r_added: u64, r_skipped: u64) -> Value {
    json!({"entitiesAdded": added, "entitiesSkipped": skipped, "entitiesUpdated": updated,
        "relationsAdded": r_added, "relationsSkipped": r_skipped})
}

fn without_errors(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("errors");
    v
}

#[test]
fn every_readable_format_round_trips_into_an_empty_memory() {
    let (original, _) = sample();
    let want = export_ok(&original, "json");
    assert!(want.contains("\"tags\""), "{want}");
    for format in ["json", "csv", "graphml"] {
        let text = export_ok(&original, format);
        let mut copy = open(MemLog::new());
        at(&mut copy, T0 + 60 * MINUTE);
        let result = import(&mut copy, format, &text, json!({}));
        assert_eq!(result["errors"], json!([]), "{format}");
        assert_eq!(without_errors(result), counts(3, 0, 0, 2, 0), "{format}");
        assert_eq!(export_ok(&copy, "json"), want, "{format} round trip");
    }
}

#[test]
fn a_parent_survives_a_json_round_trip() {
    let (mut original, _) = sample();
    call_ok(
        &mut original,
        "set_entity_parent",
        json!({"entityName": "Alice", "parentName": "Acme & Co"}),
    );
    let text = export_ok(&original, "json");
    let mut copy = open(MemLog::new());
    import(&mut copy, "json", &text, json!({}));
    assert_eq!(export_ok(&copy, "json"), text);
    assert!(text.contains("\"parentId\": \"Acme & Co\""));
}

#[test]
fn exports_parse_with_real_parsers() {
    let (m, _) = sample();
    let parsed: Value = serde_json::from_str(&export_ok(&m, "json")).unwrap();
    assert_eq!(parsed["entities"][0]["importance"], 7);
    assert_eq!(parsed["relations"].as_array().unwrap().len(), 2);

    let csv_text = export_ok(&m, "csv");
    let rows: Vec<Vec<String>> = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(csv_text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    assert_eq!(rows[0], ["# ENTITIES"]);
    assert_eq!(
        rows[2][..3],
        [
            "Alice",
            "person",
            "'-starts like a formula; likes tea, coffee & \"cake\" <b>; it's\nmultiline"
        ]
    );
    assert_eq!(
        rows[2][3..],
        [
            "2027-01-15T08:00:00.000Z",
            "2027-01-15T08:01:00.000Z",
            "work; vip",
            "7"
        ]
    );
    assert_eq!(rows[4][6], "2.5");
    assert_eq!(rows[5], ["# RELATIONS"]);
    assert_eq!(rows[7][2], "works_at");

    for format in ["graphml", "gexf"] {
        let text = export_ok(&m, format);
        let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{format}: {e}"));
        let nodes: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("node"))
            .map(|n| n.attribute("id").unwrap())
            .collect();
        assert_eq!(nodes, ["Alice", "Zoë 日本", "Acme & Co"], "{format}");
        let edges = doc.descendants().filter(|n| n.has_tag_name("edge")).count();
        assert_eq!(edges, 2, "{format}");
    }
}

#[test]
fn the_text_formats_follow_the_seeds_templates() {
    let mut m = open(MemLog::new());
    at(&mut m, T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Alice", "person", &["a"]), entity("Bob Jr.", "person", &[]), entity("Bob_Jr_", "person", &[])]}),
    );
    tag_and_rate(&mut m, "Alice", json!(["x", "y"]), 5.0);
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("Alice", "Bob Jr.", "knows"), relation("Alice", "ghost", "knows")]}),
    );
    assert_eq!(
        export_ok(&m, "dot"),
        "digraph KnowledgeGraph {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n\n  \"Alice\" [label=\"Alice\\\\nType: person\\\\nTags: x, y\"];\n  \"Bob Jr.\" [label=\"Bob Jr.\\\\nType: person\"];\n  \"Bob_Jr_\" [label=\"Bob_Jr_\\\\nType: person\"];\n\n  \"Alice\" -> \"Bob Jr.\" [label=\"knows\"];\n  \"Alice\" -> \"ghost\" [label=\"knows\"];\n}"
    );
    assert_eq!(
        export_ok(&m, "mermaid"),
        "graph LR\n  %% Knowledge Graph\n\n  Alice[\"Alice<br/>Type: person<br/>Tags: x, y\"]\n  Bob_Jr_[\"Bob Jr.<br/>Type: person\"]\n  Bob_Jr__2[\"Bob_Jr_<br/>Type: person\"]\n\n  Alice -->|\"knows\"| Bob_Jr_"
    );
    assert_eq!(
        export(&m, json!({"format": "markdown"}), T0 + MINUTE).unwrap(),
        "# Knowledge Graph Export\n\n**Exported:** 2027-01-15T08:01:00.000Z\n**Entities:** 3\n**Relations:** 2\n\n## Entities\n\n### Alice\n\n- **Type:** person\n- **Tags:** `x`, `y`\n- **Importance:** 5/10\n\n**Observations:**\n- a\n\n### Bob Jr.\n\n- **Type:** person\n\n### Bob_Jr_\n\n- **Type:** person\n\n## Relations\n\n- **Alice** \u{2192} *knows* \u{2192} **Bob Jr.**\n- **Alice** \u{2192} *knows* \u{2192} **ghost**\n"
    );
    let gexf = export_ok(&m, "gexf");
    assert!(gexf.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gexf xmlns=\"http://www.gexf.net/1.2draft\" version=\"1.2\">\n  <meta>\n"));
    assert!(gexf.contains("      <edge id=\"1\" source=\"Alice\" target=\"ghost\" label=\"knows\"/>\n    </edges>\n  </graph>\n</gexf>"));
}

#[test]
fn the_filter_picks_as_search_by_date_range_does_without_its_cap() {
    let mut m = open(MemLog::new());
    at(&mut m, T0);
    let many: Vec<Value> = (0..60)
        .map(|i| entity(&format!("e{i}"), "t", &[]))
        .collect();
    call_ok(&mut m, "create_entities", json!({"entities": many}));
    at(&mut m, T0 + 10 * MINUTE);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("late", "u", &[])]}),
    );
    let picked = |filter: Value| -> Value {
        let text = export(&m, json!({"format": "json", "filter": filter}), T0).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let early = picked(json!({"endDate": "2027-01-15T08:05:00Z"}));
    assert_eq!(
        early["entities"].as_array().unwrap().len(),
        60,
        "no cap of 50"
    );
    let typed = picked(json!({"entityType": "u"}));
    assert_eq!(typed["entities"][0]["name"], "late");
    assert_eq!(picked(json!({}))["entities"].as_array().unwrap().len(), 61);
    let err = export(
        &m,
        json!({"format": "json", "filter": {"startDate": "soon"}}),
        T0,
    )
    .unwrap_err();
    assert!(
        err.starts_with("filter.startDate: \"soon\" is not a time"),
        "{err}"
    );
}

#[test]
fn files_compression_and_redaction_are_refused_naming_the_argument() {
    let (m, _) = sample();
    let err = export(&m, json!({"format": "json", "outputPath": "out.json"}), T0).unwrap_err();
    assert!(err.starts_with("outputPath: "), "{err}");
    let err = export(&m, json!({"format": "csv", "compress": true}), T0).unwrap_err();
    assert!(err.starts_with("compress: "), "{err}");
    let err = export(&m, json!({"format": "csv", "redactPii": true}), T0).unwrap_err();
    assert!(err.starts_with("redactPii: "), "{err}");
    let plain = export(
        &m,
        json!({"format": "csv", "compress": false, "streaming": true, "compressionQuality": 3}),
        T0,
    )
    .unwrap();
    assert_eq!(plain, export_ok(&m, "csv"));
}

/// Imports `data` expecting an error; checks that nothing changed and returns the message.
fn import_err(m: &mut Server<MemLog>, log: &MemLog, format: &str, data: &str) -> String {
    let before = (export_ok(m, "json"), log.len());
    let err = call_err(m, "import_graph", json!({"format": format, "data": data}));
    assert_eq!((export_ok(m, "json"), log.len()), before, "{err}");
    err
}

#[test]
fn malformed_data_is_refused_naming_the_line_or_element_and_changes_nothing() {
    let (mut m, log) = sample();
    let cases = [
        (
            "json",
            "{\"entities\": [",
            "data: not valid JSON: EOF while parsing a list at line 1 column 14",
        ),
        (
            "json",
            "[1, 2]",
            "data: not valid JSON: the data must be an object with an array `entities`, found array",
        ),
        (
            "csv",
            "# ENTITIES\nname,entityType\nx,t\n\"open,t\n",
            "data: not valid CSV: line 4: a quoted field is not closed",
        ),
        (
            "csv",
            "x,t\n",
            "data: not valid CSV: line 1: a row before any \"# ENTITIES\" or \"# RELATIONS\" line",
        ),
        (
            "csv",
            "# ENTITIES\nname,kind\n",
            "data: not valid CSV: line 2: unknown column \"kind\"",
        ),
        (
            "csv",
            "# RELATIONS\nfrom,to,relationType\na,b,c,d\n",
            "data: not valid CSV: line 3: 4 fields, more than the header's 3",
        ),
        (
            "graphml",
            "<graphml><graph>",
            "data: not valid GraphML: not XML: ",
        ),
        (
            "graphml",
            "<gexf/>",
            "data: not valid GraphML: the root element is <gexf> at line 1, not <graphml>",
        ),
        (
            "graphml",
            "<graphml>\n<graph>\n<node/>\n</graph></graphml>",
            "data: not valid GraphML: <node> at line 3 has no id",
        ),
        (
            "graphml",
            "<graphml><graph>\n\n<edge source=\"a\"/></graph></graphml>",
            "data: not valid GraphML: <edge> at line 3 needs both a source and a target",
        ),
        (
            "graphml",
            "<graphml><graph><node id=\"a\"><data>x</data></node></graph></graphml>",
            "data: not valid GraphML: <data> at line 1 has no key attribute",
        ),
    ];
    for (format, data, want) in cases {
        let err = import_err(&mut m, &log, format, data);
        assert!(err.starts_with(want), "{format} {data:?}: {err}");
    }
}

#[test]
fn items_breaking_a_rule_are_reported_and_the_rest_imported() {
    let mut m = open(MemLog::new());
    let data = json!({"entities": [
        {"name": "ok", "entityType": "t", "observations": ["x"], "type": "entity", "id": "ignored"},
        {"name": "  ", "entityType": "t", "observations": []},
        {"name": "loud", "entityType": "t", "observations": [], "importance": 11},
        {"name": "when", "entityType": "t", "observations": [], "createdAt": "yesterday"},
        "not an object",
    ], "relations": [
        {"from": "ok", "to": "nobody", "relationType": "r"},
        {"from": "loud", "to": "ok", "relationType": "r"},
        {"from": "ok", "to": "ok", "relationType": "self"},
    ]});
    let result = import(&mut m, "json", &data.to_string(), json!({}));
    assert_eq!(without_errors(result.clone()), counts(1, 0, 0, 1, 0));
    let errors: Vec<&str> = result["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    assert_eq!(errors[0], "entities[1]: name is empty");
    assert_eq!(
        errors[1],
        "entities[2]: importance must be from 0 to 10, found 11"
    );
    assert!(
        errors[2].starts_with("entities[3]: createdAt: \"yesterday\" is not a time"),
        "{}",
        errors[2]
    );
    assert_eq!(errors[3], "entities[4]: must be an object, found string");
    assert_eq!(
        errors[4],
        "Relation target entity \"nobody\" does not exist"
    );
    assert_eq!(errors[5], "Relation source entity \"loud\" does not exist");
    assert_eq!(errors.len(), 6);

    let csv = "# ENTITIES\nname,entityType,importance\na,t,high\nb,t,3\n";
    let result = import(&mut m, "csv", csv, json!({}));
    assert_eq!(
        result["errors"],
        json!(["entity 1 (line 3): importance \"high\" is not a number"])
    );
    assert_eq!(result["entitiesAdded"], 1);
}

/// A memory with Alice (tagged, important) and a relation, for the strategies.
fn existing() -> (Server<MemLog>, MemLog) {
    let log = MemLog::new();
    let mut m = open(log.clone());
    at(&mut m, T0);
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Alice", "person", &["a1", "a2"]), entity("Bob", "person", &["b"])]}),
    );
    tag_and_rate(&mut m, "Alice", json!(["old"]), 3.0);
    call_ok(
        &mut m,
        "create_relations",
        json!({"relations": [relation("Alice", "Bob", "knows")]}),
    );
    at(&mut m, T0 + MINUTE);
    (m, log)
}

/// An import touching Alice, bringing Carol, and relations to both.
fn incoming() -> String {
    json!({"entities": [
        {"name": "Alice", "entityType": "human", "observations": ["a2", "a3"], "tags": ["New"], "importance": 9},
        {"name": "Carol", "entityType": "person", "observations": ["c"], "createdAt": "2026-01-01T00:00:00.000Z"},
    ], "relations": [
        {"from": "Alice", "to": "Bob", "relationType": "knows"},
        {"from": "Carol", "to": "Alice", "relationType": "knows"},
    ]})
    .to_string()
}

/// Imports [`incoming`] by `strategy`.
fn import_by(m: &mut Server<MemLog>, strategy: &str) -> Value {
    import(m, "json", &incoming(), json!({ "mergeStrategy": strategy }))
}

fn entity_json(m: &Server<MemLog>, name: &str) -> Value {
    let all: Value = serde_json::from_str(&export_ok(m, "json")).unwrap();
    all["entities"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .cloned()
        .unwrap_or(Value::Null)
}

#[test]
fn skip_keeps_what_the_memory_has() {
    let (mut m, log) = existing();
    let before = entity_json(&m, "Alice");
    let n = log.len();
    let result = import(&mut m, "json", &incoming(), json!({}));
    assert_eq!(
        result,
        json!({"entitiesAdded": 1, "entitiesSkipped": 1, "entitiesUpdated": 0, "relationsAdded": 1, "relationsSkipped": 1, "errors": []})
    );
    assert_eq!(entity_json(&m, "Alice"), before);
    assert_eq!(
        entity_json(&m, "Carol")["createdAt"],
        "2026-01-01T00:00:00.000Z"
    );
    assert_eq!(log.len(), n + 1, "one logged change");
}

#[test]
fn merge_adds_observations_and_tags_and_takes_the_importance() {
    let (mut m, _) = existing();
    let result = import_by(&mut m, "merge");
    assert_eq!(without_errors(result), counts(1, 0, 1, 1, 1));
    let alice = entity_json(&m, "Alice");
    assert_eq!(alice["entityType"], "person", "merge keeps the type");
    assert_eq!(alice["observations"], json!(["a1", "a2", "a3"]));
    assert_eq!(alice["tags"], json!(["old", "new"]));
    assert_eq!(alice["importance"], 9);
    assert_eq!(alice["lastModified"], "2027-01-15T08:01:00.000Z");
    // The same import again changes nothing.
    let again = import_by(&mut m, "merge");
    assert_eq!(without_errors(again), counts(0, 2, 0, 0, 2));
}

#[test]
fn replace_takes_the_imported_fields_and_keeps_the_rest() {
    let (mut m, _) = existing();
    let result = import_by(&mut m, "replace");
    assert_eq!(without_errors(result), counts(1, 0, 1, 1, 1));
    let alice = entity_json(&m, "Alice");
    assert_eq!(alice["entityType"], "human");
    assert_eq!(alice["observations"], json!(["a2", "a3"]));
    assert_eq!(alice["tags"], json!(["new"]));
    assert_eq!(alice["importance"], 9);
    assert_eq!(
        alice["createdAt"], "2027-01-15T08:00:00.000Z",
        "not given: kept"
    );
    assert_eq!(alice["lastModified"], "2027-01-15T08:01:00.000Z");
    let all: Value = serde_json::from_str(&export_ok(&m, "json")).unwrap();
    assert_eq!(all["entities"][0]["name"], "Alice", "in its place");
    assert_eq!(
        all["relations"].as_array().unwrap().len(),
        2,
        "its relations stay"
    );
    let again = import_by(&mut m, "replace");
    assert_eq!(without_errors(again), counts(0, 2, 0, 0, 2));
}

#[test]
fn fail_imports_nothing_when_anything_exists_and_says_what() {
    let (mut m, log) = existing();
    let before = (export_ok(&m, "json"), log.len());
    let result = import_by(&mut m, "fail");
    assert_eq!(
        result,
        json!({"entitiesAdded": 1, "entitiesSkipped": 0, "entitiesUpdated": 0, "relationsAdded": 1, "relationsSkipped": 0,
            "errors": ["Entity \"Alice\" already exists", "Relation \"Alice|Bob|knows\" already exists"]})
    );
    assert_eq!((export_ok(&m, "json"), log.len()), before);
    let fresh =
        json!({"entities": [{"name": "Dan", "entityType": "t", "observations": []}]}).to_string();
    let ok = import(&mut m, "json", &fresh, json!({"mergeStrategy": "fail"}));
    assert_eq!(without_errors(ok), counts(1, 0, 0, 0, 0));
    assert_eq!(entity_json(&m, "Dan")["entityType"], "t");
}

#[test]
fn a_dry_run_counts_what_the_run_does_and_changes_nothing() {
    let data = json!({"entities": [
        {"name": "New1", "entityType": "t", "observations": []},
        {"name": "New1", "entityType": "t", "observations": ["again"]},
        {"name": "Alice", "entityType": "t", "observations": ["z"]},
    ], "relations": [
        {"from": "New1", "to": "Alice", "relationType": "r"},
        {"from": "New1", "to": "Alice", "relationType": "r"},
        {"from": "New1", "to": "Nobody", "relationType": "r"},
    ]})
    .to_string();
    for strategy in ["skip", "merge", "replace", "fail"] {
        let (mut m, log) = existing();
        let before = (export_ok(&m, "json"), log.len());
        let dry = import(
            &mut m,
            "json",
            &data,
            json!({"mergeStrategy": strategy, "dryRun": true}),
        );
        assert_eq!((export_ok(&m, "json"), log.len()), before, "{strategy}");
        let real = import(&mut m, "json", &data, json!({"mergeStrategy": strategy}));
        assert_eq!(dry, real, "{strategy}");
        assert_eq!(real["relationsAdded"], 1, "{strategy}: {real}");
    }
}

#[test]
fn an_import_is_one_change_that_undo_takes_back() {
    let (mut m, log) = existing();
    let before = export_ok(&m, "json");
    let n = log.len();
    import_by(&mut m, "replace");
    assert_eq!(log.len(), n + 1);
    call_ok(
        &mut m,
        "undo",
        json!({"changeId": format!("{}-0", T0 + MINUTE)}),
    );
    assert_eq!(export_ok(&m, "json"), before);
}

#[test]
fn imports_over_the_seeds_limits_are_refused() {
    let mut m = open(MemLog::new());
    let big = " ".repeat(10 * 1024 * 1024 + 1);
    let err = call_err(
        &mut m,
        "import_graph",
        json!({"format": "csv", "data": big}),
    );
    assert_eq!(
        err,
        "data: 10485761 bytes, more than the 10485760 (10 MB) an import may hold"
    );
}

#[test]
fn graphml_key_declarations_name_the_data() {
    let mut m = open(MemLog::new());
    let data = r#"<?xml version="1.0"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="k1" for="node" attr.name="entityType"/>
  <key id="k2" for="node" attr.name="tags"/>
  <key id="d0" for="node" attr.name="observations"/>
  <key id="r" for="edge" attr.name="relationType"/>
  <graph edgedefault="directed">
    <node id="A&#38;B"><data key="k1">team</data><data key="k2">X; y</data><data key="d0">one; two</data></node>
    <node id="C"/>
    <edge target="C" source="A&amp;B"><data key="r">leads</data></edge>
    <edge source="C" target="A&amp;B"/>
  </graph>
</graphml>"#;
    let result = import(&mut m, "graphml", data, json!({}));
    assert_eq!(without_errors(result), counts(2, 0, 0, 2, 0));
    let a = entity_json(&m, "A&B");
    assert_eq!(a["entityType"], "team");
    assert_eq!(a["observations"], json!(["one", "two"]));
    assert_eq!(a["tags"], json!(["x", "y"]));
    assert_eq!(entity_json(&m, "C")["entityType"], "unknown");
    let all: Value = serde_json::from_str(&export_ok(&m, "json")).unwrap();
    assert_eq!(all["relations"][0]["relationType"], "leads");
    assert_eq!(all["relations"][1]["relationType"], "related_to");
}
