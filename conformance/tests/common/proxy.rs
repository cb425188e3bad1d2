//! A recording HTTP proxy for loopback tests: it forwards every request to one upstream
//! server, records what the client sent (method, path, the MCP headers, the body) and the
//! status it got, and can kill one SSE response right after its first event that
//! carries data, the way a dropped connection would (the response ends with an error,
//! not with a clean end of stream).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use std::future::Future;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body::{Body, Frame};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// The largest request body the proxy forwards.
const MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// One request as the upstream server saw it, and its answer's status.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// `GET`, `POST`, `DELETE`...
    pub method: String,
    /// The path and query.
    pub path: String,
    /// `Mcp-Session-Id`.
    pub session: Option<String>,
    /// `Last-Event-ID`.
    pub last_event_id: Option<String>,
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<String>,
    /// `Mcp-Method` (2026).
    pub mcp_method: Option<String>,
    /// The request body, as text.
    pub body: String,
    /// The upstream's status (502 when it could not be reached).
    pub status: u16,
}

impl Recorded {
    /// Whether this is a POST of a JSON-RPC message with this `method`.
    pub fn posts(&self, method: &str) -> bool {
        self.method == "POST" && self.body.contains(&format!("\"method\":\"{method}\""))
    }
}

#[derive(Default)]
struct State {
    log: Mutex<Vec<Recorded>>,
    /// Response bodies still being passed to the client (an SSE stream stays open).
    open_bodies: AtomicUsize,
    /// A POST whose body contains this gets its SSE response cut.
    cut_next: Mutex<Option<String>>,
}

/// The proxy; stops when dropped.
pub struct Proxy {
    addr: SocketAddr,
    upstream: SocketAddr,
    state: Arc<State>,
    task: JoinHandle<()>,
}

