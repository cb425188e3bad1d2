//! The typed `data` of the errors whose data the spec defines.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::capabilities::ClientCapabilities;
use crate::error::{codes, ErrorObject};

/// `data` of `-32022` unsupported protocol version (2026; the 2025-era `initialize`
/// example uses the same shape with `-32602`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UnsupportedProtocolVersionData {
    /// The versions the server supports.
    pub supported: Vec<String>,
    /// The version the request asked for.
    pub requested: String,
}

/// `data` of `-32021` missing required client capability (2026).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRequiredClientCapabilityData {
    /// The capabilities the request would need (for an extension:
    /// `extensions["<id>"]`).
    pub required_capabilities: ClientCapabilities,
}

impl UnsupportedProtocolVersionData {
    /// The `-32022` error carrying this data.
    pub fn into_error(self, message: impl Into<String>) -> ErrorObject {
        with_data(codes::UNSUPPORTED_PROTOCOL_VERSION, message, &self)
    }
}

impl MissingRequiredClientCapabilityData {
    /// The `-32021` error carrying this data.
    pub fn into_error(self, message: impl Into<String>) -> ErrorObject {
        with_data(codes::MISSING_REQUIRED_CLIENT_CAPABILITY, message, &self)
    }
}

fn with_data<T: Serialize>(code: i64, message: impl Into<String>, data: &T) -> ErrorObject {
    let error = ErrorObject::new(code, message);
    match serde_json::to_value(data) {
        Ok(data) => error.with_data(data),
        Err(_) => error,
    }
}

/// Parses the `data` of `error` as `T`; `None` when there is no data or it has another
/// shape.
pub fn error_data<T: DeserializeOwned>(error: &ErrorObject) -> Option<T> {
    error.data.as_ref().and_then(|d| T::deserialize(d).ok())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn data_round_trips_through_the_error() {
        let e = UnsupportedProtocolVersionData {
            supported: vec!["2026-07-28".into()],
            requested: "1900-01-01".into(),
        }
        .into_error("Unsupported protocol version");
        assert_eq!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(e.data, Some(json!({"supported": ["2026-07-28"], "requested": "1900-01-01"})));
        let back: UnsupportedProtocolVersionData = error_data(&e).unwrap();
        assert_eq!(back.requested, "1900-01-01");
        assert!(error_data::<MissingRequiredClientCapabilityData>(&e).is_none());
    }
}
