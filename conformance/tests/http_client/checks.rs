//! The checks run against both SDKs' fixture servers. The two fixtures serve the same
//! tools, resources and prompts (the Python one has a few more tools), so each check
//! asserts exact values, with the differences between the SDKs spelled out.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::{RequestOptions, ServerChange};
use mcpwire::jsonrpc::ProgressUpdate;
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::{Era, ProtocolVersion};
use mcpwire::RequestError;
use serde_json::{json, Value};

use crate::common::callbacks::{eventually, first_text};
use crate::common::expected::{check_greet, fixture_logs, PYTHON_TOOLS};
use crate::common::proxy::send_bare;
use crate::fixtures::{Case, Connected, Mode, Peer};

/// The TypeScript fixture's tools (`fixtures/ts_http_server.cjs`).
pub const TYPESCRIPT_TOOLS: [&str; 8] =
    ["echo", "add", "progress", "log", "elicit_name", "sample", "roots", "change_tools"];

/// The era the client must land in: 2026 only when it probed a server that speaks it.
fn expected_era(case: Case) -> (Era, ProtocolVersion) {
    if case.peer == Peer::Python && case.mode == Mode::Auto && !case.legacy_sse {
        (Era::Stateless, ProtocolVersion::V2026_07_28)
    } else {
        (Era::Stateful, ProtocolVersion::V2025_11_25)
    }
}

/// Calls a tool that must succeed and returns its first text.
pub async fn text(c: &Connected, tool: &str, args: Value) -> String {
    let result = c.client.call_tool(tool, args).await.unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert_ne!(result.is_error, Some(true), "{tool} failed: {result:?}");
    first_text(&result)
}

/// The era, version, server identity and capabilities; `ping` (2025) or `discover` (2026).
pub async fn handshake(c: &Connected, case: Case) {
    let peer = case.peer;
    let client = &c.client;
    let (era, version) = expected_era(case);
    assert_eq!((client.era(), client.protocol_version()), (era, &version));
    let info = client.server_info().expect("server info");
    let (name, ver, instructions) = match peer {
        Peer::Python => ("python-fixture", "2.3.0-fixture", "A fixture server for mcpwire's client tests."),
        Peer::TypeScript => {
            ("ts-fixture", "1.32.2-fixture", "A TypeScript fixture server for mcpwire's client tests.")
        }
    };
    assert_eq!((info.name.as_str(), info.version.as_str()), (name, ver));
    assert_eq!(client.instructions().as_deref(), Some(instructions));
    let mut capabilities = json!({
        "completions": {},
        "logging": {},
        "prompts": { "listChanged": true },
        "resources": { "listChanged": true, "subscribe": true },
        "tools": { "listChanged": true }
    });
    if peer == Peer::TypeScript {
        capabilities["resources"] = json!({ "listChanged": true });
    }
    assert_eq!(serde_json::to_value(client.server_capabilities().unwrap()).unwrap(), capabilities);
    match era {
        Era::Stateless => {
            let discovered = client.discover().await.unwrap();
            assert_eq!(discovered.supported_versions, vec![ProtocolVersion::V2026_07_28]);
            assert!(matches!(client.ping().await, Err(RequestError::Protocol(_))));
        }
        Era::Stateful => {
            client.ping().await.unwrap();
            assert!(client.discover_result().is_none());
        }
    }
}

