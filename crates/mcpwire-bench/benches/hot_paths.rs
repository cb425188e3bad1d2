//! criterion micro-benchmarks of mcpwire's hot paths for one `tools/call echo`:
//! frame decode, `tools/call` params and argument decode, the 2026 `_meta` envelope's
//! read, result encode, one request through a `Dispatcher` over the in-memory transport,
//! and one request through `McpService::handle` (no sockets) in both eras. The SSE
//! encoder is library-internal: `http_handle/session_2025_sse` measures it where it runs.
//!
//! Run: `cargo bench -p mcpwire-bench --bench hot_paths` (add `-- --quick` for a short run).

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::io::Write as _;
use std::time::{Duration, Instant};

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use http_body_util::{BodyExt, Full};
use mcpwire::protocol::{
    decode_frame, CallToolRequestParams, CallToolResult, Frame, Message, RequestId, Response,
};
use mcpwire::transport::{Outgoing, TransportEvent};
use mcpwire_examples::echo::EchoArgs;

/// The protocol era of the requests.
#[derive(Clone, Copy, PartialEq)]
enum Protocol {
    V2025,
    V2026,
}

/// The 2025 `initialize` request (id 0).
const INITIALIZE: &str = concat!(
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","#,
    r#""capabilities":{},"clientInfo":{"name":"hot-paths","version":"0"}}}"#
);

/// The `notifications/initialized` notification.
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `tools/call echo {"text":"hello"}` in one era, split around its id so that writing one
/// in a timed loop costs two copies and the id's digits (2026-07-28: the `_meta` envelope).
struct EchoCall {
    tail: &'static str,
}

impl EchoCall {
    const HEAD: &'static str = r#"{"jsonrpc":"2.0","id":"#;

    fn new(protocol: Protocol) -> EchoCall {
        let tail = match protocol {
            Protocol::V2025 => {
                r#","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#
            }
            Protocol::V2026 => concat!(
                r#","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"#,
                r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
                r#""io.modelcontextprotocol/clientCapabilities":{},"#,
                r#""io.modelcontextprotocol/clientInfo":{"name":"hot-paths","version":"0"}}}}"#
            ),
        };
        EchoCall { tail }
    }

    /// Appends the request with `id` to `out`.
    fn write(&self, id: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(Self::HEAD.as_bytes());
        let _ = write!(out, "{id}");
        out.extend_from_slice(self.tail.as_bytes());
    }
}

fn request_bytes(protocol: Protocol) -> Vec<u8> {
    let mut out = Vec::new();
    EchoCall::new(protocol).write(42, &mut out);
    out
}

fn frame_decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("frame_decode");
    for (name, p) in [("tools_call_2025", Protocol::V2025), ("tools_call_2026", Protocol::V2026)] {
        let bytes = request_bytes(p);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name, |b| b.iter(|| decode_frame(black_box(&bytes)).unwrap()));
    }
    g.finish();
}

fn params(bytes: &[u8]) -> Box<serde_json::value::RawValue> {
    match decode_frame(bytes).unwrap() {
        Frame::Single(Message::Request(r)) => r.params.unwrap(),
        _ => panic!("not a request"),
    }
}

fn arguments_decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("tools_call_decode");
    for (name, p) in [("2025", Protocol::V2025), ("2026", Protocol::V2026)] {
        let raw = params(&request_bytes(p));
        g.bench_function(format!("params_{name}"), |b| {
            b.iter(|| serde_json::from_str::<CallToolRequestParams>(black_box(raw.get())).unwrap())
        });
    }
    let args = r#"{"text":"hello"}"#;
    // What mcpwire's `Args<T>` extractor does (serde_path_to_error, for field-naming
    // messages), next to plain serde_json.
    g.bench_function("args_path_to_error", |b| {
        b.iter(|| {
            let mut de = serde_json::Deserializer::from_str(black_box(args));
            serde_path_to_error::deserialize::<_, EchoArgs>(&mut de).unwrap()
        })
    });
    g.bench_function("args_plain_serde", |b| {
        b.iter(|| serde_json::from_str::<EchoArgs>(black_box(args)).unwrap())
    });
    g.finish();
}

/// A 2026 request's `_meta` envelope as the bench client sends it (`{}` capabilities) and
/// as a client with callbacks sends it (roots, sampling with tools, both elicitation modes,
/// the tasks extension, an identity with a title).
fn envelope_read(c: &mut Criterion) {
    use mcpwire::protocol::lifecycle::RequestEnvelope;
    let mut g = c.benchmark_group("envelope_read");
    let bare = request_bytes(Protocol::V2026);
    let real = concat!(
        r#"{"name":"echo","arguments":{"text":"hello"},"_meta":{"#,
        r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
        r#""io.modelcontextprotocol/clientCapabilities":{"roots":{},"sampling":{"tools":{}},"#,
        r#""elicitation":{"form":{},"url":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}},"#,
        r#""io.modelcontextprotocol/clientInfo":{"name":"desktop-app","title":"Desktop App","version":"1.4.2"}}}"#
    );
    for (name, params) in
        [("empty_capabilities", params(&bare).get().to_owned()), ("real_client", real.to_owned())]
    {
        assert!(RequestEnvelope::from_params_text(&params).is_some());
        g.bench_function(name, |b| b.iter(|| RequestEnvelope::from_params_text(black_box(&params)).unwrap()));
    }
    g.finish();
}

