//! Hostile input to our stdio server, on real pipes: the fixture server runs in a child
//! process (this test binary, re-entered through `fixture::child_entry`); the tests write
//! raw bytes to its stdin and assert the exact lines it writes, that the connection stays
//! usable where JSON-RPC allows, and that its memory (`/proc/self/status`, asked over the
//! wire or read from `/proc/<pid>`) stays bounded. The client side is in
//! `hostile_stdio_client.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;

use std::collections::HashMap;
use std::time::Duration;

use fixture::ChildServer;
use mcpwire::protocol::codes;
use serde_json::{json, Value};

async fn server() -> ChildServer {
    ChildServer::start("stdio", &[]).await
}

async fn initialized() -> ChildServer {
    let mut s = server().await;
    s.initialize().await;
    s
}

fn code(answer: &Value) -> i64 {
    answer["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {answer}"))
}

/// The connection still answers.
async fn still_usable(s: &mut ChildServer, id: &str) {
    let answer = s.call(json!(id), "ping", json!({})).await;
    assert_eq!(answer["result"], json!({}), "{answer}");
}

fn call(id: impl Into<Value>, tool: &str, arguments: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id.into(), "method": "tools/call", "params": { "name": tool, "arguments": arguments } })
}

#[tokio::test]
async fn each_malformed_frame_gets_its_exact_error_and_the_connection_goes_on() {
    let mut s = initialized().await;
    // (frame, code, the id the error must carry)
    let cases: &[(&[u8], i64, Value)] = &[
        (b"not json", codes::PARSE_ERROR, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"", codes::PARSE_ERROR, Value::Null),
        (b"42", codes::INVALID_REQUEST, Value::Null),
        (b"\"a string\"", codes::INVALID_REQUEST, Value::Null),
        (b"[]", codes::INVALID_REQUEST, Value::Null),
        (b"{}", codes::INVALID_REQUEST, Value::Null),
        (b"{\"hello\":\"world\"}", codes::INVALID_REQUEST, Value::Null),
        (b"{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}", codes::INVALID_REQUEST, json!(7)),
        (b"{\"id\":8,\"method\":\"ping\"}", codes::INVALID_REQUEST, json!(8)),
        (b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", codes::INVALID_REQUEST, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", codes::INVALID_REQUEST, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}", codes::INVALID_REQUEST, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", codes::INVALID_REQUEST, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", codes::INVALID_REQUEST, Value::Null),
        (b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":42}", codes::INVALID_REQUEST, json!(9)),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\",\"result\":{}}",
            codes::INVALID_REQUEST,
            json!(10),
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"ping\",\"params\":null}",
            codes::INVALID_REQUEST,
            json!(11),
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\",\"params\":[1,2]}",
            codes::INVALID_REQUEST,
            json!(12),
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\",\"params\":\"x\"}",
            codes::INVALID_REQUEST,
            json!(13),
        ),
        (b"{\"jsonrpc\":\"2.0\",\"result\":{}}", codes::INVALID_REQUEST, Value::Null),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":99999999999999999999,\"method\":\"ping\"}",
            codes::INVALID_REQUEST,
            Value::Null,
        ),
    ];
    for (i, (frame, expected, id)) in cases.iter().enumerate() {
        let mut line = frame.to_vec();
        line.push(b'\n');
        s.write(&line).await;
        let answer = s.line().await;
        let shown = String::from_utf8_lossy(frame);
        assert_eq!(code(&answer), *expected, "{shown}: {answer}");
        assert_eq!(answer.get("id").cloned().unwrap_or(Value::Null), *id, "{shown}: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0");
        still_usable(&mut s, &format!("after-{i}")).await;
    }
    // Blank and whitespace-only lines are skipped without an answer.
    s.write(b"\n   \r\n\t\n").await;
    s.silent_for(Duration::from_millis(100)).await;
    // A malformed *response* (it has an id but no method; its id may be of no type an id
    // can have) is not answered: answering a response could start a loop.
    s.write(b"{\"jsonrpc\":\"1.0\",\"id\":5,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":14}\n").await;
    s.write(b"{\"jsonrpc\":\"2.0\",\"id\":[1],\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{\"code\":1,\"message\":\"m\"}}\n").await;
    s.silent_for(Duration::from_millis(100)).await;
    still_usable(&mut s, "end").await;
}

