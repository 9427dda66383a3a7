//! The Python seed's ("MCP Memory v2") hygiene tools under profile `mcp-memory-py`:
//! entity splits (analysis, proposal, one-record execution), duplicate observations and
//! the consolidation report (docs/compatibility.md, "Its hygiene tools").

use crate::common::*;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};

/// 2027-01-15T08:00:00.000Z.
const T0: u64 = 1_800_000_000_000;

/// A day in milliseconds.
const DAY: u64 = 86_400_000;

fn create(m: &mut mcp_memory_core::Server<MemLog>, name: &str, entity_type: &str, obs: &[&str]) {
    call_ok(
        m,
        "create_entities",
        json!({"entities": [{"name": name, "entityType": entity_type, "observations": obs}]}),
    );
}

/// Eight observations about cooking and eight about a database, alternating.
fn two_topics() -> Vec<String> {
    let cooking = [
        "recipe lemon cake baked with sugar and butter",
        "recipe chocolate cake baked with cocoa and butter",
        "recipe bread dough kneaded with flour and yeast",
        "recipe pancakes cooked with flour, milk and eggs",
        "recipe apple pie baked with cinnamon and sugar",
        "recipe cookies baked with butter and brown sugar",
        "recipe tomato soup cooked with garlic and basil",
        "recipe pasta sauce cooked with tomatoes and olive oil",
    ];
    let database = [
        "database migration adds an index to the users table",
        "database backup runs nightly to the storage server",
        "database query planner ignores the composite index",
        "database replication lag grows during the nightly backup",
        "database schema migration renames the orders table",
        "database connection pool exhausted under heavy query load",
        "database vacuum reclaims storage from deleted rows",
        "database index rebuild speeds up the slow query",
    ];
    cooking
        .iter()
        .zip(&database)
        .flat_map(|(a, b)| [a.to_string(), b.to_string()])
        .collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_str().expect("a string").to_string())
        .collect()
}

/// Every suggested split holds observations of one topic only; there are two or more.
fn assert_topics_apart(proposal: &Value) {
    let splits = proposal["suggested_splits"].as_array().expect("splits");
    assert!(splits.len() >= 2, "{proposal}");
    let mut seen = 0;
    for split in splits {
        let obs = strings(&split["observations"]);
        seen += obs.len();
        let cooking = obs.iter().filter(|o| o.starts_with("recipe")).count();
        assert!(
            cooking == 0 || cooking == obs.len(),
            "a split mixes topics: {split}"
        );
        assert!(split["name"].as_str().unwrap().starts_with("Diary - "));
    }
    assert_eq!(seen, 16, "every observation in one split");
}

#[test]
fn a_split_proposal_groups_different_topics_apart_without_the_table() {
    let mut m = py(MemLog::new(), T0);
    let obs = two_topics();
    let obs: Vec<&str> = obs.iter().map(String::as_str).collect();
    create(&mut m, "Diary", "Sesion", &obs);
    let analysis = call_ok(
        &mut m,
        "analyze_entity_split",
        json!({"entity_name": "Diary"}),
    );
    let analysis = &analysis["analysis"];
    assert_eq!(analysis["observation_count"], 16);
    assert_eq!(analysis["threshold"], 15);
    assert_eq!(analysis["needs_split"], true);
    assert_eq!(analysis["topic_method"], "tfidf");
    let topics = analysis["topics"].as_object().expect("topics");
    assert!(topics.len() >= 2, "{topics:?}");
    assert_eq!(
        strings(&topics["Database"]).len(),
        8,
        "the database observations together: {topics:?}"
    );
    let out = call_ok(
        &mut m,
        "propose_entity_split_tool",
        json!({"entity_name": "Diary"}),
    );
    let proposal = &out["proposal"];
    assert_topics_apart(proposal);
    let first = &proposal["suggested_splits"][0];
    assert_eq!(first["entity_type"], "Sesion");
    assert_eq!(
        proposal["relations_to_create"][0],
        json!({"from": "Diary", "to": first["name"], "type": "contiene"})
    );
    assert_eq!(
        proposal["relations_to_create"][1],
        json!({"from": first["name"], "to": "Diary", "type": "parte_de"})
    );
    // The same input, the same answer.
    let again = call_ok(
        &mut m,
        "propose_entity_split_tool",
        json!({"entity_name": "Diary"}),
    );
    assert_eq!(again, out);
}

