//! Hostile request bodies over Streamable HTTP, on real sockets: malformed JSON and
//! JSON-RPC get their exact status and error (duplicate members included; an id of `-0`
//! is the integer zero), chunked framing that hyper refuses (huge chunk extensions or
//! trailers, bad chunk sizes) a `400` and the end of its connection, wrong media types
//! and methods theirs; a
//! 64 MiB body is refused (announced or chunked) while the server's memory stays bounded;
//! a batch of ten thousand requests and a thousand concurrent 2026 POSTs are each answered
//! exactly once.
//!
//! The fixture server runs in this process, or in a child process where memory is
//! measured; requests are written by hand on raw TCP (`raw_http`) so that every byte is
//! ours. The other hostile HTTP files: `hostile_http_headers.rs`,
//! `hostile_http_sessions.rs`, `hostile_http_streams.rs`, `hostile_http_client.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;
mod hostile_http_support;
mod mcp_http;
mod raw_http;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;

use fixture::ChildServer;
use hostile_http_support::{
    answer, code, in_session, local, messages, open_session, post, stateless_request, V25, V26,
};
use mcpwire::http::HttpSettings;
use mcpwire::protocol::codes;
use raw_http::{read_response, send, send_only, Req};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn malformed_bodies_get_exact_statuses_and_errors() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_member = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":{deep}}}");
    // (body, status, code, id); the same with and without a session.
    let cases: Vec<(Vec<u8>, u16, i64, Value)> = vec![
        (b"not json".to_vec(), 400, codes::PARSE_ERROR, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":".to_vec(), 400, codes::PARSE_ERROR, Value::Null),
        (b"".to_vec(), 400, codes::PARSE_ERROR, Value::Null),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}".to_vec(),
            400,
            codes::PARSE_ERROR,
            Value::Null,
        ),
        (b"42".to_vec(), 400, codes::INVALID_REQUEST, Value::Null),
        (b"{\"hello\":1}".to_vec(), 400, codes::INVALID_REQUEST, Value::Null),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}".to_vec(),
            400,
            codes::INVALID_REQUEST,
            Value::Null,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}".to_vec(),
            400,
            codes::INVALID_REQUEST,
            Value::Null,
        ),
        (
            b"{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}".to_vec(),
            400,
            codes::INVALID_REQUEST,
            json!(3),
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":[1]}".to_vec(),
            400,
            codes::INVALID_REQUEST,
            json!(4),
        ),
        ("[".repeat(100_000).into_bytes(), 400, codes::PARSE_ERROR, Value::Null),
        (deep.clone().into_bytes(), 400, codes::INVALID_REQUEST, Value::Null),
    ];
    for with_session in [false, true] {
        for (body, status, expected, id) in &cases {
            let mut req = Req::post_bytes(body.clone()).header("mcp-protocol-version", V25);
            if with_session {
                req = req.header("mcp-session-id", &session);
            }
            let resp = send(addr, req).await;
            let shown = String::from_utf8_lossy(&body[..body.len().min(40)]).into_owned();
            assert_eq!(resp.status, *status, "{shown}");
            let answer = resp.json().await;
            assert_eq!(code(&answer), *expected, "{shown}: {answer}");
            assert_eq!(answer.get("id").cloned().unwrap_or(Value::Null), *id, "{shown}: {answer}");
        }
    }
    let in_the_session = |body: Vec<u8>| in_session(Req::post_bytes(body), &session, V25);
    // A deep unknown member is skipped without recursion: the request is served.
    let resp = send(addr, in_the_session(deep_member.into_bytes())).await;
    assert_eq!(answer(resp).await["result"], json!({}));
    // Deep tool arguments: a tool execution error.
    let body = format!("{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"a\":{deep}}}}}}}");
    let resp = send(addr, in_the_session(body.into_bytes())).await;
    assert_eq!(answer(resp).await["result"]["isError"], true);
    // Wrong media types and methods.
    let ping = br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#.to_vec();
    let resp = send(addr, in_the_session(ping.clone()).without("content-type")).await;
    assert_eq!(resp.status, 415);
    let resp = send(addr, in_the_session(ping.clone()).set("content-type", "text/plain")).await;
    assert_eq!(resp.status, 415);
    let resp = send(addr, in_the_session(ping.clone()).without("accept")).await;
    assert_eq!(resp.status, 406);
    let resp = send(addr, Req { method: "PUT".into(), ..in_the_session(ping) }).await;
    assert_eq!(resp.status, 405);
    assert_eq!(resp.header("allow"), Some("GET, POST, DELETE"));
    // The session survived all of it.
    let resp = post(addr, &session, &json!({ "jsonrpc": "2.0", "id": "ok", "method": "ping" })).await;
    assert_eq!(answer(resp).await["result"], json!({}));
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_64_mib_body_is_refused_and_memory_stays_bounded() {
    let server = ChildServer::start("http", &[]).await;
    let addr: SocketAddr = server.addr.as_deref().unwrap().parse().unwrap();
    let pid = server.pid();
    let (_, hwm_before) = fixture::memory_of(pid);
    // Announced: refused before a byte of it is read.
    let announced = Req::post_bytes(Vec::new()).header("content-length", &(64usize << 20).to_string());
    let resp = read_response(send_only(addr, announced).await).await;
    assert_eq!(resp.status, 413);
    assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST);
    // Chunked: counted as it comes, refused past 4 MiB.
    let chunked = Req::post_bytes(Vec::new()).header("transfer-encoding", "chunked");
    let mut stream = send_only(addr, chunked).await;
    let chunk = vec![b' '; 1 << 20];
    let header = format!("{:x}\r\n", chunk.len());
    for _ in 0..64 {
        if stream.write_all(header.as_bytes()).await.is_err()
            || stream.write_all(&chunk).await.is_err()
            || stream.write_all(b"\r\n").await.is_err()
        {
            break; // the server stopped reading and answered
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n").await;
    let resp = read_response(stream).await;
    assert_eq!(resp.status, 413);
    let (_, hwm_after) = fixture::memory_of(pid);
    let grown_mib = hwm_after.saturating_sub(hwm_before) / 1024;
    assert!(grown_mib < 32, "peak memory grew by {grown_mib} MiB for a 64 MiB body");
    // And the server goes on.
    let resp = send(addr, stateless_request(1, "tools/list", json!({}))).await;
    assert_eq!(resp.status, 200);
}

#[tokio::test]
async fn ten_thousand_requests_in_one_batch_and_a_thousand_concurrent_posts() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    // 2025-03-26 accepts batches.
    let session = open_session(addr, "2025-03-26").await;
    let batch: Vec<Value> =
        (0..10_000).map(|i| json!({ "jsonrpc": "2.0", "id": i, "method": "ping" })).collect();
    let req = Req::post(&Value::from(batch))
        .header("mcp-protocol-version", "2025-03-26")
        .header("mcp-session-id", &session);
    let resp = send(addr, req).await;
    assert_eq!(resp.status, 200);
    let mut seen: HashMap<i64, usize> = HashMap::new();
    for e in messages(resp).await {
        assert_eq!(e["result"], json!({}), "{e}");
        *seen.entry(e["id"].as_i64().unwrap()).or_default() += 1;
    }
    assert_eq!(seen.len(), 10_000);
    assert!(seen.values().all(|n| *n == 1));
    // A batch at 2025-11-25 is refused.
    let late = open_session(addr, V25).await;
    let resp = post(addr, &late, &json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }])).await;
    assert_eq!(resp.status, 400);
    assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST);
    // 1,000 2026 requests, 100 at a time (one connection each; more would only test the
    // kernel's accept queue).
    let gate = Arc::new(tokio::sync::Semaphore::new(100));
    let tasks: Vec<_> = (0..1000)
        .map(|i| {
            let gate = gate.clone();
            tokio::spawn(async move {
                let _permit = gate.acquire_owned().await.unwrap();
                let call =
                    stateless_request(i, "tools/call", json!({ "name": "echo", "arguments": { "i": i } }));
                send(addr, call).await.json().await
            })
        })
        .collect();
    for (i, t) in tasks.into_iter().enumerate() {
        let answer = t.await.unwrap();
        assert_eq!(answer["id"], i as i64);
        assert_eq!(answer["result"]["content"][0]["text"], json!({ "i": i }).to_string());
    }
    bound.shutdown.cancel();
}

