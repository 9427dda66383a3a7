//! Relevance benchmark (issue #7, "Questions asked in words find what was stored"): a
//! generated conversation memory in the shape of the LoCoMo benchmark, one entity per
//! dialogue turn, and a few hundred questions in words whose answering turns are known.
//! Every question is asked verbatim to the ranked `search` tool, to `search_nodes`, and to a
//! plain BM25 baseline over the same text; and, with the static embedding table
//! (`core/embeddings/`), to `search`'s semantic and hybrid modes and to fusions of its
//! lexical scores with the table's cosines computed here at several weights (issue L: what
//! fusion adds, and which weight). The bench prints Recall@5, Recall@10 and MRR per
//! system and question category, and the time per question. Not a test: nothing here
//! asserts a figure.
//!
//! ```text
//! cargo bench -p mcp-memory-core --bench relevance                       # ~4,000 entities
//! cargo bench -p mcp-memory-core --bench relevance -- --entities 40000   # more filler turns
//! cargo bench -p mcp-memory-core --bench relevance -- --dump DIR         # corpus + questions as JSON
//! cargo bench -p mcp-memory-core --bench relevance -- --examples 3       # a few questions and hits
//! cargo bench -p mcp-memory-core --bench relevance -- --seed 7
//! ```
//!
//! Storage is the public benchmark's: each turn is an entity `session-S-turn-T` of type
//! `dialogue_turn` with two observations, `"<Speaker>: <text>"` and `"date: <D Month YYYY>"`,
//! created with `create_entities`; personas (`person`) and sessions (`session`) are entities
//! too, and every turn has the relations `said_by` (to its speaker) and `in_session`. The
//! generator (`relevance/corpus.rs`, word tables in `relevance/vocab.rs`) is described in
//! its module docs; it is seeded and knows nothing about the systems measured.
//!
//! Scoring: a question is answered at the rank of the first answering turn among the top 10
//! (a multi-hop question has two answering turns; either counts, and `both@10` says how
//! often both are in the top 10). MRR counts 0 past rank 10. `empty` is the share of
//! questions that got no result at all.

#[path = "relevance/bm25.rs"]
mod bm25;
#[path = "relevance/corpus.rs"]
mod corpus;
#[path = "relevance/vocab.rs"]
mod vocab;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use corpus::{Category, Corpus, session_name, turn_name};
use mcp_memory_core::Server;
use mcp_memory_core::embed::Table;
use mcp_memory_core::testing::MemLog;
use serde_json::{Value, json};
use vocab::PERSONAS;

struct Args {
    seed: u64,
    entities: Option<usize>,
    dump: Option<PathBuf>,
    examples: usize,
}

fn usage() -> ! {
    eprintln!(
        "usage: cargo bench -p mcp-memory-core --bench relevance -- [--entities N] [--seed S] [--dump DIR] [--examples K]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut args = Args {
        seed: 42,
        entities: None,
        dump: None,
        examples: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            // cargo bench passes it to every bench binary.
            "--bench" => {}
            "--seed" => args.seed = value().parse().unwrap_or_else(|_| usage()),
            "--entities" => args.entities = Some(value().parse().unwrap_or_else(|_| usage())),
            "--dump" => args.dump = Some(PathBuf::from(value())),
            "--examples" => args.examples = value().parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    args
}

/// One tool call; returns the reply's structuredContent and the time `handle` took.
fn call(memory: &mut Server<MemLog>, id: u64, tool: &str, args: Value) -> (Value, Duration) {
    call_at(memory, 0, id, tool, args)
}

/// [`call`] at the host's time `now` (milliseconds since the epoch; 0: no clock).
fn call_at(
    memory: &mut Server<MemLog>,
    now: u64,
    id: u64,
    tool: &str,
    args: Value,
) -> (Value, Duration) {
    let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": {"name": tool, "arguments": args}})
    .to_string();
    let start = Instant::now();
    let replies = memory.handle_in(0, now, &line);
    let took = start.elapsed();
    let reply: Value = serde_json::from_str(replies.last().expect("a reply")).expect("JSON");
    let result = &reply["result"];
    assert!(
        result.is_object() && result.get("isError").is_none(),
        "{tool} failed: {reply}"
    );
    (result["structuredContent"].clone(), took)
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|e| e["name"].as_str().expect("a name").to_string())
        .collect()
}

