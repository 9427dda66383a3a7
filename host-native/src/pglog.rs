//! A memory's log in a PostgreSQL database: append-only rows, one memory per name.
//!
//! Each memory is a row of `mcp_memory` (its name and current generation) and the rows of
//! `mcp_memory_log` of that generation (sequence from 1, payload, whether it is a checkpoint,
//! time, writer). A writer's turn, from a refresh for writing until the host releases it, holds
//! the memory's advisory lock and an open transaction: `sync` commits (and notifies
//! listeners on channel [`CHANNEL`]), `replace` installs the next generation and drops the
//! last in one transaction. A server killed within its turn leaves nothing half done: its
//! transaction aborts and its lock goes with its connection.
//!
//! A server that listens (a network or stdio server: [`watch`]) reads without asking the
//! database while no other process announced a change since it last asked: reads stay in
//! memory, and see another server's change once its announcement arrives (milliseconds after
//! the commit). A write always reads what was committed, under the lock.
//!
//! The connection is remade when it breaks, no sooner than a backoff after a failed attempt
//! (a request in between gets the error at once). A turn whose uncommitted changes were lost
//! with a connection makes the next refresh hand the guest the whole log again
//! ([`Changes::Replaced`]), so its graph never holds a change the database does not.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use mcp_memory_core::record::is_checkpoint;
use mcp_memory_core::{Changes, Contents, Intent, Log, LogError, Page};
use postgres::fallible_iterator::FallibleIterator;
use rustls::ClientConfig;
use tokio_postgres::Config;

use crate::pgsession::{Failure, Session};
use crate::pgtls::{self, Tls};

/// The channel committed changes are announced on; the payload is `<memory>\t<writer>`.
pub const CHANNEL: &str = "mcp_memory";

/// The memory served when the address names none.
pub const DEFAULT_MEMORY: &str = "default";

/// Longest a name of a memory may be.
const MAX_NAME: usize = 64;

/// How long a refresh for writing waits for another server's turn to end (as long as a
/// request on a memory file waits for a live writer: `core::filelog::LOCK_WAIT_MS`).
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// First wait before reconnecting after a failed attempt; it doubles up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The tables, created when missing (under a transaction-scoped advisory lock: concurrent
/// `CREATE TABLE IF NOT EXISTS` can still collide).
const SCHEMA: &str = "
SELECT pg_advisory_xact_lock(7140523372839182081);
CREATE TABLE IF NOT EXISTS mcp_memory (
    name text PRIMARY KEY,
    generation bigint NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS mcp_memory_log (
    memory text NOT NULL REFERENCES mcp_memory (name) ON DELETE CASCADE,
    generation bigint NOT NULL,
    seq bigint NOT NULL,
    payload bytea NOT NULL,
    checkpoint boolean NOT NULL,
    written_at timestamptz NOT NULL DEFAULT now(),
    writer text NOT NULL,
    PRIMARY KEY (memory, generation, seq)
);";

/// A named memory in a database: what `--store postgres://…?memory=name` names.
#[derive(Clone, Debug)]
pub struct Target {
    /// The connection settings (the address without `memory`).
    pub config: Config,
    /// The memory's name.
    pub memory: String,
    /// The address as shown to users: no password.
    pub shown: String,
    /// TLS as the address's `sslmode` and `sslrootcert` ask ([`crate::pgtls`]).
    pub tls: Arc<ClientConfig>,
}

impl Target {
    /// Parses `postgres://…` (or `postgresql://…`); the query's `memory=name` picks the
    /// memory (default [`DEFAULT_MEMORY`]), `sslmode` and `sslrootcert` the TLS settings
    /// ([`crate::pgtls`]); the rest goes to the client library.
    pub fn parse(url: &str) -> Result<Target, String> {
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let (tls, pairs) = Tls::from_query(query.split('&').filter(|p| !p.is_empty()))?;
        let mut memory = None;
        let mut rest = Vec::new();
        for pair in pairs {
            match pair.strip_prefix("memory=") {
                Some(name) => memory = Some(name.to_string()),
                None => rest.push(pair),
            }
        }
        let memory = memory.unwrap_or_else(|| DEFAULT_MEMORY.to_string());
        check_name(&memory)?;
        let url = if rest.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", rest.join("&"))
        };
        let mut config =
            Config::from_str(&url).map_err(|e| format!("cannot read the store address: {e}"))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(5));
        }
        config
            .application_name("mcp-memory")
            .keepalives(true)
            .keepalives_idle(Duration::from_secs(10))
            .ssl_mode(tls.ssl_mode());
        Ok(Target {
            shown: shown(&config, &memory),
            config,
            memory,
            tls: tls.client_config()?,
        })
    }

    /// The same database, another memory in it.
    pub fn with_memory(&self, memory: &str) -> Result<Target, String> {
        check_name(memory)?;
        Ok(Target {
            config: self.config.clone(),
            memory: memory.to_string(),
            shown: shown(&self.config, memory),
            tls: Arc::clone(&self.tls),
        })
    }
}

