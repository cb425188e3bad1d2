//! A server as a typical user writes one with the macros (tools taking optional, list,
//! nested, enum and defaulted arguments, described by doc comments, returning structured
//! output; a prompt with typed arguments; resource templates with typed variables;
//! completions), checked the way the spec and a client check it: what it lists and
//! answers against each revision's `schema.json`, real arguments against each tool's
//! `inputSchema` (and decoded by the tool), structured content against its
//! `outputSchema`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use common::*;
use mcpwire::protocol::completion::{CompleteResult, Completion, CompletionReference};
use mcpwire::protocol::{codes, Message};
use mcpwire::server::{Args, Server, ToolError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Searches the notes.
#[mcpwire::tool(read_only_hint = true)]
async fn search(
    /// What to look for.
    query: String,
    /// At most this many.
    limit: Option<u32>,
    /// Only notes with all of these tags.
    tags: Vec<String>,
    /// How many to skip.
    #[arg(default)]
    offset: u32,
) -> Vec<String> {
    let limit = limit.map_or(String::new(), |l| format!(" limit {l}"));
    vec![format!("{query}{limit} from {offset} tags {}", tags.join(","))]
}

/// How urgent.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Priority {
    Low,
    /// Needs doing today.
    High,
    #[serde(rename = "ASAP")]
    RightNow,
}

/// Who gets it: internally tagged.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase")]
enum Assignee {
    /// A user by id.
    User {
        id: u64,
    },
    Team {
        name: String,
        lead: Option<String>,
    },
    Nobody,
}

