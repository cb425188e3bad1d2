//! A cluster on loopback for the cluster tests: a real `redis-server` (its own temp dir,
//! append-only so a restart keeps the data), `everything-server --redis` instances, and
//! a round-robin HTTP load balancer with no stickiness that skips a backend refusing
//! connections and counts what each backend served. Also a raw HTTP client for the
//! tests that need exact control of the wire (2026 stateless calls, 2025 sessions, SSE
//! streams read event by event). Every child is killed when its handle drops, and every
//! wait has a deadline.

use std::convert::Infallible;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Request, Response, StatusCode};
use http_body_util::{BodyExt, Either, Full, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use super::peers::free_addr;

/// How long a child may take to start listening.
const START_LIMIT: Duration = Duration::from_secs(30);
/// The largest request body the balancer forwards.
const MAX_REQUEST_BYTES: usize = 1024 * 1024;
/// The most routed requests the balancer remembers (the counts go on past it).
const MAX_LOG: usize = 50_000;
/// How long one raw HTTP exchange may take before it counts as a hang.
pub const EXCHANGE_LIMIT: Duration = Duration::from_secs(10);

/// `redis-server` on `PATH`; `None` (the test is skipped, saying so) only when
/// `MCPWIRE_SKIP_REDIS=1`. Otherwise a missing server fails the test: the cluster
/// tests are part of the suite (`.ci/run` installs Debian's `redis-server`).
pub fn redis_server() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join("redis-server"))
        .find(|p| p.is_file());
    match found {
        Some(path) => Some(path),
        None if std::env::var("MCPWIRE_SKIP_REDIS").as_deref() == Ok("1") => {
            println!("skipped: no redis-server on PATH and MCPWIRE_SKIP_REDIS=1");
            None
        }
        None => panic!(
            "the cluster tests need redis-server on PATH (Debian: apt-get install redis-server); \
             set MCPWIRE_SKIP_REDIS=1 to skip them"
        ),
    }
}

/// Whether a Redis at `addr` answers `PING` with `+PONG`.
fn pings(addr: SocketAddr) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_millis(200)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut reply = [0u8; 7];
    stream.read_exact(&mut reply).is_ok() && &reply == b"+PONG\r\n"
}

/// A `redis-server` on a loopback port with its own directory (removed on drop),
/// append-only (`--appendonly yes`, no RDB snapshots) so that a restart keeps the data.
pub struct RedisServer {
    binary: PathBuf,
    child: Option<Child>,
    addr: SocketAddr,
    dir: PathBuf,
}

