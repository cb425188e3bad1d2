//! Failures the user sees: one line saying what went wrong, optional detail lines (a
//! server's stderr tail), and a hint. Each kind has its exit code.

use std::fmt;

use mcpwire::protocol::codes;
use mcpwire::RequestError;

/// Exit status: success.
pub const EXIT_OK: i32 = 0;
/// Exit status: the tool ran and reported an error (`isError`).
pub const EXIT_TOOL_ERROR: i32 = 1;
/// Exit status: a usage, connection or protocol error.
pub const EXIT_FAILURE: i32 = 2;
/// Exit status: interrupted by Ctrl-C (128 + SIGINT); a command stopped by another
/// signal exits 128 + its number (see [`crate::interrupt::exit_status`]).
pub const EXIT_INTERRUPTED: i32 = 130;

/// What kind of failure (they share exit code 2 today; the kind shapes the message).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The command line is wrong (bad arguments, bad target).
    Usage,
    /// The server could not be reached or started.
    Connect,
    /// The server answered with an error or broke the protocol.
    Protocol,
}

/// A failure with a hint, for the user.
#[derive(Debug)]
pub struct Failure {
    /// The kind.
    pub kind: Kind,
    /// One line: what went wrong.
    pub message: String,
    /// Extra lines (for example the tail of a server's stderr).
    pub details: Vec<String>,
    /// What to try.
    pub hint: Option<String>,
}

impl Failure {
    fn new(kind: Kind, message: impl Into<String>) -> Self {
        Failure { kind, message: message.into(), details: Vec::new(), hint: None }
    }

