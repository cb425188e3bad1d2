//! The echo server, written the way README's "Write a server" section writes one: the
//! `echo` tool with `#[mcpwire::tool]`, a resource and a prompt from the builders, and two
//! middlewares. The benchmarks measure it (`echo-server` serves it, `mcpwire bench`
//! measures it), so that what they measure is what an application built on mcpwire runs;
//! `mcpwire serve --example echo` serves it too.

use mcpwire::protocol::content::Role;
use mcpwire::protocol::prompts::PromptMessage;
use mcpwire::server::{middleware_fn, prompt, resource, BuildError, PromptArgs, Server};
use schemars::JsonSchema;
use serde::Deserialize;

/// The URI of the text resource: [`MIX_RESOURCE_BYTES`] of text. `mcpwire bench --mix`
/// reads it, and the peers in `bench/peers` serve it too.
pub const MIX_RESOURCE_URI: &str = "bench://text-100k";
/// The size of the resource's text: 100 KiB.
pub const MIX_RESOURCE_BYTES: usize = 100 * 1024;
/// The prompt (one argument, `text`) that `mcpwire bench --mix` gets.
pub const MIX_PROMPT: &str = "echo-prompt";

/// A text of `bytes` bytes (ASCII words and spaces: nothing JSON escapes): the resource's
/// text here, and the payload of `mcpwire bench --payload-bytes`. Made by copying the
/// words whole, not char by char: the server makes its resource's text before it reads
/// its first request, so the time it takes is part of the time to the first answer.
pub fn payload_text(bytes: usize) -> String {
    const WORDS: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod ";
    let mut text = WORDS.repeat(bytes / WORDS.len() + 1);
    // ASCII: every byte offset is a char boundary.
    text.truncate(bytes);
    text
}

/// The arguments of `echo`, as a struct (the criterion benchmarks deserialize it; the
/// tool itself takes them through `#[mcpwire::tool]`).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// The text to send back.
    pub text: String,
}

/// Echoes the text back.
#[mcpwire::tool]
pub async fn echo(text: String) -> String {
    text
}

/// The server `echo-server` serves (and `mcpwire serve --example echo`):
///
/// - the tool `echo`: `{text}` comes back as one text content;
/// - the resource `bench://text-100k` ([`MIX_RESOURCE_URI`]): 100 KiB of text;
/// - the prompt `echo-prompt` ([`MIX_PROMPT`]): one user message holding its `text`
///   argument;
/// - two middlewares that pass every request on, as a server with, say, an audit and a
///   metrics layer has.
pub fn server() -> Result<Server, BuildError> {
    builder().build()
}

/// The echo server's builder (to build it otherwise, as one instance of a cluster for
/// example).
pub fn builder() -> mcpwire::server::ServerBuilder {
    Server::builder("mcpwire-echo", env!("CARGO_PKG_VERSION"))
        .middleware(middleware_fn(|request, ctx, next| async move { next.run(request, ctx).await }))
        .middleware(middleware_fn(|request, ctx, next| async move { next.run(request, ctx).await }))
        .tool(echo_tool())
        .resource(
            resource(MIX_RESOURCE_URI, "text-100k")
                .description("100 KiB of text")
                .mime_type("text/plain")
                .text(payload_text(MIX_RESOURCE_BYTES)),
        )
        .prompt(
            prompt(MIX_PROMPT)
                .description("Says the text back as a user message")
                .argument("text", "The text of the message", true)
                .handler(|args: PromptArgs| async move {
                    vec![PromptMessage::text(Role::User, args.get("text").unwrap_or_default())]
                }),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_text_is_the_words_over_and_over_cut_at_the_length() {
        const WORDS: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod ";
        for bytes in [0, 1, WORDS.len() - 1, WORDS.len(), WORDS.len() + 1, 4096, MIX_RESOURCE_BYTES] {
            let expected: String = WORDS.bytes().cycle().take(bytes).map(char::from).collect();
            assert_eq!(payload_text(bytes), expected, "{bytes} bytes");
        }
    }
}