/// Every typed call: tools (plain and structured), resources and templates, prompts,
/// completion.
pub async fn typed_calls(c: &Connected, case: Case) {
    let peer = case.peer;
    let client = &c.client;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    match peer {
        Peer::Python => assert_eq!(names, PYTHON_TOOLS),
        Peer::TypeScript => assert_eq!(names, TYPESCRIPT_TOOLS),
    }
    let first = client.list_tools(None).await.unwrap();
    match peer {
        // The Python fixture pages its tools by five; `list_all_tools` followed the cursors.
        Peer::Python => {
            assert_eq!(first.tools, tools[..5]);
            let cursor = first.next_cursor.expect("a next page");
            let second = client.list_tools(Some(&cursor)).await.unwrap();
            assert_eq!(second.tools, tools[5..10]);
            let error = client.list_tools(Some("nonsense")).await.unwrap_err();
            assert_eq!(error.code(), -32602, "{error}");
        }
        Peer::TypeScript => assert_eq!((first.tools, first.next_cursor), (tools.clone(), None)),
    }
    let add = tools.iter().find(|t| t.name == "add").unwrap();
    assert_eq!(add.description.as_deref(), Some("Adds two integers (structured output)"));
    let output = serde_json::to_value(add.output_schema.as_ref().expect("add has an output schema")).unwrap();
    assert_eq!(output["properties"]["sum"]["type"], "integer", "{output}");

    assert_eq!(text(c, "echo", json!({ "text": "hi" })).await, "echo: hi");
    let sum = client.call_tool("add", json!({ "a": 2, "b": 3 })).await.unwrap();
    assert_eq!(sum.structured_content, Some(json!({ "sum": 5 })));
    assert_eq!(serde_json::from_str::<Value>(&first_text(&sum)).unwrap(), json!({ "sum": 5 }));

    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(), ["fixture://static"]);
    assert_eq!(resources[0].mime_type.as_deref(), Some("text/plain"));
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(
        templates.iter().map(|t| t.uri_template.as_str()).collect::<Vec<_>>(),
        ["fixture://items/{id}"]
    );
    let read = serde_json::to_value(client.read_resource("fixture://static").await.unwrap()).unwrap();
    assert_eq!(
        (&read["contents"][0]["uri"], &read["contents"][0]["text"]),
        (&json!("fixture://static"), &json!("static content"))
    );
    let item = serde_json::to_value(client.read_resource("fixture://items/42").await.unwrap()).unwrap();
    assert_eq!(item["contents"][0]["mimeType"], "application/json");
    let body: Value = serde_json::from_str(item["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(body, json!({ "id": "42" }));

    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["greet"]);
    check_greet(client).await;
}

/// Progress reaches the call's callback, in order, before the result.
pub async fn progress(c: &Connected, _case: Case) {
    let updates = Arc::new(Mutex::new(Vec::<ProgressUpdate>::new()));
    let sink = updates.clone();
    let options = RequestOptions::default().on_progress(move |u| sink.lock().unwrap().push(u));
    let result = c.client.call_tool_with("progress", json!({ "steps": 3 }), options).await.unwrap();
    assert_eq!(first_text(&result), "done 3");
    let step =
        |i: f64| ProgressUpdate { progress: i, total: Some(3.0), message: Some(format!("step {i} of 3")) };
    assert_eq!(*updates.lock().unwrap(), [step(1.0), step(2.0), step(3.0)]);
}

/// Log messages reach `on_log` as `set_log_level` says: a 2025 session sends every level
/// until one is set; a 2026 request sends none without one.
pub async fn logging(c: &Connected, _case: Case) {
    let expect = fixture_logs;
    let logs = || c.seen.log_entries();
    let args = json!({ "message": "m" });
    assert_eq!(text(c, "log", args.clone()).await, "logged");
    match c.client.era() {
        Era::Stateful => {
            let all = expect(&[LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Warning]);
            assert!(eventually(|| logs() == all).await, "{:?}", logs());
        }
        Era::Stateless => {
            tokio::time::sleep(Duration::from_millis(200)).await;
            assert_eq!(logs(), []);
        }
    }
    c.seen.logs.lock().unwrap().clear();
    c.client.set_log_level(LoggingLevel::Info).await.unwrap();
    text(c, "log", args.clone()).await;
    let info = expect(&[LoggingLevel::Info, LoggingLevel::Warning]);
    assert!(eventually(|| logs() == info).await, "{:?}", logs());
    c.seen.logs.lock().unwrap().clear();
    c.client.set_log_level(LoggingLevel::Warning).await.unwrap();
    text(c, "log", args).await;
    let warning = expect(&[LoggingLevel::Warning]);
    assert!(eventually(|| logs() == warning).await, "{:?}", logs());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(logs(), warning);
}

/// Server-to-client requests answered by the callbacks: elicitation, sampling, roots
/// (real requests answered by POST in 2025, `input_required` rounds in 2026), and the
/// Python fixture's two dependent questions.
pub async fn callbacks(c: &Connected, case: Case) {
    let peer = case.peer;
    assert_eq!(text(c, "elicit_name", json!({})).await, "Hello, Ada!");
    assert_eq!(c.seen.elicitation_messages(), ["What is your name?"]);
    assert_eq!(text(c, "sample", json!({})).await, "model said: Paris (model test-model)");
    assert_eq!(c.seen.samplings.load(Ordering::SeqCst), 1);
    assert_eq!(text(c, "roots", json!({})).await, "roots: file:///tmp/a, file:///tmp/b");
    assert_eq!(c.seen.roots.load(Ordering::SeqCst), 1);
    if peer == Peer::Python {
        assert_eq!(text(c, "favourite", json!({})).await, "Ada likes blue");
        assert_eq!(
            c.seen.elicitation_messages(),
            ["What is your name?", "What is your name?", "Ada, what is your favourite colour?"]
        );
    }
}

