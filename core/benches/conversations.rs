//! Relevance on real conversations (issue 42): the LoCoMo benchmark's ten multi-session
//! conversations (public, CC BY-NC 4.0, so not vendored: pass its data), one entity per
//! dialogue turn, and its questions asked verbatim to `search` in each mode. Nothing in the
//! ranking was written for this text; the generated set (`relevance.rs`) is the other
//! judge.
//!
//! ```text
//! git clone https://github.com/snap-research/locomo && unzip locomo/data/locomo10.zip -d /tmp/locomo
//! cargo bench -p mcp-memory-core --bench conversations -- --locomo /tmp/locomo/data/multimodal_dialog/locomo10_v2
//! ```
//!
//! `--locomo` takes a directory of per-conversation JSON files (the repository's zip) or one
//! JSON file holding the list of them (`locomo10.json` as others redistribute it).
//!
//! Storage is the one `relevance.rs` uses, a memory per conversation: its two speakers
//! (`person`), its sessions (`session-S`, observation `date: D Month YYYY`), and each turn
//! `Ds:t` as `session-s-turn-t` (`dialogue_turn`) with the observations `"<Speaker>:
//! <text>"` and `"date: <D Month YYYY>"`, related `said_by` its speaker and `in_session` its
//! session; all through `create_entities` and `create_relations`.
//!
//! Questions: every question but the adversarial ones (category 5, which have no answer
//! in the conversation) whose evidence names a turn: 1,532 of 1,540 (an evidence id that
//! is not a turn, such as `D:11:26`, is left out; a question left with none is). Scoring: Recall@10 is the share of a question's
//! evidence turns among its first 10 hits, averaged over questions; MRR is the reciprocal
//! rank of the first evidence turn (0 past 10). Categories as LoCoMo numbers them: 1
//! multi-hop, 2 temporal, 3 open-domain, 4 single-hop. Reported over all ten conversations
//! and over each half (the first five, the last five by file name), so a change can be
//! tried on one half and judged on the other. Not a test: nothing here asserts a figure.

#[path = "../tests/suite/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{MemLog, call_ok};
use mcp_memory_core::Server;
use mcp_memory_core::embed::Table;
use serde_json::{Value, json};

/// One conversation: its speakers, sessions (date, turns) and questions.
struct Conversation {
    name: String,
    speakers: [String; 2],
    sessions: Vec<Session>,
    questions: Vec<Question>,
}

struct Session {
    number: u32,
    date: String,
    turns: Vec<Turn>,
}

struct Turn {
    id: String,
    speaker: String,
    text: String,
}

struct Question {
    text: String,
    category: usize,
    evidence: Vec<String>,
}

/// Categories reported, in LoCoMo's numbering (index = number − 1).
const CATEGORIES: [&str; 4] = ["multi-hop", "temporal", "open-domain", "single-hop"];

const MODES: [&str; 3] = ["lexical", "semantic", "hybrid"];

fn usage() -> ! {
    eprintln!("usage: cargo bench -p mcp-memory-core --bench conversations -- --locomo PATH");
    std::process::exit(2)
}

fn parse_args() -> PathBuf {
    let mut path = None;
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            // cargo bench passes it to every bench binary.
            "--bench" => {}
            "--locomo" => path = Some(PathBuf::from(it.next().unwrap_or_else(|| usage()))),
            _ => usage(),
        }
    }
    path.unwrap_or_else(|| usage())
}

/// The conversations at `path` (a directory of JSON files, or one JSON list), in file order.
fn read(path: &Path) -> Vec<Conversation> {
    let text = |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    let mut raw: Vec<(String, Value)> = Vec::new();
    if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap_or_else(|e| panic!("{path:?}: {e}"))
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files {
            let name = f.file_stem().expect("a file name").to_string_lossy().into();
            raw.push((name, serde_json::from_str(&text(&f)).expect("JSON")));
        }
    } else {
        let list: Vec<Value> = serde_json::from_str(&text(path)).expect("a JSON list");
        for (i, c) in list.into_iter().enumerate() {
            let name = c["sample_id"].as_str().map_or(i.to_string(), String::from);
            raw.push((
                name,
                c.get("conversation").cloned().map_or(c.clone(), |conv| {
                    let mut whole = conv;
                    whole["qa"] = c["qa"].clone();
                    whole
                }),
            ));
        }
    }
    raw.into_iter()
        .map(|(name, c)| conversation(name, &c))
        .collect()
}