#[tokio::test]
async fn invalid_utf8_is_a_parse_error() {
    let mut s = initialized().await;
    for frame in [
        &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}\n"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"a\":\"\xc3\x28\"}}}\n",
        b"\xfe\xff\x00{\n",
    ] {
        s.write(frame).await;
        let answer = s.line().await;
        assert_eq!(code(&answer), codes::PARSE_ERROR, "{answer}");
        assert!(answer.get("id").is_none(), "{answer}");
    }
    // A JSON escape for a lone surrogate is valid JSON text but not a Unicode string.
    s.write(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"\\ud800\"}\n").await;
    let answer = s.line().await;
    assert!(
        [codes::PARSE_ERROR, codes::INVALID_REQUEST].contains(&code(&answer)),
        "lone surrogate: {answer}"
    );
    still_usable(&mut s, "after").await;
}

#[tokio::test]
async fn a_duplicate_in_flight_id_is_refused_and_the_original_still_answered() {
    let mut s = initialized().await;
    // The sleeps outlast the next write by far, even on a busy machine.
    s.send(call(1, "sleep", json!({ "ms": 1000 }))).await;
    s.send(call(1, "echo", json!({ "x": 1 }))).await;
    let first = s.line().await;
    assert_eq!(first["id"], 1);
    assert_eq!(code(&first), codes::INVALID_REQUEST, "{first}");
    assert!(first["error"]["message"].as_str().unwrap().contains("already in flight"), "{first}");
    let second = s.line().await;
    assert_eq!(second["id"], 1);
    assert_eq!(second["result"]["content"][0]["text"], "slept", "{second}");
    // 7 and "7" are two ids (JSON-RPC compares values, and a string is not a number):
    // both requests run, each answered under its own id.
    s.send(call(7, "sleep", json!({ "ms": 1000 }))).await;
    s.send(call("7", "echo", json!({}))).await;
    let (echoed, slept) = (s.line().await, s.line().await);
    assert_eq!(echoed["id"], json!("7"), "{echoed}");
    assert!(echoed.get("result").is_some(), "{echoed}");
    assert_eq!(slept["id"], json!(7), "{slept}");
    assert_eq!(slept["result"]["content"][0]["text"], "slept", "{slept}");
    // Once answered, the id may be used again.
    let again = s.call(json!(1), "ping", json!({})).await;
    assert_eq!(again["result"], json!({}));
}

#[tokio::test]
async fn responses_and_cancels_for_unknown_ids_are_ignored() {
    let mut s = initialized().await;
    s.send(json!({ "jsonrpc": "2.0", "id": 4242, "result": { "x": 1 } })).await;
    s.send(json!({ "jsonrpc": "2.0", "id": "nope", "error": { "code": -32000, "message": "x" } })).await;
    s.send(json!({ "jsonrpc": "2.0", "error": { "code": -32700, "message": "id-less" } })).await;
    s.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 4242 } }))
        .await;
    s.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": { "x": 1 } } })).await;
    s.send(json!({ "jsonrpc": "2.0", "method": "notifications/cancelled" })).await;
    s.send(json!({ "jsonrpc": "2.0", "method": "notifications/unknown", "params": { "a": 1 } })).await;
    s.silent_for(Duration::from_millis(150)).await;
    still_usable(&mut s, "after").await;
}

#[tokio::test]
async fn params_of_the_wrong_type_are_invalid_params() {
    let mut s = initialized().await;
    let answer = s.call(json!(1), "tools/call", json!({ "name": 5 })).await;
    assert_eq!(code(&answer), codes::INVALID_PARAMS, "{answer}");
    let answer = s.call(json!(2), "tools/call", json!({ "name": "echo", "arguments": 5 })).await;
    assert_eq!(code(&answer), codes::INVALID_PARAMS, "{answer}");
    let answer = s.call(json!(3), "tools/call", json!({ "name": "nope" })).await;
    assert_eq!(code(&answer), codes::INVALID_PARAMS, "{answer}");
    let answer = s.call(json!(4), "tools/list", json!({ "cursor": 7 })).await;
    assert_eq!(code(&answer), codes::INVALID_PARAMS, "{answer}");
    let answer = s.call(json!(5), "tools/list", json!({ "cursor": "not-a-cursor" })).await;
    assert_eq!(code(&answer), codes::INVALID_PARAMS, "{answer}");
    let answer = s.call(json!(6), "logging/setLevel", json!({ "level": "loud" })).await;
    assert_eq!(code(&answer), codes::INVALID_PARAMS, "{answer}");
    // Arguments that do not fit the tool's type: a tool execution error at 2025-11-25.
    let answer =
        s.call(json!(7), "tools/call", json!({ "name": "sleep", "arguments": { "ms": "soon" } })).await;
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(answer["result"]["content"][0]["text"].as_str().unwrap().contains("ms"), "{answer}");
    let answer = s.call(json!(8), "no/such/method", json!({})).await;
    assert_eq!(code(&answer), codes::METHOD_NOT_FOUND, "{answer}");
}

