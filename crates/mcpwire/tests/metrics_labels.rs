//! Feature `metrics`: what `trace_requests()` records through the `metrics` facade, under
//! a recorder installed for the test's thread (the test runtime runs every task there).
#![cfg(feature = "metrics")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use common::*;
use mcpwire::server::{trace_requests, Server};
use metrics::{Counter, Gauge, Histogram, Key, KeyName, Metadata, Recorder, SharedString, Unit};
use serde_json::json;

/// Keeps the labels of every series registered, as `name{label=value,...}`.
#[derive(Clone, Default)]
struct Series(Arc<Mutex<BTreeSet<String>>>);

impl Series {
    fn keep(&self, key: &Key) {
        let labels: Vec<String> = key.labels().map(|l| format!("{}={}", l.key(), l.value())).collect();
        self.0.lock().unwrap().insert(format!("{}{{{}}}", key.name(), labels.join(",")));
    }

    fn all(&self) -> BTreeSet<String> {
        self.0.lock().unwrap().clone()
    }
}

impl Recorder for Series {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        self.keep(key);
        Counter::noop()
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        self.keep(key);
        Gauge::noop()
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        self.keep(key);
        Histogram::noop()
    }
}

/// The `method` label is the client's method name only for the methods MCP defines: any
/// other name a client sends is counted as `other`. (Each name became a label of its own,
/// so a client sending made-up methods, or one 5 MB long, grew the recorder's series
/// without bound: a Prometheus exporter keeps every series it was ever given.)
#[tokio::test]
async fn a_client_cannot_make_a_series_per_method_name() {
    let series = Series::default();
    let _recorder = metrics::set_default_local_recorder(&series);
    let server = Server::builder("m", "1").declare_tools().middleware(trace_requests()).build().unwrap();
    let mut raw = initialized(server).await;
    raw.request(1, "tools/list", json!({})).await;
    expect_result(&raw.next().await, 1);
    for id in 2..202 {
        raw.request(id, &format!("made/up/{id}"), json!({})).await;
        assert_eq!(expect_error(&raw.next().await, id).code, -32601);
    }
    let huge = "x".repeat(5 << 20);
    raw.request(202, &huge, json!({})).await;
    assert_eq!(expect_error(&raw.next().await, 202).code, -32601);

    let all = series.all();
    assert!(all.contains("mcp_requests_total{method=initialize,outcome=ok}"), "{all:?}");
    assert!(all.contains("mcp_requests_total{method=tools/list,outcome=ok}"), "{all:?}");
    assert!(all.contains("mcp_request_duration_seconds{method=tools/list}"), "{all:?}");
    assert!(all.contains("mcp_requests_total{method=other,outcome=-32601}"), "{all:?}");
    assert!(
        all.len() <= 6,
        "{} series: {:?}",
        all.len(),
        all.iter().map(|s| &s[..s.len().min(80)]).collect::<Vec<_>>()
    );
}
