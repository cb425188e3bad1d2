//! Edges of following a server's changes: subscribe hooks under concurrency and
//! cancellation, a listen stream that falls behind, the capability flags the server
//! declares, and list pages across a change.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use mcpwire::server::{resource, tool, Server, ServerEvent};
use serde_json::{json, Value};

fn envelope_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

type Heard = Arc<Mutex<Vec<String>>>;

/// A server with one resource whose hooks log what they hear; the subscribe hook takes a
/// while (as one that starts watching a file would), `slow_uri`'s far longer.
fn hooked(heard: &Heard, slow_uri: Option<&'static str>) -> Server {
    let (on, off) = (heard.clone(), heard.clone());
    Server::builder("hooks", "1")
        .resource(resource("docs://a", "a").text("A"))
        .on_subscribe(move |uri| {
            let heard = on.clone();
            async move {
                let pause = if Some(uri.as_str()) == slow_uri { 5_000 } else { 200 };
                tokio::time::sleep(Duration::from_millis(pause)).await;
                heard.lock().unwrap().push(format!("+{uri}"));
                Ok(())
            }
        })
        .on_unsubscribe(move |uri| off.lock().unwrap().push(format!("-{uri}")))
        .build()
        .unwrap()
}

#[tokio::test]
async fn two_2025_subscribes_to_one_resource_at_once_tell_the_hook_once() {
    let heard: Heard = Default::default();
    let mut raw = initialized(hooked(&heard, None)).await;
    raw.request(1, "resources/subscribe", json!({ "uri": "docs://a" })).await;
    raw.request(2, "resources/subscribe", json!({ "uri": "docs://a" })).await;
    for _ in 0..2 {
        assert!(json_of(&raw.next().await).get("result").is_some());
    }
    raw.hang_up();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(*heard.lock().unwrap(), ["+docs://a", "-docs://a"]);
}

#[tokio::test]
async fn a_listen_stream_cancelled_during_its_hooks_ends_what_they_passed() {
    let heard: Heard = Default::default();
    let (conn, raw) = raw_connection();
    let server = hooked(&heard, Some("docs://slow"));
    tokio::spawn(async move { server.serve(conn).await });
    let listen = json!({
        "_meta": envelope_2026(),
        "notifications": { "resourceSubscriptions": ["docs://a", "docs://slow"] }
    });
    raw.request(7, "subscriptions/listen", listen).await;
    // docs://a's hook (200 ms) has passed; docs://slow's (5 s) is still running.
    tokio::time::sleep(Duration::from_millis(700)).await;
    raw.cancel(7).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(*heard.lock().unwrap(), ["+docs://a", "-docs://a"]);
}