#[tokio::test]
async fn nesting_100k_deep_is_refused_without_a_crash() {
    let mut s = initialized().await;
    let arrays = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let objects = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    // In tool arguments: routed raw, then refused by the argument decoder (a tool error).
    let frame = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"a\":{arrays}}}}}}}\n"
    );
    s.write(frame.as_bytes()).await;
    let answer = s.line().await;
    assert_eq!(answer["id"], 1);
    assert_eq!(
        answer["result"]["isError"],
        true,
        "{}",
        &answer.to_string()[..200.min(answer.to_string().len())]
    );
    // In params: the typed params decoder refuses it.
    let frame = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{{\"cursor\":{objects}}}}}\n"
    );
    s.write(frame.as_bytes()).await;
    let answer = s.line().await;
    assert_eq!((answer["id"].clone(), code(&answer)), (json!(2), codes::INVALID_PARAMS), "{answer}");
    // As the id, as an unknown member, as a whole frame, inside a batch.
    for (frame, expected) in [
        (format!("{{\"jsonrpc\":\"2.0\",\"id\":{arrays},\"method\":\"ping\"}}\n"), codes::INVALID_REQUEST),
        (format!("{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"x\":{arrays}}}\n"), 0),
        (format!("{arrays}\n"), codes::INVALID_REQUEST),
        (format!("{objects}\n"), codes::INVALID_REQUEST),
        (format!("{}\n", "[".repeat(100_000)), codes::PARSE_ERROR),
    ] {
        s.write(frame.as_bytes()).await;
        let mut answer = s.line().await;
        if frame.trim_end() == arrays {
            // A batch of one item that is not a message: its error, in an array.
            let errors = answer.as_array().map(Vec::as_slice).unwrap_or_default();
            assert_eq!(errors.len(), 1, "one error in an array: {answer}");
            answer = errors[0].clone();
        }
        if expected == 0 {
            assert_eq!(answer["result"], json!({}), "an unknown member is ignored: {answer}");
        } else {
            assert_eq!(code(&answer), expected, "{}: {answer}", &frame[..40]);
        }
    }
    still_usable(&mut s, "after").await;
}

#[tokio::test]
async fn a_64_mib_line_is_refused_and_memory_stays_bounded() {
    let mut s = initialized().await;
    let (_, hwm_before) = s.memory("m0").await;
    // Streamed in 1 MiB pieces: the test itself never holds 64 MiB.
    let piece = vec![b'x'; 1 << 20];
    s.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"").await;
    for _ in 0..64 {
        s.write(&piece).await;
    }
    s.write(b"\"}}\n").await;
    let answer = s.line().await;
    assert_eq!(code(&answer), codes::INVALID_REQUEST, "{answer}");
    // The id, read from the line's first bytes, names the request the error answers.
    assert_eq!(answer["id"], 1, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.contains("exceeds the 16777216-byte message size limit"), "{message}");
    still_usable(&mut s, "after").await;
    let (_, hwm_after) = s.memory("m1").await;
    // The reader keeps at most one line of 16 MiB (and then lets it go).
    let grown_mib = (hwm_after.saturating_sub(hwm_before)) / 1024;
    assert!(grown_mib < 40, "peak memory grew by {grown_mib} MiB for a 64 MiB line");
}

#[tokio::test]
async fn an_unterminated_line_then_eof_is_a_parse_error_and_a_clean_exit() {
    let mut s = initialized().await;
    s.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi").await;
    s.close_stdin();
    let answer = s.line().await;
    assert_eq!(code(&answer), codes::PARSE_ERROR, "{answer}");
    assert_eq!(s.line_within(Duration::from_secs(10)).await, None, "then the server closes its stdout");
    let status = tokio::time::timeout(Duration::from_secs(10), s.child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status}");
}

