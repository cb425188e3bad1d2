//! The everything server. Names, arguments and outputs are checked by the conformance
//! suite; see `conformance/README.md`.

use std::time::Duration;

use crate::forms::{answer_text, form};

use mcpwire::protocol::codes;
use mcpwire::protocol::completion::{CompleteResult, Completion};
use mcpwire::protocol::content::{ContentBlock, EmbeddedResource, ImageContent, ResourceContents, Role};
use mcpwire::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::prompts::{GetPromptResult, PromptMessage};
use mcpwire::protocol::sampling::CreateMessageRequestParams;
use mcpwire::protocol::tools::CallToolResult;
use mcpwire::server::{
    prompt, resource, resource_template, tool, Args, Blob, Ctx, PromptArgs, ResourceRequest, Server,
};
use mcpwire::McpError;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

/// A 1×1 PNG.
pub const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A tiny WAV file.
pub const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The server's name, as the suite expects it.
pub const NAME: &str = "mcp-conformance-test-server";

fn content(value: Value) -> ContentBlock {
    serde_json::from_value(value).unwrap_or_else(|_| ContentBlock::text("invalid fixture content"))
}

fn sampling(value: Value) -> CreateMessageRequestParams {
    serde_json::from_value(value).unwrap_or_else(|e| panic!("invalid fixture sampling request: {e}"))
}

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent::new(PNG, "image/png"))
}

fn elicit_summary(prefix: &str, result: &ElicitResult) -> String {
    let value = serde_json::to_value(result).unwrap_or(Value::Null);
    let content = value.get("content").cloned().unwrap_or_else(|| json!({}));
    format!("{prefix}: action={}, content={}", value["action"].as_str().unwrap_or(""), content)
}

#[derive(Deserialize, JsonSchema)]
struct PromptArg {
    /// The prompt for the model.
    prompt: String,
}

#[derive(Deserialize, JsonSchema)]
struct MessageArg {
    /// The message to show the user.
    message: String,
}

#[derive(Deserialize, JsonSchema)]
struct RegionArg {
    region: String,
}

/// The JSON Schema 2020-12 fixture, listed verbatim.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": { "street": { "type": "string" }, "city": { "type": "string" } }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    })
}

/// Builds the everything server.
pub fn server() -> Server {
    builder().build().unwrap_or_else(|e| panic!("the everything server is misconfigured: {e}"))
}

/// The everything server's builder, with every tool, resource and prompt registered (to
/// build it otherwise, as one instance of a cluster for example).
pub fn builder() -> mcpwire::server::ServerBuilder {
    let builder = Server::builder(NAME, env!("CARGO_PKG_VERSION"))
        .title("MCP conformance test server (mcpwire)")
        .instructions("A fixture server for the MCP conformance suite.");
    let builder = content_tools(builder);
    let builder = interactive_tools(builder);
    let builder = mrtr_tools(builder);
    let builder = resources_and_prompts(builder);
    crate::everything_tasks::task_tools(builder)
}

fn content_tools(b: mcpwire::server::ServerBuilder) -> mcpwire::server::ServerBuilder {
    b.tool(tool("test_simple_text").description("Tests simple text content response").handler(|| {
        "This is a simple text response for testing."
    }))
    .tool(tool("test_image_content").description("Tests image content response").handler(image))
    .tool(tool("test_audio_content").description("Tests audio content response").handler(|| {
        content(json!({ "type": "audio", "data": WAV, "mimeType": "audio/wav" }))
    }))
    .tool(tool("test_embedded_resource").description("Tests embedded resource content response").handler(|| {
        ContentBlock::Resource(EmbeddedResource::new(ResourceContents::Text(
            serde_json::from_value(json!({
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content."
            }))
            .unwrap_or_default(),
        )))
    }))
    .tool(tool("test_multiple_content_types").description("Tests response with multiple content types (text, image, resource)").handler(|| {
        vec![
            ContentBlock::text("Multiple content types test:"),
            image(),
            content(json!({
                "type": "resource",
                "resource": { "uri": "test://mixed-content-resource", "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}" }
            })),
        ]
    }))
    .tool(tool("test_error_handling").description("Tests error response handling").handler(|| {
        CallToolResult::error("This tool intentionally returns an error for testing")
    }))
    .tool(
        tool("json_schema_2020_12_tool")
            .description("Tool with JSON Schema 2020-12 features")
            .input_schema(json_schema_2020_12())
            .handler(|Args(args): Args<Value>| format!("JSON Schema 2020-12 tool called with: {args}")),
    )
    .tool(
        tool("test_x_mcp_header")
            .description("Tests the Mcp-Param header of an x-mcp-header argument")
            .input_schema(json!({
                "type": "object",
                "properties": { "region": { "type": "string", "x-mcp-header": "Region" } },
                "required": ["region"]
            }))
            .handler(|Args(a): Args<RegionArg>| format!("Region: {}", a.region)),
    )
}

