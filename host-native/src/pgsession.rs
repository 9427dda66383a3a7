//! A session on PostgreSQL whose every statement is bounded in time.
//!
//! A database server stopped (SIGSTOP, a frozen VM) or a network that stops delivering
//! without closing the connection leaves a client waiting for an answer that never comes:
//! the kernel on the far side still acknowledges what is sent, so neither TCP keepalives
//! nor a user timeout notice. Here each statement (and the connection's handshake) gets
//! [`ANSWER_WAIT`] beyond what the server itself may wait (its `lock_timeout`); past it
//! the session is dropped, closing the connection, and the statement fails with
//! [`Failure::Silent`]. What it was doing is then as after any lost connection: a
//! transaction not committed is rolled back by the server once it notices.

use std::fmt;
use std::time::Duration;

use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use tokio::time::error::Elapsed;
use tokio::time::timeout;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Config, Row};
use tokio_postgres_rustls::MakeRustlsConnect;

/// How long a statement may go unanswered beyond the server's own waits.
pub const ANSWER_WAIT: Duration = Duration::from_secs(10);

/// Why a statement failed.
#[derive(Debug)]
pub enum Failure {
    /// The database refused it, or the connection broke.
    Db(tokio_postgres::Error),
    /// No answer came within this long: the session was dropped.
    Silent(Duration),
    /// No runtime to drive a connection could be made.
    Runtime(std::io::Error),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Db(e) => write!(f, "{e}"),
            Failure::Silent(waited) => write!(
                f,
                "no answer within {} s (is the database server stopped, or the network to it down?); the connection was dropped",
                waited.as_secs()
            ),
            Failure::Runtime(e) => write!(f, "cannot start a connection's runtime: {e}"),
        }
    }
}

impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Failure::Db(e) => Some(e),
            Failure::Runtime(e) => Some(e),
            Failure::Silent(_) => None,
        }
    }
}

impl From<tokio_postgres::Error> for Failure {
    fn from(e: tokio_postgres::Error) -> Failure {
        Failure::Db(e)
    }
}

/// `future`'s output, if it comes within `bound`.
fn within<F: Future>(runtime: &Runtime, bound: Duration, future: F) -> Result<F::Output, Elapsed> {
    // The timer is made inside the runtime, which it needs.
    runtime.block_on(async move { timeout(bound, future).await })
}

/// A connection and the runtime that drives it (on this thread, while a statement runs).
pub struct Session {
    runtime: Runtime,
    client: Client,
    connection: JoinHandle<()>,
    /// A statement went unanswered: the session is no longer used.
    silent: bool,
}

impl Session {
    /// Connects, the handshake bounded by the address's `connect_timeout` for reaching the
    /// server and [`ANSWER_WAIT`] for its answers.
    pub fn connect(config: &Config, tls: MakeRustlsConnect) -> Result<Session, Failure> {
        let runtime = (tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build())
        .map_err(Failure::Runtime)?;
        let bound = config.get_connect_timeout().copied().unwrap_or_default() + ANSWER_WAIT;
        let connected = within(&runtime, bound, config.connect(tls));
        let (client, connection) = connected.map_err(|_| Failure::Silent(bound))??;
        let connection = runtime.spawn(async move {
            let _ = connection.await;
        });
        Ok(Session {
            runtime,
            client,
            connection,
            silent: false,
        })
    }

    /// Whether the connection is gone (broken, or dropped after a silence).
    pub fn is_closed(&self) -> bool {
        self.silent || self.client.is_closed()
    }

    /// The answer a statement got within `bound`; none, and the connection is dropped.
    fn answered<T>(
        &mut self,
        bound: Duration,
        answer: Result<Result<T, tokio_postgres::Error>, Elapsed>,
    ) -> Result<T, Failure> {
        match answer {
            Ok(answer) => Ok(answer?),
            Err(_) => {
                self.silent = true;
                self.connection.abort();
                Err(Failure::Silent(bound))
            }
        }
    }

    /// Statements separated by `;`, with no parameters, in which the server may wait up
    /// to `server_wait` (for a lock) before it answers.
    pub fn batch_execute_waiting(
        &mut self,
        sql: &str,
        server_wait: Duration,
    ) -> Result<(), Failure> {
        let bound = server_wait + ANSWER_WAIT;
        let answer = within(&self.runtime, bound, self.client.batch_execute(sql));
        self.answered(bound, answer)
    }

    /// Statements separated by `;`, with no parameters.
    pub fn batch_execute(&mut self, sql: &str) -> Result<(), Failure> {
        self.batch_execute_waiting(sql, Duration::ZERO)
    }

    /// The rows of a query.
    pub fn query(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, Failure> {
        let answer = within(&self.runtime, ANSWER_WAIT, self.client.query(sql, params));
        self.answered(ANSWER_WAIT, answer)
    }

    /// The one row of a query.
    pub fn query_one(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row, Failure> {
        let answer = within(
            &self.runtime,
            ANSWER_WAIT,
            self.client.query_one(sql, params),
        );
        self.answered(ANSWER_WAIT, answer)
    }

    /// Runs a statement; the number of rows it changed.
    pub fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, Failure> {
        let answer = within(&self.runtime, ANSWER_WAIT, self.client.execute(sql, params));
        self.answered(ANSWER_WAIT, answer)
    }
}
