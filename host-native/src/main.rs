//! `mcp-memory`: persistent knowledge-graph memory for LLM agents, served over MCP.
//!
//! A thin host: the graph engine is the `mcp-memory-core` component, run in wasmtime; this
//! binary owns the memory file, the transport and the command line.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use mcp_memory::auth::{TOKEN_ENV, Token};
use mcp_memory::disk::Durability;
use mcp_memory::engine::{CallError, DEFAULT_PROFILE, Options, Server};
use mcp_memory::listen::{self, Listen, NamedMemory, Network};
use mcp_memory::seeddb;
use mcp_memory::service::Service;
use mcp_memory::store::Location;
use mcp_memory::{config, stdio};
use mcp_memory_core::memory::DEFAULT_HISTORY_DAYS;
use mcp_memory_core::tools::profile::{PROFILES, Selection};
use mcp_memory_core::{Error, frame};

/// The exit status of an `import` whose file could not be read (sysexits' EX_DATAERR):
/// nothing was imported, and the memory is fine.
const IMPORT_REFUSED: i32 = 65;

/// Persistent knowledge-graph memory for LLM agents (MCP server).
#[derive(Parser)]
#[command(name = "mcp-memory", version, about, long_about = None)]
struct Cli {
    /// The memory file [default: $MEMORY_FILE_PATH, else <data dir>/mcp-memory/memory.mcpmem].
    /// A reference server's memory.jsonl is converted in place; the original is kept as .bak.
    #[arg(short = 'f', long = "memory-file", value_name = "PATH", global = true)]
    memory_file: Option<PathBuf>,

    /// Keep the memory in PostgreSQL: postgres://USER@HOST/DB?memory=NAME [env:
    /// MCP_MEMORY_STORE]
    ///
    /// A named memory in a PostgreSQL database (NAME defaults to `default`), shared by every
    /// server pointed at it, on any machine (docs/scaling.md); TLS as libpq's `sslmode`
    /// (disable, prefer: the default, require, verify-ca, verify-full) and `sslrootcert` ask. A value that is not a
    /// postgres:// address is a memory file's path. -f/--memory-file overrides
    /// $MCP_MEMORY_STORE.
    #[arg(
        long,
        value_name = "URL",
        global = true,
        conflicts_with = "memory_file"
    )]
    store: Option<String>,

    /// When changes reach the disk: `sync` fsyncs before every reply; `background` fsyncs at
    /// most one second later.
    #[arg(long, value_enum, default_value_t = Durability::Background, global = true)]
    durability: Durability,

    /// Who this server runs for: stamped on every change it makes, beside the client's name
    /// and session, in the memory file.
    #[arg(long, value_name = "NAME", env = "MCP_MEMORY_ACTOR", global = true)]
    actor: Option<String>,

    /// Days of history the memory file keeps (what the history tool lists, reads asOf and
    /// undo reach): compaction folds older changes into the state they left; 0 keeps none.
    #[arg(long, value_name = "DAYS", env = "MCP_MEMORY_HISTORY_DAYS", global = true,
          default_value_t = DEFAULT_HISTORY_DAYS)]
    history_days: u32,

    /// The tools listed and answered: reference (exactly the reference server's nine),
    /// default (the nine, ranked search, history, undo), rust (the Rust mcp-memory's 26),
    /// memory-mcp, mcp-memory-py (what this server has of those servers' tools), all.
    #[arg(long, value_name = "NAME", env = "MCP_MEMORY_PROFILE", global = true,
          default_value = DEFAULT_PROFILE, value_parser = profile_names())]
    profile: String,

    /// Adjusts the profile: comma-separated tool names, `+name` to add one, `-name` to leave
    /// one out (e.g. `--tools=+get_entity,-undo`).
    #[arg(
        long,
        value_name = "LIST",
        env = "MCP_MEMORY_TOOLS",
        global = true,
        allow_hyphen_values = true,
        default_value = ""
    )]
    tools: String,

    /// Which memory a client is served: global (one for every client) or roots (over stdio,
    /// the memory of the client's first workspace root)
    ///
    /// Under roots: <root>/.mcp-memory/memory.mcpmem if the root has that directory, else
    /// roots/<name>-<hash>.mcpmem beside the memory file (with --store, the memory
    /// NAME.<name>-<hash>); a client that lists no roots is served the global one.
    #[arg(long, value_enum, env = "MCP_MEMORY_SCOPE", global = true, default_value_t = Scope::Global)]
    scope: Scope,

    /// How MCP clients connect.
    #[arg(long, value_enum, default_value_t = Transport::Stdio)]
    transport: Transport,

    /// Where the tcp and http transports listen (port 0: any free port; the address is
    /// printed on stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8808")]
    bind: SocketAddr,

    /// The bearer token network clients must present (prefer --auth-token-file or the
    /// environment: a flag is visible to other users in the process list).
    #[arg(long, value_name = "TOKEN", conflicts_with = "auth_token_file")]
    auth_token: Option<String>,

    /// A file holding the bearer token (surrounding whitespace trimmed; an empty file is an
    /// error). Without a token flag, $MCP_MEMORY_AUTH_TOKEN is used.
    #[arg(long, value_name = "FILE")]
    auth_token_file: Option<PathBuf>,

    /// Serve on a non-loopback address without a token (anyone who can reach it can read
    /// and change the memory).
    #[arg(long)]
    allow_unauthenticated: bool,

    /// Serve named memories of the --store database too, at /mcp/NAME over http: FILE lists
    /// `NAME TOKEN` per line (each memory's bearer token).
    #[arg(long, value_name = "FILE")]
    memories: Option<PathBuf>,

    /// An Origin (`scheme://host[:port]`) whose web pages may call the http transport;
    /// repeatable. Requests with any other Origin get 403.
    #[arg(long, value_name = "ORIGIN")]
    allow_origin: Vec<String>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Copy, Clone, PartialEq, Eq, ValueEnum)]
