//! Semantic and hybrid `search` (issue L): paraphrases found by meaning, the modes without
//! the embedding table, vectors kept up to date through changes, the type filter, paging
//! and explain; `search_nodes`' questions ranked by words and meaning.

use crate::common::*;
use mcp_memory_core::Server;
use serde_json::{Value, json};

/// A memory over `log` with the embedding table loaded.
fn with_table(log: MemLog) -> Server<MemLog> {
    let mut m = open(log);
    load_table(&mut m);
    m
}

fn people() -> Vec<Value> {
    vec![
        entity(
            "Alice",
            "person",
            &["works as a software engineer at a search company"],
        ),
        entity("Bob", "person", &["goes fishing on the lake every weekend"]),
        entity("Carol", "person", &["is allergic to peanuts and shellfish"]),
        entity("Dune", "book", &["a novel about a desert planet"]),
        entity(
            "Editor settings",
            "preference",
            &["the user prefers dark mode"],
        ),
    ]
}

fn names(result: &Value) -> Vec<String> {
    (result["hits"].as_array().expect("hits").iter())
        .map(|h| h["name"].as_str().expect("a name").to_string())
        .collect()
}

fn search(m: &mut Server<MemLog>, args: Value) -> Value {
    call_ok(m, "search", args)
}

#[test]
fn a_paraphrase_is_found_by_meaning_where_words_find_nothing() {
    let mut m = with_table(MemLog::new());
    call_ok(&mut m, "create_entities", json!({ "entities": people() }));
    let q = "who writes computer programs for a living";
    let lexical = search(&mut m, json!({"query": q, "mode": "lexical"}));
    assert!(
        !names(&lexical).contains(&"Alice".to_string()),
        "no word in common: {lexical}"
    );
    for mode in ["semantic", "hybrid"] {
        let found = search(&mut m, json!({"query": q, "mode": mode, "limit": 1}));
        assert_eq!(names(&found), ["Alice"], "{mode}: {found}");
    }
    let default = search(&mut m, json!({"query": "food allergy", "limit": 1}));
    assert_eq!(names(&default), ["Carol"], "hybrid by default: {default}");
}

#[test]
fn without_the_table_search_is_lexical_and_the_semantic_modes_say_why_not() {
    let mut m = open(MemLog::new());
    call_ok(&mut m, "create_entities", json!({ "entities": people() }));
    let args = json!({"query": "dark mode"});
    let default = search(&mut m, args.clone());
    let lexical = search(&mut m, json!({"query": "dark mode", "mode": "lexical"}));
    assert_eq!(default, lexical);
    assert_eq!(names(&default), ["Editor settings"]);
    for mode in ["semantic", "hybrid"] {
        let why = call_err(&mut m, "search", json!({"query": "x", "mode": mode}));
        assert!(
            why.contains("mode") && why.contains("embedding table"),
            "{why}"
        );
    }
    let why = call_err(&mut m, "search", json!({"query": "x", "mode": "fuzzy"}));
    assert!(why.contains("mode"), "{why}");
}

/// Every entity's semantic score for `q` (name → cosine), all entities on one page.
fn cosines(m: &mut Server<MemLog>, q: &str) -> Vec<(String, f64)> {
    let found = search(m, json!({"query": q, "mode": "semantic", "limit": 100}));
    (found["hits"].as_array().expect("hits").iter())
        .map(|h| {
            let name = h["name"].as_str().expect("a name").to_string();
            (name, h["score"].as_f64().expect("a score"))
        })
        .collect()
}