/// Whether `name` may name a memory: 1 to 64 letters, digits, `_`, `-` or `.`.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "memory name {name:?}: use 1 to {MAX_NAME} letters, digits, '_', '-' or '.'"
        ))
    }
}

fn shown(config: &Config, memory: &str) -> String {
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".to_string(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config.get_dbname().unwrap_or("");
    format!("postgres://{host}:{port}/{db}?memory={memory}")
}

/// The advisory lock key of a memory (64-bit FNV-1a of its name: two names sharing a key
/// only take turns more than they must).
fn lock_key(memory: &str) -> i64 {
    let hash = memory.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    hash as i64
}

/// Opens a session: the tables if missing, and the settings every session runs with (a
/// bounded wait for the lock; the server drops a silent client's session, and its lock,
/// within about half a minute, as it does a transaction left idle). Every statement is
/// bounded ([`crate::pgsession`]).
fn connect(target: &Target) -> Result<Session, LogError> {
    let mut session = Session::connect(&target.config, pgtls::connector(&target.tls))
        .map_err(|e| unreachable(target, &e))?;
    let setup = format!(
        "SET lock_timeout = '{}ms';
         SET idle_in_transaction_session_timeout = '30s';
         SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 3;
         BEGIN; {SCHEMA} COMMIT;",
        LOCK_WAIT.as_millis()
    );
    session
        .batch_execute_waiting(&setup, LOCK_WAIT)
        .map_err(|e| LogError(format!("cannot prepare {}: {e}", target.shown)))?;
    Ok(session)
}

/// A session that only listens ([`watch`]): it waits for announcements as long as they
/// take, so nothing bounds it.
fn listener(target: &Target) -> Result<postgres::Client, LogError> {
    postgres::Config::from(target.config.clone())
        .connect(pgtls::connector(&target.tls))
        .map_err(|e| unreachable(target, &e))
}

/// A connection to `target` that could not be made, and why.
fn unreachable(target: &Target, e: &dyn std::error::Error) -> LogError {
    LogError(format!("cannot connect to {}: {}", target.shown, causes(e)))
}

/// An error and its causes, outermost first (the client library says "error performing TLS
/// handshake"; its cause says which certificate check failed).
fn causes(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(cause) = next {
        out.push_str(": ");
        out.push_str(&cause.to_string());
        next = cause.source();
    }
    out
}

/// Who this process writes as: host name, pid and start time (rows' `writer`, and the
/// second field of notifications, by which a process skips its own).
fn writer() -> &'static str {
    static WRITER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    WRITER.get_or_init(|| {
        let nonce = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
        format!("{}:{}:{nonce}", host.trim(), std::process::id())
    })
}

