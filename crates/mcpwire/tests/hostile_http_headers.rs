//! Hostile headers over Streamable HTTP, on real sockets: 2026 requests whose
//! `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` headers are missing,
//! repeated or lie about the body are refused with `-32020` (an unknown version with
//! `-32022` and the supported list), a `Host` or `Origin` from another site is refused
//! (421, 403) so that DNS rebinding fails, as is a repeated one (400, 403), an `Accept`
//! that rates a type it must list at `q=0` gets 406, a repeated `Content-Type` 400, a
//! content coding other than `identity` 415 and a transfer coding besides `chunked` 501.
//!
//! The fixture server runs in this process; requests are written by hand on raw TCP
//! (`raw_http`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;
mod hostile_http_support;
mod mcp_http;
mod raw_http;

use hostile_http_support::{answer, code, in_session, local, open_session, stateless_request, V25, V26};
use mcpwire::http::HttpSettings;
use mcpwire::protocol::codes;
use raw_http::{send, Req};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

/// The 2026 version header.
const VERSION_2026: (&str, &str) = ("mcp-protocol-version", V26);

#[tokio::test]
async fn missing_or_lying_2026_headers_are_refused() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let body =
        stateless_request(1, "tools/call", json!({ "name": "region", "arguments": { "region": "eu" } })).body;
    // The body with no header but the content type and `Accept`.
    let bare = || Req::post_bytes(body.clone());
    let good = [("mcp-method", "tools/call"), ("mcp-name", "region"), ("mcp-param-region", "eu")];
    let ok = send(addr, bare().with_headers(&[VERSION_2026, good[0], good[1], good[2]])).await;
    assert_eq!(ok.status, 200);
    assert_eq!(ok.json().await["result"]["content"][0]["text"], "region \"eu\"");
    // (headers, status, code)
    type Case<'a> = (Vec<(&'a str, &'a str)>, u16, i64);
    let cases: Vec<Case> = vec![
        (vec![good[0], good[1], good[2]], 400, codes::HEADER_MISMATCH), // no version header
        (vec![VERSION_2026, good[1], good[2]], 400, codes::HEADER_MISMATCH), // no Mcp-Method
        (vec![VERSION_2026, ("mcp-method", "tools/list"), good[1], good[2]], 400, codes::HEADER_MISMATCH),
        (vec![VERSION_2026, good[0], good[2]], 400, codes::HEADER_MISMATCH), // no Mcp-Name
        (vec![VERSION_2026, good[0], ("mcp-name", "echo"), good[2]], 400, codes::HEADER_MISMATCH),
        (vec![VERSION_2026, good[0], good[1]], 400, codes::HEADER_MISMATCH), // no Mcp-Param
        (vec![VERSION_2026, good[0], good[1], ("mcp-param-region", "us")], 400, codes::HEADER_MISMATCH),
        (
            vec![VERSION_2026, good[0], good[1], ("mcp-param-region", "=?base64?!!?=")],
            400,
            codes::HEADER_MISMATCH,
        ),
        (
            vec![VERSION_2026, good[0], good[1], good[2], ("mcp-method", "tools/call")],
            400,
            codes::HEADER_MISMATCH,
        ),
        (
            vec![("mcp-protocol-version", "2099-01-01"), good[0], good[1], good[2]],
            400,
            codes::HEADER_MISMATCH,
        ),
    ];
    for (extra, status, expected) in &cases {
        let resp = send(addr, bare().with_headers(extra)).await;
        assert_eq!(resp.status, *status, "{extra:?}");
        let answer = resp.json().await;
        assert_eq!(code(&answer), *expected, "{extra:?}: {answer}");
    }
    // The header names a 2025 version: the 2025 path, which wants a session.
    let resp =
        send(addr, bare().with_headers(&[("mcp-protocol-version", V25), good[0], good[1], good[2]])).await;
    assert_eq!(resp.status, 400);
    // Both say an unknown version: -32022 with the supported list.
    let mut unknown: Value = serde_json::from_slice(&body).unwrap();
    unknown["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let headers = [("mcp-protocol-version", "2099-01-01"), good[0], good[1], good[2]];
    let resp = send(addr, Req::post(&unknown).with_headers(&headers)).await;
    assert_eq!(resp.status, 400);
    let answer = resp.json().await;
    assert_eq!(code(&answer), codes::UNSUPPORTED_PROTOCOL_VERSION, "{answer}");
    assert_eq!(answer["error"]["data"]["supported"], json!([V26]));
    // 2026 with GET or DELETE: 405.
    let get = Req::new("GET").header("accept", "text/event-stream").with_headers(&[VERSION_2026]);
    assert_eq!(send(addr, get).await.status, 405);
    // A 2026 unknown method: 404 with -32601 in the body.
    let resp = send(addr, stateless_request(3, "no/such", json!({}))).await;
    assert_eq!(resp.status, 404);
    assert_eq!(code(&resp.json().await), codes::METHOD_NOT_FOUND);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn a_host_or_origin_from_another_site_is_refused() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let list = stateless_request(1, "tools/list", json!({}));
    for (headers, status) in [
        (vec![("host", "evil.example")], 421),
        (vec![("host", "localhost.evil.example:80")], 421),
        (vec![("host", "127.0.0.1.nip.io")], 421),
        // DNS rebinding as a browser does it: both name the attacker's site. "If the
        // Origin header is present and invalid, servers MUST respond with HTTP 403."
        (vec![("host", "evil.example:8080"), ("origin", "http://evil.example:8080")], 403),
        (vec![("host", "evil.example"), ("origin", "null")], 403),
        (vec![("origin", "http://evil.example")], 403),
        (vec![("origin", "http://localhost.evil.example")], 403),
        (vec![("origin", "null")], 403),
        (vec![("origin", "http://localhost:5173")], 200),
        (vec![("host", "127.0.0.1:9"), ("origin", "http://[::1]:3000")], 200),
    ] {
        let req = headers.iter().fold(list.clone(), |req, (name, value)| match *name {
            "host" => req.host(value),
            _ => req.header(name, value),
        });
        let resp = send(addr, req).await;
        assert_eq!(resp.status, status, "{headers:?}");
        let _ = resp.bytes().await;
    }
    bound.shutdown.cancel();
}