/// The stored entities, in creation order: (name, type, observations).
fn entities(corpus: &Corpus) -> Vec<(String, &'static str, Vec<String>)> {
    let mut out = Vec::with_capacity(corpus.entity_count());
    for p in PERSONAS {
        out.push((
            p.name.to_string(),
            "person",
            vec!["a participant in the recorded conversations".to_string()],
        ));
    }
    for (s, session) in corpus.sessions.iter().enumerate() {
        out.push((
            session_name(s),
            "session",
            vec![format!("date: {}", session.date)],
        ));
    }
    for (s, session) in corpus.sessions.iter().enumerate() {
        for i in 0..session.turns.len() {
            let turn = session.turn(i);
            out.push((
                turn_name(s, i),
                "dialogue_turn",
                vec![
                    format!("{}: {}", PERSONAS[turn.speaker].name, turn.text),
                    format!("date: {}", session.date),
                ],
            ));
        }
    }
    out
}

fn load(memory: &mut Server<MemLog>, corpus: &Corpus, stored: &[(String, &str, Vec<String>)]) {
    let mut id = 0;
    for chunk in stored.chunks(1000) {
        let entities: Vec<Value> = chunk
            .iter()
            .map(|(name, ty, obs)| json!({"name": name, "entityType": ty, "observations": obs}))
            .collect();
        id += 1;
        call(
            memory,
            id,
            "create_entities",
            json!({ "entities": entities }),
        );
    }
    let mut relations = Vec::new();
    for (s, session) in corpus.sessions.iter().enumerate() {
        for i in 0..session.turns.len() {
            let name = turn_name(s, i);
            let speaker = PERSONAS[session.turn(i).speaker].name;
            relations.push(json!({"from": name, "to": speaker, "relationType": "said_by"}));
            relations
                .push(json!({"from": name, "to": session_name(s), "relationType": "in_session"}));
        }
    }
    for chunk in relations.chunks(1000) {
        id += 1;
        call(
            memory,
            id,
            "create_relations",
            json!({ "relations": chunk }),
        );
    }
}

fn dump(corpus: &Corpus, dir: &PathBuf) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let sessions: Vec<Value> = (corpus.sessions.iter().enumerate())
        .map(|(s, session)| {
            json!({"name": session_name(s), "date": session.date,
                   "participants": session.pair.map(|p| PERSONAS[p].name)})
        })
        .collect();
    let turns: Vec<Value> = (corpus.sessions.iter().enumerate())
        .flat_map(|(s, session)| {
            (0..session.turns.len()).map(move |i| {
                let turn = session.turn(i);
                json!({"name": turn_name(s, i), "session": session_name(s),
                       "date": session.date, "speaker": PERSONAS[turn.speaker].name,
                       "text": turn.text, "role": turn.role})
            })
        })
        .collect();
    let corpus_json = json!({
        "seed": corpus.seed,
        "personas": PERSONAS.iter().map(|p| p.name).collect::<Vec<_>>(),
        "sessions": sessions,
        "turns": turns,
    });
    let questions: Vec<Value> = (corpus.questions.iter().enumerate())
        .map(|(n, q)| {
            json!({"id": n + 1, "category": q.category.label(), "kind": q.kind, "key": q.key,
                   "persona": PERSONAS[q.persona].name, "question": q.text,
                   "answers": q.answers.iter().map(|&(s, i)| turn_name(s, i)).collect::<Vec<_>>(),
                   "answerTexts": q.answers.iter().map(|&a| corpus.answer_text(a)).collect::<Vec<_>>(),
                   "overlap": q.overlap})
        })
        .collect();
    let pretty = |v: &Value| serde_json::to_string_pretty(v).expect("JSON") + "\n";
    std::fs::write(dir.join("corpus.json"), pretty(&corpus_json))?;
    std::fs::write(dir.join("questions.json"), pretty(&Value::from(questions)))?;
    Ok(())
}

/// The systems measured: these, then one per entry of [`HYBRID_WEIGHTS`].
const FIXED: [&str; 6] = [
    "search",
    "search_nodes",
    "bm25",
    "semantic",
    "hybrid",
    "search_semantic",
];

/// How many systems are measured.
const SYSTEMS: usize = FIXED.len() + HYBRID_WEIGHTS.len();