impl RedisServer {
    /// Starts one on a free port, or `None` when skipped (see [`redis_server`]).
    pub fn start() -> Option<RedisServer> {
        let binary = redis_server()?;
        let addr = free_addr();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let dir = std::env::temp_dir().join(format!(
            "mcpwire-redis-{}-{}-{nanos}",
            std::process::id(),
            addr.port()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut server = RedisServer { binary, child: None, addr, dir };
        server.run();
        Some(server)
    }

    fn run(&mut self) {
        let child = Command::new(&self.binary)
            .args(["--bind", "127.0.0.1", "--port", &self.addr.port().to_string()])
            .args(["--appendonly", "yes", "--save", "", "--protected-mode", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.binary.display()));
        self.child = Some(child);
        let deadline = Instant::now() + START_LIMIT;
        while !pings(self.addr) {
            if let Some(status) = self.child.as_mut().and_then(|c| c.try_wait().unwrap()) {
                panic!("redis-server on {} exited early with {status}", self.addr);
            }
            assert!(
                Instant::now() < deadline,
                "redis-server did not answer on {} within {START_LIMIT:?}",
                self.addr
            );
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// `redis://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("redis://{}", self.addr)
    }

    /// Kills it (SIGKILL: whatever it wrote to its append-only file stays).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port and directory, and waits until it answers.
    pub fn restart(&mut self) {
        self.stop();
        self.run();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One `everything-server --http 127.0.0.1:0 --redis URL`; killed on drop.
pub struct Instance {
    child: Child,
    addr: SocketAddr,
    stderr: Arc<Mutex<String>>,
}

impl Instance {
    /// Starts one and waits until it prints `everything-server: serving at http://ADDR/mcp`.
    pub fn start(redis_url: &str) -> Instance {
        let mut child = Command::new(env!("CARGO_BIN_EXE_everything-server"))
            .args(["--http", "127.0.0.1:0", "--redis", redis_url])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start everything-server");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let pipe = child.stderr.take().expect("piped stderr");
        let sink = stderr.clone();
        thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.strip_prefix("everything-server: serving at http://") {
                    let _ = tx.send(rest.trim_end_matches("/mcp").parse::<SocketAddr>().ok());
                }
                let mut text = sink.lock().unwrap_or_else(|e| e.into_inner());
                // Keep the last part only: the logs of a long run must not grow without bound.
                if text.len() > 64 * 1024 {
                    text.drain(..32 * 1024);
                }
                text.push_str(&line);
                text.push('\n');
            }
        });
        let addr = rx.recv_timeout(START_LIMIT).ok().flatten();
        let Some(addr) = addr else {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "everything-server --redis {redis_url} printed no URL within {START_LIMIT:?}\n--- stderr:\n{}",
                stderr.lock().unwrap()
            );
        };
        Instance { child, addr, stderr }
    }

    /// Its address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its endpoint, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Kills it with SIGKILL: no goodbye to the cluster, its heartbeat just stops.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Whether the process still runs (it was never restarted).
    pub fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    /// What it wrote to stderr lately.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Redis, `n` instances and a balancer in front of them.
pub struct Cluster {
    /// The Redis they share.
    pub redis: RedisServer,
    /// The instances, in the balancer's order.
    pub instances: Vec<Instance>,
    /// The load balancer.
    pub balancer: Balancer,
}

impl Cluster {
    /// Starts it, or `None` when skipped (see [`redis_server`]).
    pub async fn start(n: usize) -> Option<Cluster> {
        let redis = RedisServer::start()?;
        let url = redis.url();
        let instances = tokio::task::spawn_blocking(move || {
            let handles: Vec<_> = (0..n)
                .map(|_| {
                    thread::spawn({
                        let url = url.clone();
                        move || Instance::start(&url)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
        })
        .await
        .unwrap();
        let balancer = Balancer::start(instances.iter().map(Instance::addr).collect()).await;
        Some(Cluster { redis, instances, balancer })
    }

    /// The balancer's endpoint, `http://LB/mcp`.
    pub fn url(&self) -> String {
        self.balancer.url()
    }

    /// Every instance's stderr, for failure messages.
    pub fn logs(&self) -> String {
        self.instances.iter().enumerate().map(|(i, s)| format!("--- instance {i}:\n{}", s.stderr())).collect()
    }
}

/// One request the balancer passed on.
#[derive(Clone, Debug)]
pub struct Routed {
    /// The index of the backend that answered.
    pub backend: usize,
    /// `GET`, `POST`, `DELETE`.
    pub method: String,
    /// The request body, as text.
    pub body: String,
    /// The backend's status.
    pub status: u16,
}

struct BalancerState {
    backends: Vec<SocketAddr>,
    next: AtomicUsize,
    served: Vec<AtomicU64>,
    refused: AtomicU64,
    log: Mutex<Vec<Routed>>,
    http: HyperClient<HttpConnector, Full<Bytes>>,
}

/// A round-robin HTTP load balancer: each request goes to the next backend (no
/// stickiness of any kind); a backend that refuses the connection is skipped and the
/// request, buffered, goes to the next one. Stops when dropped.
pub struct Balancer {
    addr: SocketAddr,
    state: Arc<BalancerState>,
    task: JoinHandle<()>,
}

type LbBody = Either<Incoming, Full<Bytes>>;

impl Balancer {
    /// Starts one in front of `backends` on a free loopback port.
    pub async fn start(backends: Vec<SocketAddr>) -> Balancer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let http = HyperClient::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(5))
            .pool_max_idle_per_host(32)
            .build(connector());
        let state = Arc::new(BalancerState {
            served: backends.iter().map(|_| AtomicU64::new(0)).collect(),
            backends,
            next: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
            log: Mutex::new(Vec::new()),
            http,
        });
        let shared = state.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let _ = stream.set_nodelay(true);
                let state = shared.clone();
                let service = service_fn(move |request| route(request, state.clone()));
                tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Balancer { addr, state, task }
    }

    /// `http://LB/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// How many requests each backend answered.
    pub fn served(&self) -> Vec<u64> {
        self.state.served.iter().map(|n| n.load(Ordering::SeqCst)).collect()
    }

    /// How many connection attempts were refused (and passed to the next backend).
    pub fn refused(&self) -> u64 {
        self.state.refused.load(Ordering::SeqCst)
    }

    /// The requests passed on so far (the first [`MAX_LOG`]), in the order their
    /// answers began.
    pub fn log(&self) -> Vec<Routed> {
        self.state.log.lock().unwrap().clone()
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn plain(status: StatusCode, text: &str) -> Response<LbBody> {
    let mut response = Response::new(Either::Right(Full::new(Bytes::from(text.to_owned()))));
    *response.status_mut() = status;
    response
}

async fn route(
    request: Request<Incoming>,
    state: Arc<BalancerState>,
) -> Result<Response<LbBody>, Infallible> {
    let (parts, body) = request.into_parts();
    let Ok(body) = Limited::new(body, MAX_REQUEST_BYTES).collect().await.map(|c| c.to_bytes()) else {
        return Ok(plain(StatusCode::BAD_REQUEST, "unreadable request body"));
    };
    let path = parts.uri.path_and_query().map(|p| p.to_string()).unwrap_or_else(|| "/".into());
    for _ in 0..state.backends.len() {
        let index = state.next.fetch_add(1, Ordering::SeqCst) % state.backends.len();
        let mut outgoing = Request::builder()
            .method(parts.method.clone())
            .uri(format!("http://{}{path}", state.backends[index]));
        for (name, value) in &parts.headers {
            if name != http::header::HOST {
                outgoing = outgoing.header(name, value);
            }
        }
        let Ok(outgoing) = outgoing.body(Full::new(body.clone())) else {
            return Ok(plain(StatusCode::BAD_REQUEST, "unroutable request"));
        };
        match state.http.request(outgoing).await {
            Ok(response) => {
                state.served[index].fetch_add(1, Ordering::SeqCst);
                let mut log = state.log.lock().unwrap();
                if log.len() < MAX_LOG {
                    log.push(Routed {
                        backend: index,
                        method: parts.method.to_string(),
                        body: String::from_utf8_lossy(&body).into_owned(),
                        status: response.status().as_u16(),
                    });
                }
                return Ok(response.map(Either::Left));
            }
            Err(e) if e.is_connect() => {
                state.refused.fetch_add(1, Ordering::SeqCst);
            }
            Err(e) => return Ok(plain(StatusCode::BAD_GATEWAY, &format!("backend failed: {e}"))),
        }
    }
    Ok(plain(StatusCode::BAD_GATEWAY, "every backend refused the connection"))
}

/// A raw HTTP client for the tests that need exact control of the wire.
#[derive(Clone)]
pub struct Raw {
    http: HyperClient<HttpConnector, Full<Bytes>>,
}

impl Default for Raw {
    fn default() -> Self {
        Raw { http: HyperClient::builder(TokioExecutor::new()).build(connector()) }
    }
}

/// A connector with `TCP_NODELAY`: without it a response or request written in pieces
/// waits for the peer's delayed ACK (tens of milliseconds on loopback).
fn connector() -> HttpConnector {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector
}

/// A whole answer: status, headers and the JSON-RPC messages of its body (a JSON body
/// or every `data` of an SSE body).
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The headers.
    pub headers: HeaderMap,
    /// The JSON-RPC messages.
    pub messages: Vec<Value>,
    /// The raw body.
    pub body: String,
}

impl Answer {
    /// The response (result or error) to request `id`.
    pub fn response(&self, id: &Value) -> Option<&Value> {
        self.messages.iter().find(|m| m.get("id") == Some(id) && m.get("method").is_none())
    }
}

/// The `_meta` envelope of a 2026 request.
pub fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "cluster-test", "version": "0.0.1" }
    })
}

/// The text of the first content block of a `tools/call` response, or why there is none.
pub fn call_text(response: Option<&Value>) -> Result<String, String> {
    let response = response.ok_or("no response")?;
    if let Some(error) = response.get("error") {
        return Err(format!("error {error}"));
    }
    response["result"]["content"][0]["text"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no text in {response}"))
}

impl Raw {
    /// Sends a request; an error when it cannot be sent or its head takes longer than
    /// [`EXCHANGE_LIMIT`].
    pub async fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Result<Response<Incoming>, String> {
        let mut request = Request::builder()
            .method(method)
            .uri(url)
            .header("accept", "application/json, text/event-stream");
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let body = body.map(|b| Bytes::from(b.to_string())).unwrap_or_default();
        let request = request.body(Full::new(body)).map_err(|e| e.to_string())?;
        match tokio::time::timeout(EXCHANGE_LIMIT, self.http.request(request)).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(format!("{method} {url}: {e}")),
            Err(_) => Err(format!("{method} {url}: no answer within {EXCHANGE_LIMIT:?}")),
        }
    }

    /// POSTs `message` and reads the whole answer (within [`EXCHANGE_LIMIT`]).
    pub async fn post(&self, url: &str, headers: &[(&str, &str)], message: &Value) -> Result<Answer, String> {
        let started = Instant::now();
        let method = "POST";
        let response = self.send(method, url, headers, Some(message)).await?;
        let (parts, body) = response.into_parts();
        let rest = EXCHANGE_LIMIT.saturating_sub(started.elapsed());
        let bytes = match tokio::time::timeout(rest, body.collect()).await {
            Ok(Ok(c)) => c.to_bytes(),
            Ok(Err(e)) => return Err(format!("{method} {url}: the body broke: {e}")),
            Err(_) => return Err(format!("{method} {url}: the body did not end within {EXCHANGE_LIMIT:?}")),
        };
        let body = String::from_utf8_lossy(&bytes).into_owned();
        let sse = parts
            .headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let messages = if sse {
            parse_sse(&body).into_iter().filter_map(|e| serde_json::from_str(&e.data).ok()).collect()
        } else {
            match serde_json::from_str::<Value>(&body) {
                Ok(Value::Array(items)) => items,
                Ok(value) => vec![value],
                Err(_) => Vec::new(),
            }
        };
        Ok(Answer { status: parts.status.as_u16(), headers: parts.headers, messages, body })
    }

    /// A 2026 stateless `tools/call` of `tool` with request id `id`.
    pub async fn call_2026(
        &self,
        url: &str,
        id: u64,
        tool: &str,
        arguments: Value,
    ) -> Result<Answer, String> {
        let body = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments, "_meta": meta_2026() }
        });
        let headers =
            [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", tool)];
        self.post(url, &headers, &body).await
    }

    /// Starts a 2025-11-25 session at `url` (`initialize`, then `notifications/initialized`)
    /// with the elicitation capability.
    pub async fn session(&self, url: &str) -> Result<Session, String> {
        let init = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": { "elicitation": { "form": {} } },
                "clientInfo": { "name": "cluster-test", "version": "0.0.1" }
            }
        });
        let answer = self.post(url, &[], &init).await?;
        let id = answer
            .headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| format!("initialize gave no session ({}): {}", answer.status, answer.body))?
            .to_owned();
        let session = Session { raw: self.clone(), url: url.to_owned(), id };
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        let answer = session.post(&initialized).await?;
        if answer.status != 202 {
            return Err(format!("notifications/initialized got {}: {}", answer.status, answer.body));
        }
        Ok(session)
    }
}

