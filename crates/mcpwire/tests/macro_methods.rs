//! `#[mcpwire::handlers]`: tools, prompts and resources written as methods (and associated
//! functions) of the server's own type, listed and called by mcpwire's client over an
//! in-memory connection in both protocol eras: the schemas they publish, the results they
//! give, and one shared value behind every `&self` handler.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use mcpwire::client::Client;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::server::{Ctx, Server, State, ToolError, Uri};
use mcpwire::McpError;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

/// The count and what it is of: a typed result, sent as structured content.
#[derive(Serialize, JsonSchema)]
struct Snapshot {
    count: i64,
    label: Option<String>,
}

/// A factor put in the server's shared state, read by a `State<T>` extractor.
#[derive(Clone)]
struct Scale(i64);

#[derive(Clone)]
struct Counter {
    n: Arc<AtomicI64>,
    label: String,
}

#[mcpwire::handlers]
impl Counter {
    fn new(label: &str) -> Self {
        Counter { n: Arc::new(AtomicI64::new(0)), label: label.to_owned() }
    }

    /// Add one and return the new count.
    #[tool]
    async fn increment(&self) -> i64 {
        self.n.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Add `by`.
    #[tool(name = "add_to", title = "Add", idempotent_hint = false)]
    async fn add(&self, #[arg(description = "How much to add")] by: i64, ctx: Ctx) -> Result<i64, McpError> {
        if by == 0 {
            return Err(McpError::invalid_params(format!("by must not be 0 ({})", ctx.protocol_version())));
        }
        Ok(self.n.fetch_add(by, Ordering::SeqCst) + by)
    }

    /// The count, and its label if asked.
    #[mcpwire::tool(read_only_hint = true)]
    async fn snapshot(
        &self,
        /// Whether to give the label.
        #[arg(rename = "withLabel")]
        with_label: Option<bool>,
    ) -> Result<Snapshot, ToolError> {
        let count = self.n.load(Ordering::SeqCst);
        if count < 0 {
            return Err(ToolError::new("the count is below zero"));
        }
        Ok(Snapshot { count, label: with_label.unwrap_or(false).then(|| self.label.clone()) })
    }

    /// Twice the count (a sync method, run on the blocking pool).
    #[tool]
    fn double(&self) -> i64 {
        self.n.load(Ordering::SeqCst) * 2
    }

    /// `x` times the shared scale.
    #[tool]
    async fn scaled(&self, State(scale): State<Scale>, x: i64) -> i64 {
        x * scale.0
    }

    /// Echoes `text` (an associated function: no `self`).
    #[tool]
    async fn echo(text: String) -> String {
        text
    }

    /// Greets someone, as this counter.
    #[prompt(title = "Greeting")]
    async fn greet(
        &self,
        /** Who to greet. */
        name: String,
    ) -> String {
        format!("{} says hello to {name}", self.label)
    }

    /// The count now.
    #[resource(uri = "counter://value", mime_type = "text/plain")]
    async fn value(&self) -> String {
        self.n.load(Ordering::SeqCst).to_string()
    }

    /// The count times `k`, and the URI asked for.
    #[resource(uri = "counter://times/{k}", name = "times")]
    async fn times(&self, k: i64, Uri(uri): Uri) -> String {
        format!("{} at {uri}", self.n.load(Ordering::SeqCst) * k)
    }

    /// Compiled out, and its definition with it.
    #[cfg(any())]
    #[tool]
    async fn gone(&self) -> i64 {
        0
    }

    /// Not an MCP definition: stays an ordinary method.
    fn helper(&self) -> i64 {
        self.n.load(Ordering::SeqCst)
    }
}

/// A block of associated functions only: its `definitions()` takes no value.
struct Tools;

#[mcpwire::handlers]
impl Tools {
    /// Answers pong.
    #[tool]
    async fn ping() -> &'static str {
        "pong"
    }
}

fn server(counter: &Counter) -> Server {
    Server::builder("counter", "1.0")
        .state(Scale(3))
        .register_all(counter.definitions())
        .register_all(Tools::definitions())
        .build()
        .unwrap()
}

async fn connect(server: &Server, version: ProtocolVersion) -> Client {
    let (ours, theirs) = mcpwire::transport::memory::pair();
    let serving = server.clone();
    tokio::spawn(async move { serving.serve(theirs).await });
    Client::builder("c", "1").protocol_version(version).connect(ours).await.unwrap()
}