/// More requests than a connection runs at once (4096 by default), none of which ends on
/// its own, then the end of input: the ones past the bound are refused at once, the
/// reading goes on to the end of input, and the server answers the running ones as
/// shutdown does and exits. Each request is answered once.
#[tokio::test]
async fn past_the_in_flight_bound_the_end_of_input_is_still_seen() {
    let mut s = initialized().await;
    let total = 4200;
    let mut frames = Vec::new();
    for i in 0..total {
        frames.extend_from_slice(&serde_json::to_vec(&call(i, "hang", json!({}))).unwrap());
        frames.push(b'\n');
    }
    let mut stdin = s.stdin.take().unwrap();
    let writer = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        stdin.write_all(&frames).await.unwrap();
        // Dropped: the end of input.
    });
    let mut codes_by_id: HashMap<i64, i64> = HashMap::new();
    while let Some(answer) = s.line_within(Duration::from_secs(20)).await {
        let id = answer["id"].as_i64().unwrap_or_else(|| panic!("{answer}"));
        assert!(codes_by_id.insert(id, code(&answer)).is_none(), "answered twice: {answer}");
    }
    writer.await.unwrap();
    assert_eq!(codes_by_id.len(), total as usize, "every request answered");
    let closed = codes_by_id.values().filter(|c| **c == codes::CONNECTION_CLOSED).count();
    let busy = codes_by_id.values().filter(|c| **c == codes::INTERNAL_ERROR).count();
    assert_eq!((closed, busy), (4096, total as usize - 4096), "{codes_by_id:?}");
    let status = tokio::time::timeout(Duration::from_secs(10), s.child.wait()).await.unwrap().unwrap();
    assert!(status.success(), "{status}");
}

/// A cancelled request is no longer outstanding: its id may be used again at once, in
/// the same write as the cancellation (the spec forbids reusing only ids still in use).
#[tokio::test]
async fn an_id_may_be_used_again_right_after_its_request_is_cancelled() {
    let mut s = initialized().await;
    for round in 0..20 {
        let id = 1000 + round;
        s.send(call(id, "hang", json!({}))).await;
        tokio::time::sleep(Duration::from_millis(20)).await;
        let cancel =
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": id } });
        let mut frames = serde_json::to_vec(&cancel).unwrap();
        frames.push(b'\n');
        frames.extend_from_slice(&serde_json::to_vec(&call(id, "echo", json!({ "round": round }))).unwrap());
        frames.push(b'\n');
        s.write(&frames).await;
        let answer = s.line().await;
        assert_eq!(answer["id"], json!(id), "{answer}");
        assert!(answer.get("result").is_some(), "the reused id was refused: {answer}");
    }
    s.silent_for(Duration::from_millis(200)).await;
}

#[tokio::test]
async fn a_flood_of_notifications_is_absorbed_with_bounded_memory() {
    let mut s = initialized().await;
    let (_, hwm_before) = s.memory("m0").await;
    let mut batch = Vec::new();
    for i in 0..100_000 {
        let method = if i % 2 == 0 { "notifications/progress" } else { "notifications/whatever" };
        batch.extend_from_slice(
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"{method}\",\"params\":{{\"progressToken\":{i},\"progress\":1}}}}\n")
                .as_bytes(),
        );
        if batch.len() > 1 << 20 {
            s.write(&batch).await;
            batch.clear();
        }
    }
    s.write(&batch).await;
    // Nothing answers a notification; the request after them is answered.
    let answer = s.call(json!("after"), "ping", json!({})).await;
    assert_eq!(answer["result"], json!({}));
    let (_, hwm_after) = s.memory("m1").await;
    let grown_mib = hwm_after.saturating_sub(hwm_before) / 1024;
    assert!(grown_mib < 64, "peak memory grew by {grown_mib} MiB for 100k notifications");
}

#[tokio::test]
async fn ten_thousand_concurrent_requests_are_each_answered_once() {
    let mut s = initialized().await;
    let mut frames = Vec::new();
    for i in 0..10_000 {
        let request = if i % 2 == 0 {
            call(i, "echo", json!({ "i": i }))
        } else {
            json!({ "jsonrpc": "2.0", "id": i, "method": "ping" })
        };
        frames.extend_from_slice(&serde_json::to_vec(&request).unwrap());
        frames.push(b'\n');
    }
    // Write and read at once: the server stops reading while its answers wait for us.
    let mut stdin = s.stdin.take().unwrap();
    let writer = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        stdin.write_all(&frames).await.unwrap();
        stdin.flush().await.unwrap();
        stdin
    });
    let mut seen: HashMap<i64, usize> = HashMap::new();
    for _ in 0..10_000 {
        let answer = s.line().await;
        let id = answer["id"].as_i64().unwrap();
        assert!(answer.get("result").is_some(), "{answer}");
        *seen.entry(id).or_default() += 1;
    }
    assert_eq!(seen.len(), 10_000);
    assert!(seen.values().all(|n| *n == 1));
    s.stdin = Some(writer.await.unwrap());
    still_usable(&mut s, "after").await;
    s.silent_for(Duration::from_millis(100)).await;
}

