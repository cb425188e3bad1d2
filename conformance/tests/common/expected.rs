//! What the shared fixture servers serve, asserted by more than one test target.

use std::collections::BTreeMap;

use mcpwire::client::Client;
use mcpwire::protocol::completion::CompleteRequestParams;
use mcpwire::protocol::logging::LoggingLevel;
use serde_json::{json, Value};

/// The tools of the Python SDK fixture (`tests/peers/python/server_fixture.py`), in the
/// order it lists them; its HTTP wrapper (`fixtures/python_http_server.py`) serves the same.
pub const PYTHON_TOOLS: [&str; 15] = [
    "echo",
    "add",
    "progress",
    "log",
    "elicit_name",
    "favourite",
    "sample",
    "roots",
    "slow",
    "was_cancelled",
    "crash",
    "pid",
    "fail",
    "touch",
    "change_tools",
];

/// The Python fixture's `log` tool output (`message` "m") at these levels, as
/// `(level, logger, data)`; the TypeScript fixture logs the same.
pub fn fixture_logs(levels: &[LoggingLevel]) -> Vec<(LoggingLevel, Option<String>, Value)> {
    levels
        .iter()
        .map(|l| {
            let name = serde_json::to_value(l).unwrap();
            (*l, Some("fixture".to_owned()), json!(format!("{}: m", name.as_str().unwrap())))
        })
        .collect()
}

/// The fixtures' `greet` prompt (with a style) and the completion of its `style`
/// argument.
pub async fn check_greet(client: &Client) {
    let args: BTreeMap<String, String> =
        [("name", "Ada"), ("style", "pirate")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let got = client.get_prompt("greet", args).await.unwrap();
    assert_eq!(got.description.as_deref(), Some("Greets someone"));
    assert_eq!(
        serde_json::to_value(&got.messages).unwrap(),
        json!([{ "role": "user", "content": { "type": "text", "text": "Greet Ada in a pirate style." } }])
    );
    let params: CompleteRequestParams = serde_json::from_value(json!({
        "ref": { "type": "ref/prompt", "name": "greet" },
        "argument": { "name": "style", "value": "p" }
    }))
    .unwrap();
    let completion = client.complete(&params).await.unwrap().completion;
    assert_eq!(completion.values, ["plain", "pirate", "poetic"]);
    assert_eq!((completion.total, completion.has_more), (Some(3), Some(false)));
}