fn conversation(name: String, c: &Value) -> Conversation {
    let s = |v: &Value| v.as_str().expect("a string").to_string();
    let mut sessions = Vec::new();
    for number in 1.. {
        let Some(turns) = c[format!("session_{number}")].as_array() else {
            if c.get(format!("session_{number}_date_time")).is_some() {
                continue; // a date with no turns
            }
            break;
        };
        let when = s(&c[format!("session_{number}_date_time")]);
        sessions.push(Session {
            number,
            date: day(&when),
            turns: (turns.iter())
                .map(|t| Turn {
                    id: s(&t["dia_id"]),
                    speaker: s(&t["speaker"]),
                    text: s(&t["text"]),
                })
                .collect(),
        });
    }
    let well_formed = |e: &&Value| e.as_str().is_some_and(|e| turn_name(e).is_some());
    let questions = (c["qa"].as_array().expect("qa"))
        .iter()
        .filter(|q| q["category"].as_u64().is_some_and(|c| (1..=4).contains(&c)))
        .map(|q| Question {
            text: match &q["question"] {
                Value::String(t) => t.clone(),
                other => other.to_string(),
            },
            category: q["category"].as_u64().expect("a category") as usize,
            evidence: (q["evidence"].as_array().expect("evidence").iter())
                .filter(well_formed)
                .filter_map(|e| turn_name(e.as_str()?))
                .collect(),
        })
        .filter(|q| !q.evidence.is_empty())
        .collect();
    Conversation {
        name,
        speakers: [s(&c["speaker_a"]), s(&c["speaker_b"])],
        sessions,
        questions,
    }
}

/// `"1:56 pm on 8 May, 2023"` → `"8 May 2023"`.
fn day(when: &str) -> String {
    let date = when.split_once(" on ").map_or(when, |(_, d)| d);
    date.replace(',', "")
}

/// The entity name of turn `Ds:t`, if the id is one.
fn turn_name(id: &str) -> Option<String> {
    let (s, t) = id.strip_prefix('D')?.split_once(':')?;
    let (s, t): (u32, u32) = (s.parse().ok()?, t.parse().ok()?);
    Some(format!("session-{s}-turn-{t}"))
}

/// A memory holding `c`, with the static embedding table.
fn memory(c: &Conversation, table: &[u8]) -> Server<MemLog> {
    let (mut memory, _) = Server::open(MemLog::new()).expect("an empty memory opens");
    let table = Table::parse(table.to_vec()).expect("the committed table parses");
    memory.memory_mut().set_embedding_table(table);
    let mut entities: Vec<Value> = (c.speakers.iter())
        .map(|p| json!({"name": p, "entityType": "person", "observations": ["a participant in the recorded conversations"]}))
        .collect();
    let mut relations = Vec::new();
    for s in &c.sessions {
        let session = format!("session-{}", s.number);
        let date = format!("date: {}", s.date);
        entities.push(json!({"name": session, "entityType": "session", "observations": [date]}));
        for t in &s.turns {
            let Some(name) = turn_name(&t.id) else {
                continue;
            };
            let said = format!("{}: {}", t.speaker, t.text);
            entities.push(
                json!({"name": name, "entityType": "dialogue_turn", "observations": [said, date]}),
            );
            relations.push(json!({"from": name, "to": t.speaker, "relationType": "said_by"}));
            relations.push(json!({"from": name, "to": session, "relationType": "in_session"}));
        }
    }
    for chunk in entities.chunks(1000) {
        call_ok(&mut memory, "create_entities", json!({ "entities": chunk }));
    }
    for chunk in relations.chunks(1000) {
        call_ok(
            &mut memory,
            "create_relations",
            json!({ "relations": chunk }),
        );
    }
    memory
}

