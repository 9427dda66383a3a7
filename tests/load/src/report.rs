//! The report: a markdown table with one column group per server (and the first/second
//! ratio), and every number as JSON.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::stats::{Summary, sig3};
use crate::workload::Run;

/// The latency phases, in table order.
const PHASES: [(&str, &str); 10] = [
    ("create_entities", "create_entities (per batch)"),
    ("create_relations", "create_relations (per batch)"),
    ("add_observations", "add_observations (1 obs)"),
    ("search_nodes_rare", "search_nodes rare word"),
    ("search_nodes_broad", "search_nodes broad word"),
    ("open_nodes", "open_nodes (5 names)"),
    ("read_graph", "read_graph"),
    ("delete_observations", "delete_observations (1 obs)"),
    ("delete_relations", "delete_relations (1 rel)"),
    ("delete_entities", "delete_entities (1 entity)"),
];

const MIB: f64 = 1024.0 * 1024.0;

/// Median of the values (mean of the middle two for an even count).
fn median_f64(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// Median spawn→first open_nodes over the restarts, ms.
fn cold_median(run: &Run) -> Option<f64> {
    let v: Vec<f64> = run
        .cold_starts
        .iter()
        .map(|c| c.spawn_to_first_open_ms)
        .collect();
    median_f64(&v)
}

/// Fastest spawn→first open_nodes over the restarts, ms.
fn cold_min(run: &Run) -> Option<f64> {
    run.cold_starts
        .iter()
        .map(|c| c.spawn_to_first_open_ms)
        .min_by(f64::total_cmp)
}

/// Highest peak RSS over the restarts (each after a full read_graph), MiB.
fn restart_peak_mib(run: &Run) -> Option<f64> {
    run.cold_starts
        .iter()
        .map(|c| c.rss_after_read_graph.hwm_mib())
        .max_by(f64::total_cmp)
}

/// One table row: three cells per server and the value the ratio compares.
struct Row {
    name: String,
    cells: Vec<[String; 3]>,
    values: Vec<Option<f64>>,
}

fn cell(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), sig3)
}

fn latency_row(runs: &[Run], phase: &str, name: &str) -> Row {
    let sums: Vec<Option<&Summary>> = runs.iter().map(|r| r.phase(phase)).collect();
    Row {
        name: format!("{name} ms"),
        cells: sums
            .iter()
            .map(|s| {
                let s = s.filter(|s| s.count > 0);
                [
                    cell(s.and_then(|s| s.p50_ms)),
                    cell(s.and_then(|s| s.p95_ms)),
                    cell(s.and_then(|s| s.p99_ms)),
                ]
            })
            .collect(),
        values: sums.iter().map(|s| s.and_then(|s| s.p50_ms)).collect(),
    }
}

fn value_row(runs: &[Run], name: &str, f: impl Fn(&Run) -> Option<f64>) -> Row {
    let values: Vec<Option<f64>> = runs.iter().map(f).collect();
    Row {
        name: name.into(),
        cells: values
            .iter()
            .map(|v| [cell(*v), String::new(), String::new()])
            .collect(),
        values,
    }
}

fn text_row(runs: &[Run], name: &str, f: impl Fn(&Run) -> (String, Option<f64>)) -> Row {
    let pairs: Vec<(String, Option<f64>)> = runs.iter().map(f).collect();
    Row {
        name: name.into(),
        cells: pairs
            .iter()
            .map(|(t, _)| [t.clone(), String::new(), String::new()])
            .collect(),
        values: pairs.into_iter().map(|(_, v)| v).collect(),
    }
}

