//! A 2025-03-26 server may send JSON-RPC batches, and a client of that revision must take
//! them in: the HTTP client reads a batch in an SSE event as it reads one in a JSON body.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod raw_http_server;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::{Client, ClientOptions};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::http_client::HttpClientTransport;
use serde_json::json;

/// Rule 2.12 (2025-03-26: batches MUST be received): a request answered on its SSE
/// stream by one event holding a batch (a log message, then the response) gets its
/// result, and the log message arrives too.
#[tokio::test]
async fn a_batch_in_an_sse_event_is_taken_in() {
    let url = raw_http_server::serve(raw_http_server::Script {
        version: "2025-03-26",
        get: |_| None,
        request: |request| {
            let batch = json!([
                { "jsonrpc": "2.0", "method": "notifications/message",
                  "params": { "level": "info", "data": "from a batch" } },
                { "jsonrpc": "2.0", "id": request["id"], "result": { "tools": [] } },
            ]);
            format!("id: e1\ndata: {batch}\n\n")
        },
    })
    .await;
    let logs = Arc::new(Mutex::new(Vec::new()));
    let seen = logs.clone();
    let options = ClientOptions { request_timeout: Duration::from_secs(3), ..Default::default() };
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2025_03_26)
        .options(options)
        .on_log(move |log| seen.lock().unwrap().push(log.data))
        .connect(HttpClientTransport::new(&url).unwrap())
        .await
        .unwrap();
    assert_eq!(client.protocol_version().as_str(), "2025-03-26");
    let listed = client.list_tools(None).await.expect("the batched answer was not taken in");
    assert!(listed.tools.is_empty());
    assert_eq!(*logs.lock().unwrap(), [json!("from a batch")]);
    client.close().await;
}
