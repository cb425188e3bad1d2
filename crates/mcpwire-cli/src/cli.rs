//! The command line, as clap parses it.

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::target::Target;

const TARGETS: &str = "\
Targets:
  stdio:'COMMAND ARGS'   start a server and talk to it over its stdin/stdout
                         (the command line is split like a shell would split it)
  COMMAND                the same, when the command has no '://' in it
  http(s)://HOST/PATH    a Streamable HTTP endpoint

Exit status: 0 success, 1 the tool reported an error (isError), 2 a usage,
connection or protocol error, 130 interrupted (Ctrl-C; SIGTERM: 143, SIGHUP: 129,
after the same clean stop: requests cancelled, servers it started shut down).

Examples:
  mcpwire tools stdio:'mcpwire serve --example notes'
  mcpwire call stdio:'mcpwire serve --example notes' search_notes query=mcp
  mcpwire call stdio:'python3 server.py' add a=2 b=3
  mcpwire call stdio:'python3 server.py' search query='two words' limit:=5 --json
  mcpwire read stdio:'./server' file:///etc/hosts
  mcpwire bench stdio:'mcpwire serve --example echo' --calls 2000";

/// Inspect, call and serve Model Context Protocol servers.
#[derive(Debug, Parser)]
#[command(name = "mcpwire", version, after_help = TARGETS, propagate_version = true)]
pub struct Cli {
    /// Print machine-readable JSON on stdout (and nothing else there).
    #[arg(long, global = true)]
    pub json: bool,

    /// Say more on stderr: -v shows debug logs, including the server's stderr.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// The largest JSON-RPC message read or accepted (stdio lines, HTTP bodies and SSE
    /// events), for example 64M or 1G. An answer over it fails its request at once.
    #[arg(long, global = true, value_name = "SIZE", default_value = crate::size::DEFAULT_MAX_MESSAGE,
          value_parser = crate::size::parse_size)]
    pub max_message_size: usize,

    /// Use this protocol version instead of probing the era (for example 2025-11-25 or
    /// 2026-07-28); for the commands that connect to a server (serve, bench and login
    /// refuse it).
    #[arg(long, global = true, value_name = "VERSION")]
    pub protocol_version: Option<String>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

impl Command {
    /// The command's connection options, for the commands that connect.
    pub fn connect_mut(&mut self) -> Option<&mut Connect> {
        match self {
            Command::Info(c)
            | Command::Tools(c)
            | Command::Resources(c)
            | Command::Templates(c)
            | Command::Prompts(c) => Some(c),
            Command::Call(c) => Some(&mut c.connect),
            Command::Read(c) => Some(&mut c.connect),
            Command::Prompt(c) => Some(&mut c.connect),
            Command::Complete(c) => Some(&mut c.connect),
            Command::Proxy(p) => Some(&mut p.connect),
            Command::Tasks(t) => Some(match t {
                TasksCommand::List(c) => c,
                TasksCommand::Get(t) | TasksCommand::Cancel(t) => &mut t.connect,
            }),
            Command::Serve(_) | Command::Bench(_) | Command::Login(_) => None,
        }
    }

