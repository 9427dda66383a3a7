//! The benchmark of one server: mcpbench's phases (bulk load, add_observations, rare and
//! broad searches, open_nodes, read_graph, deletes), then restarts on the same file (cold
//! start, peak memory with a full read_graph) and a verification of what survived.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use serde_json::{Value, json};

use crate::client::{entities, relations};
use crate::dataset::{BROAD_QUERIES, Dataset, Entity, HOBBIES, PLACES, Relation, Rng};
use crate::procfs::{self, Rss};
use crate::server::{REQUIRED_TOOLS, STDERR_LOG, Server, ServerSpec, Shutdown};
use crate::stats::{Recorder, Summary, median};

/// Names per open_nodes call in the verification sweep.
const VERIFY_CHUNK: usize = 500;
/// Names per open_nodes call in the other phases.
const OPEN_NAMES: usize = 5;

/// How much of each operation to run.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Entities per create_entities call, relations per create_relations call.
    pub batch: usize,
    /// Seed of the dataset; the operations use seed + 1.
    pub seed: u64,
    /// add_observations calls (one new observation each).
    pub add_obs: usize,
    /// search_nodes calls for rare words.
    pub search_rare: usize,
    /// search_nodes calls for common words.
    pub search_broad: usize,
    /// open_nodes calls (5 names each).
    pub open: usize,
    /// read_graph calls.
    pub read_graph: usize,
    /// delete_observations calls (one observation each).
    pub del_obs: usize,
    /// delete_relations calls (one relation each).
    pub del_relations: usize,
    /// delete_entities calls (one entity each).
    pub del_entities: usize,
    /// Restarts on the same file (the first one verifies).
    pub restarts: usize,
    /// Longest wait for one reply.
    pub call_timeout: Duration,
}

/// Entity, relation and observation counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Entities.
    pub entities: usize,
    /// Relations.
    pub relations: usize,
    /// Observations over all entities.
    pub observations: usize,
}

impl Counts {
    fn to_json(self) -> Value {
        json!({"entities": self.entities, "relations": self.relations, "observations": self.observations})
    }
}

/// What the graph must hold: updated after each successful call.
#[derive(Default)]
struct Model {
    entities: HashMap<String, Vec<String>>,
    relations: HashSet<(String, String, String)>,
}

impl Model {
    fn add_entities(&mut self, batch: &[Entity]) {
        for e in batch {
            self.entities
                .entry(e.name.clone())
                .or_insert_with(|| e.observations.clone());
        }
    }

    fn add_relations(&mut self, batch: &[Relation]) {
        for r in batch {
            self.relations.insert(key(r));
        }
    }

    fn counts(&self) -> Counts {
        Counts {
            entities: self.entities.len(),
            relations: self.relations.len(),
            observations: self.entities.values().map(Vec::len).sum(),
        }
    }
}

fn key(r: &Relation) -> (String, String, String) {
    (r.from.clone(), r.to.clone(), r.relation_type.to_owned())
}

/// One restart: spawn to the first answer, then a full read_graph.
#[derive(Clone, Debug)]
pub struct ColdStart {
    /// From spawn to the first successful open_nodes reply, handshake included.
    pub spawn_to_first_open_ms: f64,
    /// open_nodes calls that returned isError before one succeeded.
    pub retries: usize,
    /// Round trip of the read_graph after it.
    pub read_graph_ms: f64,
    /// Memory after that read_graph.
    pub rss_after_read_graph: Rss,
    /// How the server stopped.
    pub shutdown: Shutdown,
}

/// The check after the first restart: an open_nodes sweep over every expected name.
#[derive(Clone, Debug, Default)]
pub struct Verify {
    /// What the model holds.
    pub expected: Counts,
    /// What the sweep found.
    pub found: Counts,
    /// What a full read_graph returned (informational: some servers cap it).
    pub read_graph: Counts,
    /// Expected entities the sweep did not find.
    pub entities_missing: usize,
    /// Entities whose observations differ from the model's.
    pub observation_mismatches: usize,
    /// Expected relations not returned.
    pub relations_missing: usize,
    /// Returned relations not expected.
    pub relations_extra: usize,
    /// Deleted entities that open_nodes still returns.
    pub deleted_present: usize,
}

impl Verify {
    /// Whether the server kept exactly what it acknowledged.
    pub fn ok(&self) -> bool {
        self.found == self.expected
            && self.entities_missing == 0
            && self.observation_mismatches == 0
            && self.relations_missing == 0
            && self.relations_extra == 0
            && self.deleted_present == 0
    }