/// System `s`'s name.
fn system(s: usize) -> String {
    match s.checked_sub(FIXED.len()).map(|h| HYBRID_WEIGHTS[h]) {
        None => FIXED[s].to_string(),
        Some(w) => format!("fused {w}"),
    }
}

/// Lexical weights of fusions computed here, over the search tool's lexical scores and
/// the table's cosines, to choose the weight the `search` tool's hybrid mode uses (its
/// `hybrid` row above; `search` and `search_nodes` rank by words, `semantic` by meaning).
const HYBRID_WEIGHTS: [f32; 3] = [0.2, 0.3, 0.4];

/// Candidates each side offers to the fusion.
const CANDIDATES: usize = 100;

/// The static embedding table (core/embeddings/table.bin).
fn table() -> Table {
    Table::parse(table_bytes()).expect("the committed table parses")
}

/// The table's bytes.
fn table_bytes() -> Vec<u8> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/embeddings/table.bin");
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Each stored entity's unit vector (name, type, observations), zero when it has none.
fn vectors(table: &Table, stored: &[(String, &str, Vec<String>)]) -> Vec<Vec<f32>> {
    let mut e = table.embedder();
    stored
        .iter()
        .map(|(name, ty, obs)| {
            e.add(name);
            e.add(ty);
            obs.iter().for_each(|o| e.add(o));
            e.finish().unwrap_or_else(|| vec![0.0; table.dims()])
        })
        .collect()
}

/// Fuses lexical hits (name, score) with cosines: the union of the top `CANDIDATES` of
/// each, both scores min-max normalised over it (a candidate lexical search did not return
/// scores 0 there), `weight` × lexical + (1 − weight) × cosine; the best 10 names.
fn fuse(lexical: &[(usize, f32)], cosines: &[f32], weight: f32) -> Vec<usize> {
    let mut by_cos: Vec<usize> = (0..cosines.len()).collect();
    by_cos.sort_by(|&a, &b| cosines[b].total_cmp(&cosines[a]));
    let mut pool: Vec<usize> = lexical.iter().map(|&(d, _)| d).collect();
    pool.extend(by_cos.iter().take(CANDIDATES));
    pool.sort_unstable();
    pool.dedup();
    let lex = |d: usize| {
        lexical
            .iter()
            .find(|&&(x, _)| x == d)
            .map_or(0.0, |&(_, s)| s)
    };
    let span = |f: &dyn Fn(usize) -> f32| {
        let (lo, hi) = pool.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &d| {
            (lo.min(f(d)), hi.max(f(d)))
        });
        (lo, (hi - lo).max(f32::EPSILON))
    };
    let (llo, lspan) = span(&lex);
    let (clo, cspan) = span(&|d| cosines[d]);
    let mut scored: Vec<(usize, f32)> = pool
        .iter()
        .map(|&d| {
            (
                d,
                weight * (lex(d) - llo) / lspan + (1.0 - weight) * (cosines[d] - clo) / cspan,
            )
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.into_iter().take(10).map(|(d, _)| d).collect()
}

/// Where one system put one question's answers.
#[derive(Clone, Copy, Default)]
struct Outcome {
    /// Rank (0-based) of the first answering turn in the top 10.
    first: Option<usize>,
    /// Every answering turn is in the top 10.
    all: bool,
    /// Nothing came back.
    empty: bool,
}

fn outcome(hits: &[String], answers: &[String]) -> Outcome {
    let top = &hits[..hits.len().min(10)];
    Outcome {
        first: top.iter().position(|h| answers.contains(h)),
        all: answers.iter().all(|a| top.contains(a)),
        empty: hits.is_empty(),
    }
}

fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort_unstable();
    let at = ((times.len() - 1) as f64 * p).round() as usize;
    times[at]
}