#[test]
fn a_split_proposal_groups_different_topics_apart_with_the_table() {
    let mut m = py(MemLog::new(), T0);
    load_table(&mut m);
    let obs = two_topics();
    let obs: Vec<&str> = obs.iter().map(String::as_str).collect();
    create(&mut m, "Diary", "Sesion", &obs);
    let out = call_ok(
        &mut m,
        "propose_entity_split_tool",
        json!({"entity_name": "Diary"}),
    );
    let proposal = &out["proposal"];
    assert_eq!(proposal["topic_method"], "embedding", "{proposal}");
    assert_topics_apart(proposal);
    let again = call_ok(
        &mut m,
        "propose_entity_split_tool",
        json!({"entity_name": "Diary"}),
    );
    assert_eq!(again, out);
}

#[test]
fn an_entity_within_its_threshold_needs_no_split() {
    let mut m = py(MemLog::new(), T0);
    create(&mut m, "Small", "Proyecto", &["one", "two"]);
    let analysis = call_ok(
        &mut m,
        "analyze_entity_split",
        json!({"entity_name": "Small"}),
    );
    assert_eq!(analysis["analysis"]["needs_split"], false);
    assert_eq!(analysis["analysis"]["threshold"], 25);
    assert_eq!(analysis["analysis"]["topics"], json!({}));
    let out = call_ok(
        &mut m,
        "propose_entity_split_tool",
        json!({"entity_name": "Small"}),
    );
    assert_eq!(out["proposal"], Value::Null);
    assert!(
        out["message"]
            .as_str()
            .unwrap()
            .contains("does not need splitting")
    );
    let err = call_err(
        &mut m,
        "analyze_entity_split",
        json!({"entity_name": "Nobody"}),
    );
    assert_eq!(err, "entity_name: no entity is named \"Nobody\"");
}

fn duplicates(m: &mut mcp_memory_core::Server<MemLog>, args: Value) -> Vec<Vec<String>> {
    let out = call_ok(m, "find_duplicate_observations", args);
    out["clusters"]
        .as_array()
        .expect("clusters")
        .iter()
        .map(|c| {
            let obs: Vec<String> = c["observations"]
                .as_array()
                .expect("observations")
                .iter()
                .map(|o| o["content"].as_str().expect("content").to_string())
                .collect();
            assert_eq!(c["size"], obs.len());
            obs
        })
        .collect()
}

const NEAR_A: &str = "the analytical engine computes Bernoulli numbers";
const NEAR_B: &str = "the analytical engine computes the Bernoulli numbers";
const OTHER: &str = "horses grazing quietly in a green meadow";
const SHORT: &str = "Ada loved poetry";
const LONG: &str = "Ada loved poetry and mathematics, and wrote letters about both to her mother";

#[test]
fn duplicate_observations_are_found_at_the_thresholds_with_the_table() {
    let mut m = py(MemLog::new(), T0);
    load_table(&mut m);
    create(
        &mut m,
        "Ada",
        "Persona",
        &[NEAR_A, OTHER, NEAR_B, SHORT, LONG],
    );
    let found = duplicates(&mut m, json!({"entity_name": "Ada"}));
    assert_eq!(
        found,
        vec![
            vec![NEAR_A.to_string(), NEAR_B.to_string()],
            vec![SHORT.to_string(), LONG.to_string()]
        ]
    );
    let out = call_ok(
        &mut m,
        "find_duplicate_observations",
        json!({"entity_name": "Ada"}),
    );
    assert_eq!(out["method"], "embedding");
    assert_eq!(out["total_observations"], 5);
    // Cosine at most 1 and full containment: the near pair differs, the short one's
    // words are all in the long one.
    let strict = duplicates(
        &mut m,
        json!({"entity_name": "Ada", "threshold": 1.0, "containment_threshold": 1.0}),
    );
    assert_eq!(strict, vec![vec![SHORT.to_string(), LONG.to_string()]]);
}