    /// A usage error.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure::new(Kind::Usage, message)
    }

    /// A connection error.
    pub fn connect(message: impl Into<String>) -> Self {
        Failure::new(Kind::Connect, message)
    }

    /// A protocol error.
    pub fn protocol(message: impl Into<String>) -> Self {
        Failure::new(Kind::Protocol, message)
    }

    /// Adds a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Adds detail lines.
    pub fn details(mut self, details: Vec<String>) -> Self {
        self.details = details;
        self
    }

    /// The exit code of this failure.
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            Kind::Usage | Kind::Connect | Kind::Protocol => EXIT_FAILURE,
        }
    }

    /// A failed request, described for the user.
    pub fn request(what: &str, error: &RequestError) -> Self {
        Self::request_sharing_roots(what, error, false)
    }

    /// [`Failure::request`] of a command that shared roots (`--root`) when `roots`: a
    /// server that names roots as what it needs is not told to give them again.
    pub fn request_sharing_roots(what: &str, error: &RequestError, roots: bool) -> Self {
        let (message, hint) = describe(what, error, roots);
        let kind = match error {
            RequestError::ConnectionClosed { .. } | RequestError::NotRunning => Kind::Connect,
            _ => Kind::Protocol,
        };
        let details = match error {
            RequestError::ConnectionClosed { reason } => split_reason(reason.as_deref()).1,
            _ => Vec::new(),
        };
        Failure { kind, message, details, hint: Some(hint) }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// How `mcpwire complete` names its request to [`describe_request_error`]
/// (`completing "ARG"`), by which its errors get hints of their own.
pub const COMPLETING: &str = "completing ";

/// The requests a server may send its client that this command line does not serve.
const CLIENT_METHODS: [&str; 2] = ["sampling/createMessage", "roots/list"];

/// The client capabilities an error's `data.requiredCapabilities` names (`-32021`, and
/// the 2025 `-32601` that stands for it), as `sampling, roots`.
fn required_capabilities(e: &mcpwire::protocol::ErrorObject) -> Option<String> {
    let required = e.data.as_ref()?.get("requiredCapabilities")?.as_object()?;
    let names: Vec<&str> = required.keys().map(String::as_str).collect();
    Some(if names.is_empty() { "(unnamed)".to_owned() } else { names.join(", ") })
}

/// Whether every client capability an error's `data.requiredCapabilities` names is one
/// this command line declared: form elicitation (not URL elicitation), always; roots,
/// when `roots` (it was given `--root`). A server that names one anyway could not put
/// its question to this client for another reason (a 2025 server without sessions has
/// no way to send it).
fn declared_here(e: &mcpwire::protocol::ErrorObject, roots: bool) -> bool {
    let Some(required) = e.data.as_ref().and_then(|d| d.get("requiredCapabilities")?.as_object()) else {
        return false;
    };
    !required.is_empty()
        && required.iter().all(|(name, modes)| match name.as_str() {
            "elicitation" => modes.get("url").is_none(),
            "roots" => roots,
            _ => false,
        })
}

/// Describes a failed request (`what`: "tools/call", "the handshake", ...) as a message
/// and a hint.
pub fn describe_request_error(what: &str, error: &RequestError) -> (String, String) {
    describe(what, error, false)
}

/// [`describe_request_error`] of a request whose command shared roots when `roots`.
fn describe(what: &str, error: &RequestError, roots: bool) -> (String, String) {
    match error {
        RequestError::Peer(e) => {
            let asked_us = CLIENT_METHODS.iter().copied().find(|m| e.message.contains(m));
            let hint = match (e.code, required_capabilities(e), asked_us) {
                // 2025 has no code of its own for a missing client capability.
                (codes::METHOD_NOT_FOUND | codes::MISSING_REQUIRED_CLIENT_CAPABILITY, Some(names), _)
                    if declared_here(e, roots) =>
                {
                    format!("this command line offers {names}, but the server could not ask it: its message says why")
                }
                (codes::METHOD_NOT_FOUND | codes::MISSING_REQUIRED_CLIENT_CAPABILITY, Some(names), _)
                    if names == "roots" =>
                {
                    "the server needs roots: give --root PATH (repeatable) to share a directory".into()
                }
                (codes::METHOD_NOT_FOUND | codes::MISSING_REQUIRED_CLIENT_CAPABILITY, Some(names), _) => {
                    format!("the server needs a client capability this command line does not offer: {names}")
                }
                // The server passed on this command line's own refusal of its request.
                (codes::METHOD_NOT_FOUND, None, Some(method)) => format!(
                    "the server asked this command line for {method}, which it does not offer (it has no model \
                     for sampling, and shares roots only when given --root PATH)"
                ),
                (codes::METHOD_NOT_FOUND, ..) => {
                    "the server does not offer this; `mcpwire info TARGET` shows what it does".into()
                }
                (codes::INVALID_PARAMS, ..) if what.contains(" task ") => {
                    "check the task id: `mcpwire tasks list TARGET` lists the server's tasks".into()
                }
                // Completion refers to prompts and resource templates, never to tools.
                (codes::INVALID_PARAMS, ..) if what.starts_with(COMPLETING) => {
                    "check the reference and argument against `mcpwire prompts|templates TARGET`".into()
                }
                (codes::INVALID_PARAMS, ..) => "check the names and arguments against `mcpwire tools|prompts TARGET`".into(),
                (codes::MISSING_REQUIRED_CLIENT_CAPABILITY, ..) => {
                    "the server needs a client capability this command line does not offer".into()
                }
                (codes::UNSUPPORTED_PROTOCOL_VERSION, ..) => {
                    "pin a version the server supports with --protocol-version".into()
                }
                // What a 2025-only server answers a request outside a session (a 2026
                // request, which has none), as JSON-RPC's generic server error.
                (-32000, ..) if e.message.contains("initialized") || e.message.contains("session") => {
                    "the server wants a 2025 session; if it speaks only 2025 revisions, try --protocol-version \
                     2025-11-25"
                        .into()
                }
                _ => "the server refused the request; its message says why".into(),
            };
            (format!("{what} failed: the server answered: {} (code {})", shown(&e.message), e.code), hint)
        }
        RequestError::Timeout { timeout, .. } => (
            format!("{what} failed: no answer within {} s", timeout.as_secs_f64()),
            "raise the limit with --timeout SECONDS".to_owned(),
        ),
        RequestError::NotSent { waited, .. } => (
            format!(
                "{what} failed: the request was never sent: the server read nothing more of what this client wrote within {} s",
                waited.as_secs_f64()
            ),
            "the server stopped reading its input (stopped, or stuck); check that it is still running".to_owned(),
        ),
        RequestError::ConnectionClosed { reason } => {
            let (why, _) = split_reason(reason.as_deref());
            (
                format!("{what} failed: the connection closed: {why}"),
                "the server stopped; run it on its own to see why".to_owned(),
            )
        }
        RequestError::NotRunning => {
            (format!("{what} failed: the connection is not running"), "try again".to_owned())
        }
        RequestError::Transport { reason } if reason.contains("message size limit") => (
            format!("{what} failed: {reason}"),
            "raise the limit with --max-message-size SIZE (for example --max-message-size 64M)".to_owned(),
        ),
        RequestError::Transport { reason } if refused_authorization(reason) => {
            (format!("{what} failed: {}", shown(reason)), SIGN_IN.to_owned())
        }
        RequestError::Transport { reason } if http_status(reason).is_some() => {
            let (status, body) = http_status(reason).unwrap_or_default();
            (
                format!("{what} failed: the server answered {status}{body}"),
                "the server refused the request over HTTP; if it speaks only 2025 revisions, try --protocol-version 2025-11-25".to_owned(),
            )
        }
        // The HTTP library could not connect: nothing listens there (a 2026 client that
        // was pinned to its version made no handshake that would have found it out).
        RequestError::Transport { reason }
            if reason.starts_with("HTTP request failed") && reason.contains("(Connect)") =>
        {
            let why = if reason.to_ascii_lowercase().contains("refused") {
                "connection refused"
            } else {
                reason.as_str()
            };
            (format!("{what} failed: cannot reach the server: {why}"), NOT_LISTENING.to_owned())
        }
        // The answer came but could not be read: the server broke the protocol.
        RequestError::Transport { reason }
            if ["the server's answer ", "the peer's answer "].iter().any(|p| reason.starts_with(p)) =>
        {
            (
                format!("{what} failed: {reason}"),
                "the server broke the protocol: its answer is not JSON-RPC this client can read".to_owned(),
            )
        }
        RequestError::Transport { reason } => (
            format!("{what} failed: {reason}"),
            "the request never got the server's answer; check that the server is still reachable".to_owned(),
        ),
        RequestError::InvalidResult(e) => (
            format!("{what} failed: the server's answer is invalid: {e}"),
            "the server broke the protocol; use --json on the list commands or -v to see more".to_owned(),
        ),
        RequestError::Protocol(e) => (
            format!("{what} failed: protocol violation: {e}"),
            "the server broke the protocol, or this command cannot answer what it asked".to_owned(),
        ),
        other => (format!("{what} failed: {other}"), "run again with -v for details".to_owned()),
    }
}

/// The hint for an HTTP endpoint where nothing answered the connection.
pub const NOT_LISTENING: &str =
    "is the server running and listening there? Check the host, the port and the path (often /mcp)";

/// The hint for a request refused for want of authorization.
const SIGN_IN: &str = "the server wants authorization: `mcpwire login URL` signs in with OAuth (where the \
                       server offers it), or give a token with --bearer TOKEN";

/// Whether a transport failure is a refused authorization: an OAuth sign-in that failed,
/// or a `401`/`403` the client had no way to answer.
fn refused_authorization(reason: &str) -> bool {
    reason.starts_with("authorization")
        || http_status(reason)
            .is_some_and(|(status, _)| status.starts_with("HTTP 401") || status.starts_with("HTTP 403"))
}

/// The most characters of a server's text shown in one failure message.
const SHOWN_CHARS: usize = 2000;

/// `text` cut to [`SHOWN_CHARS`], saying how much was left out: a server's error message
/// may be megabytes, which a terminal should not get whole.
pub fn shown(text: &str) -> String {
    match crate::ui::split_after_chars(text, SHOWN_CHARS) {
        None => text.to_owned(),
        Some((head, rest)) => format!("{head}… ({} more characters)", rest.chars().count()),
    }
}

/// Splits a transport's close reason into its first part and the stderr tail (last
/// few lines, each prefixed `stderr: `).
pub fn split_reason(reason: Option<&str>) -> (String, Vec<String>) {
    let reason = reason.unwrap_or("the connection closed");
    let (what, tail) = match reason.split_once("; its stderr ended with: ") {
        Some((what, tail)) => (what, tail),
        None => (reason, ""),
    };
    let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(6)..].iter().map(|l| format!("stderr: {l}")).collect();
    (what.to_owned(), tail)
}

