//! The client's 2026 result cache keeps a `resources/read` result while its `ttlMs` lasts,
//! but never one that answered a retry after `input_required` rounds; a refused cursor
//! drops every cached page of its list.
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

/// Rule 8.5: a cursor the server refuses means the pages it came from are gone: every
/// cached page of that list is dropped, so the next listing asks the server again.
#[tokio::test]
async fn a_refused_cursor_drops_every_cached_page_of_its_list() {
    use mcpwire::protocol::Request;
    use mcpwire::server::{middleware_fn, tool, Next};

    let lists = Arc::new(AtomicUsize::new(0));
    let counted = lists.clone();
    let server = Server::builder("pages", "1")
        .cache_hint(methods::TOOLS_LIST, CacheHint { ttl_ms: 60_000, scope: CacheScope::Private })
        .page_size(1)
        .middleware(middleware_fn(move |request: Request, ctx, next: Next| {
            if request.method == methods::TOOLS_LIST {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            async move { next.run(request, ctx).await }
        }))
        .tool(tool("a").handler(|| "a"))
        .tool(tool("b").handler(|| "b"))
        .build()
        .unwrap();
    let (ours, theirs) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(theirs).await });
    let client =
        Client::builder("t", "1").protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();

    let first = client.list_tools(None).await.unwrap();
    assert!(first.next_cursor.is_some());
    client.list_tools(None).await.unwrap();
    assert_eq!(lists.load(Ordering::SeqCst), 1, "the first page is cached");
    let refused = client.list_tools(Some("not-a-cursor")).await.unwrap_err();
    assert!(matches!(&refused, mcpwire::RequestError::Peer(e) if e.code == -32602), "{refused:?}");
    client.list_tools(None).await.unwrap();
    assert_eq!(lists.load(Ordering::SeqCst), 3, "the refused cursor dropped the cached first page");
    client.close().await;
}