#[test]
fn duplicate_observations_without_the_table_are_the_same_words_or_contained() {
    let mut m = py(MemLog::new(), T0);
    create(
        &mut m,
        "Ada",
        "Persona",
        &[
            "Wrote the first program.",
            OTHER,
            "wrote THE first program",
            SHORT,
            LONG,
        ],
    );
    let out = call_ok(
        &mut m,
        "find_duplicate_observations",
        json!({"entity_name": "Ada"}),
    );
    assert_eq!(out["method"], "tokens");
    assert_eq!(out["duplicates_found"], 2);
    let found = duplicates(&mut m, json!({"entity_name": "Ada"}));
    assert_eq!(
        found,
        vec![
            vec![
                "Wrote the first program.".to_string(),
                "wrote THE first program".to_string()
            ],
            vec![SHORT.to_string(), LONG.to_string()]
        ]
    );
    // The long one lacks a word of the short one: not contained at 1.0.
    create(&mut m, "Bob", "Persona", &["Bob loved chess", LONG]);
    let none = duplicates(
        &mut m,
        json!({"entity_name": "Bob", "containment_threshold": 1.0}),
    );
    assert!(none.is_empty());
    let err = call_err(
        &mut m,
        "find_duplicate_observations",
        json!({"entity_name": "Ada", "threshold": 2}),
    );
    assert!(err.contains("threshold"), "{err}");
}

fn observations(m: &mut mcp_memory_core::Server<MemLog>, name: &str) -> Vec<String> {
    let opened = call_ok(m, "open_nodes", json!({"names": [name]}));
    opened["entities"][0]["observations"]
        .as_array()
        .expect("observations")
        .iter()
        .map(|o| o["content"].as_str().expect("content").to_string())
        .collect()
}

/// The relations of entity `name`: (direction, type, the other end).
fn relations_of(
    m: &mut mcp_memory_core::Server<MemLog>,
    name: &str,
) -> Vec<(String, String, String)> {
    let opened = call_ok(m, "open_nodes", json!({"names": [name]}));
    opened["entities"][0]["relations"]
        .as_array()
        .expect("relations")
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().expect("a string").to_string();
            (s("direction"), s("relation_type"), s("target_name"))
        })
        .collect()
}

/// Diary (a Sesion) with cooking and database observations, one of kind `decision`.
fn diary(log: &MemLog) -> mcp_memory_core::Server<MemLog> {
    let mut m = py(log.clone(), T0);
    create(
        &mut m,
        "Diary",
        "Sesion",
        &["recipe lemon cake", "database backup nightly", "kept as is"],
    );
    call_ok(
        &mut m,
        "add_observations",
        json!({"name": "Diary", "observations": ["database moves to postgres"], "kind": "decision"}),
    );
    m
}

