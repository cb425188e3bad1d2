//! `mcpwire read`: a resource's contents, and for a read the server refused, a hint
//! (the template's variables to fill in, or the listed URI closest to the one given).

use std::io::{IsTerminal, Write};

use mcpwire::client::Client;
use mcpwire::protocol::methods;
use serde_json::Value;

use crate::cli::Read;
use crate::commands::{log_level, print_stdout, session, text, Env, List};
use crate::complete::unfilled_template;
use crate::errors::{Failure, EXIT_OK};
use crate::output;
use crate::suggest::closest;
use crate::wire::whole;

/// `mcpwire read`.
pub async fn run(env: &Env, c: &Read) -> anyhow::Result<i32> {
    log_level(&c.interaction.log_level)?;
    session(env, &c.connect, Some(&c.interaction), |client| async move {
        let result = match client.read_resource(&c.uri).await {
            Ok(result) => result,
            Err(e) => {
                let roots = !c.interaction.roots.is_empty();
                let failure = Failure::request_sharing_roots(&format!("reading {:?}", c.uri), &e, roots);
                if e.peer_error().is_none() {
                    return Err(failure.into());
                }
                let lists = "`mcpwire resources TARGET` and `mcpwire templates TARGET` list what it has";
                let hint = match unfilled_template(&client, &c.uri).await {
                    Some(template) => template,
                    None => match close_resource(&client, &c.uri).await {
                        Some(near) => format!("did you mean {near:?}? {lists}"),
                        None => lists.to_owned(),
                    },
                };
                return Err(failure.hint(hint).into());
            }
        };
        let result = env.wire().as_sent(&[(methods::RESOURCES_READ, whole)], &result)?;
        if env.json {
            env.print_json(&result)?;
            return Ok(EXIT_OK);
        }
        let contents = result.get("contents").and_then(Value::as_array).cloned().unwrap_or_default();
        // One binary resource into a pipe or file: its bytes.
        if let [single] = contents.as_slice() {
            if let Some(blob) = single.get("blob").and_then(Value::as_str) {
                if !std::io::stdout().is_terminal() {
                    if let Some(bytes) = output::base64_decode(blob) {
                        let mut out = std::io::stdout().lock();
                        match out.write_all(&bytes).and_then(|()| out.flush()) {
                            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
                            _ => return Ok(EXIT_OK),
                        }
                    }
                }
            }
        }
        let mut out = String::new();
        for (i, item) in contents.iter().enumerate() {
            if contents.len() > 1 {
                out.push_str(&format!("{}== {} ==\n", if i > 0 { "\n" } else { "" }, text(item, "uri")));
            }
            let redirect_saves = contents.len() == 1 && std::io::stdout().is_terminal();
            output::resource_contents(item, &mut out, redirect_saves);
        }
        print_stdout(&out)?;
        Ok(EXIT_OK)
    })
    .await
}

/// The listed resource whose URI is closest to `uri`, for a read the server refused
/// (a misspelled URI); `None` when none is close or the list cannot be had.
async fn close_resource(client: &Client, uri: &str) -> Option<String> {
    if !List::Resources.offered(client) {
        return None;
    }
    let resources = client.list_all_resources().await.ok()?;
    closest(uri, resources.iter().map(|r| r.uri.as_str()).filter(|near| *near != uri)).map(str::to_owned)
}
