//! The client's side of the dispatcher: answers the server's requests (2025 era) through
//! the callbacks. The server's notifications are routed before they reach the dispatcher
//! (see [`super::router`]), so this handler never sees the ones the client acts on.

use mcpwire_protocol::{methods, RawJson, Request};
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
