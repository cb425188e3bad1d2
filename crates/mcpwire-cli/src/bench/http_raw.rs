//! The raw HTTP driver: a minimal HTTP/1.1 keep-alive client (one connection per
//! simulated client, `TCP_NODELAY`, `httparse` for the response head, Content-Length,
//! chunked and SSE bodies) on a current-thread runtime.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::config::{warmup_for, BenchConfig, Protocol, Workload};
use super::progress::CallCounter;
use super::report::{BenchError, Outcome, SessionMemory};
use super::stats::Samples;
use super::sys;
use super::wire::{self, Answer, EchoCall};

/// How long one HTTP exchange may take before it counts as failed.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(10);

/// An `http://host:port/path` URL.
#[derive(Clone, Debug)]
pub(crate) struct Url {
    authority: String,
    path: String,
}

impl Url {
    pub(crate) fn parse(url: &str) -> Result<Url, BenchError> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| BenchError::Unsupported(format!("{url}: only http:// URLs")))?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        if authority.is_empty() {
            return Err(BenchError::Unsupported(format!("{url}: no host")));
        }
        let authority =
            if authority.contains(':') { authority.to_owned() } else { format!("{authority}:80") };
        Ok(Url { authority, path: path.to_owned() })
    }
}

/// What kind of message a POST carries (it decides the MCP headers).
#[derive(Clone, Copy, PartialEq)]
enum Post {
    Initialize,
    Initialized,
    Call,
}

/// The 2026 `Mcp-Method` and `Mcp-Name` headers of a POST (ASCII names only).
type Route<'a> = (&'a str, Option<&'a str>);

/// The route of the handshake's POSTs (2025 only, so never sent).
const NO_ROUTE: Route<'static> = ("initialize", None);

/// The head of a response; the JSON-RPC message is left in `Conn::message` (an SSE
/// response's first response event, or the JSON body).
struct Reply {
    status: u16,
}

/// One keep-alive connection (and, in 2025, the session it opened).
pub(crate) struct Conn {
    stream: TcpStream,
    url: Arc<Url>,
    protocol: Protocol,
    session: Option<String>,
    rbuf: Vec<u8>,
    rpos: usize,
    wbuf: Vec<u8>,
    body: Vec<u8>,
    message: Vec<u8>,
    closed: bool,
}