#[tokio::test]
async fn a_cancel_racing_the_response_is_never_answered_twice() {
    let mut s = initialized().await;
    let rounds = 300;
    let mut frames = Vec::new();
    for i in 0..rounds {
        let ms = i % 3;
        frames.extend_from_slice(&serde_json::to_vec(&call(i, "sleep", json!({ "ms": ms }))).unwrap());
        frames.push(b'\n');
        let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": i, "reason": "race" } });
        frames.extend_from_slice(&serde_json::to_vec(&cancel).unwrap());
        frames.push(b'\n');
    }
    s.write(&frames).await;
    s.send(json!({ "jsonrpc": "2.0", "id": "barrier", "method": "tools/call", "params": { "name": "sleep", "arguments": { "ms": 300 } } })).await;
    let mut answered: HashMap<i64, usize> = HashMap::new();
    loop {
        let answer = s.line().await;
        if answer["id"] == "barrier" {
            break;
        }
        let id = answer["id"].as_i64().unwrap_or_else(|| panic!("{answer}"));
        assert!(answer.get("result").is_some(), "a cancelled request gets its result or nothing: {answer}");
        *answered.entry(id).or_default() += 1;
    }
    assert!(answered.values().all(|n| *n == 1), "answered twice: {answered:?}");
    let stats = s.call(json!("stats"), "test/stats", json!({})).await["result"].clone();
    let (started, dropped, finished) = (
        stats["started"].as_u64().unwrap(),
        stats["dropped"].as_u64().unwrap(),
        stats["finished"].as_u64().unwrap(),
    );
    // Every started handler either ran to the end or was dropped; only finished ones may
    // have been answered (the barrier is one of the finished).
    assert_eq!(started, dropped + finished, "{stats}");
    assert!(answered.len() as u64 <= finished, "{stats}: {} answered", answered.len());
    // Cancels that came before the request started: nothing started, nothing answered.
    assert!(started <= rounds as u64 + 1, "{stats}");
}

#[tokio::test]
async fn the_2025_handshake_order_is_enforced() {
    let mut s = server().await;
    let answer = s.call(json!(1), "tools/list", json!({})).await;
    assert_eq!(code(&answer), codes::INVALID_REQUEST, "a request before initialize: {answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("before initialize"), "{answer}");
    let answer = s.call(json!(2), "ping", json!({})).await;
    assert_eq!(answer["result"], json!({}), "ping is allowed before initialize");
    s.initialize().await;
    let answer = s.call(json!(3), "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } })).await;
    assert_eq!(code(&answer), codes::INVALID_REQUEST, "a second initialize: {answer}");
    let answer = s.call(json!(4), "tools/list", json!({})).await;
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    // A 2026 request on a connection that began with initialize.
    let enveloped = json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } });
    let answer = s.call(json!(5), "tools/list", enveloped).await;
    assert_eq!(code(&answer), codes::INVALID_REQUEST, "{answer}");
    // 2026-only methods do not exist on a 2025 session.
    let answer = s.call(json!(6), "server/discover", json!({})).await;
    assert_eq!(code(&answer), codes::METHOD_NOT_FOUND, "{answer}");
}

#[tokio::test]
async fn the_2026_era_rules_hold_on_stdio() {
    let mut s = server().await;
    let meta = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} });
    let answer = s.call(json!(1), "server/discover", json!({ "_meta": meta })).await;
    assert_eq!(answer["result"]["supportedVersions"], json!(["2026-07-28"]), "{answer}");
    // The first request fixed the era: initialize is now an unsupported version.
    let answer = s.call(json!(2), "initialize", json!({ "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } })).await;
    assert_eq!(code(&answer), codes::UNSUPPORTED_PROTOCOL_VERSION, "{answer}");
    assert_eq!(answer["error"]["data"]["requested"], "2025-11-25", "{answer}");
    // A request without its envelope, or with a broken one.
    let answer = s.call(json!(3), "tools/list", json!({})).await;
    assert_eq!(code(&answer), codes::INVALID_PARAMS, "{answer}");
    let answer = s
        .call(
            json!(4),
            "tools/list",
            json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }),
        )
        .await;
    assert_eq!(code(&answer), codes::INVALID_PARAMS, "missing clientCapabilities: {answer}");
    let answer = s.call(json!(5), "tools/list", json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "1999-01-01", "io.modelcontextprotocol/clientCapabilities": {} } })).await;
    assert_eq!(code(&answer), codes::UNSUPPORTED_PROTOCOL_VERSION, "{answer}");
    assert_eq!(answer["error"]["data"]["supported"], json!(["2026-07-28"]), "{answer}");
    let answer = s.call(json!(6), "tools/list", json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": 2026, "io.modelcontextprotocol/clientCapabilities": {} } })).await;
    assert_eq!(code(&answer), codes::INVALID_PARAMS, "{answer}");
    // ping is gone in 2026.
    let answer = s.call(json!(7), "ping", json!({ "_meta": meta })).await;
    assert_eq!(code(&answer), codes::METHOD_NOT_FOUND, "{answer}");
    let answer = s.call(json!(8), "tools/list", json!({ "_meta": meta })).await;
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
}