/// Calls `wake` whenever another process commits a change to `target`'s memory, and once
/// each time the listening session is (re)made (changes may have come meanwhile). Runs on
/// its own thread and session, for the life of the process, reconnecting with backoff.
pub fn watch(target: &Target, wake: Box<dyn Fn() + Send>) {
    let target = target.clone();
    let ours = format!("{}\t", target.memory);
    let heard = heard(&target);
    std::thread::spawn(move || {
        let mut backoff = MIN_BACKOFF;
        loop {
            let listened: Result<(), LogError> = listener(&target).and_then(|mut client| {
                let listen = format!("LISTEN {CHANNEL}");
                (client.batch_execute(&listen))
                    .map_err(|e| LogError(format!("cannot listen on {}: {e}", target.shown)))?;
                backoff = MIN_BACKOFF;
                // Changes made while no one listened: readers look once more.
                heard.announcements.fetch_add(1, Ordering::SeqCst);
                heard.listening.store(true, Ordering::SeqCst);
                wake();
                let mut notices = client.notifications();
                let mut notices = notices.blocking_iter();
                while let Ok(Some(notice)) = notices.next() {
                    let writer = notice.payload().strip_prefix(&ours);
                    if writer.is_some_and(|w| w != self::writer()) {
                        heard.announcements.fetch_add(1, Ordering::SeqCst);
                        wake();
                    }
                }
                heard.listening.store(false, Ordering::SeqCst);
                Err(LogError(format!(
                    "lost the listening session on {}",
                    target.shown
                )))
            });
            heard.listening.store(false, Ordering::SeqCst);
            if let Err(e) = listened {
                eprintln!(
                    "mcp-memory: warning: {}; listening again in {} ms",
                    e.0,
                    backoff.as_millis()
                );
            }
            std::thread::sleep(backoff);
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    });
}

/// What this process's listening session ([`watch`]) has heard of a memory: whether it
/// listens now, and how many times other processes announced changes (or it began
/// listening again, after which changes may have gone unheard).
#[derive(Default)]
struct Heard {
    listening: AtomicBool,
    announcements: AtomicU64,
}

/// The memory's [`Heard`], shared by its log and its listening session in this process.
fn heard(target: &Target) -> Arc<Heard> {
    static HEARD: OnceLock<Mutex<HashMap<String, Arc<Heard>>>> = OnceLock::new();
    let mut all = (HEARD.get_or_init(Default::default).lock()).unwrap_or_else(|e| e.into_inner());
    Arc::clone(all.entry(target.shown.clone()).or_default())
}

/// The log of one memory in a database.
pub struct PgLog {
    target: Target,
    /// The memory the server was started on: workspace roots' memories are named from it
    /// ([`Log::rescope`]).
    started_on: String,
    key: i64,
    /// Who writes: stamped on each row, and on notifications (a server skips its own).
    writer: String,
    client: Option<Session>,
    /// No connection is attempted before this (after a failed attempt).
    retry_at: Option<Instant>,
    backoff: Duration,
    /// The generation the guest has seen.
    generation: i64,
    /// The last sequence the guest has seen (appended or read).
    seen: i64,
    /// The last sequence known committed.
    committed: i64,
    /// Whether the uncommitted rows hold a change (not only checkpoints).
    pending_change: bool,
    /// Rows of the next generation written so far by a replacement under way.
    replacing: Option<i64>,
    /// The advisory lock and a transaction are held (the writer's turn).
    locked: bool,
    /// The guest may append: the turn is held and its last refresh was for writing.
    writing: bool,
    /// The guest's graph may hold changes the database lost: hand it the whole log.
    resync: bool,
    /// What the listening session heard, and how many announcements it had heard when the
    /// log was last read: while it listens and hears nothing new, a read need not ask.
    heard: Arc<Heard>,
    heard_at_read: u64,
    warnings: Vec<String>,
}

impl PgLog {
    /// The log of `target`'s memory. Nothing is read before [`Log::replay`].
    pub fn new(target: Target) -> PgLog {
        PgLog {
            key: lock_key(&target.memory),
            writer: writer().to_string(),
            heard: heard(&target),
            started_on: target.memory.clone(),
            target,
            client: None,
            retry_at: None,
            backoff: MIN_BACKOFF,
            generation: 0,
            seen: 0,
            committed: 0,
            pending_change: false,
            replacing: None,
            locked: false,
            writing: false,
            resync: false,
            heard_at_read: 0,
            warnings: Vec::new(),
        }
    }

    /// Who this log writes as (the writer column, and notifications' second field).
    pub fn writer(&self) -> &str {
        &self.writer
    }

    /// The memory's address, for messages.
    pub fn shown(&self) -> &str {
        &self.target.shown
    }

    /// Warnings collected since the last call (reconnections).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Whether this log holds the writer's turn.
    pub fn is_locked(&self) -> bool {
        self.locked
    }

    fn error(&self, what: &str, e: &Failure) -> LogError {
        LogError(format!("cannot {what} {}: {e}", self.target.shown))
    }

    /// The session, made if there is none (or it broke): at once, or an error if the last
    /// attempt failed less than a backoff ago.
    fn client(&mut self) -> Result<&mut Session, LogError> {
        if self.client.as_ref().is_some_and(Session::is_closed) {
            self.lost();
        }
        if self.client.is_none() {
            if let Some(at) = self.retry_at
                && Instant::now() < at
            {
                return Err(LogError(format!(
                    "the database at {} is unreachable; retrying in {} ms",
                    self.target.shown,
                    at.saturating_duration_since(Instant::now()).as_millis()
                )));
            }
            match connect(&self.target) {
                Ok(client) => {
                    if self.retry_at.take().is_some() {
                        self.warnings
                            .push(format!("reconnected to {}", self.target.shown));
                    }
                    self.backoff = MIN_BACKOFF;
                    self.client = Some(client);
                }
                Err(e) => {
                    self.retry_at = Some(Instant::now() + self.backoff);
                    self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
                    return Err(e);
                }
            }
        }
        Ok(self.client.as_mut().expect("connected above"))
    }

    /// The session broke: its lock and transaction are gone; uncommitted changes the guest
    /// applied are lost, so it must read the log again.
    fn lost(&mut self) {
        self.client = None;
        self.retry_at.get_or_insert_with(Instant::now);
        self.end_turn_uncommitted();
    }

    /// The turn ended without committing its rows.
    fn end_turn_uncommitted(&mut self) {
        if self.pending_change {
            self.resync = true;
        }
        self.pending_change = false;
        self.seen = self.committed;
        self.locked = false;
        self.writing = false;
    }

    /// Runs `op` on the session; a broken session is noted (see [`PgLog::lost`]).
    fn run<T>(
        &mut self,
        what: &str,
        op: impl FnOnce(&mut Session) -> Result<T, Failure>,
    ) -> Result<T, LogError> {
        let mut client = match self.client.take() {
            Some(c) if !c.is_closed() => c,
            broken => {
                if broken.is_some() {
                    self.lost();
                }
                self.client()?;
                self.client.take().expect("connected above")
            }
        };
        let result = op(&mut client);
        let closed = client.is_closed();
        self.client = Some(client);
        result.map_err(|e| {
            let error = self.error(what, &e);
            if closed {
                self.lost();
            }
            error
        })
    }

    /// Takes the writer's turn: the memory's advisory lock and a transaction.
    pub fn lock(&mut self) -> Result<(), LogError> {
        if self.locked {
            return Ok(());
        }
        let sql = format!("BEGIN; SELECT pg_advisory_lock({})", self.key);
        let taken = self.run("lock the memory in", |c| {
            c.batch_execute_waiting(&sql, LOCK_WAIT)
        });
        if let Err(e) = taken {
            if let Some(client) = self.client.as_mut() {
                let _ = client.batch_execute("ROLLBACK");
            }
            return Err(e);
        }
        self.locked = true;
        self.writing = true;
        Ok(())
    }

    /// Ends the writer's turn: commits what it appended since the last sync (checkpoints)
    /// and releases the lock.
    pub fn unlock(&mut self) {
        self.writing = false;
        if !std::mem::take(&mut self.locked) {
            return;
        }
        let sql = format!("COMMIT; SELECT pg_advisory_unlock({})", self.key);
        let ended = self.run("commit to", |c| c.batch_execute(&sql));
        match ended {
            Ok(()) => {
                self.committed = self.seen;
                self.pending_change = false;
            }
            Err(e) => {
                self.warnings.push(e.0);
                self.end_turn_uncommitted();
                // The session may hold the lock still: drop it, and the lock goes with it.
                self.client = None;
            }
        }
    }

    /// Rolls back the open transaction after a failed statement and opens another, keeping
    /// the turn; rows the guest applied are lost with it.
    fn roll_back(&mut self) {
        let pending = self.pending_change;
        let restarted = (self.client.as_mut()).map(|c| c.batch_execute("ROLLBACK; BEGIN"));
        self.pending_change = false;
        self.seen = self.committed;
        if pending {
            self.resync = true;
        }
        if !matches!(restarted, Some(Ok(()))) {
            self.lost();
        }
    }

    /// Refuses to write outside a turn taken for writing.
    fn check_writing(&self) -> Result<(), LogError> {
        if self.writing && self.locked {
            return Ok(());
        }
        Err(LogError(format!(
            "{}: a write outside this server's turn (after a refresh for reading, or a lost connection); nothing was written",
            self.target.shown
        )))
    }

    /// Every row of the current generation up to `upto`, oldest first.
    fn rows(&mut self, upto: i64) -> Result<Vec<Vec<u8>>, LogError> {
        let (memory, generation) = (self.target.memory.clone(), self.generation);
        self.run("read", |c| {
            let rows = c.query(
                "SELECT payload FROM mcp_memory_log WHERE memory = $1 AND generation = $2
                 AND seq <= $3 ORDER BY seq",
                &[&memory, &generation, &upto],
            )?;
            Ok(rows.into_iter().map(|r| r.get(0)).collect())
        })
    }

    /// The whole log as it stands, as a new generation or after lost changes.
    fn everything(&mut self) -> Result<Changes, LogError> {
        if self.locked {
            return self.read_everything();
        }
        // One snapshot for both reads: a replacement in between would leave no rows.
        self.run("read", |c| {
            c.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        })?;
        let read = self.read_everything();
        if let Some(client) = self.client.as_mut() {
            let _ = client.batch_execute("COMMIT");
        }
        read
    }

    fn read_everything(&mut self) -> Result<Changes, LogError> {
        let memory = self.target.memory.clone();
        let (generation, last, checkpoint) = self.read_extent(&memory)?;
        self.generation = generation;
        let (skipped_bytes, entries) = self.tail(last, checkpoint)?;
        (self.seen, self.committed, self.resync) = (last, last, false);
        Ok(Changes::Replaced {
            skipped_bytes,
            entries,
        })
    }

    /// The memory's generation, its last row, and its last checkpoint's row (0: none).
    fn read_extent(&mut self, memory: &str) -> Result<(i64, i64, i64), LogError> {
        self.run("read", |c| {
            let row = c.query_one(
                "SELECT m.generation, coalesce(max(l.seq), 0),
                        coalesce(max(l.seq) FILTER (WHERE l.checkpoint), 0)
                 FROM mcp_memory m
                 LEFT JOIN mcp_memory_log l ON l.memory = m.name AND l.generation = m.generation
                 WHERE m.name = $1 GROUP BY m.generation",
                &[&memory],
            )?;
            Ok((row.get(0), row.get(1), row.get(2)))
        })
    }

    /// The rows of the current generation up to `last` from the last checkpoint, at row
    /// `checkpoint`, on, and the payload bytes of those before it (all rows and 0 when the
    /// checkpoint is the first row or there is none).
    fn tail(&mut self, last: i64, checkpoint: i64) -> Result<(u64, Vec<Vec<u8>>), LogError> {
        if checkpoint <= 1 {
            return Ok((0, self.rows(last)?));
        }
        let (memory, generation) = (self.target.memory.clone(), self.generation);
        self.run("read", |c| {
            let skipped = c.query_one(
                "SELECT coalesce(sum(octet_length(payload)), 0)::bigint FROM mcp_memory_log
                 WHERE memory = $1 AND generation = $2 AND seq < $3",
                &[&memory, &generation, &checkpoint],
            )?;
            let rows = c.query(
                "SELECT payload FROM mcp_memory_log WHERE memory = $1 AND generation = $2
                 AND seq >= $3 AND seq <= $4 ORDER BY seq",
                &[&memory, &generation, &checkpoint, &last],
            )?;
            let entries = rows.into_iter().map(|r| r.get(0)).collect();
            Ok((skipped.get::<_, i64>(0) as u64, entries))
        })
    }

    /// Makes sure the memory's row exists (a new memory starts at generation 1).
    fn create_memory(&mut self) -> Result<(), LogError> {
        let memory = self.target.memory.clone();
        self.run("create the memory in", |c| {
            c.execute(
                "INSERT INTO mcp_memory (name) VALUES ($1) ON CONFLICT DO NOTHING",
                &[&memory],
            )
            .map(drop)
        })
    }

    /// Whether the row at `seq` of this generation was written by this log (the outcome of
    /// a commit whose answer was lost).
    fn landed(&mut self, seq: i64) -> Result<bool, LogError> {
        let (memory, generation, writer) = (
            self.target.memory.clone(),
            self.generation,
            self.writer.clone(),
        );
        self.run("read", |c| {
            let row = c.query_one(
                "SELECT EXISTS (SELECT 1 FROM mcp_memory_log WHERE memory = $1 AND generation = $2
                 AND seq = $3 AND writer = $4)",
                &[&memory, &generation, &seq, &writer],
            )?;
            Ok(row.get(0))
        })
    }

    /// Tells other servers the memory changed (delivered when the transaction commits).
    fn notify_sql(&self) -> String {
        format!(
            "SELECT pg_notify('{CHANNEL}', '{}\t{}')",
            self.target.memory,
            self.writer.replace('\'', "''")
        )
    }
}