fn interactive_tools(b: mcpwire::server::ServerBuilder) -> mcpwire::server::ServerBuilder {
    b.tool(tool("test_tool_with_logging").description("Tests tool that emits log messages during execution").handler(|ctx: Ctx| async move {
        for (i, message) in ["Tool execution started", "Tool processing data", "Tool execution completed"].iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            ctx.log(LoggingLevel::Info, message).await;
        }
        "Tool with logging executed successfully"
    }))
    .tool(tool("test_tool_with_progress").description("Tests tool that reports progress notifications").handler(|ctx: Ctx| async move {
        for (i, step) in [0.0, 50.0, 100.0].iter().enumerate() {
            if i > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            ctx.progress(*step, Some(100.0), Some(&format!("Completed step {step} of 100"))).await;
        }
        let token = ctx.meta().and_then(|m| m.get("progressToken")).map(|t| match t {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        token.unwrap_or_else(|| "0".into())
    }))
    .tool(tool("test_reconnection").description("Tests SSE stream reconnection: the server closes the stream mid-call").handler(|ctx: Ctx| async move {
        // Over 2025-era Streamable HTTP this ends the SSE connection after its priming
        // event; the client resumes with Last-Event-ID and gets the result by replay.
        ctx.close_sse_stream();
        tokio::time::sleep(Duration::from_millis(150)).await;
        "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."
    }))
    .tool(tool("test_sampling").description("Tests server-initiated sampling (LLM completion request)").handler(
        |ctx: Ctx, Args(a): Args<PromptArg>| async move {
            let request = sampling(json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": a.prompt } }],
                "maxTokens": 100
            }));
            let result = ctx.sample(request).await?;
            let text = serde_json::to_value(&result.content).ok().and_then(|c| c["text"].as_str().map(str::to_owned)).unwrap_or_default();
            Ok::<_, McpError>(format!("LLM response: {text}"))
        },
    ))
    .tool(tool("test_elicitation").description("Tests server-initiated elicitation (user input request)").handler(
        |ctx: Ctx, Args(a): Args<MessageArg>| async move {
            let request = form(&a.message, json!({ "response": { "type": "string", "description": "User's response" } }), &["response"]);
            let result = ctx.elicit(request).await?;
            Ok::<_, McpError>(elicit_summary("User response", &result))
        },
    ))
    .tool(tool("test_elicitation_sep1034_defaults").description("Tests elicitation with default values per SEP-1034").handler(|ctx: Ctx| async move {
        let request = form(
            "Please review and update the form fields with defaults",
            json!({
                "name": { "type": "string", "description": "User name", "default": "John Doe" },
                "age": { "type": "integer", "description": "User age", "default": 30 },
                "score": { "type": "number", "description": "User score", "default": 95.5 },
                "status": { "type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active" },
                "verified": { "type": "boolean", "description": "Verification status", "default": true }
            }),
            &[],
        );
        let result = ctx.elicit(request).await?;
        Ok::<_, McpError>(elicit_summary("Elicitation completed", &result))
    }))
    .tool(tool("test_elicitation_sep1330_enums").description("Tests elicitation with enum schema improvements per SEP-1330").handler(|ctx: Ctx| async move {
        let request = form(
            "Please select options from the enum fields",
            json!({
                "untitledSingle": { "type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"] },
                "titledSingle": { "type": "string", "description": "Select one option with titles", "oneOf": [
                    { "const": "value1", "title": "First Option" }, { "const": "value2", "title": "Second Option" }, { "const": "value3", "title": "Third Option" }
                ] },
                "legacyEnum": { "type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"] },
                "untitledMulti": { "type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": { "type": "string", "enum": ["option1", "option2", "option3"] } },
                "titledMulti": { "type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3, "items": { "anyOf": [
                    { "const": "value1", "title": "First Choice" }, { "const": "value2", "title": "Second Choice" }, { "const": "value3", "title": "Third Choice" }
                ] } }
            }),
            &[],
        );
        let result = ctx.elicit(request).await?;
        Ok::<_, McpError>(elicit_summary("Elicitation completed", &result))
    }))
    .tool(tool("test_missing_capability").description("Test tool requiring sampling").handler(|ctx: Ctx| async move {
        if ctx.client_capabilities().sampling.is_none() {
            // -32021 is a 2026 code; a 2025 session gets 2025's -32601.
            let code = match ctx.protocol_version().era() {
                Some(mcpwire::protocol::Era::Stateful) => codes::METHOD_NOT_FOUND,
                _ => codes::MISSING_REQUIRED_CLIENT_CAPABILITY,
            };
            return Err(McpError::new(code, "Missing required client capability")
                .with_data(json!({ "requiredCapabilities": { "sampling": {} } })));
        }
        Ok("Success")
    }))
    .tool(tool("test_streaming_elicitation").description("Diagnostic tool validating response progress streams").handler(|ctx: Ctx| async move {
        // Over 2026 this becomes an input_required result, never a request on the stream.
        ctx.progress(50.0, Some(100.0), Some("halfway")).await;
        let answer = ctx.elicit_as("confirm", confirm()).await?;
        Ok::<_, McpError>(format!("Streaming complete (ok={})", answer_text(&answer, "ok")))
    }))
    .tool(tool("test_logging_tool").description("Diagnostic logging validator tool").handler(|ctx: Ctx| async move {
        ctx.log(LoggingLevel::Info, "a log line, sent only when the request asked for logs").await;
        "Logging tool complete"
    }))
    .tool(tool("test_trigger_tool_change").description("Publishes notifications/tools/list_changed").handler(|ctx: Ctx| {
        ctx.notify_tools_changed();
        "Tool list change notification sent"
    }))
    .tool(tool("test_trigger_prompt_change").description("Publishes notifications/prompts/list_changed").handler(|ctx: Ctx| {
        ctx.notify_prompts_changed();
        "Prompt list change notification sent"
    }))
}