/// A raw 2025-11-25 session.
#[derive(Clone)]
pub struct Session {
    raw: Raw,
    /// Where its requests go.
    pub url: String,
    /// Its `Mcp-Session-Id`.
    pub id: String,
}

impl Session {
    /// The session's headers.
    fn headers(&self) -> [(&str, &str); 2] {
        [("mcp-session-id", self.id.as_str()), ("mcp-protocol-version", "2025-11-25")]
    }

    /// The same session reached at `url` instead.
    pub fn at(&self, url: &str) -> Session {
        Session { url: url.to_owned(), ..self.clone() }
    }

    /// POSTs `message` on the session and reads the whole answer.
    pub async fn post(&self, message: &Value) -> Result<Answer, String> {
        self.raw.post(&self.url, &self.headers(), message).await
    }

    /// `tools/call` of `tool` with request id `id`.
    pub async fn call(&self, id: u64, tool: &str, arguments: Value) -> Result<Answer, String> {
        self.post(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments }
        }))
        .await
    }

    /// Opens a stream on the session: a POST of `message`, or a GET (with `Last-Event-ID`
    /// when given) when `message` is `None`, at `url`.
    pub async fn open(
        &self,
        url: &str,
        message: Option<&Value>,
        last_event_id: Option<&str>,
    ) -> Result<(u16, SseReader), String> {
        let mut headers = self.headers().to_vec();
        if let Some(id) = last_event_id {
            headers.push(("last-event-id", id));
        }
        let method = if message.is_some() { "POST" } else { "GET" };
        let response = self.raw.send(method, url, &headers, message).await?;
        let status = response.status().as_u16();
        Ok((status, SseReader { body: response.into_body(), buffer: Vec::new() }))
    }
}