/// When it is due: adjacently tagged.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
enum Due {
    Date(String),
    InDays(u32),
    Never,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
struct Person {
    name: String,
    #[serde(default)]
    email: Option<String>,
}

/// A task to create.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct NewTask {
    /// The title.
    title: String,
    #[serde(default = "low")]
    priority: Priority,
    #[serde(default)]
    watchers: Vec<Person>,
    assignee: Option<Assignee>,
    due: Due,
    #[serde(default = "an_hour_and_a_half")]
    estimate_hours: f32,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Extra {
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

fn low() -> Priority {
    Priority::Low
}

fn an_hour_and_a_half() -> f32 {
    1.5
}

/// The task as created.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Created {
    task_id: u64,
    priority: Priority,
    assignee: Option<Assignee>,
    due: Due,
    watchers: Vec<Person>,
    estimate_hours: f32,
    labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// Creates a task.
#[mcpwire::tool(destructive_hint = false)]
async fn create_task(Args(task): Args<NewTask>) -> Result<Created, ToolError> {
    if task.title.is_empty() {
        return Err(ToolError::new("a task needs a title"));
    }
    Ok(Created {
        task_id: 7,
        priority: task.priority,
        assignee: task.assignee,
        due: task.due,
        watchers: task.watchers,
        estimate_hours: task.estimate_hours,
        labels: task.extra.labels,
        note: (task.title == "noted").then(|| "a note".to_owned()),
    })
}

/// Reassigns a task.
#[mcpwire::tool]
fn reassign(id: u64, priority: Priority, assignee: Assignee, due: Option<Due>) -> String {
    format!("{id} {priority:?} {assignee:?} {due:?}")
}

/// Whoever is picked: the arguments are the enum itself.
#[mcpwire::tool]
fn pick(Args(assignee): Args<Assignee>) -> String {
    format!("{assignee:?}")
}

/// Someone, if `found`.
#[mcpwire::tool]
async fn lookup(found: bool) -> Option<Person> {
    found.then(|| Person { name: "Ada".into(), email: None })
}

/// Who a task goes to.
#[mcpwire::tool]
async fn owner(team: bool) -> Assignee {
    match team {
        true => Assignee::Team { name: "core".into(), lead: None },
        false => Assignee::Nobody,
    }
}

/// Reviews code.
#[mcpwire::prompt]
async fn review(
    /// The code.
    code: String,
    /// The language it is written in.
    language: Option<String>,
    // Described by its type's doc comment.
    priority: Option<Priority>,
    /// How many passes.
    passes: Option<u8>,
    /// Whether to be strict.
    #[arg(default)]
    strict: bool,
) -> String {
    format!("{code} {language:?} {priority:?} {passes:?} strict {strict}")
}

/// Recaps recent work.
#[mcpwire::prompt]
async fn recap(
    /// Over this many days.
    days: u32,
    /// At most this many items.
    #[arg(default)]
    top: u16,
) -> String {
    format!("{days} days, top {top}")
}

/// A note, by folder and number.
#[mcpwire::resource(uri = "notes://{folder}/{id}", mime_type = "text/plain")]
async fn note(folder: String, id: u64) -> String {
    format!("note {id} of {folder}")
}

/// A file, by path.
#[mcpwire::resource(uri = "files:///{+path}")]
async fn file(path: String) -> String {
    format!("file {path}")
}

/// The languages `review` completes.
const LANGUAGES: [&str; 4] = ["python", "ruby", "rust", "typescript"];

fn server() -> Server {
    Server::builder("tasks", "1")
        .register_all(mcpwire::definitions![
            search,
            create_task,
            reassign,
            pick,
            lookup,
            owner,
            review,
            recap,
            note,
            file
        ])
        .completion(|_ctx, params| async move {
            let typed = params.argument.value.clone();
            let values = match (&params.reference, params.argument.name.as_str()) {
                (CompletionReference::Prompt(_), "language") => {
                    LANGUAGES.iter().filter(|l| l.starts_with(&typed)).map(|l| l.to_string()).collect()
                }
                (CompletionReference::Resource(_), "folder") => {
                    (0..150).map(|n| format!("{typed}{n}")).collect()
                }
                _ => Vec::new(),
            };
            Ok(CompleteResult {
                completion: Completion { values, ..Default::default() },
                ..Default::default()
            })
        })
        .build()
        .unwrap()
}

/// The revisions a client may speak, each with its `schema.json`.
const REVISIONS: [&str; 5] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"];

/// One revision's `schema.json`.
struct Spec {
    revision: &'static str,
    document: Value,
}

impl Spec {
    fn load(revision: &'static str) -> Spec {
        let path =
            format!("{}/../mcpwire-protocol/tests/spec/{revision}/schema.json", env!("CARGO_MANIFEST_DIR"));
        let document = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
        Spec { revision, document }
    }

    /// Why `instance` is not a `definition` of this revision (nothing when it is one).
    fn violations(&self, definition: &str, instance: &Value) -> Vec<String> {
        let mut schema = self.document.clone();
        let defs = if schema.get("$defs").is_some() { "$defs" } else { "definitions" };
        schema["$ref"] = json!(format!("#/{defs}/{definition}"));
        let validator = jsonschema::validator_for(&schema).unwrap();
        violations(&validator, instance)
    }

    /// Checks `instance` is a `definition` of this revision.
    fn check(&self, definition: &str, instance: &Value) {
        let found = self.violations(definition, instance);
        assert!(found.is_empty(), "{} {definition}: {found:?}\n{instance:#}", self.revision);
    }
}

/// What `validator` finds wrong with `instance`.
fn violations(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator.iter_errors(instance).map(|e| format!("at {}: {e}", e.instance_path)).collect()
}

/// A connection speaking one revision: a 2025-era session after its handshake, or 2026
/// requests, each carrying the envelope.
struct Client {
    raw: RawPeer,
    revision: &'static str,
    next_id: i64,
}

impl Client {
    async fn open(revision: &'static str) -> Client {
        let (conn, raw) = raw_connection();
        tokio::spawn(async move { server().serve(conn).await });
        let mut client = Client { raw, revision, next_id: 1 };
        if revision != "2026-07-28" {
            let params = json!({
                "protocolVersion": revision,
                "capabilities": {},
                "clientInfo": { "name": "c", "version": "1" }
            });
            let reply = client.ask("initialize", params).await;
            assert_eq!(expect_result(&reply, 1)["protocolVersion"], revision);
            client.raw.send(mcpwire::protocol::Notification::new("notifications/initialized", None)).await;
        }
        client
    }

    /// The reply to `method` with `params`.
    async fn ask(&mut self, method: &str, mut params: Value) -> Message {
        if self.revision == "2026-07-28" {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": { "name": "c", "version": "1" }
            });
        }
        self.raw.request(self.next_id, method, params).await;
        let reply = self.raw.next().await;
        self.next_id += 1;
        reply
    }

