//! Hostile use of 2025 sessions over Streamable HTTP, on real sockets: a request id
//! reused while in flight (alone or in a 2025-03-26 batch), stray responses and cancels, a cancel racing its answer,
//! requests before `initialize` or after `DELETE`, guessed session ids, and a session
//! header repeated or not text. Each gets its
//! exact status and error, each stream ends exactly once, and the session goes on.
//!
//! The fixture server runs in this process; requests are written by hand on raw TCP
//! (`raw_http`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "hostile_fixture.rs"]
mod fixture;
mod hostile_http_support;
mod mcp_http;
mod raw_http;

use std::sync::atomic::Ordering;

use hostile_http_support::{
    answer, call_body, code, get_stream, in_session, local, messages, open_session, post, V25,
};
use mcpwire::http::HttpSettings;
use mcpwire::protocol::codes;
use raw_http::{send, Req};
use serde_json::{json, Value};

#[tokio::test]
async fn duplicate_ids_responses_and_unknown_cancels_in_a_session() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let slow = post(addr, &session, &call_body(1, "sleep", json!({ "ms": 300 }))).await;
    assert_eq!(slow.status, 200);
    let dup = post(addr, &session, &call_body(1, "echo", json!({}))).await;
    assert_eq!(dup.status, 400);
    let answered = dup.json().await;
    assert_eq!((answered["id"].clone(), code(&answered)), (json!(1), codes::INVALID_REQUEST), "{answered}");
    let answered = answer(slow).await;
    assert_eq!(answered["result"]["content"][0]["text"], "slept", "{answered}");
    // Responses and notifications are accepted with 202 and no body.
    for body in [
        json!({ "jsonrpc": "2.0", "id": 777, "result": {} }),
        json!({ "jsonrpc": "2.0", "id": 778, "error": { "code": 1, "message": "x" } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 4242 } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/unknown" }),
    ] {
        let resp = post(addr, &session, &body).await;
        assert_eq!(resp.status, 202, "{body}");
        assert!(resp.bytes().await.is_empty());
    }
    let resp = post(addr, &session, &json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" })).await;
    assert_eq!(answer(resp).await["result"], json!({}));
    bound.shutdown.cancel();
}

/// A 2025-03-26 batch whose requests repeat an id, or name one in flight on another
/// POST, is still a batch: each duplicate gets its own `-32600` in the answer array, and
/// every other member runs and is answered (JSON-RPC 2.0 answers a batch member by
/// member), with a session and without one.
#[tokio::test]
async fn a_batch_repeating_an_id_answers_each_member() {
    for sessionless in [false, true] {
        let (bound, _) = local(HttpSettings { sessionless, ..HttpSettings::default() }).await;
        let addr = bound.local_addr;
        let session = match sessionless {
            false => Some(open_session(addr, "2025-03-26").await),
            true => None,
        };
        let batch_post = |body: Value| {
            let req = Req::post(&body);
            match &session {
                Some(sid) => req.header("mcp-session-id", sid),
                None => req,
            }
        };
        let ping = |id: Value| json!({ "jsonrpc": "2.0", "id": id, "method": "ping" });
        let batch = json!([
            ping(json!(1)),
            ping(json!(1)),
            call_body(2, "echo", json!({ "text": "two" })),
            { "jsonrpc": "2.0", "method": "notifications/unknown" },
            ping(json!(1)),
            ping(json!("1")),
        ]);
        let resp = send(addr, batch_post(batch)).await;
        assert_eq!(resp.status, 200, "sessionless: {sessionless}");
        let answers = batch_answers(resp).await;
        let shown = format!("sessionless: {sessionless}: {answers:?}");
        assert_eq!(answers.len(), 5, "{shown}");
        let (refused, answered): (Vec<&Value>, Vec<&Value>) =
            answers.iter().partition(|a| a.get("error").is_some());
        let result_of = |id: Value| answered.iter().find(|a| a["id"] == id).map(|a| a["result"].clone());
        assert_eq!(result_of(json!(1)), Some(json!({})), "{shown}");
        assert_eq!(result_of(json!("1")), Some(json!({})), "{shown}");
        assert!(result_of(json!(2)).is_some_and(|r| r["content"][0]["text"].is_string()), "{shown}");
        assert_eq!(refused.len(), 2, "{shown}");
        for refused in refused {
            assert_eq!((refused["id"].clone(), code(refused)), (json!(1), codes::INVALID_REQUEST), "{shown}");
        }
        // One id twice: the first answered, the second refused at once (so written first),
        // with a message naming the id.
        let resp = send(addr, batch_post(json!([ping(json!(7)), ping(json!(7))]))).await;
        assert_eq!(resp.status, 200, "sessionless: {sessionless}");
        let refused = "Invalid request: request id 7 is already in flight";
        assert_eq!(
            batch_answers(resp).await,
            vec![
                json!({ "jsonrpc": "2.0", "id": 7, "error": { "code": codes::INVALID_REQUEST, "message": refused } }),
                json!({ "jsonrpc": "2.0", "id": 7, "result": {} }),
            ],
            "sessionless: {sessionless}"
        );
        if let Some(sid) = &session {
            // An id in flight on another POST: that member alone is refused.
            let slow = send(
                addr,
                in_session(Req::post(&call_body(9, "sleep", json!({ "ms": 500 }))), sid, "2025-03-26"),
            )
            .await;
            let batch = json!([call_body(9, "echo", json!({})), ping(json!(10))]);
            let resp = send(addr, batch_post(batch)).await;
            let answers = batch_answers(resp).await;
            assert_eq!(answers.len(), 2, "{answers:?}");
            let refused = answers.iter().find(|a| a["id"] == 9).unwrap();
            assert_eq!(code(refused), codes::INVALID_REQUEST, "{answers:?}");
            assert!(answers.iter().any(|a| a["id"] == 10 && a["result"] == json!({})), "{answers:?}");
            assert_eq!(answer(slow).await["result"]["content"][0]["text"], "slept");
            // The whole batch in flight elsewhere: an array of errors, with 400.
            let slow = send(
                addr,
                in_session(Req::post(&call_body(11, "sleep", json!({ "ms": 500 }))), sid, "2025-03-26"),
            )
            .await;
            let resp = send(addr, batch_post(json!([call_body(11, "echo", json!({}))]))).await;
            assert_eq!(resp.status, 400);
            let refused = resp.json().await;
            assert_eq!(refused.as_array().map(Vec::len), Some(1), "{refused}");
            assert_eq!((refused[0]["id"].clone(), code(&refused[0])), (json!(11), codes::INVALID_REQUEST));
            assert_eq!(answer(slow).await["result"]["content"][0]["text"], "slept");
        }
        bound.shutdown.cancel();
    }
}

/// The answers of a batch: the members of its JSON array, or its SSE events.
async fn batch_answers(resp: raw_http::Response) -> Vec<Value> {
    let answers = messages(resp).await;
    match <[Value; 1]>::try_from(answers) {
        Ok([Value::Array(members)]) => members,
        Ok([one]) => vec![one],
        Err(events) => events,
    }
}

#[tokio::test]
async fn a_cancel_racing_the_response_ends_each_stream_exactly_once() {
    let (bound, stats) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let mut streams = Vec::new();
    for i in 0..40 {
        let resp = post(addr, &session, &call_body(i, "sleep", json!({ "ms": i % 3 }))).await;
        let cancel =
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": i } });
        assert_eq!(post(addr, &session, &cancel).await.status, 202);
        streams.push((i, resp));
    }
    for (i, resp) in streams {
        let answers: Vec<Value> =
            messages(resp).await.into_iter().filter(|e| e.get("method").is_none()).collect();
        assert_eq!(answers.len(), 1, "{i}: {answers:?}");
        let a = &answers[0];
        assert_eq!(a["id"], i);
        // Either its result, or the SDK's terminator for a cancelled request.
        assert!(a["result"]["content"][0]["text"] == "slept" || code(a) == codes::REQUEST_CANCELLED, "{a}");
    }
    let (started, dropped, finished) = (
        stats.started.load(Ordering::SeqCst),
        stats.dropped.load(Ordering::SeqCst),
        stats.finished.load(Ordering::SeqCst),
    );
    assert_eq!(started, dropped + finished);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn the_2025_session_lifecycle_is_enforced() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    // Before initialize: no session.
    let resp = send(addr, Req::post(&list).header("mcp-protocol-version", V25)).await;
    assert_eq!(resp.status, 400);
    assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST);
    let get = Req::new("GET").header("accept", "text/event-stream").header("mcp-protocol-version", V25);
    assert_eq!(send(addr, get).await.status, 400);
    let session = open_session(addr, V25).await;
    assert_eq!(session.len(), 32);
    assert!(session.bytes().all(|b| b.is_ascii_hexdigit()));
    let resp = post(addr, &session, &list).await;
    assert!(answer(resp).await["result"]["tools"].is_array());
    // Ending the session: DELETE, then 404 for everything on it.
    let delete = || in_session(Req::new("DELETE"), &session, V25);
    assert_eq!(send(addr, delete()).await.status, 200);
    assert_eq!(post(addr, &session, &list).await.status, 404);
    assert_eq!(get_stream(addr, &session, None).await.status, 404);
    assert_eq!(send(addr, delete()).await.status, 404);
    bound.shutdown.cancel();
}

