//! The client's side of the dispatcher: answers the server's requests (2025 era) through
//! the callbacks (as tasks when the server asks and the client declared them: see
//! [`super::callback_tasks`]), and hands log messages to the log callback in wire order
//! with progress. The other notifications the client acts on (list changes, listen
//! streams) are routed before they reach the dispatcher (see [`super::router`]).
//!
//! Until the handshake has chosen the 2025 era (while the probe is out, or `initialize`
//! is), no capability has been declared to the server: a 2025 server sends nothing but
//! `ping` before it is initialized (and a 2026 server sends no requests at all), so
//! `ping` is answered and any other request refused with `-32600`, its callback not
//! called.

use std::sync::{Arc, OnceLock};

use mcpwire_protocol::elicitation::ElicitRequestParams;
use mcpwire_protocol::logging::LoggingMessageNotificationParams;
use mcpwire_protocol::sampling::CreateMessageRequestParams;
use mcpwire_protocol::{methods, Era, Notification, RawJson, Request};

use super::callback_tasks::CallbackTasks;
use super::callbacks::{parse, Callbacks};
use crate::error::McpError;
use crate::jsonrpc::{Handler, RequestContext};

pub(crate) struct ClientHandler {
    pub(crate) callbacks: Callbacks,
    /// The tasks run for the server, when the client declares them (2025-11-25).
    pub(crate) tasks: Option<Arc<CallbackTasks>>,
    /// The era, once the handshake or probe has chosen it (set to 2025 before
    /// `notifications/initialized` goes out).
    pub(crate) era: Arc<OnceLock<Era>>,
}

fn raw<T: serde::Serialize>(value: &T) -> Result<RawJson, McpError> {
    Ok(serde_json::value::to_raw_value(value)?)
}

impl Handler for ClientHandler {
    /// Log messages, on the reading task: in the order the server sent them, and after
    /// the progress notifications it sent before them.
    fn on_notification_arrival(&self, notification: Notification) -> Option<Notification> {
        if notification.method != methods::NOTIFICATION_MESSAGE {
            return Some(notification);
        }
        match (&self.callbacks.log, notification.parse_params::<LoggingMessageNotificationParams>()) {
            (Some(log), Ok(params)) => log(params),
            (_, Err(e)) => tracing::debug!("ignored a malformed log message: {e}"),
            (None, Ok(_)) => {}
        }
        None
    }

    async fn on_request(&self, request: Request, _ctx: RequestContext) -> Result<RawJson, McpError> {
        if self.era.get() != Some(&Era::Stateful) {
            return before_the_handshake(&request);
        }
        // A question a server's task asks names the task; so does its answer (2025-11-25).
        let related = match request.method.as_str() {
            methods::SAMPLING_CREATE_MESSAGE | methods::ELICITATION_CREATE | methods::ROOTS_LIST => {
                related_task(&request)
            }
            _ => None,
        };
        let answer = self.answer(request).await;
        match related {
            Some(related) => answer.and_then(|raw| with_related_task(&raw, related)),
            None => answer,
        }
    }
}

/// A server's request before the 2025 handshake is done: `ping` is answered (both eras'
/// handshakes allow it), anything else is refused, since no capability is declared yet.
fn before_the_handshake(request: &Request) -> Result<RawJson, McpError> {
    match request.method.as_str() {
        methods::PING => raw(&serde_json::json!({})),
        method => Err(McpError::invalid_request(format!(
            "Invalid request: {method} before the handshake; this client has declared no capabilities yet"
        ))),
    }
}

/// The `io.modelcontextprotocol/related-task` `_meta` of a request, if it has one.
fn related_task(request: &Request) -> Option<serde_json::Value> {
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<serde_json::Map<String, serde_json::Value>>,
    }
    let params: Params = serde_json::from_str(request.params.as_ref()?.get()).ok()?;
    params.meta?.remove(mcpwire_protocol::meta::RELATED_TASK)
}

/// A result object with `related` as its `related-task` `_meta`.
fn with_related_task(result: &RawJson, related: serde_json::Value) -> Result<RawJson, McpError> {
    let mut result: serde_json::Map<String, serde_json::Value> = serde_json::from_str(result.get())?;
    let meta = result.entry("_meta").or_insert_with(|| serde_json::Value::Object(Default::default()));
    if let serde_json::Value::Object(meta) = meta {
        meta.insert(mcpwire_protocol::meta::RELATED_TASK.to_owned(), related);
    }
    raw(&result)
}

impl ClientHandler {
    /// Answers one of the server's requests.
    async fn answer(&self, request: Request) -> Result<RawJson, McpError> {
        match request.method.as_str() {
            methods::SAMPLING_CREATE_MESSAGE if self.callbacks.sampling.is_some() => {
                let params: CreateMessageRequestParams = parse(&request)?;
                // Refused at once, before any task is made for it, as the spec says.
                if Callbacks::undeclared_tools(&self.callbacks.capabilities(), &params) {
                    return Err(McpError::invalid_params(
                        "sampling with tools or toolChoice, though this client did not declare sampling.tools",
                    ));
                }
                let task = params.task.clone();
                let callbacks = self.callbacks.clone();
                self.run(task, async move { raw(&callbacks.sample(params).await?) }).await
            }
            methods::ELICITATION_CREATE if self.callbacks.elicitation.is_some() => {
                let params: ElicitRequestParams = parse(&request)?;
                let task = match &params {
                    ElicitRequestParams::Form(p) => p.task.clone(),
                    ElicitRequestParams::Url(p) => p.task.clone(),
                };
                // Refused at once, before any task is made for it (the session declared
                // what the callbacks declare).
                if !self.callbacks.declares(&self.callbacks.capabilities(), &params) {
                    return Err(McpError::invalid_params(
                        "URL-mode elicitation was not declared by this client",
                    ));
                }
                let callbacks = self.callbacks.clone();
                self.run(task, async move { raw(&callbacks.elicit(params).await?) }).await
            }
            methods::TASKS_GET | methods::TASKS_RESULT | methods::TASKS_LIST | methods::TASKS_CANCEL => {
                match &self.tasks {
                    Some(tasks) => tasks.serve(&request).await,
                    None => Err(McpError::method_not_found(&request.method)),
                }
            }
            methods::ROOTS_LIST if self.callbacks.roots.is_some() => raw(&self.callbacks.roots().await?),
            methods::PING => raw(&serde_json::json!({})),
            other => Err(McpError::method_not_found(other)),
        }
    }
}

impl ClientHandler {
    /// Answers with `work`'s result, or, when the server asked for a task (`task`) and
    /// this client runs them, with the new task while `work` goes on in the background.
    async fn run(
        &self,
        task: Option<mcpwire_protocol::tasks::TaskMetadata>,
        work: impl std::future::Future<Output = Result<RawJson, McpError>> + Send + 'static,
    ) -> Result<RawJson, McpError> {
        match (&self.tasks, task) {
            (Some(tasks), Some(task)) => tasks.start(&task, Box::pin(work)).await,
            _ => work.await,
        }
    }
}