    /// Why `--protocol-version` means nothing to this command, for the commands that do
    /// not connect to a server: given to them, it would be ignored, so it is refused.
    pub fn ignores_protocol_version(&self) -> Option<&'static str> {
        match self {
            Command::Serve(_) => Some("`mcpwire serve` answers every revision"),
            Command::Bench(_) => Some("`mcpwire bench` chooses its era with --era"),
            Command::Login(_) => Some("`mcpwire login` only obtains tokens"),
            _ => None,
        }
    }
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show the server's identity, era, protocol version, capabilities and instructions.
    Info(Connect),
    /// List the server's tools (all pages).
    Tools(Connect),
    /// List the server's resources (all pages).
    Resources(Connect),
    /// List the server's resource templates (all pages).
    Templates(Connect),
    /// List the server's prompts (all pages).
    Prompts(Connect),
    /// Call a tool: `mcpwire call TARGET TOOL key=value ... | --args JSON`.
    Call(Call),
    /// Read a resource.
    Read(Read),
    /// Get a prompt with its arguments: `mcpwire prompt TARGET NAME key=value ...`.
    Prompt(GetPrompt),
    /// Complete a prompt's or a resource template's argument as typed so far:
    /// `mcpwire complete TARGET prompt:NAME ARG=TYPED` or `mcpwire complete TARGET
    /// 'notes://note/{id}' id=4 [KEY=VALUE ...]` (further pairs: arguments already chosen).
    Complete(Complete),
    /// Run a built-in example server over stdio or Streamable HTTP.
    Serve(Serve),
    /// Bridge transports: expose a stdio server over Streamable HTTP (--listen), or a
    /// remote HTTP server over stdio (--stdio). Both eras on each side; the proxy offers no
    /// tasks, and runs a tool its server allows only as a task to its end itself.
    Proxy(Proxy),
    /// Measure a server's `echo` tool: sequential latency (p50/p90/p99/max), pipelined
    /// stdio throughput, C concurrent HTTP clients for T seconds, CPU per call, spawn time
    /// and memory, in either era. TARGET: an http:// URL, stdio:'COMMAND ARGS', or a
    /// command after `--`. Try it on `mcpwire serve --example echo`.
    Bench(Bench),
    /// Log in to an OAuth-protected server in the browser (a loopback redirect); the
    /// tokens are saved (0600) and later commands on that URL use and refresh them.
    Login(Login),
    /// A server's tasks: `mcpwire tasks list|get|cancel TARGET [TASK_ID]` (`call` follows
    /// a task tool's task by itself: its status as progress, Ctrl-C cancels it).
    #[command(subcommand)]
    Tasks(TasksCommand),
}

/// `mcpwire bench`: its options come before TARGET (everything after TARGET is the
/// server's command line).
#[derive(Debug, Args)]
pub struct Bench {
    /// Measure this tool instead of `echo {text}` (either driver); give its arguments
    /// with --arg and --args, as `mcpwire call` takes them.
    #[arg(long, value_name = "NAME")]
    pub tool: Option<String>,

    /// An argument of --tool, repeatable: key=value (typed by the tool's input schema:
    /// integers, numbers, booleans, objects and arrays are read as JSON) or key:=JSON.
    #[arg(long = "arg", value_name = "KEY=VALUE", requires = "tool")]
    pub pairs: Vec<String>,

    /// The arguments of --tool as one JSON object (--arg pairs are added on top).
    #[arg(long = "args", value_name = "JSON", requires = "tool")]
    pub args_json: Option<String>,

    /// Skip the check of the tool before the run (a `tools/list` on a connection of its
    /// own): the run's first call is still checked. For measurements that must see the
    /// measured calls alone, such as instruction counts under callgrind.
    #[arg(long, conflicts_with = "tool")]
    pub no_check: bool,

    /// What to measure and how.
    #[command(flatten)]
    pub options: BenchOptions,
}

/// What to measure and how (the output format is the CLI's `--json`).
#[derive(Debug, Clone, clap::Args)]
pub struct BenchOptions {
    /// An `http://host:port/path` URL, `stdio:'COMMAND ARGS'`, or a command to spawn over
    /// stdio after `--` (everything after `--` is the command; options may come before or
    /// after the target otherwise).
    #[arg(required = true, num_args = 1..)]
    pub target: Vec<String>,
    /// A name for the report.
    #[arg(long, default_value = "target")]
    pub label: String,
    /// The protocol era: 2025 (`initialize`, sessions over HTTP) or 2026 (stateless).
    #[arg(long, default_value = "2025", value_parser = ["2025", "2026"])]
    pub era: String,
    /// The measuring client: `raw` (lean JSON-RPC driver) or `sdk` (mcpwire's Client).
    #[arg(long, default_value = "raw", value_parser = ["raw", "sdk"])]
    pub driver: String,
    /// Sequential calls measured (0 skips the sequential run).
    #[arg(long, default_value_t = 5000)]
    pub calls: u64,
    /// Stdio: pipelined calls measured (0 skips).
    #[arg(long, default_value_t = 50_000)]
    pub pipelined_calls: u64,
    /// Stdio: requests in flight in the pipelined run.
    #[arg(long, default_value_t = 32)]
    pub in_flight: usize,
    /// HTTP: concurrent clients (0 skips the concurrent run).
    #[arg(long, default_value_t = 32)]
    pub clients: usize,
    /// HTTP: seconds of the concurrent run.
    #[arg(long, default_value_t = 5.0)]
    pub seconds: f64,
    /// Stdio: spawns timed for spawn-to-first-response (0 skips).
    #[arg(long, default_value_t = 10)]
    pub startup_runs: u32,
    /// HTTP 2025: idle sessions opened to measure memory per session (0 skips; needs
    /// `--server-pid`).
    #[arg(long, default_value_t = 0)]
    pub sessions: usize,
    /// The HTTP server's pid, for its CPU time and memory.
    #[arg(long)]
    pub server_pid: Option<u32>,
    /// The `text` argument of every call.
    #[arg(long, default_value = "hello", conflicts_with = "payload_bytes")]
    pub text: String,
    /// A `text` argument of this many bytes (ASCII words) instead of `--text`.
    #[arg(long)]
    pub payload_bytes: Option<usize>,
    /// Every request carries `_meta.progressToken` (raw driver).
    #[arg(long)]
    pub progress_token: bool,
    /// Cycle through `tools/list`, `tools/call echo`, `resources/read bench://text-100k`
    /// and `prompts/get echo-prompt` instead of echo calls only (raw driver; the server
    /// needs that resource and prompt, as `echo-server` has).
    #[arg(long)]
    pub mix: bool,
    /// Unmeasured calls before each measured run.
    #[arg(long, default_value_t = 200)]
    pub warmup: u64,
    /// Abandon a workload after this many seconds.
    #[arg(long, default_value_t = 120)]
    pub timeout: u64,
    /// No progress bar (it is only drawn when stderr is a terminal anyway).
    #[arg(long)]
    pub no_progress: bool,
}

