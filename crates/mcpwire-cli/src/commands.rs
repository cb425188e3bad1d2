//! The client commands: info, the lists, call, prompt (`read` is `read.rs`).

use std::collections::BTreeMap;
use std::future::Future;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;

use mcpwire::client::{Client, ClientOptions, RequestOptions};
use mcpwire::protocol::logging::LoggingLevel;
use mcpwire::protocol::roots::{ListRootsResult, Root};
use mcpwire::protocol::{methods, Era, ProtocolVersion};
use serde_json::{json, Value};

use crate::args::{parse_pair, tool_arguments, Pair};
use crate::cli::{Call, Connect, GetPrompt, Interaction};
use crate::elicit::{self, Policy};
use crate::errors::{Failure, EXIT_INTERRUPTED, EXIT_OK, EXIT_TOOL_ERROR};
use crate::interrupt;
use crate::output::{self, Table};
use crate::suggest::closest;
use crate::target::{self, known_versions};
use crate::ui::Ui;
use crate::wire::{whole, Pick, Recorder};

/// What every client command shares: JSON or not, and the stderr UI.
pub struct Env {
    /// `--json`.
    pub json: bool,
    /// Progress, logs and notes.
    pub ui: Ui,
    /// `--max-message-size`, in bytes.
    pub max_message: usize,
    /// With `--json`: the server's raw answers, printed as they came.
    pub wire: Option<Recorder>,
}

impl Env {
    /// Prints a value as pretty JSON on stdout.
    pub(crate) fn print_json(&self, value: &Value) -> anyhow::Result<()> {
        let text = output::json_text(value)?;
        print_stdout(&format!("{text}\n"))
    }

    /// The recorder of the server's raw answers (an empty one without `--json`).
    pub(crate) fn wire(&self) -> Recorder {
        self.wire.clone().unwrap_or_default()
    }
}

