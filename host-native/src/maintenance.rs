//! `mcp-memory verify` and `mcp-memory repair`: file I/O around
//! `mcp_memory_core::verify`, which does every check. Neither takes the memory file's lock:
//! `verify` only reads, and `repair` writes a new file and never touches its input.

use std::fs::{self, OpenOptions, Permissions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use mcp_memory_core::verify;

/// Exit code when `verify` cannot read its file (as for a usage error).
const CANNOT_CHECK: u8 = 2;

fn read(file: &Path) -> Result<Vec<u8>> {
    fs::read(file).with_context(|| format!("cannot read {}", file.display()))
}

/// Checks `file` and prints the report on stdout (`FILE: ` and the text, or JSON with
/// `json`); returns the exit code (the verdict's, or 2 if the file cannot be read).
pub fn verify(file: &Path, json: bool) -> u8 {
    let bytes = match read(file) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("Error: {e:?}");
            return CANNOT_CHECK;
        }
    };
    let (line, code) = if crate::seeddb::is_sqlite(&bytes) {
        database_report(file, bytes.len(), json)
    } else {
        let report = verify::verify(&bytes);
        let line = if json {
            report.to_json()
        } else {
            format!("{}: {report}", file.display())
        };
        (line, report.verdict().exit_code())
    };
    let mut out = std::io::stdout();
    match writeln!(out, "{line}").and_then(|()| out.flush()) {
        Ok(()) => code,
        Err(_) => CANNOT_CHECK,
    }
}

/// The report on a seed system's SQLite database of `bytes` bytes, checked as opening
/// converts it (the native host reads those): what it holds, or why it does not convert
/// (exit 1); with its exit code.
fn database_report(file: &Path, bytes: usize, json: bool) -> (String, u8) {
    let read = crate::seeddb::read(file);
    let (verdict, code, text) = match &read {
        Ok(read) => (
            "clean",
            0,
            format!("clean (opening converts it to a log)\n{}", read.summary),
        ),
        Err(e) => (
            "damaged",
            1,
            format!("damaged (opening refuses to convert it)\nfirst problem: {e:#}"),
        ),
    };
    let line = if json {
        serde_json::json!({
            "format": "sqlite",
            "bytes": bytes,
            "summary": read.as_ref().ok().map(|r| r.summary.clone()),
            "problem": read.as_ref().err().map(|e| serde_json::json!({"message": format!("{e:#}")})),
            "verdict": verdict,
            "exitCode": code,
        })
        .to_string()
    } else {
        format!(
            "{}: SQLite database of a seed memory server (not an mcp-memory log): {text}",
            file.display()
        )
    };
    (line, code)
}

/// Where `repair` writes by default: `FILE.repaired`.
fn default_output(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".repaired");
    PathBuf::from(name)
}

/// Writes the repaired copy of `file` (see `verify::repair`) to `output` (default
/// `FILE.repaired`) with `file`'s permissions, refusing an existing output unless `force`
/// and refusing the input itself always; prints what was kept and dropped on stdout.
pub fn repair(file: &Path, output: Option<PathBuf>, force: bool) -> Result<()> {
    let bytes = read(file)?;
    let meta = fs::metadata(file).with_context(|| format!("cannot read {}", file.display()))?;
    let out = output.unwrap_or_else(|| default_output(file));
    if let Ok(existing) = fs::metadata(&out)
        && (existing.dev(), existing.ino()) == (meta.dev(), meta.ino())
    {
        bail!(
            "{} is the file being repaired; repair never changes it, choose another output",
            out.display()
        );
    }
    let repaired = verify::repair(&bytes).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let mode = meta.permissions().mode() & 0o7777;
    let mut options = OpenOptions::new();
    options.write(true).mode(mode);
    if force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    let mut written = options.open(&out).map_err(|e| match e.kind() {
        ErrorKind::AlreadyExists => anyhow!(
            "{} already exists; pass --force to overwrite it",
            out.display()
        ),
        _ => anyhow!(e).context(format!("cannot write {}", out.display())),
    })?;
    // The umask may have narrowed the mode, and an overwritten file keeps its old one.
    written
        .set_permissions(Permissions::from_mode(mode))
        .and_then(|()| written.write_all(&repaired.bytes))
        .and_then(|()| written.sync_all())
        .with_context(|| format!("cannot write {}", out.display()))?;
    println!(
        "{}: wrote {} ({} is unchanged)\n{repaired}",
        file.display(),
        out.display(),
        file.display()
    );
    Ok(())
}