/// The tools listed, by name, as JSON.
async fn tools(client: &Client) -> BTreeMap<String, Value> {
    let listed = client.list_all_tools().await.unwrap();
    listed.into_iter().map(|t| (t.name.clone(), serde_json::to_value(t).unwrap())).collect()
}

async fn call(client: &Client, name: &str, arguments: Value) -> Value {
    serde_json::to_value(client.call_tool(name, arguments).await.unwrap()).unwrap()
}

#[tokio::test]
async fn method_tools_list_with_their_schemas_in_both_eras() {
    let counter = Counter::new("c1");
    let server = server(&counter);
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = connect(&server, version.clone()).await;
        let tools = tools(&client).await;
        let names: Vec<&str> = tools.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["add_to", "double", "echo", "increment", "ping", "scaled", "snapshot"],
            "{version:?}"
        );

        let increment = &tools["increment"];
        assert_eq!(increment["description"], "Add one and return the new count.");
        assert_eq!(increment["inputSchema"]["type"], "object");
        assert_eq!(increment["inputSchema"]["properties"], json!({}), "&self is no argument");
        assert_eq!(increment["outputSchema"]["properties"]["result"]["type"], "integer");

        let add = &tools["add_to"];
        assert_eq!((add["title"].clone(), add["description"].clone()), (json!("Add"), json!("Add `by`.")));
        assert_eq!(add["annotations"]["idempotentHint"], false);
        assert_eq!(add["inputSchema"]["required"], json!(["by"]), "Ctx is no argument: {add}");
        assert_eq!(add["inputSchema"]["properties"]["by"]["description"], "How much to add");
        assert_eq!(add["inputSchema"]["title"], "add_toArguments");

        let snapshot = &tools["snapshot"];
        assert_eq!(snapshot["annotations"]["readOnlyHint"], true);
        let with_label = &snapshot["inputSchema"]["properties"]["withLabel"];
        assert_eq!(with_label["description"], "Whether to give the label.", "{snapshot}");
        assert!(snapshot["inputSchema"].get("required").is_none_or(|r| r == &json!([])), "{snapshot}");
        assert_eq!(snapshot["outputSchema"]["required"], json!(["count", "label"]), "{snapshot}");

        assert_eq!(tools["scaled"]["inputSchema"]["required"], json!(["x"]), "State is no argument");
        assert_eq!(tools["echo"]["inputSchema"]["required"], json!(["text"]));
        assert!(tools["echo"].get("outputSchema").is_none(), "text results have no output schema");

        let prompts = client.list_all_prompts().await.unwrap();
        let greet = serde_json::to_value(&prompts[0]).unwrap();
        assert_eq!((greet["name"].clone(), greet["title"].clone()), (json!("greet"), json!("Greeting")));
        assert_eq!(
            greet["arguments"],
            json!([{ "name": "name", "description": "Who to greet.", "required": true }])
        );

        let resources = serde_json::to_value(client.list_all_resources().await.unwrap()).unwrap();
        assert_eq!(resources[0]["uri"], "counter://value");
        assert_eq!(resources[0]["mimeType"], "text/plain");
        let templates = serde_json::to_value(client.list_all_resource_templates().await.unwrap()).unwrap();
        assert_eq!(templates[0]["uriTemplate"], "counter://times/{k}");
        client.close().await;
    }
}

