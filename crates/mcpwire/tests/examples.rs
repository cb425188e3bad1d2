//! The examples in `crates/mcpwire/examples/` run as their docs say, in both protocol
//! eras: against the official Python SDK client, against mcpwire's client library, and
//! the `client` example against the example servers. `cargo test` builds the examples
//! next to the test binaries.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpwire::client::{Client, RequestOptions};
use mcpwire::protocol::completion::{CompleteRequestParams, CompletionReference, ResourceTemplateReference};
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::child::ChildProcess;
use mcpwire::transport::http_client::HttpClientTransport;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// A built example.
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    let path = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is missing: build the examples (cargo test builds them)", path.display());
    path
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python with the official SDK (`scripts/install-peers.sh` installs it).
fn python() -> Option<PathBuf> {
    let path = std::env::var_os("MCPWIRE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(".tools/venv/bin/python"));
    if path.is_file() {
        return Some(path);
    }
    assert!(std::env::var_os("CI").is_none(), "CI must install the Python SDK (scripts/install-peers.sh)");
    eprintln!("skipped: no Python SDK at {} (run scripts/install-peers.sh)", path.display());
    None
}

/// A client connected to an example, in the 2025 era or (probing) the 2026 one.
async fn connect(name: &str, era_2025: bool) -> Client {
    let mut builder = Client::builder("examples-test", "1");
    if era_2025 {
        builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
    }
    let client = builder.spawn(ChildProcess::new(example(name))).await.unwrap();
    let expected = if era_2025 { "2025-11-25" } else { "2026-07-28" };
    assert_eq!(client.protocol_version().to_string(), expected);
    client
}

#[test]
fn the_python_sdk_client_uses_every_example_server_in_both_eras() {
    let Some(python) = python() else { return };
    for mode in ["legacy", "auto"] {
        let out = Command::new(&python)
            .arg(workspace().join("tests/peers/python/client_examples.py"))
            .arg(mode)
            .arg(example("tools").parent().unwrap())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{mode}: {stderr}");
        let got: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(got["tools"]["names"], json!(["add", "forecast", "shout", "teach"]), "{mode}");
        assert_eq!(got["teach"]["answer"], json!(["learned hello"]), "{mode}");
        assert_eq!(got["teach"]["names"], json!(["add", "forecast", "hello", "shout", "teach"]), "{mode}");
        assert_eq!(got["teach"]["hello"], json!(["Hi there"]), "{mode}");
        assert_eq!(got["tools"]["forecast"]["city"], "Lisbon", "{mode}");
        assert_eq!(got["tools"]["shout"], json!(["HI"]), "{mode}");
        assert_eq!(got["tools"]["shout_bangs"], json!(["HI!!"]), "{mode}");
        assert_eq!(got["plan_trip"], json!(["2 nights in Lisbon: see the tiles"]), "{mode}");
        assert_eq!(got["prompts"]["arguments"]["commit_message"], json!(["change", "style"]), "{mode}");
        assert_eq!(got["prompts"]["arguments"]["review"], json!(["code", "focus"]), "{mode}");
        let message = got["prompts"]["commit_message"][0].as_str().unwrap();
        assert!(message.ends_with("this change: fix the parser"), "{mode}: {message}");
        assert_eq!(got["resources"][0].as_str().unwrap().split(';').next(), Some("Each value has one owner"));
        let items = json!([{ "name": "apples", "quantity": 2 }, { "name": "bread", "quantity": 1 }]);
        assert_eq!(got["methods"]["added"], json!({ "items": items }), "{mode}");
        assert_eq!(got["methods"]["list"], json!(["2 x apples\n1 x bread\n"]), "{mode}");
    }
}

/// [`connect`], with what the server says changed (`on_change`) sent to a channel.
async fn connect_watching(
    name: &str,
    era_2025: bool,
) -> (Client, tokio::sync::mpsc::UnboundedReceiver<mcpwire::client::ServerChange>) {
    let (tx, changes) = tokio::sync::mpsc::unbounded_channel();
    let mut builder = Client::builder("examples-test", "1").on_change(move |change| {
        let _ = tx.send(change);
    });
    if era_2025 {
        builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
    }
    (builder.spawn(ChildProcess::new(example(name))).await.unwrap(), changes)
}

/// The tools example's `teach` adds a tool while the server runs: a 2025 session is told
/// its tool list changed, and in both eras the new tool is listed and answers.
#[tokio::test]
async fn the_tools_example_learns_a_tool_while_it_runs() {
    for era_2025 in [true, false] {
        let (client, mut changes) = connect_watching("tools", era_2025).await;
        let taught = client.call_tool("teach", json!({ "name": "hello", "text": "Hi there" })).await.unwrap();
        assert_eq!(taught.content[0].as_text(), Some("learned hello"));
        if era_2025 {
            let change = tokio::time::timeout(Duration::from_secs(10), changes.recv()).await.unwrap();
            assert_eq!(change, Some(mcpwire::client::ServerChange::ToolsChanged));
        }
        let names: Vec<String> =
            client.list_tools(None).await.unwrap().tools.into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["add", "forecast", "shout", "teach", "hello"], "2025: {era_2025}");
        let hello = client.call_tool("hello", json!({})).await.unwrap();
        assert_eq!(hello.content[0].as_text(), Some("Hi there"));
        let again = client.call_tool("teach", json!({ "name": "hello", "text": "again" })).await.unwrap();
        assert_eq!(again.is_error, Some(true), "a name already taken is the tool's error");
        client.close().await;
    }
}

