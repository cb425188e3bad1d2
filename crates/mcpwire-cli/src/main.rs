//! `mcpwire`: the command line of the mcpwire MCP SDK. See `mcpwire --help`.

#![forbid(unsafe_code)]

/// `eprintln!` that never panics (a closed stderr, `mcpwire ... 2>&1 | head -1`, must not
/// turn a documented exit status into a panic's 101) and shows control characters as
/// text (a message may quote the server).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), "{}", crate::ui::visible(&format!($($arg)*)));
    }};
}

mod args;
mod bench;
mod cli;
mod commands;
mod complete;
mod elicit;
mod errors;
mod interrupt;
mod login;
mod output;
mod proxy;
mod read;
mod serve;
mod size;
mod suggest;
mod target;
mod task_status;
mod tasks;
mod text_format;
mod ui;
mod wire;

use clap::{CommandFactory, Parser};

use cli::{Cli, Command};
use commands::{Env, List};
use errors::{Failure, EXIT_FAILURE, EXIT_INTERRUPTED};

fn init_tracing(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "debug",
        _ => "trace",
    };
    let filter = match std::env::var("RUST_LOG") {
        Ok(f) if !f.is_empty() && verbose == 0 => tracing_subscriber::EnvFilter::new(f),
        _ => tracing_subscriber::EnvFilter::new(default),
    };
    tracing_subscriber::fmt()
        .with_writer(|| ui::Visible(std::io::stderr()))
        .with_env_filter(filter)
        .with_target(verbose > 0)
        .init();
}

async fn run(cli: Cli) -> anyhow::Result<i32> {
    let env = Env {
        json: cli.json,
        ui: ui::Ui::new(false),
        max_message: cli.max_message_size,
        wire: cli.json.then(wire::Recorder::default),
    };
    let needs_interrupts = !matches!(&cli.command, Command::Serve(s) if s.http.is_none());
    if needs_interrupts {
        interrupt::install()?;
    }
    match &cli.command {
        Command::Info(c) => commands::info(&env, c).await,
        Command::Tools(c) => commands::list(&env, c, List::Tools).await,
        Command::Resources(c) => commands::list(&env, c, List::Resources).await,
        Command::Templates(c) => commands::list(&env, c, List::Templates).await,
        Command::Prompts(c) => commands::list(&env, c, List::Prompts).await,
        Command::Call(c) => commands::call(&env, c).await,
        Command::Read(c) => read::run(&env, c).await,
        Command::Prompt(c) => commands::prompt(&env, c).await,
        Command::Complete(c) => complete::run(&env, c).await,
        Command::Serve(s) => serve::run(s, cli.max_message_size).await,
        Command::Proxy(p) => proxy::run(p, cli.max_message_size).await,
        Command::Bench(b) => bench::run(&env, b).await,
        Command::Login(l) => login::run(l).await,
        Command::Tasks(t) => tasks::run(&env, t).await,
    }
}

/// Prints a failure: `error: ...`, its detail lines, and `hint: ...`, each cut to a
/// bounded length ([`errors::shown`]): a failure may quote the server (a cursor, a value
/// that breaks a schema, a method), which may be megabytes.
fn report(error: &anyhow::Error) -> i32 {
    use errors::shown;
    match error.downcast_ref::<Failure>() {
        Some(failure) => {
            say!("error: {}", shown(&failure.message));
            for line in &failure.details {
                say!("  {}", shown(line));
            }
            if let Some(hint) = &failure.hint {
                say!("hint: {}", shown(hint));
            }
            failure.exit_code()
        }
        None => {
            say!("error: {}", shown(&format!("{error:#}")));
            EXIT_FAILURE
        }
    }
}

/// Refuses `--protocol-version` on a command that would ignore it, as clap refuses a
/// usage error (its message on stderr, exit status 2).
fn refuse_ignored_protocol_version(cli: &Cli) {
    if let (Some(_), Some(why)) = (&cli.protocol_version, cli.command.ignores_protocol_version()) {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                format!("--protocol-version applies to commands that connect to a server; {why}"),
            )
            .exit();
    }
}

fn main() {
    let mut cli = Cli::parse();
    refuse_ignored_protocol_version(&cli);
    let version = cli.protocol_version.clone();
    if let Some(connect) = cli.command.connect_mut() {
        connect.protocol_version = version;
    }
    init_tracing(cli.verbose);
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            say!("error: cannot start the async runtime: {e}");
            std::process::exit(EXIT_FAILURE);
        }
    };
    let code = runtime.block_on(async move {
        match run(cli).await {
            // `EXIT_INTERRUPTED` stands for any stop signal: say which one stopped it.
            Ok(EXIT_INTERRUPTED) => interrupt::exit_status(),
            Ok(code) => code,
            Err(e) => report(&e),
        }
    });
    // The runtime's tasks are dropped before the exit: a spawned server whose shutdown
    // was cut short (a second Ctrl-C) or left to a background task (a connect given up)
    // is killed with its process group then, not left running. A blocked stdin reader
    // (an abandoned question) is not waited for beyond a moment.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    std::process::exit(code);
}