/// Writes to stdout (on a terminal, with control characters made visible: see
/// [`crate::ui::visible`]); a closed pipe (`| head`) is not an error worth a message.
pub(crate) fn print_stdout(text: &str) -> anyhow::Result<()> {
    let text = match std::io::stdout().is_terminal() {
        true => crate::ui::visible(text),
        false => std::borrow::Cow::Borrowed(text),
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// The terminal width for tables, when stdout is a terminal.
fn table_width() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    Some(std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(100))
}

/// Checks `--protocol-version`.
pub fn pinned_version(text: &str) -> Result<ProtocolVersion, Failure> {
    let version = ProtocolVersion::parse(text.trim());
    if version.is_known() {
        Ok(version)
    } else {
        Err(Failure::usage(format!("unknown protocol version {text:?}"))
            .hint(format!("known versions: {}", known_versions())))
    }
}

/// Checks `--log-level`; `None` for `off`.
pub(crate) fn log_level(text: &str) -> Result<Option<LoggingLevel>, Failure> {
    if text.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    serde_json::from_value(Value::String(text.to_ascii_lowercase())).map(Some).map_err(|_| {
        Failure::usage(format!("unknown log level {text:?}"))
            .hint("use debug, info, notice, warning, error, critical, alert, emergency or off")
    })
}

/// How long a stdio server may take to answer the era probe. The SDK's 5 s default suits
/// HTTP, but a stdio server is still starting when the probe is sent (a Python server
/// takes seconds on a busy machine), and a probe answered after the fallback began
/// leaves a dual-era server in the 2026 era, refusing the `initialize` that follows.
const STDIO_PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// A duration option given in seconds, checked: positive and finite.
pub fn seconds_option(flag: &str, seconds: f64) -> Result<Duration, Failure> {
    if !(seconds.is_finite() && seconds > 0.0 && seconds < 1e9) {
        return Err(
            Failure::usage(format!("invalid {flag} {seconds}")).hint("give a positive number of seconds")
        );
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// The client options of `--timeout` (`stdio`: the target is a child process).
pub fn client_options(timeout: f64, stdio: bool) -> Result<ClientOptions, Failure> {
    let timeout = seconds_option("--timeout", timeout)?;
    let defaults = ClientOptions::default();
    Ok(ClientOptions {
        request_timeout: timeout,
        probe_timeout: if stdio { STDIO_PROBE_TIMEOUT } else { defaults.probe_timeout }.min(timeout),
        ..defaults
    })
}

/// Connects with the command line's options: logs and elicitation go through `ui`.
pub async fn connect(
    connect: &Connect,
    interaction: Option<&Interaction>,
    ui: &Ui,
    max_message: usize,
    wire: Option<&Recorder>,
) -> anyhow::Result<Client> {
    let target = connect.target.clone().with_http_options(&connect.headers, connect.bearer.as_deref())?;
    let options = client_options(connect.timeout, !matches!(target, target::Target::Http { .. }))?;
    let probe_timeout = options.probe_timeout;
    let mut builder = Client::builder("mcpwire", env!("CARGO_PKG_VERSION")).options(options);
    if let Some(version) = &connect.protocol_version {
        builder = builder.protocol_version(pinned_version(version)?);
    }
    let log_ui = ui.clone();
    // `--log-level` asks the server for that level and up, and is applied here too: a
    // server may send more than it was asked for (or ignore the request), and `off`
    // must show nothing.
    let shown: Option<Option<LoggingLevel>> = interaction.map(|i| log_level(&i.log_level)).transpose()?;
    builder = builder.on_log(move |params| {
        let wanted = match shown {
            None => true,
            Some(None) => false,
            Some(Some(least)) => params.level >= least,
        };
        if wanted {
            log_ui.log(&params);
        }
    });
    let policy = match interaction {
        Some(i) if i.no_input => Policy::Decline("--no-input"),
        _ if !std::io::stdin().is_terminal() => Policy::Decline("stdin is not a terminal"),
        Some(_) => Policy::Ask,
        None => Policy::Decline("this command takes no input"),
    };
    // Set once the server has asked for the roots (a permit kept until waited for).
    let mut roots_asked = None;
    if let Some(roots) = interaction.map(|i| roots(&i.roots)).transpose()?.filter(|r| !r.is_empty()) {
        let asked = Arc::new(tokio::sync::Notify::new());
        roots_asked = Some(asked.clone());
        builder = builder.on_roots(move || {
            let roots = roots.clone();
            asked.notify_one();
            async move { Ok(ListRootsResult { roots, meta: None }) }
        });
    }
    let elicit_ui = ui.clone();
    let turn = Arc::new(tokio::sync::Mutex::new(()));
    let server: Arc<str> = target.to_string().into();
    builder = builder.on_elicitation(move |params| {
        elicit::answer(params, policy, elicit_ui.clone(), turn.clone(), server.clone())
    });
    tracing::debug!(%target, "connecting");
    // --timeout bounds the whole handshake, not each of its requests; an era probe the
    // server leaves unanswered has its own wait on top, so that the `initialize` it falls
    // back to still gets the whole --timeout.
    // (A second more, so that the handshake's own timeout, which says which request went
    // unanswered, fires first.)
    let probe = if connect.protocol_version.is_some() { Duration::ZERO } else { probe_timeout };
    let limit = Duration::from_secs_f64(connect.timeout) + probe + Duration::from_secs(1);
    let client = target::connect(&target, builder, max_message, limit, wire).await?;
    if let Some(asked) = roots_asked {
        await_roots_taken_up(&client, &asked).await;
    }
    Ok(client)
}

/// How long a 2025-era server given `--root` has to ask for the roots after the handshake.
const ROOTS_ASK_WAIT: Duration = Duration::from_secs(1);
/// How long a server that asked for the roots gets to take them up before the first request.
const ROOTS_TAKE_UP: Duration = Duration::from_millis(250);

/// With `--root`, a 2025-era server asks for the roots after the handshake, and may serve
/// a request that comes before its answer is taken up without them: server-filesystem,
/// started without directories, asks in the background and refused a `mcpwire call` made
/// at once ("path outside allowed directories"). So the first request waits until the
/// server has asked ([`ROOTS_ASK_WAIT`] at most) and then [`ROOTS_TAKE_UP`]. A 2026
/// server asks within the request that needs them: nothing to wait for.
async fn await_roots_taken_up(client: &Client, asked: &tokio::sync::Notify) {
    if client.era() != Era::Stateful {
        return;
    }
    if tokio::time::timeout(ROOTS_ASK_WAIT, asked.notified()).await.is_ok() {
        tokio::time::sleep(ROOTS_TAKE_UP).await;
    } else {
        tracing::debug!("the server did not ask for the roots within {ROOTS_ASK_WAIT:?}");
    }
}

/// The roots of `--root`: each path made absolute (it must exist) as a `file://` URI,
/// named after its last component.
fn roots(paths: &[std::path::PathBuf]) -> Result<Vec<Root>, Failure> {
    paths
        .iter()
        .map(|path| {
            let absolute = std::fs::canonicalize(path).map_err(|e| {
                Failure::usage(format!("--root {}: {e}", path.display())).hint("give a directory that exists")
            })?;
            let Some(text) = absolute.to_str() else {
                return Err(Failure::usage(format!("--root {}: the path is not UTF-8", path.display())));
            };
            let name = absolute.file_name().and_then(|n| n.to_str()).map(str::to_owned);
            Ok(Root { uri: file_uri(text), name, meta: None })
        })
        .collect()
}

/// The `file://` URI of an absolute path: bytes other than unreserved characters and
/// `/` percent-encoded (RFC 3986, RFC 8089).
fn file_uri(path: &str) -> String {
    let mut uri = String::from("file://");
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(byte as char)
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

/// Runs `body` on a connected client until it ends or Ctrl-C: then the body (and the
/// request it waits for) is dropped, which sends `notifications/cancelled`; the
/// connection is closed and the exit code is 130.
pub async fn run_connected(
    client: Client,
    ui: &Ui,
    body: impl Future<Output = anyhow::Result<i32>>,
) -> anyhow::Result<i32> {
    let outcome = tokio::select! {
        result = body => Some(result),
        _ = interrupt::interrupted(1) => None,
    };
    match outcome {
        Some(result) => {
            target::close(&client).await;
            result
        }
        None => {
            ui.clear();
            ui.note("mcpwire: interrupted; cancelled the request");
            // Let the transport's writer send the cancellation before the connection closes.
            tokio::time::sleep(Duration::from_millis(50)).await;
            tokio::select! {
                _ = target::close(&client) => {}
                _ = interrupt::interrupted(2) => {}
            }
            Ok(EXIT_INTERRUPTED)
        }
    }
}

/// Connects (Ctrl-C aborts), then runs the command.
pub(crate) async fn session<F, Fut>(
    env: &Env,
    c: &Connect,
    interaction: Option<&Interaction>,
    body: F,
) -> anyhow::Result<i32>
where
    F: FnOnce(Client) -> Fut,
    Fut: Future<Output = anyhow::Result<i32>>,
{
    let client = tokio::select! {
        client = connect(c, interaction, &env.ui, env.max_message, env.wire.as_ref()) => client?,
        _ = interrupt::interrupted(1) => return Ok(EXIT_INTERRUPTED),
    };
    if let Some(level) = interaction.map(|i| log_level(&i.log_level)).transpose()?.flatten() {
        let logs = client.era() == Era::Stateless
            || client.server_capabilities().is_some_and(|caps| caps.logging.is_some());
        if logs {
            if let Err(e) = client.set_log_level(level).await {
                tracing::debug!("logging/setLevel failed: {e}");
            }
        }
    }
    let body = body(client.clone());
    run_connected(client, &env.ui, body).await
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Stateful => "stateful",
        Era::Stateless => "stateless",
    }
}

/// `mcpwire info`.
pub async fn info(env: &Env, c: &Connect) -> anyhow::Result<i32> {
    session(env, c, None, |client| async move {
        let mut capabilities = client.server_capabilities();
        let mut instructions = client.instructions();
        let mut server = client.server_info();
        // A pinned 2026 version skips the probe: ask now.
        if client.era() == Era::Stateless && client.discover_result().is_none() {
            let discover = client.discover().await.map_err(|e| Failure::request("server/discover", &e))?;
            let meta_info = discover
                .meta
                .as_ref()
                .and_then(|m| m.get(mcpwire::protocol::meta::SERVER_INFO))
                .and_then(|v| serde_json::from_value(v.clone()).ok());
            server = server.or(meta_info);
            instructions = instructions.or(discover.instructions.clone());
            capabilities = Some(discover.capabilities);
        }
        let era = client.era();
        let version = client.protocol_version().as_str().to_owned();
        // Over HTTP a 2025 server may keep no sessions (it answers `initialize` without an
        // `Mcp-Session-Id`); over stdio the connection is the session, and so is the one
        // stream of the legacy HTTP+SSE transport, which has no such header.
        let legacy_sse = client.legacy_http_sse();
        let sessionless = matches!(c.target, crate::target::Target::Http { .. })
            && client.session_id().is_none()
            && !legacy_sse;
        if env.json {
            // The server's parts as it sent them (its handshake or discover answer).
            let wire = env.wire();
            let server_info = wire.as_sent(
                &[
                    (methods::INITIALIZE, |v| v.get("serverInfo")),
                    (methods::SERVER_DISCOVER, |v| v.get("_meta")?.get(mcpwire::protocol::meta::SERVER_INFO)),
                ],
                &server,
            )?;
            let capabilities = wire.as_sent(
                &[
                    (methods::INITIALIZE, |v| v.get("capabilities")),
                    (methods::SERVER_DISCOVER, |v| v.get("capabilities")),
                ],
                &capabilities,
            )?;
            env.print_json(&json!({
                "serverInfo": server_info,
                "era": era_name(era),
                "protocolVersion": version,
                // Whether the server keeps sessions (the 2026 era has none), as the text's
                // era line says.
                "sessions": era == Era::Stateful && !sessionless,
                "capabilities": capabilities,
                "instructions": instructions,
            }))?;
            return Ok(EXIT_OK);
        }
        let mut out = String::new();
        let mut line = |label: &str, value: String| out.push_str(&format!("{label:<14}{value}\n"));
        match &server {
            Some(s) => {
                line("Server:", format!("{} {}", s.name, s.version).trim_end().to_owned());
                if let Some(title) = &s.title {
                    line("Title:", title.clone());
                }
                if let Some(d) = &s.description {
                    line("Description:", crate::ui::one_line(d));
                }
                if let Some(url) = &s.website_url {
                    line("Website:", url.clone());
                }
            }
            None => line("Server:", "(it did not say)".to_owned()),
        }
        let era_text = match era {
            Era::Stateful if sessionless => "2025 (stateful: initialize handshake, without sessions)",
            Era::Stateful if legacy_sse => "2025 (stateful: initialize handshake, legacy HTTP+SSE transport)",
            Era::Stateful => "2025 (stateful: initialize handshake, sessions)",
            Era::Stateless => "2026 (stateless: per-request envelope)",
        };
        line("Era:", era_text.to_owned());
        line("Protocol:", version);
        let caps = capabilities.as_ref().map(serde_json::to_value).transpose()?.unwrap_or(Value::Null);
        let names = output::capabilities(&caps);
        line("Capabilities:", if names.is_empty() { "(none)".to_owned() } else { names.join(", ") });
        match &instructions {
            Some(text) => {
                out.push_str("Instructions:\n");
                for l in text.lines() {
                    out.push_str(&format!("  {l}\n"));
                }
            }
            None => line("Instructions:", "(none)".to_owned()),
        }
        print_stdout(&out)?;
        Ok(EXIT_OK)
    })
    .await
}

/// Which list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    Templates,
    /// `prompts/list`.
    Prompts,
}

impl List {
    fn noun(self) -> &'static str {
        match self {
            List::Tools => "tools",
            List::Resources => "resources",
            List::Templates => "resource templates",
            List::Prompts => "prompts",
        }
    }

    fn key(self) -> &'static str {
        match self {
            List::Tools => "tools",
            List::Resources => "resources",
            List::Templates => "resourceTemplates",
            List::Prompts => "prompts",
        }
    }

    fn method(self) -> &'static str {
        match self {
            List::Tools => "tools/list",
            List::Resources => "resources/list",
            List::Templates => "resources/templates/list",
            List::Prompts => "prompts/list",
        }
    }

    /// Whether the server's capabilities (when known) offer this list.
    pub(crate) fn offered(self, client: &Client) -> bool {
        let Some(caps) = client.server_capabilities() else { return true };
        match self {
            List::Tools => caps.tools.is_some(),
            List::Resources | List::Templates => caps.resources.is_some(),
            List::Prompts => caps.prompts.is_some(),
        }
    }
}

