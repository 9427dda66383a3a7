//! mcpload: an end-to-end load client for MCP knowledge-graph memory servers.
//!
//! Runs mcpbench's workload (tests/bench/mcpbench.py) against one server after another in a
//! single invocation, timing every call with a monotonic clock around its write and its
//! reply's read, and prints p50/p95/p99 per operation side by side. See tests/bench/README.md.
//!
//! Exit codes: 0 ok; 1 fatal (isError, JSON-RPC error, crash, timeout, missing tool);
//! 2 a server failed the verification after its restart (the report is printed first).

mod client;
mod dataset;
mod procfs;
mod report;
mod server;
mod stats;
mod workload;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use clap::Parser;
use serde_json::json;

use crate::dataset::Dataset;
use crate::server::{STDERR_LOG, ServerSpec};
use crate::workload::{Run, Workload};

/// Load client for MCP memory servers: mcpbench's workload with per-call latency
/// percentiles, several servers side by side.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// A server to run, as LABEL=COMMAND (repeatable; run in order). In COMMAND, `{file}` is
    /// the memory file in a fresh directory and `{dir}` that directory (the server's cwd).
    #[arg(long = "server", value_name = "LABEL=COMMAND", required = true)]
    servers: Vec<String>,
    /// The memory file's name for a server, as LABEL=NAME (default memory.jsonl).
    #[arg(long = "file-name", value_name = "LABEL=NAME")]
    file_names: Vec<String>,
    /// Serve this server over TCP: its command gets `--transport tcp --bind 127.0.0.1:0`
    /// and the client connects to the address it prints on stderr.
    #[arg(long = "tcp", value_name = "LABEL")]
    tcp: Vec<String>,
    /// Entities to create.
    #[arg(long, default_value_t = 10_000)]
    entities: usize,
    /// Relations to create [default: 3 × entities].
    #[arg(long)]
    relations: Option<usize>,
    /// Observations per entity.
    #[arg(long, default_value_t = 3)]
    obs: usize,
    /// Entities (relations) per create_entities (create_relations) call.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u32).range(1..))]
    batch: u32,
    /// Seed of the dataset and of the operations.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// add_observations calls.
    #[arg(long, default_value_t = 1000)]
    n_add_obs: usize,
    /// search_nodes calls for rare words.
    #[arg(long, default_value_t = 1000)]
    n_search_rare: usize,
    /// search_nodes calls for common words.
    #[arg(long, default_value_t = 100)]
    n_search_broad: usize,
    /// open_nodes calls (5 names each).
    #[arg(long, default_value_t = 1000)]
    n_open: usize,
    /// read_graph calls.
    #[arg(long, default_value_t = 5)]
    n_read_graph: usize,
    /// delete_observations calls.
    #[arg(long, default_value_t = 500)]
    n_del_obs: usize,
    /// delete_relations calls.
    #[arg(long, default_value_t = 500)]
    n_del_relations: usize,
    /// delete_entities calls.
    #[arg(long, default_value_t = 500)]
    n_del_entities: usize,
    /// Restarts on the same file (cold start; the first one verifies the contents).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    n_restarts: u32,
    /// Seconds to wait for one reply before killing the server.
    #[arg(long, default_value_t = 600.0)]
    call_timeout: f64,
    /// Write every number as JSON to this file.
    #[arg(long, value_name = "PATH")]
    json_out: Option<PathBuf>,
    /// Keep each server's directory (memory file, stderr.log) instead of removing it.
    #[arg(long)]
    keep_workdir: bool,
}

/// Splits `LABEL=VALUE`.
fn labelled(arg: &str, what: &str) -> Result<(String, String)> {
    match arg.split_once('=') {
        Some((label, value)) if !label.trim().is_empty() && !value.trim().is_empty() => {
            Ok((label.trim().to_owned(), value.to_owned()))
        }
        _ => bail!("{what} expects LABEL=VALUE, got {arg:?}"),
    }
}

/// The servers to run, from the repeated options.
fn specs(cli: &Cli) -> Result<Vec<ServerSpec>> {
    let mut specs: Vec<ServerSpec> = Vec::new();
    for arg in &cli.servers {
        let (label, command) = labelled(arg, "--server")?;
        if specs.iter().any(|s| s.label == label) {
            bail!("two servers are labelled {label:?}");
        }
        server::split_command(&command)?;
        specs.push(ServerSpec {
            label,
            command,
            file_name: "memory.jsonl".into(),
            tcp: false,
        });
    }
    for arg in &cli.file_names {
        let (label, name) = labelled(arg, "--file-name")?;
        let spec = specs.iter_mut().find(|s| s.label == label);
        let spec = spec.with_context(|| format!("--file-name: no server labelled {label:?}"))?;
        spec.file_name = name;
    }
    for label in &cli.tcp {
        let spec = specs.iter_mut().find(|s| &s.label == label);
        let spec = spec.with_context(|| format!("--tcp: no server labelled {label:?}"))?;
        spec.tcp = true;
    }
    Ok(specs)
}