enum Scope {
    /// One memory for every client.
    Global,
    /// A memory per workspace root (stdio).
    Roots,
}

#[derive(Copy, Clone, ValueEnum)]
enum Transport {
    /// Newline-delimited JSON-RPC on stdin/stdout.
    Stdio,
    /// Newline-delimited JSON-RPC over TCP on --bind, one session per connection.
    Tcp,
    /// MCP Streamable HTTP on --bind, endpoint /mcp.
    Http,
}

#[derive(Copy, Clone, ValueEnum)]
enum Format {
    /// The reference server's memory.jsonl format.
    Jsonl,
    /// This package's log format, compacted (the graph as it stands, not its history).
    Log,
    /// The TypeScript "Memory MCP" server's memory.jsonl (the reference's lines with its
    /// createdAt, lastModified, tags, importance and parentId).
    MemoryMcp,
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
    /// Forget entities for good: delete them and every trace of them (ended relations,
    /// reflections, parent links), then compact the file so their text leaves it; reports
    /// whether their names still occur in it.
    Forget {
        /// The names to forget.
        #[arg(required = true)]
        names: Vec<String>,
    },
    /// Merge a memory file (a reference or Memory MCP memory.jsonl, an mcp-memory log, a
    /// Rust mcp-memory 1.x/2.0 log or 3.x database, a Python MCP Memory v2 database) into
    /// the memory.
    Import {
        /// The file to read.
        file: PathBuf,
    },
    /// Rewrite the memory file keeping --history-days of history (older changes and deleted
    /// text leave the file); safe while servers run on it.
    Compact,
    /// Check a memory file (a log or a reference memory.jsonl) without changing it.
    ///
    /// Reads the header, every frame (length check, checksum) and record, replays them, and
    /// prints counts and the first problem. Exit code: 0 clean; 1 damaged (the file does not
    /// open); 3 only a torn tail (the file opens, and the tail is dropped); 2 the file cannot
    /// be read.
    Verify {
        /// The file to check.
        file: PathBuf,
        /// Print the report as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write the readable part of a damaged memory file to a new file (FILE is not changed).
    ///
    /// A log keeps every whole record before its first problem; a reference memory.jsonl
    /// keeps the lines its reader accepts. The new file has FILE's permissions.
    Repair {
        /// The file to repair.
        file: PathBuf,
        /// Where to write the repaired file [default: FILE.repaired].
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
        /// Overwrite OUT if it exists.
        #[arg(long)]
        force: bool,
    },
}

/// A conversion's `.converting` file older than this was left by a process that died.
const STALE_CONVERSION: std::time::Duration = std::time::Duration::from_secs(60);

/// Whether the file at `path` is a SQLite database.
fn is_database(path: &Path) -> bool {
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| seeddb::is_sqlite(&head))
}

