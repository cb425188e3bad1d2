//! Which client capability a question to the client needs: the server must not ask what
//! the client did not declare (a 2025 request to the client, or a 2026 input request,
//! whether `ctx.elicit` and friends asked it or a handler built the `input_required`
//! result by hand).

use mcpwire_protocol::capabilities::ClientCapabilities;
use mcpwire_protocol::elicitation::ElicitRequestParams;
use mcpwire_protocol::mrtr::{InputRequest, InputRequests};
use mcpwire_protocol::sampling::CreateMessageRequestParams;
use serde_json::{json, Value};

use crate::error::McpError;

/// The `requiredCapabilities` an elicitation needs that `caps` lacks: `elicitation.form`
/// for a form (an empty `elicitation` declares form), `elicitation.url` for a URL.
pub(crate) fn elicitation(caps: &ClientCapabilities, params: &ElicitRequestParams) -> Option<Value> {
    let mode = match params {
        ElicitRequestParams::Url(_) => "url",
        ElicitRequestParams::Form(_) => "form",
    };
    (!caps.declares_elicitation_of(params)).then(|| json!({ "elicitation": { mode: {} } }))
}

/// The `requiredCapabilities` a sampling request needs that `caps` lacks: `sampling`, and
/// `sampling.tools` when it offers tools.
pub(crate) fn sampling(caps: &ClientCapabilities, params: &CreateMessageRequestParams) -> Option<Value> {
    match &caps.sampling {
        None => Some(json!({ "sampling": {} })),
        Some(s) if params.tools.is_some() && s.tools.is_none() => {
            Some(json!({ "sampling": { "tools": {} } }))
        }
        Some(_) => None,
    }
}

/// The `requiredCapabilities` a roots request needs that `caps` lacks.
pub(crate) fn roots(caps: &ClientCapabilities) -> Option<Value> {
    caps.roots.is_none().then(|| json!({ "roots": {} }))
}

/// Checks the input requests of a 2026 `input_required` result against `caps`, what the
/// request declared: the `requiredCapabilities` the first of them lacks (`Ok(Some)`), or
/// an internal error for a request of no kind a client answers (only elicitation,
/// sampling and roots may be asked).
pub(crate) fn input_requests(
    caps: &ClientCapabilities,
    requests: Option<&InputRequests>,
) -> Result<Option<Value>, McpError> {
    for (key, request) in requests.into_iter().flatten() {
        let required = match request {
            InputRequest::Elicit(params) => elicitation(caps, params),
            InputRequest::CreateMessage(params) => sampling(caps, params),
            InputRequest::ListRoots(_) => roots(caps),
            InputRequest::Other(call) => {
                return Err(McpError::internal(format!(
                    "input request {key:?} asks {:?}; only elicitation, sampling and roots may be asked",
                    call.method
                )))
            }
        };
        if required.is_some() {
            return Ok(required);
        }
    }
    Ok(None)
}
