//! A client: spawns a server over stdio, lists what it offers, calls a tool, and answers
//! the server's questions (elicitation and sampling) with callbacks. The client probes
//! the server's protocol era by itself; `--era 2025` pins the 2025 handshake.
//!
//! The server is a command line (its words split at spaces), for example
//! `'mcpwire serve --example everything'`.
//!
//! ```sh
//! cargo build -p mcpwire --examples
//! cargo run -p mcpwire --example client -- target/debug/examples/tools forecast '{"city":"Lisbon"}'
//! cargo run -p mcpwire --example client -- --era 2025 target/debug/examples/elicitation_sampling plan_trip '{}'
//! cargo run -p mcpwire --example client -- 'target/release/mcpwire serve --example everything' test_simple_text '{}'
//! ```

use std::collections::BTreeMap;

use mcpwire::client::Client;
use mcpwire::protocol::common::OneOrMany;
use mcpwire::protocol::content::{ContentBlock, Role, SamplingContent};
use mcpwire::protocol::elicitation::{
    ElicitAction, ElicitRequestParams, ElicitResult, ElicitValue, PrimitiveSchemaDefinition,
};
use mcpwire::protocol::sampling::CreateMessageResult;
use mcpwire::protocol::ProtocolVersion;
use mcpwire::transport::child::ChildProcess;
use serde_json::Value;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let pin_2025 = args.first().is_some_and(|a| a == "--era") && args.get(1).is_some_and(|e| e == "2025");
    if pin_2025 {
        args.drain(..2);
    }
    let [server, tool, arguments] = args.as_slice() else {
        return Err("usage: client [--era 2025] 'SERVER_COMMAND [ARGS]' TOOL JSON_ARGUMENTS".into());
    };
    let arguments: Value = serde_json::from_str(arguments)?;

    let mut builder = Client::builder("example-client", "1.0.0")
        // A form is answered with the first value each field allows: a real client asks the user.
        .on_elicitation(|params| async move {
            let ElicitRequestParams::Form(form) = params else {
                return Ok(ElicitResult::action(ElicitAction::Decline));
            };
            println!("the server asks: {}", form.message);
            let answers: BTreeMap<String, ElicitValue> = form
                .requested_schema
                .properties
                .iter()
                .map(|(name, field)| {
                    let value = match field {
                        PrimitiveSchemaDefinition::Number(_) => ElicitValue::Number(3.into()),
                        PrimitiveSchemaDefinition::Boolean(_) => ElicitValue::Boolean(true),
                        _ => ElicitValue::String("Porto".to_owned()),
                    };
                    (name.clone(), value)
                })
                .collect();
            Ok(ElicitResult::accept(answers))
        })
        // Sampling is answered without a model: a real client asks its LLM.
        .on_sampling(|params| async move {
            println!("the server asks the model ({} message(s))", params.messages.len());
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content: OneOrMany::One(SamplingContent::text("walk along the river at dusk")),
                model: "example-model".to_owned(),
                stop_reason: None,
                meta: None,
            })
        });
    if pin_2025 {
        builder = builder.protocol_version(ProtocolVersion::V2025_11_25);
    }
    let mut words = server.split_whitespace();
    let program = words.next().ok_or("the server command is empty")?;
    let client = builder.spawn(ChildProcess::new(program).args(words)).await?;
    println!("connected to {:?} ({})", client.server_info().map(|i| i.name), client.protocol_version());

    for listed in client.list_all_tools().await? {
        println!("tool {}: {}", listed.name, listed.description.unwrap_or_default());
    }
    let result = client.call_tool(tool, arguments).await?;
    for block in &result.content {
        if let ContentBlock::Text(text) = block {
            println!("text: {}", text.text);
        }
    }
    if let Some(structured) = &result.structured_content {
        println!("structured: {structured}");
    }
    if result.is_error == Some(true) {
        println!("the tool reported an error");
    }
    client.close().await;
    Ok(())
}
