//! The 2026 client against the rules of the 2026-07-28 revision, with a scripted server
//! that records every request: the capabilities each request declares, how odd cache
//! hints are read, and the other client-side rules checked here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::{Client, ClientBuilder, RequestOptions};
use mcpwire::protocol::elicitation::{ElicitAction, ElicitResult};
use mcpwire::protocol::roots::ListRootsResult;
use mcpwire::protocol::{CacheScope, ErrorObject, ErrorResponse, Message, ProtocolVersion, Response};
use mcpwire::transport::{memory, Connection, Outgoing, TransportEvent};
use mcpwire::RequestError;
use serde_json::{json, Value};

/// What the scripted server does with one request.
enum Reply {
    Result(Value),
    Error(i64, Option<Value>),
}

/// Every request the scripted server read: its method and params.
type Seen = Arc<Mutex<Vec<(String, Value)>>>;

/// A server that answers each request with `answer(method, params)` and records it.
fn scripted(answer: impl Fn(&str, &Value) -> Reply + Send + 'static) -> (Connection, Seen) {
    let (ours, mut theirs) = memory::pair();
    let seen: Seen = Default::default();
    let record = seen.clone();
    tokio::spawn(async move {
        while let Some(event) = theirs.incoming.recv().await {
            let TransportEvent::Message(inbound) = event else { continue };
            let Message::Request(request) = inbound.message else { continue };
            let params: Value = request
                .params
                .as_ref()
                .map(|p| serde_json::from_str(p.get()).unwrap())
                .unwrap_or(Value::Null);
            record.lock().unwrap().push((request.method.clone(), params.clone()));
            let message: Message = match answer(&request.method, &params) {
                Reply::Result(result) => {
                    Response::new(request.id, serde_json::value::to_raw_value(&result).unwrap()).into()
                }
                Reply::Error(code, data) => {
                    let mut error = ErrorObject::new(code, "scripted error");
                    if let Some(data) = data {
                        error = error.with_data(data);
                    }
                    ErrorResponse::new(Some(request.id), error).into()
                }
            };
            if theirs.outgoing.send(Outgoing::unrelated(message)).await.is_err() {
                return;
            }
        }
    });
    (ours, seen)
}

/// A 2026 server that declares the tasks extension and answers `tools/call` with the
/// `working` task `t1` (kept `ttl_ms`, polled every 100 ms), each `tasks/get` with the
/// task's fields and those of `polled` over them, and `tasks/cancel` with an empty
/// result; anything else with `-32601`.
fn scripted_task(ttl_ms: u64, polled: Value) -> (Connection, Seen) {
    let task = json!({ "taskId": "t1", "createdAt": "2026-12-04T00:00:00Z",
        "lastUpdatedAt": "2026-12-04T00:00:00Z", "ttlMs": ttl_ms, "pollIntervalMs": 100 });
    scripted(move |method, _| {
        let mut answer = task.clone();
        let fields = match method {
            "server/discover" => {
                let mut discover = discover_result();
                discover["capabilities"]["extensions"] = json!({ "io.modelcontextprotocol/tasks": {} });
                return Reply::Result(discover);
            }
            "tools/call" => json!({ "resultType": "task", "status": "working" }),
            "tasks/get" => polled.clone(),
            "tasks/cancel" => return Reply::Result(json!({ "resultType": "complete" })),
            _ => return Reply::Error(-32601, None),
        };
        answer.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
        Reply::Result(answer)
    })
}

fn discover_result() -> Value {
    json!({ "resultType": "complete", "supportedVersions": ["2026-07-28"],
        "capabilities": { "tools": {}, "resources": {} }, "ttlMs": 0, "cacheScope": "private",
        "_meta": { "io.modelcontextprotocol/serverInfo": { "name": "s", "version": "1" } } })
}

fn init_result() -> Value {
    json!({ "protocolVersion": "2025-11-25", "capabilities": { "tools": {} },
        "serverInfo": { "name": "s", "version": "1" } })
}

fn tools_page(extra: Value) -> Value {
    let mut page = json!({ "resultType": "complete",
        "tools": [{ "name": "t", "inputSchema": { "type": "object" } }] });
    page.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    page
}

fn with_roots(builder: ClientBuilder) -> ClientBuilder {
    builder.on_roots(|| async { Ok(ListRootsResult { roots: vec![], ..Default::default() }) })
}

/// The `clientCapabilities` of each recorded request of `method`.
fn declared(seen: &Seen, method: &str) -> Vec<Value> {
    let seen = seen.lock().unwrap();
    seen.iter()
        .filter(|(m, _)| m == method)
        .map(|(_, p)| p["_meta"]["io.modelcontextprotocol/clientCapabilities"].clone())
        .collect()
}

