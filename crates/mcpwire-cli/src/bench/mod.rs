//! `mcpwire bench`: a load generator for any MCP server's `echo` tool (or `--tool`):
//! sequential latency, pipelined stdio throughput, concurrent HTTP clients, spawn time and
//! memory, in either era, behind this command line's target syntax, its `--json`, and a
//! check of the tool first: the server is asked for its tools, so that a missing `echo`
//! (or a `--tool` that does not exist) is a clear error with a hint rather than a failed
//! run, and `--arg key=value` is typed by the tool's schema as `mcpwire call` types it.
//!
//! - [`options`]: from the command's options (`cli::BenchOptions`) to a run, and the
//!   report's printing;
//! - [`config`]: what one run measures ([`config::BenchConfig`]); [`run`] runs it and
//!   [`report`] holds what it measured;
//! - the drivers: [`stdio_raw`] (hand-built JSON-RPC on blocking pipes) and [`http_raw`]
//!   (a minimal HTTP/1.1 client on a current-thread runtime), whose own cost stays a small
//!   fraction of the server's, and [`sdk`] (the same workloads through
//!   [`mcpwire::client::Client`]); [`wire`] writes and reads their messages;
//! - [`stats`], [`sys`] and [`progress`]: latency percentiles, CPU time and memory from
//!   `/proc` and `getrusage`, and the progress bar.
//!
//! The server must have a tool `echo` taking `{"text": string}` and answering one text
//! content with the same text (or be given `--tool`); for `--mix` also the resource
//! [`wire::MIX_RESOURCE_URI`] and the prompt [`wire::MIX_PROMPT`], as the echo example
//! (`mcpwire serve --example echo`, `echo-server`) has.

mod config;
mod http_raw;
mod options;
mod progress;
mod report;
mod run;
mod sdk;
mod stats;
mod stdio_raw;
mod sys;
mod wire;

use mcpwire::protocol::ProtocolVersion;
use serde_json::{Map, Value};

use self::config::ToolCall;

use crate::args::tool_arguments;
use crate::cli::{Bench, BenchOptions, Connect};
use crate::commands::{pairs, unknown, Env};
use crate::errors::{Failure, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK};
use crate::interrupt;
use crate::target::{self, Target};

/// Accepts the other commands' `stdio:'COMMAND ARGS'` form as well as a bare command line
/// (after `--`) or a URL: one `stdio:` word is split like a shell would split it.
fn normalize(mut options: BenchOptions) -> anyhow::Result<BenchOptions> {
    if let [only] = options.target.as_slice() {
        if only.trim_start().starts_with("stdio:") {
            match Target::parse(only).map_err(|e| Failure::usage(e).hint("write stdio:'COMMAND ARGS'"))? {
                Target::Stdio { program, args } => {
                    options.target = std::iter::once(program).chain(args).collect();
                }
                Target::Http { .. } => {}
            }
        }
    }
    Ok(options)
}

/// The bench's target as the other commands see it.
fn connect_args(options: &BenchOptions) -> Connect {
    let target = match options.target.as_slice() {
        [url] if url.starts_with("http://") || url.starts_with("https://") => {
            Target::Http { url: url.clone(), headers: Vec::new(), bearer: None }
        }
        [program, args @ ..] => Target::Stdio { program: program.clone(), args: args.to_vec() },
        [] => Target::Stdio { program: String::new(), args: Vec::new() },
    };
    let version =
        if options.era == "2026" { ProtocolVersion::V2026_07_28 } else { ProtocolVersion::V2025_11_25 };
    Connect {
        target,
        protocol_version: Some(version.as_str().to_owned()),
        headers: Vec::new(),
        bearer: None,
        timeout: options.timeout.max(1) as f64,
    }
}