/// Sums of Recall@10 and reciprocal ranks, and the questions counted, per category.
#[derive(Default, Clone)]
struct Tally {
    recall: [f64; 4],
    rr: [f64; 4],
    n: [usize; 4],
}

impl Tally {
    fn add(&mut self, category: usize, hits: &[String], evidence: &[String]) {
        let found = evidence
            .iter()
            .filter(|e| hits[..hits.len().min(10)].contains(e));
        let first = hits.iter().take(10).position(|h| evidence.contains(h));
        let c = category - 1;
        self.recall[c] += found.count() as f64 / evidence.len() as f64;
        self.rr[c] += first.map_or(0.0, |r| 1.0 / (r + 1) as f64);
        self.n[c] += 1;
    }

    fn merge(&mut self, other: &Tally) {
        for c in 0..4 {
            self.recall[c] += other.recall[c];
            self.rr[c] += other.rr[c];
            self.n[c] += other.n[c];
        }
    }

    /// `| all | multi-hop | temporal | open-domain | single-hop | MRR |` cells.
    fn row(&self) -> String {
        let n: usize = self.n.iter().sum();
        let all = self.recall.iter().sum::<f64>() / n as f64;
        let mrr = self.rr.iter().sum::<f64>() / n as f64;
        let cells: Vec<String> = (0..4)
            .map(|c| format!("{:.3}", self.recall[c] / self.n[c].max(1) as f64))
            .collect();
        format!("{all:.3} | {} | {mrr:.3}", cells.join(" | "))
    }
}

fn main() {
    let path = parse_args();
    let conversations = read(&path);
    let table = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/embeddings/table.bin"))
        .expect("the committed embedding table");
    let turns: usize = (conversations.iter())
        .flat_map(|c| &c.sessions)
        .map(|s| s.turns.len())
        .sum();
    let questions: usize = conversations.iter().map(|c| c.questions.len()).sum();
    println!(
        "{} conversations, {turns} turns, {questions} questions",
        conversations.len()
    );
    // tallies[mode][conversation]
    let mut tallies = vec![Vec::new(); MODES.len()];
    let mut times: HashMap<&str, Vec<Duration>> = HashMap::new();
    for c in &conversations {
        let mut memory = memory(c, &table);
        for (m, mode) in MODES.iter().enumerate() {
            let mut tally = Tally::default();
            for q in &c.questions {
                let args = json!({"query": q.text, "mode": mode, "limit": 10});
                let start = Instant::now();
                let found = call_ok(&mut memory, "search", args);
                times.entry(mode).or_default().push(start.elapsed());
                let hits: Vec<String> = (found["hits"].as_array().expect("hits"))
                    .iter()
                    .map(|r| r["name"].as_str().expect("a name").to_string())
                    .collect();
                tally.add(q.category, &hits, &q.evidence);
            }
            tallies[m].push(tally);
        }
        eprintln!("{}: {} questions", c.name, c.questions.len());
    }
    let half = conversations.len().div_ceil(2);
    let parts = [
        ("all", 0..conversations.len()),
        ("first half", 0..half),
        ("second half", half..conversations.len()),
    ];
    for (label, range) in parts {
        let names: Vec<&str> = conversations[range.clone()]
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        println!("\nRecall@10, {label} ({})", names.join(", "));
        println!("| mode | all | {} | MRR |", CATEGORIES.join(" | "));
        println!("|---|---|---|---|---|---|---|");
        for (m, mode) in MODES.iter().enumerate() {
            let mut sum = Tally::default();
            tallies[m][range.clone()].iter().for_each(|t| sum.merge(t));
            println!("| {mode} | {} |", sum.row());
        }
    }
    println!("\nper question, in process (JSON in and out, the reply checked): median / p95");
    for mode in MODES {
        let t = times.get_mut(mode).expect("timed");
        t.sort();
        let at = |p: f64| t[((t.len() - 1) as f64 * p) as usize];
        println!("{mode}: {:?} / {:?}", at(0.5), at(0.95));
    }
}
