//! The schemas a server publishes for its tools, as a client reads them: each one says
//! what the tool takes and sends, so that a client checking arguments or structured
//! content against it takes what the tool really does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use mcpwire::server::{tool, Json, Server};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{json, Value};

/// The listed tool `name` of a server, and the result of calling it with `arguments`.
async fn list_and_call(server: Server, name: &str, arguments: Value) -> (Value, Value) {
    let mut raw = initialized(server).await;
    raw.request(1, "tools/list", json!({})).await;
    let listed = expect_result(&raw.next().await, 1);
    let tool = listed["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).cloned().unwrap();
    raw.request(2, "tools/call", json!({ "name": name, "arguments": arguments })).await;
    (tool, expect_result(&raw.next().await, 2))
}

/// An output type whose serialized form differs from its deserialized one, as serde's
/// attributes make it.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all(serialize = "camelCase"))]
struct Report {
    title: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    next_page: String,
    #[serde(skip_deserializing)]
    row_count: u32,
}

/// A tool's output schema is that of what its type serializes to: a field serde may skip
/// is not required, and each is named as it is sent. (The schema of what the type
/// deserializes from required `warnings` and `next_page`, which the result leaves out,
/// named them in snake case and left out `rowCount`: a client checking the structured
/// content against the schema refused the result.)
#[tokio::test]
async fn the_output_schema_describes_the_serialized_value() {
    let server = Server::builder("s", "1")
        .tool(tool("report").handler(|| async {
            Json(Report { title: "t".into(), warnings: vec![], next_page: String::new(), row_count: 3 })
        }))
        .build()
        .unwrap();
    let (listed, result) = list_and_call(server, "report", json!({})).await;
    let schema = &listed["outputSchema"];
    let structured = &result["structuredContent"];
    assert_eq!(structured, &json!({ "title": "t", "rowCount": 3 }));
    let properties: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(properties, ["nextPage", "rowCount", "title", "warnings"], "{schema}");
    for required in schema["required"].as_array().unwrap() {
        assert!(structured.get(required.as_str().unwrap()).is_some(), "{required} is required: {schema}");
    }
}