/// Every item of a list, as JSON values (empty when the server does not offer it), in
/// the server's own key order where `wire` recorded its answers.
async fn fetch_list(client: &Client, list: List, wire: &Recorder) -> anyhow::Result<Vec<Value>> {
    if !list.offered(client) {
        return Ok(Vec::new());
    }
    let fail = |e: mcpwire::RequestError| Failure::request(list.method(), &e);
    let (method, key) = (list.method(), list.key());
    let values = match list {
        List::Tools => wire.list_as_sent(method, key, &client.list_all_tools().await.map_err(fail)?),
        List::Resources => wire.list_as_sent(method, key, &client.list_all_resources().await.map_err(fail)?),
        List::Templates => {
            wire.list_as_sent(method, key, &client.list_all_resource_templates().await.map_err(fail)?)
        }
        List::Prompts => wire.list_as_sent(method, key, &client.list_all_prompts().await.map_err(fail)?),
    };
    Ok(values?)
}

pub(crate) fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

/// `mcpwire tools|resources|templates|prompts`.
pub async fn list(env: &Env, c: &Connect, list: List) -> anyhow::Result<i32> {
    session(env, c, None, |client| async move {
        let items = fetch_list(&client, list, &env.wire()).await?;
        if env.json {
            let mut object = serde_json::Map::new();
            object.insert(list.key().to_owned(), Value::Array(items));
            env.print_json(&Value::Object(object))?;
            return Ok(EXIT_OK);
        }
        if items.is_empty() {
            print_stdout(&format!("(no {})\n", list.noun()))?;
            return Ok(EXIT_OK);
        }
        let table = match list {
            List::Tools => {
                let mut t = Table::new(&["NAME", "ARGUMENTS", "DESCRIPTION"]);
                for tool in &items {
                    let schema = tool.get("inputSchema").cloned().unwrap_or(Value::Null);
                    let description = match (text(tool, "description"), text(tool, "title")) {
                        (d, _) if !d.is_empty() => d,
                        (_, title) => title,
                    };
                    let description = format!("{}{description}", crate::task_status::tool_note(tool));
                    t.row(vec![text(tool, "name"), output::schema_arguments(&schema), description]);
                }
                t
            }
            List::Resources => {
                let mut t = Table::new(&["URI", "NAME", "MIME TYPE", "DESCRIPTION"]);
                for r in &items {
                    t.row(vec![text(r, "uri"), text(r, "name"), text(r, "mimeType"), text(r, "description")]);
                }
                t
            }
            List::Templates => {
                let mut t = Table::new(&["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"]);
                for r in &items {
                    t.row(vec![
                        text(r, "uriTemplate"),
                        text(r, "name"),
                        text(r, "mimeType"),
                        text(r, "description"),
                    ]);
                }
                t
            }
            List::Prompts => {
                let mut t = Table::new(&["NAME", "ARGUMENTS", "DESCRIPTION"]);
                for p in &items {
                    let arguments = p.get("arguments").and_then(Value::as_array).cloned().unwrap_or_default();
                    t.row(vec![
                        text(p, "name"),
                        output::prompt_arguments(&arguments),
                        text(p, "description"),
                    ]);
                }
                t
            }
        };
        print_stdout(&table.render(table_width()))?;
        Ok(EXIT_OK)
    })
    .await
}