/// A fresh directory for one server under the system's temp dir.
fn workdir(label: &str) -> Result<PathBuf> {
    let safe: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir =
        std::env::temp_dir().join(format!("mcpload-{safe}-{}-{nanos:09}", std::process::id()));
    fs::create_dir(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(dir)
}

fn fail(label: &str, dir: &Path, error: &anyhow::Error) -> ExitCode {
    eprintln!("mcpload: server {label}: {error:#}");
    let tail = procfs::tail(&dir.join(STDERR_LOG), 20);
    if !tail.is_empty() {
        eprintln!("--- last lines of {label}'s stderr ---\n{tail}\n---");
    }
    eprintln!("mcpload: {label}'s directory is kept: {}", dir.display());
    ExitCode::from(1)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let specs = match specs(&cli) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mcpload: {e:#}");
            return ExitCode::from(1);
        }
    };
    let call_timeout = match Duration::try_from_secs_f64(cli.call_timeout) {
        Ok(d) if !d.is_zero() => d,
        _ => {
            eprintln!("mcpload: --call-timeout must be a positive number of seconds");
            return ExitCode::from(1);
        }
    };
    let n = cli.entities;
    let m = cli.relations.unwrap_or(3 * n);
    let started = Instant::now();
    let data = Dataset::generate(n, m, cli.obs, cli.seed);
    eprintln!(
        "mcpload: dataset {} entities, {} relations, {} rare words in {:.2}s",
        data.entities.len(),
        data.relations.len(),
        data.rare.len(),
        started.elapsed().as_secs_f64()
    );
    let w = Workload {
        batch: cli.batch as usize,
        seed: cli.seed,
        add_obs: cli.n_add_obs,
        search_rare: cli.n_search_rare,
        search_broad: cli.n_search_broad,
        open: cli.n_open,
        read_graph: cli.n_read_graph,
        del_obs: cli.n_del_obs,
        del_relations: cli.n_del_relations,
        del_entities: cli.n_del_entities,
        restarts: cli.n_restarts as usize,
        call_timeout,
    };

    let mut runs: Vec<Run> = Vec::new();
    for spec in &specs {
        let dir = match workdir(&spec.label) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("mcpload: {e:#}");
                return ExitCode::from(1);
            }
        };
        eprintln!(
            "mcpload: [{}] {} in {}",
            spec.label,
            spec.command,
            dir.display()
        );
        match workload::run(spec, &dir, &data, &w) {
            Ok(run) => runs.push(run),
            Err(e) => return fail(&spec.label, &dir, &e),
        }
        if cli.keep_workdir {
            eprintln!("mcpload: [{}] kept {}", spec.label, dir.display());
        } else if let Err(e) = fs::remove_dir_all(&dir) {
            eprintln!("mcpload: cannot remove {}: {e}", dir.display());
        }
    }

    let servers: Vec<String> = runs
        .iter()
        .map(|r| {
            let info = &r.server_info;
            let name = info.get("name").and_then(|v| v.as_str()).unwrap_or("?");
            let version = info.get("version").and_then(|v| v.as_str()).unwrap_or("?");
            format!("{} = {name} {version} ({})", r.label, r.transport)
        })
        .collect();
    println!(
        "mcpload: N={} M={} K={} batch={} seed={}; {}\n",
        data.entities.len(),
        data.relations.len(),
        cli.obs,
        cli.batch,
        cli.seed,
        servers.join(", ")
    );
    print!("{}", report::markdown(&runs));
    for r in &runs {
        for note in &r.notes {
            println!("note [{}]: {note}", r.label);
        }
        let v = &r.verify;
        if !v.ok() {
            println!(
                "verify [{}]: MISMATCH expected {:?} found {:?}; entities missing {}, \
                 observation mismatches {}, relations missing {} extra {}, deleted present {}",
                r.label,
                v.expected,
                v.found,
                v.entities_missing,
                v.observation_mismatches,
                v.relations_missing,
                v.relations_extra,
                v.deleted_present
            );
        }
    }

    if let Some(path) = &cli.json_out {
        let doc = json!({
            "params": {
                "entities": data.entities.len(),
                "relations": data.relations.len(),
                "obs_per_entity": cli.obs,
                "batch": cli.batch,
                "seed": cli.seed,
                "rare_words": data.rare.len(),
                "call_timeout_s": cli.call_timeout,
                "n_add_obs": cli.n_add_obs,
                "n_search_rare": cli.n_search_rare,
                "n_search_broad": cli.n_search_broad,
                "n_open": cli.n_open,
                "n_read_graph": cli.n_read_graph,
                "n_del_obs": cli.n_del_obs,
                "n_del_relations": cli.n_del_relations,
                "n_del_entities": cli.n_del_entities,
                "n_restarts": cli.n_restarts,
            },
            "servers": runs.iter().map(report::run_json).collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        if let Err(e) = fs::write(path, text + "\n") {
            eprintln!("mcpload: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
        eprintln!("mcpload: JSON report in {}", path.display());
    }
    if runs.iter().all(|r| r.verify.ok()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}
