//! The client's side of the dispatcher: answers the server's requests (2025 era) through
//! the callbacks, and hands log messages to the log callback in wire order with progress.
//! The other notifications the client acts on (list changes, listen streams) are routed
//! before they reach the dispatcher (see [`super::router`]).

use mcpwire_protocol::logging::LoggingMessageNotificationParams;
use mcpwire_protocol::{methods, Notification, RawJson, Request};
use serde::de::DeserializeOwned;

use super::callbacks::Callbacks;
use crate::error::McpError;
use crate::jsonrpc::{Handler, RequestContext};

pub(crate) struct ClientHandler {
    pub(crate) callbacks: Callbacks,
}

fn parse<T: DeserializeOwned>(request: &Request) -> Result<T, McpError> {
    request.parse_params().map_err(|e| McpError::invalid_params(format!("Invalid params: {e}")))
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
        match request.method.as_str() {
            methods::SAMPLING_CREATE_MESSAGE if self.callbacks.sampling.is_some() => {
                raw(&self.callbacks.sample(parse(&request)?).await?)
            }
            methods::ELICITATION_CREATE if self.callbacks.elicitation.is_some() => {
                let params: mcpwire_protocol::elicitation::ElicitRequestParams = parse(&request)?;
                if matches!(params, mcpwire_protocol::elicitation::ElicitRequestParams::Url(_))
                    && !self.callbacks.elicitation_url
                {
                    return Err(McpError::invalid_params(
                        "URL-mode elicitation was not declared by this client",
                    ));
                }
                raw(&self.callbacks.elicit(params).await?)
            }
            methods::ROOTS_LIST if self.callbacks.roots.is_some() => raw(&self.callbacks.roots().await?),
            methods::PING => raw(&serde_json::json!({})),
            other => Err(McpError::method_not_found(other)),
        }
    }
}
