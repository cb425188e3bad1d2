//! `mcpwire complete`: what the server offers for a prompt's or a resource template's
//! argument as a user types it (`completion/complete`), one value a line.

use std::collections::BTreeMap;

use mcpwire::client::Client;
use mcpwire::protocol::completion::{
    CompleteRequestParams, CompletionArgument, CompletionContext, CompletionReference, PromptReference,
    ResourceTemplateReference,
};
use mcpwire::protocol::methods;
use mcpwire::server::uri_template::UriTemplate;
use serde_json::Value;

use crate::cli::Complete;
use crate::commands::{no_such_argument, pairs, print_stdout, session, Env, List};
use crate::errors::{Failure, COMPLETING, EXIT_OK};
use crate::suggest::closest;
use crate::wire::whole;

/// `prompt:NAME` names a prompt; anything else is a resource template's URI template.
const PROMPT_PREFIX: &str = "prompt:";

/// The request `mcpwire complete REF ARG=TYPED [KEY=VALUE ...]` sends: the first pair is
/// the argument being completed, the others the arguments already chosen (context).
fn request(target: &str, raw_pairs: &[String]) -> Result<CompleteRequestParams, Failure> {
    let reference = match target.strip_prefix(PROMPT_PREFIX) {
        Some("") => return Err(Failure::usage("name the prompt: prompt:NAME")),
        Some(name) => {
            CompletionReference::Prompt(PromptReference { name: name.into(), ..Default::default() })
        }
        None if target.contains('{') => CompletionReference::Resource(ResourceTemplateReference {
            uri: target.to_owned(),
            ..Default::default()
        }),
        None => {
            return Err(Failure::usage(format!(
                "{target:?} is neither prompt:NAME nor a URI template with a {{variable}}"
            ))
            .hint("`mcpwire prompts TARGET` and `mcpwire templates TARGET` list what can be completed"))
        }
    };
    let mut pairs = pairs(raw_pairs)?.into_iter();
    let Some(argument) = pairs.next() else {
        return Err(Failure::usage("say which argument to complete: NAME=TYPED (TYPED may be empty)"));
    };
    let chosen: BTreeMap<String, String> = pairs.map(|p| (p.key, p.value)).collect();
    Ok(CompleteRequestParams {
        reference,
        argument: CompletionArgument { name: argument.key, value: argument.value },
        context: (!chosen.is_empty()).then_some(CompletionContext { arguments: Some(chosen) }),
        meta: None,
    })
}

/// What the server lists for a completion's reference.
enum Listed {
    /// The reference is listed: the prompt's arguments or the template's variables.
    Arguments(Vec<String>),
    /// It is not, and this listed one is close: a misspelling (`prompt:NAME`, or a URI
    /// template), for the hint when the server refuses the reference.
    Near(String),
    /// Neither, or the server lists nothing of that kind.
    Unknown,
}

/// Checks the argument being completed against what the prompt declares or the
/// template's variables, as `mcpwire prompt` checks a prompt's: a server may answer an
/// unknown one with no values at all, which would read as "nothing matches". A prompt
/// or template the server does not list is left to the server to refuse; the listed
/// one closest to it is returned for that refusal's hint.
async fn check_argument(client: &Client, params: &CompleteRequestParams) -> Result<Option<String>, Failure> {
    let (owner, listed) = match &params.reference {
        CompletionReference::Prompt(reference) => {
            (format!("prompt {:?}", reference.name), prompt_arguments(client, &reference.name).await)
        }
        CompletionReference::Resource(reference) => (
            format!("resource template {:?}", reference.uri),
            template_variables(client, &reference.uri).await,
        ),
    };
    match listed {
        Listed::Arguments(known) if !known.contains(&params.argument.name) => {
            Err(no_such_argument(&owner, &params.argument.name, &known))
        }
        Listed::Near(near) => Ok(Some(near)),
        Listed::Arguments(_) | Listed::Unknown => Ok(None),
    }
}

/// The arguments the prompt `name` declares, when the server lists it.
async fn prompt_arguments(client: &Client, name: &str) -> Listed {
    if !List::Prompts.offered(client) {
        return Listed::Unknown;
    }
    let Ok(prompts) = client.list_all_prompts().await else { return Listed::Unknown };
    match prompts.iter().find(|p| p.name == name) {
        Some(prompt) => {
            Listed::Arguments(prompt.arguments.iter().flatten().map(|a| a.name.clone()).collect())
        }
        None => match closest(name, prompts.iter().map(|p| p.name.as_str())) {
            Some(near) => Listed::Near(format!("{PROMPT_PREFIX}{near}")),
            None => Listed::Unknown,
        },
    }
}