    /// All numbers, for the JSON report.
    pub fn to_json(&self) -> Value {
        json!({
            "ok": self.ok(),
            "expected": self.expected.to_json(),
            "open_nodes_sweep": self.found.to_json(),
            "read_graph": self.read_graph.to_json(),
            "entities_missing": self.entities_missing,
            "observation_mismatch_entities": self.observation_mismatches,
            "relations_missing": self.relations_missing,
            "relations_extra": self.relations_extra,
            "deleted_still_present": self.deleted_present,
        })
    }
}

/// Everything measured on one server.
#[derive(Clone, Debug)]
pub struct Run {
    /// The server's label.
    pub label: String,
    /// The command it ran.
    pub command: String,
    /// `stdio` or `tcp`.
    pub transport: &'static str,
    /// Its `serverInfo`.
    pub server_info: Value,
    /// From spawn to the tools/list reply on the first start.
    pub first_start_ms: f64,
    /// Each phase's summary, in order.
    pub phases: Vec<(&'static str, Summary)>,
    /// Memory after the bulk load.
    pub rss_after_load: Rss,
    /// Memory at the end of the workload.
    pub rss_end: Rss,
    /// Bytes on disk after the bulk load (the stderr log excluded).
    pub disk_after_load: u64,
    /// Bytes on disk after the first run's shutdown.
    pub disk_after_shutdown: u64,
    /// Size of the last read_graph reply, bytes.
    pub read_graph_bytes: u64,
    /// What the last read_graph returned.
    pub read_graph_counts: Counts,
    /// Median entities per broad search.
    pub broad_hits_median: u64,
    /// Rare-word searches whose entity set differed from the planted one.
    pub rare_mismatches: usize,
    /// How the first run stopped.
    pub shutdown: Shutdown,
    /// The restarts.
    pub cold_starts: Vec<ColdStart>,
    /// The check after the first restart.
    pub verify: Verify,
    /// Notifications and requests received from the server on the first run.
    pub traffic: (u64, u64),
    /// Oddities seen on the way.
    pub notes: Vec<String>,
}

impl Run {
    /// The summary of a phase.
    pub fn phase(&self, name: &str) -> Option<&Summary> {
        self.phases.iter().find(|p| p.0 == name).map(|p| &p.1)
    }
}

/// Progress lines on stderr.
struct Progress {
    label: String,
    started: Instant,
}

impl Progress {
    fn say(&self, msg: &str) {
        eprintln!(
            "[{} {:8.1}s] {msg}",
            self.label,
            self.started.elapsed().as_secs_f64()
        );
    }