#[tokio::test]
async fn session_ids_cannot_be_guessed() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let session = open_session(addr, V25).await;
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    // Near misses and wild guesses.
    let mut guesses = vec![
        session.to_uppercase(),
        session[..31].to_owned(),
        format!("{session}0"),
        format!("{}{}", &session[..31], if session.ends_with('0') { "1" } else { "0" }),
        "0".repeat(32),
        "1".to_owned(),
        "../../etc/passwd".to_owned(),
    ];
    let mut seed = 0x243f_6a88_85a3_08d3_u64;
    for _ in 0..500 {
        let mut id = String::new();
        for _ in 0..2 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            id.push_str(&format!("{seed:016x}"));
        }
        guesses.push(id);
    }
    for guess in &guesses {
        let resp = post(addr, guess, &ping).await;
        assert_eq!(resp.status, 404, "{guess}");
        assert_eq!(code(&resp.json().await), codes::INVALID_REQUEST);
    }
    let resp = post(addr, &session, &ping).await;
    assert_eq!(answer(resp).await["result"], json!({}));
    bound.shutdown.cancel();
}

/// Two `Mcp-Session-Id` headers name no one session (a proxy reading the last one would
/// check another session than the endpoint serves): POST, GET and DELETE refuse them with
/// `400`, as a repeated `MCP-Protocol-Version` is refused, whatever their order, and touch
/// neither session. A value that is not text is refused as such, not as a missing header.
#[tokio::test]
async fn a_repeated_or_unreadable_session_header_is_refused() {
    let (bound, _) = local(HttpSettings::default()).await;
    let addr = bound.local_addr;
    let (mine, other) = (open_session(addr, V25).await, open_session(addr, V25).await);
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    for (first, second) in [(&mine, &other), (&other, &mine), (&mine, &mine), (&mine, &"bogus".to_owned())] {
        let twice = |req: Req| {
            req.header("mcp-session-id", first)
                .header("mcp-session-id", second)
                .header("mcp-protocol-version", V25)
        };
        let requests = [
            twice(Req::post(&ping)),
            twice(Req::new("GET").header("accept", "text/event-stream")),
            twice(Req::new("DELETE")),
        ];
        for req in requests {
            let method = req.method.clone();
            let resp = send(addr, req).await;
            assert_eq!(resp.status, 400, "{method} {first} {second}");
            let refused = resp.json().await;
            assert_eq!(code(&refused), codes::INVALID_REQUEST, "{method}: {refused}");
            assert!(
                refused["error"]["message"].as_str().unwrap().contains("repeated"),
                "{method}: {refused}"
            );
        }
    }
    let resp = send(addr, in_session(Req::post(&ping), "caf\u{e9}", V25)).await;
    assert_eq!(resp.status, 400);
    let refused = resp.json().await;
    assert!(refused["error"]["message"].as_str().unwrap().contains("not valid text"), "{refused}");
    // Both sessions live on.
    for session in [&mine, &other] {
        assert_eq!(answer(post(addr, session, &ping).await).await["result"], json!({}));
    }
    bound.shutdown.cancel();
}