/// The variables of the resource template `uri`, when the server lists it and its
/// template parses (RFC 6570).
async fn template_variables(client: &Client, uri: &str) -> Listed {
    if !List::Templates.offered(client) {
        return Listed::Unknown;
    }
    let Ok(templates) = client.list_all_resource_templates().await else { return Listed::Unknown };
    match templates.iter().find(|t| t.uri_template == uri) {
        Some(template) => match UriTemplate::parse(&template.uri_template) {
            Ok(parsed) => Listed::Arguments(parsed.variables().map(str::to_owned).collect()),
            Err(_) => Listed::Unknown,
        },
        None => match closest(uri, templates.iter().map(|t| t.uri_template.as_str())) {
            Some(near) => Listed::Near(near.to_owned()),
            None => Listed::Unknown,
        },
    }
}

/// The hint for a read the server refused of a listed resource template's own URI (as
/// `mcpwire templates` prints it, `notes://note/{id}`): its variables want values.
/// `None` for any other URI.
pub(crate) async fn unfilled_template(client: &Client, uri: &str) -> Option<String> {
    if !uri.contains('{') {
        return None;
    }
    match template_variables(client, uri).await {
        Listed::Arguments(variables) => Some(format!(
            "{uri:?} is a resource template: read it with its variables ({}) filled in \
             (`mcpwire complete TARGET '{uri}' {}=` suggests values)",
            variables.join(", "),
            variables.first().map_or("NAME", String::as_str)
        )),
        Listed::Near(_) | Listed::Unknown => None,
    }
}

/// `mcpwire complete`.
pub async fn run(env: &Env, c: &Complete) -> anyhow::Result<i32> {
    let params = request(&c.reference, &c.pairs)?;
    session(env, &c.connect, None, |client| async move {
        if client.server_capabilities().is_some_and(|caps| caps.completions.is_none()) {
            return Err(Failure::usage("the server does not offer completions").into());
        }
        let near = check_argument(&client, &params).await?;
        let result = client.complete(&params).await.map_err(|e| {
            let failure = Failure::request(&format!("{COMPLETING}{:?}", params.argument.name), &e);
            match (&near, e.peer_error()) {
                (Some(near), Some(_)) => failure.hint(format!(
                    "did you mean {near:?}? `mcpwire prompts TARGET` and `mcpwire templates TARGET` list them"
                )),
                _ => failure,
            }
        })?;
        let result = env.wire().as_sent(&[(methods::COMPLETION_COMPLETE, whole)], &result)?;
        if env.json {
            env.print_json(&result)?;
            return Ok(EXIT_OK);
        }
        let completion = result.get("completion");
        let values = completion.and_then(|c| c.get("values")).and_then(Value::as_array);
        let out: String =
            values.into_iter().flatten().filter_map(Value::as_str).map(|v| format!("{v}\n")).collect();
        // The server may know of more than it sent (`total`, `hasMore`).
        let sent = values.map_or(0, Vec::len);
        let total = completion.and_then(|c| c.get("total")).and_then(Value::as_u64);
        let has_more = completion.and_then(|c| c.get("hasMore")).and_then(Value::as_bool) == Some(true);
        if has_more || total.is_some_and(|t| t > sent as u64) {
            let of = total.map_or_else(|| "more".to_owned(), |t| t.to_string());
            env.ui.note(&format!("{sent} of {of} values shown"));
        }
        if out.is_empty() {
            env.ui.note("no values");
        }
        print_stdout(&out)?;
        Ok(EXIT_OK)
    })
    .await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn request(reference: &str, pairs: &[&str]) -> Result<CompleteRequestParams, Failure> {
        super::request(reference, &pairs.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>())
    }

    #[test]
    fn a_prompt_or_a_template_and_the_argument_then_the_context() {
        let p = request("prompt:greet", &["name=Al"]).unwrap();
        assert!(matches!(&p.reference, CompletionReference::Prompt(r) if r.name == "greet"));
        assert_eq!((p.argument.name.as_str(), p.argument.value.as_str()), ("name", "Al"));
        assert!(p.context.is_none());

        let p = request("books://{shelf}/{title}", &["title=", "shelf=rust"]).unwrap();
        assert!(
            matches!(&p.reference, CompletionReference::Resource(r) if r.uri == "books://{shelf}/{title}")
        );
        assert_eq!((p.argument.name.as_str(), p.argument.value.as_str()), ("title", ""));
        let chosen = p.context.unwrap().arguments.unwrap();
        assert_eq!(chosen.get("shelf").map(String::as_str), Some("rust"));
    }

    #[test]
    fn unclear_requests_are_refused_before_connecting() {
        assert!(request("prompt:", &["a=b"]).is_err());
        assert!(request("books://plain", &["a=b"]).is_err());
        assert!(request("prompt:greet", &[]).is_err());
        assert!(request("prompt:greet", &["novalue"]).is_err());
    }
}