/// Converts a seed system's SQLite memory at `path` in place: the database moves to
/// `<path>.bak` (with its `-wal` and `-shm` files), a memory log of its contents takes its
/// place. Anything else is left as it is. Processes starting together take turns through
/// `<path>.converting`, created exclusively: the others wait for it to go, then find a log.
fn convert_database(path: &Path) -> Result<()> {
    let with = |suffix: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        std::path::PathBuf::from(p)
    };
    let converting = with(".converting");
    let mut file = loop {
        // Another process converting: wait (its last step renames the log over the path).
        if let Ok(meta) = std::fs::metadata(&converting) {
            let age = meta.modified().ok().and_then(|t| t.elapsed().ok());
            if age.is_some_and(|a| a > STALE_CONVERSION) {
                let _ = std::fs::remove_file(&converting);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            continue;
        }
        if !is_database(path) {
            return Ok(());
        }
        match std::fs::File::create_new(&converting) {
            Ok(file) => break file,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(e).with_context(|| format!("cannot create {}", converting.display()));
            }
        }
    };
    if !is_database(path) {
        std::fs::remove_file(&converting)?;
        return Ok(());
    }
    let read = match seeddb::read(path) {
        Ok(read) => read,
        Err(e) => {
            let _ = std::fs::remove_file(&converting);
            return Err(e);
        }
    };
    if let Err(e) = std::io::Write::write_all(&mut file, &read.log).and_then(|()| file.sync_all()) {
        let _ = std::fs::remove_file(&converting);
        return Err(e).with_context(|| format!("cannot write {}", converting.display()));
    }
    for suffix in ["-wal", "-shm"] {
        if with(suffix).exists() {
            std::fs::rename(with(suffix), with(&format!(".bak{suffix}")))?;
        }
    }
    std::fs::rename(path, with(".bak"))?;
    std::fs::rename(&converting, path)?;
    eprintln!(
        "mcp-memory: warning: converted {} to the mcp-memory log format ({}); the database is kept as {}",
        path.display(),
        read.summary,
        with(".bak").display()
    );
    Ok(())
}

/// The `--profile` values: the core's profile names.
fn profile_names() -> clap::builder::PossibleValuesParser {
    PROFILES
        .iter()
        .map(|(name, _)| *name)
        .collect::<Vec<_>>()
        .into()
}

/// The memory at `location`, opened to be served (reopened from its log after a trap).
fn serve_memory(location: &Location, durability: Durability, options: &Options) -> Result<Service> {
    let server = open(location, durability, options)?;
    let (location, options) = (location.clone(), options.clone());
    Ok(Service::new(
        server,
        Box::new(move || {
            // A fresh instance would serve the memory the server started on, not the one
            // the client's workspace chose: the server stops (a client starts it again).
            if options.scope_roots {
                anyhow::bail!(
                    "with --scope roots the workspace's memory cannot be reopened for the session: stopping"
                );
            }
            open(&location, durability, &options)
        }),
    ))
}

/// The environment variable naming the store (as `--store`).
const STORE_VAR: &str = "MCP_MEMORY_STORE";

/// Where the memory is: `--store`, else `-f`, else `$MCP_MEMORY_STORE`, else the memory
/// file `$MEMORY_FILE_PATH` or the default names.
fn location(cli: &Cli) -> Result<Location> {
    let store = (cli.store.clone())
        .or_else(|| std::env::var(STORE_VAR).ok())
        .filter(|s| !s.is_empty() && cli.memory_file.is_none());
    match store {
        Some(store) => Location::parse(&store).map_err(|e| anyhow::anyhow!("--store: {e}")),
        None => Ok(Location::File(config::memory_path(
            cli.memory_file.as_deref(),
            std::env::var_os(config::ENV_VAR),
        )?)),
    }
}