/// The answers to a batch: one line holding a JSON array (JSON-RPC 2.0), by id.
async fn batch_answers(s: &mut ChildServer, batch: Value) -> HashMap<String, Value> {
    s.send(batch).await;
    let line = s.line().await;
    let answers = line.as_array().unwrap_or_else(|| panic!("a batch is answered with one array: {line}"));
    answers.iter().map(|answer| (answer["id"].to_string(), answer.clone())).collect()
}

/// A server initialized at 2025-03-26, the revision that has batches.
async fn at_2025_03_26() -> ChildServer {
    let mut s = server().await;
    let init = json!({ "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } });
    assert_eq!(s.call(json!(0), "initialize", init).await["result"]["protocolVersion"], "2025-03-26");
    s.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    s
}

#[tokio::test]
async fn batches_are_served_only_on_a_2025_03_26_session() {
    let batch = |meta: Value| {
        json!([
            { "jsonrpc": "2.0", "id": "a", "method": "tools/list", "params": { "_meta": meta } },
            { "jsonrpc": "2.0", "id": "b", "method": "ping", "params": { "_meta": meta } },
        ])
    };
    // 2025-11-25 removed batches: each request of one is refused under its own id.
    let mut s = initialized().await;
    for answer in batch_answers(&mut s, batch(json!({}))).await.values() {
        assert_eq!(code(answer), codes::INVALID_REQUEST, "{answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains("2025-03-26"), "{answer}");
    }
    still_usable(&mut s, "after a batch").await;
    // 2025-03-26 has them.
    let mut s = at_2025_03_26().await;
    let answers = batch_answers(&mut s, batch(json!({}))).await;
    assert!(answers["\"a\""]["result"]["tools"].is_array(), "{answers:?}");
    assert_eq!(answers["\"b\""]["result"], json!({}), "{answers:?}");
    // 2026 is one message a line.
    let mut s = server().await;
    let meta = json!({ "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} });
    for answer in batch_answers(&mut s, batch(meta)).await.values() {
        assert_eq!(code(answer), codes::INVALID_REQUEST, "{answer}");
    }
}

/// JSON-RPC 2.0's batch rules on a 2025-03-26 session: one array holds an answer for each
/// request, and an error for each item that is not a valid message; notifications and a
/// request the client cancelled get nothing in it; a batch that needs no answer writes
/// nothing (never `[]`).
#[tokio::test]
async fn a_batch_is_answered_with_one_array_of_what_needs_an_answer() {
    let mut s = at_2025_03_26().await;
    // JSON-RPC's own example: three items that are not requests, three errors.
    s.send(json!([1, 2, 3])).await;
    let line = s.line().await;
    let errors = line.as_array().unwrap_or_else(|| panic!("one array: {line}"));
    assert_eq!(errors.len(), 3, "{line}");
    for error in errors {
        assert_eq!((code(error), &error["id"]), (codes::INVALID_REQUEST, &Value::Null), "{line}");
    }
    // Requests, a notification and an invalid item together.
    s.send(json!([
        { "jsonrpc": "2.0", "id": 1, "method": "ping" },
        { "jsonrpc": "2.0", "method": "notifications/roots/list_changed" },
        { "foo": "boo" },
        call(2, "echo", json!({ "x": 1 })),
        { "jsonrpc": "2.0", "id": 3, "method": 42 },
    ]))
    .await;
    let line = s.line().await;
    let answers = line.as_array().unwrap_or_else(|| panic!("one array: {line}"));
    assert_eq!(answers.len(), 4, "{line}");
    let by_id: HashMap<String, &Value> = answers.iter().map(|a| (a["id"].to_string(), a)).collect();
    assert_eq!(by_id["1"]["result"], json!({}), "{line}");
    assert_eq!(by_id["2"]["result"]["content"][0]["text"], json!({ "x": 1 }).to_string(), "{line}");
    assert_eq!(code(by_id["3"]), codes::INVALID_REQUEST, "{line}");
    assert_eq!(code(by_id["null"]), codes::INVALID_REQUEST, "{line}");
    // An id repeated in one batch: the first is served, the repeat refused while it is
    // in flight (or served too, once it is done), both answers in the one array.
    s.send(json!([{ "jsonrpc": "2.0", "id": 5, "method": "ping" }, { "jsonrpc": "2.0", "id": 5, "method": "ping" }]))
        .await;
    let line = s.line().await;
    let answers = line.as_array().unwrap_or_else(|| panic!("one array: {line}"));
    assert_eq!(answers.len(), 2, "{line}");
    assert!(answers.iter().all(|a| a["id"] == 5), "{line}");
    assert!(answers.iter().any(|a| a["result"] == json!({})), "{line}");
    let refused_or_served = |a: &Value| a["result"] == json!({}) || code(a) == codes::INVALID_REQUEST;
    assert!(answers.iter().all(refused_or_served), "{line}");
    // Notifications only: nothing at all.
    s.send(json!([{ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }])).await;
    s.silent_for(Duration::from_millis(200)).await;
    // A request cancelled before it finished is left out; the rest wait for it to settle.
    s.send(json!([call("slow", "hang", json!({})), { "jsonrpc": "2.0", "id": "quick", "method": "ping" }]))
        .await;
    s.silent_for(Duration::from_millis(200)).await;
    s.send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": "slow" } }),
    )
    .await;
    let line = s.line().await;
    assert_eq!(line, json!([{ "jsonrpc": "2.0", "id": "quick", "result": {} }]), "{line}");
    // A batch of only a cancelled request writes nothing.
    s.send(json!([call("alone", "hang", json!({}))])).await;
    s.silent_for(Duration::from_millis(100)).await;
    s.send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": "alone" } }),
    )
    .await;
    s.silent_for(Duration::from_millis(200)).await;
    // A batch past 10,000 messages is refused whole, before any is decoded: one error.
    let huge = format!("[{}]\n", vec!["1"; 4_000_000].join(","));
    s.write(huge.as_bytes()).await;
    let answer = s.line().await;
    assert_eq!((code(&answer), &answer["id"]), (codes::INVALID_REQUEST, &Value::Null), "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("at most 10000 messages"), "{answer}");
    still_usable(&mut s, "after the batches").await;
}

#[tokio::test]
async fn a_panicking_handler_is_an_internal_error_and_the_server_lives_on() {
    let mut s = initialized().await;
    for i in 0..3 {
        let answer = s.call(json!(i), "tools/call", json!({ "name": "panic" })).await;
        assert_eq!(code(&answer), codes::INTERNAL_ERROR, "{answer}");
        assert_eq!(answer["error"]["message"], "Internal error", "no detail leaks: {answer}");
    }
    still_usable(&mut s, "after").await;
}

/// A client that writes every request and then closes stdin at once (`printf ... |
/// server`, a test harness feeding a pipe) gets every answer, in both eras: what runs
/// when the input ends is answered as usual, not "Connection closed".
#[tokio::test]
async fn requests_written_then_stdin_closed_are_all_answered_in_both_eras() {
    let envelope = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let eras = [
        (
            vec![
                json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "0" } } }),
                json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
                json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }),
                call(2, "sleep", json!({ "ms": 50 })),
            ],
            "2025",
        ),
        (
            vec![
                json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": envelope } }),
                json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "sleep", "arguments": { "ms": 50 }, "_meta": envelope } }),
            ],
            "2026",
        ),
    ];
    for (messages, era) in eras {
        let mut s = server().await;
        let mut input = Vec::new();
        for message in &messages {
            input.extend(serde_json::to_vec(message).unwrap());
            input.push(b'\n');
        }
        s.write(&input).await;
        s.close_stdin();
        let mut answers = HashMap::new();
        while let Some(answer) = s.line_within(Duration::from_secs(10)).await {
            answers.insert(answer["id"].as_i64().unwrap(), answer);
        }
        assert!(answers[&1]["result"]["tools"].is_array(), "{era}: {answers:?}");
        assert!(answers[&2]["result"]["content"].is_array(), "{era}: {answers:?}");
        let status = tokio::time::timeout(Duration::from_secs(10), s.child.wait()).await.unwrap().unwrap();
        assert!(status.success(), "{era}: {status}");
    }
}