/// `mcpwire login URL`.
#[derive(Debug, Args)]
pub struct Login {
    /// The server's http(s):// URL.
    #[arg(value_name = "URL", value_parser = Target::parse_login_url)]
    pub url: String,
    /// Seconds to wait for the browser to come back.
    #[arg(long, default_value_t = 300)]
    pub timeout: u64,
}

/// How to reach the server.
#[derive(Debug, Args)]
pub struct Connect {
    /// The server: stdio:'COMMAND ARGS' or an http(s):// URL.
    #[arg(value_name = "TARGET", value_parser = Target::parse)]
    pub target: Target,

    /// The global `--protocol-version` (set from [`Cli`] after parsing).
    #[arg(skip)]
    pub protocol_version: Option<String>,

    /// An HTTP header for every request, as 'Name: value' (repeatable; HTTP targets).
    #[arg(short = 'H', long = "header", value_name = "'K: V'")]
    pub headers: Vec<String>,

    /// Send 'Authorization: Bearer TOKEN' (HTTP targets).
    #[arg(long, value_name = "TOKEN")]
    pub bearer: Option<String>,

    /// Give up on a request after this many seconds (the handshake too, after the era
    /// probe's own wait for a server that leaves it unanswered).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub timeout: f64,
}

/// How the server's questions and messages are handled.
#[derive(Debug, Args)]
pub struct Interaction {
    /// Never ask: decline the server's requests for input (elicitation). This is
    /// automatic when stdin is not a terminal.
    #[arg(long)]
    pub no_input: bool,

    /// The least severe server log message to show: debug, info, notice, warning,
    /// error, critical, alert, emergency, or off.
    #[arg(long, value_name = "LEVEL", default_value = "info")]
    pub log_level: String,

    /// Share this directory (or file) with the server as a root, repeatable: a server
    /// that asks its client for roots (server-filesystem started without directories)
    /// works within them. Without it no roots are offered. A 2025-era server gets up to a
    /// second after the handshake to ask for them before the first request.
    #[arg(long = "root", value_name = "PATH")]
    pub roots: Vec<std::path::PathBuf>,
}

/// `mcpwire call`.
#[derive(Debug, Args)]
pub struct Call {
    /// The server.
    #[command(flatten)]
    pub connect: Connect,

    /// The tool's name.
    #[arg(value_name = "TOOL")]
    pub tool: String,

    /// Arguments: key=value (typed by the tool's input schema: integers, numbers,
    /// booleans, objects and arrays are read as JSON, strings as written) or key:=JSON.
    #[arg(value_name = "KEY=VALUE")]
    pub pairs: Vec<String>,

    /// The arguments as one JSON object (key=value pairs are added on top).
    #[arg(long = "args", value_name = "JSON")]
    pub args_json: Option<String>,

