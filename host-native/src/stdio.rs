//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, logs on stderr.

use std::io::{self, BufRead, Read, Write};

use anyhow::Result;

use crate::engine::Replies;
use crate::service::{IDLE, Service};
use crate::store::Location;

/// How long a lock a write took is kept for the client's next message: a burst of writes
/// takes it once.
const LINGER_MS: i32 = 2;

/// Replies longer than this (the smallest pipe buffer) are not sent under a kept lock.
const LONG_REPLY: usize = 64 << 10;

/// Serves MCP on stdin/stdout (session 0) until stdin closes or the client stops reading,
/// then closes the memory. While it waits for input, changes `location` announces (another
/// server's, through a database) are caught up with, and a subscribed client hears of them.
pub fn serve(mut service: Service, location: &Location) -> Result<()> {
    widen_pipe(&io::stdout());
    let mut stdin = io::BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    let mut line = Vec::new();
    if can_wait_for_input() {
        service.linger();
    }
    let wake = Wake::new()?;
    let signal = wake.signal();
    location.watch(Box::new(move || signal.raise()));
    loop {
        line.clear();
        if service.holds_lock() && !line_within(&mut stdin, LINGER_MS)? {
            service.release();
        }
        // While the client is quiet, the search indexes get built.
        // So is the database's announcement of a change: it ends the wait (and the build).
        let idle = |ms: i32| stdin.buffer().is_empty() && wake.quiet_for(ms);
        if can_wait_for_input() && idle(IDLE.as_millis() as i32) {
            service.warm_while(|| idle(0))?;
        }
        while stdin.buffer().is_empty() && wake.woken_before_input() {
            service.poll()?;
            let notices = service.take_notices().into_iter().map(|(_, notice)| notice);
            let replies = Replies {
                messages: notices.collect(),
                continued: false,
            };
            send(&mut stdout, &mut service, replies)?;
        }
        if stdin.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let text = String::from_utf8_lossy(trim_eol(&line));
        let replies = service.handle(0, &text)?;
        let long = replies.messages.iter().map(String::len).sum::<usize>() > LONG_REPLY;
        if replies.continued || long {
            // A long answer may wait on a client that reads it slowly: not under the lock.
            service.release();
        }
        match send(&mut stdout, &mut service, replies) {
            // The client closed its end: the session is over.
            Err(e) if is_broken_pipe(&e) => break,
            result => result?,
        }
    }
    service.close();
    Ok(())
}

/// Writes each message as one line, a long last one piece by piece as the memory writes
/// it, and flushes.
fn send(out: &mut impl Write, service: &mut Service, replies: Replies) -> Result<()> {
    let count = replies.messages.len();
    for (i, message) in replies.messages.into_iter().enumerate() {
        out.write_all(message.as_bytes())?;
        if replies.continued && i + 1 == count {
            drop(message);
            while let Some(piece) = service.next_piece()? {
                out.write_all(piece.as_bytes())?;
            }
        }
        out.write_all(b"\n")?;
    }
    Ok(out.flush()?)
}

/// Whether writing failed because the client closed its end.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

/// The line without its `\n` and one `\r` before it, as the reference's reader does.
pub(crate) fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Whether a whole line of input is at hand within `ms` milliseconds (a client stalled
/// mid-line must not keep the lock).
fn line_within(stdin: &mut io::BufReader<impl Read>, ms: i32) -> io::Result<bool> {
    if stdin.buffer().is_empty() && !input_within(ms) {
        return Ok(false);
    }
    Ok(stdin.fill_buf()?.contains(&b'\n'))
}

/// Whether [`input_within`] can wait for stdin (without it, no lock is kept between
/// messages).
fn can_wait_for_input() -> bool {
    cfg!(unix)
}

/// Whether stdin has input (or its end) within `ms` milliseconds.
#[cfg(unix)]
fn input_within(ms: i32) -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, for the length of the call.
    unsafe { libc::poll(&mut fd, 1, ms) > 0 }
}

#[cfg(not(unix))]
fn input_within(_ms: i32) -> bool {
    true
}

/// Bytes a pipe on stdout may buffer: Linux's limit for unprivileged processes.
#[cfg(target_os = "linux")]
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Lets a pipe on stdout hold a megabyte instead of 64 KiB, so a large reply (read_graph of
/// a big memory) crosses it in a few wake-ups of the client instead of hundreds. Best
/// effort: anything but a Linux pipe is left alone.
#[cfg(target_os = "linux")]
fn widen_pipe(stdout: &impl std::os::fd::AsRawFd) {
    // SAFETY: F_SETPIPE_SZ takes an int and only resizes the pipe's buffer; on a descriptor
    // that is not a pipe it fails with EBADF/EINVAL, which is ignored.
    unsafe { libc::fcntl(stdout.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_BYTES) };
}

#[cfg(not(target_os = "linux"))]
fn widen_pipe(_stdout: &io::Stdout) {}

/// A pipe another thread writes a byte to, to wake the loop waiting for stdin.
struct Wake {
    read: std::os::fd::OwnedFd,
    write: std::sync::Arc<std::os::fd::OwnedFd>,
}

/// The writing end of a [`Wake`].
struct Signal(std::sync::Arc<std::os::fd::OwnedFd>);

impl Wake {
    fn new() -> io::Result<Wake> {
        use std::os::fd::FromRawFd;
        let mut fds = [0; 2];
        // SAFETY: pipe2 writes two descriptors into the array on success.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: both descriptors are new and owned by nothing else.
        let (read, write) = unsafe {
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        Ok(Wake {
            read,
            write: std::sync::Arc::new(write),
        })
    }

    fn signal(&self) -> Signal {
        Signal(std::sync::Arc::clone(&self.write))
    }

    /// Whether neither input (or stdin's end) nor a signal comes within `ms` milliseconds.
    fn quiet_for(&self, ms: i32) -> bool {
        self.ready(ms) == (false, false)
    }

    /// Waits for stdin to have input (or its end): `false`; or for a signal first: `true`,
    /// the signals so far consumed.
    fn woken_before_input(&self) -> bool {
        use std::os::fd::AsRawFd;
        let (input, woken) = self.ready(-1);
        if input || !woken {
            return false;
        }
        let mut drained = [0u8; 64];
        // SAFETY: reads into a buffer of its length; the descriptor is non-blocking.
        while unsafe { libc::read(self.read.as_raw_fd(), drained.as_mut_ptr().cast(), 64) } > 0 {}
        true
    }

    /// Waits up to `ms` milliseconds (`-1`: as long as it takes) for stdin or a signal;
    /// returns which are ready (neither after the time, or if the wait was interrupted).
    fn ready(&self, ms: i32) -> (bool, bool) {
        use std::os::fd::AsRawFd;
        let mut fds = [
            libc::pollfd {
                fd: libc::STDIN_FILENO,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: self.read.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfds, for the length of the call.
        if unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) } <= 0 {
            return (false, false);
        }
        (fds[0].revents != 0, fds[1].revents != 0)
    }
}

impl Signal {
    /// Wakes the loop (a full pipe already will).
    fn raise(&self) {
        use std::os::fd::AsRawFd;
        // SAFETY: writes one byte from a valid buffer; the descriptor is non-blocking.
        let _ = unsafe { libc::write(self.0.as_raw_fd(), b"!".as_ptr().cast(), 1) };
    }
}
