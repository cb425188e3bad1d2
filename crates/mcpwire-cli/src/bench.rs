//! `mcpwire bench`: the load generator of `mcpwire-bench` (sequential latency, pipelined
//! stdio throughput, concurrent HTTP clients, spawn time and memory, in either era) behind
//! this command line's target syntax and its `--json`.

use mcpwire_bench::cli::BenchOptions;

use crate::errors::{Failure, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK};
use crate::interrupt;
use crate::target::Target;

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

/// `mcpwire bench`: runs until the report is printed, or exits 130 on Ctrl-C (a stdio
/// server it spawned sees its stdin close when this process exits).
pub async fn run(options: &BenchOptions, json: bool) -> anyhow::Result<i32> {
    let options = normalize(options.clone())?;
    tokio::select! {
        code = mcpwire_bench::cli::run(&options, json) => {
            Ok(if code == std::process::ExitCode::SUCCESS { EXIT_OK } else { EXIT_FAILURE })
        }
        _ = interrupt::interrupted(1) => Ok(EXIT_INTERRUPTED),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Wrapper {
        #[command(flatten)]
        options: BenchOptions,
    }

    #[test]
    fn a_stdio_target_is_split_like_the_other_commands() {
        let w = Wrapper::parse_from(["x", "stdio:'echo-server' --stdio"]);
        let options = normalize(w.options).unwrap();
        assert_eq!(options.target, vec!["echo-server".to_owned(), "--stdio".to_owned()]);
        let w = Wrapper::parse_from(["x", "--", "echo-server", "--stdio"]);
        assert_eq!(normalize(w.options).unwrap().target, vec!["echo-server", "--stdio"]);
        let w = Wrapper::parse_from(["x", "http://127.0.0.1:1/mcp"]);
        assert_eq!(normalize(w.options).unwrap().target, vec!["http://127.0.0.1:1/mcp"]);
    }
}