    /// Let the tool's progress notifications start --timeout again, and give up after
    /// this many seconds in all whatever progress comes: for a long tool that reports
    /// its progress. A tool the server runs as a task is followed past --timeout (which
    /// bounds each request), to its end or the task's lifetime: this bounds it too.
    #[arg(long, value_name = "SECONDS")]
    pub max_total_timeout: Option<f64>,

    /// Questions and messages.
    #[command(flatten)]
    pub interaction: Interaction,
}

/// `mcpwire read`.
#[derive(Debug, Args)]
pub struct Read {
    /// The server.
    #[command(flatten)]
    pub connect: Connect,

    /// The resource's URI.
    #[arg(value_name = "URI")]
    pub uri: String,

    /// Questions and messages.
    #[command(flatten)]
    pub interaction: Interaction,
}

/// `mcpwire prompt`.
#[derive(Debug, Args)]
pub struct GetPrompt {
    /// The server.
    #[command(flatten)]
    pub connect: Connect,

    /// The prompt's name.
    #[arg(value_name = "NAME")]
    pub name: String,

    /// Arguments as key=value (prompt arguments are strings).
    #[arg(value_name = "KEY=VALUE")]
    pub pairs: Vec<String>,

    /// Questions and messages.
    #[command(flatten)]
    pub interaction: Interaction,
}

/// `mcpwire complete`.
#[derive(Debug, Args)]
pub struct Complete {
    /// The server.
    #[command(flatten)]
    pub connect: Connect,

    /// What is completed: `prompt:NAME`, or a resource template's URI template.
    #[arg(value_name = "REF")]
    pub reference: String,

    /// The argument being completed, as NAME=TYPED (TYPED may be empty); then the
    /// arguments already chosen, as KEY=VALUE.
    #[arg(value_name = "ARG=TYPED")]
    pub pairs: Vec<String>,
}

/// The built-in example servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Example {
    /// A small notes server: tools to add, search and delete notes, each note a
    /// resource, and a prompt to summarize them. The one to try first.
    Notes,
    /// The conformance "everything" server: every kind of tool, resource and prompt.
    Everything,
    /// The benchmark server (the same as `echo-server`): one tool, `echo`, whose `{text}`
    /// comes back as one text content. `mcpwire bench` measures it.
    Echo,
}

/// `mcpwire serve`.
#[derive(Debug, Args)]
pub struct Serve {
    /// Which example server.
    #[arg(long, value_enum, value_name = "NAME")]
    pub example: Example,

    /// Serve over stdin/stdout (the default).
    #[arg(long, conflicts_with = "http")]
    pub stdio: bool,

    /// Serve Streamable HTTP (both protocol eras) at http://ADDR/mcp, for example
    /// 127.0.0.1:8080 (port 0 picks a free port; the URL is printed on stderr).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,

    /// With --http: serve as one instance of a cluster whose shared state lives in the
    /// Redis at URL (redis://HOST:PORT); every instance started with the same URL is one
    /// logical server behind a load balancer.
    #[arg(long, value_name = "URL", requires = "http")]
    pub redis: Option<String>,
}

/// `mcpwire proxy`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("mode").required(true).args(["listen", "stdio"]))]
pub struct Proxy {
    /// Serve the stdio TARGET as Streamable HTTP at http://ADDR/mcp (both eras).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,

    /// Serve the http(s):// TARGET on this process's stdin/stdout.
    #[arg(long)]
    pub stdio: bool,

    /// The server to expose.
    #[command(flatten)]
    pub connect: Connect,

    /// Let the progress of a relayed request start --timeout again, and give up on it
    /// after this many seconds in all whatever progress comes: for long tools that
    /// report their progress.
    #[arg(long, value_name = "SECONDS")]
    pub max_total_timeout: Option<f64>,
}

/// `mcpwire tasks ...`.
#[derive(Debug, Subcommand)]
pub enum TasksCommand {
    /// List the session's tasks (2025-11-25 servers; 2026 has no tasks/list).
    List(Connect),
    /// Show a task: its status and, once it finished, its result or error.
    Get(TaskTarget),
    /// Ask the server to cancel a task.
    Cancel(TaskTarget),
}

/// A server and one of its tasks.
#[derive(Debug, Args)]
pub struct TaskTarget {
    /// The server.
    #[command(flatten)]
    pub connect: Connect,
    /// The task's id.
    #[arg(value_name = "TASK_ID")]
    pub task_id: String,
}
