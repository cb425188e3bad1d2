//! The handshake and every typed call: tools, resources, prompts, completion, raw
//! requests.

use std::collections::BTreeMap;

use mcpwire::client::RequestOptions;
use mcpwire::protocol::completion::CompleteRequestParams;
use mcpwire::protocol::{Era, ProtocolVersion};
use mcpwire::RequestError;
use serde_json::{json, Value};

use crate::common::callbacks::first_text;
use crate::common::expected::{check_greet, PYTHON_TOOLS};
use crate::fixture::{matrix, Fixture, Mode, Server};

matrix!(handshake, tools, resources, prompts_and_completion, raw_requests);

const RUST_TOOLS: [&str; 35] = [
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_error_handling",
    "json_schema_2020_12_tool",
    "test_x_mcp_header",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_reconnection",
    "test_sampling",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_missing_capability",
    "test_streaming_elicitation",
    "test_logging_tool",
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_tampered_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_capabilities",
    "greet",
    "slow_compute",
    "failing_job",
    "protocol_error_job",
    "confirm_delete",
    "multi_input",
    "test_tool_with_task",
];

/// The negotiated era, version, server identity and capabilities.
async fn handshake(f: Fixture) {
    let c = &f.client;
    match f.mode {
        Mode::Auto => {
            assert_eq!(c.era(), Era::Stateless);
            assert_eq!(c.protocol_version(), &ProtocolVersion::V2026_07_28);
            let saved = c.discover_result().expect("the probe's discover result");
            assert_eq!(saved.supported_versions, vec![ProtocolVersion::V2026_07_28]);
            let again = c.discover().await.unwrap();
            assert_eq!(again.supported_versions, vec![ProtocolVersion::V2026_07_28]);
            assert_eq!(again.capabilities, saved.capabilities);
            assert!(matches!(c.ping().await, Err(RequestError::Protocol(_))));
        }
        Mode::Legacy => {
            assert_eq!(c.era(), Era::Stateful);
            assert_eq!(c.protocol_version(), &ProtocolVersion::V2025_11_25);
            assert!(c.discover_result().is_none());
            c.ping().await.unwrap();
            assert!(matches!(c.discover().await, Err(RequestError::Protocol(_))));
        }
    }
    let info = c.server_info().expect("server info");
    match f.server {
        Server::Python => {
            assert_eq!(
                (info.name.as_str(), info.version.as_str(), info.title),
                ("python-fixture", "2.3.0-fixture", None)
            );
            assert_eq!(c.instructions().as_deref(), Some("A fixture server for mcpwire's client tests."));
        }
        Server::Rust => {
            assert_eq!(info.name, mcpwire_conformance::everything::NAME);
            assert_eq!(info.version, env!("CARGO_PKG_VERSION"));
            assert_eq!(info.title.as_deref(), Some("MCP conformance test server (mcpwire)"));
            assert_eq!(c.instructions().as_deref(), Some("A fixture server for the MCP conformance suite."));
        }
    }
    // Both servers declare the same capabilities, in both eras, but for tasks: the Rust
    // server runs tools as tasks (the 2026 extension, 2025-11-25 core tasks).
    let mut expected = json!({
        "completions": {},
        "logging": {},
        "prompts": { "listChanged": true },
        "resources": { "listChanged": true, "subscribe": true },
        "tools": { "listChanged": true }
    });
    if f.server == Server::Rust {
        match f.mode {
            Mode::Auto => expected["extensions"] = json!({ "io.modelcontextprotocol/tasks": {} }),
            Mode::Legacy => {
                expected["tasks"] =
                    json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } })
            }
        }
    }
    assert_eq!(
        serde_json::to_value(c.server_capabilities().expect("server capabilities")).unwrap(),
        expected
    );
    // A 2026 client follows tasks, so it declares the tasks extension (and roots without
    // `listChanged`, which 2026 does not have); a 2025 one offers to run the server's
    // sampling and elicitation requests as tasks.
    let mut declared =
        json!({ "elicitation": { "form": {} }, "roots": { "listChanged": true }, "sampling": {} });
    if f.stateless() {
        declared["roots"] = json!({});
        declared["extensions"] = json!({ "io.modelcontextprotocol/tasks": {} });
    } else {
        declared["tasks"] = json!({ "list": {}, "cancel": {},
            "requests": { "sampling": { "createMessage": {} }, "elicitation": { "create": {} } } });
    }
    assert_eq!(serde_json::to_value(c.capabilities()).unwrap(), declared);
    assert!(!c.is_closed());
    f.close().await;
}