impl Conn {
    pub(crate) async fn connect(url: Arc<Url>, protocol: Protocol) -> Result<Conn, BenchError> {
        let stream = TcpStream::connect(&url.authority).await?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            stream,
            url,
            protocol,
            session: None,
            rbuf: Vec::with_capacity(16 * 1024),
            rpos: 0,
            wbuf: Vec::with_capacity(1024),
            body: Vec::with_capacity(1024),
            message: Vec::with_capacity(1024),
            closed: false,
        })
    }

    /// 2025: `initialize` (learning the session id, if any) and `initialized`.
    pub(crate) async fn handshake(&mut self) -> Result<(), BenchError> {
        if self.protocol == Protocol::V2026 {
            return Ok(());
        }
        let init = wire::initialize();
        let reply = self.post(Post::Initialize, init.as_bytes(), NO_ROUTE).await?;
        match wire::answer(&self.message) {
            Answer::Ok(0) if reply.status == 200 => {}
            other => {
                return Err(BenchError::Protocol(format!(
                    "initialize answered HTTP {} {other:?}: {}",
                    reply.status,
                    String::from_utf8_lossy(&self.body)
                )))
            }
        }
        let reply = self.post(Post::Initialized, wire::INITIALIZED.as_bytes(), NO_ROUTE).await?;
        if !(200..300).contains(&reply.status) {
            return Err(BenchError::Protocol(format!("initialized answered HTTP {}", reply.status)));
        }
        Ok(())
    }

    /// The request `id` of `call`; `Ok(true)` when answered with a result for `id`.
    async fn call(&mut self, call: &EchoCall, id: u64) -> Result<bool, BenchError> {
        let mut body = std::mem::take(&mut self.body);
        body.clear();
        call.write(id, &mut body);
        let reply = self.post(Post::Call, &body, (call.method(id), call.name(id))).await;
        self.body = body;
        let reply = reply?;
        Ok(reply.status == 200 && wire::answer(&self.message) == Answer::Ok(id))
    }

    /// The request `id` of `call`, answered with a result; an echo call's answer is
    /// checked in full. `Some` note when the answer is not of the call's era
    /// ([`EchoCall::era_note`]).
    async fn checked_call(
        &mut self,
        call: &EchoCall,
        id: u64,
        text: &str,
    ) -> Result<Option<String>, BenchError> {
        if !self.call(call, id).await? {
            return Err(BenchError::Protocol(format!(
                "the {} call failed: {}",
                call.method(id),
                String::from_utf8_lossy(&self.message)
            )));
        }
        if call.is_echo(id) {
            call.check(&self.message, text).map_err(BenchError::Protocol)?;
        }
        Ok(call.era_note(&self.message))
    }

    async fn post(&mut self, kind: Post, body: &[u8], route: Route<'_>) -> Result<Reply, BenchError> {
        match tokio::time::timeout(EXCHANGE_TIMEOUT, self.exchange(kind, body, route)).await {
            Ok(r) => r,
            Err(_) => {
                self.closed = true;
                Err(BenchError::Protocol("an HTTP exchange timed out".into()))
            }
        }
    }

    async fn exchange(&mut self, kind: Post, body: &[u8], route: Route<'_>) -> Result<Reply, BenchError> {
        if self.closed {
            return Err(BenchError::Protocol("the connection is closed".into()));
        }
        let w = &mut self.wbuf;
        w.clear();
        w.extend_from_slice(b"POST ");
        w.extend_from_slice(self.url.path.as_bytes());
        w.extend_from_slice(b" HTTP/1.1\r\nHost: ");
        w.extend_from_slice(self.url.authority.as_bytes());
        w.extend_from_slice(
            b"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n",
        );
        match (self.protocol, kind) {
            (Protocol::V2026, _) => {
                let (method, name) = route;
                w.extend_from_slice(b"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: ");
                w.extend_from_slice(method.as_bytes());
                w.extend_from_slice(b"\r\n");
                if let Some(name) = name {
                    w.extend_from_slice(b"Mcp-Name: ");
                    w.extend_from_slice(name.as_bytes());
                    w.extend_from_slice(b"\r\n");
                }
            }
            (Protocol::V2025, Post::Initialize) => {}
            (Protocol::V2025, _) => {
                w.extend_from_slice(b"MCP-Protocol-Version: 2025-11-25\r\n");
                if let Some(s) = &self.session {
                    w.extend_from_slice(b"Mcp-Session-Id: ");
                    w.extend_from_slice(s.as_bytes());
                    w.extend_from_slice(b"\r\n");
                }
            }
        }
        w.extend_from_slice(b"Content-Length: ");
        w.extend_from_slice(itoa::Buffer::new().format(body.len()).as_bytes());
        w.extend_from_slice(b"\r\n\r\n");
        w.extend_from_slice(body);
        if let Err(e) = self.stream.write_all(&self.wbuf).await {
            self.closed = true;
            return Err(e.into());
        }
        let result = self.read_reply(kind).await;
        if result.is_err() {
            self.closed = true;
        }
        result
    }

    /// Reads more bytes into the buffer; an error at end of stream.
    async fn fill(&mut self) -> Result<(), BenchError> {
        if self.rpos > 0 && self.rpos == self.rbuf.len() {
            self.rbuf.clear();
            self.rpos = 0;
        }
        let mut tmp = [0u8; 16 * 1024];
        let n = self.stream.read(&mut tmp).await?;
        if n == 0 {
            return Err(BenchError::Protocol("the server closed the connection".into()));
        }
        self.rbuf.extend_from_slice(&tmp[..n]);
        Ok(())
    }

    async fn read_reply(&mut self, kind: Post) -> Result<Reply, BenchError> {
        // The head.
        let (status, length, chunked, sse, close, consumed) = loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut response = httparse::Response::new(&mut headers);
            match response.parse(&self.rbuf[self.rpos..]) {
                Ok(httparse::Status::Complete(n)) => {
                    let status = response.code.unwrap_or(0);
                    let (mut length, mut chunked, mut sse, mut close) = (None, false, false, false);
                    for h in response.headers.iter() {
                        let name = h.name;
                        if name.eq_ignore_ascii_case("content-length") {
                            length = std::str::from_utf8(h.value).ok().and_then(|v| v.trim().parse().ok());
                        } else if name.eq_ignore_ascii_case("transfer-encoding") {
                            chunked = h.value.eq_ignore_ascii_case(b"chunked");
                        } else if name.eq_ignore_ascii_case("content-type") {
                            sse = h.value.starts_with(b"text/event-stream");
                        } else if name.eq_ignore_ascii_case("connection") {
                            close = h.value.eq_ignore_ascii_case(b"close");
                        } else if name.eq_ignore_ascii_case("mcp-session-id") && kind == Post::Initialize {
                            self.session = std::str::from_utf8(h.value).ok().map(str::to_owned);
                        }
                    }
                    break (status, length, chunked, sse, close, n);
                }
                Ok(httparse::Status::Partial) => {}
                Err(e) => return Err(BenchError::Protocol(format!("bad HTTP response: {e}"))),
            }
            self.fill().await?;
        };
        self.rpos += consumed;
        // The body.
        self.body.clear();
        if chunked {
            loop {
                let line_end = loop {
                    if let Some(i) = find(&self.rbuf[self.rpos..], b"\r\n") {
                        break self.rpos + i;
                    }
                    self.fill().await?;
                };
                let size_text = std::str::from_utf8(&self.rbuf[self.rpos..line_end]).unwrap_or("");
                let size_text = size_text.split(';').next().unwrap_or("").trim();
                let size = usize::from_str_radix(size_text, 16)
                    .map_err(|_| BenchError::Protocol(format!("bad chunk size {size_text:?}")))?;
                self.rpos = line_end + 2;
                while self.rbuf.len() - self.rpos < size + 2 {
                    self.fill().await?;
                }
                self.body.extend_from_slice(&self.rbuf[self.rpos..self.rpos + size]);
                self.rpos += size + 2;
                if size == 0 {
                    break;
                }
            }
        } else if let Some(len) = length {
            while self.rbuf.len() - self.rpos < len {
                self.fill().await?;
            }
            self.body.extend_from_slice(&self.rbuf[self.rpos..self.rpos + len]);
            self.rpos += len;
        } else if !(status == 202 || status == 204 || status == 304) {
            // No length: the body runs to the end of the connection.
            self.body.extend_from_slice(&self.rbuf[self.rpos..]);
            self.rpos = self.rbuf.len();
            let mut tmp = [0u8; 16 * 1024];
            loop {
                let n = self.stream.read(&mut tmp).await?;
                if n == 0 {
                    break;
                }
                self.body.extend_from_slice(&tmp[..n]);
            }
            self.closed = true;
        }
        if close {
            self.closed = true;
        }
        self.message.clear();
        if sse {
            extract_sse_message(&self.body, &mut self.message);
        } else {
            self.message.extend_from_slice(&self.body);
        }
        Ok(Reply { status })
    }
}