/// A request with more than one `Host` field line is malformed (RFC 9112 §3.2: "MUST
/// respond with a 400"), whatever the values: each would name another authority to check.
/// Two `Origin` headers are not one origin: `403`, as an `Origin` that is present and not
/// valid gets, whatever their order. Both eras; the server goes on.
#[tokio::test]
async fn a_repeated_host_or_origin_is_refused() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let own = addr.to_string();
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    let requests = [
        ("2026", stateless_request(1, "tools/list", json!({}))),
        ("2025", Req::post(&ping).header("mcp-protocol-version", V25)),
    ];
    for (era, req) in requests {
        for (headers, status, message) in [
            (vec![("host", "evil.example")], 400, "Bad Request: the Host header is repeated"),
            (vec![("host", own.as_str())], 400, "Bad Request: the Host header is repeated"),
            (
                vec![("origin", "http://localhost:5173"), ("origin", "http://evil.example")],
                403,
                "Origin not allowed",
            ),
            (
                vec![("origin", "http://evil.example"), ("origin", "http://localhost:5173")],
                403,
                "Origin not allowed",
            ),
            (
                vec![("origin", "http://localhost:5173"), ("origin", "http://localhost:5173")],
                403,
                "Origin not allowed",
            ),
        ] {
            // `raw_http` writes the server's own `Host` first; these come after it.
            let resp = send(addr, req.clone().with_headers(&headers)).await;
            assert_eq!(resp.status, status, "{era}: {headers:?}");
            let refused = resp.json().await;
            assert_eq!(code(&refused), codes::INVALID_REQUEST, "{era}: {refused}");
            assert_eq!(refused["error"]["message"], message, "{era}: {refused}");
        }
    }
    let resp =
        send(addr, stateless_request(1, "tools/list", json!({})).header("origin", "http://localhost:5173"))
            .await;
    assert_eq!(resp.status, 200);
    bound.shutdown.cancel();
}

/// A lying header of 100 KB is named in the refusal, but not echoed whole.
#[tokio::test]
async fn a_huge_lying_header_is_not_echoed_whole() {
    let (bound, _) = local(HttpSettings::default()).await;
    let body =
        stateless_request(1, "tools/call", json!({ "name": "region", "arguments": { "region": "eu" } })).body;
    let huge = "n".repeat(100 * 1024);
    let headers =
        [VERSION_2026, ("mcp-method", "tools/call"), ("mcp-name", &huge), ("mcp-param-region", "eu")];
    let refused = send(bound.local_addr, Req::post_bytes(body).with_headers(&headers)).await;
    assert_eq!(refused.status, 400);
    let answer: Value = refused.json().await;
    assert_eq!(code(&answer), codes::HEADER_MISMATCH, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("Mcp-Name") && message.ends_with('…') && message.len() < 1024, "{message}");
}