fn micros(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn main() {
    let args = parse_args();
    let started = Instant::now();
    let corpus = corpus::generate(args.seed, args.entities).unwrap_or_else(|e| {
        eprintln!("relevance: {e}");
        std::process::exit(2)
    });
    let generated = started.elapsed();
    if let Some(dir) = &args.dump {
        dump(&corpus, dir).unwrap_or_else(|e| panic!("dump to {}: {e}", dir.display()));
        println!(
            "wrote {0}/corpus.json and {0}/questions.json",
            dir.display()
        );
    }

    let stored = entities(&corpus);
    let started = Instant::now();
    let (mut memory, _) = Server::open(MemLog::new()).expect("open");
    load(&mut memory, &corpus, &stored);
    let loaded = started.elapsed();
    let started = Instant::now();
    let bm25 = bm25::Bm25::new(
        stored
            .iter()
            .map(|(name, ty, obs)| format!("{name} {ty} {}", obs.join(" "))),
    );
    let indexed = started.elapsed();
    let started = Instant::now();
    let table = table();
    let vectors = vectors(&table, &stored);
    let embedded = started.elapsed();
    let position: std::collections::HashMap<&str, usize> = (stored.iter().enumerate())
        .map(|(d, (name, _, _))| (name.as_str(), d))
        .collect();
    let tool_table = mcp_memory_core::embed::Table::parse(table_bytes()).expect("parses");
    memory.memory_mut().set_embedding_table(tool_table);
    // The first search of each kind builds its index (the first semantic one embeds every
    // entity).
    let lexical_mode = json!({"query": "warm up", "mode": "lexical"});
    let (_, first_search) = call(&mut memory, 1, "search", lexical_mode);
    let semantic_mode = json!({"query": "warm up", "mode": "semantic"});
    let (_, first_semantic) = call(&mut memory, 1, "search", semantic_mode);
    let (_, first_nodes) = call(&mut memory, 2, "search_nodes", json!({"query": "warm up"}));

    let questions = &corpus.questions;
    let mut outcomes = vec![[Outcome::default(); SYSTEMS]; questions.len()];
    let mut times: [Vec<Duration>; SYSTEMS] = Default::default();
    let mut tops: Vec<[Vec<String>; SYSTEMS]> = Vec::new();
    for (n, q) in questions.iter().enumerate() {
        let answers: Vec<String> = q.answers.iter().map(|&(s, i)| turn_name(s, i)).collect();
        let id = 10 + 2 * n as u64;
        let (found, took) = call(
            &mut memory,
            id,
            "search",
            json!({"query": q.text, "limit": 10, "mode": "lexical"}),
        );
        let search = names(&found["hits"]);
        times[0].push(took);
        let [semantic, hybrid] = ["semantic", "hybrid"].map(|mode| {
            let args = json!({"query": q.text, "limit": 10, "mode": mode});
            let (found, took) = call(&mut memory, id, "search", args);
            times[if mode == "semantic" { 3 } else { 4 }].push(took);
            names(&found["hits"])
        });
        let (found, took) = call(
            &mut memory,
            id + 1,
            "search_nodes",
            json!({"query": q.text}),
        );
        let mut nodes = names(&found["entities"]);
        nodes.truncate(10);
        times[1].push(took);
        // The Python seed's search_semantic (profile mcp-memory-py): fused ranks, re-ranked.
        let (found, took) = call(
            &mut memory,
            id + 1,
            "search_semantic",
            json!({"query": q.text, "limit": 10}),
        );
        let py_semantic = names(&found["results"]);
        times[5].push(took);
        let start = Instant::now();
        let top = bm25.top(&q.text, 10);
        times[2].push(start.elapsed());
        let baseline: Vec<String> = top.into_iter().map(|d| stored[d].0.clone()).collect();
        // Semantic and hybrid: the question's vector against every entity's; the lexical
        // side is the search tool's top CANDIDATES with their scores.
        let start = Instant::now();
        let mut e = table.embedder();
        e.add(&q.text);
        let query = e.finish().unwrap_or_else(|| vec![0.0; table.dims()]);
        let cosines: Vec<f32> = vectors
            .iter()
            .map(|v| v.iter().zip(&query).map(|(a, b)| a * b).sum())
            .collect();
        let took = start.elapsed();
        let (found, _) = call(
            &mut memory,
            id,
            "search",
            json!({"query": q.text, "limit": CANDIDATES, "mode": "lexical"}),
        );
        let lexical: Vec<(usize, f32)> = (found["hits"].as_array().expect("hits").iter())
            .map(|h| {
                let name = h["name"].as_str().expect("a name");
                (position[name], h["score"].as_f64().expect("a score") as f32)
            })
            .collect();
        let fused = HYBRID_WEIGHTS.map(|w| {
            let top = fuse(&lexical, &cosines, w);
            top.into_iter()
                .map(|d| stored[d].0.clone())
                .collect::<Vec<_>>()
        });
        for t in &mut times[FIXED.len()..] {
            t.push(took);
        }
        let [h1, h2, h3] = fused;
        let hits = [
            search,
            nodes,
            baseline,
            semantic,
            hybrid,
            py_semantic,
            h1,
            h2,
            h3,
        ];
        for s in 0..SYSTEMS {
            outcomes[n][s] = outcome(&hits[s], &answers);
        }
        tops.push(hits);
    }

    // Report.
    println!(
        "relevance: {} entities ({} personas, {} sessions, {} turns), {} questions, seed {}",
        corpus.entity_count(),
        PERSONAS.len(),
        corpus.sessions.len(),
        corpus.turn_count(),
        questions.len(),
        corpus.seed
    );
    println!(
        "generated in {:.2?}, loaded through create_entities/create_relations in {:.2?}, BM25 baseline indexed in {:.2?}, table read and entities embedded in {:.2?}",
        generated, loaded, indexed, embedded
    );
    println!();
    println!("questions      n  content words shared with the answer (mean)  none shared");
    for c in Category::ALL {
        let qs: Vec<_> = questions.iter().filter(|q| q.category == c).collect();
        let mean = qs.iter().map(|q| q.overlap as f64).sum::<f64>() / qs.len() as f64;
        let none = qs.iter().filter(|q| q.overlap == 0).count();
        println!(
            "{:<12} {:>3}  {:>43.2}  {:>10}",
            c.label(),
            qs.len(),
            mean,
            none
        );
    }
    println!();
    println!(
        "{:<15} {:<11} {:>4}  {:>6} {:>6} {:>6} {:>8} {:>6}",
        "system", "category", "n", "R@5", "R@10", "MRR", "both@10", "empty"
    );
    for s in 0..SYSTEMS {
        let system = system(s);
        let rows = std::iter::once(None).chain(Category::ALL.map(Some));
        for category in rows {
            let picked: Vec<Outcome> = (questions.iter().zip(&outcomes))
                .filter(|(q, _)| category.is_none_or(|c| q.category == c))
                .map(|(_, o)| o[s])
                .collect();
            let n = picked.len() as f64;
            let share =
                |f: &dyn Fn(&Outcome) -> bool| picked.iter().filter(|o| f(o)).count() as f64 / n;
            let r5 = share(&|o| o.first.is_some_and(|r| r < 5));
            let r10 = share(&|o| o.first.is_some());
            let mrr = picked
                .iter()
                .map(|o| o.first.map_or(0.0, |r| 1.0 / (r + 1) as f64))
                .sum::<f64>()
                / n;
            let both = if category == Some(Category::MultiHop) {
                format!("{:.3}", share(&|o| o.all))
            } else {
                "-".to_string()
            };
            println!(
                "{:<15} {:<11} {:>4}  {:>6.3} {:>6.3} {:>6.3} {:>8} {:>6.3}",
                if category.is_none() { &system } else { "" },
                category.map_or("all", Category::label),
                picked.len(),
                r5,
                r10,
                mrr,
                both,
                share(&|o| o.empty),
            );
        }
    }
    println!();
    println!("time per question, in process (Memory::handle, JSON in and out):");
    println!(
        "  first search (builds the ranked index):   {}",
        micros(first_search)
    );
    println!(
        "  first search_nodes (builds the trigrams): {}",
        micros(first_nodes)
    );
    println!(
        "  first semantic search (embeds every entity): {}",
        micros(first_semantic)
    );
    for (s, times) in times.iter_mut().enumerate() {
        let system = system(s);
        let median = percentile(times, 0.5);
        let p95 = percentile(times, 0.95);
        let note = match s {
            2 => " (the baseline's own scoring, no JSON)",
            6.. => " (embedding the question and a cosine per entity here, f32, no JSON)",
            _ => "",
        };
        println!(
            "  {system:<15} median {:>10}  p95 {:>10}{note}",
            micros(median),
            micros(p95)
        );
    }

    repeated_access(&corpus, &stored);

    if args.examples > 0 {
        let texts: std::collections::HashMap<&str, &String> = stored
            .iter()
            .map(|(name, _, obs)| (name.as_str(), &obs[0]))
            .collect();
        println!();
        for c in Category::ALL {
            for (n, q) in (questions.iter().enumerate())
                .filter(|(_, q)| q.category == c)
                .take(args.examples)
            {
                println!("[{}] {}", c.label(), q.text);
                let answers: Vec<String> =
                    q.answers.iter().map(|&(s, i)| turn_name(s, i)).collect();
                for (&a, name) in q.answers.iter().zip(&answers) {
                    println!("    answer {name}: {}", corpus.answer_text(a));
                }
                for s in 0..SYSTEMS {
                    let system = system(s);
                    let rank = outcomes[n][s]
                        .first
                        .map_or("-".to_string(), |r| (r + 1).to_string());
                    println!("    {system:<15} rank {rank:>2}, top 3:");
                    for h in tops[n][s].iter().take(3) {
                        let mark = if answers.contains(h) { "*" } else { " " };
                        let text: String = texts[h.as_str()].chars().take(90).collect();
                        println!("      {mark} {h:<20} {text}");
                    }
                }
            }
        }
    }
}

/// Salience weights the repeated-access pass compares (the seed's is 0.5).
const SALIENCE_WEIGHTS: [f64; 5] = [0.0, 0.1, 0.25, 0.5, 1.0];

/// Days over which the repeated-access pass uses what recurring questions ask about.
const USE_DAYS: u64 = 5;

/// The repeated-access pass (issue K): on a fresh memory of the same corpus, every other
/// question is "recurring": an agent opened its answering turns (open_nodes, the Python
/// seed's shape, which counts uses) once a day for [`USE_DAYS`] days. Then every question
/// is asked to search_semantic at each of [`SALIENCE_WEIGHTS`]: MRR for the recurring
/// questions and for the others, whose answers were never used (what salience costs them).
fn repeated_access(corpus: &Corpus, stored: &[(String, &'static str, Vec<String>)]) {
    const DAY: u64 = 86_400_000;
    const T0: u64 = 1_800_000_000_000;
    let (mut memory, _) = Server::open(MemLog::new()).expect("open");
    load(&mut memory, corpus, stored);
    let table = mcp_memory_core::embed::Table::parse(table_bytes()).expect("parses");
    memory.memory_mut().set_embedding_table(table);
    // The seed's open_nodes, which counts uses (`all` lists the reference's).
    memory.set_tools("mcp-memory-py", "").expect("the profile");
    let questions = &corpus.questions;
    let answers = |q: &corpus::Question| -> Vec<String> {
        q.answers.iter().map(|&(s, i)| turn_name(s, i)).collect()
    };
    let recurring = |n: usize| n.is_multiple_of(2);
    let mut id = 1_000_000;
    for day in 0..USE_DAYS {
        for (n, q) in questions.iter().enumerate().filter(|(n, _)| recurring(*n)) {
            id += 1;
            let args = json!({"names": answers(q), "include_superseded": false});
            call_at(
                &mut memory,
                T0 + day * DAY + n as u64,
                id,
                "open_nodes",
                args,
            );
        }
    }
    // Asked a day after the last use (the uses' record is logged by the first call).
    let asked = T0 + USE_DAYS * DAY;
    println!();
    println!(
        "repeated access: {} of {} questions recurring (their answers opened once a day for {USE_DAYS} days), then all asked to search_semantic",
        questions
            .iter()
            .enumerate()
            .filter(|(n, _)| recurring(*n))
            .count(),
        questions.len()
    );
    println!(
        "{:<16} {:>14} {:>14} {:>10}",
        "salience_weight", "recurring MRR", "others MRR", "all MRR"
    );
    for weight in SALIENCE_WEIGHTS {
        let mut mrr = [0.0f64; 2];
        let mut count = [0usize; 2];
        for (n, q) in questions.iter().enumerate() {
            id += 1;
            let args = json!({"query": q.text, "limit": 10, "salience_weight": weight});
            let (found, _) = call_at(&mut memory, asked, id, "search_semantic", args);
            let o = outcome(&names(&found["results"]), &answers(q));
            let k = usize::from(!recurring(n));
            mrr[k] += o.first.map_or(0.0, |r| 1.0 / (r + 1) as f64);
            count[k] += 1;
        }
        println!(
            "{weight:<16} {:>14.3} {:>14.3} {:>10.3}",
            mrr[0] / count[0] as f64,
            mrr[1] / count[1] as f64,
            (mrr[0] + mrr[1]) / (count[0] + count[1]) as f64,
        );
    }
}