    /// The result of `method` with `params`, which must succeed.
    async fn result(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        expect_result(&self.ask(method, params).await, id)
    }

    /// The error `method` with `params` is answered with.
    async fn error(&mut self, method: &str, params: Value) -> mcpwire::protocol::ErrorObject {
        let id = self.next_id;
        expect_error(&self.ask(method, params).await, id)
    }

    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.result("tools/call", json!({ "name": tool, "arguments": arguments })).await
    }

    /// The listed tools by name.
    async fn tools(&mut self) -> BTreeMap<String, Value> {
        let listed = self.result("tools/list", json!({})).await;
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["name"].as_str().unwrap().to_owned(), t.clone()))
            .collect()
    }
}

/// Calls that succeed, with arguments as a model writes them.
fn good_calls() -> Vec<(&'static str, Value)> {
    vec![
        ("search", json!({ "query": "q", "tags": [] })),
        ("search", json!({ "query": "q", "limit": 3, "tags": ["a", "b"] })),
        ("search", json!({ "query": "q", "limit": null, "tags": ["a"], "offset": 20 })),
        ("create_task", json!({ "title": "t", "due": { "kind": "never" } })),
        (
            "create_task",
            json!({
                "title": "noted",
                "priority": "ASAP",
                "watchers": [{ "name": "Ada" }, { "name": "Bob", "email": "b@x" }],
                "assignee": { "type": "team", "name": "core" },
                "due": { "kind": "in_days", "value": 3 },
                "estimateHours": 2,
                "labels": { "area": "docs" }
            }),
        ),
        (
            "create_task",
            json!({ "title": "t", "assignee": null, "due": { "kind": "date", "value": "2026-01-01" } }),
        ),
        ("reassign", json!({ "id": 1, "priority": "high", "assignee": { "type": "user", "id": 2 } })),
        ("reassign", json!({ "id": 1, "priority": "low", "assignee": { "type": "nobody" }, "due": null })),
        ("pick", json!({ "type": "nobody" })),
        ("pick", json!({ "type": "team", "name": "core", "lead": "Ada" })),
        ("lookup", json!({ "found": true })),
        ("lookup", json!({ "found": false })),
        ("owner", json!({ "team": true })),
        ("owner", json!({ "team": false })),
    ]
}

/// Every tool, prompt and template the macros make, and every answer to a call of them,
/// is what each revision's `schema.json` says it is: a tool's `inputSchema` an object
/// schema with `"type": "object"` at its root (also for arguments that are an enum), each
/// property an object; results as each revision has them.
#[tokio::test]
async fn what_the_macros_make_fits_every_revisions_schema() {
    for revision in REVISIONS {
        let spec = Spec::load(revision);
        // The check itself catches what the spec refuses: a root without `"type": "object"`.
        let enum_root = json!({ "name": "t", "inputSchema": { "oneOf": [{ "type": "object" }] } });
        assert!(!spec.violations("Tool", &enum_root).is_empty(), "{revision}");
        let mut client = Client::open(revision).await;
        let listed = client.result("tools/list", json!({})).await;
        spec.check("ListToolsResult", &listed);
        for tool in listed["tools"].as_array().unwrap() {
            spec.check("Tool", tool);
            assert_eq!(tool["inputSchema"]["type"], "object", "{revision}: {tool:#}");
        }
        for (tool, arguments) in good_calls() {
            let result = client.call(tool, arguments.clone()).await;
            spec.check("CallToolResult", &result);
            assert_ne!(result["isError"], true, "{revision} {tool} {arguments}: {result:#}");
        }
        let failed = client.call("create_task", json!({ "title": "", "due": { "kind": "never" } })).await;
        spec.check("CallToolResult", &failed);
        assert_eq!(failed["isError"], true, "{failed}");
        spec.check("ListPromptsResult", &client.result("prompts/list", json!({})).await);
        let prompt = json!({ "name": "review", "arguments": { "code": "x", "priority": "high" } });
        spec.check("GetPromptResult", &client.result("prompts/get", prompt).await);
        spec.check(
            "ListResourceTemplatesResult",
            &client.result("resources/templates/list", json!({})).await,
        );
        spec.check(
            "ReadResourceResult",
            &client.result("resources/read", json!({ "uri": "notes://a/7" })).await,
        );
        let complete = json!({
            "ref": { "type": "ref/resource", "uri": "notes://{folder}/{id}" },
            "argument": { "name": "folder", "value": "f" }
        });
        spec.check("CompleteResult", &client.result("completion/complete", complete).await);
    }
}