impl Proxy {
    /// Starts a proxy to `upstream` on a free loopback port.
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(State::default());
        // No idle upstream connections: a restarted upstream must not meet a dead one.
        let http =
            HyperClient::builder(TokioExecutor::new()).pool_max_idle_per_host(0).build(HttpConnector::new());
        let shared = state.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (state, http) = (shared.clone(), http.clone());
                let service =
                    service_fn(move |request| forward(request, upstream, state.clone(), http.clone()));
                tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Proxy { addr, upstream, state, task }
    }

    /// `http://PROXY{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// `http://UPSTREAM{path}`: the server itself, bypassing the proxy.
    pub fn upstream_url(&self, path: &str) -> String {
        format!("http://{}{path}", self.upstream)
    }

    /// Every request so far, in the order their answers began.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.log.lock().unwrap().clone()
    }

    /// How many responses are still streaming to the client (for example a GET SSE
    /// stream it has not let go of).
    pub fn open_streams(&self) -> usize {
        self.state.open_bodies.load(Ordering::SeqCst)
    }

    /// Kills the SSE response of the next POST whose body contains `needle` right after
    /// its first event with data.
    pub fn cut_next(&self, needle: &str) {
        *self.state.cut_next.lock().unwrap() = Some(needle.to_owned());
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Upstream = HyperClient<HttpConnector, Full<Bytes>>;

async fn forward(
    request: Request<Incoming>,
    upstream: SocketAddr,
    state: Arc<State>,
    http: Upstream,
) -> Result<Response<CutBody>, Infallible> {
    let (parts, body) = request.into_parts();
    let body =
        Limited::new(body, MAX_REQUEST_BYTES).collect().await.map(|c| c.to_bytes()).unwrap_or_default();
    let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let path = parts.uri.path_and_query().map(|p| p.to_string()).unwrap_or_else(|| "/".into());
    let text = String::from_utf8_lossy(&body).into_owned();
    let mut record = Recorded {
        method: parts.method.to_string(),
        path: path.clone(),
        session: header("mcp-session-id"),
        last_event_id: header("last-event-id"),
        protocol_version: header("mcp-protocol-version"),
        mcp_method: header("mcp-method"),
        body: text.clone(),
        status: 502,
    };
    let cut = {
        let mut next = state.cut_next.lock().unwrap();
        let hit = record.method == "POST" && next.as_deref().is_some_and(|n| text.contains(n));
        if hit {
            next.take();
        }
        hit
    };
    let mut outgoing = Request::builder().method(parts.method).uri(format!("http://{upstream}{path}"));
    for (name, value) in &parts.headers {
        outgoing = outgoing.header(name, value);
    }
    let Ok(outgoing) = outgoing.body(Full::new(body)) else {
        state.log.lock().unwrap().push(record);
        return Ok(CutBody::empty(StatusCode::BAD_GATEWAY));
    };
    match http.request(outgoing).await {
        Ok(response) => {
            record.status = response.status().as_u16();
            state.log.lock().unwrap().push(record);
            let (parts, body) = response.into_parts();
            state.open_bodies.fetch_add(1, Ordering::SeqCst);
            let body =
                CutBody { inner: Some(body), armed: cut, seen: Vec::new(), dying: None, open: Some(state) };
            Ok(Response::from_parts(parts, body))
        }
        Err(_) => {
            state.log.lock().unwrap().push(record);
            Ok(CutBody::empty(StatusCode::BAD_GATEWAY))
        }
    }
}

/// An upstream body passed through, or (when armed) ended with an error right after its
/// first SSE event with data.
pub struct CutBody {
    inner: Option<Incoming>,
    armed: bool,
    /// What passed so far (only while armed).
    seen: Vec<u8>,
    /// Set once the cut point passed: the error comes when it fires. The pause lets
    /// hyper flush what was passed first (it drops buffered bytes on a body error).
    dying: Option<Pin<Box<tokio::time::Sleep>>>,
    /// Counted in [`State::open_bodies`] until dropped.
    open: Option<Arc<State>>,
}

impl Drop for CutBody {
    fn drop(&mut self) {
        if let Some(state) = &self.open {
            state.open_bodies.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

impl CutBody {
    fn empty(status: StatusCode) -> Response<CutBody> {
        let mut response =
            Response::new(CutBody { inner: None, armed: false, seen: Vec::new(), dying: None, open: None });
        *response.status_mut() = status;
        response
    }
}

/// The end (exclusive) of the first complete SSE event in `buffer` with a non-empty
/// `data` line. Lines end with CRLF, LF or CR (servers differ: sse-starlette writes
/// CRLF); an empty line ends an event.
pub fn first_data_event_end(buffer: &[u8]) -> Option<usize> {
    let mut line_start = 0;
    let mut has_data = false;
    let mut i = 0;
    while i < buffer.len() {
        let end_of_line = match buffer[i] {
            b'\n' => i + 1,
            b'\r' if buffer.get(i + 1) == Some(&b'\n') => i + 2,
            // A lone CR at the very end may be the first half of a CRLF: wait for more.
            b'\r' if i + 1 == buffer.len() => return None,
            b'\r' => i + 1,
            _ => {
                i += 1;
                continue;
            }
        };
        let line = &buffer[line_start..i];
        if line.is_empty() {
            if has_data {
                return Some(end_of_line);
            }
        } else if let Some(data) = line.strip_prefix(b"data:") {
            has_data |= data.iter().any(|b| !b.is_ascii_whitespace());
        }
        line_start = end_of_line;
        i = end_of_line;
    }
    None
}

impl Body for CutBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Some(dying) = self.dying.as_mut() {
            return match dying.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Some(Err("the test proxy killed this stream".into()))),
                Poll::Pending => Poll::Pending,
            };
        }
        let Some(inner) = self.inner.as_mut() else { return Poll::Ready(None) };
        let frame = match Pin::new(inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => frame,
            Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e.into()))),
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => return Poll::Pending,
        };
        if !self.armed {
            return Poll::Ready(Some(Ok(frame)));
        }
        let Ok(data) = frame.into_data() else { return Poll::Ready(Some(Ok(Frame::data(Bytes::new())))) };
        let before = self.seen.len();
        self.seen.extend_from_slice(&data);
        match first_data_event_end(&self.seen) {
            Some(end) => {
                self.dying = Some(Box::pin(tokio::time::sleep(Duration::from_millis(100))));
                Poll::Ready(Some(Ok(Frame::data(data.slice(..end - before)))))
            }
            None => Poll::Ready(Some(Ok(Frame::data(data)))),
        }
    }
}

/// Sends a bodiless 2025 request (`DELETE` or `GET`) for `session` straight to `url`, as
/// another party would (not through the client); returns the status.
pub async fn send_bare(method: &str, url: &str, session: &str) -> u16 {
    let http = HyperClient::builder(TokioExecutor::new()).build_http::<http_body_util::Empty<Bytes>>();
    let request = Request::builder()
        .method(method)
        .uri(url)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("accept", "application/json, text/event-stream")
        .body(http_body_util::Empty::new())
        .unwrap();
    let response = http.request(request).await.unwrap();
    let status = response.status().as_u16();
    let _ = response.into_body().collect().await;
    status
}