impl Drop for PgLog {
    fn drop(&mut self) {
        self.unlock();
    }
}

/// The memory of workspace root `root` beside `started_on`: `<started_on>.<key>`
/// (`core::roots::key`), the first part cut so the name fits.
fn root_memory(started_on: &str, root: &str) -> Result<String, LogError> {
    let key = mcp_memory_core::roots::places(root).map_err(LogError)?.key;
    let room = MAX_NAME - key.len() - 1;
    let base: String = started_on.chars().take(room).collect();
    Ok(format!("{base}.{key}"))
}

impl Log for PgLog {
    fn rescope(&mut self, root: &str) -> Result<(), LogError> {
        let memory = root_memory(&self.started_on, root)?;
        let target = self.target.with_memory(&memory).map_err(LogError)?;
        self.unlock();
        let started_on = std::mem::take(&mut self.started_on);
        *self = PgLog::new(target);
        self.started_on = started_on;
        // The replay that follows reads under the writer's turn, as at opening.
        self.lock()
    }

    fn replay(&mut self) -> Result<Contents, LogError> {
        self.create_memory()?;
        let memory = self.target.memory.clone();
        let (generation, last, checkpoint) = self.read_extent(&memory)?;
        (self.generation, self.seen, self.committed) = (generation, last, last);
        let (skipped_bytes, entries) = self.tail(last, checkpoint)?;
        Ok(match checkpoint <= 1 {
            true => Contents::Records(entries),
            false => Contents::FromCheckpoint {
                skipped_bytes,
                entries,
            },
        })
    }