/// Arguments a model writes from a tool's `inputSchema` are ones the schema takes and the
/// tool decodes; arguments the schema refuses, the tool refuses too, as a tool error the
/// model can read and correct (`isError`), not a protocol error.
#[tokio::test]
async fn arguments_the_input_schema_takes_are_the_ones_the_tool_takes() {
    let mut client = Client::open("2025-11-25").await;
    let tools = client.tools().await;
    let validators: BTreeMap<&String, jsonschema::Validator> = tools
        .iter()
        .map(|(name, tool)| (name, jsonschema::validator_for(&tool["inputSchema"]).unwrap()))
        .collect();
    for (tool, arguments) in good_calls() {
        let found = violations(&validators[&tool.to_owned()], &arguments);
        assert!(found.is_empty(), "{tool} {arguments}: {found:?}\n{:#}", tools[tool]["inputSchema"]);
        let result = client.call(tool, arguments.clone()).await;
        assert_ne!(result["isError"], true, "{tool} {arguments}: {result:#}");
    }
    let bad = [
        ("search", json!({ "tags": [] })),
        ("search", json!({ "query": "q", "limit": -1, "tags": [] })),
        ("search", json!({ "query": "q", "limit": 5000000000_u64, "tags": [] })),
        ("search", json!({ "query": "q", "tags": "a" })),
        ("search", json!({ "query": "q", "tags": [], "offset": null })),
        ("create_task", json!({ "title": "t" })),
        ("create_task", json!({ "title": "t", "priority": "right_now", "due": { "kind": "never" } })),
        ("create_task", json!({ "title": "t", "due": { "kind": "in_days" } })),
        ("create_task", json!({ "title": "t", "due": { "kind": "never" }, "assignee": { "type": "user" } })),
        ("create_task", json!({ "title": "t", "due": { "kind": "never" }, "labels": { "a": 1 } })),
        ("reassign", json!({ "id": 1, "priority": "High", "assignee": { "type": "nobody" } })),
        ("pick", json!({ "type": "robot" })),
        ("pick", json!({})),
        ("lookup", json!({ "found": "yes" })),
    ];
    for (tool, arguments) in bad {
        let found = violations(&validators[&tool.to_owned()], &arguments);
        assert!(!found.is_empty(), "the schema of {tool} takes {arguments}");
        let result = client.call(tool, arguments.clone()).await;
        assert_eq!(result["isError"], true, "{tool} {arguments}: {result:#}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with(&format!("Invalid arguments for tool {tool}: ")), "{text}");
    }
}

/// What the model reads of each tool: its description and its arguments' from the doc
/// comments, which arguments it must give, and the defaults of those it may leave out
/// (`#[serde(default)]` fields of an `Args<T>`, `#[arg(default)]` parameters), which
/// the tool then gets.
#[tokio::test]
async fn doc_comments_and_defaults_describe_the_arguments() {
    let mut client = Client::open("2025-11-25").await;
    let tools = client.tools().await;
    let search = &tools["search"];
    assert_eq!(search["description"], "Searches the notes.");
    assert_eq!(search["annotations"], json!({ "readOnlyHint": true }));
    let properties = &search["inputSchema"]["properties"];
    assert_eq!(properties["query"], json!({ "description": "What to look for.", "type": "string" }));
    assert_eq!(properties["limit"]["description"], "At most this many.");
    assert_eq!(properties["tags"]["description"], "Only notes with all of these tags.");
    assert_eq!(
        properties["offset"],
        json!({ "description": "How many to skip.", "type": "integer", "default": 0, "minimum": 0, "maximum": 4294967295_u32 })
    );
    assert_eq!(search["inputSchema"]["required"], json!(["query", "tags"]));
    let found = client.call("search", json!({ "query": "q", "tags": [] })).await;
    assert_eq!(found["structuredContent"]["result"], json!(["q from 0 tags "]));

    let task = &tools["create_task"]["inputSchema"];
    assert_eq!(task["description"], "A task to create.");
    assert_eq!(task["required"], json!(["title", "due"]));
    let properties = &task["properties"];
    assert_eq!(properties["title"]["description"], "The title.");
    assert_eq!(properties["priority"]["default"], "low");
    assert_eq!(properties["estimateHours"]["default"], 1.5);
    assert_eq!(properties["watchers"]["default"], json!([]));
    assert_eq!(properties["labels"]["type"], "object");
    let created = client.call("create_task", json!({ "title": "t", "due": { "kind": "never" } })).await;
    let structured = &created["structuredContent"];
    assert_eq!((&structured["priority"], &structured["estimateHours"]), (&json!("low"), &json!(1.5)));
}

/// Structured content always fits the tool's `outputSchema`, whatever the value (an
/// `Option` that is `None`, an enum's variants, a field skipped when empty), and its text
/// copy is the same JSON.
#[tokio::test]
async fn structured_content_fits_the_output_schema() {
    let mut client = Client::open("2025-11-25").await;
    let tools = client.tools().await;
    for (tool, arguments) in good_calls() {
        let result = client.call(tool, arguments.clone()).await;
        let Some(schema) = tools[tool].get("outputSchema") else {
            assert!(result.get("structuredContent").is_none(), "{tool}: {result:#}");
            continue;
        };
        assert_eq!(schema["type"], "object", "{tool}: {schema:#}");
        let structured = &result["structuredContent"];
        let found = violations(&jsonschema::validator_for(schema).unwrap(), structured);
        assert!(found.is_empty(), "{tool} {arguments}: {found:?}\n{structured:#}\n{schema:#}");
        let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, structured, "{tool}");
    }
    let created = client.call("create_task", json!({ "title": "noted", "due": { "kind": "never" } })).await;
    assert_eq!(created["structuredContent"]["note"], "a note");
    assert_eq!(
        client.call("lookup", json!({ "found": false })).await["structuredContent"],
        json!({ "result": null })
    );
}