fn open(location: &Location, durability: Durability, options: &Options) -> Result<Server> {
    if let Location::File(path) = location {
        convert_database(path)?;
    }
    let (server, warnings) = Server::open(location.open_log(durability)?, options)?;
    for w in warnings {
        eprintln!("mcp-memory: warning: {w}");
    }
    Ok(server)
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    if let Err(e) = Selection::new(&cli.profile, &cli.tools) {
        Cli::command().error(ErrorKind::InvalidValue, e).exit();
    }
    let location = location(&cli)?;
    let shown = location.shown();
    let durability = cli.durability;
    let options = Options {
        actor: cli.actor.clone(),
        history_days: cli.history_days,
        profile: cli.profile.clone(),
        tools: cli.tools.clone(),
        scope_roots: cli.scope == Scope::Roots,
    };
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            if options.scope_roots && !matches!(cli.transport, Transport::Stdio) {
                anyhow::bail!(
                    "--scope roots serves one client per process (stdio); a network server serves named memories at /mcp/NAME (--memories)"
                );
            }
            let service = serve_memory(&location, durability, &options)?;
            let network = match cli.transport {
                Transport::Stdio => {
                    eprintln!(
                        "mcp-memory {}: serving {shown} on stdio",
                        env!("CARGO_PKG_VERSION"),
                    );
                    return stdio::serve(service, &location);
                }
                Transport::Tcp => Network::Tcp,
                Transport::Http => Network::Http,
            };
            let mut named = Vec::new();
            for (name, token) in match &cli.memories {
                Some(file) => mcp_memory::auth::memory_tokens(file)?,
                None => Vec::new(),
            } {
                let location =
                    (location.named(&name)).map_err(|e| anyhow::anyhow!("--memories: {e}"))?;
                let service = serve_memory(&location, durability, &options)?;
                named.push(NamedMemory {
                    name,
                    location,
                    service,
                    token,
                });
            }
            let listen = Listen {
                named,
                addr: cli.bind,
                token: Token::resolve(
                    cli.auth_token.as_deref(),
                    cli.auth_token_file.as_deref(),
                    std::env::var(TOKEN_ENV).ok(),
                )?,
                allow_unauthenticated: cli.allow_unauthenticated,
                allowed_origins: cli.allow_origin,
            };
            listen::serve(network, listen, service, &location)
        }
        Command::Compact => {
            let records = open(&location, durability, &options)?.compact()?;
            eprintln!("mcp-memory: {shown}: compacted to {records} records");
            Ok(())
        }
        Command::Export { format, output } => {
            // A memory file that does not exist is exported empty, not created.
            let exists = match &location {
                Location::File(path) => path.exists(),
                Location::Postgres(_) => true,
            };
            let bytes = match (format, exists) {
                (Format::Jsonl, true) => open(&location, durability, &options)?.export_jsonl()?,
                (Format::Log, true) => open(&location, durability, &options)?.export_log()?,
                (Format::MemoryMcp, true) => {
                    open(&location, durability, &options)?.export_memory_mcp()?
                }
                (Format::Jsonl | Format::MemoryMcp, false) => Vec::new(),
                (Format::Log, false) => frame::encode_log(std::iter::empty()),
            };
            match output {
                Some(out) => std::fs::write(&out, bytes)
                    .with_context(|| format!("cannot write {}", out.display())),
                None => Ok(std::io::stdout().lock().write_all(&bytes)?),
            }
        }
        Command::Forget { names } => {
            let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "forget", "arguments": {"entityNames": names}}});
            // The command calls the tool whatever profile serving would list.
            let every_tool = Options {
                profile: "all".to_string(),
                tools: String::new(),
                ..options
            };
            let mut server = open(&location, durability, &every_tool)?;
            let replies = server.handle_whole(0, &call.to_string())?;
            let reply: serde_json::Value = replies
                .last()
                .and_then(|r| serde_json::from_str(r).ok())
                .context("the memory gave no answer")?;
            let result = &reply["result"];
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            if result["isError"] == true {
                eprintln!("Error: {text}");
                std::process::exit(1);
            }
            println!("{text}");
            Ok(())
        }
        Command::Import { file } => {
            let mut data =
                std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
            if seeddb::is_sqlite(&data) {
                let read = seeddb::read(&file)?;
                eprintln!("mcp-memory: {}: {}", file.display(), read.summary);
                data = read.log;
            }
            match open(&location, durability, &options)?.import_file(&data) {
                Ok(summary) => {
                    eprintln!("mcp-memory: {shown}: {summary}");
                    Ok(())
                }
                Err(CallError::Memory(Error::ImportRefused(reason))) => {
                    eprintln!("Error: {} was not imported: {reason}", file.display());
                    std::process::exit(IMPORT_REFUSED)
                }
                Err(e) => Err(e.into()),
            }
        }
        Command::Verify { file, json } => {
            std::process::exit(mcp_memory::maintenance::verify(&file, json).into())
        }
        Command::Repair {
            file,
            output,
            force,
        } => mcp_memory::maintenance::repair(&file, output, force),
    }
}