    fn phase(&self, run_phases: &mut Vec<(&'static str, Summary)>, name: &'static str, s: Summary) {
        let ms = |v: Option<f64>| v.map_or("-".into(), |x| format!("{x:.3}"));
        self.say(&format!(
            "{name}: n={} p50={} p95={} p99={} max={} ms, wall {:.2}s",
            s.count,
            ms(s.p50_ms),
            ms(s.p95_ms),
            ms(s.p99_ms),
            ms(s.max_ms),
            s.wall_s
        ));
        run_phases.push((name, s));
    }
}

/// The names in `payload`'s entities.
fn entity_names(payload: &Value) -> Option<BTreeSet<String>> {
    Some(
        entities(payload)?
            .iter()
            .filter_map(|e| e.get("name").and_then(Value::as_str).map(String::from))
            .collect(),
    )
}

/// Runs the whole benchmark on one server, in `dir`.
pub fn run(spec: &ServerSpec, dir: &Path, data: &Dataset, w: &Workload) -> Result<Run> {
    let log = Progress {
        label: spec.label.clone(),
        started: Instant::now(),
    };
    let mut model = Model::default();
    let mut rng = Rng::new(w.seed.wrapping_add(1));
    let mut phases = Vec::new();
    let mut notes = Vec::new();

    let mut server = Server::start(spec, dir, w.call_timeout)?;
    let server_info = server.initialize()?;
    let tools = server.list_tools()?;
    let missing: Vec<&str> = REQUIRED_TOOLS
        .into_iter()
        .filter(|t| !tools.iter().any(|have| have == t))
        .collect();
    if !missing.is_empty() {
        bail!("the server lacks the tools {missing:?}; it offers {tools:?}");
    }
    let first_start_ms = server.spawned.elapsed().as_secs_f64() * 1000.0;
    log.say(&format!(
        "started {} over {} in {first_start_ms:.1} ms; {} tools",
        server_info,
        if spec.tcp { "tcp" } else { "stdio" },
        tools.len()
    ));

    // 1. bulk entities
    let batch = w.batch.max(1);
    let mut rec = Recorder::start();
    let mut short_creates = 0;
    for chunk in data.entities.chunks(batch) {
        let args = json!({"entities": chunk.iter().map(Entity::to_json).collect::<Vec<_>>()});
        let call = server.call("create_entities", args)?;
        rec.record(call.latency, call.bytes, chunk.len());
        if entities(&call.result.payload()).is_some_and(|e| e.len() != chunk.len()) {
            short_creates += 1;
        }
        model.add_entities(chunk);
    }
    log.phase(&mut phases, "create_entities", rec.finish());
    if short_creates > 0 {
        notes.push(format!(
            "create_entities returned another entity count than sent in {short_creates} calls"
        ));
    }

    // 2. bulk relations
    let mut rec = Recorder::start();
    for chunk in data.relations.chunks(batch) {
        let args = json!({"relations": chunk.iter().map(Relation::to_json).collect::<Vec<_>>()});
        let call = server.call("create_relations", args)?;
        rec.record(call.latency, call.bytes, chunk.len());
        model.add_relations(chunk);
    }
    log.phase(&mut phases, "create_relations", rec.finish());
    let rss_after_load = server.rss();
    let disk_after_load = procfs::dir_size(dir, STDERR_LOG);
    log.say(&format!(
        "after load: RSS {} KiB (peak {} KiB), disk {disk_after_load} B",
        rss_after_load.rss_kib, rss_after_load.hwm_kib
    ));

    let names: Vec<&str> = data.entities.iter().map(|e| e.name.as_str()).collect();
    let rare_names: HashSet<&str> = data
        .rare
        .iter()
        .flat_map(|r| r.entities.iter().map(String::as_str))
        .collect();

    // 3. add_observations: one new observation per call
    let mut rec = Recorder::start();
    for i in 0..if names.is_empty() { 0 } else { w.add_obs } {
        let name = names[rng.below(names.len())];
        let text = format!(
            "Added follow-up note {i} about {} in {}",
            rng.pick(HOBBIES),
            rng.pick(PLACES)
        );
        let args = json!({"observations": [{"entityName": name, "contents": [text]}]});
        let call = server.call("add_observations", args)?;
        rec.record(call.latency, call.bytes, 1);
        if let Some(obs) = model.entities.get_mut(name)
            && !obs.contains(&text)
        {
            obs.push(text);
        }
    }
    log.phase(&mut phases, "add_observations", rec.finish());

    // 4. search_nodes for rare words: the planted set exactly
    let mut rec = Recorder::start();
    let mut rare_mismatches = 0;
    for i in 0..if data.rare.is_empty() {
        0
    } else {
        w.search_rare
    } {
        let rare = &data.rare[i % data.rare.len()];
        let call = server.call("search_nodes", json!({"query": rare.word}))?;
        rec.record(call.latency, call.bytes, 1);
        let got = entity_names(&call.result.payload());
        if got.as_ref() != Some(&rare.entities) {
            rare_mismatches += 1;
            if rare_mismatches <= 5 {
                notes.push(format!(
                    "search_nodes {:?} returned {got:?}, expected {:?}",
                    rare.word, rare.entities
                ));
            }
        }
    }
    log.phase(&mut phases, "search_nodes_rare", rec.finish());
    if rare_mismatches > 0 {
        log.say(&format!(
            "search_nodes rare: {rare_mismatches} results differ from the planted sets"
        ));
    }

    // 5. search_nodes for common words
    let mut rec = Recorder::start();
    let mut hits = Vec::new();
    for i in 0..w.search_broad {
        let query = BROAD_QUERIES[i % BROAD_QUERIES.len()];
        let call = server.call("search_nodes", json!({"query": query}))?;
        rec.record(call.latency, call.bytes, 1);
        hits.push(entities(&call.result.payload()).map_or(0, |e| e.len() as u64));
    }
    log.phase(&mut phases, "search_nodes_broad", rec.finish());
    let broad_hits_median = median(&hits);

    // 6. open_nodes, 5 names each
    let mut rec = Recorder::start();
    let mut wrong_opens = 0;
    for _ in 0..w.open {
        let picked: Vec<&str> = rng
            .sample(names.len(), OPEN_NAMES)
            .into_iter()
            .map(|i| names[i])
            .collect();
        let call = server.call("open_nodes", json!({ "names": picked }))?;
        rec.record(call.latency, call.bytes, 1);
        if entities(&call.result.payload()).map(Vec::len) != Some(picked.len()) {
            wrong_opens += 1;
        }
    }
    log.phase(&mut phases, "open_nodes", rec.finish());
    if wrong_opens > 0 {
        notes.push(format!(
            "open_nodes returned a wrong entity count in {wrong_opens} calls"
        ));
    }

    // 7. read_graph: timed round trips, the last one parsed for its counts
    let mut rec = Recorder::start();
    let mut read_graph_bytes = 0;
    let mut read_graph_counts = Counts::default();
    for i in 0..w.read_graph {
        let call = server.call("read_graph", json!({}))?;
        rec.record(call.latency, call.bytes, 1);
        read_graph_bytes = call.bytes as u64;
        if i + 1 == w.read_graph {
            read_graph_counts = graph_counts(&call.result.payload());
        }
    }
    log.phase(&mut phases, "read_graph", rec.finish());
    let held = model.counts();
    if w.read_graph > 0 && read_graph_counts != held {
        notes.push(format!(
            "read_graph returned {read_graph_counts:?}, the graph holds {held:?}"
        ));
    }

    // victims avoid rare-word entities, so that the searches stay comparable between runs
    let pool: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| !rare_names.contains(n))
        .collect();
    let pool = if pool.is_empty() { names.clone() } else { pool };
    let victims: Vec<&str> = rng
        .sample(pool.len(), w.del_entities + w.del_obs)
        .into_iter()
        .map(|i| pool[i])
        .collect();
    let split = w.del_entities.min(victims.len());
    let (del_entities, rest) = victims.split_at(split);
    let del_obs_names = if rest.is_empty() { del_entities } else { rest };