    fn refresh(&mut self, intent: Intent) -> Result<Changes, LogError> {
        // A read between announcements: nothing was committed since the log was last read
        // (the announcement of a commit comes within milliseconds; writes always ask).
        let announcements = self.heard.announcements.load(Ordering::SeqCst);
        if !self.locked
            && intent == Intent::Read
            && !self.resync
            && self.heard.listening.load(Ordering::SeqCst)
            && announcements == self.heard_at_read
        {
            return Ok(Changes::Appended(Vec::new()));
        }
        self.heard_at_read = announcements;
        if !self.locked && intent == Intent::Write {
            self.lock()?;
        }
        self.writing = self.locked && intent == Intent::Write;
        if self.resync {
            return self.everything();
        }
        let (memory, seen) = (self.target.memory.clone(), self.seen);
        let rows = self.run("read", |c| {
            c.query(
                "SELECT m.generation, l.payload FROM mcp_memory m
                 LEFT JOIN mcp_memory_log l
                   ON l.memory = m.name AND l.generation = m.generation AND l.seq > $2
                 WHERE m.name = $1 ORDER BY l.seq",
                &[&memory, &seen],
            )
        })?;
        let generation = rows.first().map_or(0, |r| r.get::<_, i64>(0));
        if generation != self.generation {
            // Replaced by another server (or the memory was dropped: then it starts anew).
            if generation == 0 {
                self.create_memory()?;
            }
            return self.everything();
        }
        let records: Vec<Vec<u8>> = (rows.into_iter())
            .filter_map(|r| r.get::<_, Option<Vec<u8>>>(1))
            .collect();
        self.seen += records.len() as i64;
        if !self.locked {
            self.committed = self.seen;
        }
        Ok(Changes::Appended(records))
    }

