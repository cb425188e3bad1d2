//! The 2026 multi round-trip loop: on `input_required`, resolve every input request
//! through the callbacks, then retry (a new request id) with `inputResponses` under the
//! same keys and the `requestState` echoed byte for byte, up to a round cap.

use std::time::Duration;

use mcpwire_protocol::mrtr::{InputRequest, InputRequiredResult};
use mcpwire_protocol::{methods, RawJson, ResultType};
use serde_json::{json, Map, Value};

use super::callbacks::Callbacks;
use super::{Client, RequestOptions};
use crate::error::RequestError;
use crate::jsonrpc::CallOptions;

/// Most input requests one `input_required` result (or one poll of a task) may ask at
/// once: far more than a server needs (a whole form is one elicitation), and a bound on
/// the callbacks a hostile server can set off before anything else stops it. The same
/// bound as the answers a server takes in one request.
pub(crate) const MAX_INPUT_REQUESTS: usize = mcpwire_protocol::mrtr::MAX_INPUT_RESPONSES;

/// `Err` when a server asks more than [`MAX_INPUT_REQUESTS`] at once.
pub(crate) fn check_input_count(method: &str, count: usize) -> Result<(), RequestError> {
    match count > MAX_INPUT_REQUESTS {
        true => Err(RequestError::Protocol(format!(
            "{method}: the server asked for {count} inputs at once, more than the {MAX_INPUT_REQUESTS} this client answers"
        ))),
        false => Ok(()),
    }
}

