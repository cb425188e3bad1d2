//! A 2025 upstream's `-32042` (URL elicitation required) in the terms of a 2026 client,
//! whose revision has no such error: the URLs it names become the input requests of an
//! `input_required` round, as the SDK's own server turns its handlers' `-32042` into one.
//! The client opens them and retries; the proxy then makes the call again upstream, which
//! is what a 2025 client does after the error (the upstream server, not the proxy, knows
//! whether the user did what it asked).

use mcpwire::protocol::capabilities::ClientCapabilities;
use mcpwire::protocol::elicitation::UrlElicitationRequiredData;
use mcpwire::protocol::mrtr::{url_elicitations_as_input_requests, InputRequests};
use mcpwire::protocol::{codes, ErrorObject};
use mcpwire::RequestError;

/// The input requests standing for `error` when it is an upstream `-32042` with the URLs
/// in its `data` and the client (`declared`) can be asked for URLs; `None` otherwise (the
/// error then goes on as it is, and the SDK's server says what the client lacks). Each
/// request is keyed by its `elicitationId` (which 2026 does not carry in the request).
pub fn as_input_requests(error: &RequestError, declared: &ClientCapabilities) -> Option<InputRequests> {
    let RequestError::Peer(ErrorObject { code: codes::URL_ELICITATION_REQUIRED, data: Some(data), .. }) =
        error
    else {
        return None;
    };
    if !declared.elicitation.as_ref().is_some_and(|e| e.supports_url()) {
        return None;
    }
    let data: UrlElicitationRequiredData = serde_json::from_value(data.clone()).ok()?;
    let requests = url_elicitations_as_input_requests(data);
    (!requests.is_empty()).then_some(requests)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn required() -> RequestError {
        let data = json!({ "elicitations": [{ "mode": "url", "url": "https://example.com/consent",
            "message": "Open it", "elicitationId": "e-1" }] });
        RequestError::Peer(ErrorObject::new(codes::URL_ELICITATION_REQUIRED, "needs a URL").with_data(data))
    }

    fn declaring(url: bool) -> ClientCapabilities {
        let elicitation = if url { json!({ "form": {}, "url": {} }) } else { json!({ "form": {} }) };
        serde_json::from_value(json!({ "elicitation": elicitation })).unwrap()
    }

    #[test]
    fn the_urls_become_input_requests_keyed_by_their_ids() {
        let requests = as_input_requests(&required(), &declaring(true)).unwrap();
        assert_eq!(
            serde_json::to_value(&requests).unwrap(),
            json!({ "e-1": { "method": "elicitation/create", "params": {
                "mode": "url", "message": "Open it", "url": "https://example.com/consent" } } })
        );
    }

    #[test]
    fn anything_else_goes_on_as_it_is() {
        assert!(as_input_requests(&required(), &declaring(false)).is_none());
        let other = RequestError::Peer(ErrorObject::new(codes::INTERNAL_ERROR, "no"));
        assert!(as_input_requests(&other, &declaring(true)).is_none());
        let no_data = RequestError::Peer(ErrorObject::new(codes::URL_ELICITATION_REQUIRED, "no data"));
        assert!(as_input_requests(&no_data, &declaring(true)).is_none());
    }
}
