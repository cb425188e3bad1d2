//! The loopback redirect of a native app (RFC 8252 §7.3): listen on `127.0.0.1` on a
//! port of the system's choosing, send the user's browser to the authorization URL,
//! and wait (bounded) for the authorization server to redirect it back to
//! `http://127.0.0.1:PORT/callback`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::authorizer::AuthorizationHandler;
use super::fetch::query_params;
use super::AuthError;

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;
/// Shows the authorization URL to the user (prints it, opens a browser...).
pub type UrlOpener = Arc<dyn Fn(&str) + Send + Sync>;

/// The path the authorization server redirects to.
const CALLBACK_PATH: &str = "/callback";
/// The largest request head read from the browser.
const MAX_HEAD: usize = 8 * 1024;
/// How long one browser connection may take to send its request.
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(10);
/// The most browser connections served at once.
const MAX_CONNECTIONS: usize = 32;
/// The most bytes read after a request head too large to serve.
const MAX_DRAIN: u64 = 1024 * 1024;

/// An [`AuthorizationHandler`] for command-line programs: binds `127.0.0.1:0` when
/// created (so the redirect URI, with its port, is known before registration), shows
/// the authorization URL (prints it and tries to open a browser, or calls the opener
/// given), and waits up to a timeout (default 5 minutes) for the redirect. Only a
/// redirect carrying the `state` of the authorization request ends the wait; the
/// browser gets a small page saying what happened.
#[derive(Clone)]
pub struct LoopbackRedirect {
    listener: Arc<std::net::TcpListener>,
    redirect_uri: String,
    timeout: Duration,
    opener: UrlOpener,
}

impl std::fmt::Debug for LoopbackRedirect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopbackRedirect").field("redirect_uri", &self.redirect_uri).finish_non_exhaustive()
    }
}

/// Prints the URL on stderr and tries the desktop's URL opener (failures are ignored: the
/// user can copy the URL). [`LoopbackRedirect`]'s default opener; an opener of one's own
/// may call it and note that a login has begun.
pub fn print_and_open(url: &str) {
    eprintln!("Open this URL in a browser to authorize:\n  {url}");
    let command = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let _ = std::process::Command::new(command)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

impl LoopbackRedirect {
    /// Binds `127.0.0.1` on an ephemeral port.
    pub fn bind() -> Result<LoopbackRedirect, AuthError> {
        let io = |e: std::io::Error| AuthError::Http(format!("loopback redirect listener: {e}"));
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).map_err(io)?;
        listener.set_nonblocking(true).map_err(io)?;
        let port = listener.local_addr().map_err(io)?.port();
        Ok(LoopbackRedirect {
            listener: Arc::new(listener),
            redirect_uri: format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
            timeout: Duration::from_secs(300),
            opener: Arc::new(print_and_open),
        })
    }

    /// How long to wait for the redirect.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Shows the authorization URL with `opener` instead of printing it and starting a
    /// browser.
    pub fn with_opener(mut self, opener: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.opener = Arc::new(opener);
        self
    }

    /// `http://127.0.0.1:PORT/callback`.
    pub fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    /// Serves browser connections side by side (at most [`MAX_CONNECTIONS`] at once),
    /// so one that never finishes its request holds up nobody, until one brings the
    /// redirect this flow waits for.
    async fn wait(&self, state: Option<String>) -> Result<String, AuthError> {
        let io = |e: std::io::Error| AuthError::Http(format!("loopback redirect listener: {e}"));
        let listener =
            tokio::net::TcpListener::from_std(self.listener.try_clone().map_err(io)?).map_err(io)?;
        let mut connections = tokio::task::JoinSet::new();
        loop {
            tokio::select! {
                accepted = listener.accept(), if connections.len() < MAX_CONNECTIONS => {
                    let (stream, _) = accepted.map_err(io)?;
                    let state = state.clone();
                    let served = tokio::time::timeout(CONNECTION_TIMEOUT, async move {
                        serve(stream, state.as_deref()).await
                    });
                    connections.spawn(async move { served.await.ok().flatten() });
                }
                Some(served) = connections.join_next() => {
                    if let Ok(Some(query)) = served {
                        return Ok(format!("{}?{query}", self.redirect_uri));
                    }
                }
            }
        }
    }
}

/// Answers one browser request; returns the callback's query when it is the redirect
/// this flow waits for.
async fn serve(mut stream: TcpStream, state: Option<&str>) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        if head.len() + n > MAX_HEAD {
            let text = "The request is too large.";
            respond(&mut stream, "431 Request Header Fields Too Large", "Authorization failed", text).await;
            // What the browser still sends is read (bounded), so that closing does not
            // reset the connection before the browser reads the answer.
            let _ = tokio::io::copy(&mut (&mut stream).take(MAX_DRAIN), &mut tokio::io::sink()).await;
            return None;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&head);
    let target = head.lines().next().and_then(|l| l.strip_prefix("GET ")).and_then(|l| l.split(' ').next());
    let (path, query) = match target {
        Some(t) => t.split_once('?').unwrap_or((t, "")),
        None => ("", ""),
    };
    if path != CALLBACK_PATH {
        respond(&mut stream, "404 Not Found", "Not found", "This is mcpwire's authorization callback.").await;
        return None;
    }
    let params = query_params(&format!("?{query}"));
    let get = |name: &str| params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    if state.is_some() && get("state") != state {
        respond(
            &mut stream,
            "400 Bad Request",
            "Authorization failed",
            "The response does not belong to this login.",
        )
        .await;
        return None;
    }
    match get("error") {
        Some(error) => {
            let error: String =
                error.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').take(64).collect();
            respond(&mut stream, "200 OK", "Authorization failed", &format!("The server said: {error}."))
                .await;
        }
        None => {
            respond(
                &mut stream,
                "200 OK",
                "Authorized",
                "You can close this window and return to the terminal.",
            )
            .await;
        }
    }
    Some(query.to_owned())
}

async fn respond(stream: &mut TcpStream, status: &str, title: &str, text: &str) {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title}</title></head>\
         <body><h1>{title}</h1><p>{text}</p></body></html>"
    );
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

impl AuthorizationHandler for LoopbackRedirect {
    fn authorize(&self, url: String) -> BoxFuture<Result<String, AuthError>> {
        let this = self.clone();
        Box::pin(async move {
            let state = query_params(&url).into_iter().find(|(k, _)| k == "state").map(|(_, v)| v);
            (this.opener)(&url);
            tokio::time::timeout(this.timeout, this.wait(state)).await.map_err(|_| {
                AuthError::Denied(format!("no authorization redirect within {:?}", this.timeout))
            })?
        })
    }

    fn redirect_uri(&self) -> Option<String> {
        Some(self.redirect_uri.clone())
    }
}
