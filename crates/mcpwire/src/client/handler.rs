//! The client's side of the dispatcher: answers the server's requests (2025 era) through
//! the callbacks, and routes notifications (log messages, list changes, listen streams).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcpwire_protocol::logging::LoggingMessageNotificationParams;
use mcpwire_protocol::notifications::subscription_id;
use mcpwire_protocol::{methods, IdKey, Notification, RawJson, Request};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use tokio::sync::mpsc;

use super::cache::Cache;
use super::callbacks::{Callbacks, ServerChange};
use crate::error::McpError;
use crate::jsonrpc::{Handler, NotificationContext, RequestContext};

/// Open `subscriptions/listen` streams, by subscription id.
pub(crate) type Listeners = Arc<Mutex<HashMap<IdKey, mpsc::Sender<Notification>>>>;

pub(crate) struct ClientHandler {
    pub(crate) callbacks: Callbacks,
    pub(crate) cache: Arc<Cache>,
    pub(crate) listeners: Listeners,
}

fn parse<T: DeserializeOwned>(request: &Request) -> Result<T, McpError> {
    request.parse_params().map_err(|e| McpError::invalid_params(format!("Invalid params: {e}")))
}

fn raw<T: serde::Serialize>(value: &T) -> Result<RawJson, McpError> {
    Ok(serde_json::value::to_raw_value(value)?)
}

impl Handler for ClientHandler {
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

    async fn on_notification(&self, notification: Notification, _ctx: NotificationContext) {
        // Listen-stream frames carry their subscription id.
        #[derive(Deserialize)]
        struct MetaProbe {
            #[serde(rename = "_meta")]
            meta: Option<mcpwire_protocol::Meta>,
        }
        let meta = notification.parse_params::<MetaProbe>().ok().and_then(|p| p.meta);
        if let Some(id) = subscription_id(meta.as_ref()) {
            let sender = self.listeners.lock().unwrap_or_else(|e| e.into_inner()).get(&id.key()).cloned();
            if let Some(sender) = sender {
                self.apply_change(&notification);
                let _ = sender.try_send(notification);
                return;
            }
        }
        match notification.method.as_str() {
            methods::NOTIFICATION_MESSAGE => {
                if let (Some(log), Ok(params)) =
                    (&self.callbacks.log, notification.parse_params::<LoggingMessageNotificationParams>())
                {
                    log(params);
                }
            }
            _ => self.apply_change(&notification),
        }
    }
}

impl ClientHandler {
    /// Invalidates cached lists on a change notification and tells the user.
    fn apply_change(&self, notification: &Notification) {
        let change = match notification.method.as_str() {
            methods::NOTIFICATION_TOOLS_LIST_CHANGED => ServerChange::ToolsChanged,
            methods::NOTIFICATION_PROMPTS_LIST_CHANGED => ServerChange::PromptsChanged,
            methods::NOTIFICATION_RESOURCES_LIST_CHANGED => ServerChange::ResourcesChanged,
            methods::NOTIFICATION_RESOURCES_UPDATED => {
                #[derive(Deserialize)]
                struct Updated {
                    uri: String,
                }
                match notification.parse_params::<Updated>() {
                    Ok(u) => ServerChange::ResourceUpdated(u.uri),
                    Err(_) => return,
                }
            }
            _ => return,
        };
        self.cache.invalidate(&change);
        if let Some(f) = &self.callbacks.change {
            f(change);
        }
    }
}