#[test]
fn vectors_follow_every_change_as_a_restart_would_build_them() {
    let log = MemLog::new();
    let mut m = with_table(log.clone());
    call_ok(&mut m, "create_entities", json!({ "entities": people() }));
    let q = "a programmer who likes fishing";
    let before = cosines(&mut m, q); // builds the vectors
    call_ok(
        &mut m,
        "add_observations",
        json!({"observations": [{"entityName": "Bob", "contents": ["writes Rust programs"]}]}),
    );
    call_ok(
        &mut m,
        "delete_observations",
        json!({"deletions": [{"entityName": "Alice", "observations": ["works as a software engineer at a search company"]}]}),
    );
    call_ok(&mut m, "delete_entities", json!({"entityNames": ["Dune"]}));
    call_ok(
        &mut m,
        "create_entities",
        json!({"entities": [entity("Erin", "person", &["builds fishing rods"])]}),
    );
    let live = cosines(&mut m, q);
    assert_ne!(before, live, "the changes moved the scores");
    let mut restarted = with_table(log.reopened());
    assert_eq!(live, cosines(&mut restarted, q));
    assert!(live.iter().all(|(name, _)| name != "Dune"));
    assert_eq!(live[0].0, "Bob", "{live:?}");
}

#[test]
fn the_type_filter_paging_and_totals_hold_in_every_mode() {
    let mut m = with_table(MemLog::new());
    call_ok(&mut m, "create_entities", json!({ "entities": people() }));
    for mode in ["semantic", "hybrid"] {
        // Found by meaning alone: only what is near enough (a job: Alice's work, not
        // Bob's fishing or Carol's allergies), of the type asked.
        let q = "someone's job";
        let typed = search(
            &mut m,
            json!({"query": q, "mode": mode, "entityType": "Person", "limit": 10}),
        );
        assert_eq!(typed["total"], json!(1), "{mode}: {typed}");
        assert_eq!(names(&typed), ["Alice"], "{mode}");
        let q = "food allergy or a fishing trip";
        let whole = names(&search(
            &mut m,
            json!({"query": q, "mode": mode, "limit": 4}),
        ));
        let first = names(&search(
            &mut m,
            json!({"query": q, "mode": mode, "limit": 2}),
        ));
        let second = names(&search(
            &mut m,
            json!({"query": q, "mode": mode, "limit": 2, "offset": 2}),
        ));
        assert_eq!([first, second].concat(), whole, "{mode}: pages");
    }
}

#[test]
fn explain_shows_the_lexical_and_the_semantic_parts() {
    let mut m = with_table(MemLog::new());
    call_ok(&mut m, "create_entities", json!({ "entities": people() }));
    let found = search(
        &mut m,
        json!({"query": "dark mode", "mode": "hybrid", "explain": true}),
    );
    let hits = found["hits"].as_array().expect("hits");
    let top = &hits[0];
    assert_eq!(top["name"], "Editor settings");
    let ex = &top["explain"];
    assert!(ex["bm25"].as_f64().expect("bm25") > 0.0, "{ex}");
    let fusion = &ex["fusion"];
    let (w, lex, cos) = (
        fusion["weight"].as_f64().expect("weight"),
        fusion["lexical"].as_f64().expect("lexical"),
        fusion["cosine"].as_f64().expect("cosine"),
    );
    let score = top["score"].as_f64().expect("score");
    let context = ex["context"]["score"].as_f64().unwrap_or(0.0);
    assert!(
        (score - (w * lex + (1.0 - w) * cos + context)).abs() < 1e-3,
        "{top}"
    );
    assert!(ex["semantic"]["cosine"].as_f64().is_some(), "{ex}");
    let found = search(
        &mut m,
        json!({"query": "food allergy", "mode": "hybrid", "explain": true}),
    );
    let hits = found["hits"].as_array().expect("hits");
    let by_meaning = (hits.iter()).find(|h| h["matched"] == json!([]));
    let other = by_meaning.expect("an entity found by meaning alone");
    assert!(other["explain"].get("bm25").is_none(), "{other}");
    // Why it is there: its cosine clears the bar meaning alone must clear.
    let semantic = &other["explain"]["semantic"];
    let bar = semantic["bar"].as_f64().expect("bar");
    assert_eq!(bar, 0.36);
    assert!(
        semantic["cosine"].as_f64().expect("cosine") >= bar,
        "{other}"
    );
    assert_eq!(other["explain"]["fusion"]["lexical"], json!(0.0));
}