/// The methods example's shopping list: tools that change the state every request
/// shares, the resource that shows it (its subscribers told of each change) and a prompt
/// that reads it, in both eras.
#[tokio::test]
async fn the_methods_example_keeps_one_list_for_every_request() {
    for era_2025 in [true, false] {
        let (client, mut changes) = connect_watching("methods", era_2025).await;
        let names: Vec<String> =
            client.list_tools(None).await.unwrap().tools.into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["add", "remove"], "2025: {era_2025}");
        client.subscribe("shopping://list").await.unwrap();

        client.call_tool("add", json!({ "name": "Apples", "quantity": 3 })).await.unwrap();
        let added = client.call_tool("add", json!({ "name": "apples" })).await.unwrap();
        let added = serde_json::to_value(added).unwrap();
        assert_eq!(added["structuredContent"], json!({ "items": [{ "name": "apples", "quantity": 4 }] }));
        let change = tokio::time::timeout(Duration::from_secs(10), changes.recv()).await.unwrap();
        assert_eq!(change, Some(mcpwire::client::ServerChange::ResourceUpdated("shopping://list".into())));

        client.call_tool("add", json!({ "name": "bread" })).await.unwrap();
        let read = serde_json::to_value(client.read_resource("shopping://list").await.unwrap()).unwrap();
        assert_eq!(read["contents"][0]["text"], "4 x apples\n1 x bread\n", "2025: {era_2025}");
        let missing = client.call_tool("remove", json!({ "name": "pears" })).await.unwrap();
        assert_eq!(missing.is_error, Some(true), "a name not on the list is the tool's error");
        let removed = client.call_tool("remove", json!({ "name": "Bread" })).await.unwrap();
        assert_eq!(removed.content[0].as_text(), Some("crossed off bread"));
        let days = std::collections::BTreeMap::from([("days".to_owned(), "2".to_owned())]);
        let plan = serde_json::to_value(client.get_prompt("plan_meals", days).await.unwrap()).unwrap();
        assert_eq!(plan["messages"][0]["content"]["text"], "Plan 2 days of meals using: apples.");
        client.close().await;
    }
}