fn rows(runs: &[Run]) -> Vec<Row> {
    let mut rows: Vec<Row> = PHASES
        .iter()
        .map(|(phase, name)| latency_row(runs, phase, name))
        .collect();
    for phase in ["create_entities", "create_relations"] {
        rows.push(value_row(runs, &format!("{phase} items/s"), |r| {
            r.phase(phase).and_then(Summary::items_per_s)
        }));
    }
    let restarts = runs.first().map_or(0, |r| r.cold_starts.len());
    rows.extend([
        value_row(
            runs,
            &format!("cold start spawn→first open_nodes (median of {restarts}) ms"),
            cold_median,
        ),
        value_row(runs, "cold start spawn→first open_nodes (min) ms", cold_min),
        value_row(runs, "peak RSS after load MiB", |r| {
            Some(r.rss_after_load.hwm_mib())
        }),
        value_row(runs, "peak RSS end of workload MiB", |r| {
            Some(r.rss_end.hwm_mib())
        }),
        value_row(
            runs,
            "peak RSS with full read_graph MiB (restarted)",
            restart_peak_mib,
        ),
        value_row(runs, "disk size after load MiB", |r| {
            Some(r.disk_after_load as f64 / MIB)
        }),
        text_row(runs, "read_graph reply MB / entities", |r| {
            let mb = r.read_graph_bytes as f64 / 1e6;
            (
                format!("{} / {}", sig3(mb), r.read_graph_counts.entities),
                Some(mb),
            )
        }),
        text_row(runs, "search_nodes broad: median hits / reply KB", |r| {
            let kb = r
                .phase("search_nodes_broad")
                .map(|s| s.reply_bytes_median as f64 / 1e3);
            (format!("{} / {}", r.broad_hits_median, cell(kb)), kb)
        }),
        text_row(runs, "search_nodes rare: result mismatches", |r| {
            (r.rare_mismatches.to_string(), None)
        }),
        text_row(runs, "verify after restart", |r| {
            let v = if r.verify.ok() { "ok" } else { "MISMATCH" };
            (v.into(), None)
        }),
    ]);
    rows
}

/// The markdown table.
pub fn markdown(runs: &[Run]) -> String {
    let ratio = runs.len() >= 2;
    let mut out = String::new();
    let mut header = vec!["measure".to_owned()];
    for r in runs {
        header.extend(["p50", "p95", "p99"].map(|p| format!("{} {p}", r.label)));
    }
    if ratio {
        header.push(format!("{}/{} p50 ratio", runs[0].label, runs[1].label));
    }
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let align: Vec<&str> = header
        .iter()
        .enumerate()
        .map(|(i, _)| if i == 0 { "---" } else { "---:" })
        .collect();
    let _ = writeln!(out, "|{}|", align.join("|"));
    for row in rows(runs) {
        let mut cells = vec![row.name];
        for c in row.cells {
            cells.extend(c);
        }
        if ratio {
            cells.push(match (row.values[0], row.values[1]) {
                (Some(a), Some(b)) if b > 0.0 => format!("{:.2}x", a / b),
                _ => String::new(),
            });
        }
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out
}

/// Everything one server measured, as JSON.
pub fn run_json(run: &Run) -> Value {
    let phases: serde_json::Map<String, Value> = run
        .phases
        .iter()
        .map(|(name, s)| ((*name).to_owned(), s.to_json()))
        .collect();
    let cold: Vec<Value> = run
        .cold_starts
        .iter()
        .map(|c| {
            json!({
                "spawn_to_first_open_nodes_ms": c.spawn_to_first_open_ms,
                "retries": c.retries,
                "read_graph_ms": c.read_graph_ms,
                "rss_after_read_graph": c.rss_after_read_graph.to_json(),
                "shutdown": c.shutdown.to_json(),
            })
        })
        .collect();
    json!({
        "label": run.label,
        "command": run.command,
        "transport": run.transport,
        "server_info": run.server_info,
        "first_start_spawn_to_tools_list_ms": run.first_start_ms,
        "phases": phases,
        "rss_after_load": run.rss_after_load.to_json(),
        "rss_end_of_workload": run.rss_end.to_json(),
        "disk_after_load_bytes": run.disk_after_load,
        "disk_after_shutdown_bytes": run.disk_after_shutdown,
        "read_graph_reply_bytes": run.read_graph_bytes,
        "read_graph_returned": {
            "entities": run.read_graph_counts.entities,
            "relations": run.read_graph_counts.relations,
            "observations": run.read_graph_counts.observations,
        },
        "search_broad_hits_median": run.broad_hits_median,
        "search_rare_mismatches": run.rare_mismatches,
        "shutdown": run.shutdown.to_json(),
        "cold_start": {
            "spawn_to_first_open_nodes_median_ms": cold_median(run),
            "spawn_to_first_open_nodes_min_ms": cold_min(run),
            "peak_rss_with_read_graph_mib": restart_peak_mib(run),
            "restarts": cold,
        },
        "verify": run.verify.to_json(),
        "notifications": run.traffic.0,
        "server_requests": run.traffic.1,
        "notes": run.notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_even_and_odd() {
        assert_eq!(median_f64(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median_f64(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median_f64(&[]), None);
    }
}
