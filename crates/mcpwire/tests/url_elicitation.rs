//! URL-mode elicitation beyond `ctx.elicit`: a handler that needs the user to finish
//! something out of band first answers `-32042` in a 2025-11-25 session (the client reads
//! the URLs from the error and hears `notifications/elicitation/complete` later), and the
//! same handler in 2026, which has no `-32042`, asks for the URLs in an `input_required`
//! round. A middleware's `-32042`, which the server cannot hold to the capabilities the
//! request declared, never leaves a 2026 request as `-32042` either.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::Client;
use mcpwire::protocol::elicitation::{
    ElicitAction, ElicitRequestParams, ElicitRequestURLParams, ElicitResult,
};
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{middleware_fn, tool, Ctx, Server};
use mcpwire::McpError;
use serde_json::json;

fn payment_page() -> ElicitRequestURLParams {
    serde_json::from_value(json!({
        "mode": "url",
        "message": "Pay for the report",
        "url": "https://pay.example/checkout/7",
        "elicitationId": "pay-7",
    }))
    .unwrap()
}

/// `report` needs the payment done first; `paid` is what the payment provider's callback
/// would do: mark it done and tell the client.
fn server(paid: Arc<AtomicBool>) -> Server {
    let done = paid.clone();
    Server::builder("shop", "1")
        .tool(tool("report").description("A paid report").handler(move || {
            let paid = paid.clone();
            async move {
                match paid.load(Ordering::SeqCst) {
                    true => Ok("the report"),
                    false => Err(McpError::url_elicitation_required(vec![payment_page()])),
                }
            }
        }))
        .tool(tool("paid").description("The payment went through").handler(move |ctx: Ctx| {
            let done = done.clone();
            async move {
                done.store(true, Ordering::SeqCst);
                ctx.notify_elicitation_complete("pay-7").await;
                "noted"
            }
        }))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_2025_session_answers_32042_and_later_says_the_elicitation_is_complete() {
    let paid = Arc::new(AtomicBool::new(false));
    let (ours, theirs) = mcpwire::transport::memory::pair();
    let served = server(paid.clone());
    tokio::spawn(async move { served.serve(theirs).await });
    let (tx, mut completed) = tokio::sync::mpsc::unbounded_channel();
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2025_11_25)
        .on_elicitation(|_| async { Ok(ElicitResult::action(ElicitAction::Cancel)) })
        .elicitation_url(true)
        .on_elicitation_complete(move |id| tx.send(id).unwrap())
        .connect(ours)
        .await
        .unwrap();

    let refused = client.call_tool("report", json!({})).await.unwrap_err();
    assert_eq!(refused.peer_error().map(|e| e.code), Some(-32042), "{refused:?}");
    assert_eq!(refused.url_elicitations(), Some(vec![payment_page()]));

    client.call_tool("paid", json!({})).await.unwrap();
    let id = tokio::time::timeout(Duration::from_secs(5), completed.recv()).await.unwrap();
    assert_eq!(id.as_deref(), Some("pay-7"));
    let report = client.call_tool("report", json!({})).await.unwrap();
    assert_eq!(report.content[0].as_text(), Some("the report"));
    client.close().await;
}