fn result_encode(c: &mut Criterion) {
    let mut g = c.benchmark_group("result_encode");
    g.bench_function("call_tool_result_to_raw", |b| {
        b.iter(|| serde_json::value::to_raw_value(&CallToolResult::text(black_box("hello"))).unwrap())
    });
    let raw = serde_json::value::to_raw_value(&CallToolResult::text("hello")).unwrap();
    let message = Message::Response(Response::new(RequestId::from(42), raw));
    let mut buf = Vec::with_capacity(256);
    g.bench_function("response_message_write_to", |b| {
        b.iter(|| {
            buf.clear();
            black_box(&message).write_to(&mut buf);
            black_box(buf.len())
        })
    });
    g.finish();
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn decode_request(bytes: &[u8]) -> Message {
    match decode_frame(bytes).unwrap() {
        Frame::Single(m) => m,
        _ => panic!("not a single message"),
    }
}

fn dispatch(c: &mut Criterion) {
    let mut g = c.benchmark_group("dispatch_memory");
    for (name, p) in [("tools_call_2025", Protocol::V2025), ("tools_call_2026", Protocol::V2026)] {
        let rt = runtime();
        let server = mcpwire_examples::echo::server().unwrap();
        // The pair spawns its forwarding tasks: it needs the runtime's context.
        let _guard = rt.enter();
        let (mut client, server_end) = mcpwire::transport::memory::pair();
        rt.spawn(async move { server.serve(server_end).await });
        let call = EchoCall::new(p);
        rt.block_on(async {
            if p == Protocol::V2025 {
                let init = decode_request(INITIALIZE.as_bytes());
                client.outgoing.send(Outgoing::unrelated(init)).await.unwrap();
                client.incoming.recv().await.unwrap();
                let done = decode_request(INITIALIZED.as_bytes());
                client.outgoing.send(Outgoing::unrelated(done)).await.unwrap();
            }
        });
        let mut next_id = 1u64;
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                // Requests are decoded outside the timed part: this is the dispatch alone.
                let requests: Vec<Message> = (0..iters)
                    .map(|i| {
                        let mut bytes = Vec::new();
                        call.write(next_id + i, &mut bytes);
                        decode_request(&bytes)
                    })
                    .collect();
                next_id += iters;
                rt.block_on(async {
                    let start = Instant::now();
                    for request in requests {
                        client.outgoing.send(Outgoing::unrelated(request)).await.unwrap();
                        match client.incoming.recv().await {
                            Some(TransportEvent::Message(inbound))
                                if matches!(inbound.message, Message::Response(_)) =>
                            {
                                black_box(inbound);
                            }
                            other => panic!("unexpected {other:?}"),
                        }
                    }
                    start.elapsed()
                })
            })
        });
    }
    g.finish();
}

fn http_handle(c: &mut Criterion) {
    use mcpwire::http::{HttpSettings, McpService};
    let mut g = c.benchmark_group("http_handle");
    let rt = runtime();
    let server = mcpwire_examples::echo::server().unwrap();

    fn post(body: Vec<u8>, headers: &[(&str, &str)]) -> http::Request<Full<Bytes>> {
        let mut b = http::Request::builder()
            .method("POST")
            .uri("http://127.0.0.1/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(Full::new(Bytes::from(body))).unwrap()
    }

    // 2026 stateless, JSON.
    let service = McpService::with_settings(
        server.clone(),
        HttpSettings { sessionless: true, json_response: true, ..HttpSettings::default() },
    );
    let call = EchoCall::new(Protocol::V2026);
    let headers =
        [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "echo")];
    g.bench_function("stateless_2026_json", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for i in 0..iters {
                    let mut body = Vec::new();
                    call.write(i + 1, &mut body);
                    let response = service.handle(post(body, &headers)).await;
                    let bytes = response.into_body().collect().await.unwrap().to_bytes();
                    black_box(bytes);
                }
                start.elapsed()
            })
        })
    });

    // 2025 session, SSE response.
    let service = McpService::new(server);
    let session = rt.block_on(async {
        let response = service.handle(post(INITIALIZE.as_bytes().to_vec(), &[])).await;
        let sid = response.headers().get("mcp-session-id").unwrap().to_str().unwrap().to_owned();
        let _ = response.into_body().collect().await;
        let headers = [("mcp-protocol-version", "2025-11-25"), ("mcp-session-id", sid.as_str())];
        let r = service.handle(post(INITIALIZED.as_bytes().to_vec(), &headers)).await;
        let _ = r.into_body().collect().await;
        sid
    });
    let call = EchoCall::new(Protocol::V2025);
    let headers = [("mcp-protocol-version", "2025-11-25"), ("mcp-session-id", session.as_str())];
    let mut next_id = 1u64;
    g.bench_function("session_2025_sse", |b| {
        b.iter_custom(|iters| {
            let first = next_id;
            next_id += iters;
            rt.block_on(async {
                let start = Instant::now();
                for i in 0..iters {
                    let mut body = Vec::new();
                    call.write(first + i, &mut body);
                    let response = service.handle(post(body, &headers)).await;
                    let bytes = response.into_body().collect().await.unwrap().to_bytes();
                    black_box(bytes);
                }
                start.elapsed()
            })
        })
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = hot_paths;
    config = config();
    targets = frame_decode, arguments_decode, envelope_read, result_encode, dispatch, http_handle
}
criterion_main!(hot_paths);