#[tokio::test]
async fn method_tools_run_on_one_shared_value_in_both_eras() {
    let counter = Counter::new("c1");
    let server = server(&counter);
    let mut expected = 0;
    for version in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = connect(&server, version.clone()).await;
        expected += 1;
        let one = call(&client, "increment", json!({})).await;
        assert_eq!(one["structuredContent"], json!({ "result": expected }), "{version:?}: {one}");
        expected += 5;
        let added = call(&client, "add_to", json!({ "by": 5 })).await;
        assert_eq!(added["structuredContent"], json!({ "result": expected }), "{version:?}: {added}");
        // `Result<_, McpError>`: a protocol error, naming the era through `Ctx`.
        match client.call_tool("add_to", json!({ "by": 0 })).await {
            Err(mcpwire::RequestError::Peer(e)) => {
                assert!(e.message.contains(&format!("by must not be 0 ({version})")), "{e:?}")
            }
            other => panic!("{version:?}: by 0 is a protocol error: {other:?}"),
        }

        let snapshot = call(&client, "snapshot", json!({ "withLabel": true })).await;
        assert_eq!(snapshot["structuredContent"], json!({ "count": expected, "label": "c1" }), "{snapshot}");
        let doubled = call(&client, "double", json!({})).await;
        assert_eq!(doubled["structuredContent"], json!({ "result": expected * 2 }));
        let scaled = call(&client, "scaled", json!({ "x": 7 })).await;
        assert_eq!(scaled["structuredContent"], json!({ "result": 21 }));
        assert_eq!(call(&client, "echo", json!({ "text": "hi" })).await["content"][0]["text"], "hi");
        assert_eq!(call(&client, "ping", json!({})).await["content"][0]["text"], "pong");

        let greeting =
            client.get_prompt("greet", BTreeMap::from([("name".into(), "Ada".into())])).await.unwrap();
        let greeting = serde_json::to_value(greeting).unwrap();
        assert_eq!(greeting["messages"][0]["content"]["text"], "c1 says hello to Ada");
        let value = serde_json::to_value(client.read_resource("counter://value").await.unwrap()).unwrap();
        assert_eq!(value["contents"][0]["text"], expected.to_string());
        let times = serde_json::to_value(client.read_resource("counter://times/10").await.unwrap()).unwrap();
        assert_eq!(times["contents"][0]["text"], format!("{} at counter://times/10", expected * 10));
        client.close().await;
    }
    // The handlers hold a clone of `counter`: its `Arc` is the one they counted in.
    assert_eq!(counter.helper(), expected);
}

/// A definition on its own, `<method>_tool(&self)`, registers like a free function's.
#[tokio::test]
async fn one_method_registers_alone() {
    let counter = Counter::new("alone");
    let server = Server::builder("one", "1").tool(counter.increment_tool()).build().unwrap();
    let client = connect(&server, ProtocolVersion::V2026_07_28).await;
    assert_eq!(tools(&client).await.len(), 1);
    assert_eq!(call(&client, "increment", json!({})).await["structuredContent"], json!({ "result": 1 }));
    assert_eq!(counter.helper(), 1);
    client.close().await;
}

/// The handlers of one `definitions()` call share one clone of the value, however many
/// they are, and let it go with the definitions.
#[test]
fn the_handlers_of_one_call_share_one_clone() {
    let counter = Counter::new("shared");
    let definitions = counter.definitions();
    assert_eq!(definitions.len(), 9, "every marked function, the compiled-out one aside");
    assert_eq!(Arc::strong_count(&counter.n), 2, "the counter and one clone");
    drop(definitions);
    assert_eq!(Arc::strong_count(&counter.n), 1, "the clone went with the definitions");
}

/// A type whose tools and prompts are in blocks of their own, each naming its generated
/// function (`definitions = ..`), beside a `definitions` method of the type's own.
#[derive(Clone, Default)]
struct Library {
    loans: Arc<AtomicI64>,
}

#[mcpwire::handlers(definitions = tool_definitions)]
impl Library {
    /// Lends a book and returns how many are out.
    #[tool]
    async fn lend(&self) -> i64 {
        self.loans.fetch_add(1, Ordering::SeqCst) + 1
    }
}

#[mcpwire::handlers(definitions = prompt_definitions)]
impl Library {
    /// Asks for a reminder to the borrowers.
    #[prompt]
    async fn remind(&self) -> String {
        format!("Remind the {} borrowers.", self.loans.load(Ordering::SeqCst))
    }
}

impl Library {
    /// The type's own `definitions`, which the generated functions must not clash with.
    fn definitions(&self) -> &'static str {
        "a library's own definitions"
    }
}

#[tokio::test]
async fn blocks_named_by_their_definitions_function_serve_together() {
    let library = Library::default();
    assert_eq!(library.definitions(), "a library's own definitions");
    let server = Server::builder("library", "1")
        .register_all(library.tool_definitions())
        .register_all(library.prompt_definitions())
        .build()
        .unwrap();
    let client = connect(&server, ProtocolVersion::V2026_07_28).await;
    assert_eq!(call(&client, "lend", json!({})).await["structuredContent"], json!({ "result": 1 }));
    let reminder = client.get_prompt("remind", BTreeMap::new()).await.unwrap();
    let reminder = serde_json::to_value(reminder).unwrap();
    assert_eq!(reminder["messages"][0]["content"]["text"], "Remind the 1 borrowers.");
    client.close().await;
}