pub fn unknown(kind: &str, name: &str, names: &[String], list_command: &str) -> Failure {
    let failure = Failure::usage(format!("the server has no {kind} named {name:?}"));
    match closest(name, names.iter().map(String::as_str)) {
        Some(near) => {
            failure.hint(format!("did you mean {near:?}? `mcpwire {list_command} TARGET` lists them"))
        }
        None => failure.hint(format!("`mcpwire {list_command} TARGET` lists them")),
    }
}

pub fn pairs(raw: &[String]) -> Result<Vec<Pair>, Failure> {
    raw.iter().map(|s| parse_pair(s)).collect()
}

/// `mcpwire call`.
pub async fn call(env: &Env, c: &Call) -> anyhow::Result<i32> {
    let pairs = pairs(&c.pairs)?;
    if let Some(text) = &c.args_json {
        // Check --args before connecting.
        tool_arguments(&c.tool, None, Some(text), &[])?;
    }
    log_level(&c.interaction.log_level)?;
    let max_total = c.max_total_timeout.map(|s| seconds_option("--max-total-timeout", s)).transpose()?;
    session(env, &c.connect, Some(&c.interaction), |client| async move {
        // The tool's schema types the key=value arguments.
        let schema = if List::Tools.offered(&client) {
            match client.list_all_tools().await {
                Ok(tools) => {
                    let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
                    match tools.into_iter().find(|t| t.name == c.tool) {
                        Some(tool) => Some(Value::Object(tool.input_schema)),
                        None => return Err(unknown("tool", &c.tool, &names, "tools").into()),
                    }
                }
                Err(e) => {
                    tracing::debug!("tools/list failed ({e}); arguments stay strings");
                    None
                }
            }
        } else {
            None
        };
        let arguments = tool_arguments(&c.tool, schema.as_ref(), c.args_json.as_deref(), &pairs)?;
        let mut options = RequestOptions::default()
            .on_progress(crate::task_status::progress_hook(env.ui.clone()))
            .on_task(crate::task_status::task_hook(env.ui.clone()));
        if let Some(max_total) = max_total {
            options = options.reset_timeout_on_progress(max_total);
        }
        tracing::debug!(tool = %c.tool, "calling the tool");
        let result = client.call_tool_with(&c.tool, Value::Object(arguments), options).await.map_err(|e| {
            let roots = !c.interaction.roots.is_empty();
            let failure = Failure::request_sharing_roots(&format!("calling {:?}", c.tool), &e, roots);
            match e {
                mcpwire::RequestError::Timeout { timeout, .. } if Some(timeout) == max_total => {
                    failure.hint("raise the limit with --max-total-timeout SECONDS")
                }
                _ => failure,
            }
        });
        env.ui.clear();
        // A task's result comes from tasks/result (2025-11-25) or inside tasks/get (2026).
        let sources: [(&str, Pick); 3] = [
            (methods::TOOLS_CALL, whole),
            (methods::TASKS_RESULT, whole),
            (methods::TASKS_GET, |v| v.get("result")),
        ];
        let result = env.wire().as_sent(&sources, &result?)?;
        let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
        if env.json {
            env.print_json(&result)?;
        } else if is_error {
            let text = output::call_result(&result);
            env.ui.note(&format!("error: the tool {:?} reported an error:", c.tool));
            env.ui.note(text.trim_end());
        } else {
            print_stdout(&output::call_result(&result))?;
        }
        Ok(if is_error { EXIT_TOOL_ERROR } else { EXIT_OK })
    })
    .await
}

