//! The Rust client against the everything-server over a real child process, both eras.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use mcpwire::client::Client;
use mcpwire::protocol::content::{Role, SamplingContent};
use mcpwire::protocol::elicitation::{ElicitAction, ElicitResult};
use mcpwire::protocol::roots::{ListRootsResult, Root};
use mcpwire::protocol::sampling::CreateMessageResult;
use mcpwire::protocol::{Era, ProtocolVersion};
use mcpwire::transport::child::ChildProcess;
use serde_json::json;

fn server() -> ChildProcess {
    ChildProcess::new(env!("CARGO_BIN_EXE_everything-server")).arg("--stdio")
}

async fn connect(pin: Option<ProtocolVersion>) -> Client {
    let mut builder = Client::builder("smoke", "1.0")
        .on_sampling(|_| async {
            Ok(serde_json::from_value::<CreateMessageResult>(json!({
                "role": "assistant", "content": { "type": "text", "text": "Paris" }, "model": "m"
            }))
            .unwrap())
        })
        .on_elicitation(|_| async {
            Ok(serde_json::from_value::<ElicitResult>(
                json!({ "action": "accept", "content": { "name": "Ada", "ok": true, "color": "blue" } }),
            )
            .unwrap())
        })
        .on_roots(|| async { Ok(ListRootsResult { roots: vec![Root::new("file:///tmp")], meta: None }) });
    if let Some(v) = pin {
        builder = builder.protocol_version(v);
    }
    builder.spawn(server()).await.unwrap()
}

fn text(result: &mcpwire::protocol::tools::CallToolResult) -> String {
    result.content[0].as_text().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn probes_to_the_2026_era_and_runs_mrtr() {
    let client = connect(None).await;
    assert_eq!(client.era(), Era::Stateless);
    assert_eq!(client.server_info().unwrap().name, "mcp-conformance-test-server");
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.len() > 20);
    assert_eq!(
        text(&client.call_tool("test_simple_text", json!({})).await.unwrap()),
        "This is a simple text response for testing."
    );
    assert_eq!(
        text(&client.call_tool("test_input_required_result_multi_round", json!({})).await.unwrap()),
        "Multi-round complete for Ada who likes blue"
    );
    assert_eq!(
        text(&client.call_tool("test_sampling", json!({ "prompt": "q" })).await.unwrap()),
        "LLM response: Paris"
    );
    let _ = (Role::User, SamplingContent::text(""), ElicitAction::Accept);
    client.close().await;
}

#[tokio::test]
async fn pinned_2025_uses_the_handshake_and_callbacks() {
    let client = connect(Some(ProtocolVersion::V2025_11_25)).await;
    assert_eq!(client.era(), Era::Stateful);
    assert_eq!(client.protocol_version(), &ProtocolVersion::V2025_11_25);
    assert_eq!(
        text(&client.call_tool("test_sampling", json!({ "prompt": "q" })).await.unwrap()),
        "LLM response: Paris"
    );
    assert_eq!(
        text(&client.call_tool("test_input_required_result_list_roots", json!({})).await.unwrap()),
        "Found 1 root(s)"
    );
    client.ping().await.unwrap();
    client.close().await;
}