/// `tools/list` (one page and all pages) and `tools/call` results, structured and not.
async fn tools(f: Fixture) {
    let c = &f.client;
    let page = c.list_tools(None).await.unwrap();
    assert_eq!(page.next_cursor, None);
    let names: Vec<&str> = page.tools.iter().map(|t| t.name.as_str()).collect();
    let all = c.list_all_tools().await.unwrap();
    assert_eq!(all.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), names);
    match f.server {
        Server::Python => {
            assert_eq!(names, PYTHON_TOOLS);
            let add = all.iter().find(|t| t.name == "add").unwrap();
            assert_eq!(add.description.as_deref(), Some("Adds two integers (structured output)"));
            assert_eq!(serde_json::to_value(&add.input_schema).unwrap()["required"], json!(["a", "b"]));
            assert!(add.output_schema.is_some(), "add has an output schema");
            // Resolved parameters are not arguments.
            let elicit = all.iter().find(|t| t.name == "elicit_name").unwrap();
            assert_eq!(serde_json::to_value(&elicit.input_schema).unwrap()["properties"], json!({}));

            assert_eq!(f.text("echo", json!({ "text": "hi" })).await, "echo: hi");
            let sum = c.call_tool("add", json!({ "a": 2, "b": 3 })).await.unwrap();
            assert_eq!(sum.structured_content, Some(json!({ "sum": 5 })));
            assert_eq!(sum.is_error, Some(false));
            assert_eq!(serde_json::from_str::<Value>(&first_text(&sum)).unwrap(), json!({ "sum": 5 }));
            let pid = c.call_tool("pid", json!({})).await.unwrap();
            assert_eq!(pid.structured_content, Some(json!({ "result": f.pid })));

            let failed = c.call_tool("fail", json!({})).await.unwrap();
            assert_eq!(failed.is_error, Some(true));
            assert_eq!(first_text(&failed), "Error executing tool fail: boom");
            let unknown = c.call_tool("no_such_tool", json!({})).await.unwrap();
            assert_eq!(unknown.is_error, Some(true));
            assert_eq!(first_text(&unknown), "Unknown tool: no_such_tool");
        }
        Server::Rust => {
            assert_eq!(names, RUST_TOOLS);
            assert_eq!(
                f.text("test_simple_text", json!({})).await,
                "This is a simple text response for testing."
            );
            let image = c.call_tool("test_image_content", json!({})).await.unwrap();
            assert_eq!(
                serde_json::to_value(&image.content).unwrap(),
                json!([{ "type": "image", "data": mcpwire_conformance::everything::PNG, "mimeType": "image/png" }])
            );
            let failed = c.call_tool("test_error_handling", json!({})).await.unwrap();
            assert_eq!(failed.is_error, Some(true));
            assert_eq!(first_text(&failed), "This tool intentionally returns an error for testing");
            let unknown = c.call_tool("no_such_tool", json!({})).await.unwrap_err();
            let error = unknown.peer_error().unwrap_or_else(|| panic!("a peer error, not {unknown:?}"));
            assert_eq!(error.code, -32602);
        }
    }
    f.close().await;
}

/// Resources: lists, reads of a static resource and of a template, and (2025) subscribe.
async fn resources(f: Fixture) {
    let c = &f.client;
    let (static_uri, static_text, template, item_uri, item) = match f.server {
        Server::Python => (
            "fixture://static",
            "static content",
            "fixture://items/{id}",
            "fixture://items/42",
            json!({ "id": "42" }),
        ),
        Server::Rust => (
            "test://static-text",
            "This is the content of the static text resource.",
            "test://template/{id}/data",
            "test://template/42/data",
            json!({ "id": "42", "templateTest": true, "data": "Data for ID: 42" }),
        ),
    };
    let listed = c.list_resources(None).await.unwrap();
    let all = c.list_all_resources().await.unwrap();
    assert_eq!(listed.resources, all);
    let uris: Vec<&str> = all.iter().map(|r| r.uri.as_str()).collect();
    match f.server {
        Server::Python => assert_eq!(uris, ["fixture://static"]),
        Server::Rust => {
            assert_eq!(uris, ["test://static-text", "test://static-binary", "test://watched-resource"])
        }
    }
    assert_eq!(all[0].mime_type.as_deref(), Some("text/plain"));
    let templates = c.list_all_resource_templates().await.unwrap();
    assert_eq!(templates.iter().map(|t| t.uri_template.as_str()).collect::<Vec<_>>(), [template]);
    assert_eq!(c.list_resource_templates(None).await.unwrap().resource_templates, templates);

    let read = serde_json::to_value(c.read_resource(static_uri).await.unwrap()).unwrap();
    assert_eq!(read["contents"][0]["uri"], static_uri);
    assert_eq!(read["contents"][0]["text"], static_text);
    let read = serde_json::to_value(c.read_resource(item_uri).await.unwrap()).unwrap();
    assert_eq!(read["contents"][0]["mimeType"], "application/json");
    assert_eq!(serde_json::from_str::<Value>(read["contents"][0]["text"].as_str().unwrap()).unwrap(), item);

    // A missing resource: -32602 in 2026 (which forbids -32002); in 2025 our server uses
    // -32002 and the Python SDK -32602 (both allowed).
    let missing = c.read_resource("nowhere://missing").await.unwrap_err();
    let error = missing.peer_error().unwrap_or_else(|| panic!("a peer error, not {missing:?}"));
    let expected = if f.server == Server::Rust && !f.stateless() { -32002 } else { -32602 };
    assert_eq!(error.code, expected, "{error:?}");
    assert_eq!(error.data, Some(json!({ "uri": "nowhere://missing" })));

    let watched = if f.server == Server::Python { static_uri } else { "test://watched-resource" };
    // Both eras: `resources/subscribe` in 2025, a listen stream for the resource in 2026.
    c.subscribe(watched).await.unwrap();
    c.unsubscribe(watched).await.unwrap();
    f.close().await;
}