#[tokio::test]
async fn in_2026_the_same_handler_asks_for_the_url_in_an_input_round() {
    let paid = Arc::new(AtomicBool::new(false));
    let (ours, theirs) = mcpwire::transport::memory::pair();
    let served = server(paid.clone());
    tokio::spawn(async move { served.serve(theirs).await });
    let asked = Arc::new(Mutex::new(Vec::new()));
    let (seen, pay) = (asked.clone(), paid.clone());
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2026_07_28)
        .on_elicitation(move |params: ElicitRequestParams| {
            seen.lock().unwrap().push(params);
            // The user opens the page and pays.
            pay.store(true, Ordering::SeqCst);
            async { Ok(ElicitResult::action(ElicitAction::Accept)) }
        })
        .elicitation_url(true)
        .connect(ours)
        .await
        .unwrap();
    let report = client.call_tool("report", json!({})).await.unwrap();
    assert_eq!(report.content[0].as_text(), Some("the report"));
    let asked = asked.lock().unwrap().clone();
    let [ElicitRequestParams::Url(url)] = asked.as_slice() else { panic!("one URL elicitation: {asked:?}") };
    assert_eq!((url.url.as_str(), url.elicitation_id.as_deref()), ("https://pay.example/checkout/7", None));
    client.close().await;

    // A client that did not declare URL elicitation gets -32021 naming it.
    let (ours, theirs) = mcpwire::transport::memory::pair();
    let served = server(Arc::new(AtomicBool::new(false)));
    tokio::spawn(async move { served.serve(theirs).await });
    let client =
        Client::builder("c", "1").protocol_version(ProtocolVersion::V2026_07_28).connect(ours).await.unwrap();
    let refused = client.call_tool("report", json!({})).await.unwrap_err();
    let error = refused.peer_error().expect("the server's error");
    assert_eq!(error.code, -32021, "{error:?}");
    assert_eq!(error.data.as_ref().unwrap()["requiredCapabilities"], json!({ "elicitation": { "url": {} } }));
    client.close().await;
}

/// A 2026 server that asks a URL elicitation of a client that declared form mode only
/// (which the server must not do) does not reach the client's callback: the user is not
/// sent to a URL the client never said it could show, and the retry declines it, as a
/// 2025 client refuses the same request.
#[tokio::test]
async fn in_2026_an_undeclared_url_elicitation_is_declined_without_asking() {
    use mcpwire::protocol::{Message, Response};
    use mcpwire::transport::{Outgoing, TransportEvent};

    let (ours, mut theirs) = mcpwire::transport::memory::pair();
    let retry = tokio::spawn(async move {
        let mut rounds = Vec::new();
        while let Some(TransportEvent::Message(inbound)) = theirs.incoming.recv().await {
            let Message::Request(request) = inbound.message else { continue };
            let params: serde_json::Value =
                serde_json::from_str(request.params.as_ref().unwrap().get()).unwrap();
            let result = match rounds.len() {
                0 => json!({ "resultType": "input_required", "inputRequests": { "pay": {
                    "method": "elicitation/create",
                    "params": { "mode": "url", "message": "Pay first", "url": "https://pay.example/checkout/7" } } } }),
                _ => json!({ "resultType": "complete", "content": [{ "type": "text", "text": "done" }] }),
            };
            rounds.push(params);
            let answer = Response::new(request.id, serde_json::value::to_raw_value(&result).unwrap());
            theirs.outgoing.send(Outgoing::unrelated(answer)).await.unwrap();
            if rounds.len() == 2 {
                return rounds;
            }
        }
        rounds
    });
    let asked = Arc::new(AtomicBool::new(false));
    let seen = asked.clone();
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2026_07_28)
        .on_elicitation(move |_params: ElicitRequestParams| {
            seen.store(true, Ordering::SeqCst);
            async { Ok(ElicitResult::action(ElicitAction::Accept)) }
        })
        .connect(ours)
        .await
        .unwrap();
    let result = client.call_tool("report", json!({})).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("done"));
    let rounds = retry.await.unwrap();
    assert_eq!(rounds[1]["inputResponses"], json!({ "pay": { "action": "decline" } }), "{}", rounds[1]);
    assert!(!asked.load(Ordering::SeqCst), "the callback was asked an undeclared URL elicitation");
    client.close().await;
}