/// Requests in flight when stdin closes are each answered once, when the grace for them
/// runs out: in 2025 with the SDKs' `-32000` "Connection closed"; in 2026, which asks that
/// `-32000…-32019` not be used, with `-32603`.
#[tokio::test]
async fn shutdown_with_requests_in_flight_answers_each_exactly_once_in_both_eras() {
    let envelope = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    for era in ["2025", "2026"] {
        let mut s = match era {
            "2025" => initialized().await,
            _ => server().await,
        };
        for i in 0..20 {
            let mut request = call(i, if i % 2 == 0 { "hang" } else { "sleep" }, json!({ "ms": 60_000 }));
            if era == "2026" {
                request["params"]["_meta"] = envelope.clone();
            }
            s.send(request).await;
        }
        // Let them start, then hang up.
        tokio::time::sleep(Duration::from_millis(200)).await;
        s.close_stdin();
        let expected = match era {
            "2025" => (codes::CONNECTION_CLOSED, "Connection closed"),
            _ => (codes::INTERNAL_ERROR, "Internal error: the server is shutting down"),
        };
        let mut answered: HashMap<i64, usize> = HashMap::new();
        while let Some(answer) = s.line_within(Duration::from_secs(10)).await {
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert_eq!((code(&answer), message), expected, "{era}: {answer}");
            *answered.entry(answer["id"].as_i64().unwrap()).or_default() += 1;
        }
        assert_eq!(answered.len(), 20, "{era}: {answered:?}");
        assert!(answered.values().all(|n| *n == 1), "{era}: {answered:?}");
        let status = tokio::time::timeout(Duration::from_secs(10), s.child.wait()).await.unwrap().unwrap();
        assert!(status.success(), "{era}: {status}");
    }
}