/// List changes: `on_change` from the 2025 standalone GET stream (and a resource update
/// after `resources/subscribe` on the Python fixture); a `subscriptions/listen` stream in
/// 2026.
pub async fn list_changed(c: &Connected, case: Case) {
    let peer = case.peer;
    let client = &c.client;
    match client.era() {
        Era::Stateful => {
            assert_eq!(text(c, "change_tools", json!({})).await, "tools changed");
            assert!(eventually(|| c.seen.saw_change(&ServerChange::ToolsChanged)).await);
            if peer == Peer::TypeScript {
                let names: Vec<String> =
                    client.list_all_tools().await.unwrap().into_iter().map(|t| t.name).collect();
                assert_eq!(names.last().map(String::as_str), Some("added_1"));
            } else {
                let uri = "fixture://static";
                client.subscribe(uri).await.unwrap();
                assert_eq!(text(c, "touch", json!({ "uri": uri })).await, format!("touched {uri}"));
                let updated = ServerChange::ResourceUpdated(uri.to_owned());
                assert!(eventually(|| c.seen.saw_change(&updated)).await);
            }
        }
        Era::Stateless => {
            let filter = SubscriptionFilter {
                tools_list_changed: Some(true),
                resource_subscriptions: Some(vec!["fixture://static".to_owned()]),
                ..Default::default()
            };
            let mut sub = client.listen(filter.clone()).await.unwrap();
            assert_eq!(sub.acknowledged(), &filter);
            text(c, "change_tools", json!({})).await;
            let next = tokio::time::timeout(Duration::from_secs(10), sub.next()).await.unwrap().unwrap();
            assert_eq!(next.method, "notifications/tools/list_changed");
            text(c, "touch", json!({ "uri": "fixture://static" })).await;
            let next = tokio::time::timeout(Duration::from_secs(10), sub.next()).await.unwrap().unwrap();
            assert_eq!(next.method, "notifications/resources/updated");
            assert_eq!(next.parse_params::<Value>().unwrap()["uri"], "fixture://static");
            drop(sub);
            assert_eq!(text(c, "echo", json!({ "text": "after" })).await, "echo: after");
        }
    }
}