impl Client {
    /// Sends `method` and follows `input_required` rounds until a complete result. The
    /// call's timeout bounds the whole exchange, the callbacks' time included (as it does
    /// in the 2025 era, where the server waits for them within the one request); when
    /// progress starts each round's timeout again, the call's maximum bounds it instead.
    /// The call's cancel ends it at once too, a callback still answering or not.
    pub(crate) async fn send_with_input(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Result<RawJson, RequestError> {
        self.send_with_input_rounds(method, params, options).await.map(|(raw, _)| raw)
    }

    /// [`Client::send_with_input`], saying also whether the result answered a retry (one
    /// that followed `input_required` rounds): such a result is never cached.
    pub(crate) async fn send_with_input_rounds(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Result<(RawJson, bool), RequestError> {
        let timeout = options.whole_call_limit().unwrap_or(self.inner.options.request_timeout);
        let rounds = tokio::time::timeout(timeout, self.input_rounds(method, params, options));
        let bounded = match &options.cancel {
            // A cancel while a round's request is in flight ends that request, which says
            // so to the server; one between rounds (while the callbacks answer) has
            // nothing in flight to tell of.
            Some(token) => tokio::select! {
                biased;
                bounded = rounds => bounded,
                () = token.cancelled() => return Err(RequestError::Cancelled { method: method.to_owned() }),
            },
            None => rounds.await,
        };
        match bounded {
            Ok(outcome) => outcome,
            // Dropping the rounds cancelled a request in flight, if there was one.
            Err(_) => Err(RequestError::Timeout { method: method.to_owned(), timeout }),
        }
    }

    async fn input_rounds(
        &self,
        method: &str,
        params: Map<String, Value>,
        options: &RequestOptions,
    ) -> Result<(RawJson, bool), RequestError> {
        let max_rounds = self.inner.options.max_input_rounds;
        let mut responses: Option<Map<String, Value>> = None;
        let mut state: Option<String> = None;
        let mut backoff = Duration::from_millis(50);
        for n in 0..=max_rounds {
            let mut round = params.clone();
            if let Some(r) = responses.take() {
                round.insert("inputResponses".into(), Value::Object(r));
            }
            if let Some(s) = state.take() {
                round.insert("requestState".into(), Value::String(s));
            }
            let (kind, raw) = self.send(method, round, options).await?;
            match kind {
                ResultType::Complete => return Ok((raw, n > 0)),
                // The caller follows the task (only a tool call may become one).
                ResultType::Task if method == methods::TOOLS_CALL => return Ok((raw, n > 0)),
                ResultType::InputRequired => {
                    let result: InputRequiredResult =
                        serde_json::from_str(raw.get()).map_err(RequestError::InvalidResult)?;
                    state = result.request_state;
                    let requests = result.input_requests.unwrap_or_default();
                    check_input_count(method, requests.len())?;
                    if requests.is_empty() {
                        if state.is_none() {
                            return Err(RequestError::Protocol(
                                "an input_required result with neither inputRequests nor requestState".into(),
                            ));
                        }
                        // State only (the server is busy, say): retry after a short pause.
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(Duration::from_millis(250));
                        continue;
                    }
                    // The callbacks may take long (a person answering a form): stop
                    // waiting for them if the connection goes away meanwhile.
                    let answer_all = async {
                        let mut answers = Map::new();
                        for (key, request) in requests {
                            answers.insert(key, self.resolve(request, options).await?);
                        }
                        Ok::<_, RequestError>(answers)
                    };
                    responses = Some(tokio::select! {
                        answers = answer_all => answers?,
                        error = self.connection_closed() => return Err(error),
                    });
                }
                other => {
                    return Err(RequestError::Protocol(format!(
                        "unexpected resultType {:?} for {method}",
                        other.as_str()
                    )))
                }
            }
        }
        Err(RequestError::Protocol(format!(
            "{method} still needed input after {max_rounds} rounds; giving up"
        )))
    }

    /// Resolves once the connection has shut down, with the error a request would get
    /// (the transport's reason, such as the server's exit status, when it gave one).
    async fn connection_closed(&self) -> RequestError {
        let peer = &self.inner.peer;
        peer.closed().await;
        if peer.is_closed() {
            // On a closed connection a request fails at once, without being sent, with
            // the close reason.
            if let Err(error) = peer.request_raw(methods::PING, None, CallOptions::default()).await {
                return error;
            }
        }
        RequestError::ConnectionClosed { reason: None }
    }

    /// Answers one input request of a call made with `options` through the callbacks. An
    /// elicitation that call did not declare is declined, a failed one cancelled; a
    /// sampling or roots request that call did not declare, or that this client cannot
    /// answer, ends the call (the server is not waiting for a retry).
    pub(crate) async fn resolve(
        &self,
        request: InputRequest,
        options: &RequestOptions,
    ) -> Result<Value, RequestError> {
        let callbacks = &self.inner.callbacks;
        let declared = options.capabilities.as_ref().unwrap_or(self.inner.capabilities());
        let value = match request {
            // An elicitation the request did not declare (or one no callback can ask) is
            // declined without asking the user.
            InputRequest::Elicit(params) => match callbacks.declares(declared, &params) {
                false => json!({ "action": "decline" }),
                true => match callbacks.elicit(params).await {
                    Ok(result) => serde_json::to_value(result).map_err(RequestError::Encode)?,
                    Err(e) => {
                        tracing::debug!("elicitation failed ({e}); answering cancel");
                        json!({ "action": "cancel" })
                    }
                },
            },
            // Sampling and roots a request did not declare are the server's error, not a
            // question for this client's callbacks (as an undeclared elicitation is not).
            InputRequest::CreateMessage(_) if declared.sampling.is_none() => {
                return Err(undeclared("sampling/createMessage", "sampling"))
            }
            InputRequest::ListRoots(_) if declared.roots.is_none() => {
                return Err(undeclared("roots/list", "roots"))
            }
            // Tools in sampling need `sampling.tools` (the spec has the client refuse them
            // otherwise; an input request has no error answer, so the call ends).
            InputRequest::CreateMessage(params) if Callbacks::undeclared_tools(declared, &params) => {
                return Err(undeclared("sampling/createMessage with tools", "sampling.tools"))
            }
            InputRequest::CreateMessage(params) => {
                let result = callbacks
                    .sample(params)
                    .await
                    .map_err(|e| RequestError::Protocol(format!("sampling for the server failed: {e}")))?;
                serde_json::to_value(result).map_err(RequestError::Encode)?
            }
            InputRequest::ListRoots(_) => {
                let result = callbacks.roots().await.map_err(|e| {
                    RequestError::Protocol(format!("listing roots for the server failed: {e}"))
                })?;
                serde_json::to_value(result).map_err(RequestError::Encode)?
            }
            InputRequest::Other(call) => {
                return Err(RequestError::Protocol(format!(
                    "the server asked for {:?}, which this client cannot answer",
                    call.method
                )))
            }
        };
        Ok(value)
    }
}

/// The error of an input request of a kind the request that led to it did not declare.
fn undeclared(method: &str, capability: &str) -> RequestError {
    RequestError::Protocol(format!(
        "the server asked for {method}, though this request did not declare the {capability} capability"
    ))
}