#[test]
fn the_host_is_asked_for_the_table_once_and_only_when_a_search_needs_it() {
    let asked = std::rc::Rc::new(std::cell::Cell::new(0));
    let mut m = open(MemLog::new());
    let counter = asked.clone();
    m.memory_mut().set_embedding_source(Box::new(move || {
        counter.set(counter.get() + 1);
        Some(embedding_table_bytes().to_vec())
    }));
    call_ok(&mut m, "create_entities", json!({ "entities": people() }));
    call_ok(&mut m, "search_nodes", json!({"query": "Alice"}));
    search(&mut m, json!({"query": "Alice", "mode": "lexical"}));
    assert_eq!(asked.get(), 0, "no search by meaning yet");
    call_ok(&mut m, "search_nodes", json!({"query": "fishing rods"}));
    assert_eq!(asked.get(), 1, "a question in words asks for the table");
    let found = search(&mut m, json!({"query": "food allergy", "limit": 1}));
    assert_eq!(names(&found), ["Carol"]);
    search(&mut m, json!({"query": "fishing", "mode": "semantic"}));
    assert_eq!(asked.get(), 1);
}

#[test]
fn search_nodes_answers_a_question_in_other_words_by_meaning_and_one_word_by_words() {
    let q = json!({"query": "who writes computer programs for a living"});
    let mut words_only = open(MemLog::new());
    call_ok(
        &mut words_only,
        "create_entities",
        json!({ "entities": people() }),
    );
    let found = call_ok(&mut words_only, "search_nodes", q.clone());
    assert_eq!(
        entity_names(&found),
        Vec::<String>::new(),
        "no word in common"
    );

    let mut m = with_table(MemLog::new());
    call_ok(&mut m, "create_entities", json!({ "entities": people() }));
    let found = call_ok(&mut m, "search_nodes", q);
    assert_eq!(entity_names(&found)[0], "Alice", "{found}");
    let dark = call_ok(&mut m, "search_nodes", json!({"query": "dark", "limit": 3}));
    assert_eq!(
        entity_names(&dark),
        ["Editor settings"],
        "one word: words alone"
    );
    let typo = call_ok(&mut m, "search_nodes", json!({"query": "xqzv"}));
    assert_eq!(
        entity_names(&typo),
        Vec::<String>::new(),
        "no nearest meaning of nonsense"
    );
}

#[test]
fn a_table_that_cannot_be_read_is_reported_and_search_stays_lexical() {
    let mut m = open(MemLog::new());
    m.memory_mut()
        .set_embedding_source(Box::new(|| Some(b"not a table".to_vec())));
    call_ok(&mut m, "create_entities", json!({ "entities": people() }));
    let default = search(&mut m, json!({"query": "dark mode"}));
    assert_eq!(
        default,
        search(&mut m, json!({"query": "dark mode", "mode": "lexical"}))
    );
    let why = call_err(&mut m, "search", json!({"query": "x", "mode": "hybrid"}));
    assert!(
        why.contains("could not be read") && why.contains("wrong magic"),
        "{why}"
    );
}

