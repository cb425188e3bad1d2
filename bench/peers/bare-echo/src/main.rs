//! bare-echo: the floor the SDKs are compared with. It parses each JSON-RPC message with
//! serde_json and answers `initialize`, `tools/call` (`echo`), `tools/list`,
//! `resources/read` (`bench://text-100k`: 100 KiB of text) and `prompts/get`
//! (`echo-prompt`: its `text` argument as a user message) with the smallest valid
//! results; no SDK, no validation beyond that.
//!
//! - `bare-echo --stdio`          blocking std I/O on one thread (the floor of a stdio server)
//! - `bare-echo --stdio-tokio`    tokio stdin/stdout (what a plain tokio program does)
//! - `bare-echo --stdio-tasks`    each request answered in a task of its own, as a
//!   dispatcher that can cancel requests must (the floor of that design on stdio)
//! - `bare-echo --http ADDR --mode stateless|sessions`
//!   hyper HTTP/1.1 with TCP_NODELAY; `stateless` answers JSON, `sessions` gives a session
//!   id on `initialize` and answers every request as one SSE event.

use std::convert::Infallible;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Response, StatusCode};
use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<&'a str>,
    #[serde(borrow)]
    params: Option<Params<'a>>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow, default)]
    arguments: Option<Arguments<'a>>,
    #[serde(borrow, default)]
    uri: Option<&'a str>,
    #[serde(rename = "protocolVersion", borrow, default)]
    protocol_version: Option<&'a str>,
}

#[derive(Deserialize)]
struct Arguments<'a> {
    #[serde(borrow, default)]
    text: Option<std::borrow::Cow<'a, str>>,
}

/// The text of the resource `bench://text-100k`, as a JSON string (ASCII words, nothing
/// to escape), built once.
fn resource_text() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        const WORDS: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod ";
        let text: String = WORDS.bytes().cycle().take(100 * 1024).map(char::from).collect();
        serde_json::to_string(&text).unwrap_or_default()
    })
}

const TOOLS: &[u8] = br#","result":{"tools":[{"name":"echo","description":"Echoes the text back","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}]}}"#;

/// The answer to one message, or `None` for a notification.
fn answer(input: &[u8]) -> Option<Vec<u8>> {
    let msg: Message<'_> = serde_json::from_slice(input).ok()?;
    let id = msg.id?.get();
    let mut out = Vec::with_capacity(160);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.as_bytes());
    match msg.method {
        Some("initialize") => {
            let version = msg.params.as_ref().and_then(|p| p.protocol_version).unwrap_or("2025-11-25");
            out.extend_from_slice(br#","result":{"protocolVersion":"#);
            serde_json::to_writer(&mut out, version).ok()?;
            out.extend_from_slice(
                br#","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"bare-echo","version":"0"}}}"#,
            );
        }
        Some("tools/call") => {
            let text = msg.params.and_then(|p| p.arguments).and_then(|a| a.text).unwrap_or_default();
            out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
            serde_json::to_writer(&mut out, &text).ok()?;
            out.extend_from_slice(b"}]}}");
        }
        Some("tools/list") => out.extend_from_slice(TOOLS),
        Some("resources/read") => {
            let uri = msg.params.as_ref().and_then(|p| p.uri).unwrap_or_default();
            if uri != "bench://text-100k" {
                out.extend_from_slice(br#","error":{"code":-32602,"message":"unknown resource"}}"#);
                return Some(out);
            }
            out.extend_from_slice(
                br#","result":{"contents":[{"uri":"bench://text-100k","mimeType":"text/plain","text":"#,
            );
            out.extend_from_slice(resource_text().as_bytes());
            out.extend_from_slice(b"}]}}");
        }
        Some("prompts/get") => {
            let text = msg.params.and_then(|p| p.arguments).and_then(|a| a.text).unwrap_or_default();
            out.extend_from_slice(
                br#","result":{"messages":[{"role":"user","content":{"type":"text","text":"#,
            );
            serde_json::to_writer(&mut out, &text).ok()?;
            out.extend_from_slice(b"}}]}}");
        }
        _ => out.extend_from_slice(br#","result":{}}"#),
    }
    Some(out)
}

fn stdio_blocking() {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let stdout = std::io::stdout();
    let mut output = stdout.lock();
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if let Some(mut reply) = answer(&line) {
            reply.push(b'\n');
            if output.write_all(&reply).is_err() {
                return;
            }
            // Flush only when no further request is already buffered (batches replies).
            if !input.fill_buf().map(|b| b.contains(&b'\n')).unwrap_or(false) && output.flush().is_err() {
                return;
            }
        }
    }
}

async fn stdio_tokio() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut input = tokio::io::BufReader::new(tokio::io::stdin());
    let mut output = tokio::io::stdout();
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if let Some(mut reply) = answer(&line) {
            reply.push(b'\n');
            if output.write_all(&reply).await.is_err() || output.flush().await.is_err() {
                return;
            }
        }
    }
}

