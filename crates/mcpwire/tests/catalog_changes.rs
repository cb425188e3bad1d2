//! Tools, resources, templates and prompts added and removed while the server runs
//! (`Server::add_tool` and its siblings): later requests see the change, a request under
//! way keeps what it started with, clients that asked are told (2025 sessions by
//! notification, 2026 clients on their listen stream), and a change the server cannot
//! honour (a family it did not declare, an invalid or duplicate definition) fails and
//! changes nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp_http;
mod raw_http;

use std::sync::Arc;
use std::time::Duration;

use mcpwire::client::{Client, ServerChange};
use mcpwire::protocol::subscriptions::SubscriptionFilter;
use mcpwire::protocol::{codes, ProtocolVersion};
use mcpwire::server::tasks::TaskSupport;
use mcpwire::server::{prompt, resource, resource_template, tool, Args, BuildError, Server, Uri};
use serde_json::{json, Value};
use tokio::sync::{mpsc, Notify};

/// Long enough for a notification on a loaded machine; a wait that ends sooner passes.
const WAIT: Duration = Duration::from_secs(10);

/// A client on an in-memory pair at `version`, and the changes it hears of.
async fn connect(
    server: &Server,
    version: ProtocolVersion,
) -> (Client, mpsc::UnboundedReceiver<ServerChange>) {
    let (ours, theirs) = mcpwire::transport::memory::pair();
    let serving = server.clone();
    tokio::spawn(async move { serving.serve(theirs).await });
    let (tx, rx) = mpsc::unbounded_channel();
    let client = Client::builder("c", "1")
        .protocol_version(version)
        .on_change(move |change| {
            let _ = tx.send(change);
        })
        .connect(ours)
        .await
        .unwrap();
    (client, rx)
}

async fn next_change(changes: &mut mpsc::UnboundedReceiver<ServerChange>) -> ServerChange {
    tokio::time::timeout(WAIT, changes.recv()).await.expect("a change notification").unwrap()
}

fn tool_names(listed: &mcpwire::protocol::tools::ListToolsResult) -> Vec<&str> {
    listed.tools.iter().map(|t| t.name.as_str()).collect()
}

#[tokio::test]
async fn a_tool_added_then_removed_reaches_a_2025_session() {
    let server = Server::builder("changing", "1").declare_tools().build().unwrap();
    let declared = server.capabilities().tools.as_ref().expect("tools are declared with none registered");
    assert_eq!(declared.list_changed, Some(true));
    let (client, mut changes) = connect(&server, ProtocolVersion::LATEST_STATEFUL).await;
    assert!(client.list_tools(None).await.unwrap().tools.is_empty());

    server
        .add_tool(
            tool("echo")
                .handler(|Args(a): Args<Value>| async move { a["text"].as_str().unwrap_or("").to_owned() }),
        )
        .unwrap();
    assert_eq!(next_change(&mut changes).await, ServerChange::ToolsChanged);
    assert_eq!(tool_names(&client.list_tools(None).await.unwrap()), ["echo"]);
    let result = client.call_tool("echo", json!({ "text": "hi" })).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("hi"));

    // A second tool of that name is refused; the first stays.
    let twice = server.add_tool(tool("echo").handler(|| "other"));
    assert!(
        matches!(&twice, Err(BuildError::Duplicate { kind: "tool", name }) if name == "echo"),
        "{twice:?}"
    );
    assert_eq!(server.tools().len(), 1);

    assert!(server.remove_tool("echo"));
    assert_eq!(next_change(&mut changes).await, ServerChange::ToolsChanged);
    assert!(!server.remove_tool("echo"), "nothing left to remove");
    assert!(client.list_tools(None).await.unwrap().tools.is_empty());
    let gone = client.call_tool("echo", json!({ "text": "hi" })).await.unwrap_err();
    assert!(gone.to_string().contains("Unknown tool: echo"), "{gone}");
    client.close().await;
}

#[tokio::test]
async fn a_2026_listen_stream_hears_of_each_list_change() {
    let server = Server::builder("changing", "1")
        .tool(tool("fixed").handler(|| "fixed"))
        .declare_prompts()
        .declare_resources()
        .build()
        .unwrap();
    let (client, _) = connect(&server, ProtocolVersion::LATEST).await;
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(true),
        resources_list_changed: Some(true),
        ..Default::default()
    };
    let mut stream = client.listen(filter).await.unwrap();
    // A server with tools registered at build may add more without declaring them.
    server.add_tool(tool("added").handler(|| "added")).unwrap();
    server.add_prompt(prompt("greet").handler(|| async { "Hello" })).unwrap();
    server.add_resource(resource("docs://a", "a").text("A")).unwrap();
    let mut heard = Vec::new();
    for _ in 0..3 {
        let n = tokio::time::timeout(WAIT, stream.next()).await.expect("a notification").unwrap();
        heard.push(n.method);
    }
    assert_eq!(
        heard,
        [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed"
        ]
    );
    assert_eq!(tool_names(&client.list_tools(None).await.unwrap()), ["fixed", "added"]);
    let called = client.call_tool("added", json!({})).await.unwrap();
    assert_eq!(called.content[0].as_text(), Some("added"));
    drop(stream);
    client.close().await;
}