/// Many unrelated changes right after a tool is added overflow the stream's backlog: it
/// is still told that the tool list changed (of every kind it follows, as it cannot know
/// which it missed).
#[tokio::test]
async fn a_listen_stream_that_falls_behind_still_hears_of_a_list_change() {
    let server = Server::builder("burst", "1").declare_tools().build().unwrap();
    let (conn, mut raw) = raw_connection();
    let serving = server.clone();
    tokio::spawn(async move { serving.serve(conn).await });
    let listen = json!({ "_meta": envelope_2026(), "notifications": { "toolsListChanged": true } });
    raw.request(7, "subscriptions/listen", listen).await;
    let ack = json_of(&raw.next().await);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    server.add_tool(tool("new").handler(|| "x")).unwrap();
    for i in 0..1_000 {
        server.notify(ServerEvent::ResourceUpdated(format!("docs://{i}")));
    }
    let next = tokio::time::timeout(Duration::from_secs(5), raw.next()).await.expect("a notification");
    let next = json_of(&next);
    assert_eq!(next["method"], "notifications/tools/list_changed", "{next}");
    assert_eq!(next["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7, "{next}");
}

/// A connection that ends (here its input ends) with a listen stream open ends the stream
/// as the server ends one itself: with the final result (subscriptions: a server-side end
/// SHOULD send it), not the error other requests in flight at shutdown get.
#[tokio::test]
async fn a_listen_stream_open_at_shutdown_ends_with_its_final_result() {
    let server = Server::builder("ending", "1").declare_tools().build().unwrap();
    let (conn, mut raw) = raw_connection();
    let serving = tokio::spawn(async move { server.serve(conn).await });
    let listen = json!({ "_meta": envelope_2026(), "notifications": { "toolsListChanged": true } });
    raw.request(7, "subscriptions/listen", listen).await;
    let ack = json_of(&raw.next().await);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    raw.hang_up();
    let end = json_of(&raw.next().await);
    assert_eq!(end["id"], 7, "{end}");
    assert_eq!(end["result"]["resultType"], "complete", "{end}");
    assert_eq!(end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7, "{end}");
    tokio::time::timeout(Duration::from_secs(5), serving).await.expect("the server ended").unwrap();
}

#[tokio::test]
async fn a_2025_session_hears_list_changes_only_where_list_changed_is_declared() {
    let mut extra = serde_json::Map::new();
    extra.insert("tools".into(), json!({}));
    let server = Server::builder("quiet", "1")
        .tool(tool("t").handler(|| "x"))
        .extra_capabilities(extra)
        .build()
        .unwrap();
    let mut raw = initialized(server.clone()).await;
    // A request answered: `notifications/initialized`, sent before it, has been read.
    raw.request(1, "ping", json!({})).await;
    expect_result(&raw.next().await, 1);
    server.add_tool(tool("u").handler(|| "y")).unwrap();
    raw.expect_silence(Duration::from_millis(300)).await;
    // The same server declaring `listChanged` tells the session.
    let server = Server::builder("told", "1").tool(tool("t").handler(|| "x")).build().unwrap();
    let mut raw = initialized(server.clone()).await;
    raw.request(1, "ping", json!({})).await;
    expect_result(&raw.next().await, 1);
    server.add_tool(tool("u").handler(|| "y")).unwrap();
    assert_eq!(json_of(&raw.next().await)["method"], "notifications/tools/list_changed");
}

#[tokio::test]
async fn resources_subscribe_is_served_only_where_subscribe_is_declared() {
    let heard: Heard = Default::default();
    let on = heard.clone();
    let mut extra = serde_json::Map::new();
    extra.insert("resources".into(), json!({ "listChanged": true }));
    let server = Server::builder("no-subscribe", "1")
        .resource(resource("docs://a", "a").text("A"))
        .on_subscribe(move |uri| {
            on.lock().unwrap().push(uri);
            async { Ok(()) }
        })
        .extra_capabilities(extra)
        .build()
        .unwrap();
    let mut raw = initialized(server).await;
    for (id, method) in [(1, "resources/subscribe"), (2, "resources/unsubscribe")] {
        raw.request(id, method, json!({ "uri": "docs://a" })).await;
        let answer = json_of(&raw.next().await);
        assert_eq!(answer["error"]["code"], -32601, "{answer}");
    }
    assert!(heard.lock().unwrap().is_empty());
}

fn names(page: &Value) -> Vec<String> {
    page["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect()
}

/// A page's cursor goes on after the item that page ended with, wherever it now is: a
/// tool removed or added before it moves nothing still listed out of sight.
#[tokio::test]
async fn list_pages_go_on_after_their_last_item_when_the_list_changes() {
    let mut builder = Server::builder("paged", "1").page_size(2);
    for name in ["a", "b", "c", "d", "e"] {
        builder = builder.tool(tool(name).handler(|| "x"));
    }
    let server = builder.build().unwrap();
    let mut raw = initialized(server.clone()).await;
    raw.request(1, "tools/list", json!({})).await;
    let first = expect_result(&raw.next().await, 1);
    assert_eq!(names(&first), ["a", "b"]);
    assert!(server.remove_tool("a"));
    assert_eq!(json_of(&raw.next().await)["method"], "notifications/tools/list_changed");
    raw.request(2, "tools/list", json!({ "cursor": first["nextCursor"] })).await;
    let second = expect_result(&raw.next().await, 2);
    assert_eq!(names(&second), ["c", "d"]);
    // The item the second page ended with is removed: the cursor is refused.
    assert!(server.remove_tool("d"));
    let _ = raw.next().await;
    raw.request(3, "tools/list", json!({ "cursor": second["nextCursor"] })).await;
    let refused = json_of(&raw.next().await);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("list again"), "{refused}");
}

#[tokio::test]
async fn a_2025_session_follows_a_bounded_number_of_resources() {
    let server = Server::builder("many", "1").resource(resource("docs://a", "a").text("A")).build().unwrap();
    let mut raw = initialized(server).await;
    for i in 0..4096 {
        raw.request(i + 1, "resources/subscribe", json!({ "uri": format!("docs://{i}") })).await;
        expect_result(&raw.next().await, i + 1);
    }
    raw.request(5000, "resources/subscribe", json!({ "uri": "docs://one-more" })).await;
    let refused = json_of(&raw.next().await);
    assert_eq!(refused["error"]["code"], -32603, "{refused}");
    assert!(
        refused["error"]["message"].as_str().unwrap().contains("unsubscribe from some first"),
        "{refused}"
    );
    // One already followed is still acknowledged, and unsubscribing makes room.
    raw.request(5001, "resources/subscribe", json!({ "uri": "docs://7" })).await;
    expect_result(&raw.next().await, 5001);
    raw.request(5002, "resources/unsubscribe", json!({ "uri": "docs://7" })).await;
    expect_result(&raw.next().await, 5002);
    raw.request(5003, "resources/subscribe", json!({ "uri": "docs://one-more" })).await;
    expect_result(&raw.next().await, 5003);
}

/// A 2026 listen stream follows at most as many resources (and tasks) as a 2025 session
/// does: the rest of a longer list is not honoured, and the acknowledgement says which
/// are (the client compares it with what it asked). A stream lives as long as the client
/// keeps it, so what it names must not hold the server's memory without bound.
#[tokio::test]
async fn a_2026_listen_stream_follows_a_bounded_number_of_resources_and_tasks() {
    let heard: Heard = Default::default();
    let hook = heard.clone();
    let server = Server::builder("many", "1")
        .resource(resource("docs://a", "a").text("A"))
        .on_subscribe(move |uri| {
            hook.lock().unwrap().push(uri);
            async { Ok(()) }
        })
        .tool(tool("t").task_support(mcpwire::server::tasks::TaskSupport::Optional).handler(|| "done"))
        .build()
        .unwrap();
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });
    let uris: Vec<String> = (0..10_000).map(|i| format!("docs://{i}")).collect();
    let tasks: Vec<String> = (0..10_000).map(|i| format!("task-{i}")).collect();
    let mut envelope = envelope_2026();
    envelope["io.modelcontextprotocol/clientCapabilities"]["extensions"] =
        json!({ "io.modelcontextprotocol/tasks": {} });
    let notifications = json!({ "resourceSubscriptions": uris, "taskIds": tasks });
    raw.request(1, "subscriptions/listen", json!({ "_meta": envelope, "notifications": notifications }))
        .await;
    let ack = json_of(&raw.next().await);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    let honoured = &ack["params"]["notifications"];
    let followed = honoured["resourceSubscriptions"].as_array().unwrap();
    assert_eq!(followed.len(), 4096, "resources honoured");
    assert_eq!(followed[0], "docs://0");
    assert_eq!(honoured["taskIds"].as_array().unwrap().len(), 4096, "tasks honoured");
    assert_eq!(heard.lock().unwrap().len(), 4096, "the subscribe hook heard of more than are followed");
}

