//! Resources: data a client can read by URI. A fixed resource has one URI; a template
//! (RFC 6570) matches many, and its variables reach the handler typed. Completion offers
//! values for a template's variables as the user types. Served over stdio.
//!
//! ```sh
//! cargo build -p mcpwire --example resources
//! mcpwire templates stdio:target/debug/examples/resources
//! mcpwire read stdio:target/debug/examples/resources books://rust/ownership
//! ```

use mcpwire::protocol::completion::{CompleteRequestParams, CompleteResult, Completion, CompletionReference};
use mcpwire::server::{Ctx, Server, Uri};

/// The books this server knows: (shelf, title, text).
const BOOKS: &[(&str, &str, &str)] = &[
    ("rust", "ownership", "Each value has one owner; when the owner goes, the value is dropped."),
    ("rust", "borrowing", "Many readers or one writer, never both."),
    ("mcp", "tools", "A tool is a function the model may call."),
    ("mcp", "resources", "A resource is data the application reads by URI."),
];

/// What is on the shelves.
#[mcpwire::resource(uri = "books://index", mime_type = "text/plain")]
async fn index() -> String {
    BOOKS.iter().map(|(shelf, title, _)| format!("books://{shelf}/{title}\n")).collect()
}

/// One book, by shelf and title.
#[mcpwire::resource(uri = "books://{shelf}/{title}", name = "book", mime_type = "text/plain")]
async fn book(shelf: String, title: String, Uri(uri): Uri) -> Result<String, mcpwire::McpError> {
    BOOKS
        .iter()
        .find(|(s, t, _)| *s == shelf && *t == title)
        .map(|(_, _, text)| (*text).to_owned())
        // "Resource not found" in each era's words: `-32002` up to 2025-11-25, `-32602` in 2026.
        .ok_or_else(|| mcpwire::McpError::resource_not_found(&uri))
}

/// Offers the shelves and titles that start with what the user typed. One handler
/// answers for every prompt and template: `params.reference` says which is being filled.
async fn complete(_ctx: Ctx, params: CompleteRequestParams) -> Result<CompleteResult, mcpwire::McpError> {
    let for_books =
        matches!(&params.reference, CompletionReference::Resource(r) if r.uri == "books://{shelf}/{title}");
    if !for_books {
        return Ok(CompleteResult::default());
    }
    let typed = &params.argument.value;
    let shelf = params.context.as_ref().and_then(|c| c.arguments.as_ref()).and_then(|a| a.get("shelf"));
    let mut values: Vec<String> = BOOKS
        .iter()
        .filter(|(s, _, _)| params.argument.name == "shelf" || shelf.is_none_or(|chosen| chosen == s))
        .map(|(s, t, _)| if params.argument.name == "shelf" { (*s).to_owned() } else { (*t).to_owned() })
        .filter(|v| v.starts_with(typed.as_str()))
        .collect();
    values.dedup();
    Ok(CompleteResult { completion: Completion { values, ..Default::default() }, ..Default::default() })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("resources-example", "1.0.0")
        .register_all(mcpwire::definitions![index, book])
        .completion(complete)
        .build()?;
    server.serve_stdio().await;
    Ok(())
}