#[tokio::test]
async fn prompts_resources_and_templates_change_while_serving() {
    let server = Server::builder("changing", "1").declare_prompts().declare_resources().build().unwrap();
    let (client, mut changes) = connect(&server, ProtocolVersion::LATEST_STATEFUL).await;
    // A round trip: the session has had the client's `notifications/initialized` (a
    // 2025 server sends no change notifications before it).
    assert!(client.list_prompts(None).await.unwrap().prompts.is_empty());

    server.add_prompt(prompt("greet").description("Says hello").handler(|| async { "Hello" })).unwrap();
    assert_eq!(next_change(&mut changes).await, ServerChange::PromptsChanged);
    let got = client.get_prompt("greet", Default::default()).await.unwrap();
    assert_eq!(got.messages.len(), 1);

    server.add_resource(resource("docs://readme", "readme").text("Read me")).unwrap();
    assert_eq!(next_change(&mut changes).await, ServerChange::ResourcesChanged);
    server
        .add_resource_template(
            resource_template("notes://{id}", "note")
                .handler(|Uri(uri): Uri| async move { format!("note at {uri}") }),
        )
        .unwrap();
    assert_eq!(next_change(&mut changes).await, ServerChange::ResourcesChanged);
    let listed = client.list_resources(None).await.unwrap();
    assert_eq!(listed.resources.len(), 1);
    let templates = client.list_resource_templates(None).await.unwrap();
    assert_eq!(templates.resource_templates[0].uri_template, "notes://{id}");
    let read = serde_json::to_value(client.read_resource("notes://7").await.unwrap()).unwrap();
    assert_eq!(read["contents"][0]["text"], "note at notes://7");
    let read = serde_json::to_value(client.read_resource("docs://readme").await.unwrap()).unwrap();
    assert_eq!(read["contents"][0]["text"], "Read me");

    assert!(server.remove_resource_template("notes://{id}"));
    assert_eq!(next_change(&mut changes).await, ServerChange::ResourcesChanged);
    assert!(server.remove_resource("docs://readme"));
    assert_eq!(next_change(&mut changes).await, ServerChange::ResourcesChanged);
    assert!(server.remove_prompt("greet"));
    assert_eq!(next_change(&mut changes).await, ServerChange::PromptsChanged);
    let missing = client.read_resource("notes://7").await.unwrap_err();
    assert!(missing.to_string().contains("notes://7"), "{missing}");
    assert!(client.list_prompts(None).await.unwrap().prompts.is_empty());
    assert!(!server.remove_prompt("greet") && !server.remove_resource("docs://readme"));
    client.close().await;
}

#[test]
fn a_change_the_server_cannot_honour_fails_and_changes_nothing() {
    let bare = Server::builder("fixed", "1").build().unwrap();
    for (result, family) in [
        (bare.add_tool(tool("t").handler(|| "x")), "tools"),
        (bare.add_prompt(prompt("p").handler(|| async { "x" })), "prompts"),
        (bare.add_resource(resource("docs://a", "a").text("a")), "resources"),
    ] {
        match result {
            Err(e @ BuildError::Undeclared { .. }) => {
                assert!(e.to_string().contains(family) && e.to_string().contains("declare_"), "{e}")
            }
            other => panic!("{family}: expected Undeclared, got {other:?}"),
        }
    }
    assert!(bare.capabilities().tools.is_none(), "nothing was declared by the attempt");

    let server = Server::builder("changing", "1").declare_tools().declare_resources().build().unwrap();
    let invalid = server.add_tool(tool("has space").handler(|| "x"));
    assert!(matches!(invalid, Err(BuildError::InvalidToolName(_))), "{invalid:?}");
    let header = tool("h")
        .input_schema(json!({ "type": "object", "properties": { "a": { "type": "string", "x-mcp-header": "bad name" } } }))
        .handler(|| "x");
    assert!(matches!(server.add_tool(header), Err(BuildError::InvalidParamHeader { .. })));
    // The tasks capability is fixed at build: a server built without task tools gets none.
    let task = server.add_tool(tool("slow").task_support(TaskSupport::Optional).handler(|| "x"));
    assert!(matches!(task, Err(BuildError::Undeclared { family: "tasks", .. })), "{task:?}");
    let template = resource_template("files://{dir}", "file")
        .handler(|Args(v): Args<Value>| async move { v.to_string() });
    assert!(server.add_resource_template(template.clone()).is_ok());
    assert!(matches!(server.add_resource_template(template), Err(BuildError::Duplicate { .. })));
    assert_eq!(server.tools().len(), 0, "no failed tool was added");
}