/// A header value holding a control byte is not HTTP (RFC 9110 field values): hyper's
/// parser refuses the request with a bare `400` (no body: no JSON-RPC error, since the
/// request never reaches the MCP layer); the server goes on.
/// Letting such requests through (hyper's `ignore_invalid_headers`) would drop the bad
/// line, `Content-Length` included, and so change how the bytes that follow are framed:
/// not done.
#[tokio::test]
async fn a_header_with_a_control_byte_is_refused_by_hyper_and_the_server_goes_on() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let body =
        stateless_request(1, "tools/call", json!({ "name": "region", "arguments": { "region": "eu" } })).body;
    let headers = [VERSION_2026, ("mcp-method", "tools/call"), ("mcp-param-region", "eu")];
    let refused =
        send(addr, Req::post_bytes(body.clone()).with_headers(&headers).header("mcp-name", "reg\u{1}ion"))
            .await;
    assert_eq!(refused.status, 400);
    assert!(refused.bytes().await.is_empty(), "a body came with hyper's 400");
    let ok = send(addr, Req::post_bytes(body).with_headers(&headers).header("mcp-name", "region")).await;
    assert_eq!(ok.status, 200);
}

/// An `Accept` item with a quality of zero says the type is not acceptable (RFC 9110
/// §12.4.2), also beside a wildcard: a POST that refuses JSON or SSE so, and a GET that
/// refuses SSE, get 406 in both eras; any other quality counts as listing the type.
#[tokio::test]
async fn an_accept_rating_a_type_at_q_zero_gets_406() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    for (accept, status) in [
        ("application/json;q=0, text/event-stream", 406),
        ("application/json, text/event-stream; q=0.000", 406),
        ("*/*;q=0", 406),
        ("application/json;q=0, */*", 406),
        ("APPLICATION/JSON;Q=0, text/event-stream", 406),
        ("*/*;q=0, application/json, text/event-stream", 200),
        ("application/json;q=0.5, text/event-stream;q=0.001", 200),
        ("application/json;level=1;q=1, text/event-stream", 200),
    ] {
        let list = stateless_request(1, "tools/list", json!({})).set("accept", accept);
        let resp = send(addr, list).await;
        assert_eq!(resp.status, status, "2026: {accept}");
        if status == 406 {
            assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST, "{accept}");
        }
        let resp = send(addr, in_session(Req::post(&ping), &session, V25).set("accept", accept)).await;
        assert_eq!(resp.status, status, "2025: {accept}");
    }
    for (accept, status) in
        [("text/event-stream;q=0", 406), ("*/*;q=0", 406), ("text/event-stream;q=0.1", 200)]
    {
        let get = in_session(Req::new("GET"), &session, V25).header("accept", accept);
        let resp = send(addr, get).await;
        assert_eq!(resp.status, status, "GET: {accept}");
    }
    bound.shutdown.cancel();
}

/// `Content-Type` is a singleton field (RFC 9110 §8.3): two of them, alike or not, do not
/// say what the body is, and a proxy in front that read the other one would have checked
/// another media type than the endpoint reads. A POST with two is refused `400` with
/// `-32600` saying so, in both eras and whatever their order, as a repeated
/// `Mcp-Session-Id` is; the session goes on.
#[tokio::test]
async fn a_repeated_content_type_is_refused() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    let json_type = "application/json";
    for (first, second) in [(json_type, json_type), (json_type, "text/plain"), ("text/plain", json_type)] {
        let twice = |req: Req| {
            req.without("content-type").header("content-type", first).header("content-type", second)
        };
        let requests = [
            ("2026", twice(stateless_request(1, "tools/list", json!({})))),
            ("2025", twice(in_session(Req::post(&ping), &session, V25))),
        ];
        for (era, req) in requests {
            let resp = send(addr, req).await;
            assert_eq!(resp.status, 400, "{era}: {first}, {second}");
            let refused = resp.json().await;
            assert_eq!(code(&refused), codes::INVALID_REQUEST, "{era}: {refused}");
            assert_eq!(
                refused["error"]["message"], "Bad Request: the Content-Type header is repeated",
                "{era}: {refused}"
            );
        }
    }
    let resp = send(addr, in_session(Req::post(&ping), &session, V25)).await;
    assert_eq!(resp.json().await["result"], json!({}), "the session goes on");
    bound.shutdown.cancel();
}