/// A URL question written without an `elicitationId` (2026 has none: a handler written
/// for both eras, or a proxy relaying a 2026 server's question) still carries one to a
/// 2025-11-25 client, whose revision requires it, and each question its own.
#[tokio::test]
async fn a_2025_url_elicitation_always_carries_an_elicitation_id() {
    let server = Server::builder("shop", "1")
        .tool(tool("checkout").description("Asks twice").handler(|ctx: Ctx| async move {
            let mut page = payment_page();
            page.elicitation_id = None;
            for _ in 0..2 {
                ctx.elicit(ElicitRequestParams::Url(page.clone())).await?;
            }
            Ok::<_, McpError>("paid")
        }))
        .build()
        .unwrap();
    let (ours, theirs) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(theirs).await });
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2025_11_25)
        .on_elicitation(move |params: ElicitRequestParams| {
            seen.lock().unwrap().push(params);
            async { Ok(ElicitResult::action(ElicitAction::Accept)) }
        })
        .elicitation_url(true)
        .connect(ours)
        .await
        .unwrap();
    let paid = client.call_tool("checkout", json!({})).await.unwrap();
    assert_eq!(paid.content[0].as_text(), Some("paid"));
    let ids: Vec<Option<String>> = asked
        .lock()
        .unwrap()
        .iter()
        .map(|p| match p {
            ElicitRequestParams::Url(url) => url.elicitation_id.clone(),
            other => panic!("a URL elicitation: {other:?}"),
        })
        .collect();
    assert!(ids.iter().all(|id| id.as_ref().is_some_and(|id| !id.is_empty())), "{ids:?}");
    assert_ne!(ids[0], ids[1], "two questions, one id");
    client.close().await;
}

/// Content comes only with an accepted form (the schema of every revision that has
/// elicitation): a handler never sees values a client sent with a URL elicitation or
/// with a declined form, in either era.
#[tokio::test]
async fn content_reaches_the_handler_only_with_an_accepted_form() {
    use mcpwire::protocol::elicitation::{ElicitRequestFormParams, ElicitValue};
    let server = Server::builder("shop", "1")
        .tool(tool("checkout").description("Asks twice").handler(|ctx: Ctx| async move {
            let paid = ctx.elicit_as("pay", ElicitRequestParams::Url(payment_page())).await?;
            let form: ElicitRequestFormParams = serde_json::from_value(json!({
                "message": "Your name?",
                "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } },
            }))
            .unwrap();
            let named = ctx.elicit_as("name", ElicitRequestParams::Form(form)).await?;
            Ok::<_, McpError>(format!("{:?} {:?}", paid.content, named.content))
        }))
        .build()
        .unwrap();
    for era_2025 in [true, false] {
        let (ours, theirs) = mcpwire::transport::memory::pair();
        let served = server.clone();
        tokio::spawn(async move { served.serve(theirs).await });
        let mut builder = Client::builder("c", "1")
            .on_elicitation(|params: ElicitRequestParams| async move {
                let content = [("name".to_owned(), ElicitValue::String("Eve".into()))].into();
                let action = match params {
                    ElicitRequestParams::Url(_) => ElicitAction::Accept,
                    ElicitRequestParams::Form(_) => ElicitAction::Decline,
                };
                Ok(ElicitResult { action, content: Some(content), meta: None })
            })
            .elicitation_url(true);
        if era_2025 {
            builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
        }
        let client = builder.connect(ours).await.unwrap();
        let result = client.call_tool("checkout", json!({})).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("None None"), "2025: {era_2025}");
        client.close().await;
    }
}

/// A server whose middleware refuses `tools/call` of `report` with `-32042` until the
/// payment is done, before the request reaches any handler.
fn gated_server() -> Server {
    let gate = middleware_fn(|request, ctx, next| async move {
        let asks_report = request.method == "tools/call"
            && request.params.as_ref().is_some_and(|p| p.get().contains("\"report\""));
        if asks_report {
            return Err(McpError::url_elicitation_required(vec![payment_page()]));
        }
        next.run(request, ctx).await
    });
    Server::builder("shop", "1")
        .middleware(gate)
        .tool(tool("report").description("A paid report").handler(|| async { "the report" }))
        .build()
        .unwrap()
}