/// Asks the server for its tools and checks the one the bench will call: `--tool` with
/// its arguments typed by its schema, or the default `echo` taking `text`.
async fn check_tool(env: &Env, args: &Bench, options: &BenchOptions) -> anyhow::Result<Option<ToolCall>> {
    let pairs = pairs(&args.pairs)?;
    let connect = connect_args(options);
    let client = crate::commands::connect(&connect, None, &env.ui, env.max_message, None).await?;
    let listed = client.list_all_tools().await;
    target::close(&client).await;
    let tools = listed.map_err(|e| Failure::request("tools/list", &e))?;
    let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    match &args.tool {
        Some(name) => {
            let Some(tool) = tools.into_iter().find(|t| &t.name == name) else {
                return Err(unknown("tool", name, &names, "tools").into());
            };
            let schema = Value::Object(tool.input_schema);
            let arguments = tool_arguments(name, Some(&schema), args.args_json.as_deref(), &pairs)?;
            Ok(Some(ToolCall { name: name.clone(), arguments }))
        }
        None => {
            let echo = tools.iter().find(|t| t.name == "echo");
            let takes_text = echo.is_some_and(|t| {
                t.input_schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| p.contains_key("text"))
            });
            if takes_text {
                return Ok(None);
            }
            let what = match echo {
                Some(_) => "the server's `echo` tool takes no `text`, which bench sends by default",
                None => "the server has no `echo` tool, which bench calls by default",
            };
            let example = match echo {
                Some(t) => example_call(&t.name, &t.input_schema),
                None => {
                    names.first().map_or("--tool NAME --arg KEY=VALUE".to_owned(), |n| format!("--tool {n}"))
                }
            };
            Err(Failure::usage(what)
                .hint(format!("name the tool to measure and its arguments: mcpwire bench {example} TARGET"))
                .into())
        }
    }
}

/// `--tool NAME --arg K=...` for each required property of `schema`.
fn example_call(name: &str, schema: &Map<String, Value>) -> String {
    let mut text = format!("--tool {name}");
    for key in
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str)
    {
        text.push_str(&format!(" --arg {key}=..."));
    }
    text
}

/// `mcpwire bench`: runs until the report is printed, or exits 130 on Ctrl-C (a stdio
/// server it spawned sees its stdin close when this process exits).
pub async fn run(env: &Env, args: &Bench) -> anyhow::Result<i32> {
    let options = normalize(args.options.clone())?;
    let tool = if args.no_check {
        None
    } else {
        tokio::select! {
            tool = check_tool(env, args, &options) => tool?,
            _ = interrupt::interrupted(1) => return Ok(EXIT_INTERRUPTED),
        }
    };
    let mut config = options.config();
    config.tool = tool;
    // The server's stderr is shown with -v, as by the other commands.
    config.server_stderr = tracing::enabled!(tracing::Level::DEBUG);
    tokio::select! {
        code = options::run_config(config, env.json) => {
            Ok(if code == std::process::ExitCode::SUCCESS { EXIT_OK } else { EXIT_FAILURE })
        }
        _ = interrupt::interrupted(1) => Ok(EXIT_INTERRUPTED),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::options::tests::parse;
    use super::*;

    #[test]
    fn a_stdio_target_is_split_like_the_other_commands() {
        let options = normalize(parse(&["bench", "stdio:'echo-server' --stdio"])).unwrap();
        assert_eq!(options.target, vec!["echo-server".to_owned(), "--stdio".to_owned()]);
        let options = normalize(parse(&["bench", "--", "echo-server", "--stdio"])).unwrap();
        assert_eq!(options.target, vec!["echo-server", "--stdio"]);
        let options = normalize(parse(&["bench", "http://127.0.0.1:1/mcp"])).unwrap();
        assert_eq!(options.target, vec!["http://127.0.0.1:1/mcp"]);
        // Options after the target are options (only what follows `--` is the command's).
        let options = normalize(parse(&["bench", "stdio:'echo-server' --stdio", "--calls", "7"])).unwrap();
        assert_eq!(
            (options.target.clone(), options.calls),
            (vec!["echo-server".into(), "--stdio".into()], 7)
        );
        let options = normalize(parse(&["bench", "http://127.0.0.1:1/mcp", "--era", "2026"])).unwrap();
        assert_eq!(options.era, "2026");
        let options =
            normalize(parse(&["bench", "--calls", "3", "--", "echo-server", "--calls", "9"])).unwrap();
        assert_eq!(
            (options.target, options.calls),
            (vec!["echo-server".into(), "--calls".into(), "9".into()], 3)
        );
    }

    #[test]
    fn the_hint_names_the_required_arguments() {
        let schema = serde_json::json!({ "type": "object", "required": ["message"] });
        assert_eq!(example_call("echo", schema.as_object().unwrap()), "--tool echo --arg message=...");
    }
}
