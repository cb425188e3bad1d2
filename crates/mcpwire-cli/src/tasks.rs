//! `mcpwire tasks list|get|cancel TARGET ...`: a server's tasks, one request at a time
//! (`mcpwire call` follows a task tool's task by itself). A 2026 task is reached by its
//! id from any connection; a 2025-11-25 task belongs to the session that created it, so
//! these commands see only what that server shares with a new session.

use mcpwire::client::Client;
use mcpwire::protocol::tasks_ext::{DetailedTask, TaskState};
use mcpwire::protocol::{methods, Era};
use serde_json::Value;

use crate::cli::TasksCommand;
use crate::commands::{print_stdout, session, Env};
use crate::errors::{Failure, EXIT_FAILURE, EXIT_OK, EXIT_TOOL_ERROR};
use crate::output::Table;
use crate::wire::whole;

/// The status name as the protocol writes it.
fn status_name(task: &DetailedTask) -> String {
    serde_json::to_value(task.status()).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// A task for people: one line of facts, then what it is waiting for or ended with.
fn describe(task: &DetailedTask) -> String {
    let mut out = format!("{}  {}  created {}", task.task_id, status_name(task), task.created_at);
    if let Some(message) = &task.status_message {
        out.push_str(&format!("  ({message})"));
    }
    out.push('\n');
    match &task.state {
        TaskState::InputRequired { input_requests } => {
            for (key, request) in input_requests {
                let method =
                    serde_json::to_value(request).ok().and_then(|v| v["method"].as_str().map(str::to_owned));
                out.push_str(&format!("waiting for {key}: {}\n", method.unwrap_or_default()));
            }
        }
        TaskState::Completed { result } => {
            out.push_str(&crate::output::call_result(&Value::Object(result.clone())))
        }
        TaskState::Failed { error } => {
            out.push_str(&format!("error {}: {}\n", error.code, crate::errors::shown(&error.message)))
        }
        TaskState::Working | TaskState::Cancelled => {}
    }
    out
}

/// Fails when the server declares no tasks in its era: neither `capabilities.tasks`
/// (2025-11-25) nor the tasks extension (2026). A pinned 2026 version skips discovery,
/// so its capabilities are asked for here (`server/discover`).
async fn check_offers_tasks(client: &Client) -> Result<(), Failure> {
    let capabilities = match client.server_capabilities() {
        Some(capabilities) => capabilities,
        None if client.era() == Era::Stateless => match client.discover().await {
            Ok(discover) => discover.capabilities,
            // The request for the task itself will say what is wrong.
            Err(_) => return Ok(()),
        },
        None => return Ok(()),
    };
    let offers = match client.era() {
        Era::Stateful => capabilities.tasks.is_some(),
        Era::Stateless => capabilities.supports_tasks_extension(),
    };
    if offers {
        Ok(())
    } else {
        Err(Failure::usage("the server offers no tasks").hint("`mcpwire info TARGET` shows what it offers"))
    }
}

/// A failed `tasks get|cancel` (`what`: "getting task ID"): a refused id's hint names
/// `tasks list` only in the era that has it (2026 has no tasks/list: its ids come from
/// the calls that started the tasks).
fn task_failure(client: &Client, what: &str, error: &mcpwire::RequestError) -> Failure {
    let failure = Failure::request(what, error);
    let refused_id = error.peer_error().is_some_and(|e| e.code == mcpwire::protocol::codes::INVALID_PARAMS);
    if refused_id && client.era() == Era::Stateless {
        failure
            .hint("check the task id: the one `mcpwire call` named when the task started (a 2026 server lists no tasks)")
    } else {
        failure
    }
}

/// Runs `mcpwire tasks ...`.
pub async fn run(env: &Env, command: &TasksCommand) -> anyhow::Result<i32> {
    match command {
        TasksCommand::List(c) => {
            session(env, c, None, |client| async move {
                check_offers_tasks(&client).await?;
                if client.era() == Era::Stateless {
                    return Err(Failure::usage(
                        "a 2026-07-28 server lists no tasks (tasks/list is a 2025-11-25 method)",
                    )
                    .hint("`mcpwire tasks get TARGET TASK_ID` reaches a task by its id; add --protocol-version 2025-11-25 to list a dual-era server's tasks")
                    .into());
                }
                let tasks = client.list_all_tasks().await.map_err(|e| Failure::request("listing tasks", &e))?;
                if env.json {
                    let tasks = env.wire().list_as_sent(methods::TASKS_LIST, "tasks", &tasks)?;
                    env.print_json(&serde_json::json!({ "tasks": tasks }))?;
                    return Ok(EXIT_OK);
                }
                if tasks.is_empty() {
                    print_stdout("(no tasks)\n")?;
                    return Ok(EXIT_OK);
                }
                let mut table = Table::new(&["TASK", "STATUS", "CREATED", "MESSAGE"]);
                for t in &tasks {
                    let status =
                        serde_json::to_value(t.status).ok().and_then(|v| v.as_str().map(str::to_owned));
                    table.row(vec![
                        t.task_id.clone(),
                        status.unwrap_or_default(),
                        t.created_at.clone(),
                        t.status_message.clone().unwrap_or_default(),
                    ]);
                }
                print_stdout(&table.render(None))?;
                Ok(EXIT_OK)
            })
            .await
        }
        TasksCommand::Get(t) => {
            session(env, &t.connect, None, |client| async move {
                check_offers_tasks(&client).await?;
                let task = client
                    .get_task(&t.task_id)
                    .await
                    .map_err(|e| task_failure(&client, &format!("getting task {}", t.task_id), &e))?;
                if env.json {
                    env.print_json(&env.wire().as_sent(&[(methods::TASKS_GET, whole)], &task)?)?;
                } else {
                    print_stdout(&describe(&task))?;
                }
                // As `call` does: a task whose tool reported an error exits 1, one that
                // failed with a JSON-RPC error (the server's error, shown above) exits 2.
                Ok(match &task.state {
                    TaskState::Completed { result }
                        if result.get("isError") == Some(&serde_json::Value::Bool(true)) =>
                    {
                        EXIT_TOOL_ERROR
                    }
                    TaskState::Failed { .. } => EXIT_FAILURE,
                    _ => EXIT_OK,
                })
            })
            .await
        }
        TasksCommand::Cancel(t) => {
            session(env, &t.connect, None, |client| async move {
                check_offers_tasks(&client).await?;
                client
                    .cancel_task(&t.task_id)
                    .await
                    .map_err(|e| task_failure(&client, &format!("cancelling task {}", t.task_id), &e))?;
                if env.json {
                    env.print_json(&serde_json::json!({ "cancelled": t.task_id }))?;
                } else {
                    env.ui.note(&format!("asked the server to cancel task {}", t.task_id));
                }
                Ok(EXIT_OK)
            })
            .await
        }
    }
}