    fn append(&mut self, entry: &[u8]) -> Result<(), LogError> {
        self.check_writing()?;
        let seq = self.seen + 1;
        let (memory, generation, writer) = (
            self.target.memory.clone(),
            self.generation,
            self.writer.clone(),
        );
        let checkpoint = is_checkpoint(entry);
        let inserted = self.run("append to", |c| {
            c.execute(
                "INSERT INTO mcp_memory_log (memory, generation, seq, payload, checkpoint, writer)
                 VALUES ($1, $2, $3, $4, $5, $6)",
                &[&memory, &generation, &seq, &entry, &checkpoint, &writer],
            )
        });
        match inserted {
            Ok(_) => {
                self.seen = seq;
                self.pending_change |= !checkpoint;
                Ok(())
            }
            Err(e) => {
                self.roll_back();
                Err(e)
            }
        }
    }

    fn sync(&mut self) -> Result<(), LogError> {
        if self.seen == self.committed {
            return Ok(());
        }
        let sql = format!("{}; COMMIT; BEGIN", self.notify_sql());
        let committed = self.run("commit to", |c| c.batch_execute(&sql));
        let Err(e) = committed else {
            self.committed = self.seen;
            self.pending_change = false;
            return Ok(());
        };
        // The answer was lost, or the commit failed: find out which.
        let seq = self.seen;
        let had_change = self.pending_change;
        if self.client.is_some() {
            self.roll_back();
        }
        match self.landed(seq) {
            Ok(true) => {
                // It was committed: the guest's graph is right after all.
                (self.seen, self.committed, self.resync) = (seq, seq, false);
                Ok(())
            }
            Ok(false) => {
                self.resync |= had_change;
                Err(LogError(format!(
                    "{}; the database did not keep it, so this server reads the memory again",
                    e.0
                )))
            }
            Err(_) => {
                self.resync |= had_change;
                Err(LogError(format!(
                    "{}; whether the database kept it is unknown until it is reachable (this server then reads the memory again)",
                    e.0
                )))
            }
        }
    }