/// Chunked framing hyper refuses (a chunk extension or trailers of 100 KB, a chunk size
/// that is not hex or overflows) cannot be read as a body: `400` with `-32700`, and the
/// connection ends (what follows the broken framing is never read as a request). A
/// request whose top-level members repeat is `-32600`, in both eras. The server goes on.
#[tokio::test]
async fn broken_chunked_framing_and_duplicate_members_get_exact_errors() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let list = stateless_request(1, "tools/list", json!({}));
    let body = list.body.clone();
    let chunk = |ext: &str| format!("{:x}{ext}\r\n", body.len()).into_bytes();
    let pipelined = list.clone().encode(addr);
    let good_then = |tail: &[u8]| [chunk(""), body.clone(), b"\r\n".to_vec(), tail.to_vec()].concat();
    let framings: Vec<(&str, Vec<u8>)> = vec![
        ("a 100 KB chunk extension", [chunk(&format!(";{}", "e".repeat(100_000))), body.clone()].concat()),
        ("100 KB of trailers", good_then(format!("0\r\nx-t: {}\r\n\r\n", "t".repeat(100_000)).as_bytes())),
        ("a chunk size that is not hex", [b"zz\r\n".to_vec(), pipelined.clone()].concat()),
        ("a chunk size past u64", [b"fffffffffffffffffff\r\n".to_vec(), pipelined.clone()].concat()),
    ];
    for (what, framing) in framings {
        let head = list.clone().header("transfer-encoding", "chunked").body(Vec::new());
        let mut stream = send_only(addr, head).await;
        let _ = stream.write_all(&framing).await;
        // The connection ends after one answer: reading to its end finishes.
        let mut out = Vec::new();
        let read = tokio::time::timeout(raw_http::READ_TIMEOUT, stream.read_to_end(&mut out)).await;
        assert!(read.is_ok(), "{what}: the connection stayed open");
        let out = String::from_utf8_lossy(&out);
        assert!(out.starts_with("HTTP/1.1 400 "), "{what}: {out}");
        assert_eq!(out.matches("HTTP/1.1 ").count(), 1, "{what}: {out}");
        let answer: Value = serde_json::from_str(out.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(code(&answer), codes::PARSE_ERROR, "{what}: {out}");
    }
    // Repeated top-level members, with a session and in 2026.
    let meta = json!({ "io.modelcontextprotocol/protocolVersion": V26, "io.modelcontextprotocol/clientCapabilities": {} });
    for member in [r#""id":2"#, r#""method":"ping""#, r#""jsonrpc":"2.0""#] {
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{meta}}},{member}}}"#
        );
        let resp = send(
            addr,
            Req::post_bytes(text.clone())
                .with_headers(&[("mcp-protocol-version", V26), ("mcp-method", "tools/list")]),
        )
        .await;
        assert_eq!(resp.status, 400, "{text}");
        assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST, "{text}");
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping",{member}}}"#);
        let resp = send(addr, in_session(Req::post_bytes(text.clone()), &session, V25)).await;
        assert_eq!(resp.status, 400, "{text}");
        assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST, "{text}");
    }
    assert_eq!(send(addr, list).await.json().await["id"], 1);
    bound.shutdown.cancel();
}

