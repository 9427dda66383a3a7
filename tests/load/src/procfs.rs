//! What the system knows of a server: its memory (from /proc) and its files' size.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use serde_json::{Value, json};

/// Memory of a process and its descendants, summed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rss {
    /// Resident set now (VmRSS), KiB.
    pub rss_kib: u64,
    /// Peak resident set (VmHWM), KiB.
    pub hwm_kib: u64,
    /// Processes counted.
    pub processes: usize,
}

impl Rss {
    /// Peak resident set in MiB.
    pub fn hwm_mib(self) -> f64 {
        self.hwm_kib as f64 / 1024.0
    }

    /// All numbers, for the JSON report.
    pub fn to_json(self) -> Value {
        json!({"vm_rss_kib": self.rss_kib, "vm_hwm_kib": self.hwm_kib, "processes": self.processes})
    }
}

/// VmRSS and VmHWM of `pid` and of every process descending from it.
pub fn rss_tree(pid: u32) -> Rss {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    if let Ok(dir) = fs::read_dir("/proc") {
        for entry in dir.flatten() {
            let Some(p) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some(ppid) = fs::read_to_string(format!("/proc/{p}/stat"))
                .ok()
                .as_deref()
                .and_then(parent_pid)
            {
                children.entry(ppid).or_default().push(p);
            }
        }
    }
    let mut total = Rss::default();
    let mut stack = vec![pid];
    while let Some(p) = stack.pop() {
        if let Ok(status) = fs::read_to_string(format!("/proc/{p}/status")) {
            total.processes += 1;
            total.rss_kib += status_kib(&status, "VmRSS:");
            total.hwm_kib += status_kib(&status, "VmHWM:");
        }
        stack.extend(children.get(&p).into_iter().flatten());
    }
    total
}

/// The parent pid in a /proc/<pid>/stat line (the field after the state, after the
/// command name's closing parenthesis).
fn parent_pid(stat: &str) -> Option<u32> {
    stat.get(stat.rfind(')')? + 1..)?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The KiB value of one /proc/<pid>/status field (0 if absent).
fn status_kib(status: &str, key: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Total size in bytes of the files under `dir`, except the file named `skip` at its top.
pub fn dir_size(dir: &Path, skip: &str) -> u64 {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| e.file_name() != skip)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_size(&e.path(), ""),
            Ok(t) if t.is_file() => e.metadata().map(|m| m.len()).unwrap_or(0),
            _ => 0,
        })
        .sum()
}

/// The last `n` lines of a text file (empty if it cannot be read).
pub fn tail(path: &Path, n: usize) -> String {
    let bytes = fs::read(path).unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_fields() {
        assert_eq!(parent_pid("123 (my (odd) name) S 45 123 123 0"), Some(45));
        let status = "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n";
        assert_eq!(status_kib(status, "VmHWM:"), 2048);
        assert_eq!(status_kib(status, "VmRSS:"), 1024);
        assert_eq!(status_kib(status, "VmSwap:"), 0);
        let me = rss_tree(std::process::id());
        assert!(me.processes >= 1 && me.hwm_kib >= me.rss_kib.min(me.hwm_kib) && me.hwm_kib > 0);
    }
}