/// `close()` ends a 2025 Streamable HTTP session with `DELETE` carrying its session id
/// (which the server accepts); a 2026 client (no session) and a legacy SSE client send
/// none.
pub async fn close(c: &Connected, case: Case) {
    let proxy = c.proxy.as_ref().expect("close runs through the recording proxy");
    assert_eq!(text(c, "echo", json!({ "text": "x" })).await, "echo: x");
    c.client.close().await;
    assert!(eventually(|| c.client.is_closed()).await);
    assert!(eventually(|| proxy.open_streams() == 0).await, "{} streams left open", proxy.open_streams());
    let stateful_http = expected_era(case).0 == Era::Stateful && !case.legacy_sse;
    if stateful_http {
        // Not yet out when close() returns (a known client bug, see ours.rs).
        assert!(eventually(|| proxy.requests().iter().any(|r| r.method == "DELETE")).await);
    } else {
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let requests = proxy.requests();
    let deletes: Vec<_> = requests.iter().filter(|r| r.method == "DELETE").collect();
    let call = requests.iter().find(|r| r.posts("tools/call")).expect("the call went through the proxy");
    match (expected_era(case).0, case.legacy_sse) {
        (Era::Stateful, false) => {
            let session = call.session.clone().expect("a session id on the call");
            assert_eq!(deletes.len(), 1, "{requests:#?}");
            assert_eq!(deletes[0].session.as_ref(), Some(&session));
            assert_eq!(deletes[0].protocol_version.as_deref(), Some("2025-11-25"));
            assert_eq!(deletes[0].status, 200, "{requests:#?}");
        }
        (Era::Stateless, _) => {
            assert!(requests.iter().all(|r| r.session.is_none()), "{requests:#?}");
            assert!(deletes.is_empty(), "{requests:#?}");
        }
        (Era::Stateful, true) => assert!(deletes.is_empty(), "{requests:#?}"),
    }
}

/// A progress call whose SSE response the proxy kills after its first progress event. In
/// 2025 the client resumes with `GET` and `Last-Event-ID` on the same session and gets
/// the rest by replay (the fixtures keep events); in 2026 (no resumption) the lost request
/// is sent again under a new id and the call gets that one's answer. Either way the next
/// call works.
pub async fn resumption(c: &Connected, _case: Case) {
    let proxy = c.proxy.as_ref().expect("resumption runs through the recording proxy");
    proxy.cut_next("\"name\":\"progress\"");
    let updates = Arc::new(Mutex::new(Vec::<ProgressUpdate>::new()));
    let sink = updates.clone();
    let options = RequestOptions::default().on_progress(move |u| sink.lock().unwrap().push(u));
    let result = c.client.call_tool_with("progress", json!({ "steps": 3 }), options).await;
    let updates = updates.lock().unwrap().clone();
    let step =
        |i: f64| ProgressUpdate { progress: i, total: Some(3.0), message: Some(format!("step {i} of 3")) };
    let requests = proxy.requests();
    let resumes: Vec<_> = requests.iter().filter(|r| r.last_event_id.is_some()).collect();
    match c.client.era() {
        Era::Stateful => {
            let result = result.unwrap_or_else(|e| panic!("{e}: {requests:#?}"));
            assert_eq!(first_text(&result), "done 3");
            assert_eq!(updates, [step(1.0), step(2.0), step(3.0)], "{requests:#?}");
            let call = requests.iter().find(|r| r.posts("tools/call")).unwrap();
            assert_eq!(resumes.len(), 1, "{requests:#?}");
            assert_eq!((resumes[0].method.as_str(), resumes[0].status), ("GET", 200));
            assert_eq!(resumes[0].session, call.session);
        }
        Era::Stateless => {
            let result = result.unwrap_or_else(|e| panic!("{e}: {requests:#?}"));
            assert_eq!(first_text(&result), "done 3");
            assert_eq!(updates.first(), Some(&step(1.0)), "{updates:?}");
            assert_eq!(updates.last(), Some(&step(3.0)), "{updates:?}");
            assert!(resumes.is_empty() && requests.iter().all(|r| r.method == "POST"), "{requests:#?}");
            let calls = requests.iter().filter(|r| r.posts("tools/call")).count();
            assert_eq!(calls, 2, "the call and its re-issue: {requests:#?}");
        }
    }
    assert_eq!(text(c, "echo", json!({ "text": "after" })).await, "echo: after");
}

/// 2025: the session is deleted behind the client's back (a `DELETE` sent straight to the
/// server); the next call gets 404, the client re-initializes once and retries it on the
/// new session. A 2026 client has no session to lose.
pub async fn stale_session(c: &Connected, _case: Case) {
    let proxy = c.proxy.as_ref().expect("stale_session runs through the recording proxy");
    assert_eq!(text(c, "echo", json!({ "text": "a" })).await, "echo: a");
    let requests = proxy.requests();
    let Some(old) = requests.iter().find(|r| r.posts("tools/call")).and_then(|r| r.session.clone()) else {
        assert_eq!(c.client.era(), Era::Stateless);
        assert!(requests.iter().all(|r| r.session.is_none()), "{requests:#?}");
        return;
    };
    assert_eq!(send_bare("DELETE", &proxy.upstream_url("/mcp"), &old).await, 200);
    let before = proxy.requests().len();
    let started = std::time::Instant::now();
    assert_eq!(text(c, "echo", json!({ "text": "b" })).await, "echo: b");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    let after = proxy.requests().split_off(before);
    let calls: Vec<(u16, bool)> = after
        .iter()
        .filter(|r| r.posts("tools/call"))
        .map(|r| (r.status, r.session.as_deref() == Some(old.as_str())))
        .collect();
    assert_eq!(calls, [(404, true), (200, false)], "{after:#?}");
    assert_eq!(after.iter().filter(|r| r.posts("initialize")).count(), 1, "{after:#?}");
    assert_eq!(text(c, "echo", json!({ "text": "c" })).await, "echo: c");
}

/// A call's timeout cancels it on the server (the Python fixture's `slow` records how it
/// ended): 2025 sends `notifications/cancelled`, 2026 closes the call's stream.
pub async fn cancellation(c: &Connected, case: Case) {
    let tag = format!("{:?}-{}", case.mode, case.legacy_sse);
    let started = std::time::Instant::now();
    let options = RequestOptions::default().timeout(Duration::from_millis(300));
    let args = json!({ "seconds": 30, "tag": tag });
    let error = c.client.call_tool_with("slow", args, options).await.unwrap_err();
    assert!(matches!(&error, RequestError::Timeout { method, .. } if method == "tools/call"), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert_eq!(text(c, "was_cancelled", json!({ "tag": tag })).await, "cancelled");
}
