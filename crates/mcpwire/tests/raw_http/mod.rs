//! A tiny HTTP/1.1 client over `tokio::net::TcpStream` for the HTTP server tests: one
//! request per connection, exact statuses and headers, bodies read by `Content-Length`,
//! chunked or until close, and Server-Sent Events read one event at a time. It writes
//! exactly what a test asks for (no header is added besides `Host` and the body
//! framing), so malformed or hostile requests are easy to send.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long a test waits for any one read before failing.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// One request to send.
#[derive(Clone, Debug)]
pub struct Req {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`.
    pub chunked: bool,
    /// Send this `Host` instead of the server's address (`None`: the address).
    pub host: Option<String>,
}

impl Req {
    pub fn new(method: &str) -> Req {
        Req {
            method: method.into(),
            path: "/mcp".into(),
            headers: Vec::new(),
            body: Vec::new(),
            chunked: false,
            host: None,
        }
    }

    /// A POST with JSON content type and `Accept` listing both types.
    pub fn post(body: &Value) -> Req {
        Req::post_bytes(serde_json::to_vec(body).unwrap())
    }

    /// A POST like [`Req::post`] whose body is these bytes as they are (malformed JSON
    /// included).
    pub fn post_bytes(body: impl Into<Vec<u8>>) -> Req {
        Req::new("POST")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.into())
    }

    pub fn header(mut self, name: &str, value: &str) -> Req {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Adds each of `headers`, in order.
    pub fn with_headers(self, headers: &[(&str, &str)]) -> Req {
        headers.iter().fold(self, |req, (name, value)| req.header(name, value))
    }

    /// Removes every header of that name.
    pub fn without(mut self, name: &str) -> Req {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// Replaces the headers of that name with one value.
    pub fn set(self, name: &str, value: &str) -> Req {
        self.without(name).header(name, value)
    }

    pub fn body(mut self, body: Vec<u8>) -> Req {
        self.body = body;
        self
    }

    pub fn chunked(mut self) -> Req {
        self.chunked = true;
        self
    }

    pub fn host(mut self, host: &str) -> Req {
        self.host = Some(host.into());
        self
    }

    /// Whether the test set the body's framing itself (`Content-Length` or
    /// `Transfer-Encoding`, to announce a body it never sends or sends by hand).
    fn frames_itself(&self) -> bool {
        self.headers.iter().any(|(n, _)| {
            n.eq_ignore_ascii_case("content-length") || n.eq_ignore_ascii_case("transfer-encoding")
        })
    }

    /// The request as it goes on the wire to `addr`.
    pub fn encode(&self, addr: SocketAddr) -> Vec<u8> {
        let host = self.host.clone().unwrap_or_else(|| addr.to_string());
        let mut head = format!("{} {} HTTP/1.1\r\nhost: {host}\r\n", self.method, self.path);
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        let mut out;
        if self.chunked {
            head.push_str("transfer-encoding: chunked\r\n\r\n");
            out = head.into_bytes();
            for piece in self.body.chunks(8192) {
                out.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
                out.extend_from_slice(piece);
                out.extend_from_slice(b"\r\n");
            }
            out.extend_from_slice(b"0\r\n\r\n");
        } else {
            if !self.frames_itself() && (!self.body.is_empty() || self.method == "POST") {
                head.push_str(&format!("content-length: {}\r\n", self.body.len()));
            }
            head.push_str("\r\n");
            out = head.into_bytes();
            out.extend_from_slice(&self.body);
        }
        out
    }
}

/// Sends a request on a new connection and returns the connection without reading
/// anything (dropping it closes the connection).
pub async fn send_only(addr: SocketAddr, req: Req) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.expect("connect to the test server");
    stream.write_all(&req.encode(addr)).await.unwrap();
    stream
}

/// Sends a request on a new connection and reads the response head. The write happens
/// on its own task, so a server that answers before reading the whole body (413) is
/// seen as it answers.
pub async fn send(addr: SocketAddr, req: Req) -> Response {
    let stream = TcpStream::connect(addr).await.expect("connect to the test server");
    stream.set_nodelay(true).unwrap();
    let (read, mut write) = stream.into_split();
    let bytes = req.encode(addr);
    let writer = tokio::spawn(async move {
        // Errors are expected when the server closes early (e.g. after a 413).
        let _ = write.write_all(&bytes).await;
        let _ = write.flush().await;
        write
    });
    read_head(read, writer).await
}

/// Reads the response to what the test wrote on `stream` itself (after [`send_only`]).
pub async fn read_response(stream: TcpStream) -> Response {
    let (read, write) = stream.into_split();
    read_head(read, tokio::spawn(async move { write })).await
}

/// Reads a response head from `read`; `writer` is the task holding the write half, kept
/// with the response so that the connection stays open while the body is read.
async fn read_head(
    mut read: tokio::net::tcp::OwnedReadHalf,
    writer: tokio::task::JoinHandle<tokio::net::tcp::OwnedWriteHalf>,
) -> Response {
    let mut buf = Vec::new();
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i;
        }
        let mut chunk = [0u8; 8192];
        let n = tokio::time::timeout(READ_TIMEOUT, read.read(&mut chunk))
            .await
            .expect("timed out waiting for a response head")
            .expect("reading the response head");
        assert!(
            n > 0,
            "the connection closed before a response head; got {:?}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let rest = buf[head_end + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status code");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let find_header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    let framing = if find_header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        Framing::Chunked
    } else if let Some(len) = find_header("content-length") {
        Framing::Length(len.parse().expect("a numeric Content-Length"))
    } else {
        Framing::Close
    };
    Response {
        status,
        headers,
        body: BodyReader { read, raw: rest, framing, decoded: Vec::new(), done: false, eof: false },
        _writer: writer,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[derive(Debug)]
enum Framing {
    Length(usize),
    Chunked,
    Close,
}

/// The body side of a response: raw bytes from the socket, de-chunked on demand.
pub struct BodyReader {
    read: tokio::net::tcp::OwnedReadHalf,
    raw: Vec<u8>,
    framing: Framing,
    decoded: Vec<u8>,
    /// The body ended (its framing said so).
    done: bool,
    /// The socket reached end of file.
    eof: bool,
}

impl BodyReader {
    async fn fill(&mut self, timeout: Duration) -> bool {
        if self.eof {
            return false;
        }
        let mut chunk = vec![0u8; 64 * 1024];
        match tokio::time::timeout(timeout, self.read.read(&mut chunk)).await {
            Err(_) => false,
            Ok(Ok(0)) | Ok(Err(_)) => {
                self.eof = true;
                false
            }
            Ok(Ok(n)) => {
                self.raw.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }

    /// Moves complete framed data from `raw` to `decoded`.
    fn decode(&mut self) {
        match self.framing {
            Framing::Length(ref mut left) => {
                let n = (*left).min(self.raw.len());
                self.decoded.extend(self.raw.drain(..n));
                *left -= n;
                if *left == 0 {
                    self.done = true;
                }
            }
            Framing::Close => {
                self.decoded.append(&mut self.raw);
                if self.eof {
                    self.done = true;
                }
            }
            Framing::Chunked => loop {
                let Some(line_end) = find(&self.raw, b"\r\n") else { return };
                let size_text = String::from_utf8_lossy(&self.raw[..line_end]).into_owned();
                let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                    .unwrap_or_else(|_| panic!("bad chunk size line {size_text:?}"));
                if size == 0 {
                    self.done = true;
                    return;
                }
                if self.raw.len() < line_end + 2 + size + 2 {
                    return;
                }
                self.decoded.extend_from_slice(&self.raw[line_end + 2..line_end + 2 + size]);
                self.raw.drain(..line_end + 2 + size + 2);
            },
        }
    }

    /// Reads until the body ends (or the socket closes), within `timeout` per read.
    async fn read_to_end(&mut self, timeout: Duration) -> Vec<u8> {
        loop {
            self.decode();
            if self.done || self.eof {
                return std::mem::take(&mut self.decoded);
            }
            if !self.fill(timeout).await && !self.eof {
                panic!("timed out reading a body; so far: {:?}", String::from_utf8_lossy(&self.decoded));
            }
        }
    }
}

/// One Server-Sent Event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub id: Option<String>,
    pub retry: Option<u64>,
    pub data: String,
}

impl SseEvent {
    /// The data as JSON (panics if it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data)
            .unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {:?}", self.data))
    }
}

/// What waiting for the next event gave.
#[derive(Debug)]
pub enum Next {
    Event(SseEvent),
    /// The body ended (the server closed the stream).
    End,
    /// Nothing arrived in time.
    Timeout,
}

/// A response: status, headers, and a body to read whole or event by event.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    body: BodyReader,
    _writer: tokio::task::JoinHandle<tokio::net::tcp::OwnedWriteHalf>,
}

/// A whole body read as JSON (UTF-8 required): the test fails with the body otherwise.
fn json_of(body: Vec<u8>) -> Value {
    let text = String::from_utf8(body).expect("a UTF-8 body");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("body is not JSON ({e}): {text:?}"))
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    pub fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    pub fn is_sse(&self) -> bool {
        self.content_type().starts_with("text/event-stream")
    }

    /// The whole body.
    pub async fn bytes(mut self) -> Vec<u8> {
        self.body.read_to_end(READ_TIMEOUT).await
    }

    pub async fn text(self) -> String {
        String::from_utf8(self.bytes().await).expect("a UTF-8 body")
    }

    /// The whole body as JSON.
    pub async fn json(self) -> Value {
        json_of(self.bytes().await)
    }

    /// The next SSE event (comments are skipped), waiting at most `timeout`.
    pub async fn next_within(&mut self, timeout: Duration) -> Next {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            self.body.decode();
            if let Some(end) = find(&self.body.decoded, b"\n\n") {
                let block: Vec<u8> = self.body.decoded.drain(..end + 2).collect();
                if let Some(event) = parse_event(&String::from_utf8_lossy(&block)) {
                    return Next::Event(event);
                }
                continue;
            }
            if self.body.done || self.body.eof {
                return Next::End;
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() || (!self.body.fill(left).await && !self.body.eof) {
                return Next::Timeout;
            }
        }
    }

    /// The next SSE event; fails the test on end or timeout.
    pub async fn next_event(&mut self) -> SseEvent {
        match self.next_within(READ_TIMEOUT).await {
            Next::Event(e) => e,
            other => panic!("expected an SSE event, got {other:?}"),
        }
    }

    /// The next event that carries a JSON-RPC message (skipping priming events); for a
    /// JSON response (a request answered at once), the body.
    pub async fn next_message(&mut self) -> Value {
        if !self.is_sse() {
            return json_of(self.body.read_to_end(READ_TIMEOUT).await);
        }
        loop {
            let event = self.next_event().await;
            if !event.data.is_empty() {
                return event.json();
            }
        }
    }

    /// Every JSON-RPC message of the response, whichever way it came: the body of a JSON
    /// response, or the messages of an SSE stream's events until it ends.
    pub async fn messages_to_end(&mut self) -> Vec<Value> {
        if !self.is_sse() {
            return vec![self.next_message().await];
        }
        let events = self.events_to_end().await;
        events.iter().filter(|e| !e.data.is_empty()).map(SseEvent::json).collect()
    }

    /// Every remaining event until the stream ends (fails after `READ_TIMEOUT` of silence).
    pub async fn events_to_end(&mut self) -> Vec<SseEvent> {
        let mut out = Vec::new();
        loop {
            match self.next_within(READ_TIMEOUT).await {
                Next::Event(e) => out.push(e),
                Next::End => return out,
                Next::Timeout => panic!("the SSE stream did not end; events so far: {out:?}"),
            }
        }
    }

    /// Asserts the stream ends within `timeout`, returning the events before the end.
    pub async fn expect_end_within(&mut self, timeout: Duration) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.next_within(left).await {
                Next::Event(e) => out.push(e),
                Next::End => return out,
                Next::Timeout => panic!("the SSE stream did not end within {timeout:?}; events: {out:?}"),
            }
        }
    }

    /// The body text that arrives within `period` (de-chunked), left in place for the
    /// event readers after.
    pub async fn text_within(&mut self, period: Duration) -> String {
        let deadline = tokio::time::Instant::now() + period;
        loop {
            self.body.decode();
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() || self.body.done || self.body.eof {
                return String::from_utf8_lossy(&self.body.decoded).into_owned();
            }
            self.body.fill(left).await;
        }
    }

    /// Reads and counts body bytes until the body or the socket ends, failing after
    /// `timeout` of silence. Used to measure what a server queued for a slow reader.
    pub async fn drain_count(&mut self, timeout: Duration) -> usize {
        let mut total = self.body.decoded.len() + self.body.raw.len();
        self.body.decoded.clear();
        self.body.raw.clear();
        let mut chunk = vec![0u8; 256 * 1024];
        loop {
            match tokio::time::timeout(timeout, self.body.read.read(&mut chunk)).await {
                Err(_) => panic!("the body did not end within {timeout:?} of silence (read {total} bytes)"),
                Ok(Ok(0)) | Ok(Err(_)) => return total,
                Ok(Ok(n)) => {
                    total += n;
                    // The chunked terminator: the server ended the body.
                    if chunk[..n].ends_with(b"0\r\n\r\n") {
                        return total;
                    }
                }
            }
        }
    }
}

fn parse_event(block: &str) -> Option<SseEvent> {
    let mut event = SseEvent::default();
    let mut data: Vec<&str> = Vec::new();
    let mut any = false;
    for line in block.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() || line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        any = true;
        match field {
            "event" => event.event = Some(value.to_owned()),
            "id" => event.id = Some(value.to_owned()),
            "retry" => event.retry = value.parse().ok(),
            "data" => data.push(value),
            _ => {}
        }
    }
    event.data = data.join("\n");
    any.then_some(event)
}