/// The endpoint reads bodies without a content coding: a POST whose `Content-Encoding`
/// names one (`gzip`, `br`, an unknown one, one among several headers) gets `415` with
/// `Accept-Encoding: identity` (RFC 9110 §15.5.16, §12.5.3) and `-32600`, in both eras,
/// rather than a parse error for the coded bytes; `identity` (or no coding) is read as
/// usual.
#[tokio::test]
async fn a_content_coding_gets_415_with_accept_encoding() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    // `{"jsonrpc":"2.0","id":1,"method":"ping"}`, gzipped.
    let gzipped_ping: &[u8] = &[
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xab, 0x56, 0xca, 0x2a, 0xce, 0xcf, 0x2b,
        0x2a, 0x48, 0x56, 0xb2, 0x52, 0x32, 0xd2, 0x33, 0x50, 0xd2, 0x51, 0xca, 0x4c, 0x51, 0xb2, 0x32, 0xd4,
        0x51, 0xca, 0x4d, 0x2d, 0xc9, 0xc8, 0x07, 0x32, 0x95, 0x0a, 0x32, 0xf3, 0xd2, 0x95, 0x6a, 0x01, 0xf4,
        0x17, 0x99, 0xac, 0x28, 0x00, 0x00, 0x00,
    ];
    let codings: [&[&str]; 5] =
        [&["gzip"], &["br"], &["x-unknown"], &["identity", "gzip"], &["identity, deflate"]];
    for coding in codings {
        let coded = |req: Req| coding.iter().fold(req, |req, c| req.header("content-encoding", c));
        let requests = [
            ("2026", coded(stateless_request(1, "tools/list", json!({})))),
            ("2025", coded(in_session(Req::post(&ping), &session, V25))),
            ("2025 gzip bytes", coded(in_session(Req::post_bytes(gzipped_ping.to_vec()), &session, V25))),
        ];
        for (era, req) in requests {
            let resp = send(addr, req).await;
            assert_eq!(resp.status, 415, "{era}: {coding:?}");
            assert_eq!(resp.header("accept-encoding"), Some("identity"), "{era}: {coding:?}");
            let refused = resp.json().await;
            assert_eq!(code(&refused), codes::INVALID_REQUEST, "{era}: {refused}");
            let message = refused["error"]["message"].as_str().unwrap();
            assert!(message.contains("Content-Encoding"), "{era}: {refused}");
        }
    }
    for coding in ["identity", "IDENTITY", ""] {
        let resp =
            send(addr, stateless_request(1, "tools/list", json!({})).header("content-encoding", coding))
                .await;
        assert_eq!(resp.status, 200, "2026: {coding:?}");
        let resp =
            send(addr, in_session(Req::post(&ping), &session, V25).header("content-encoding", coding)).await;
        assert_eq!(answer(resp).await["result"], json!({}), "2025: {coding:?}");
    }
    bound.shutdown.cancel();
}

/// A transfer coding besides `chunked` (`gzip, chunked`: hyper takes the chunks off and
/// leaves the gzip on) is one the endpoint does not implement: `501` (RFC 9112 §6.1) with
/// `-32600`, not the body read as JSON; `chunked` alone is read as usual.
#[tokio::test]
async fn a_transfer_coding_besides_chunked_gets_501() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let list = stateless_request(1, "tools/list", json!({}));
    for (coding, status) in [("gzip, chunked", 501), ("x-unknown, chunked", 501), ("chunked", 200)] {
        let head = list.clone().header("transfer-encoding", coding).body(Vec::new());
        let mut stream = raw_http::send_only(addr, head).await;
        let body = &list.body;
        stream
            .write_all(&[format!("{:x}\r\n", body.len()).as_bytes(), body, b"\r\n0\r\n\r\n"].concat())
            .await
            .unwrap();
        let resp = raw_http::read_response(stream).await;
        assert_eq!(resp.status, status, "{coding}");
        let answered = resp.json().await;
        if status == 501 {
            assert_eq!(code(&answered), codes::INVALID_REQUEST, "{coding}: {answered}");
        } else {
            assert_eq!(answered["id"], 1, "{coding}: {answered}");
        }
    }
    bound.shutdown.cancel();
}