/// 2026 `ClientCapabilities.roots` has no members (`notifications/roots/list_changed` is
/// gone from the revision): the probe and every later request declare `roots: {}`; a 2025
/// session's `initialize` still declares `roots.listChanged`.
#[tokio::test]
async fn a_2026_request_declares_roots_without_list_changed_and_2025_keeps_it() {
    let (peer, seen) = scripted(|method, _| match method {
        "server/discover" => Reply::Result(discover_result()),
        _ => Reply::Result(tools_page(json!({ "ttlMs": 0, "cacheScope": "private" }))),
    });
    let client = with_roots(Client::builder("c", "1")).connect(peer).await.unwrap();
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2026_07_28);
    client.list_tools(None).await.unwrap();
    client.close().await;
    let mut requests = declared(&seen, "server/discover");
    requests.extend(declared(&seen, "tools/list"));
    assert_eq!(requests.len(), 2);
    for capabilities in requests {
        assert_eq!(capabilities["roots"], json!({}), "{capabilities}");
    }

    let (peer, seen) = scripted(|method, _| match method {
        "initialize" => Reply::Result(init_result()),
        _ => Reply::Error(-32601, None),
    });
    let pinned = with_roots(Client::builder("c", "1")).protocol_version(ProtocolVersion::V2025_11_25);
    let client = pinned.connect(peer).await.unwrap();
    client.close().await;
    let seen = seen.lock().unwrap();
    let (_, init) = seen.iter().find(|(m, _)| m == "initialize").unwrap();
    assert_eq!(init["capabilities"]["roots"], json!({ "listChanged": true }));
}

/// A cacheable result whose hints have a shape the client does not know (a `cacheScope`
/// of a later revision, a `ttlMs` that is not a number) is still a good result: the list
/// and the probe succeed.
#[tokio::test]
async fn odd_cache_hints_do_not_fail_a_good_result() {
    let odd = [
        json!({ "ttlMs": 60000, "cacheScope": "shared" }),
        json!({ "ttlMs": 60000, "cacheScope": 7 }),
        json!({ "ttlMs": "60000", "cacheScope": "public" }),
        json!({ "ttlMs": null, "cacheScope": null }),
    ];
    for hints in odd {
        let page = tools_page(hints.clone());
        let mut discover = discover_result();
        discover.as_object_mut().unwrap().extend(hints.as_object().unwrap().clone());
        let (peer, seen) = scripted(move |method, _| match method {
            "server/discover" => Reply::Result(discover.clone()),
            "initialize" => Reply::Error(-32601, None),
            _ => Reply::Result(page.clone()),
        });
        let client = Client::builder("c", "1").connect(peer).await.unwrap();
        assert_eq!(client.protocol_version(), &ProtocolVersion::V2026_07_28, "{hints}");
        let page = client.list_tools(None).await.unwrap();
        assert_eq!(page.tools.len(), 1, "{hints}");
        // A scope that is not `public` reads as the narrower one.
        let public = hints["cacheScope"] == "public";
        assert_eq!(page.cache_scope == Some(CacheScope::Public), public, "{hints}");
        client.close().await;
        assert!(declared(&seen, "initialize").is_empty(), "{hints}: fell back to initialize");
    }
}

/// An `input_required` result asking more questions at once than any real server does
/// fails the call with a clear error before anyone is asked anything (a hostile server
/// cannot have the user, or the model, answer thousands of requests), and no retry is sent.
#[tokio::test]
async fn an_input_required_result_with_thousands_of_questions_is_refused_unasked() {
    let (peer, seen) = scripted(|method, _| match method {
        "tools/call" => {
            let many: serde_json::Map<String, Value> = (0..5000)
                .map(|i| {
                    let question =
                        json!({ "message": "m", "requestedSchema": { "type": "object", "properties": {} } });
                    (format!("k{i}"), json!({ "method": "elicitation/create", "params": question }))
                })
                .collect();
            Reply::Result(
                json!({ "resultType": "input_required", "inputRequests": many, "requestState": "s" }),
            )
        }
        _ => Reply::Error(-32601, None),
    });
    let asked = Arc::new(Mutex::new(0usize));
    let counted = asked.clone();
    let client = Client::builder("c", "1")
        .on_elicitation(move |_| {
            *counted.lock().unwrap() += 1;
            async { Ok(ElicitResult::action(ElicitAction::Decline)) }
        })
        .without_tasks()
        .protocol_version(ProtocolVersion::V2026_07_28)
        .connect(peer)
        .await
        .unwrap();
    match client
        .call_tool_with("t", json!({}), RequestOptions::default().timeout(Duration::from_secs(30)))
        .await
    {
        Err(RequestError::Protocol(message)) => assert!(message.contains("5000"), "{message}"),
        other => panic!("5000 questions at once: {other:?}"),
    }
    client.close().await;
    assert_eq!(*asked.lock().unwrap(), 0, "nobody was asked");
    let calls = seen.lock().unwrap().iter().filter(|(m, _)| m == "tools/call").count();
    assert_eq!(calls, 1, "no retry");
}

