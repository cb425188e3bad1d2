//! Prompts: message templates a user picks (a slash command, say). The arguments are a
//! function's parameters or a struct's fields, typed, and the list the client sees (with
//! descriptions, and which are required) is generated from them. Served over stdio.
//!
//! ```sh
//! cargo build -p mcpwire --example prompts
//! mcpwire prompts stdio:target/debug/examples/prompts
//! mcpwire prompt stdio:target/debug/examples/prompts commit_message change="fix the parser" style=short
//! ```

use mcpwire::protocol::content::Role;
use mcpwire::protocol::prompts::PromptMessage;
use mcpwire::server::{prompt, Args, Server};
use schemars::JsonSchema;
use serde::Deserialize;

/// Writes a commit message for a change.
#[mcpwire::prompt(title = "Commit message")]
async fn commit_message(
    #[arg(description = "What the change does")] change: String,
    #[arg(description = "short or detailed")] style: Option<String>,
) -> String {
    let style = style.unwrap_or_else(|| "short".into());
    format!("Write a {style} commit message, in the imperative, for this change: {change}")
}

/// The arguments of `review`: each field is an argument, its doc comment the description.
#[derive(Deserialize, JsonSchema)]
struct Review {
    /// The code to review.
    code: String,
    /// What to look at first (default: correctness).
    focus: Option<String>,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The same thing built by hand, for a prompt of several messages.
    let review =
        prompt("review").description("Reviews a piece of code").handler(|Args(r): Args<Review>| async move {
            let focus = r.focus.unwrap_or_else(|| "correctness".into());
            vec![
                PromptMessage::text(
                    Role::User,
                    format!("Please review this code, looking at {focus} first:"),
                ),
                PromptMessage::text(Role::User, r.code),
            ]
        });
    let server = Server::builder("prompts-example", "1.0.0")
        .register_all(mcpwire::definitions![commit_message])
        .register(review)
        .build()?;
    server.serve_stdio().await;
    Ok(())
}