    // 8. delete_observations: one original observation per call
    let deletions: Vec<(&str, String)> = if del_obs_names.is_empty() {
        Vec::new()
    } else {
        (0..w.del_obs)
            .filter_map(|i| {
                let name = del_obs_names[i % del_obs_names.len()];
                let first = model.entities.get(name)?.first()?.clone();
                Some((name, first))
            })
            .collect()
    };
    let mut rec = Recorder::start();
    for (name, text) in deletions {
        let args = json!({"deletions": [{"entityName": name, "observations": [text]}]});
        let call = server.call("delete_observations", args)?;
        rec.record(call.latency, call.bytes, 1);
        if let Some(obs) = model.entities.get_mut(name) {
            obs.retain(|o| *o != text);
        }
    }
    log.phase(&mut phases, "delete_observations", rec.finish());

    // 9. delete_relations: one per call, none touching the entities to delete
    let doomed: HashSet<&str> = del_entities.iter().copied().collect();
    let rel_pool: Vec<&Relation> = data
        .relations
        .iter()
        .filter(|r| !doomed.contains(r.from.as_str()) && !doomed.contains(r.to.as_str()))
        .collect();
    let mut rec = Recorder::start();
    for i in rng.sample(rel_pool.len(), w.del_relations) {
        let r = rel_pool[i];
        let call = server.call("delete_relations", json!({"relations": [r.to_json()]}))?;
        rec.record(call.latency, call.bytes, 1);
        model.relations.remove(&key(r));
    }
    log.phase(&mut phases, "delete_relations", rec.finish());

    // 10. delete_entities: one per call (their relations go with them)
    let mut rec = Recorder::start();
    for name in del_entities {
        let call = server.call("delete_entities", json!({"entityNames": [name]}))?;
        rec.record(call.latency, call.bytes, 1);
        model.entities.remove(*name);
    }
    model
        .relations
        .retain(|(from, to, _)| !doomed.contains(from.as_str()) && !doomed.contains(to.as_str()));
    log.phase(&mut phases, "delete_entities", rec.finish());

    let rss_end = server.rss();
    let traffic = server.traffic();
    let shutdown = server.shutdown()?;
    let disk_after_shutdown = procfs::dir_size(dir, STDERR_LOG);
    log.say(&format!(
        "peak RSS {} KiB; stopped by {} in {:.2}s ({}); disk {disk_after_shutdown} B",
        rss_end.hwm_kib, shutdown.how, shutdown.seconds, shutdown.status
    ));

