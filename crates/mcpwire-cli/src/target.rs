//! Targets: what a command connects to, and the one place that connects to it.
//!
//! A target is `stdio:'COMMAND ARGS'` (a server started as a child process; the command
//! line is split like a POSIX shell would split it, without expansions), a bare command
//! line without the prefix, or an `http://` / `https://` URL of a Streamable HTTP
//! endpoint.

use std::fmt;
use std::future::Future;
use std::io::ErrorKind;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mcpwire::client::{Client, ClientBuilder, ConnectError};
use mcpwire::transport::child::{ChildProcess, StderrMode};
use mcpwire::transport::Transport;
use mcpwire::RequestError;

use crate::errors::{describe_request_error, http_status, Failure};
use crate::wire::{Recorder, Tap};

/// Where a server is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A server started as a child process and spoken to over its stdin and stdout.
    Stdio {
        /// The program (looked up on `PATH`).
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A Streamable HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Extra headers (`--header 'K: V'`), in order.
        headers: Vec<(String, String)>,
        /// A bearer token (`--bearer`).
        bearer: Option<String>,
    },
}

impl Target {
    /// Checks `login`'s URL as clap parses it: an http(s):// URL, as an HTTP target is.
    pub fn parse_login_url(text: &str) -> Result<String, String> {
        match Target::parse(text) {
            Ok(Target::Http { url, .. }) => Ok(url),
            Err(why) if why.starts_with("invalid URL") => Err(why),
            _ => {
                Err("login takes the server's http(s):// URL (its MCP endpoint, often ending in /mcp)"
                    .to_owned())
            }
        }
    }

    /// Parses a target string (see the module documentation).
    pub fn parse(s: &str) -> Result<Target, String> {
        let s = s.trim();
        if let Some(command) = s.strip_prefix("stdio:") {
            return Target::stdio(command);
        }
        let lower = s.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            if s.len() <= "https://".len() || s.contains(char::is_whitespace) {
                return Err(format!("invalid URL {s:?}"));
            }
            return Ok(Target::Http { url: s.to_owned(), headers: Vec::new(), bearer: None });
        }
        if let Some((scheme, _)) = s.split_once("://") {
            return Err(format!(
                "unsupported target scheme {scheme:?}: use stdio:'COMMAND ARGS' or an http(s):// URL"
            ));
        }
        Target::stdio(s)
    }

    fn stdio(command: &str) -> Result<Target, String> {
        let mut words = split_words(command)?;
        if words.is_empty() {
            return Err("the stdio target names no command: use stdio:'COMMAND ARGS'".to_owned());
        }
        let program = words.remove(0);
        Ok(Target::Stdio { program, args: words })
    }

    /// Adds `--header` and `--bearer` to an HTTP target; they make no sense elsewhere.
    pub fn with_http_options(self, headers: &[String], bearer: Option<&str>) -> anyhow::Result<Target> {
        match self {
            Target::Http { url, headers: mut own, bearer: own_bearer } => {
                for header in headers {
                    let Some((name, value)) = header.split_once(':') else {
                        return Err(Failure::usage(format!("invalid header {header:?}"))
                            .hint("write headers as --header 'Name: value'")
                            .into());
                    };
                    if name.trim().is_empty() {
                        return Err(Failure::usage(format!("invalid header {header:?}: no name"))
                            .hint("write headers as --header 'Name: value'")
                            .into());
                    }
                    own.push((name.trim().to_owned(), value.trim().to_owned()));
                }
                Ok(Target::Http { url, headers: own, bearer: bearer.map(str::to_owned).or(own_bearer) })
            }
            stdio if headers.is_empty() && bearer.is_none() => Ok(stdio),
            _ => Err(Failure::usage("--header and --bearer apply only to http(s):// targets")
                .hint("a stdio server gets its settings from its command line or environment")
                .into()),
        }
    }

    /// The command line of a stdio target (quoted where needed), or the URL.
    pub fn command_line(&self) -> String {
        match self {
            Target::Stdio { program, args } => {
                std::iter::once(program).chain(args).map(|w| quote_word(w)).collect::<Vec<_>>().join(" ")
            }
            Target::Http { url, .. } => url.clone(),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Stdio { .. } => write!(f, "stdio:{}", self.command_line()),
            Target::Http { url, .. } => f.write_str(url),
        }
    }
}

