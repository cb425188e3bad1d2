//! `mcpwire read`: a resource's contents, and for a read the server refused, a hint
//! (the template's variables to fill in, or the listed URI closest to the one given).

use std::io::{IsTerminal, Write};

use mcpwire::client::Client;
use mcpwire::protocol::methods;
use mcpwire::server::uri_template::UriTemplate;
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

/// The listed resource URI, or URI of a listed resource template, closest to `uri`, for
/// a read the server refused (a misspelled URI); `None` when none is close or nothing
/// can be listed. A template is compared as the URIs it would have made of `uri`
/// ([`template_guesses`]).
async fn close_resource(client: &Client, uri: &str) -> Option<String> {
    let mut candidates = Vec::new();
    if List::Resources.offered(client) {
        if let Ok(resources) = client.list_all_resources().await {
            candidates.extend(resources.into_iter().map(|r| r.uri));
        }
    }
    if List::Templates.offered(client) {
        if let Ok(templates) = client.list_all_resource_templates().await {
            for template in &templates {
                candidates.extend(template_guesses(&template.uri_template, uri));
            }
        }
    }
    closest(uri, candidates.iter().map(String::as_str).filter(|near| *near != uri)).map(str::to_owned)
}

/// How many characters more or fewer than a template's start (the text before its first
/// variable) [`template_guesses`] takes a misspelled URI's start to be.
const START_SLIP: usize = 2;

/// The URIs of `template` that `uri` may have been meant as: the template itself for a
/// `uri` with a `{` (a template misspelled as written); else the template's start put in
/// place of `uri`'s start, for each length within [`START_SLIP`] of it, where that makes a
/// URI of the template (`notes://nte/3` could be `notes://note/3`, of
/// `notes://note/{id}`). None when `uri` is already one of its URIs: the server refused
/// the values, not the spelling.
fn template_guesses(template: &str, uri: &str) -> Vec<String> {
    let Some(variable) = template.find('{') else { return vec![template.to_owned()] };
    if uri.contains('{') {
        return vec![template.to_owned()];
    }
    let Ok(parsed) = UriTemplate::parse(template) else { return Vec::new() };
    if parsed.match_uri(uri).is_some() {
        return Vec::new();
    }
    let start = &template[..variable];
    let length = start.chars().count();
    (length.saturating_sub(START_SLIP)..=length + START_SLIP)
        .filter_map(|n| crate::ui::split_after_chars(uri, n))
        .map(|(_, rest)| format!("{start}{rest}"))
        .filter(|guess| parsed.match_uri(guess).is_some())
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelled_uri_of_a_template_is_guessed_as_the_template_makes_it() {
        let guesses = template_guesses("notes://note/{id}", "notes://nte/3");
        assert!(guesses.contains(&"notes://note/3".to_owned()), "{guesses:?}");
        assert_eq!(closest("notes://nte/3", guesses.iter().map(String::as_str)), Some("notes://note/3"));
        assert_eq!(template_guesses("notes://note/{id}", "notes://note/99"), Vec::<String>::new());
        assert_eq!(template_guesses("notes://note/{id}", "notes://nte/{id}"), ["notes://note/{id}"]);
        assert_eq!(template_guesses("notes://index", "notes://indx"), ["notes://index"]);
        let guesses = template_guesses("files://{dir}/{name}.txt", "fils://docs/a.txt");
        assert!(guesses.contains(&"files://docs/a.txt".to_owned()), "{guesses:?}");
    }
}