/// A prompt's arguments are listed in the function's order, described by their doc
/// comments (or their type's, an `Option`'s too), required unless `Option` or
/// `#[arg(default)]`; their string values are parsed into the
/// parameters' types, and a value that does not parse or a missing required argument is
/// `-32602` naming it.
#[tokio::test]
async fn a_prompts_typed_arguments_are_listed_and_parsed() {
    let mut client = Client::open("2025-11-25").await;
    let listed = client.result("prompts/list", json!({})).await;
    let review = &listed["prompts"][0];
    assert_eq!(review["description"], "Reviews code.");
    let arguments: Vec<(&str, &str, bool)> = review["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (a["name"].as_str().unwrap(), a["description"].as_str().unwrap_or(""), a["required"] == true)
        })
        .collect();
    assert_eq!(
        arguments,
        [
            ("code", "The code.", true),
            ("language", "The language it is written in.", false),
            ("priority", "How urgent.", false),
            ("passes", "How many passes.", false),
            ("strict", "Whether to be strict.", false)
        ]
    );
    let got = client
        .result(
            "prompts/get",
            json!({ "name": "review", "arguments": { "code": "x", "priority": "ASAP", "passes": "2" } }),
        )
        .await;
    assert_eq!(got["messages"][0]["content"]["text"], "x None Some(RightNow) Some(2) strict false");
    let got = client
        .result("prompts/get", json!({ "name": "review", "arguments": { "code": "x", "strict": "true" } }))
        .await;
    assert_eq!(got["messages"][0]["content"]["text"], "x None None None strict true");
    let error = client
        .error("prompts/get", json!({ "name": "review", "arguments": { "code": "x", "passes": "two" } }))
        .await;
    assert_eq!(error.code, codes::INVALID_PARAMS);
    assert!(error.message.contains("passes"), "{}", error.message);
    let error =
        client.error("prompts/get", json!({ "name": "review", "arguments": { "language": "rust" } })).await;
    assert_eq!(error.code, codes::INVALID_PARAMS);
    assert!(error.message.contains("\"code\""), "{}", error.message);
}