impl std::str::FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Target::parse(s)
    }
}

/// Quotes a word for display when a POSIX shell would read it otherwise, so the command
/// line can be pasted into one: in single quotes, where nothing is special (a `'` inside
/// is written `'\''`).
pub(crate) fn quote_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Splits a command line into words like a POSIX shell, without expansions: blanks
/// separate words; `'...'` is literal; `"..."` is literal except `\"`, `\\`, `\$` and
/// `` \` ``; a backslash outside quotes escapes the next character.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated single quote in {line:?}")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(format!("unterminated double quote in {line:?}")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(format!("unterminated double quote in {line:?}")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(c) => word.push(c),
                    None => word.push('\\'),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Connects to `target` with a configured client builder: spawns a stdio server (its
/// stderr captured, for error messages), or opens a Streamable HTTP connection. Every
/// failure comes back as a [`Failure`] with a hint.
/// `max_message` bounds every message read (`--max-message-size`); `limit` bounds the
/// whole handshake (for a stdio server, plus the 4 s its shutdown may take when it failed
/// the handshake; a server started here is shut down when it passes); `wire`, when given,
/// records the server's raw answers.
pub async fn connect(
    target: &Target,
    builder: ClientBuilder,
    max_message: usize,
    limit: Duration,
    wire: Option<&Recorder>,
) -> anyhow::Result<Client> {
    let started = std::time::Instant::now();
    // Set once a 401 has started the browser login (`saved_login`'s opener).
    let login_started = Arc::new(AtomicBool::new(false));
    // A handshake that ran out of time while a browser login was under way: the login is
    // what did not finish.
    let login_unfinished = || {
        login_started.load(Ordering::Acquire).then(|| {
            let waited = format!("{:.0} s", started.elapsed().as_secs_f64());
            Failure::connect(format!("the browser login for {target} did not finish within {waited}"))
                .hint("open the URL printed above and authorize, or log in first with `mcpwire login URL`; raise --timeout to wait longer")
        })
    };
    let silent = || {
        if let Some(failure) = login_unfinished() {
            return failure;
        }
        let waited = format!("{:.0} s", started.elapsed().as_secs_f64());
        let hint = match target {
            Target::Stdio { .. } => "the server may still be starting, or may not speak MCP on stdout; raise --timeout, or run it alone to see what it prints",
            Target::Http { .. } => "the server may still be starting, or may not speak MCP at this URL; raise --timeout",
        };
        Failure::connect(format!("{target} did not answer the handshake within {waited}")).hint(hint)
    };
    match target {
        Target::Stdio { program, args } => {
            // The server's stderr is kept: a server that dies during the handshake is
            // reported with its exit status and the tail of what it printed. A 2026 server
            // that dies later is started again (`ClientOptions::max_restarts`); `close`
            // shuts it down. A failed handshake shuts the server down before its error
            // comes back (up to the close and `SIGTERM` waits, 2 s each): `limit` is
            // stretched by that, so that the handshake's own timeout, which names the
            // request that went unanswered, is what the user sees.
            let process =
                ChildProcess::new(program).args(args).stderr(StderrMode::Capture).max_line_bytes(max_message);
            let connecting: Pin<Box<dyn Future<Output = Result<Client, ConnectError>> + Send>> = match wire {
                Some(wire) => {
                    let wire = wire.clone();
                    Box::pin(builder.spawn_through(process, move |connection| Tap::new(connection, wire)))
                }
                None => Box::pin(builder.spawn(process)),
            };
            match tokio::time::timeout(limit + Duration::from_secs(4), connecting).await {
                Ok(connected) => connected.map_err(|e| connect_failure(target, e).into()),
                Err(_) => Err(silent().into()),
            }
        }
        Target::Http { url, headers, bearer } => {
            use mcpwire::transport::http_client::HttpClientTransport;
            let invalid = |e: &dyn std::fmt::Display| {
                Failure::usage(format!("{e}")).hint("a target URL looks like http://127.0.0.1:8080/mcp")
            };
            let mut transport =
                HttpClientTransport::new(url).map_err(|e| invalid(&e))?.max_message_bytes(max_message);
            for (name, value) in headers {
                transport = transport.header(name, value).map_err(|e| invalid(&e))?;
            }
            match bearer {
                Some(token) => transport = transport.bearer_token(token).map_err(|e| invalid(&e))?,
                // Tokens from `mcpwire login` (refreshed as needed); a 401 without them
                // starts the browser login here.
                None => {
                    if let Some(oauth) = saved_login(login_started.clone()) {
                        transport = transport.oauth(oauth);
                    }
                }
            }
            let connecting = tapped(builder, transport, wire);
            match tokio::time::timeout(limit, connecting).await {
                Ok(connected) => connected.map_err(|e| match (&e, login_unfinished()) {
                    (ConnectError::Handshake(RequestError::Timeout { .. }), Some(failure)) => failure.into(),
                    _ => connect_failure(target, e).into(),
                }),
                Err(_) => Err(silent().into()),
            }
        }
    }
}

/// The client's connection over `transport`, through a [`Tap`] when `wire` is given.
fn tapped(
    builder: ClientBuilder,
    transport: impl Transport,
    wire: Option<&Recorder>,
) -> Pin<Box<dyn Future<Output = Result<Client, ConnectError>> + Send>> {
    match wire {
        Some(wire) => Box::pin(builder.connect(Tap::new(transport, wire.clone()))),
        None => Box::pin(builder.connect(transport)),
    }
}

/// An OAuth client over the token file `mcpwire login` writes, with the loopback
/// redirect for a login a 401 asks for (which sets `started`); `None` without a home
/// directory.
fn saved_login(started: Arc<AtomicBool>) -> Option<mcpwire::auth::OAuthClient> {
    use mcpwire::auth::{print_and_open, FileTokenStore, LoopbackRedirect, OAuthClient, OAuthConfig};
    let path = FileTokenStore::default_path()?;
    let redirect = LoopbackRedirect::bind().ok()?.with_opener(move |url| {
        started.store(true, Ordering::Release);
        print_and_open(url);
    });
    Some(OAuthClient::new(OAuthConfig {
        redirect_uri: redirect.redirect_uri().to_owned(),
        client_name: "mcpwire".into(),
        store: std::sync::Arc::new(FileTokenStore::new(path)),
        authorizer: std::sync::Arc::new(redirect),
        ..OAuthConfig::default()
    }))
}

/// Closes a client from [`connect`]; a server process it started is shut down (stdin
/// closed, then `SIGTERM`, then `SIGKILL`, as the spec says) before this returns.
pub async fn close(client: &Client) {
    client.close().await;
}

/// The URL a command that could not be found was meant to be: `http:/HOST/..`,
/// `https//HOST/..` (a slip in `://`), or `HOST:PORT[/PATH]` (no scheme at all).
fn meant_url(program: &str) -> Option<String> {
    let lower = program.to_ascii_lowercase();
    for scheme in ["https", "http"] {
        if let Some(rest) = lower.strip_prefix(scheme).and_then(|r| r.strip_prefix([':', '/'])) {
            let rest = rest.trim_start_matches([':', '/']);
            let host = &program[program.len() - rest.len()..];
            return (!host.is_empty()).then(|| format!("{scheme}://{host}"));
        }
    }
    let (host, after) = program.split_once(':')?;
    let port = after.split('/').next().unwrap_or("");
    let plain_host = !host.is_empty() && !host.contains('/');
    let is_port = !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
    (plain_host && is_port).then(|| format!("http://{program}"))
}

/// Turns a connect error into a one-line failure with a hint.
pub fn connect_failure(target: &Target, error: ConnectError) -> Failure {
    let program = match target {
        Target::Stdio { program, .. } => program.as_str(),
        Target::Http { url, .. } => url.as_str(),
    };
    match error {
        // A path to a file that is there: what runs it is missing (the library says so).
        ConnectError::Spawn(e) if e.kind() == ErrorKind::NotFound && names_a_file(program) => {
            Failure::connect(format!("cannot start the server: {e}"))
                .hint("check the interpreter on the script's first line (#!): is it installed there?")
        }
        ConnectError::Spawn(e) if e.kind() == ErrorKind::NotFound => {
            let failure =
                Failure::connect(format!("server not found: cannot run {program:?}: no such command"));
            match meant_url(program) {
                Some(url) => {
                    failure.hint(format!("did you mean {url}? An HTTP target is a whole http(s):// URL"))
                }
                None => failure.hint(
                    "check the command's spelling, or give its full path: stdio:'/path/to/server ARGS'",
                ),
            }
        }
        ConnectError::Spawn(e) if e.kind() == ErrorKind::PermissionDenied => {
            Failure::connect(format!("cannot run {program:?}: permission denied"))
                .hint("is it an executable file? (chmod +x, or run it through its interpreter)")
        }
        ConnectError::Spawn(e) => Failure::connect(format!("cannot start the server: {e}"))
            .hint("check the command line of the stdio target"),
        ConnectError::Handshake(RequestError::ConnectionClosed { reason }) => {
            let (what, tail) = crate::errors::split_reason(reason.as_deref());
            let message = match target {
                Target::Stdio { .. } => format!("the server exited during the handshake: {what}"),
                Target::Http { .. } => format!("the connection closed during the handshake: {what}"),
            };
            Failure::connect(message)
                .details(tail)
                .hint(format!("run the command on its own (`{}`) to see why it stops", target.command_line()))
        }
        ConnectError::Handshake(RequestError::Timeout { timeout, .. }) => Failure::connect(format!(
            "the server did not answer the handshake within {} s",
            timeout.as_secs_f64()
        ))
        .hint(match target {
            Target::Stdio { .. } => {
                "is it an MCP server that speaks JSON-RPC on stdout? If it starts slowly, raise --timeout"
            }
            Target::Http { .. } => {
                "is there an MCP endpoint at this URL? If it answers slowly, raise --timeout"
            }
        }),
        // The HTTP transport's own failure: the connection, not the server, said no.
        ConnectError::Handshake(RequestError::Transport { reason }) if http_status(&reason).is_some() => {
            let (status, body) = http_status(&reason).unwrap_or_default();
            // A 401 or 403 that reaches here refused the credentials given (a token with
            // --bearer or a header): no login was tried.
            if status.starts_with("HTTP 401") || status.starts_with("HTTP 403") {
                return Failure::connect(format!("{program} refused access: {status}{body}")).hint(format!(
                    "check the token given with --bearer or --header, or log in with `mcpwire login {program}`"
                ));
            }
            Failure::connect(format!("{program} answered {status}, not an MCP endpoint's answer{body}"))
                .hint("check the URL: the path of an MCP endpoint is often /mcp")
        }
        // The HTTP request itself failed: nothing answered.
        ConnectError::Handshake(RequestError::Transport { reason })
            if matches!(target, Target::Http { .. }) && reason.starts_with("HTTP request failed") =>
        {
            let lower = reason.to_ascii_lowercase();
            let refused = lower.contains("refused");
            let why = if refused { "connection refused".to_owned() } else { reason.clone() };
            // rustls's words for a TLS handshake answered by something that is not TLS.
            let plain_http = program.starts_with("https://")
                && (lower.contains("corrupt message") || lower.contains("invalidcontenttype"));
            let hint = if plain_http {
                format!(
                    "the server answered without TLS: is it plain HTTP? Try {}",
                    program.replacen("https://", "http://", 1)
                )
            } else {
                crate::errors::NOT_LISTENING.to_owned()
            };
            Failure::connect(format!("cannot reach {program}: {why}")).hint(hint)
        }
        // The server wants authorization, and getting it failed (no metadata, no
        // registration, a refusal...).
        ConnectError::Handshake(RequestError::Transport { reason })
            if reason.starts_with("authorization") =>
        {
            Failure::connect(format!("{program} requires authorization, which failed: {reason}")).hint(
                format!(
                    "log in first with `mcpwire login {program}`, or give a token with --bearer TOKEN \
                 (or --header 'Authorization: ...')"
                ),
            )
        }
        // Something answered, but not in a form that can be read as MCP.
        ConnectError::Handshake(RequestError::Transport { reason }) => {
            Failure::protocol(format!("{program} answered the handshake with something unreadable: {reason}"))
                .hint("the server's answer is not a well-formed MCP message; -v shows the exchange")
        }
        ConnectError::Handshake(RequestError::Peer(e)) => {
            let failure = Failure::protocol(format!(
                "the server rejected the handshake: {} (code {})",
                e.message, e.code
            ));
            let version_trouble = e.code == mcpwire::protocol::codes::UNSUPPORTED_PROTOCOL_VERSION
                || e.message.to_ascii_lowercase().contains("version");
            match target {
                Target::Http { .. } if e.message.starts_with("Host not allowed") => failure.hint(
                    "the server answers only to the host names it was set up with (a local server: \
                     localhost or 127.0.0.1); reach it by one of those, or have it accept this one \
                     (an mcpwire server: HttpSettings::hosts)",
                ),
                Target::Http { .. } if !version_trouble => {
                    failure.hint("is the URL an MCP endpoint? Check its path (often /mcp)")
                }
                _ => failure.hint("pin another protocol version with --protocol-version"),
            }
        }
        ConnectError::Handshake(other) => {
            let (message, hint) = describe_request_error("the handshake", &other);
            Failure::protocol(message).hint(hint)
        }
        ConnectError::NoSharedVersion { supported } => Failure::protocol(format!(
            "protocol version mismatch: the server supports {}, this client speaks {}",
            if supported.is_empty() { "none we know".to_owned() } else { supported.join(", ") },
            known_versions()
        ))
        .hint("pin a version both sides speak with --protocol-version"),
        ConnectError::InvalidAnswer(e) => {
            Failure::protocol(format!("the server's handshake answer is invalid: {e}"))
                .hint("is the target an MCP server?")
        }
        e @ ConnectError::UnknownVersion { .. } => Failure::usage(e.to_string()),
    }
}

/// Whether `program` is a path (not a bare name looked up on `PATH`) to a file that is
/// there: a failure to find it then means what runs it is missing.
fn names_a_file(program: &str) -> bool {
    let path = std::path::Path::new(program);
    path.components().nth(1).is_some() && path.is_file()
}

/// Every protocol version this client speaks, comma-separated.
pub fn known_versions() -> String {
    mcpwire::protocol::ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::errors::split_reason;

    fn stdio(program: &str, args: &[&str]) -> Target {
        Target::Stdio { program: program.into(), args: args.iter().map(|s| s.to_string()).collect() }
    }

    #[test]
    fn names_the_url_a_slip_was_meant_to_be() {
        assert_eq!(meant_url("http:/h:1/mcp").as_deref(), Some("http://h:1/mcp"));
        assert_eq!(meant_url("HTTPS//h/mcp").as_deref(), Some("https://h/mcp"));
        assert_eq!(meant_url("http:h").as_deref(), Some("http://h"));
        assert_eq!(meant_url("localhost:8080/mcp").as_deref(), Some("http://localhost:8080/mcp"));
        for command in ["http-server", "httpd", "http:", "server", "./a:1", "host:port", "a:123456"] {
            assert_eq!(meant_url(command), None, "{command}");
        }
    }

    #[test]
    fn parses_targets() {
        assert_eq!(Target::parse("stdio:server --flag").unwrap(), stdio("server", &["--flag"]));
        assert_eq!(Target::parse("stdio:'my server' a\\ b").unwrap(), stdio("my server", &["a b"]));
        assert_eq!(Target::parse("python3 -m srv").unwrap(), stdio("python3", &["-m", "srv"]));
        assert!(matches!(Target::parse("http://127.0.0.1:1/mcp").unwrap(), Target::Http { .. }));
        assert!(matches!(Target::parse("HTTPS://example.test/mcp").unwrap(), Target::Http { .. }));
        assert!(Target::parse("stdio:").is_err());
        assert!(Target::parse("  ").is_err());
        assert!(Target::parse("ws://x/mcp").is_err());
        assert!(Target::parse("stdio:'unterminated").is_err());
    }

    #[test]
    fn splits_like_a_shell() {
        let words = split_words(r#"a "b c" 'd "e"' f\ g "h\"i" '' x"y"z"#).unwrap();
        assert_eq!(words, ["a", "b c", "d \"e\"", "f g", "h\"i", "", "xyz"]);
        assert_eq!(split_words("  ").unwrap(), Vec::<String>::new());
    }

    #[test]
    fn displays_round_trip() {
        let t = stdio("my server", &["--x", "a'b"]);
        let shown = t.to_string();
        assert_eq!(Target::parse(&shown[..]).unwrap(), t);
    }

    #[test]
    fn command_lines_paste_into_a_shell() {
        assert_eq!(stdio("python3", &["-c", "print(1)"]).command_line(), "python3 -c 'print(1)'");
        assert_eq!(stdio("sh", &["-c", "echo $HOME; ls *"]).command_line(), "sh -c 'echo $HOME; ls *'");
        assert_eq!(
            stdio("/srv/bin", &["--port=8080", "it's"]).command_line(),
            "/srv/bin --port=8080 'it'\\''s'"
        );
        for t in [stdio("python3", &["-c", "print(1)"]), stdio("a b", &["", "x'y\"z", "a|b&c>d"])] {
            assert_eq!(Target::parse(&t.command_line()).unwrap(), t);
        }
    }

    #[test]
    fn http_options_only_for_http() {
        let t = Target::parse("http://127.0.0.1:1/mcp").unwrap();
        let t = t.with_http_options(&["X-Key: v".into()], Some("tok")).unwrap();
        assert_eq!(
            t,
            Target::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: vec![("X-Key".into(), "v".into())],
                bearer: Some("tok".into())
            }
        );
        assert!(stdio("s", &[]).with_http_options(&["X: y".into()], None).is_err());
        assert!(Target::parse("http://h/mcp").unwrap().with_http_options(&["nocolon".into()], None).is_err());
    }

    /// A script whose `#!` interpreter is missing is there: the failure says what is
    /// missing instead of calling the script no such command.
    #[cfg(unix)]
    #[test]
    fn a_script_whose_interpreter_is_missing_is_not_called_missing() {
        use std::os::unix::fs::PermissionsExt;
        /// Removed on drop, a failed assertion included.
        struct Scratch(std::path::PathBuf);
        impl Drop for Scratch {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
        let dir =
            Scratch(std::env::temp_dir().join(format!("mcpwire-cli-interpreter-{}", std::process::id())));
        std::fs::create_dir_all(&dir.0).unwrap();
        let script = dir.0.join("server.sh");
        std::fs::write(&script, "#!/mcpwire/no/such/interpreter\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let program = script.to_str().unwrap().to_owned();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let spawned = runtime.block_on(async { ChildProcess::new(&program).spawn().map(drop) });
        let failure = connect_failure(&stdio(&program, &[]), ConnectError::Spawn(spawned.unwrap_err()));
        assert!(!failure.message.contains("no such command"), "{}", failure.message);
        assert!(failure.message.contains("interpreter"), "{}", failure.message);
        assert!(failure.hint.unwrap().contains("#!"));
    }

    #[test]
    fn splits_close_reasons() {
        let (what, tail) =
            split_reason(Some("the server process exited (exit status: 1); its stderr ended with: a\nb"));
        assert_eq!(what, "the server process exited (exit status: 1)");
        assert_eq!(tail, ["stderr: a", "stderr: b"]);
    }
}