#[tokio::test]
async fn a_peer_that_never_reads_stdout_gets_back_pressure_then_every_message() {
    let mut s = initialized().await;
    let pid = s.pid();
    let (_, hwm_before) = fixture::memory_of(pid);
    // ~55 MB of progress (50,000 messages of ~1.1 KB) on a stdout nobody reads for a while.
    let n = 50_000;
    s.send(json!({ "jsonrpc": "2.0", "id": "flood", "method": "tools/call", "params": {
        "name": "progress", "arguments": { "n": n, "pad": 1000 }, "_meta": { "progressToken": "p" } } }))
        .await;
    let mut hwm_stalled = 0;
    for _ in 0..15 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        hwm_stalled = hwm_stalled.max(fixture::memory_of(pid).1);
    }
    // The handler waits on the full pipe and the bounded channel (1024 messages, ~1 MB
    // here), so the server holds a few MB, not the 55 MB it was asked to write.
    let grown_mib = hwm_stalled.saturating_sub(hwm_before) / 1024;
    assert!(grown_mib < 24, "peak memory grew by {grown_mib} MiB while stdout was not read");
    // Reading again: every progress message, in order, then the answer, each once.
    let mut next_progress = 0;
    loop {
        let line = s.line().await;
        if line["method"] == "notifications/progress" {
            assert_eq!(line["params"]["progress"].as_f64(), Some(next_progress as f64), "{line}");
            next_progress += 1;
            continue;
        }
        assert_eq!(line["id"], "flood", "{line}");
        assert_eq!(line["result"]["content"][0]["text"], "done", "{line}");
        break;
    }
    assert_eq!(next_progress, n);
    let stats = s.call(json!("stats"), "test/stats", json!({})).await;
    assert_eq!(stats["result"]["finished"], 1, "{stats}");
    still_usable(&mut s, "after").await;
}

/// A client that closes its end of the server's stdout but keeps stdin open: no answer
/// can reach it any more, so the first write that fails ends the connection as the end
/// of input would (the running handlers are cancelled) and the server exits, rather than
/// serving, unheard, whatever still comes in.
#[tokio::test]
async fn a_client_that_closes_the_servers_stdout_ends_the_connection() {
    let mut s = initialized().await;
    s.send(call(1, "hang", json!({}))).await;
    let ChildServer { mut child, stdin, stdout, .. } = s;
    drop(stdout);
    let mut stdin = stdin.unwrap();
    // An answer to write, which finds the pipe broken.
    use tokio::io::AsyncWriteExt;
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n").await.unwrap();
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    let status = status.expect("the server went on with its stdout gone").unwrap();
    assert!(status.success(), "{status}");
    drop(stdin);
}
