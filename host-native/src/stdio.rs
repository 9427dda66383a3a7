//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, logs on stderr.

use std::io::{self, BufRead, Read, Write};

use anyhow::Result;

use crate::engine::Replies;
use crate::service::Service;

/// How long a lock a write took is kept for the client's next message: a burst of writes
/// takes it once.
const LINGER_MS: i32 = 2;

/// Replies longer than this (the smallest pipe buffer) are not sent under a kept lock.
const LONG_REPLY: usize = 64 << 10;

/// Serves MCP on stdin/stdout (session 0) until stdin closes or the client stops reading,
/// then closes the memory.
pub fn serve(mut service: Service) -> Result<()> {
    widen_pipe(&io::stdout());
    let mut stdin = io::BufReader::with_capacity(1 << 16, io::stdin().lock());
    let mut stdout = io::BufWriter::new(io::stdout().lock());
    let mut line = Vec::new();
    if can_wait_for_input() {
        service.linger();
    }
    loop {
        line.clear();
        if service.holds_lock() && !line_within(&mut stdin, LINGER_MS)? {
            service.release();
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
