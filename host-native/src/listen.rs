//! Serving on the network: the runtime, the listening socket, the checks before it opens,
//! and a clean stop on SIGINT or SIGTERM (every written change made durable).

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

use crate::auth::{Token, check_exposure};
use crate::service::Service;
use crate::store::Location;
use crate::{http, hub, tcp};

/// The network transports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Network {
    /// Newline-delimited JSON-RPC over TCP.
    Tcp,
    /// MCP Streamable HTTP.
    Http,
}

/// Where and for whom to listen.
pub struct Listen {
    /// The address to bind.
    pub addr: SocketAddr,
    /// The bearer token clients must present, if any.
    pub token: Option<Token>,
    /// Whether a non-loopback address may be served without a token.
    pub allow_unauthenticated: bool,
    /// Origins whose pages may call the http transport.
    pub allowed_origins: Vec<String>,
    /// Named memories the http transport serves besides (`/mcp/<name>`), each with its token.
    pub named: Vec<NamedMemory>,
}

/// A named memory to serve at `/mcp/<name>`.
pub struct NamedMemory {
    /// Its name.
    pub name: String,
    /// Where it is.
    pub location: Location,
    /// It, opened.
    pub service: Service,
    /// The token its clients present.
    pub token: Token,
}

/// Serves `service` (the memory at `location`) on the network until SIGINT or SIGTERM,
/// catching up when the store announces other servers' changes. The start-up line names the memory, which also gives the bound address (useful with port 0).
pub fn serve(
    network: Network,
    listen: Listen,
    service: Service,
    location: &Location,
) -> Result<()> {
    check_exposure(
        listen.addr,
        listen.token.as_ref(),
        listen.allow_unauthenticated,
    )?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the network runtime")?;
    if network == Network::Tcp && !listen.named.is_empty() {
        anyhow::bail!("named memories (--memories) are served over http only");
    }
    let (hub, engine) = hub::start(service);
    let waker = hub.clone();
    location.watch(Box::new(move || waker.poll()));
    let mut engines = vec![engine];
    let mut named = Vec::new();
    let mut announced = Vec::new();
    for memory in listen.named {
        let (hub, engine) = hub::start(memory.service);
        let waker = hub.clone();
        memory.location.watch(Box::new(move || waker.poll()));
        engines.push(engine);
        announced.push(format!(
            "mcp-memory: serving {} at {}/{}",
            memory.location.shown(),
            http::PATH,
            memory.name
        ));
        named.push(http::Named {
            name: memory.name,
            hub,
            token: memory.token,
        });
    }
    let memory = location.shown();
    let served = runtime.block_on(async move {
        let listener = TcpListener::bind(listen.addr)
            .await
            .with_context(|| format!("cannot listen on {}", listen.addr))?;
        let bound = listener.local_addr()?;
        let url = match network {
            Network::Tcp => format!("tcp://{bound}"),
            Network::Http => format!("http://{bound}{}", http::PATH),
        };
        eprintln!(
            "mcp-memory {}: serving {memory} on {url}",
            env!("CARGO_PKG_VERSION")
        );
        for line in announced {
            eprintln!("{line}");
        }
        let serving = async {
            match network {
                Network::Tcp => tcp::serve(listener, hub, listen.token.map(Arc::new)).await,
                Network::Http => {
                    let policy = http::Policy {
                        token: listen.token,
                        allowed_origins: listen.allowed_origins,
                        loopback: bound.ip().is_loopback(),
                    };
                    http::serve(listener, hub, policy, named).await
                }
            }
        };
        tokio::select! {
            served = serving => served,
            stop = stop_signal() => stop,
        }
    });
    runtime.shutdown_background();
    for engine in engines {
        engine.stop();
    }
    served
}

/// Waits for SIGINT or SIGTERM.
async fn stop_signal() -> Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    eprintln!("mcp-memory: stopping");
    Ok(())
}

/// Accepts connections until the process ends, at most `limit` served at once, each by
/// `serve` on a task of its own; one over the limit is sent `busy` and closed. A failure to
/// accept (out of descriptors and the like) is reported, and the connections there are go
/// on being served meanwhile.
pub async fn each_connection<F>(
    listener: TcpListener,
    limit: usize,
    busy: Arc<[u8]>,
    serve: impl Fn(TcpStream) -> F,
) -> !
where
    F: Future<Output = ()> + Send + 'static,
{
    let slots = Arc::new(Semaphore::new(limit));
    loop {
        let mut stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("mcp-memory: warning: cannot accept a connection: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            let busy = Arc::clone(&busy);
            tokio::spawn(async move {
                let _ = stream.write_all(&busy).await;
            });
            continue;
        };
        let served = serve(stream);
        tokio::spawn(async move {
            served.await;
            drop(slot);
        });
    }
}

/// How many connections the process can hold open, up to `want`: it raises its limit of
/// open files (the soft one, up to the hard one) to `want` and room for the rest.
pub fn open_files_for(want: usize) -> usize {
    const ROOM: u64 = 256;
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read and write the struct given, nothing else.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return want;
            }
            let needed = want as u64 + ROOM;
            if limit.rlim_cur < needed {
                let raised = libc::rlimit {
                    rlim_cur: needed.min(limit.rlim_max),
                    rlim_max: limit.rlim_max,
                };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    limit.rlim_cur = raised.rlim_cur;
                }
            }
        }
        (limit.rlim_cur.saturating_sub(ROOM) as usize).clamp(1, want)
    }
    #[cfg(not(unix))]
    want
}