    // restarts: cold start, memory with a full read_graph; the first one verifies
    let mut alive: Vec<&str> = model.entities.keys().map(String::as_str).collect();
    alive.sort_unstable();
    let probe: Vec<&str> = rng
        .sample(alive.len(), OPEN_NAMES)
        .into_iter()
        .map(|i| alive[i])
        .collect();
    let mut cold_starts = Vec::new();
    let mut verify = Verify::default();
    for r in 0..w.restarts {
        let mut server = Server::start(spec, dir, w.call_timeout)?;
        server.initialize()?;
        let mut retries = 0;
        loop {
            let call = server.call_raw("open_nodes", json!({ "names": probe }))?;
            if !call.result.is_error() {
                break;
            }
            if retries == 200 {
                bail!(
                    "open_nodes failed 200 times after a restart: {}",
                    call.result.text()
                );
            }
            retries += 1;
            thread::sleep(Duration::from_millis(50));
        }
        let spawn_to_first_open_ms = server.spawned.elapsed().as_secs_f64() * 1000.0;
        let call = server.call("read_graph", json!({}))?;
        let read_graph_ms = call.latency.as_secs_f64() * 1000.0;
        let read_graph = (r == 0).then(|| graph_counts(&call.result.payload()));
        let rss_after_read_graph = server.rss();
        if let Some(read_graph) = read_graph {
            verify = sweep(&mut server, &model, del_entities)?;
            verify.read_graph = read_graph;
            log.say(&format!(
                "verify: {} expected {:?} found {:?} (read_graph {:?})",
                if verify.ok() { "OK" } else { "MISMATCH" },
                verify.expected,
                verify.found,
                verify.read_graph
            ));
        }
        let shutdown = server.shutdown()?;
        log.say(&format!(
            "restart {}: spawn to first open_nodes {spawn_to_first_open_ms:.1} ms, read_graph \
             {read_graph_ms:.1} ms, peak RSS {} KiB",
            r + 1,
            rss_after_read_graph.hwm_kib
        ));
        cold_starts.push(ColdStart {
            spawn_to_first_open_ms,
            retries,
            read_graph_ms,
            rss_after_read_graph,
            shutdown,
        });
    }

    Ok(Run {
        label: spec.label.clone(),
        command: spec.command.clone(),
        transport: if spec.tcp { "tcp" } else { "stdio" },
        server_info,
        first_start_ms,
        phases,
        rss_after_load,
        rss_end,
        disk_after_load,
        disk_after_shutdown,
        read_graph_bytes,
        read_graph_counts,
        broad_hits_median,
        rare_mismatches,
        shutdown,
        cold_starts,
        verify,
        traffic,
        notes,
    })
}

/// Entities, relations and observations in a read_graph answer.
fn graph_counts(payload: &Value) -> Counts {
    let ents = entities(payload);
    Counts {
        entities: ents.map_or(0, Vec::len),
        relations: relations(payload).map_or(0, Vec::len),
        observations: ents.into_iter().flatten().map(observation_count).sum(),
    }
}

fn observation_count(entity: &Value) -> usize {
    entity
        .get("observations")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// open_nodes over every expected name, 500 at a time, compared with the model; then the
/// deleted entities, which must be gone.
fn sweep(server: &mut Server, model: &Model, deleted: &[&str]) -> Result<Verify> {
    let mut names: Vec<&str> = model.entities.keys().map(String::as_str).collect();
    names.sort_unstable();
    let mut found: HashMap<String, Vec<String>> = HashMap::new();
    let mut seen: HashSet<(String, String, String)> = HashSet::new();
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    for chunk in names.chunks(VERIFY_CHUNK) {
        let call = server.call("open_nodes", json!({ "names": chunk }))?;
        let payload = call.result.payload();
        for e in entities(&payload).into_iter().flatten() {
            let obs = e.get("observations").and_then(Value::as_array);
            let obs = obs.into_iter().flatten().filter_map(Value::as_str);
            found.insert(text(e, "name"), obs.map(String::from).collect());
        }
        for r in relations(&payload).into_iter().flatten() {
            seen.insert((text(r, "from"), text(r, "to"), text(r, "relationType")));
        }
    }
    let mut deleted_present = 0;
    if let Some(first) = deleted.chunks(VERIFY_CHUNK).next() {
        let call = server.call("open_nodes", json!({ "names": first }))?;
        deleted_present = entities(&call.result.payload()).map_or(0, Vec::len);
    }
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    Ok(Verify {
        expected: model.counts(),
        found: Counts {
            entities: found.len(),
            relations: seen.len(),
            observations: found.values().map(Vec::len).sum(),
        },
        read_graph: Counts::default(),
        entities_missing: names.iter().filter(|n| !found.contains_key(**n)).count(),
        observation_mismatches: found
            .iter()
            .filter(|(n, obs)| {
                model
                    .entities
                    .get(*n)
                    .is_none_or(|want| sorted(want) != sorted(obs))
            })
            .count(),
        relations_missing: model.relations.difference(&seen).count(),
        relations_extra: seen.difference(&model.relations).count(),
        deleted_present,
    })
}