    /// A page is the rows after row `from` up to the last this server has seen, at most
    /// [`PAGE_ROWS`] and about `budget` bytes; checkpoints other than the first row are
    /// left out. Its `next` is its last row.
    fn entries(&mut self, from: u64, budget: u32) -> Result<Page, LogError> {
        let (memory, generation, upto) = (self.target.memory.clone(), self.generation, self.seen);
        let (from, budget) = (i64::try_from(from).unwrap_or(i64::MAX), i64::from(budget));
        let rows = self.run("read", |c| {
            c.query(
                "SELECT seq, payload FROM (
                   SELECT seq, payload,
                          sum(octet_length(payload)) OVER (ORDER BY seq) - octet_length(payload) AS before
                   FROM (SELECT seq, payload FROM mcp_memory_log
                         WHERE memory = $1 AND generation = $2 AND seq > $3 AND seq <= $4
                         AND (NOT checkpoint OR seq = 1) ORDER BY seq LIMIT $6) AS r
                 ) AS t WHERE before = 0 OR before < $5 ORDER BY seq",
                &[&memory, &generation, &from, &upto, &budget, &PAGE_ROWS],
            )
        })?;
        let last = rows.last().map(|r| r.get::<_, i64>(0));
        Ok(Page {
            entries: rows.into_iter().map(|r| r.get(1)).collect(),
            next: last.filter(|&seq| seq < upto).map(|seq| seq as u64),
        })
    }

    /// Writes the pieces as rows of the next generation in the writer's transaction; the
    /// last one makes it the memory's generation and deletes the old rows, then commits.
    fn replace_piece(
        &mut self,
        entries: &[Vec<u8>],
        first: bool,
        last: bool,
    ) -> Result<(), LogError> {
        self.check_writing()?;
        let written = match (first, self.replacing.take()) {
            (true, _) => 0,
            (false, Some(rows)) => rows,
            (false, None) => {
                return Err(LogError(format!(
                    "{}: a piece of a new log came with no first one; nothing was written",
                    self.target.shown
                )));
            }
        };
        let (memory, generation, writer) = (
            self.target.memory.clone(),
            self.generation + 1,
            self.writer.clone(),
        );
        let checkpoints: Vec<bool> = entries.iter().map(|e| is_checkpoint(e)).collect();
        let notify = self.notify_sql();
        let installed = self.run("replace the log in", |c| {
            if first {
                // Rows an unfinished replacement left (committed with a later change).
                c.execute(
                    "DELETE FROM mcp_memory_log WHERE memory = $1 AND generation >= $2",
                    &[&memory, &generation],
                )?;
            }
            c.execute(
                "INSERT INTO mcp_memory_log (memory, generation, seq, payload, checkpoint, writer)
                 SELECT $1, $2, $6 + s.seq, s.payload, s.checkpoint, $3
                 FROM unnest($4::bytea[], $5::boolean[]) WITH ORDINALITY AS s(payload, checkpoint, seq)",
                &[&memory, &generation, &writer, &entries, &checkpoints, &written],
            )?;
            if !last {
                return Ok(());
            }
            c.execute(
                "UPDATE mcp_memory SET generation = $2 WHERE name = $1",
                &[&memory, &generation],
            )?;
            c.execute(
                "DELETE FROM mcp_memory_log WHERE memory = $1 AND generation < $2",
                &[&memory, &generation],
            )?;
            c.batch_execute(&format!("{notify}; COMMIT; BEGIN"))
        });
        if let Err(e) = installed {
            self.roll_back();
            return Err(e);
        }
        let rows = written + entries.len() as i64;
        if !last {
            self.replacing = Some(rows);
            return Ok(());
        }
        (self.generation, self.seen, self.committed) = (generation, rows, rows);
        self.pending_change = false;
        Ok(())
    }
}