/// The same bound holds for the questions a 2026 task asks in one poll: the call fails
/// with a clear error, nobody is asked, and the task is cancelled.
#[tokio::test]
async fn a_task_asking_thousands_of_questions_at_once_is_cancelled_unasked() {
    let many: serde_json::Map<String, Value> =
        (0..5000).map(|i| (format!("k{i}"), json!({ "method": "roots/list" }))).collect();
    let polled = json!({ "resultType": "complete", "status": "input_required", "inputRequests": many });
    let (peer, seen) = scripted_task(60000, polled);
    let asked = Arc::new(Mutex::new(0usize));
    let counted = asked.clone();
    let client = Client::builder("c", "1")
        .on_roots(move || {
            *counted.lock().unwrap() += 1;
            async { Ok(ListRootsResult::default()) }
        })
        .connect(peer)
        .await
        .unwrap();
    match client
        .call_tool_with("t", json!({}), RequestOptions::default().timeout(Duration::from_secs(30)))
        .await
    {
        Err(RequestError::Protocol(message)) => assert!(message.contains("5000"), "{message}"),
        other => panic!("5000 questions at once: {other:?}"),
    }
    client.close().await;
    assert_eq!(*asked.lock().unwrap(), 0, "nobody was asked");
    let methods: Vec<String> = seen.lock().unwrap().iter().map(|(m, _)| m.clone()).collect();
    assert!(methods.iter().any(|m| m == "tasks/cancel"), "{methods:?}");
    assert!(!methods.iter().any(|m| m == "tasks/update"), "{methods:?}");
}

/// A `-32022` answer to the probe whose `data.supported` also holds an entry that is not
/// a version string still names the versions it does hold: the client retries with the
/// shared one rather than failing for want of any.
#[tokio::test]
async fn a_32022_list_with_an_odd_entry_still_yields_the_shared_version() {
    let first = Arc::new(Mutex::new(true));
    let (peer, seen) = scripted(move |method, _| match method {
        "server/discover" if std::mem::replace(&mut *first.lock().unwrap(), false) => {
            let data = json!({ "supported": [5, null, "2026-07-28"], "requested": "2026-07-28" });
            Reply::Error(-32022, Some(data))
        }
        "server/discover" => Reply::Result(discover_result()),
        _ => Reply::Error(-32601, None),
    });
    let client = Client::builder("c", "1").connect(peer).await.unwrap();
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2026_07_28);
    client.close().await;
    let methods: Vec<String> = seen.lock().unwrap().iter().map(|(m, _)| m.clone()).collect();
    assert_eq!(methods, ["server/discover", "server/discover"]);
}