#[tokio::test]
async fn a_call_under_way_finishes_after_its_tool_is_removed() {
    let release = Arc::new(Notify::new());
    let started = Arc::new(Notify::new());
    let (gate, begun) = (release.clone(), started.clone());
    let server = Server::builder("changing", "1")
        .tool(tool("slow").handler(move || {
            let (gate, begun) = (gate.clone(), begun.clone());
            async move {
                begun.notify_one();
                gate.notified().await;
                "done"
            }
        }))
        .build()
        .unwrap();
    let (client, _) = connect(&server, ProtocolVersion::LATEST_STATEFUL).await;
    let call = tokio::spawn({
        let client = client.clone();
        async move { client.call_tool("slow", json!({})).await }
    });
    tokio::time::timeout(WAIT, started.notified()).await.unwrap();
    assert!(server.remove_tool("slow"));
    release.notify_one();
    let result = tokio::time::timeout(WAIT, call).await.unwrap().unwrap().unwrap();
    assert_eq!(result.content[0].as_text(), Some("done"));
    client.close().await;
}

/// The 2026 HTTP header check knows a tool added after the endpoint was made: its
/// `x-mcp-header` arguments need their `Mcp-Param-*` headers.
#[tokio::test]
async fn a_tool_added_over_http_has_its_param_headers_checked() {
    use mcpwire::http::{serve_with_shutdown, McpService};
    use raw_http::send;

    let server = Server::builder("changing", "1").declare_tools().build().unwrap();
    let bound = serve_with_shutdown(McpService::new(server.clone()), "127.0.0.1:0", "/mcp").await.unwrap();
    let addr = bound.local_addr;
    let region = tool("region")
        .input_schema(json!({ "type": "object", "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" } } }))
        .handler(|Args(v): Args<Value>| async move { v["region"].to_string() });
    server.add_tool(region).unwrap();
    let request = || {
        mcp_http::stateless_request(
            1,
            "tools/call",
            json!({ "name": "region", "arguments": { "region": "eu" } }),
        )
    };
    let refused = send(addr, request()).await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json().await["error"]["code"], codes::HEADER_MISMATCH);
    let answered = send(addr, request().header("mcp-param-region", "eu")).await;
    assert_eq!(answered.status, 200);
    assert_eq!(answered.json().await["result"]["content"][0]["text"], "\"eu\"");
}

/// A tool replaced by one with another output schema: once the client has heard that
/// the tool list changed (here on its 2026 listen stream), it checks the tool's results
/// against the new schema, learned again, not the one it knew before the change.
#[tokio::test]
async fn after_a_tool_list_change_results_are_checked_against_the_new_output_schema() {
    use mcpwire::protocol::tools::CallToolResult;
    let schema = |member: &str| json!({ "type": "object", "required": [member] });
    let answering = |member: &'static str| {
        tool("t")
            .output_schema(schema(member))
            .handler(move || async move { CallToolResult::structured(json!({ member: 1 })) })
    };
    let server = Server::builder("changing", "1").tool(answering("a")).build().unwrap();
    let (client, _) = connect(&server, ProtocolVersion::LATEST).await;
    let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
    let mut stream = client.listen(filter).await.unwrap();
    client.call_tool("t", json!({})).await.unwrap();
    for change in 0..2 {
        match change {
            0 => assert!(server.remove_tool("t")),
            _ => server.add_tool(answering("b")).unwrap(),
        }
        let n = tokio::time::timeout(WAIT, stream.next()).await.expect("a notification").unwrap();
        assert_eq!(n.method, "notifications/tools/list_changed");
    }
    let called = client.call_tool("t", json!({})).await;
    assert_eq!(called.unwrap().structured_content, Some(json!({ "b": 1 })));
    client.close().await;
}

/// A 2025-11-25 client learns each tool's `execution.taskSupport` from `tools/list`; a
/// tool list change makes it learn them again, so a tool replaced by one that requires a
/// task is called as a task (a plain call would be refused with `-32601`).
#[tokio::test]
async fn after_a_tool_list_change_a_tool_that_now_requires_a_task_is_called_as_one() {
    let with_support = |support: TaskSupport, answer: &'static str| {
        tool("t").task_support(support).handler(move || async move { answer })
    };
    let server = Server::builder("changing", "1")
        .tool(tool("other").task_support(TaskSupport::Optional).handler(|| "other"))
        .tool(with_support(TaskSupport::Forbidden, "plain"))
        .build()
        .unwrap();
    let (client, mut changes) = connect(&server, ProtocolVersion::V2025_11_25).await;
    let first = client.call_tool("t", json!({})).await.unwrap();
    assert_eq!(first.content[0].as_text(), Some("plain"));
    assert!(server.remove_tool("t"));
    assert_eq!(next_change(&mut changes).await, ServerChange::ToolsChanged);
    server.add_tool(with_support(TaskSupport::Required, "as a task")).unwrap();
    assert_eq!(next_change(&mut changes).await, ServerChange::ToolsChanged);
    let second = client.call_tool("t", json!({})).await.unwrap();
    assert_eq!(second.content[0].as_text(), Some("as a task"));
    client.close().await;
}