/// Prompts (list, get with arguments) and completion.
async fn prompts_and_completion(f: Fixture) {
    let c = &f.client;
    let prompts = c.list_all_prompts().await.unwrap();
    assert_eq!(c.list_prompts(None).await.unwrap().prompts, prompts);
    let args = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    };
    match f.server {
        Server::Python => {
            assert_eq!(prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["greet"]);
            let arguments: Vec<(String, Option<bool>)> =
                prompts[0].arguments.clone().unwrap().into_iter().map(|a| (a.name, a.required)).collect();
            assert_eq!(arguments, [("name".to_owned(), Some(true)), ("style".to_owned(), Some(false))]);
            check_greet(c).await;
        }
        Server::Rust => {
            assert_eq!(
                prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
                [
                    "test_simple_prompt",
                    "test_prompt_with_arguments",
                    "test_prompt_with_embedded_resource",
                    "test_prompt_with_image",
                    "test_input_required_result_prompt",
                ]
            );
            let got = c
                .get_prompt("test_prompt_with_arguments", args(&[("arg1", "a"), ("arg2", "b")]))
                .await
                .unwrap();
            assert_eq!(
                serde_json::to_value(&got.messages).unwrap(),
                json!([{ "role": "user", "content": { "type": "text", "text": "Prompt with arguments: arg1='a', arg2='b'" } }])
            );
            // A prompt that needs the user's input: an elicitation in either era.
            let got = c.get_prompt("test_input_required_result_prompt", BTreeMap::new()).await.unwrap();
            assert_eq!(got.messages[0].content.as_text(), Some("Prompt with context: ctx"));
            assert_eq!(f.elicitations(), ["What context should the prompt use?"]);
            let params: CompleteRequestParams = serde_json::from_value(json!({
                "ref": { "type": "ref/prompt", "name": "test_prompt_with_arguments" },
                "argument": { "name": "arg1", "value": "p" }
            }))
            .unwrap();
            let completion = c.complete(&params).await.unwrap().completion;
            assert!(completion.values.is_empty());
            assert_eq!((completion.total, completion.has_more), (Some(0), Some(false)));
        }
    }
    f.close().await;
}

/// `send_request` / `send_notification`: the era's `_meta` is added, errors pass through.
async fn raw_requests(f: Fixture) {
    let c = &f.client;
    let listed = c.send_request("tools/list", json!({}), RequestOptions::default()).await.unwrap();
    let count = if f.server == Server::Python { PYTHON_TOOLS.len() } else { RUST_TOOLS.len() };
    assert_eq!(listed["tools"].as_array().unwrap().len(), count);
    if f.stateless() {
        assert_eq!(listed["resultType"], "complete");
    }
    let unknown = c.send_request("no/such/method", json!({}), RequestOptions::default()).await.unwrap_err();
    assert_eq!(unknown.peer_error().map(|e| e.code), Some(-32601), "{unknown:?}");
    assert!(matches!(
        c.send_request("tools/list", json!([1]), RequestOptions::default()).await,
        Err(RequestError::Protocol(_))
    ));
    // A notification the server ignores; the connection goes on.
    c.send_notification("notifications/roots/list_changed", None).await;
    let simple = if f.server == Server::Python {
        ("echo", json!({ "text": "x" }))
    } else {
        ("test_simple_text", json!({}))
    };
    f.text(simple.0, simple.1).await;
    f.close().await;
}