/// One SSE event.
#[derive(Clone, Debug, Default)]
pub struct SseEvent {
    /// Its `id`, if any.
    pub id: Option<String>,
    /// Its `data` lines, joined.
    pub data: String,
}

impl SseEvent {
    /// Its data as JSON (`Null` for an empty or non-JSON data).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
}

/// Every complete event in `text` (LF or CRLF line ends).
pub fn parse_sse(text: &str) -> Vec<SseEvent> {
    let text = text.replace("\r\n", "\n");
    let mut events = Vec::new();
    for block in text.split("\n\n") {
        let mut event = SseEvent::default();
        let mut any = false;
        for line in block.lines() {
            if let Some(id) = line.strip_prefix("id:") {
                event.id = Some(id.trim().to_owned());
                any = true;
            } else if let Some(data) = line.strip_prefix("data:") {
                if !event.data.is_empty() {
                    event.data.push('\n');
                }
                event.data.push_str(data.strip_prefix(' ').unwrap_or(data));
                any = true;
            }
        }
        if any {
            events.push(event);
        }
    }
    events
}

/// An SSE body read event by event.
pub struct SseReader {
    body: Incoming,
    buffer: Vec<u8>,
}

impl SseReader {
    /// The next event, or `None` when the body ended, broke or `limit` passed first.
    pub async fn next(&mut self, limit: Duration) -> Option<SseEvent> {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let text = String::from_utf8_lossy(&self.buffer).replace("\r\n", "\n");
            if let Some(end) = text.find("\n\n") {
                let block = text[..end + 2].to_owned();
                self.buffer = text.as_bytes()[end + 2..].to_vec();
                match parse_sse(&block).pop() {
                    Some(event) => return Some(event),
                    None => continue,
                }
            }
            let frame = tokio::time::timeout_at(deadline, self.body.frame()).await.ok()??.ok()?;
            if let Ok(data) = frame.into_data() {
                self.buffer.extend_from_slice(&data);
            }
        }
    }
}