/// Calls `report` of [`gated_server`] over `transport` in `version` (declaring URL
/// elicitation) and returns the server's error.
async fn gated_report_error(
    transport: impl mcpwire::transport::Transport,
    version: ProtocolVersion,
) -> mcpwire::protocol::ErrorObject {
    let client = Client::builder("c", "1")
        .protocol_version(version)
        .on_elicitation(|_| async { Ok(ElicitResult::action(ElicitAction::Accept)) })
        .elicitation_url(true)
        .connect(transport)
        .await
        .unwrap();
    let call = client.call_tool("report", json!({}));
    let refused = tokio::time::timeout(Duration::from_secs(10), call).await.unwrap().unwrap_err();
    client.close().await;
    refused.peer_error().cloned().unwrap_or_else(|| panic!("the server's error: {refused:?}"))
}

/// 2026 has no `-32042` (a 2026 server must not emit it). A middleware's is not turned into
/// an `input_required` round (that round must be held to the capabilities this request
/// declared, which the request carried into the chain), so the client gets `-32603` saying
/// why, over a connection and over HTTP alike; its URLs stay in `data`. A 2025-11-25
/// session gets the middleware's `-32042` as it is.
#[tokio::test]
async fn a_middlewares_32042_never_leaves_a_2026_request_as_32042() {
    let in_2026 = |error: &mcpwire::protocol::ErrorObject, over: &str| {
        assert_eq!(error.code, -32603, "{over}: {error:?}");
        assert!(
            error.message.contains("-32042") && error.message.contains("2026-07-28"),
            "{over}: {error:?}"
        );
        let data = error.data.as_ref().unwrap_or_else(|| panic!("{over}: the URLs in data: {error:?}"));
        assert_eq!(data["elicitations"][0]["url"], "https://pay.example/checkout/7", "{over}: {error:?}");
    };

    let (ours, theirs) = mcpwire::transport::memory::pair();
    let served = gated_server();
    tokio::spawn(async move { served.serve(theirs).await });
    in_2026(&gated_report_error(ours, ProtocolVersion::V2026_07_28).await, "a connection");

    let app = axum::Router::new().route_service("/mcp", mcpwire::http::McpService::new(gated_server()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let http = tokio::spawn(async move { axum::serve(listener, app).await });
    let transport = mcpwire::transport::http_client::HttpClientTransport::new(&url).unwrap();
    in_2026(&gated_report_error(transport, ProtocolVersion::V2026_07_28).await, "HTTP");
    http.abort();

    let (ours, theirs) = mcpwire::transport::memory::pair();
    let served = gated_server();
    tokio::spawn(async move { served.serve(theirs).await });
    let error = gated_report_error(ours, ProtocolVersion::V2025_11_25).await;
    assert_eq!(error.code, -32042, "{error:?}");
    let data = serde_json::to_value(mcpwire::protocol::elicitation::UrlElicitationRequiredData {
        elicitations: vec![payment_page()],
    })
    .unwrap();
    assert_eq!(error.data, Some(data));
}

/// A handler's `-32042` whose `data` names no URLs cannot become an input round either: a
/// 2026 request gets `-32603`, not the 2025-only code.
#[tokio::test]
async fn a_handlers_32042_without_urls_never_leaves_a_2026_request_as_32042() {
    let server = Server::builder("shop", "1")
        .tool(
            tool("report")
                .description("A paid report")
                .handler(|| async { Err::<&str, _>(McpError::new(-32042, "pay first")) }),
        )
        .build()
        .unwrap();
    let (ours, theirs) = mcpwire::transport::memory::pair();
    tokio::spawn(async move { server.serve(theirs).await });
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2026_07_28)
        .elicitation_url(true)
        .on_elicitation(|_| async { Ok(ElicitResult::action(ElicitAction::Accept)) })
        .connect(ours)
        .await
        .unwrap();
    let refused = client.call_tool("report", json!({})).await.unwrap_err();
    let error = refused.peer_error().expect("the server's error");
    assert_eq!(error.code, -32603, "{error:?}");
    assert!(error.message.contains("pay first"), "{error:?}");
    client.close().await;
}