/// The first SSE event whose data is a JSON-RPC response (data lines joined with `\n`).
fn extract_sse_message(body: &[u8], out: &mut Vec<u8>) {
    let mut data: Vec<u8> = Vec::new();
    let flush = |data: &mut Vec<u8>, out: &mut Vec<u8>| {
        if out.is_empty() && !data.is_empty() && wire::answer(data) != Answer::Other {
            out.extend_from_slice(data);
        }
        data.clear();
    };
    for raw in body.split(|b| *b == b'\n') {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if line.is_empty() {
            flush(&mut data, out);
        } else if let Some(value) = line.strip_prefix(b"data:") {
            if !data.is_empty() {
                data.push(b'\n');
            }
            data.extend_from_slice(value.strip_prefix(b" ").unwrap_or(value));
        }
    }
    flush(&mut data, out);
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn runtime() -> Result<tokio::runtime::Runtime, BenchError> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?)
}

const WARMUP: u8 = 0;
const MEASURE: u8 = 1;
const STOP: u8 = 2;

/// A sequential or concurrent workload against a running endpoint; its measured calls are
/// counted in `counter`.
pub(crate) fn measure(
    url: &str,
    config: &BenchConfig,
    workload: &Workload,
    counter: &CallCounter,
) -> Result<Outcome, BenchError> {
    let url = Arc::new(Url::parse(url)?);
    let call = Arc::new(EchoCall::for_config(config));
    let rt = runtime()?;
    rt.block_on(async {
        // Every run starts with one fully checked call.
        let mut conn = Conn::connect(url.clone(), config.protocol).await?;
        conn.handshake().await?;
        let note = conn.checked_call(&call, 1, &config.text).await?;
        let outcome = match workload {
            Workload::Sequential { calls } => {
                let mut id = 2;
                for _ in 0..config.warmup_calls {
                    conn.call(&call, id).await?;
                    id += 1;
                }
                let mut samples = Samples::counting(*calls as usize, counter);
                let mut errors = 0;
                let meter = sys::Meter::start(config.server_pid);
                for _ in 0..*calls {
                    let t = Instant::now();
                    match conn.call(&call, id).await {
                        Ok(true) => samples.push(t.elapsed()),
                        Ok(false) => errors += 1,
                        Err(e) => return Err(e),
                    }
                    id += 1;
                }
                Ok(Outcome::new(workload, samples, errors, meter.stop(), None))
            }
            Workload::Concurrent { clients, seconds } => {
                drop(conn);
                let phase = Arc::new(AtomicU8::new(WARMUP));
                let mut tasks = Vec::with_capacity(*clients);
                for _ in 0..*clients {
                    let (url, call, phase, protocol, counter) =
                        (url.clone(), call.clone(), phase.clone(), config.protocol, counter.clone());
                    tasks.push(tokio::spawn(client_loop(url, call, phase, protocol, counter)));
                }
                tokio::time::sleep(warmup_for(*seconds)).await;
                let meter = sys::Meter::start(config.server_pid);
                phase.store(MEASURE, Ordering::Release);
                tokio::time::sleep(Duration::from_secs_f64(*seconds)).await;
                phase.store(STOP, Ordering::Release);
                let usage = meter.stop();
                let mut samples = Samples::default();
                let mut errors = 0;
                let mut failure = None;
                for task in tasks {
                    match task.await {
                        Ok(Ok((s, e))) => {
                            samples.merge(s);
                            errors += e;
                        }
                        Ok(Err(e)) => failure = Some(e),
                        Err(e) => failure = Some(BenchError::Protocol(format!("a client task failed: {e}"))),
                    }
                }
                if let (Some(e), true) = (failure, samples.is_empty()) {
                    return Err(e);
                }
                Ok(Outcome::new(workload, samples, errors, usage, None))
            }
            other => Err(BenchError::Unsupported(format!("{other} over HTTP"))),
        };
        outcome.map(|outcome| outcome.noting(note))
    })
}