/// A request that declared neither sampling nor roots ([`RequestOptions::declaring`], as
/// a gateway does for a client of its own) does not have the client's own sampling or
/// roots callback answer a server that asks for them anyway: the call fails, unasked.
#[tokio::test]
async fn sampling_and_roots_a_request_did_not_declare_are_not_answered() {
    let sampling = json!({ "method": "sampling/createMessage", "params": { "maxTokens": 5,
        "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }] } });
    for question in [sampling, json!({ "method": "roots/list" })] {
        let asked_for = question["method"].as_str().unwrap().to_owned();
        let (peer, seen) = scripted(move |method, _| match method {
            "tools/call" => Reply::Result(json!({ "resultType": "input_required",
                "inputRequests": { "q": question.clone() }, "requestState": "s" })),
            _ => Reply::Error(-32601, None),
        });
        let asked = Arc::new(Mutex::new(0usize));
        let (by_sampling, by_roots) = (asked.clone(), asked.clone());
        let client = Client::builder("c", "1")
            .on_roots(move || {
                *by_roots.lock().unwrap() += 1;
                async { Ok(ListRootsResult::default()) }
            })
            .on_sampling(move |_| {
                *by_sampling.lock().unwrap() += 1;
                async { Err(mcpwire::McpError::internal("not reached")) }
            })
            .protocol_version(ProtocolVersion::V2026_07_28)
            .connect(peer)
            .await
            .unwrap();
        let options = RequestOptions::default().declaring(Default::default());
        match client.call_tool_with("t", json!({}), options).await {
            Err(RequestError::Protocol(message)) => assert!(message.contains("declare"), "{message}"),
            other => panic!("{asked_for} undeclared: {other:?}"),
        }
        client.close().await;
        assert_eq!(*asked.lock().unwrap(), 0, "{asked_for}: no callback ran");
        let calls = seen.lock().unwrap().iter().filter(|(m, _)| m == "tools/call").count();
        assert_eq!(calls, 1, "{asked_for}: no retry");
    }
}

/// 2026 `structuredContent` may be any JSON value, `null` included: a tool whose
/// `outputSchema` allows `null` and that returns `"structuredContent": null` has returned
/// structured content, which conforms; it is not a result missing it.
#[tokio::test]
async fn a_null_structured_content_is_content_and_checked_against_the_schema() {
    let listed = json!({ "resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": [
        { "name": "maybe", "inputSchema": { "type": "object" }, "outputSchema": { "type": ["object", "null"] } },
        { "name": "some", "inputSchema": { "type": "object" }, "outputSchema": { "type": "object" } },
    ] });
    let (peer, _) = scripted(move |method, _| match method {
        "tools/list" => Reply::Result(listed.clone()),
        "tools/call" => Reply::Result(json!({ "resultType": "complete",
            "content": [{ "type": "text", "text": "null" }], "structuredContent": null })),
        _ => Reply::Error(-32601, None),
    });
    let client =
        Client::builder("c", "1").protocol_version(ProtocolVersion::V2026_07_28).connect(peer).await.unwrap();
    let result = client.call_tool("maybe", json!({})).await.unwrap();
    assert_eq!(result.structured_content, Some(Value::Null));
    assert_eq!(serde_json::to_value(&result).unwrap()["structuredContent"], Value::Null);
    // Where the schema does not allow it, `null` is checked and refused as a value.
    match client.call_tool("some", json!({})).await {
        Err(RequestError::Protocol(message)) => assert!(message.contains("does not match"), "{message}"),
        other => panic!("a null where an object is required: {other:?}"),
    }
    client.close().await;
}

/// A call without a timeout of its own follows a 2026 task for as long as the task's
/// `ttlMs` at most: a server whose task stays `working` past it does not keep the call
/// waiting forever; the call fails as timed out and the task is cancelled.
#[tokio::test]
async fn a_task_working_past_its_ttl_ends_the_call_without_a_timeout_of_its_own() {
    let (peer, seen) = scripted_task(300, json!({ "resultType": "complete", "status": "working" }));
    let client = Client::builder("c", "1").connect(peer).await.unwrap();
    let called = tokio::time::timeout(Duration::from_secs(10), client.call_tool("t", json!({}))).await;
    match called.expect("the call ends") {
        Err(RequestError::Timeout { .. }) => {}
        other => panic!("a task working past its ttlMs: {other:?}"),
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    client.close().await;
    let methods: Vec<String> = seen.lock().unwrap().iter().map(|(m, _)| m.clone()).collect();
    assert!(methods.iter().any(|m| m == "tasks/cancel"), "{methods:?}");
}

/// A 2026 client declares the tasks extension on every request, the `server/discover`
/// probe included (a server may advertise an extension only to clients that declare it);
/// one built `without_tasks` declares it on none.
#[tokio::test]
async fn the_probe_declares_the_tasks_extension_as_every_later_request_does() {
    for with_tasks in [true, false] {
        let (peer, seen) = scripted(|method, _| match method {
            "server/discover" => Reply::Result(discover_result()),
            _ => Reply::Result(tools_page(json!({ "ttlMs": 0, "cacheScope": "private" }))),
        });
        let builder = Client::builder("c", "1");
        let builder = if with_tasks { builder } else { builder.without_tasks() };
        let client = builder.connect(peer).await.unwrap();
        client.list_tools(None).await.unwrap();
        client.close().await;
        let mut requests = declared(&seen, "server/discover");
        requests.extend(declared(&seen, "tools/list"));
        assert_eq!(requests.len(), 2);
        for capabilities in requests {
            let declares = capabilities["extensions"].get("io.modelcontextprotocol/tasks").is_some();
            assert_eq!(declares, with_tasks, "{capabilities}");
        }
    }
}

/// A 2026 task whose `tasks/get` says a status the revision does not have: the call fails
/// (the answer is invalid) and, since nobody follows the task any more, it is cancelled.
#[tokio::test]
async fn a_task_of_an_unknown_status_fails_the_call_and_is_cancelled() {
    let (peer, seen) = scripted_task(60000, json!({ "resultType": "complete", "status": "paused" }));
    let client = Client::builder("c", "1").connect(peer).await.unwrap();
    let called = tokio::time::timeout(Duration::from_secs(10), client.call_tool("t", json!({}))).await;
    match called.expect("the call ends") {
        Err(RequestError::InvalidResult(_)) => {}
        other => panic!("a task of an unknown status: {other:?}"),
    }
    let cancelled = tokio::time::timeout(Duration::from_secs(5), async {
        while !seen.lock().unwrap().iter().any(|(m, _)| m == "tasks/cancel") {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    client.close().await;
    assert!(cancelled.is_ok(), "the task was left running: {:?}", seen.lock().unwrap());
}