/// Whether the request is a 2026 one (where state travels in `requestState`; a 2025
/// session asks the client directly and keeps no such state).
fn stateless(ctx: &Ctx) -> bool {
    ctx.protocol_version().era() == Some(mcpwire::protocol::Era::Stateless)
}

fn ask_name(message: &str) -> ElicitRequestParams {
    form(message, json!({ "name": { "type": "string" } }), &["name"])
}

fn capital_question() -> CreateMessageRequestParams {
    sampling(json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the capital of France?" } }],
        "maxTokens": 100
    }))
}

fn confirm() -> ElicitRequestParams {
    form("Please confirm", json!({ "ok": { "type": "boolean" } }), &["ok"])
}

fn mrtr_tools(b: mcpwire::server::ServerBuilder) -> mcpwire::server::ServerBuilder {
    b.tool(tool("test_input_required_result_elicitation").description("MRTR: asks the user's name, then greets them").handler(|ctx: Ctx| async move {
        let answer = ctx.elicit_as("user_name", ask_name("What is your name?")).await?;
        Ok::<_, McpError>(format!("Hello, {}!", answer_text(&answer, "name")))
    }))
    .tool(tool("test_input_required_result_sampling").description("MRTR: asks the client's model a question").handler(|ctx: Ctx| async move {
        let answer = ctx.sample_as("capital_question", capital_question()).await?;
        let text = serde_json::to_value(&answer.content).ok().and_then(|c| c["text"].as_str().map(str::to_owned)).unwrap_or_default();
        Ok::<_, McpError>(format!("Sampling result: {text}"))
    }))
    .tool(tool("test_input_required_result_list_roots").description("MRTR: asks the client for its roots").handler(|ctx: Ctx| async move {
        let roots = ctx.list_roots_as("client_roots").await?;
        Ok::<_, McpError>(format!("Found {} root(s)", roots.roots.len()))
    }))
    .tool(tool("test_input_required_result_request_state").description("MRTR: round-trips a sealed requestState").handler(|ctx: Ctx| async move {
        ctx.set_request_state("request-state");
        let answer = ctx.elicit_as("confirm", confirm()).await?;
        match (ctx.request_state(), stateless(&ctx)) {
            (Some("request-state"), _) | (None, false) => {
                Ok(format!("state-ok: requestState validated (ok={})", answer_text(&answer, "ok")))
            }
            _ => Err(McpError::invalid_params("missing or unexpected requestState")),
        }
    }))
    .tool(tool("test_input_required_result_tampered_state").description("MRTR: rejects a requestState that fails its integrity check").handler(|ctx: Ctx| async move {
        ctx.set_request_state("tamper-check");
        ctx.elicit_as("confirm", confirm()).await?;
        match (ctx.request_state(), stateless(&ctx)) {
            (Some("tamper-check"), _) | (None, false) => Ok("state-ok: integrity verified".to_owned()),
            _ => Err(McpError::invalid_params("missing or unexpected requestState")),
        }
    }))
    .tool(tool("test_input_required_result_multiple_inputs").description("MRTR: asks for three inputs in one round").handler(|ctx: Ctx| async move {
        ctx.set_request_state("multiple-inputs");
        let name = ctx.elicit_as("user_name", ask_name("What is your name?")).await;
        let greeting = ctx
            .sample_as("greeting", sampling(json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": "Generate a greeting" } }],
                "maxTokens": 50
            })))
            .await;
        let roots = ctx.list_roots_as("client_roots").await;
        let (name, greeting, roots) = (name?, greeting?, roots?);
        let greeting = serde_json::to_value(&greeting.content).ok().and_then(|c| c["text"].as_str().map(str::to_owned)).unwrap_or_default();
        Ok::<_, McpError>(format!("Name: {}; Greeting: {greeting}; Roots: {}", answer_text(&name, "name"), roots.roots.len()))
    }))
    .tool(tool("test_input_required_result_multi_round").description("MRTR: two rounds with an evolving requestState").handler(|ctx: Ctx| async move {
        let name = match ctx.request_state() {
            Some(state) if state.starts_with("round-2:") => state["round-2:".len()..].to_owned(),
            _ => {
                ctx.set_request_state("round-1");
                let answer = ctx.elicit_as("step1", ask_name("Step 1: What is your name?")).await?;
                answer_text(&answer, "name")
            }
        };
        ctx.set_request_state(format!("round-2:{name}"));
        let color = ctx
            .elicit_as("step2", form("Step 2: What is your favorite color?", json!({ "color": { "type": "string" } }), &["color"]))
            .await?;
        Ok::<_, McpError>(format!("Multi-round complete for {name} who likes {}", answer_text(&color, "color")))
    }))
    .tool(tool("test_input_required_result_capabilities").description("MRTR: asks only for what the client declared").handler(|ctx: Ctx| async move {
        let caps = ctx.client_capabilities().clone();
        let mut asked = Vec::new();
        let elicit = match caps.elicitation {
            Some(_) => { asked.push("elicitation"); Some(ctx.elicit_as("user_name", ask_name("What is your name?")).await) }
            None => None,
        };
        let sample = match caps.sampling {
            Some(_) => { asked.push("sampling"); Some(ctx.sample_as("capital_question", capital_question()).await) }
            None => None,
        };
        let roots = match caps.roots {
            Some(_) => { asked.push("roots"); Some(ctx.list_roots_as("client_roots").await) }
            None => None,
        };
        if let Some(r) = elicit { r?; }
        if let Some(r) = sample { r?; }
        if let Some(r) = roots { r?; }
        Ok::<_, McpError>(format!("capabilities-ok: {}", if asked.is_empty() { "none".to_owned() } else { asked.join(", ") }))
    }))
}