/// An HTTP error status in a transport failure (`HTTP 404 Not Found: BODY`): the status,
/// and `: ` with the body's first line when it is short text (an HTML page is left out).
pub fn http_status(reason: &str) -> Option<(String, String)> {
    let rest = reason.strip_prefix("HTTP ").filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))?;
    let (status, body) = rest.split_once(':').unwrap_or((rest, ""));
    let body = body.trim();
    let first = body.lines().next().unwrap_or("").trim();
    let shown = if first.is_empty() || body.starts_with('<') || first.chars().count() > 200 {
        String::new()
    } else {
        format!(": {first}")
    };
    Some((format!("HTTP {}", status.trim()), shown))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_an_http_status_and_a_short_body() {
        assert_eq!(
            http_status("HTTP 404 Not Found: no such path"),
            Some(("HTTP 404 Not Found".into(), ": no such path".into()))
        );
        assert_eq!(
            http_status("HTTP 502 Bad Gateway: <html><body>x</body></html>"),
            Some(("HTTP 502 Bad Gateway".into(), String::new()))
        );
        assert_eq!(http_status("HTTP 401"), Some(("HTTP 401".into(), String::new())));
        assert_eq!(http_status("HTTP/1.1 parse error"), None);
        assert_eq!(http_status("connection refused"), None);
    }

    fn hint(code: i64, message: &str, data: Option<serde_json::Value>) -> String {
        let mut error = mcpwire::protocol::ErrorObject::new(code, message);
        error.data = data;
        describe_request_error("tools/call", &RequestError::Peer(error)).1
    }

    /// A request that never left is not reported as a server that did not answer: the
    /// hint points at a server that stopped reading, not at `--timeout`.
    #[test]
    fn a_request_never_sent_is_told_apart_from_a_timeout() {
        let waited = std::time::Duration::from_secs(30);
        let unsent = RequestError::NotSent { method: "tools/list".into(), waited };
        let (message, hint) = describe_request_error("listing tools", &unsent);
        assert_eq!(
            message,
            "listing tools failed: the request was never sent: the server read nothing more of what this client wrote within 30 s"
        );
        assert!(hint.contains("stopped reading") && !hint.contains("--timeout"), "{hint}");
        let late = RequestError::Timeout { method: "tools/list".into(), timeout: waited };
        assert_eq!(
            describe_request_error("listing tools", &late).1,
            "raise the limit with --timeout SECONDS"
        );
    }

    #[test]
    fn a_server_that_wants_a_2025_session_gets_the_version_hint() {
        let refused = hint(-32000, "Bad Request: Server not initialized", None);
        assert!(refused.contains("--protocol-version 2025-11-25"), "{refused}");
        assert_eq!(
            hint(-32000, "Connection closed", None),
            "the server refused the request; its message says why"
        );
    }

    #[test]
    fn a_missing_client_capability_is_named_and_our_own_refusal_is_not_blamed_on_the_server() {
        let roots = serde_json::json!({ "requiredCapabilities": { "roots": {} } });
        assert_eq!(
            hint(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, "needs roots", Some(roots.clone())),
            "the server needs roots: give --root PATH (repeatable) to share a directory"
        );
        assert_eq!(
            hint(codes::METHOD_NOT_FOUND, "Method not found", Some(roots)),
            "the server needs roots: give --root PATH (repeatable) to share a directory"
        );
        let sampling = serde_json::json!({ "requiredCapabilities": { "sampling": {} } });
        assert_eq!(
            hint(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, "needs sampling", Some(sampling)),
            "the server needs a client capability this command line does not offer: sampling"
        );
        // A server that passes on this command line's `-32601` for its sampling request.
        let passed_on = hint(codes::METHOD_NOT_FOUND, "Method not found: sampling/createMessage", None);
        assert!(
            passed_on.starts_with("the server asked this command line for sampling/createMessage"),
            "{passed_on}"
        );
        assert_eq!(
            describe_request_error(
                "getting task t-9",
                &RequestError::Peer(mcpwire::protocol::ErrorObject::new(
                    codes::INVALID_PARAMS,
                    "no such task"
                ))
            )
            .1,
            "check the task id: `mcpwire tasks list TARGET` lists the server's tasks"
        );
        assert_eq!(
            hint(codes::METHOD_NOT_FOUND, "Method not found: tools/frob", None),
            "the server does not offer this; `mcpwire info TARGET` shows what it does"
        );
    }

    /// A server that cannot put its question to any client (a 2025 server without
    /// sessions) names the capability its question needs: this command line declares form
    /// elicitation, so the hint does not say it lacks it.
    #[test]
    fn a_capability_this_command_line_declares_is_not_said_to_be_missing() {
        let message =
            "Method not found: this request cannot ask the client anything (a server without sessions)";
        for elicitation in [serde_json::json!({ "form": {} }), serde_json::json!({})] {
            let data = serde_json::json!({ "requiredCapabilities": { "elicitation": elicitation } });
            let said = hint(codes::METHOD_NOT_FOUND, message, Some(data));
            assert!(!said.contains("does not offer"), "{said}");
            assert!(said.contains("could not ask") && said.contains("its message says why"), "{said}");
        }
        // Roots, when --root shared some: the hint does not ask for --root again.
        let roots = serde_json::json!({ "requiredCapabilities": { "roots": {} } });
        let error = |data: &serde_json::Value| {
            let mut error = mcpwire::protocol::ErrorObject::new(codes::METHOD_NOT_FOUND, message);
            error.data = Some(data.clone());
            RequestError::Peer(error)
        };
        let shared =
            Failure::request_sharing_roots("calling \"t\"", &error(&roots), true).hint.unwrap_or_default();
        assert!(!shared.contains("give --root") && shared.contains("could not ask"), "{shared}");
        let unshared =
            Failure::request_sharing_roots("calling \"t\"", &error(&roots), false).hint.unwrap_or_default();
        assert!(unshared.contains("give --root"), "{unshared}");
        // URL elicitation is not declared: that one is missing.
        let url = serde_json::json!({ "requiredCapabilities": { "elicitation": { "url": {} } } });
        assert_eq!(
            hint(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, "needs url elicitation", Some(url)),
            "the server needs a client capability this command line does not offer: elicitation"
        );
    }

    /// The hint for a transport failure with `reason`.
    fn transport_hint(reason: &str) -> String {
        describe_request_error("tools/list", &RequestError::Transport { reason: reason.into() }).1
    }

    /// An answer that came but could not be read is the server's protocol break, not a
    /// request that never reached it.
    #[test]
    fn an_answer_that_is_not_json_rpc_is_blamed_on_the_server_not_the_network() {
        for reason in [
            "the server's answer is not JSON-RPC: Parse error: expected value at line 1 column 39",
            "the peer's answer could not be taken in: Parse error: invalid UTF-8 at byte 53",
            "the server's answer did not carry this request's id",
        ] {
            let hint = transport_hint(reason);
            assert!(hint.starts_with("the server broke the protocol"), "{reason}: {hint}");
        }
    }

    /// A request the server refused for want of authorization (an OAuth sign-in that
    /// failed, or a bare 401/403) gets a hint about signing in, not about the network or
    /// protocol versions.
    #[test]
    fn a_refused_authorization_gets_the_sign_in_hint() {
        for reason in [
            "authorization failed: the server offers no authorization server",
            "HTTP 401 Unauthorized: missing token",
            "HTTP 403 Forbidden",
        ] {
            let hint = transport_hint(reason);
            assert!(hint.contains("mcpwire login") && hint.contains("--bearer"), "{reason}: {hint}");
        }
        let hint = transport_hint("HTTP 404 Not Found");
        assert!(!hint.contains("--bearer"), "{hint}");
    }

    /// A server's error message is shown cut to a screenful: a server may send megabytes.
    #[test]
    fn a_huge_error_message_from_the_server_is_cut() {
        let huge = "x".repeat(5_000_000);
        let error = mcpwire::protocol::ErrorObject::new(codes::INTERNAL_ERROR, huge);
        let (message, _) = describe_request_error("tools/call", &RequestError::Peer(error));
        assert!(message.len() < 3_000, "{} bytes", message.len());
        assert!(
            message.contains("more characters") && message.ends_with("(code -32603)"),
            "{}",
            &message[message.len() - 80..]
        );
        let (short, _) = describe_request_error(
            "tools/call",
            &RequestError::Peer(mcpwire::protocol::ErrorObject::new(codes::INTERNAL_ERROR, "boom")),
        );
        assert_eq!(short, "tools/call failed: the server answered: boom (code -32603)");
    }

    /// The cut keeps exactly the first characters (whole, even when multibyte) and counts
    /// the rest in characters.
    #[test]
    fn shown_cuts_at_a_character_count() {
        let exact = "é".repeat(SHOWN_CHARS);
        assert_eq!(shown(&exact), exact);
        let over = format!("{exact}ü€x");
        assert_eq!(shown(&over), format!("{exact}… (3 more characters)"));
        assert_eq!(shown(""), "");
    }
}