/// Prompt arguments are strings on the wire, and a client sends `""` for a field left
/// empty (the MCP Inspector does): an empty value of an optional argument that is not
/// text (`Option<u8>`, an `Option` of an enum, `#[arg(default)]`) is an argument left
/// out, while an `Option<String>` keeps `""` as `Some("")`; a required argument that is
/// not text is still `-32602` naming it.
#[tokio::test]
async fn an_empty_prompt_argument_is_left_out_unless_it_is_text() {
    let mut client = Client::open("2025-11-25").await;
    let empty = json!({ "code": "", "language": "", "priority": "", "passes": "", "strict": "" });
    let got = client.result("prompts/get", json!({ "name": "review", "arguments": empty })).await;
    assert_eq!(got["messages"][0]["content"]["text"], r#" Some("") None None strict false"#);
    let got = client
        .result("prompts/get", json!({ "name": "recap", "arguments": { "days": "3", "top": "" } }))
        .await;
    assert_eq!(got["messages"][0]["content"]["text"], "3 days, top 0");
    let error = client.error("prompts/get", json!({ "name": "recap", "arguments": { "days": "" } })).await;
    assert_eq!(error.code, codes::INVALID_PARAMS);
    assert!(error.message.contains("days") && error.message.contains("integer"), "{}", error.message);
}

/// A template's variables are parsed into the function's parameters (`{+path}` keeps its
/// slashes); a URI of the template's shape whose variable does not parse is a resource
/// that does not exist (`-32002` in 2025, `-32602` in 2026).
#[tokio::test]
async fn template_variables_are_typed() {
    let mut client = Client::open("2025-11-25").await;
    let listed = client.result("resources/templates/list", json!({})).await;
    let templates: Vec<(&str, &str)> = listed["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap(), t["uriTemplate"].as_str().unwrap()))
        .collect();
    assert_eq!(templates, [("note", "notes://{folder}/{id}"), ("file", "files:///{+path}")]);
    let read = client.result("resources/read", json!({ "uri": "notes://inbox/7" })).await;
    assert_eq!(
        read["contents"][0],
        json!({ "uri": "notes://inbox/7", "mimeType": "text/plain", "text": "note 7 of inbox" })
    );
    let read = client.result("resources/read", json!({ "uri": "files:///a/b%20c.txt" })).await;
    assert_eq!(read["contents"][0]["text"], "file a/b c.txt");
    let error = client.error("resources/read", json!({ "uri": "notes://inbox/seven" })).await;
    assert_eq!(error.code, codes::RESOURCE_NOT_FOUND, "{error:?}");
    // 2026 names a missing resource -32602.
    let mut client = Client::open("2026-07-28").await;
    let error = client.error("resources/read", json!({ "uri": "notes://inbox/seven" })).await;
    assert_eq!(error.code, codes::INVALID_PARAMS, "{error:?}");
}

/// Completions answer for a prompt's argument and a template's variable, at most 100
/// values with the rest counted; a reference to a prompt or template the server does not
/// have is `-32602`.
#[tokio::test]
async fn completions_complete_prompts_and_templates() {
    let mut client = Client::open("2025-11-25").await;
    let complete = |reference: Value, name: &str, value: &str| json!({ "ref": reference, "argument": { "name": name, "value": value } });
    let prompt = json!({ "type": "ref/prompt", "name": "review" });
    let done = client.result("completion/complete", complete(prompt, "language", "r")).await;
    assert_eq!(done["completion"], json!({ "values": ["ruby", "rust"] }));
    let template = json!({ "type": "ref/resource", "uri": "notes://{folder}/{id}" });
    let done = client.result("completion/complete", complete(template, "folder", "f")).await;
    assert_eq!(done["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!((&done["completion"]["total"], &done["completion"]["hasMore"]), (&json!(150), &json!(true)));
    let unknown = json!({ "type": "ref/prompt", "name": "nope" });
    assert_eq!(
        client.error("completion/complete", complete(unknown, "x", "")).await.code,
        codes::INVALID_PARAMS
    );
    let unknown = json!({ "type": "ref/resource", "uri": "nope://{x}" });
    assert_eq!(
        client.error("completion/complete", complete(unknown, "x", "")).await.code,
        codes::INVALID_PARAMS
    );
}
