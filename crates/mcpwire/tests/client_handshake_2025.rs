//! The 2025 client against a hand-driven server: the versions it accepts at the handshake,
//! what is left of the connection when it cannot use the server's answer, and a session
//! that outlives a notification callback's panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod raw_server;

use std::time::Duration;

use mcpwire::client::{Client, ClientBuilder, ClientOptions, ConnectError};
use mcpwire::protocol::{Message, ProtocolVersion};
use mcpwire::transport::{memory, TransportEvent};
use raw_server::*;
use serde_json::{json, Value};

fn pinned() -> ClientBuilder {
    Client::builder("c", "1").protocol_version(ProtocolVersion::V2025_11_25)
}

/// What the client wrote until its end of the pair closed; `Err` with what it wrote if
/// it was still open after 3 s.
async fn until_closed(raw: &mut RawServer) -> Result<Vec<Message>, Vec<Message>> {
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        match tokio::time::timeout_at(deadline, raw.conn.incoming.recv()).await {
            Err(_) => return Err(seen),
            Ok(None) => return Ok(seen),
            Ok(Some(TransportEvent::Message(m))) => seen.push(m.message),
            Ok(Some(_)) => {}
        }
    }
}

/// A handshake answered with `answer` (none: never answered) fails to connect, and the
/// client then closes the connection, having written nothing after `initialize` (neither
/// `notifications/initialized` nor a cancel of `initialize`).
async fn refused(answer: Option<Value>) -> ConnectError {
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let options = ClientOptions { request_timeout: Duration::from_millis(300), ..Default::default() };
    let connecting = tokio::spawn(pinned().options(options).connect(ours));
    let init = raw.next_request("initialize").await;
    if let Some(answer) = &answer {
        raw.answer(init.id, answer.clone()).await;
    }
    let error = connecting.await.unwrap().expect_err("connected");
    match until_closed(&mut raw).await {
        Ok(after) => assert!(after.is_empty(), "{answer:?}: sent after initialize: {after:?}"),
        Err(after) => panic!("{answer:?}: the connection is still open after {error}; sent {after:?}"),
    }
    error
}

/// Rule 1.4: a client that cannot use the server's `initialize` answer (a version it does
/// not speak, an answer it cannot read, no answer at all) disconnects.
#[tokio::test]
async fn a_client_that_cannot_use_the_initialize_answer_disconnects() {
    let mut unknown = initialize_result();
    unknown["protocolVersion"] = json!("1999-01-01");
    let error = refused(Some(unknown)).await;
    assert!(
        matches!(&error, ConnectError::NoSharedVersion { supported } if supported == &["1999-01-01"]),
        "{error}"
    );
    for unreadable in
        [json!(null), json!({ "protocolVersion": 5 }), json!({ "protocolVersion": "2025-11-25" })]
    {
        let error = refused(Some(unreadable.clone())).await;
        assert!(matches!(error, ConnectError::InvalidAnswer(_)), "{unreadable}: {error}");
    }
    let error = refused(None).await;
    assert!(
        matches!(error, ConnectError::Handshake(mcpwire::error::RequestError::Timeout { .. })),
        "{error}"
    );
}

/// Rule 1.3: an older version the server answers with, which the client speaks, is the
/// session's version.
#[tokio::test]
async fn an_older_version_the_server_answers_with_is_used() {
    let (ours, theirs) = memory::pair();
    let mut raw = RawServer { conn: theirs };
    let connecting = tokio::spawn(pinned().connect(ours));
    let init = raw.next_request("initialize").await;
    assert_eq!(params_of(&init)["protocolVersion"], "2025-11-25", "the newest version is offered");
    let mut answer = initialize_result();
    answer["protocolVersion"] = json!("2024-11-05");
    raw.answer(init.id, answer).await;
    assert_eq!(raw.next().await.method(), Some("notifications/initialized"));
    let client = connecting.await.unwrap().unwrap();
    assert_eq!(client.protocol_version().as_str(), "2024-11-05");
    client.close().await;
}

/// A change or finished-elicitation callback that panics loses that notification only: the
/// connection reads on (the log callback's panic was already contained).
#[tokio::test]
async fn a_panicking_notification_callback_does_not_end_the_connection() {
    let builder = Client::builder("c", "1")
        .on_change(|_| panic!("the change callback fails"))
        .on_elicitation_complete(|_| panic!("the elicitation callback fails"));
    let (client, mut raw, _) = connect_2025(builder).await;
    let note = |method: &str, params: Value| {
        mcpwire::protocol::Notification::new(method, Some(serde_json::value::to_raw_value(&params).unwrap()))
    };
    raw.send(note("notifications/tools/list_changed", json!({}))).await;
    raw.send(note("notifications/elicitation/complete", json!({ "elicitationId": "e1" }))).await;
    let answering = async {
        let list = raw.next_request("tools/list").await;
        raw.answer(list.id, json!({ "tools": [] })).await;
    };
    let (listed, ()) = tokio::join!(client.list_tools(None), answering);
    assert!(listed.unwrap().tools.is_empty());
    assert!(!client.is_closed());
    client.close().await;
}