#[test]
fn the_client_example_calls_the_example_servers_in_both_eras() {
    for era in [&["--era", "2025"][..], &[]] {
        let run = |server: &str, tool: &str, arguments: &str| {
            let out = Command::new(example("client"))
                .args(era)
                .arg(example(server))
                .args([tool, arguments])
                .output()
                .unwrap();
            assert!(out.status.success(), "{era:?}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8(out.stdout).unwrap()
        };
        let forecast = run("tools", "forecast", r#"{"city":"Lisbon"}"#);
        assert!(forecast.contains("tool shout: Says the text back in capitals."), "{forecast}");
        // Key order depends on serde_json's `preserve_order` in this build: compare values.
        let structured =
            forecast.lines().find_map(|l| l.strip_prefix("structured: ")).expect("structured content");
        let structured: Value = serde_json::from_str(structured).unwrap();
        assert_eq!(
            structured,
            json!({ "celsius": 20.0, "city": "Lisbon", "summary": "cloudy" }),
            "{forecast}"
        );
        let trip = run("elicitation_sampling", "plan_trip", "{}");
        assert!(trip.contains("the server asks: Where would you like to go?"), "{trip}");
        assert!(trip.contains("text: 3 nights in Porto: walk along the river at dusk"), "{trip}");
        let version = if era.is_empty() { "(2026-07-28)" } else { "(2025-11-25)" };
        assert!(trip.contains(version), "{trip}");
    }
}

/// The tasks example's tool, called by the `client` example: a 2026 server makes the
/// call a task, which `call_tool` follows, answering its question; at 2025-11-25
/// `call_tool` asks for no task for a tool that only allows one, and the same handler
/// runs in the call.
#[test]
fn the_tasks_example_answers_the_client_example_in_both_eras() {
    for (era, place) in [(&["--era", "2025"][..], "in the call"), (&[], "in task ")] {
        let out = Command::new(example("client"))
            .args(era)
            .arg(example("tasks"))
            .args(["build_report", r#"{"pages":3}"#])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{era:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains("the server asks: What title should the report have?"), "{era:?}: {stdout}");
        let text = format!(r#"text: report "Porto": 3 pages, written {place}"#);
        assert!(stdout.contains(&text), "{era:?}: {stdout}");
    }
}

/// `start_tool_call` makes the tasks example's call a task in both eras; cancelled while
/// its question waits for an answer, the task ends cancelled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_of_the_tasks_example_can_be_cancelled_in_both_eras() {
    use mcpwire::client::ToolCallStart;
    use mcpwire::protocol::elicitation::{ElicitAction, ElicitResult};
    use mcpwire::protocol::tasks_ext::TaskState;
    for era_2025 in [true, false] {
        // A 2025 client that cannot elicit would fail the task at its question.
        let mut builder = Client::builder("examples-test", "1")
            .on_elicitation(|_| async { Ok(ElicitResult::action(ElicitAction::Decline)) });
        if era_2025 {
            builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
        }
        let client = builder.spawn(ChildProcess::new(example("tasks"))).await.unwrap();
        let start = client.start_tool_call("build_report", json!({ "pages": 50 }), RequestOptions::default());
        let ToolCallStart::Task(task) = start.await.unwrap() else { panic!("{era_2025}: not a task") };
        client.cancel_task(&task.task_id).await.unwrap();
        let state = client.get_task(&task.task_id).await.unwrap().state;
        assert!(matches!(state, TaskState::Cancelled), "{era_2025}: {state:?}");
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_and_progress_reach_the_client_in_both_eras() {
    for era_2025 in [true, false] {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = logs.clone();
        let mut builder = Client::builder("examples-test", "1")
            .on_log(move |log| sink.lock().unwrap().push(log.data.as_str().unwrap_or_default().to_owned()));
        if era_2025 {
            builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
        }
        let client = builder.spawn(ChildProcess::new(example("logging_progress"))).await.unwrap();
        client.set_log_level(LoggingLevel::Info).await.unwrap();
        let progress = Arc::new(Mutex::new(Vec::new()));
        let seen = progress.clone();
        let options = RequestOptions::default()
            .timeout(Duration::from_secs(20))
            .on_progress(move |p| seen.lock().unwrap().push((p.progress, p.total)));
        let result = client.call_tool_with("crunch", json!({ "steps": 3 }), options).await.unwrap();
        assert_eq!(
            result.content[0].as_text(),
            Some("the sum of squares up to 3 is 14"),
            "era 2025: {era_2025}"
        );
        assert_eq!(*progress.lock().unwrap(), vec![(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]);
        assert_eq!(logs.lock().unwrap().last().map(String::as_str), Some("step 3: running total 14"));
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resource_templates_complete_and_read_typed_variables() {
    for era_2025 in [true, false] {
        let client = connect("resources", era_2025).await;
        let templates = client.list_all_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "books://{shelf}/{title}");
        let params = CompleteRequestParams::resource("books://{shelf}/{title}", "shelf", "m");
        assert_eq!(client.complete(&params).await.unwrap().completion.values, vec!["mcp"]);
        let other = CompleteRequestParams {
            reference: CompletionReference::Resource(ResourceTemplateReference {
                uri: "films://{shelf}".into(),
                ..Default::default()
            }),
            ..params
        };
        // A template the server does not have is the client's mistake.
        match client.complete(&other).await {
            Err(mcpwire::RequestError::Peer(e)) => assert_eq!(e.code, -32602, "{}", e.message),
            other => panic!("an unknown template: {other:?}"),
        }
        let read = client.read_resource("books://mcp/tools").await.unwrap();
        let text = serde_json::to_value(&read.contents[0]).unwrap()["text"].clone();
        assert_eq!(text, "A tool is a function the model may call.");
        // Not found, in the era's words: -32002 up to 2025-11-25, -32602 in 2026.
        match client.read_resource("books://mcp/nothing").await {
            Err(mcpwire::RequestError::Peer(e)) => {
                assert_eq!(e.code, if era_2025 { -32002 } else { -32602 }, "{}", e.message);
                assert_eq!(e.data, Some(serde_json::json!({ "uri": "books://mcp/nothing" })));
            }
            other => panic!("a missing book: {other:?}"),
        }
        client.close().await;
    }
}

/// A plain HTTP/1.1 request to the example (`Connection: close`): the status line and the
/// whole response text.
async fn http(addr: &str, request: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).await.unwrap();
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_axum_example_serves_mcp_behind_bearer_auth_beside_its_own_routes() {
    let mut child = tokio::process::Command::new(example("http_axum"))
        .arg("127.0.0.1:0")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first =
        tokio::time::timeout(Duration::from_secs(20), lines.next_line()).await.unwrap().unwrap().unwrap();
    let base = first.split_whitespace().nth(2).expect("listening on http://ADDR").to_owned();
    let addr = base.trim_start_matches("http://").to_owned();

    let health = http(&addr, "GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").await;
    assert!(health.starts_with("HTTP/1.1 200") && health.ends_with("ok"), "{health}");
    let post = "POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}";
    let refused = http(&addr, post).await;
    assert!(refused.starts_with("HTTP/1.1 401"), "{refused}");
    let challenge = format!("resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"");
    assert!(
        refused.to_lowercase().contains("www-authenticate: bearer") && refused.contains(&challenge),
        "{refused}"
    );
    let metadata = http(
        &addr,
        "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
    )
    .await;
    assert!(metadata.contains(&format!("\"resource\":\"{base}/mcp\"")), "{metadata}");

    for era_2025 in [true, false] {
        let transport =
            HttpClientTransport::new(&format!("{base}/mcp")).unwrap().bearer_token("demo-token").unwrap();
        let mut builder = Client::builder("examples-test", "1");
        if era_2025 {
            builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
        }
        let client = builder.connect(transport).await.unwrap();
        let result = client.call_tool("whoami", json!({})).await.unwrap();
        assert_eq!(result.content[0].as_text(), Some("you are demo-user"), "era 2025: {era_2025}");
        client.close().await;
    }
    child.kill().await.unwrap();
}

/// `opentelemetry`: the server's span for the client's call continues the client's trace.
#[test]
fn the_opentelemetry_example_continues_the_clients_trace_in_the_server() {
    let output = Command::new(example("opentelemetry")).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("add(2, 3) = {\"result\":5}"), "{stdout}");
    assert!(stdout.contains("span continues the client's trace"), "{stdout}");
}

#[cfg(feature = "auth")]
mod scratch;
/// The `oauth_login` example against the tests' authorization server
/// (`auth_server/test_as.rs`: metadata, Dynamic Client Registration, authorization code
/// with PKCE) and an MCP server behind `BearerAuthLayer` that trusts its tokens. The test
/// plays the browser: it opens the URL the example shows, follows the authorization
/// server's redirect to the example's loopback listener, and the example lists the tools
/// with its new token. A second run with the same token file needs no login.
#[cfg(feature = "auth")]
#[path = "auth_server/test_as.rs"]
mod test_as;

#[cfg(feature = "auth")]
mod oauth_login {
    use std::process::Stdio;
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use mcpwire::auth::server::{
        serve_service, BearerAuthLayer, JwtVerifier, MetadataRouter, ResourceMetadata,
    };
    use mcpwire::http::{Bound, McpService};
    use mcpwire::server::{tool, Ctx, Server};
    use mcpwire::Principal;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

    use super::{example, http, test_as};

    const SCOPE: &str = "mcp:tools";

    /// An MCP server with a `whoami` tool behind a layer that trusts `issuer`'s JWTs.
    async fn protected(issuer: &str) -> (String, Bound) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
        let server = Server::builder("protected", "1.0.0")
            .tool(tool("whoami").description("The caller").handler(|ctx: Ctx| async move {
                ctx.extensions().get::<Principal>().map(|p| p.0.clone()).unwrap_or_default()
            }))
            .build()
            .unwrap();
        let mut metadata = ResourceMetadata::new(&resource, issuer);
        metadata.scopes_supported = vec![SCOPE.into()];
        let verifier = JwtVerifier::from_issuer(issuer.to_owned(), &resource);
        let layer = BearerAuthLayer::new(verifier, metadata.url()).required_scopes([SCOPE]);
        let app = MetadataRouter::new(&metadata, tower_layer::Layer::layer(&layer, McpService::new(server)));
        (resource, serve_service(listener, app).unwrap())
    }

    /// `GET url` (an `http://` URL): the response's `Location` header and status line.
    async fn get(url: &str) -> (String, Option<String>) {
        let rest = url.strip_prefix("http://").unwrap();
        let (addr, path) = rest.split_at(rest.find('/').unwrap());
        let text =
            http(addr, &format!("GET {path} HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n")).await;
        let status = text.lines().next().unwrap_or_default().to_owned();
        let location = text
            .lines()
            .find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("location")))
            .map(|(_, v)| v.trim().to_owned());
        (status, location)
    }

    /// Runs the example; when it shows an authorization URL, approves it as a browser
    /// would. Returns (stdout, whether it asked to log in).
    async fn run(url: &str, tokens: &std::path::Path) -> (String, bool) {
        let mut child = tokio::process::Command::new(example("oauth_login"))
            .arg("--tokens")
            .arg(tokens)
            .arg("--no-browser")
            .arg(url)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut asked = false;
        let session = async {
            while let Some(line) = stderr.next_line().await.unwrap() {
                let Some(authorize) = line.trim().strip_prefix("http://").map(|u| format!("http://{u}"))
                else {
                    continue;
                };
                asked = true;
                let (status, location) = get(&authorize).await;
                assert!(status.contains(" 302 "), "{status}");
                let callback = location.expect("the authorization server redirects");
                let (status, _) = get(&callback).await;
                assert!(status.contains(" 200 "), "the example's loopback page: {status}");
            }
            let mut out = String::new();
            stdout.read_to_string(&mut out).await.unwrap();
            (out, child.wait().await.unwrap())
        };
        let (out, status) =
            tokio::time::timeout(Duration::from_secs(60), session).await.expect("oauth_login hung");
        assert!(status.success(), "oauth_login failed: {out}");
        (out, asked)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_oauth_login_example_logs_in_through_the_browser_then_reuses_its_token() {
        let auth = test_as::TestAs::start().await;
        let (url, bound) = protected(&auth.issuer).await;
        let dir = crate::scratch::Scratch::new("oauth-login");
        let tokens = dir.join("tokens.json");

        let (out, asked) = run(&url, &tokens).await;
        assert!(asked, "the first run logs in");
        assert!(out.contains("tools: whoami"), "{out}");
        assert!(out.lines().any(|l| l.starts_with("scope: ") && l.contains(SCOPE)), "{out}");
        assert_eq!(auth.tokens_issued.load(Ordering::SeqCst), 1);
        assert!(std::fs::read_to_string(&tokens).unwrap().contains("access_token"));

        let (out, asked) = run(&url, &tokens).await;
        assert!(!asked, "the second run uses the stored token");
        assert!(out.contains("tools: whoami"), "{out}");
        assert_eq!(auth.tokens_issued.load(Ordering::SeqCst), 1, "no new token");
        bound.shutdown.cancel();
    }
}
