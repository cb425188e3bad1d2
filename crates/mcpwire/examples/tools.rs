//! Tools: plain Rust functions a model can call, served over stdio.
//!
//! Each function marked `#[mcpwire::tool]` becomes a tool: its parameters are the tool's
//! arguments (the `inputSchema` is generated from their types; a parameter's doc comment
//! describes it), its doc comment is the description, and what it returns is the result.
//! A serializable return value is sent as structured content with a generated
//! `outputSchema`; a `String` is sent as text; an `Err` becomes a result with
//! `isError: true` that the model sees. Tools can also come
//! and go while the server runs: `teach` adds one, and the client is told its tool list
//! changed.
//!
//! Try it with the CLI:
//!
//! ```sh
//! cargo build -p mcpwire --example tools
//! mcpwire tools stdio:target/debug/examples/tools
//! mcpwire call stdio:target/debug/examples/tools forecast city=Lisbon
//! mcpwire call stdio:target/debug/examples/tools shout text=hi bangs=2
//! ```

use mcpwire::server::{tool, Ctx, Server, ToolError};
use schemars::JsonSchema;
use serde::Serialize;

/// Adds two numbers.
#[mcpwire::tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// A made-up forecast: the structured result of `forecast`.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    city: String,
    /// Degrees Celsius.
    celsius: f64,
    summary: String,
}

/// Tomorrow's weather for a city (invented, but always the same for one city).
#[mcpwire::tool(title = "Weather forecast")]
async fn forecast(
    /// The city's name, as people write it ("Lisbon").
    city: String,
) -> Result<Forecast, ToolError> {
    if city.trim().is_empty() {
        return Err(ToolError::new("name a city"));
    }
    let celsius = city.bytes().map(f64::from).sum::<f64>() % 35.0;
    let summary = if celsius > 20.0 { "sunny" } else { "cloudy" }.to_owned();
    Ok(Forecast { city, celsius, summary })
}

/// Says the text back in capitals.
#[mcpwire::tool]
fn shout(
    text: String,
    /// How many "!" to add; none when left out (`#[arg(default)]`: the type's default).
    #[arg(default)]
    bangs: u8,
) -> String {
    text.to_uppercase() + &"!".repeat(bangs.into())
}

/// Teaches the server a new tool, `name`, that answers `text`.
#[mcpwire::tool]
async fn teach(ctx: Ctx, name: String, text: String) -> Result<String, ToolError> {
    let taught = tool(name.as_str()).description(format!("Says {text:?}")).handler(move || {
        let text = text.clone();
        async move { text }
    });
    // Fails for a name already taken or not valid as a tool name.
    ctx.server().add_tool(taught).map_err(|e| ToolError::new(e.to_string()))?;
    Ok(format!("learned {name}"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("tools-example", "1.0.0")
        .register_all(mcpwire::definitions![add, forecast, shout, teach])
        .build()?;
    server.serve_stdio().await;
    Ok(())
}
