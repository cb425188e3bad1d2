//! `mcpwire login URL`: the OAuth flow in the browser, tokens saved for later commands.

use std::time::Duration;

use mcpwire::auth::AuthError;

use crate::errors::{Failure, NOT_LISTENING};

/// Runs `mcpwire login URL`.
pub async fn run(l: &crate::cli::Login) -> anyhow::Result<i32> {
    let options =
        mcpwire::auth::LoginOptions { timeout: Duration::from_secs(l.timeout), ..Default::default() };
    let tokens = mcpwire::auth::login(&l.url, options).await.map_err(|e| failure(&l.url, &e))?;
    let refreshable = if tokens.refresh_token.is_some() { ", refreshable" } else { "" };
    say!("Logged in to {} ({} token{refreshable}).", l.url, tokens.token_type);
    Ok(0)
}

/// A failed login, for the user: a server that asks for no login, nothing listening at
/// the URL (the HTTP library's words left out), or anything else with its message.
fn failure(url: &str, error: &AuthError) -> Failure {
    match error {
        AuthError::Http(reason) if reason.contains("(Connect)") => {
            let why = if reason.to_ascii_lowercase().contains("refused") {
                "connection refused"
            } else {
                reason.as_str()
            };
            Failure::connect(format!("login to {url} failed: cannot reach the server: {why}"))
                .hint(NOT_LISTENING)
        }
        _ if error.to_string().contains("does not ask for authorization") => {
            Failure::connect(format!("login to {url} failed: {error}"))
                .hint(format!("this server needs no login: use it as it is (mcpwire tools {url})"))
        }
        _ if error.to_string().contains("tokens could not be saved") => {
            Failure::connect(format!("login to {url} failed: {error}"))
                .hint("the login is kept in the token store file named above: make it a writable file")
        }
        _ => Failure::connect(format!("login to {url} failed: {error}"))
            .hint("is the URL the server's MCP endpoint (often ending in /mcp)?"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A login whose tokens could not be kept points at the store file, not at the URL.
    #[test]
    fn an_unsaved_login_points_at_the_store() {
        let why =
            "logged in, but the tokens could not be saved: token store /c/auth.json: not a regular file";
        let failure = failure("http://h/mcp", &AuthError::Protocol(why.into()));
        assert!(failure.message.contains("/c/auth.json"), "{}", failure.message);
        assert!(failure.hint.is_some_and(|h| h.contains("token store file")));
    }
}