/// The least a server does that answers each request in a task of its own: the reader
/// spawns one task a line, and a writer fed by a bounded channel flushes when it has no
/// more replies waiting. No cancellation, ids or MCP checks: only the tasks' cost.
async fn stdio_tasks() {
    use std::os::fd::AsFd;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    use tokio::net::unix::pipe;
    // Non-blocking pipe ends on the runtime's own I/O driver, as mcpwire's stdio uses
    // (tokio's `stdin()`/`stdout()` would hand each read and write to the blocking pool).
    let fd = |f: std::os::fd::BorrowedFd<'_>| f.try_clone_to_owned().expect("dup");
    let stdin = pipe::Receiver::from_owned_fd(fd(std::io::stdin().as_fd())).expect("stdin is a pipe");
    let stdout = pipe::Sender::from_owned_fd(fd(std::io::stdout().as_fd())).expect("stdout is a pipe");
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<u8>>(256);
    let writer = tokio::spawn(async move {
        let mut output = tokio::io::BufWriter::new(stdout);
        while let Some(reply) = rx.recv().await {
            if output.write_all(&reply).await.is_err() || (rx.is_empty() && output.flush().await.is_err()) {
                return;
            }
        }
    });
    let mut input = tokio::io::BufReader::new(stdin);
    loop {
        let mut line = Vec::with_capacity(256);
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let tx = tx.clone();
        tokio::spawn(async move {
            if let Some(mut reply) = answer(&line) {
                reply.push(b'\n');
                let _ = tx.send(reply).await;
            }
        });
    }
    drop(tx);
    let _ = writer.await;
}

static SESSIONS: AtomicU64 = AtomicU64::new(1);

async fn handle(
    request: Request<hyper::body::Incoming>,
    sessions: bool,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = match request.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => return Ok(status(StatusCode::BAD_REQUEST)),
    };
    let Some(reply) = answer(&body) else { return Ok(status(StatusCode::ACCEPTED)) };
    // An `initialize` answer names `protocolVersion` first thing after its id, so only the
    // head of a reply is looked at (a scan of every byte of a large reply would cost more
    // than writing it).
    let head = &reply[..reply.len().min(128)];
    let is_init = head.windows(17).any(|w| w == b"\"protocolVersion\"");
    let mut builder = Response::builder();
    let payload = if sessions {
        if is_init {
            builder = builder.header("mcp-session-id", SESSIONS.fetch_add(1, Ordering::Relaxed).to_string());
        }
        builder = builder.header("content-type", "text/event-stream");
        let mut event = Vec::with_capacity(reply.len() + 24);
        event.extend_from_slice(b"event: message\ndata: ");
        event.extend_from_slice(&reply);
        event.extend_from_slice(b"\n\n");
        event
    } else {
        builder = builder.header("content-type", "application/json");
        reply
    };
    Ok(builder
        .body(Full::new(Bytes::from(payload)))
        .unwrap_or_else(|_| status(StatusCode::INTERNAL_SERVER_ERROR)))
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = code;
    r
}

async fn http(addr: &str, sessions: bool) {
    let listener = tokio::net::TcpListener::bind(addr).await.expect("bind");
    let sessions = Arc::new(sessions);
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let _ = stream.set_nodelay(true);
        let sessions = *sessions;
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |r| handle(r, sessions));
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let runtime = || tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    match args.as_slice() {
        ["--stdio"] => stdio_blocking(),
        ["--stdio-tokio"] => runtime().block_on(stdio_tokio()),
        ["--stdio-tasks"] => runtime().block_on(stdio_tasks()),
        ["--http", addr, "--mode", "stateless"] => runtime().block_on(http(addr, false)),
        ["--http", addr, "--mode", "sessions"] => runtime().block_on(http(addr, true)),
        _ => {
            eprintln!("usage: bare-echo --stdio | --stdio-tokio | --stdio-tasks | --http ADDR --mode stateless|sessions");
            std::process::exit(2);
        }
    }
}