/// The usage error for an argument `owner` does not declare (`owner`: `prompt "NAME"`,
/// or `resource template "URI"`, whose arguments are its variables); `known`: those it
/// does.
pub(crate) fn no_such_argument(owner: &str, extra: &str, known: &[impl AsRef<str>]) -> Failure {
    let known: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
    Failure::usage(format!("{owner} has no argument {extra:?}")).hint(if known.is_empty() {
        "it takes no arguments".to_owned()
    } else {
        format!("it takes: {}", known.join(", "))
    })
}

/// `mcpwire prompt`.
pub async fn prompt(env: &Env, c: &GetPrompt) -> anyhow::Result<i32> {
    let pairs = pairs(&c.pairs)?;
    if let Some(p) = pairs.iter().find(|p| p.force_json) {
        return Err(Failure::usage(format!("prompt arguments are strings: write {}=VALUE", p.key)).into());
    }
    log_level(&c.interaction.log_level)?;
    session(env, &c.connect, Some(&c.interaction), |client| async move {
        let arguments: BTreeMap<String, String> =
            pairs.iter().map(|p| (p.key.clone(), p.value.clone())).collect();
        if List::Prompts.offered(&client) {
            if let Ok(prompts) = client.list_all_prompts().await {
                let names: Vec<String> = prompts.iter().map(|p| p.name.clone()).collect();
                let Some(prompt) = prompts.into_iter().find(|p| p.name == c.name) else {
                    return Err(unknown("prompt", &c.name, &names, "prompts").into());
                };
                let declared = serde_json::to_value(&prompt.arguments)?;
                let declared = declared.as_array().cloned().unwrap_or_default();
                let known: Vec<String> = declared.iter().map(|a| text(a, "name")).collect();
                if let Some(extra) = arguments.keys().find(|k| !known.contains(k)) {
                    return Err(no_such_argument(&format!("prompt {:?}", c.name), extra, &known).into());
                }
                let missing: Vec<String> = declared
                    .iter()
                    .filter(|a| a.get("required").and_then(Value::as_bool) == Some(true))
                    .map(|a| text(a, "name"))
                    .filter(|n| !arguments.contains_key(n))
                    .collect();
                if !missing.is_empty() {
                    return Err(Failure::usage(format!("prompt {:?} needs: {}", c.name, missing.join(", ")))
                        .hint("pass them as key=value")
                        .into());
                }
            }
        }
        let result = client.get_prompt(&c.name, arguments).await.map_err(|e| {
            let roots = !c.interaction.roots.is_empty();
            Failure::request_sharing_roots(&format!("getting prompt {:?}", c.name), &e, roots)
        })?;
        let result = env.wire().as_sent(&[(methods::PROMPTS_GET, whole)], &result)?;
        if env.json {
            env.print_json(&result)?;
        } else {
            print_stdout(&output::prompt_result(&result))?;
        }
        Ok(EXIT_OK)
    })
    .await
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn roots_are_file_uris_of_absolute_paths() {
        assert_eq!(file_uri("/tmp/my dir/ä%"), "file:///tmp/my%20dir/%C3%A4%25");
        let here = roots(&[std::path::PathBuf::from(".")]).unwrap();
        let absolute = std::fs::canonicalize(".").unwrap();
        assert_eq!(here[0].uri, file_uri(absolute.to_str().unwrap()));
        assert!(roots(&[std::path::PathBuf::from("/no/such/dir/at/all")]).is_err());
    }

    #[test]
    fn checks_options() {
        assert!(pinned_version("2025-11-25").is_ok());
        assert!(pinned_version("2099-01-01").is_err());
        assert_eq!(log_level("off").unwrap(), None);
        assert_eq!(log_level("Warning").unwrap(), Some(LoggingLevel::Warning));
        assert!(log_level("loud").is_err());
        assert!(client_options(0.0, true).is_err());
        assert_eq!(client_options(2.0, false).unwrap().probe_timeout, Duration::from_secs(2));
        assert_eq!(client_options(60.0, true).unwrap().probe_timeout, STDIO_PROBE_TIMEOUT);
        assert_eq!(
            client_options(60.0, false).unwrap().probe_timeout,
            ClientOptions::default().probe_timeout
        );
    }
}