fn resources_and_prompts(b: mcpwire::server::ServerBuilder) -> mcpwire::server::ServerBuilder {
    b.resource(
        resource("test://static-text", "Static Text Resource")
            .description("A static text resource for testing")
            .mime_type("text/plain")
            .text("This is the content of the static text resource."),
    )
    .resource(
        resource("test://static-binary", "Static Binary Resource")
            .description("A static binary resource (image) for testing")
            .mime_type("image/png")
            .handler(|| async { blob_png() }),
    )
    .resource(
        resource("test://watched-resource", "Watched Resource")
            .description("A resource that can be subscribed to")
            .mime_type("text/plain")
            .text("Watched resource content"),
    )
    .resource_template(
        resource_template("test://template/{id}/data", "Resource Template")
            .description("A resource template with parameter substitution")
            .mime_type("application/json")
            .handler(|request: ResourceRequest| async move {
                let id = request.var("id").unwrap_or_default().to_owned();
                json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string()
            }),
    )
    .prompt(prompt("test_simple_prompt").description("A simple prompt without arguments").handler(|| async {
        vec![PromptMessage::text(Role::User, "This is a simple prompt for testing.")]
    }))
    .prompt(
        prompt("test_prompt_with_arguments")
            .description("A prompt with required arguments")
            .argument("arg1", "First test argument", true)
            .argument("arg2", "Second test argument", true)
            .handler(|args: PromptArgs| async move {
                let text = format!("Prompt with arguments: arg1='{}', arg2='{}'", args.get("arg1").unwrap_or(""), args.get("arg2").unwrap_or(""));
                vec![PromptMessage::text(Role::User, text)]
            }),
    )
    .prompt(
        prompt("test_prompt_with_embedded_resource")
            .description("A prompt that includes an embedded resource")
            .argument("resourceUri", "URI of the resource to embed", true)
            .handler(|args: PromptArgs| async move {
                let uri = args.get("resourceUri").unwrap_or("").to_owned();
                let embedded = content(json!({ "type": "resource", "resource": { "uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing." } }));
                vec![
                    PromptMessage { role: Role::User, content: embedded },
                    PromptMessage::text(Role::User, "Please process the embedded resource above."),
                ]
            }),
    )
    .prompt(prompt("test_prompt_with_image").description("A prompt that includes image content").handler(|| async {
        vec![
            PromptMessage { role: Role::User, content: image() },
            PromptMessage::text(Role::User, "Please analyze the image above."),
        ]
    }))
    .prompt(prompt("test_input_required_result_prompt").description("MRTR: prompt that requires elicitation input").handler(|ctx: Ctx| async move {
        let answer = ctx
            .elicit_as("user_context", form("What context should the prompt use?", json!({ "context": { "type": "string" } }), &["context"]))
            .await?;
        Ok::<_, McpError>(GetPromptResult {
            messages: vec![PromptMessage::text(Role::User, format!("Prompt with context: {}", answer_text(&answer, "context")))],
            ..Default::default()
        })
    }))
    .completion(|_, _| async { Ok(CompleteResult { completion: Completion { values: vec![], total: Some(0), has_more: Some(false) }, ..Default::default() }) })
}

fn blob_png() -> Blob {
    Blob(decode_base64(PNG))
}

/// A minimal standard base64 decoder for the fixture constant (no extra dependency).
fn decode_base64(s: &str) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for v in s.bytes().filter_map(value) {
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