/// The data `MEANING_BAR` (core/src/index/hybrid.rs) is set on, and what it must hold:
/// over the relevance set (`tests/relevance/queries.json`: 73 entities, 51 queries and
/// their expected entities), the cosine of each query with its relevant entities and with
/// the others, and of nonsense words and unrelated questions with every entity. The bar
/// lies above every nonsense word's nearest entity and 95% of unrelated pairs, and below
/// most relevant ones. `cargo test -p mcp-memory-core --test suite calibrate_the_meaning_bar
/// -- --nocapture` prints the data.
#[test]
fn calibrate_the_meaning_bar() {
    let bar = mcp_memory_core::index::hybrid::MEANING_BAR;
    let set: Value =
        serde_json::from_str(include_str!("../../../tests/relevance/queries.json")).unwrap();
    let mut m = with_table(MemLog::new());
    create(&mut m, set["entities"].as_array().unwrap());
    let memory = m.memory();
    let graph = memory.graph();
    let vectors = memory.indexes().vectors(graph).unwrap();
    let cosines = |text: &str| -> Vec<(String, f32)> {
        let Some(q) = vectors.query(text) else {
            return Vec::new();
        };
        graph
            .entities()
            .filter_map(|(id, e)| {
                Some((
                    graph.text(e.name).to_string(),
                    vectors.cosine(&q, id.slot())?,
                ))
            })
            .collect()
    };
    let (mut relevant, mut other) = (Vec::new(), Vec::new());
    for q in set["queries"].as_array().unwrap() {
        let want: Vec<&str> = q["expect"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_str().unwrap())
            .collect();
        for (name, cos) in cosines(q["query"].as_str().unwrap()) {
            if want.contains(&name.as_str()) {
                relevant.push(cos);
            } else {
                other.push(cos);
            }
        }
    }
    let nonsense = [
        "qzxv",
        "blorptang",
        "xkcdqwe",
        "zzyzx",
        "flibbertigibbet",
        "asdfgh",
    ];
    let unrelated = [
        "how do I bake sourdough bread",
        "what is the capital of Mongolia",
        "best tyres for a wet road",
        "knitting patterns for winter scarves",
    ];
    let best = |texts: &[&str]| -> Vec<f32> {
        texts
            .iter()
            .filter_map(|t| cosines(t).into_iter().map(|(_, c)| c).reduce(f32::max))
            .collect()
    };
    let pct = |v: &mut Vec<f32>, p: f32| {
        v.sort_by(f32::total_cmp);
        v[((v.len() - 1) as f32 * p) as usize]
    };
    println!(
        "relevant ({}): p10 {:.3} p25 {:.3} p50 {:.3}",
        relevant.len(),
        pct(&mut relevant, 0.10),
        pct(&mut relevant, 0.25),
        pct(&mut relevant, 0.50)
    );
    println!(
        "other pairs ({}): p50 {:.3} p90 {:.3} p95 {:.3} p99 {:.3}",
        other.len(),
        pct(&mut other, 0.50),
        pct(&mut other, 0.90),
        pct(&mut other, 0.95),
        pct(&mut other, 0.99)
    );
    println!("nonsense words, nearest entity: {:?}", best(&nonsense));
    println!(
        "unrelated questions, nearest entity: {:?}",
        best(&unrelated)
    );
    let share = |v: &[f32]| v.iter().filter(|&&c| c >= bar).count() as f32 / v.len() as f32;
    println!(
        "at the bar {bar}: relevant pairs kept {:.2}, other pairs kept {:.3}",
        share(&relevant),
        share(&other)
    );
    assert!(
        best(&nonsense).iter().all(|&c| c < bar),
        "a nonsense word clears the bar"
    );
    assert!(share(&other) < 0.05, "the bar lets unrelated pairs through");
    assert!(share(&relevant) > 0.6, "the bar keeps out what is relevant");
}

/// A conversation's turns, one entity each, related `in_session` to their session:
/// `turns` are (session, text).
fn conversation(m: &mut Server<MemLog>, turns: &[(usize, &str)]) {
    let mut entities: Vec<Value> = Vec::new();
    let mut relations: Vec<Value> = Vec::new();
    for (i, (session, text)) in turns.iter().enumerate() {
        let (name, session) = (format!("turn {i}"), format!("session {session}"));
        if !entities.iter().any(|e| e["name"] == session) {
            entities.push(entity(&session, "session", &[]));
        }
        entities.push(entity(&name, "turn", &[text]));
        relations.push(json!({"from": name, "to": session, "relationType": "in_session"}));
    }
    create(m, &entities);
    relate(m, &relations);
}

