//! `mcp-memory`: persistent knowledge-graph memory for LLM agents, served over MCP.
//!
//! A thin host: the graph engine is the `mcp-memory-core` component, run in wasmtime; this
//! binary owns the memory file, the transport and the command line.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

use mcp_memory::disk::{Durability, open_log};
use mcp_memory::engine::Server;
use mcp_memory::{config, stdio};
use mcp_memory_core::frame;

/// Persistent knowledge-graph memory for LLM agents (MCP server).
#[derive(Parser)]
#[command(name = "mcp-memory", version, about, long_about = None)]
struct Cli {
    /// The memory file [default: $MEMORY_FILE_PATH, else <data dir>/mcp-memory/memory.mcpmem].
    /// A reference server's memory.jsonl is converted in place; the original is kept as .bak.
    #[arg(short = 'f', long = "memory-file", value_name = "PATH", global = true)]
    memory_file: Option<PathBuf>,

    /// When changes reach the disk: `sync` fsyncs before every reply; `background` fsyncs at
    /// most one second later.
    #[arg(long, value_enum, default_value_t = Durability::Background, global = true)]
    durability: Durability,

    /// How MCP clients connect.
    #[arg(long, value_enum, default_value_t = Transport::Stdio)]
    transport: Transport,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Copy, Clone, ValueEnum)]
enum Transport {
    /// Newline-delimited JSON-RPC on stdin/stdout.
    Stdio,
}

#[derive(Copy, Clone, ValueEnum)]
enum Format {
    /// The reference server's memory.jsonl format.
    Jsonl,
    /// This package's log format, compacted (the graph as it stands, not its history).
    Log,
}

#[derive(Subcommand)]
enum Command {
    /// Serve MCP (the default).
    Serve,
    /// Write the memory in another format (to stdout, or to --output).
    Export {
        /// The format to write.
        #[arg(long, value_enum, default_value_t = Format::Jsonl)]
        format: Format,
        /// Write here instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Merge a memory file (a reference memory.jsonl or an mcp-memory log) into the memory.
    Import {
        /// The file to read.
        file: PathBuf,
    },
}

fn open(path: &Path, durability: Durability) -> Result<Server> {
    let (server, warnings) = Server::open(open_log(path, durability)?)?;
    for w in warnings {
        eprintln!("mcp-memory: warning: {w}");
    }
    Ok(server)
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let path = config::memory_path(
        cli.memory_file.as_deref(),
        std::env::var_os(config::ENV_VAR),
    )?;
    let durability = cli.durability;
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let server = open(&path, durability)?;
            let Transport::Stdio = cli.transport;
            eprintln!(
                "mcp-memory {}: serving {} on stdio",
                env!("CARGO_PKG_VERSION"),
                path.display()
            );
            stdio::serve(server, || open(&path, durability))
        }
        Command::Export { format, output } => {
            let bytes = match (format, path.exists()) {
                (Format::Jsonl, true) => open(&path, durability)?.export_jsonl()?,
                (Format::Log, true) => open(&path, durability)?.export_log()?,
                (Format::Jsonl, false) => Vec::new(),
                (Format::Log, false) => frame::encode_log(std::iter::empty()),
            };
            match output {
                Some(out) => std::fs::write(&out, bytes)
                    .with_context(|| format!("cannot write {}", out.display())),
                None => Ok(std::io::stdout().lock().write_all(&bytes)?),
            }
        }
        Command::Import { file } => {
            let data =
                std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let summary = open(&path, durability)?.import_file(&data)?;
            eprintln!("mcp-memory: {}: {summary}", path.display());
            Ok(())
        }
    }
}
