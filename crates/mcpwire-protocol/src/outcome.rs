//! Any answer to a request that may need input (2026 multi round-trip requests, see
//! [`crate::mrtr`]) or become a task (the 2026 tasks extension): the request's own
//! result, an `input_required` result, or a task, told apart by `resultType`.
//!
//! ```
//! use mcpwire_protocol::{CallToolOutcome, Outcome};
//!
//! let answer: CallToolOutcome =
//!     serde_json::from_str(r#"{"resultType":"input_required","requestState":"s"}"#).unwrap();
//! assert!(matches!(answer, Outcome::InputRequired(_)));
//! ```

use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::jsonrpc::Response;
use crate::mrtr::InputRequiredResult;
use crate::prompts::GetPromptResult;
use crate::resources::ReadResourceResult;
use crate::result::ResultType;
use crate::tasks_ext::CreateTaskResult;
use crate::tools::CallToolResult;

/// Any answer to a request that may need input or (tasks extension, `tools/call` only)
/// become a task, told apart by `resultType`: `input_required`, `task`, and anything else
/// (including none, from a 2025-era peer) as the request's own result `T`. An unknown
/// `resultType` parses as `T`, whose `result_type` then tells the caller.
///
/// Parsing captures the result as raw JSON and reads `resultType` before parsing the
/// chosen type, without building a `Value` tree; it needs serde_json as the deserializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome<T> {
    /// The request's own result.
    Complete(T),
    /// The server needs input first.
    InputRequired(InputRequiredResult),
    /// The server made the request a task (2026 tasks extension).
    Task(CreateTaskResult),
}

impl<T: Serialize> Serialize for Outcome<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Complete(r) => r.serialize(serializer),
            Outcome::InputRequired(r) => r.serialize(serializer),
            Outcome::Task(r) => r.serialize(serializer),
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Outcome<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Peek {
            #[serde(rename = "resultType", default)]
            result_type: Option<ResultType>,
        }
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        let peek: Peek = serde_json::from_str(raw.get()).map_err(de::Error::custom)?;
        match peek.result_type {
            Some(ResultType::InputRequired) => serde_json::from_str(raw.get()).map(Outcome::InputRequired),
            Some(ResultType::Task) => serde_json::from_str(raw.get()).map(Outcome::Task),
            _ => serde_json::from_str(raw.get()).map(Outcome::Complete),
        }
        .map_err(de::Error::custom)
    }
}

impl<T> From<InputRequiredResult> for Outcome<T> {
    fn from(r: InputRequiredResult) -> Self {
        Outcome::InputRequired(r)
    }
}

/// Any answer to `tools/call`.
pub type CallToolOutcome = Outcome<CallToolResult>;
/// Any answer to `prompts/get` (never a task).
pub type GetPromptOutcome = Outcome<GetPromptResult>;
/// Any answer to `resources/read` (never a task).
pub type ReadResourceOutcome = Outcome<ReadResourceResult>;
/// The response to `tools/call`, whatever its result.
pub type CallToolOutcomeResponse = Response<CallToolOutcome>;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn outcome_dispatches_on_result_type() {
        let complete: CallToolOutcome = serde_json::from_str(r#"{"content":[]}"#).unwrap();
        assert!(matches!(complete, Outcome::Complete(_)));
        let input: CallToolOutcome =
            serde_json::from_str(r#"{"resultType":"input_required","requestState":"s"}"#).unwrap();
        assert!(matches!(input, Outcome::InputRequired(_)));
        let task: CallToolOutcome = serde_json::from_value(json!({
            "resultType": "task", "taskId": "t", "status": "working",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttlMs": null
        }))
        .unwrap();
        assert!(matches!(task, Outcome::Task(_)));
        let odd: CallToolOutcome = serde_json::from_str(r#"{"resultType":"odd","content":[]}"#).unwrap();
        assert!(matches!(
            odd,
            Outcome::Complete(CallToolResult { result_type: Some(ResultType::Other(_)), .. })
        ));
        assert!(serde_json::from_str::<CallToolOutcome>(
            r#"{"resultType":"input_required","inputRequests":1}"#
        )
        .is_err());
    }
}
