//! The client's `list_all_*` against a server whose cursors go round in a circle: an
//! error naming the cursor that came back, not a loop that never ends while its items
//! fill memory.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use mcpwire::client::Client;
use mcpwire::protocol::{Message, ProtocolVersion, Response};
use mcpwire::transport::{memory, Outgoing, TransportEvent};
use mcpwire::RequestError;
use serde_json::{json, Value};

/// A 2026 client of a server that answers every `tools/list` with `page(params)`: its
/// tools and its `nextCursor`.
async fn paged(mut page: impl FnMut(&Value) -> (Vec<Value>, String) + Send + 'static) -> Client {
    let (ours, mut theirs) = memory::pair();
    tokio::spawn(async move {
        while let Some(TransportEvent::Message(inbound)) = theirs.incoming.recv().await {
            let Message::Request(request) = inbound.message else { continue };
            let params: Value =
                request.params.as_deref().map_or(Value::Null, |p| serde_json::from_str(p.get()).unwrap());
            let (tools, next) = page(&params);
            let page = json!({ "resultType": "complete", "tools": tools, "nextCursor": next, "ttlMs": 0, "cacheScope": "private" });
            let answer = Response::new(request.id, serde_json::value::to_raw_value(&page).unwrap());
            if theirs.outgoing.send(Outgoing::unrelated(answer)).await.is_err() {
                return;
            }
        }
    });
    Client::builder("c", "1").protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap()
}

#[tokio::test]
async fn cursors_that_come_back_end_the_listing_with_an_error() {
    // Page "A" leads to "B", every other page to "A": first, A, B, A, ...
    let client = paged(|params| {
        let next = if params["cursor"] == "A" { "B" } else { "A" };
        (vec![json!({ "name": format!("t-{next}"), "inputSchema": { "type": "object" } })], next.to_owned())
    })
    .await;
    let listed =
        tokio::time::timeout(Duration::from_secs(10), client.list_all_tools()).await.expect("it ends");
    match listed {
        Err(RequestError::Protocol(message)) => {
            assert!(message.contains("cursor \"A\" came back"), "{message}")
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
    client.close().await;
}

/// A server whose every page is large and new (no cursor comes back): the listing ends
/// once it holds more than 100,000 items, rather than gathering 10,000 such pages.
#[tokio::test]
async fn a_list_past_the_item_bound_ends_with_an_error() {
    let mut page_no = 0u64;
    let client = paged(move |_| {
        page_no += 1;
        let tools = (0..10_000)
            .map(|i| json!({ "name": format!("t-{page_no}-{i}"), "inputSchema": { "type": "object" } }))
            .collect();
        (tools, page_no.to_string())
    })
    .await;
    let listed =
        tokio::time::timeout(Duration::from_secs(60), client.list_all_tools()).await.expect("it ends");
    match listed {
        Err(RequestError::Protocol(message)) => {
            assert!(message.contains("more than 100000 items"), "{message}")
        }
        other => panic!("expected a protocol error, got {:?}", other.map(|t| t.len())),
    }
    client.close().await;
}

/// A server whose pages are few items but many bytes (here 4 MiB of padding each, as a
/// huge description or cursor would be): the listing ends once its pages passed 64 MiB
/// in all, rather than gathering 10,000 pages of up to the message size each.
#[tokio::test]
async fn a_list_past_the_byte_bound_ends_with_an_error() {
    let (ours, mut theirs) = memory::pair();
    tokio::spawn(async move {
        let pad = " ".repeat(4 << 20);
        let mut pages = 0;
        while let Some(TransportEvent::Message(inbound)) = theirs.incoming.recv().await {
            let Message::Request(request) = inbound.message else { continue };
            // 40 pages (160 MiB), then the end: a client without the bound lists them all.
            pages += 1;
            let next = match pages < 40 {
                true => format!(r#","nextCursor":"{pages}""#),
                false => String::new(),
            };
            let page = format!(r#"{{"resultType":"complete","tools":[]{pad}{next},"ttlMs":0}}"#);
            let answer = Response::new(request.id, serde_json::value::RawValue::from_string(page).unwrap());
            if theirs.outgoing.send(Outgoing::unrelated(answer)).await.is_err() {
                return;
            }
        }
    });
    let client =
        Client::builder("c", "1").protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();
    let listed =
        tokio::time::timeout(Duration::from_secs(60), client.list_all_tools()).await.expect("it ends");
    match listed {
        Err(RequestError::Protocol(message)) => assert!(message.contains("more than 64 MiB"), "{message}"),
        other => panic!("expected a protocol error, got {:?}", other.map(|t| t.len())),
    }
    client.close().await;
}
