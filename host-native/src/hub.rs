//! What the network transports share: one thread owns the memory ([`Service`]) and handles
//! every client's messages in arrival order; each connected client has a session number and
//! an outbox where messages for it (replies, other clients' change notifications) wait.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::thread;

use tokio::sync::{mpsc as tmpsc, oneshot};

use crate::service::{IDLE, Service};

/// Messages an outbox holds before its client must read some (a client that stops reading
/// slows only itself; notifications that find its outbox full are dropped).
pub const OUTBOX_MESSAGES: usize = 64;

/// Where messages for one client wait.
pub type Outbox = tmpsc::Sender<String>;

enum Job {
    Handle {
        session: u32,
        message: String,
        done: oneshot::Sender<Vec<String>>,
    },
    Attach {
        session: u32,
        outbox: Outbox,
    },
    Detach {
        session: u32,
    },
    End {
        session: u32,
    },
    /// Other servers changed the memory: catch up, and tell subscribers.
    Poll,
    Stop,
}

/// A handle on the memory's thread; cheap to clone.
#[derive(Clone)]
pub struct Hub {
    jobs: mpsc::Sender<Job>,
    next_session: Arc<AtomicU32>,
    /// A poll is queued and not begun (announcements meanwhile need no other).
    poll_queued: Arc<AtomicBool>,
}

/// The memory's thread; [`Engine::stop`] ends it, making everything written durable.
pub struct Engine {
    jobs: mpsc::Sender<Job>,
    thread: thread::JoinHandle<()>,
}

impl Engine {
    /// Waits for the messages already sent, then closes the memory (a checkpoint, the
    /// final fsync).
    pub fn stop(self) {
        let _ = self.jobs.send(Job::Stop);
        let _ = self.thread.join();
    }
}

/// Starts the memory's thread.
pub fn start(mut service: Service) -> (Hub, Engine) {
    let (jobs, queue) = mpsc::channel::<Job>();
    let poll_queued = Arc::new(AtomicBool::new(false));
    let queued = Arc::clone(&poll_queued);
    let thread = thread::spawn(move || {
        let mut outboxes: HashMap<u32, Outbox> = HashMap::new();
        let mut warming = true;
        while let Some(job) = next(&queue, &mut service, &mut warming) {
            warming = true;
            match job {
                Job::Handle {
                    session,
                    message,
                    done,
                } => {
                    let replies = service.handle_whole(session, &message);
                    let _ = done.send(reopened(replies));
                    deliver(&mut service, &outboxes);
                }
                Job::Poll => {
                    queued.store(false, Ordering::Release);
                    reopened(service.poll());
                    deliver(&mut service, &outboxes);
                }
                Job::Attach { session, outbox } => {
                    outboxes.insert(session, outbox);
                }
                Job::Detach { session } => {
                    outboxes.remove(&session);
                }
                Job::End { session } => {
                    outboxes.remove(&session);
                    service.end_session(session);
                }
                Job::Stop => break,
            }
        }
        service.close();
    });
    let hub = Hub {
        jobs: jobs.clone(),
        next_session: Arc::new(AtomicU32::new(1)),
        poll_queued,
    };
    (hub, Engine { jobs, thread })
}

/// The next job, once one comes (`None` once every hub is gone); while none comes for
/// [`IDLE`] and `warming`, the search indexes are built ([`Service::warm_while`]), and
/// `warming` ends once they are.
fn next(queue: &mpsc::Receiver<Job>, service: &mut Service, warming: &mut bool) -> Option<Job> {
    if *warming {
        match queue.recv_timeout(IDLE) {
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            job => return job.ok(),
        }
        let mut came = Err(mpsc::TryRecvError::Empty);
        *warming = reopened(service.warm_while(|| {
            came = queue.try_recv();
            matches!(came, Err(mpsc::TryRecvError::Empty))
        }));
        match came {
            Err(mpsc::TryRecvError::Empty) => {}
            job => return job.ok(),
        }
    }
    queue.recv().ok()
}

/// What a call on the service returned; a memory that could not be reopened after a trap
/// ends the process.
fn reopened<T>(result: anyhow::Result<T>) -> T {
    result.unwrap_or_else(|e| {
        eprintln!("mcp-memory: error: cannot reopen the memory: {e:#}");
        std::process::exit(1);
    })
}

/// Puts the notifications waiting for other sessions in their outboxes.
fn deliver(service: &mut Service, outboxes: &HashMap<u32, Outbox>) {
    for (to, notice) in service.take_notices() {
        if let Some(outbox) = outboxes.get(&to) {
            let _ = outbox.try_send(notice);
        }
    }
}

impl Hub {
    /// A new session number (0 is stdio's).
    pub fn new_session(&self) -> u32 {
        self.next_session.fetch_add(1, Ordering::Relaxed)
    }

    /// Handles one message from `session`'s client; the messages for it. Empty if the
    /// memory has stopped.
    pub async fn handle(&self, session: u32, message: String) -> Vec<String> {
        let (done, reply) = oneshot::channel();
        let job = Job::Handle {
            session,
            message,
            done,
        };
        if self.jobs.send(job).is_err() {
            return Vec::new();
        }
        reply.await.unwrap_or_default()
    }

    /// Sends notifications for `session` to `outbox` from now on.
    pub fn attach(&self, session: u32, outbox: Outbox) {
        let _ = self.jobs.send(Job::Attach { session, outbox });
    }

    /// Stops sending notifications for `session` (its stream closed; the session lives on).
    pub fn detach(&self, session: u32) {
        let _ = self.jobs.send(Job::Detach { session });
    }

    /// Has the memory catch up with other servers' changes (the store announced some) and
    /// tell its subscribers; a poll already queued covers this one.
    pub fn poll(&self) {
        if !self.poll_queued.swap(true, Ordering::AcqRel) {
            let _ = self.jobs.send(Job::Poll);
        }
    }

    /// Ends `session`: its client went away.
    pub fn end(&self, session: u32) {
        let _ = self.jobs.send(Job::End { session });
    }
}