/// One simulated client: its own connection (and session), calling until told to stop.
/// Only calls that start and end inside the measured window count (in `counter` too).
async fn client_loop(
    url: Arc<Url>,
    call: Arc<EchoCall>,
    phase: Arc<AtomicU8>,
    protocol: Protocol,
    counter: CallCounter,
) -> Result<(Samples, u64), BenchError> {
    let mut conn = Conn::connect(url.clone(), protocol).await?;
    conn.handshake().await?;
    let mut samples = Samples::counting(1 << 16, &counter);
    let mut errors = 0;
    let mut id = 1u64;
    loop {
        let before = phase.load(Ordering::Acquire);
        if before == STOP {
            break;
        }
        let t = Instant::now();
        let answered = conn.call(&call, id).await;
        let elapsed = t.elapsed();
        let counted = before == MEASURE && phase.load(Ordering::Acquire) == MEASURE;
        match answered {
            Ok(true) if counted => samples.push(elapsed),
            Ok(true) => {}
            Ok(false) => errors += u64::from(counted),
            Err(_) => {
                errors += u64::from(counted);
                // Reconnect once per failure; give up if that fails too.
                conn = Conn::connect(url.clone(), protocol).await?;
                conn.handshake().await?;
            }
        }
        id += 1;
    }
    Ok((samples, errors))
}

/// Opens `sessions` 2025 sessions (after 100 unmeasured ones) and reports the server's
/// RSS growth per session. Each session's connection is closed after `initialized`.
pub(crate) fn idle_sessions(
    url: &str,
    config: &BenchConfig,
    sessions: usize,
) -> Result<SessionMemory, BenchError> {
    let pid = config
        .server_pid
        .ok_or_else(|| BenchError::Unsupported("idle sessions need the server's pid".into()))?;
    let url = Arc::new(Url::parse(url)?);
    let rt = runtime()?;
    rt.block_on(async {
        let open = |n: usize| {
            let url = url.clone();
            async move {
                for _ in 0..n {
                    let mut conn = Conn::connect(url.clone(), Protocol::V2025).await?;
                    conn.handshake().await?;
                    if conn.session.is_none() {
                        return Err(BenchError::Protocol("the server opened no session".into()));
                    }
                }
                Ok::<(), BenchError>(())
            }
        };
        open(100).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let before =
            sys::rss_kib(pid).ok_or_else(|| BenchError::Protocol(format!("cannot read pid {pid}")))?;
        open(sessions).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after =
            sys::rss_kib(pid).ok_or_else(|| BenchError::Protocol(format!("cannot read pid {pid}")))?;
        Ok(SessionMemory {
            sessions,
            rss_before_kib: before,
            rss_after_kib: after,
            kib_per_session: after.saturating_sub(before) as f64 / sessions.max(1) as f64,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urls() {
        let u = Url::parse("http://127.0.0.1:8080/mcp")
            .unwrap_or_else(|_| Url { authority: String::new(), path: String::new() });
        assert_eq!(u.authority, "127.0.0.1:8080");
        assert_eq!(u.path, "/mcp");
        assert!(Url::parse("https://x/").is_err());
    }

    #[test]
    fn extracts_the_response_event() {
        let body = b"id: s:0\nretry: 1000\ndata: \n\nevent: message\nid: s:1\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n";
        let mut out = Vec::new();
        extract_sse_message(body, &mut out);
        assert_eq!(wire::answer(&out), Answer::Ok(3));
    }
}