/// `-0` is JSON's integer zero written with a sign (no fraction, no exponent: an integer
/// in the schema's `"type": ["string", "integer"]`), so a request with that id is served
/// and answered with id `0`, a value equal to it; it was refused with `-32600` as an
/// integer past 64 bits. In both eras, with a session and without.
#[tokio::test]
async fn a_negative_zero_id_is_the_integer_zero() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let ping = br#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#.to_vec();
    let resp = send(addr, in_session(Req::post_bytes(ping), &session, V25)).await;
    assert_eq!(resp.status, 200);
    let answered = answer(resp).await;
    assert_eq!((&answered["id"], &answered["result"]), (&json!(0), &json!({})), "{answered}");
    let list = stateless_request(1, "tools/list", json!({}));
    let text = String::from_utf8(list.body.clone()).unwrap().replacen(r#""id":1"#, r#""id":-0"#, 1);
    let resp = send(addr, list.body(text.into_bytes())).await;
    assert_eq!(resp.status, 200);
    let answered = answer(resp).await;
    assert_eq!(answered["id"], json!(0), "{answered}");
    assert!(answered["result"]["tools"].is_array(), "{answered}");
    // A fraction or an exponent still makes a number that is not an integer id.
    for id in ["-0.0", "-0e0"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#).into_bytes();
        let resp = send(addr, in_session(Req::post_bytes(body), &session, V25)).await;
        assert_eq!(resp.status, 400, "{id}");
        let refused = resp.json().await;
        assert_eq!(refused["error"]["message"], "Invalid request: id must be a string or an integer", "{id}");
    }
    bound.shutdown.cancel();
}
