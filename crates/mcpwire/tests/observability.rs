//! `trace_requests()`: every request gets an `mcp.request` span with its method, name,
//! era, the client's W3C trace context from `_meta`, and its outcome and duration, in
//! both eras; a request the client cancels ends its span as `cancelled`. A client's
//! trace context reaches the server's handler, and a 2025 server's question to the
//! client carries it back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use mcpwire::server::{trace_requests, Ctx, Server};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

type Fields = BTreeMap<String, String>;

/// Keeps the fields of every `mcp.request` span, as text, when the span closes.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<Vec<Fields>>>);

struct Collect<'a>(&'a mut Fields);

impl Visit for Collect<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}").trim_matches('"').to_owned());
    }
}

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != "mcp.request" {
            return;
        }
        let mut fields = Fields::new();
        attrs.record(&mut Collect(&mut fields));
        ctx.span(id).unwrap().extensions_mut().insert(fields);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(fields) = ctx.span(id).unwrap().extensions_mut().get_mut::<Fields>() {
            values.record(&mut Collect(fields));
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(fields) = ctx.span(&id).unwrap().extensions_mut().remove::<Fields>() {
            self.0.lock().unwrap().push(fields);
        }
    }
}

/// Echoes its text.
#[mcpwire::tool]
async fn echo(text: String) -> String {
    text
}

/// Never returns, unless cancelled.
#[mcpwire::tool]
async fn hang(ctx: Ctx) -> String {
    ctx.cancellation().cancelled().await;
    "cancelled".into()
}

fn server() -> Server {
    Server::builder("traced", "1")
        .middleware(trace_requests())
        .register_all(mcpwire::definitions![echo, hang])
        .build()
        .unwrap()
}

async fn wait_for_spans(spans: &Spans, n: usize) -> Vec<Fields> {
    for _ in 0..200 {
        if spans.0.lock().unwrap().len() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    spans.0.lock().unwrap().clone()
}

#[tokio::test]
async fn every_request_gets_a_span_with_its_facts_and_outcome_in_both_eras() {
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    let mut raw = initialized(server()).await;
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let params = json!({ "name": "echo", "arguments": { "text": "hi" }, "_meta": { "traceparent": traceparent, "tracestate": "k=v" } });
    raw.request(1, "tools/call", params).await;
    expect_result(&raw.next().await, 1);
    raw.request(2, "tools/call", json!({ "name": "missing" })).await;
    expect_error(&raw.next().await, 2);
    let envelope = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "1" }
    });
    // A 2026 client on a connection of its own (no handshake).
    let (conn, mut stateless_peer) = raw_connection();
    let second = server();
    tokio::spawn(async move { second.serve(conn).await });
    let params = json!({ "name": "echo", "arguments": { "text": "x" }, "_meta": envelope });
    stateless_peer.request(3, "tools/call", params).await;
    expect_result(&stateless_peer.next().await, 3);

    let spans = wait_for_spans(&spans, 4).await;
    let by_id =
        |id: &str| spans.iter().find(|f| f["id"] == id).unwrap_or_else(|| panic!("no span {id}: {spans:?}"));
    assert_eq!(by_id("0")["method"], "initialize");
    let call = by_id("1");
    assert_eq!(
        (call["method"].as_str(), call["name"].as_str(), call["era"].as_str()),
        ("tools/call", "echo", "2025")
    );
    assert_eq!((call["traceparent"].as_str(), call["tracestate"].as_str()), (traceparent, "k=v"));
    assert_eq!(call["outcome"], "ok");
    assert!(call["duration_ms"].parse::<f64>().unwrap() >= 0.0);
    assert_eq!(by_id("2")["outcome"], "-32602");
    assert_eq!((by_id("3")["era"].as_str(), by_id("3")["outcome"].as_str()), ("2026", "ok"));
}

#[tokio::test]
async fn a_cancelled_request_ends_its_span_as_cancelled() {
    let spans = Spans::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
    let raw = initialized(server()).await;
    raw.request(1, "tools/call", json!({ "name": "hang" })).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    raw.cancel(1).await;
    let spans = wait_for_spans(&spans, 2).await;
    let hang = spans.iter().find(|f| f["id"] == "1").unwrap_or_else(|| panic!("no span: {spans:?}"));
    assert_eq!(hang["outcome"], "cancelled");
}

/// Reports the trace context its request came with.
#[mcpwire::tool]
async fn whose_trace(ctx: Ctx) -> String {
    ctx.trace_context().map(|t| format!("{} {:?}", t.traceparent, t.tracestate)).unwrap_or_default()
}

/// Asks the client a question (a real request to a 2025 client).
#[mcpwire::tool]
async fn ask_back(ctx: Ctx) -> Result<String, mcpwire::error::McpError> {
    let form = json!({ "message": "Name?", "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } } } });
    ctx.elicit(serde_json::from_value(form).unwrap()).await?;
    Ok("asked".into())
}

#[tokio::test]
async fn a_clients_trace_context_reaches_the_handler_and_comes_back_on_its_questions() {
    use mcpwire::extensions::TraceContext;
    use mcpwire::protocol::elicitation::ElicitRequestParams;
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    for version in ["2025-11-25", "2026-07-28"] {
        let server = Server::builder("traced", "1")
            .register_all(mcpwire::definitions![whose_trace, ask_back])
            .build()
            .unwrap();
        let (a, b) = mcpwire::transport::memory::pair();
        tokio::spawn(async move { server.serve(a).await });
        let seen: Arc<Mutex<Vec<Option<String>>>> = Arc::default();
        let record = seen.clone();
        let client = mcpwire::client::Client::builder("tracer", "1")
            .protocol_version(mcpwire::protocol::ProtocolVersion::parse(version))
            .trace_context(move || {
                Some(TraceContext { traceparent: traceparent.into(), tracestate: Some("k=v".into()) })
            })
            .on_elicitation(move |params: ElicitRequestParams| {
                let meta = match &params {
                    ElicitRequestParams::Form(p) => p.meta.clone(),
                    ElicitRequestParams::Url(p) => p.meta.clone(),
                };
                let traceparent =
                    meta.and_then(|m| m.get("traceparent").and_then(|t| t.as_str()).map(str::to_owned));
                record.lock().unwrap().push(traceparent);
                async { Ok(serde_json::from_value(json!({ "action": "decline" })).unwrap()) }
            })
            .connect(b)
            .await
            .unwrap();
        let result = client.call_tool("whose_trace", json!({})).await.unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some(format!("{traceparent} Some(\"k=v\")").as_str()),
            "{version}"
        );
        client.call_tool("ask_back", json!({})).await.unwrap();
        // 2025: a real request, carrying the trace on; 2026: the question rides in the
        // result and the client's retry carries its own trace context.
        let expected = if version == "2025-11-25" { vec![Some(traceparent.to_owned())] } else { vec![None] };
        assert_eq!(*seen.lock().unwrap(), expected, "{version}");
    }
}
