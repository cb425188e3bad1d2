//! Tools: plain Rust functions a model can call, served over stdio.
//!
//! Each function marked `#[mcpwire::tool]` becomes a tool: its parameters are the tool's
//! arguments (the `inputSchema` is generated from their types), its doc comment is the
//! description, and what it returns is the result. A serializable return value is sent
//! as structured content with a generated `outputSchema`; a `String` is sent as text; an
//! `Err` becomes a result with `isError: true` that the model sees.
//!
//! Try it with the CLI:
//!
//! ```sh
//! cargo build -p mcpwire --example tools
//! mcpwire tools stdio:target/debug/examples/tools
//! mcpwire call stdio:target/debug/examples/tools forecast city=Lisbon
//! ```

use mcpwire::server::{Server, ToolError};
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
async fn forecast(city: String) -> Result<Forecast, ToolError> {
    if city.trim().is_empty() {
        return Err(ToolError::new("name a city"));
    }
    let celsius = city.bytes().map(f64::from).sum::<f64>() % 35.0;
    let summary = if celsius > 20.0 { "sunny" } else { "cloudy" }.to_owned();
    Ok(Forecast { city, celsius, summary })
}

/// Says the text back in capitals.
#[mcpwire::tool]
fn shout(text: String) -> String {
    text.to_uppercase()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("tools-example", "1.0.0")
        .register_all(mcpwire::definitions![add, forecast, shout])
        .build()?;
    server.serve_stdio().await;
    Ok(())
}