#[test]
fn hybrid_brings_the_other_turns_of_a_session_whose_turns_matched() {
    let mut m = with_table(MemLog::new());
    let mut turns = vec![
        (
            1,
            "Caroline: I went to the adoption agency meeting yesterday",
        ),
        (1, "Melanie: How did it go? Tell me everything"),
        (1, "Caroline: They said my papers are complete, I could cry"),
        (2, "Melanie: I painted a lake at sunrise"),
        (2, "Caroline: The colours of the water are lovely"),
    ];
    // A session of 40 turns is a hub: it spreads nothing.
    turns.push((3, "Jon: the adoption of the new tax rules took a year"));
    turns.extend((0..39).map(|_| (3, "Jon: more about taxes")));
    conversation(&mut m, &turns);
    create(
        &mut m,
        &[entity("Caroline", "person", &["a friend of Melanie"])],
    );
    relate(
        &mut m,
        &[json!({"from": "Caroline", "to": "session 1", "relationType": "attended"})],
    );
    let q = "what happened at the adoption agency";
    let found = search(
        &mut m,
        json!({"query": q, "mode": "hybrid", "explain": true, "limit": 10}),
    );
    let hits = found["hits"].as_array().expect("hits");
    let reply = (hits.iter()).find(|h| h["name"] == "turn 2");
    let reply =
        reply.unwrap_or_else(|| panic!("the reply shares no word with the question: {found}"));
    let context = &reply["explain"]["context"];
    assert_eq!(context["from"], "turn 0", "{reply}");
    assert_eq!(context["via"], "session 1", "{reply}");
    assert!(context["score"].as_f64().expect("a share") > 0.0, "{reply}");
    for hit in hits {
        let via = hit["explain"]["context"]["via"].as_str();
        assert_ne!(via, Some("session 3"), "a hub spread its score: {hit}");
    }
    // Words alone do not bring it (context is hybrid's).
    let lexical = search(&mut m, json!({"query": q, "mode": "lexical", "limit": 10}));
    assert!(
        !names(&lexical).contains(&"turn 2".to_string()),
        "{lexical}"
    );
    // What context adds satisfies the query's constraints: the type filter, an exclusion.
    assert!(names(&found).contains(&"Caroline".to_string()), "{found}");
    let typed = search(
        &mut m,
        json!({"query": q, "entityType": "turn", "limit": 10}),
    );
    assert!(names(&typed).contains(&"turn 2".to_string()), "{typed}");
    assert!(!names(&typed).contains(&"Caroline".to_string()), "{typed}");
    let without = search(
        &mut m,
        json!({"query": format!("{q} -papers"), "limit": 10}),
    );
    assert!(
        !names(&without).contains(&"turn 2".to_string()),
        "{without}"
    );
}

/// A hub among the best hits spreads no context (as in graph expansion): its neighbours'
/// neighbours are too many to say anything, and reaching them all cost a search at 42K
/// entities a quarter of a second.
#[test]
fn a_hub_among_the_best_hits_spreads_no_context() {
    let mut m = with_table(MemLog::new());
    let mut entities = vec![entity("Agency", "office", &["the adoption agency"])];
    let mut relations = Vec::new();
    for i in 0..40 {
        let (clerk, desk) = (format!("clerk {i}"), format!("desk {i}"));
        entities.push(entity(&clerk, "person", &["works there"]));
        entities.push(entity(&desk, "thing", &["made of oak"]));
        relations.push(json!({"from": "Agency", "to": clerk, "relationType": "employs"}));
        relations.push(json!({"from": clerk, "to": desk, "relationType": "sits at"}));
    }
    create(&mut m, &entities);
    relate(&mut m, &relations);
    let found = search(
        &mut m,
        json!({"query": "adoption agency", "mode": "hybrid", "explain": true, "limit": 10}),
    );
    assert_eq!(found["hits"][0]["name"], "Agency", "{found}");
    for hit in found["hits"].as_array().expect("hits") {
        assert!(
            hit["explain"]["context"].is_null(),
            "a hub spread its score: {hit}"
        );
    }
}
