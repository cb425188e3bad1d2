//! The client's 2026 result cache keeps a `resources/read` result while its `ttlMs` lasts,
//! but never one that answered a retry after `input_required` rounds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mcpwire::client::Client;
use mcpwire::protocol::elicitation::{ElicitResult, ElicitValue};
use mcpwire::protocol::{methods, CacheHint, CacheScope, ProtocolVersion};
use mcpwire::server::{resource, Ctx, Elicited, Server};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Word {
    word: String,
}

/// Counts the reads of a plain resource and the finished reads of one that asks a question.
#[derive(Default)]
struct Reads {
    plain: AtomicUsize,
    asking: AtomicUsize,
}

fn server(reads: Arc<Reads>) -> Server {
    let plain = reads.clone();
    Server::builder("cache", "1")
        .cache_hint(methods::RESOURCES_READ, CacheHint { ttl_ms: 60_000, scope: CacheScope::Private })
        .register(resource("test://plain", "plain").handler(move || {
            plain.plain.fetch_add(1, Ordering::SeqCst);
            async { "plain" }
        }))
        .register(resource("test://asking", "asking").handler(move |ctx: Ctx| {
            let reads = reads.clone();
            async move {
                let Elicited::Accepted(answer) = ctx.elicit_form::<Word>("A word?").await? else {
                    return Ok::<_, mcpwire::McpError>("no word".to_owned());
                };
                reads.asking.fetch_add(1, Ordering::SeqCst);
                Ok(answer.word)
            }
        }))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_read_that_took_input_rounds_is_not_cached_and_a_plain_one_is() {
    let reads = Arc::new(Reads::default());
    let (a, b) = mcpwire::transport::memory::pair();
    let served = server(reads.clone());
    tokio::spawn(async move { served.serve(b).await });
    let client = Client::builder("t", "1")
        .on_elicitation(|_| async {
            Ok(ElicitResult::accept(BTreeMap::from([("word".to_owned(), ElicitValue::String("hi".into()))])))
        })
        .connect(a)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2026_07_28);
    for _ in 0..2 {
        client.read_resource("test://plain").await.unwrap();
        let read = client.read_resource("test://asking").await.unwrap();
        assert_eq!(serde_json::to_value(&read.contents[0]).unwrap()["text"], "hi");
    }
    assert_eq!(reads.plain.load(Ordering::SeqCst), 1, "the plain read came from the cache the second time");
    assert_eq!(reads.asking.load(Ordering::SeqCst), 2, "the read that took a round is never cached");
    client.close().await;
}