#[test]
fn execute_moves_observations_and_relates_in_one_record_that_survives_a_restart() {
    let log = MemLog::new();
    let mut m = diary(&log);
    let before = log.records().len();
    let out = call_ok(
        &mut m,
        "execute_entity_split_tool",
        json!({"entity_name": "Diary", "approved_splits": [
            {"name": "Diary - Cooking", "observations": ["recipe lemon cake"]},
            {"name": "Diary - Database", "entity_type": "Sistema",
             "observations": ["database backup nightly", "database moves to postgres"]},
        ]}),
    );
    assert_eq!(
        out["result"],
        json!({
            "new_entities": ["Diary - Cooking", "Diary - Database"],
            "moved_observations": 3,
            "relations_created": 4,
            "original_observations_remaining": 1,
            "parent": "Diary",
        })
    );
    assert_eq!(log.records().len(), before + 1, "one record");
    let check = |m: &mut mcp_memory_core::Server<MemLog>| {
        assert_eq!(observations(m, "Diary"), ["kept as is"]);
        assert_eq!(observations(m, "Diary - Cooking"), ["recipe lemon cake"]);
        let opened = call_ok(
            m,
            "open_nodes",
            json!({"names": ["Diary - Database"], "kinds": ["decision"]}),
        );
        let e = &opened["entities"][0];
        assert_eq!(e["entityType"], "Sistema");
        assert_eq!(
            e["observations"][0]["content"], "database moves to postgres",
            "the kind is kept: {e}"
        );
        let mut got = relations_of(m, "Diary");
        got.sort();
        assert_eq!(
            got,
            [
                ("from", "contiene", "Diary - Cooking"),
                ("from", "contiene", "Diary - Database"),
                ("to", "parte_de", "Diary - Cooking"),
                ("to", "parte_de", "Diary - Database"),
            ]
            .map(|(d, r, t)| (d.to_string(), r.to_string(), t.to_string()))
        );
    };
    check(&mut m);
    // As the seed's: `contiene` made, `parte_de` its automatic inverse (issue 41, Python 7).
    let opened = call_ok(&mut m, "open_nodes", json!({"names": ["Diary - Cooking"]}));
    let contexts: Vec<(Value, Value)> = opened["entities"][0]["relations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["relation_type"].clone(), r["context"].clone()))
        .collect();
    assert!(
        contexts.contains(&(json!("parte_de"), json!("Inversa automática de contiene"))),
        "{contexts:?}"
    );
    drop(m);
    let mut m = py(log.reopened(), T0);
    check(&mut m);
}

#[test]
fn execute_relates_the_parent_given() {
    let log = MemLog::new();
    let mut m = diary(&log);
    create(&mut m, "Kitchen", "Proyecto", &[]);
    call_ok(
        &mut m,
        "execute_entity_split_tool",
        json!({"entity_name": "Diary", "parent_entity_name": "Kitchen", "approved_splits": [
            {"name": "Cake", "observations": ["recipe lemon cake"]},
        ]}),
    );
    let mut got = relations_of(&mut m, "Cake");
    got.sort();
    assert_eq!(
        got,
        [
            ("from", "parte_de", "Kitchen"),
            ("to", "contiene", "Kitchen")
        ]
        .map(|(d, r, t)| (d.to_string(), r.to_string(), t.to_string()))
    );
}

#[test]
fn execute_refuses_what_could_lose_or_invent_data_and_changes_nothing() {
    let log = MemLog::new();
    let mut m = diary(&log);
    create(&mut m, "Taken", "Generic", &[]);
    let before = log.records().len();
    let refused = [
        (
            json!({"entity_name": "Nobody", "approved_splits": []}),
            "entity_name: no entity is named \"Nobody\"",
        ),
        (
            json!({"entity_name": "Diary", "approved_splits": []}),
            "approved_splits: give at least one split",
        ),
        (
            json!({"entity_name": "Diary", "approved_splits": [
                {"name": "New", "observations": ["recipe lemon cake", "never said"]}]}),
            "approved_splits[0].observations[1]: \"never said\" is not a current observation of \"Diary\"",
        ),
        (
            json!({"entity_name": "Diary", "approved_splits": [
                {"name": "A", "observations": ["recipe lemon cake"]},
                {"name": "B", "observations": ["recipe lemon cake"]}]}),
            "approved_splits[1].observations[0]: \"recipe lemon cake\" is assigned twice; each observation moves to one entity",
        ),
        (
            json!({"entity_name": "Diary", "approved_splits": [
                {"name": "Taken", "observations": ["recipe lemon cake"]}]}),
            "approved_splits[0].name: an entity named \"Taken\" exists already; a split creates new entities",
        ),
        (
            json!({"entity_name": "Diary", "approved_splits": [
                {"name": "A", "observations": []}, {"name": "A", "observations": []}]}),
            "approved_splits[1].name: \"A\" is given twice",
        ),
        (
            json!({"entity_name": "Diary", "parent_entity_name": "Nowhere", "approved_splits": [
                {"name": "A", "observations": []}]}),
            "parent_entity_name: no entity is named \"Nowhere\"",
        ),
    ];
    for (args, want) in refused {
        assert_eq!(call_err(&mut m, "execute_entity_split_tool", args), want);
    }
    assert_eq!(log.records().len(), before, "the log is unchanged");
    assert_eq!(observations(&mut m, "Diary").len(), 4);
}

#[test]
fn a_failed_append_leaves_the_graph_as_it_was() {
    let log = MemLog::new();
    let mut m = diary(&log);
    let names = json!({"names": ["Diary", "Diary - Cooking"]});
    let graph_before = call_ok(&mut m, "open_nodes", names.clone());
    let before = log.records().len();
    log.fail_next_append("disk full");
    let result = call(
        &mut m,
        "execute_entity_split_tool",
        json!({"entity_name": "Diary", "approved_splits": [
            {"name": "Diary - Cooking", "observations": ["recipe lemon cake"]}]}),
    );
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(log.records().len(), before);
    assert_eq!(call_ok(&mut m, "open_nodes", names), graph_before);
    assert_eq!(graph_before["missing"], json!(["Diary - Cooking"]));
}

#[test]
fn split_candidates_and_the_report_are_bounded_with_totals() {
    let log = MemLog::new();
    let mut m = py(log.clone(), T0);
    let many = |n: usize, what: &str| -> Vec<String> {
        (0..n).map(|i| format!("{what} note number {i}")).collect()
    };
    for (name, entity_type, n) in [
        ("Big", "Generic", 40),
        ("Bigger", "Sesion", 45),
        ("Biggish", "Proyecto", 30),
        ("Fine", "Generic", 3),
    ] {
        let obs = many(n, name);
        let obs: Vec<&str> = obs.iter().map(String::as_str).collect();
        create(&mut m, name, entity_type, &obs);
    }
    at(&mut m, T0 + 100 * DAY);
    create(&mut m, "Fresh", "Generic", &["just made", "just made!"]);
    let out = call_ok(&mut m, "find_split_candidates", json!({"limit": 2}));
    assert_eq!(out["total"], 3);
    let names: Vec<&str> = out["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|c| c["entity_name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["Bigger", "Big"], "most over their threshold first");
    assert_eq!(out["candidates"][0]["threshold"], 15);

    let records = log.records().len();
    let report = call_ok(&mut m, "consolidation_report", json!({"limit": 2}));
    assert_eq!(log.records().len(), records, "read-only");
    let summary = &report["summary"];
    assert_eq!(summary["total_entities"], 5);
    assert_eq!(summary["total_observations"], 40 + 45 + 30 + 3 + 2);
    assert_eq!(summary["split_candidates_count"], 3);
    assert_eq!(summary["large_entities_count"], 3);
    assert_eq!(summary["stale_entities_count"], 4);
    assert_eq!(summary["flagged_observations_count"], 2);
    assert_eq!(summary["flagged_entities_count"], 1);
    assert_eq!(report["split_candidates"].as_array().unwrap().len(), 2);
    assert_eq!(report["large_entities"].as_array().unwrap().len(), 2);
    let stale = report["stale_entities"].as_array().unwrap();
    assert_eq!(stale.len(), 2);
    assert_eq!(stale[0]["entity_name"], "Big");
    assert_eq!(stale[0]["days_since_access"], 100);
    assert_eq!(stale[0]["last_access"], "2027-01-15 08:00:00");
    let flagged = report["flagged_observations"].as_object().unwrap();
    assert_eq!(flagged.len(), 1);
    assert_eq!(flagged["Fresh"].as_array().unwrap().len(), 2);
    // Stale after a year only: none.
    let report = call_ok(&mut m, "consolidation_report", json!({"stale_days": 365}));
    assert_eq!(report["summary"]["stale_entities_count"], 0);
    // An entity used (opened) is not stale, though not changed; the use is counted once
    // logged (a second later).
    call_ok(&mut m, "open_nodes", json!({"names": ["Big"]}));
    at(&mut m, T0 + 100 * DAY + 2_000);
    let report = call_ok(&mut m, "consolidation_report", json!({"limit": 10}));
    assert_eq!(report["summary"]["stale_entities_count"], 3);
    let stale = report["stale_entities"].as_array().unwrap();
    assert!(stale.iter().all(|s| s["entity_name"] != "Big"), "{report}");
}

#[test]
fn a_proposed_name_that_exists_is_made_unique() {
    let mut m = py(MemLog::new(), T0);
    let obs = two_topics();
    let obs: Vec<&str> = obs.iter().map(String::as_str).collect();
    create(&mut m, "Diary", "Sesion", &obs);
    create(&mut m, "Diary - Database", "Sesion", &[]);
    let out = call_ok(
        &mut m,
        "propose_entity_split_tool",
        json!({"entity_name": "Diary"}),
    );
    let names: Vec<&str> = out["proposal"]["suggested_splits"]
        .as_array()
        .expect("splits")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert!(names.contains(&"Diary - Database (2)"), "{names:?}");
    assert!(!names.contains(&"Diary - Database"), "{names:?}");
}

/// Notes on three clear subjects (a garden, a car, running), as a person writes them.
const THREE_SUBJECTS: [&str; 22] = [
    "Planted tomatoes and basil in the raised bed by the fence",
    "The roses need pruning before the first frost",
    "Compost pile is ready to spread over the vegetable garden",
    "Aphids appeared on the pepper plants; sprayed soapy water",
    "Watering the lawn every other morning during the heat wave",
    "Harvested zucchini and cucumbers from the garden today",
    "Ordered tulip bulbs to plant in the autumn",
    "The car's brake pads were replaced at the garage",
    "Engine oil changed at 60,000 kilometres",
    "Winter tyres mounted on the car in November",
    "The mechanic found a leak in the radiator hose",
    "Car battery died in the cold; bought a new one",
    "Booked the annual vehicle inspection for March",
    "Filled the tank with diesel before the road trip",
    "Ran ten kilometres in the park in under an hour",
    "Knee pain after long runs; the physiotherapist suggested stretching",
    "Signed up for the city half marathon in spring",
    "Bought new running shoes with more cushioning",
    "Training plan: three runs a week plus a long run on Sunday",
    "Resting heart rate dropped to 55 after months of running",
    "Stretching and foam rolling after every run",
    "Interval training on the track on Tuesday evenings",
];

/// Issue 41, Python 8: with the embedding table, an entity's observations on three
/// subjects are clustered by meaning (not left to TF-IDF), and no topic mixes subjects.
#[test]
fn observations_on_three_subjects_cluster_by_meaning() {
    let mut m = py(MemLog::new(), T0);
    load_table(&mut m);
    create(&mut m, "Notes", "Generic", &THREE_SUBJECTS);
    let out = call_ok(
        &mut m,
        "analyze_entity_split",
        json!({"entity_name": "Notes"}),
    );
    let analysis = &out["analysis"];
    assert_eq!(analysis["topic_method"], "embedding", "{analysis}");
    let subject = |o: &str| THREE_SUBJECTS.iter().position(|s| *s == o).unwrap() / 7;
    let topics = analysis["topics"].as_object().unwrap();
    assert!((2..=5).contains(&topics.len()), "{analysis}");
    let mut mixed = 0;
    for members in topics.values() {
        let members: Vec<usize> = members
            .as_array()
            .unwrap()
            .iter()
            .map(|o| subject(o.as_str().unwrap()).min(2))
            .collect();
        let main = (0..3)
            .max_by_key(|s| members.iter().filter(|m| *m == s).count())
            .unwrap();
        mixed += members.iter().filter(|m| **m != main).count();
    }
    assert!(
        mixed <= 2,
        "{mixed} observations in another subject's topic: {analysis}"
    );
}
