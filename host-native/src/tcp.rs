//! The TCP transport: newline-delimited JSON-RPC, as on stdio, one MCP session per
//! connection, every connection on the one shared memory. At most [`MAX_CONNECTIONS`] at
//! once; with a token, a connection's first line must be `Bearer <token>`.

use std::sync::Arc;

use anyhow::Result;
use mcp_memory_core::mcp;
use mcp_memory_core::tools::limits::MAX_MESSAGE_BYTES;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use crate::auth::Token;
use crate::hub::{Hub, OUTBOX_MESSAGES};
use crate::listen;
use crate::stdio::trim_eol;

/// Connections served at once; more are told so and closed.
pub const MAX_CONNECTIONS: usize = 128;

/// Longest line read whole: the core's message limit and room for the line's end. A longer
/// line is read to its end without being kept, and answered as the core says
/// ([`mcp::too_large`], with id `null`: its id was not read).
const MAX_LINE: u64 = MAX_MESSAGE_BYTES as u64 + 2;

const BUSY: &str = concat!(
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Too many connections: this server serves at most 128 at once"}}"#,
    "\n"
);
const UNAUTHORIZED: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Unauthorized: the first line must be `Bearer <token>`"}}"#;

/// Accepts connections until the process ends.
pub async fn serve(listener: TcpListener, hub: Hub, token: Option<Arc<Token>>) -> Result<()> {
    listen::each_connection(
        listener,
        MAX_CONNECTIONS,
        BUSY.as_bytes().into(),
        |stream| connection(stream, hub.clone(), token.clone()),
    )
    .await
}

/// Serves one client until it closes its end.
async fn connection(stream: TcpStream, hub: Hub, token: Option<Arc<Token>>) {
    let _ = stream.set_nodelay(true);
    let (read, write) = stream.into_split();
    let mut lines = BufReader::new(read);
    let (outbox, mut queue) = mpsc::channel::<String>(OUTBOX_MESSAGES);
    let writer = tokio::spawn(async move {
        let mut out = BufWriter::new(write);
        while let Some(message) = queue.recv().await {
            let mut line = message.into_bytes();
            line.push(b'\n');
            if out.write_all(&line).await.is_err() {
                return;
            }
            if queue.is_empty() && out.flush().await.is_err() {
                return;
            }
        }
        let _ = out.flush().await;
    });
    let session = hub.new_session();
    hub.attach(session, outbox.clone());
    let mut line = Vec::new();
    let mut authorized = token.is_none();
    loop {
        line.clear();
        match (&mut lines)
            .take(MAX_LINE)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => break,
            Ok(_) if !line.ends_with(b"\n") && line.len() as u64 == MAX_LINE => {
                let Ok((rest, cr)) = skip_line(&mut lines, line.last().copied()).await else {
                    break;
                };
                let bytes = line.len() + rest - usize::from(cr);
                let refused = mcp::too_large(None, Some(bytes));
                if outbox.send(refused).await.is_err() {
                    break;
                }
                continue;
            }
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(trim_eol(&line)).into_owned();
        if !authorized {
            match &token {
                Some(token) if token.authorizes(text.trim()) => {
                    authorized = true;
                    continue;
                }
                _ => {
                    let _ = outbox.send(UNAUTHORIZED.to_string()).await;
                    break;
                }
            }
        }
        for reply in hub.handle(session, text).await {
            if outbox.send(reply).await.is_err() {
                break;
            }
        }
    }
    hub.end(session);
    drop(outbox);
    let _ = writer.await;
}

/// Reads the rest of a line whose start (ending in byte `last`) was read already, without
/// keeping it; returns how many bytes it held before its `\n`, and whether a `\r` (part of
/// the line's end, not of the message) stood before that.
async fn skip_line(
    reader: &mut (impl AsyncBufRead + Unpin),
    mut last: Option<u8>,
) -> std::io::Result<(usize, bool)> {
    let mut count = 0;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok((count, false));
        }
        if let Some(end) = buf.iter().position(|&b| b == b'\n') {
            let before = if end > 0 {
                buf.get(end - 1).copied()
            } else {
                last
            };
            reader.consume(end + 1);
            return Ok((count + end, before == Some(b'\r')));
        }
        let len = buf.len();
        last = buf.last().copied();
        count += len;
        reader.consume(len);
    }
}
