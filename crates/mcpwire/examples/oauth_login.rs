//! An OAuth client login: connects to an MCP server that wants a token, and logs in the
//! way a desktop program does. The first request is answered `401`; the OAuth client
//! finds the authorization server from that challenge and the server's Protected
//! Resource Metadata, registers itself (Dynamic Client Registration) unless it is already
//! known, and runs the authorization code flow with PKCE: it shows the authorization URL
//! (and opens a browser), waits on a loopback port for the redirect, and trades the code
//! for a token. The request is then sent again with the token, and every later one
//! carries it. With `--tokens FILE` the token and the registration are kept in that file,
//! so the next run logs in without the browser (and refreshes the token when it has
//! expired).
//!
//! ```sh
//! cargo run -p mcpwire --example oauth_login -- https://mcp.example.com/mcp
//! cargo run -p mcpwire --example oauth_login -- --tokens tokens.json --no-browser http://127.0.0.1:8080/mcp
//! ```

use std::path::PathBuf;
use std::sync::Arc;

use mcpwire::auth::{
    FileTokenStore, LoopbackRedirect, MemoryTokenStore, OAuthClient, OAuthConfig, TokenStore,
};
use mcpwire::client::Client;
use mcpwire::transport::http_client::HttpClientTransport;

/// What the command line asks for.
struct Args {
    url: String,
    tokens: Option<PathBuf>,
    browser: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let (mut url, mut tokens, mut browser) = (None, None, true);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tokens" => tokens = Some(PathBuf::from(args.next().ok_or("--tokens needs a file")?)),
            "--no-browser" => browser = false,
            _ if url.is_none() => url = Some(arg),
            _ => return Err(format!("unexpected argument {arg}")),
        }
    }
    let url = url.ok_or("usage: oauth_login [--tokens FILE] [--no-browser] URL")?;
    Ok(Args { url, tokens, browser })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;

    // The user's part of the login: a listener on 127.0.0.1 that the authorization
    // server redirects the browser to. Its port is part of the redirect URI the client
    // registers with, so it is bound first.
    let mut redirect = LoopbackRedirect::bind()?;
    if !args.browser {
        redirect = redirect.with_opener(|url| eprintln!("Open this URL in a browser to authorize:\n  {url}"));
    }
    let store: Arc<dyn TokenStore> = match &args.tokens {
        Some(path) => Arc::new(FileTokenStore::new(path)),
        None => Arc::new(MemoryTokenStore::new()),
    };
    let config = OAuthConfig {
        client_name: "mcpwire oauth_login example".into(),
        authorizer: Arc::new(redirect),
        store,
        ..OAuthConfig::default()
    };
    let oauth = OAuthClient::new(config);

    // The transport asks the OAuth client for a token on every request, and lets it log
    // in when the server answers 401 (or 403 insufficient_scope: more scope).
    let transport = HttpClientTransport::new(&args.url)?.oauth(oauth.clone());
    let client = Client::builder("oauth-login-example", "1.0.0").connect(transport).await?;

    let tools = client.list_all_tools().await?;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    println!("tools: {}", names.join(", "));
    if let Some(tokens) = oauth.tokens() {
        println!("token type: {}", tokens.token_type);
        println!("scope: {}", tokens.scope.as_deref().unwrap_or("(not stated)"));
    }
    client.close().await;
    Ok(())
}