/// A listen stream naming long URIs and task ids: what it follows is bounded in bytes as
/// a 2025 session's subscriptions are (1 MiB of URIs, and of task ids), not only in
/// number; the acknowledgement lists what is followed, and a short URI after the long
/// ones still fits.
#[tokio::test]
async fn a_2026_listen_stream_naming_huge_uris_and_task_ids_follows_a_bounded_number_of_bytes() {
    let server = Server::builder("long", "1")
        .resource(resource("docs://a", "a").text("A"))
        .on_subscribe(|_uri| async { Ok(()) })
        .tool(tool("t").task_support(mcpwire::server::tasks::TaskSupport::Optional).handler(|| "done"))
        .build()
        .unwrap();
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });
    let long = |prefix: &str, i: usize| format!("{prefix}{i}/{}", "u".repeat(256 * 1024));
    let mut uris: Vec<String> = (0..16).map(|i| long("docs://", i)).collect();
    uris.push("docs://a".to_owned());
    let tasks: Vec<String> = (0..16).map(|i| long("task-", i)).collect();
    let mut envelope = envelope_2026();
    envelope["io.modelcontextprotocol/clientCapabilities"]["extensions"] =
        json!({ "io.modelcontextprotocol/tasks": {} });
    let notifications = json!({ "resourceSubscriptions": uris, "taskIds": tasks });
    raw.request(1, "subscriptions/listen", json!({ "_meta": envelope, "notifications": notifications }))
        .await;
    let ack = json_of(&raw.next().await);
    let honoured = &ack["params"]["notifications"];
    let bytes =
        |list: &Value| list.as_array().unwrap().iter().map(|u| u.as_str().unwrap().len()).sum::<usize>();
    let followed = &honoured["resourceSubscriptions"];
    assert!(bytes(followed) <= 1 << 20, "{} bytes of URIs followed", bytes(followed));
    assert!(followed.as_array().unwrap().len() >= 2, "nothing long followed");
    assert_eq!(followed.as_array().unwrap().last().unwrap(), "docs://a");
    assert!(
        bytes(&honoured["taskIds"]) <= 1 << 20,
        "{} bytes of task ids followed",
        bytes(&honoured["taskIds"])
    );
}

/// A listen stream naming one task id thousands of times follows it once: the
/// acknowledgement lists it once (and a change feed the stream fell behind on tells it
/// of the task once, not once per time it was named).
#[tokio::test]
async fn a_listen_stream_follows_each_task_once_however_often_it_names_it() {
    let server = Server::builder("many", "1")
        .tool(tool("t").task_support(mcpwire::server::tasks::TaskSupport::Optional).handler(|| "done"))
        .build()
        .unwrap();
    let (conn, mut raw) = raw_connection();
    tokio::spawn(async move { server.serve(conn).await });
    let mut tasks: Vec<String> = vec!["task-a".into(); 5000];
    tasks.extend((0..10_000).map(|i| format!("task-{i}")));
    let mut envelope = envelope_2026();
    envelope["io.modelcontextprotocol/clientCapabilities"]["extensions"] =
        json!({ "io.modelcontextprotocol/tasks": {} });
    let notifications = json!({ "taskIds": tasks });
    raw.request(1, "subscriptions/listen", json!({ "_meta": envelope, "notifications": notifications }))
        .await;
    let ack = json_of(&raw.next().await);
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    let followed = ack["params"]["notifications"]["taskIds"].as_array().unwrap();
    assert_eq!(followed.len(), 4096, "tasks honoured");
    assert_eq!(followed.iter().filter(|t| *t == "task-a").count(), 1, "task-a followed once");
    assert_eq!(followed[0], "task-a");
    assert_eq!(followed[1], "task-0");
}