/// Most rows a page of [`Log::entries`] holds.
const PAGE_ROWS: i64 = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_names_its_memory_and_keeps_its_other_settings() {
        let t = Target::parse("postgres://me:secret@db.example:6543/mem?memory=team-a.1").unwrap();
        assert_eq!(t.memory, "team-a.1");
        assert_eq!(t.config.get_dbname(), Some("mem"));
        assert_eq!(t.config.get_user(), Some("me"));
        assert_eq!(t.shown, "postgres://db.example:6543/mem?memory=team-a.1");
        assert!(!t.shown.contains("secret"), "no password in messages");

        let t = Target::parse("postgresql://db/mem?application_name=x&memory=b&connect_timeout=2")
            .unwrap();
        assert_eq!(t.memory, "b");
        assert_eq!(
            t.config.get_connect_timeout(),
            Some(&Duration::from_secs(2))
        );
        assert_eq!(
            Target::parse("postgres://db/mem").unwrap().memory,
            DEFAULT_MEMORY
        );
        assert_eq!(
            t.with_memory("c").unwrap().shown,
            "postgres://db:5432/mem?memory=c"
        );
    }

    #[test]
    fn a_bad_memory_name_or_address_is_refused_saying_why() {
        for name in ["", "a/b", "a b", "ä", &"x".repeat(65)] {
            let err = Target::parse(&format!("postgres://db/mem?memory={name}")).unwrap_err();
            assert!(err.contains("memory name"), "{name:?}: {err}");
        }
        let err = Target::parse("postgres://db/mem?no_such_option=1").unwrap_err();
        assert!(err.starts_with("cannot read the store address"), "{err}");
    }

    #[test]
    fn lock_keys_differ_by_name() {
        assert_ne!(lock_key("a"), lock_key("b"));
        assert_eq!(lock_key("team"), lock_key("team"));
    }
}
