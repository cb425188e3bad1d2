//! Elicitation and sampling: a tool that asks the user to fill a form and asks the
//! client's model for text, in the middle of a call. The handler is the same in both
//! protocol eras: in 2025 each question is a request to the client; in 2026-07-28 the
//! call returns `input_required` and the client retries it with the answers (mcpwire runs
//! the handler again from the start, and the answers it already has come back at once).
//! So let the errors of `elicit_form` and `sample_text` propagate with `?`: in 2026 that
//! is how the call becomes `input_required`. Served over stdio; the client must declare
//! `elicitation` and `sampling`, as the `client` example does (the `mcpwire` command line
//! answers forms on a terminal but has no model to sample, so with it the call ends at the
//! sampling step).
//!
//! ```sh
//! cargo build -p mcpwire --examples
//! target/debug/examples/client target/debug/examples/elicitation_sampling plan_trip '{}'
//! target/debug/examples/client --era 2025 target/debug/examples/elicitation_sampling plan_trip '{}'
//! ```

use mcpwire::server::{Ctx, Elicited, Server};
use mcpwire::McpError;
use schemars::JsonSchema;
use serde::Deserialize;

/// The form the user fills.
#[derive(Deserialize, JsonSchema)]
struct Trip {
    /// Where to go.
    destination: String,
    /// How many nights.
    nights: u32,
}

/// Plans a trip: asks the user where and how long, then asks the model for an idea.
#[mcpwire::tool]
async fn plan_trip(ctx: Ctx) -> Result<String, McpError> {
    let trip = match ctx.elicit_form::<Trip>("Where would you like to go?").await? {
        Elicited::Accepted(trip) => trip,
        Elicited::Declined | Elicited::Cancelled => return Ok("No trip, then.".to_owned()),
    };
    let prompt = format!("Suggest one thing to do on {} nights in {}.", trip.nights, trip.destination);
    let idea = ctx.sample_text(prompt, 100).await?;
    Ok(format!("{} nights in {}: {idea}", trip.nights, trip.destination))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("elicitation-sampling-example", "1.0.0")
        .register_all(mcpwire::definitions![plan_trip])
        .build()?;
    server.serve_stdio().await;
    Ok(())
}
