//! Multi round-trip requests (2026): instead of sending requests to the client, a server
//! answers `tools/call`, `prompts/get` or `resources/read` with an `input_required`
//! result; the client fulfils the input requests and retries with `inputResponses` and
//! the unchanged `requestState`.
//!
//! The 2026 tasks extension reuses [`InputRequests`] and [`InputResponses`] for
//! `tasks/get` and `tasks/update`. How a caller tells such a result from the request's
//! own is [`crate::outcome`].

use std::collections::BTreeMap;

use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::common::JsonObject;
use crate::elicitation::{ElicitRequestParams, ElicitResult, UrlElicitationRequiredData};
use crate::jsonrpc::MethodCall;
use crate::meta::Meta;
use crate::methods;
use crate::result::ResultType;
use crate::roots::{ListRootsRequestParams, ListRootsResult};
use crate::sampling::{CreateMessageRequestParams, CreateMessageResult};

/// One input request: `{method, params}` only (no `jsonrpc`, no `id`).
#[derive(Clone, Debug, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit(ElicitRequestParams),
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageRequestParams),
    /// `roots/list` (params are optional).
    ListRoots(Option<ListRootsRequestParams>),
    /// Any other method (not valid in core 2026; an extension may define more), kept
    /// verbatim.
    Other(MethodCall<Value>),
}

impl InputRequest {
    /// The method name.
    pub fn method(&self) -> &str {
        match self {
            InputRequest::Elicit(_) => methods::ELICITATION_CREATE,
            InputRequest::CreateMessage(_) => methods::SAMPLING_CREATE_MESSAGE,
            InputRequest::ListRoots(_) => methods::ROOTS_LIST,
            InputRequest::Other(call) => &call.method,
        }
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Call<'a, P> {
            method: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            params: Option<&'a P>,
        }
        match self {
            InputRequest::Elicit(p) => Call { method: self.method(), params: Some(p) }.serialize(serializer),
            InputRequest::CreateMessage(p) => {
                Call { method: self.method(), params: Some(p) }.serialize(serializer)
            }
            InputRequest::ListRoots(p) => {
                Call { method: self.method(), params: p.as_ref() }.serialize(serializer)
            }
            InputRequest::Other(call) => call.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let call = MethodCall::<Value>::deserialize(deserializer)?;
        fn params<T: DeserializeOwned, E: de::Error>(p: Option<Value>, method: &str) -> Result<T, E> {
            let p = p.ok_or_else(|| E::custom(format!("{method} input request needs params")))?;
            T::deserialize(p).map_err(E::custom)
        }
        Ok(match call.method.as_str() {
            methods::ELICITATION_CREATE => InputRequest::Elicit(params(call.params, &call.method)?),
            methods::SAMPLING_CREATE_MESSAGE => {
                InputRequest::CreateMessage(params(call.params, &call.method)?)
            }
            methods::ROOTS_LIST => InputRequest::ListRoots(match call.params {
                Some(p) => Some(ListRootsRequestParams::deserialize(p).map_err(de::Error::custom)?),
                None => None,
            }),
            _ => InputRequest::Other(call),
        })
    }
}

impl From<ElicitRequestParams> for InputRequest {
    fn from(p: ElicitRequestParams) -> Self {
        InputRequest::Elicit(p)
    }
}
impl From<CreateMessageRequestParams> for InputRequest {
    fn from(p: CreateMessageRequestParams) -> Self {
        InputRequest::CreateMessage(p)
    }
}
impl From<ListRootsRequestParams> for InputRequest {
    fn from(p: ListRootsRequestParams) -> Self {
        InputRequest::ListRoots(Some(p))
    }
}

/// Input requests by key. Keys are unique within the request (within a task's whole
/// lifetime, for the tasks extension).
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The URLs of a 2025-era `-32042` error (URL elicitation required) as the input requests
/// of a 2026 `input_required` round, the revision having no such error: each keyed by its
/// `elicitationId` (which a 2026 question does not carry), or `url-N` for the `N`th one
/// without, and sent with no `task` and no `_meta`. A server turning its handler's
/// `-32042` into a round and a proxy relaying a 2025 upstream's both need this.
pub fn url_elicitations_as_input_requests(data: UrlElicitationRequiredData) -> InputRequests {
    let mut requests = InputRequests::new();
    for (i, mut url) in data.elicitations.into_iter().enumerate() {
        let key = url.elicitation_id.take().unwrap_or_else(|| format!("url-{i}"));
        url.task = None;
        url.meta = None;
        requests.insert(key, InputRequest::Elicit(ElicitRequestParams::Url(url)));
    }
    requests
}

/// One answer to an input request. The wire form has no discriminator, so parsing goes by
/// shape: `action` is an elicitation result, `roots` a roots result, `model`, `role` or
/// `content` a sampling result; anything else is kept as [`InputResponse::Other`]. A
/// response that has a known shape but is malformed is an error.
#[derive(Clone, Debug, PartialEq)]
// With serde_json's `preserve_order` (enabled in any build that includes the CLI) a map
// is larger than an elicitation result; most answers are elicitation results, so the
// rare `Other` stays unboxed rather than every answer paying for a box.
#[allow(clippy::large_enum_variant)]
pub enum InputResponse {
    /// The answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// The answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// The answer to `roots/list`.
    ListRoots(ListRootsResult),
    /// An answer of no known shape, kept verbatim.
    Other(JsonObject),
}

impl InputResponse {
    /// The elicitation result, if this is one.
    pub fn as_elicit(&self) -> Option<&ElicitResult> {
        match self {
            InputResponse::Elicit(r) => Some(r),
            _ => None,
        }
    }

    /// The sampling result, if this is one.
    pub fn as_create_message(&self) -> Option<&CreateMessageResult> {
        match self {
            InputResponse::CreateMessage(r) => Some(r),
            _ => None,
        }
    }

    /// The roots result, if this is one.
    pub fn as_list_roots(&self) -> Option<&ListRootsResult> {
        match self {
            InputResponse::ListRoots(r) => Some(r),
            _ => None,
        }
    }
}

impl Serialize for InputResponse {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            InputResponse::Elicit(r) => r.serialize(serializer),
            InputResponse::CreateMessage(r) => r.serialize(serializer),
            InputResponse::ListRoots(r) => r.serialize(serializer),
            InputResponse::Other(r) => r.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let map = JsonObject::deserialize(deserializer)?;
        let (elicit, roots) = (map.contains_key("action"), map.contains_key("roots"));
        let sampling = ["model", "role", "content"].iter().any(|k| map.contains_key(*k));
        if !(elicit || roots || sampling) {
            return Ok(InputResponse::Other(map));
        }
        let value = Value::Object(map);
        let parsed = if elicit {
            ElicitResult::deserialize(value).map(InputResponse::Elicit)
        } else if roots {
            ListRootsResult::deserialize(value).map(InputResponse::ListRoots)
        } else {
            CreateMessageResult::deserialize(value).map(InputResponse::CreateMessage)
        };
        parsed.map_err(de::Error::custom)
    }
}

impl From<ElicitResult> for InputResponse {
    fn from(r: ElicitResult) -> Self {
        InputResponse::Elicit(r)
    }
}
impl From<CreateMessageResult> for InputResponse {
    fn from(r: CreateMessageResult) -> Self {
        InputResponse::CreateMessage(r)
    }
}
impl From<ListRootsResult> for InputResponse {
    fn from(r: ListRootsResult) -> Self {
        InputResponse::ListRoots(r)
    }
}

/// Answers to input requests, by the keys of the requests they answer.
pub type InputResponses = BTreeMap<String, InputResponse>;

/// The most answers one request may carry in `inputResponses` (a retry, or a tasks
/// extension `tasks/update`), and so the most input requests one round may ask. A round
/// asks a handful of questions; answers past this bound answer nothing that was asked
/// and would only cost the server memory, so the request is refused as invalid params
/// ([`bounded_input_responses`]) rather than read whole.
pub const MAX_INPUT_RESPONSES: usize = 100;

/// Reads `inputResponses`, refusing a map of more than [`MAX_INPUT_RESPONSES`] entries as
/// it is read, before the rest is parsed or held. For `#[serde(deserialize_with)]`.
pub fn bounded_input_responses<'de, D: Deserializer<'de>>(d: D) -> Result<InputResponses, D::Error> {
    d.deserialize_map(BoundedResponses).map(Option::unwrap_or_default)
}

/// [`bounded_input_responses`] for an optional member (`null` reads as absent).
pub fn bounded_optional_input_responses<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<InputResponses>, D::Error> {
    d.deserialize_option(BoundedResponses)
}

/// Reads a map of answers, at most [`MAX_INPUT_RESPONSES`] of them.
struct BoundedResponses;

impl<'de> de::Visitor<'de> for BoundedResponses {
    type Value = Option<InputResponses>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "an object of at most {MAX_INPUT_RESPONSES} answers")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut answers = InputResponses::new();
        while let Some(key) = map.next_key::<String>()? {
            if answers.len() == MAX_INPUT_RESPONSES && !answers.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "inputResponses holds more than {MAX_INPUT_RESPONSES} answers (at most {MAX_INPUT_RESPONSES} in one request)"
                )));
            }
            let answer = map.next_value()?;
            answers.insert(key, answer);
        }
        Ok(Some(answers))
    }
}

/// An `input_required` result (2026): the server needs the client's input before it can
/// answer. At least one of `inputRequests` and `requestState` must be present.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// `resultType`: `input_required`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// What the client must fulfil before retrying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque state to echo unchanged on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InputRequiredResult {
    /// An empty `input_required` result; add requests or state before sending it.
    pub fn new() -> Self {
        InputRequiredResult { result_type: Some(ResultType::InputRequired), ..Default::default() }
    }

    /// Adds the input request `key`.
    pub fn with_request(mut self, key: impl Into<String>, request: impl Into<InputRequest>) -> Self {
        self.input_requests.get_or_insert_with(BTreeMap::new).insert(key.into(), request.into());
        self
    }

    /// Sets `requestState`.
    pub fn with_state(mut self, state: impl Into<String>) -> Self {
        self.request_state = Some(state.into());
        self
    }

    /// Whether the result has what the spec requires: at least one of `inputRequests`
    /// and `requestState`.
    pub fn is_well_formed(&self) -> bool {
        self.input_requests.is_some() || self.request_state.is_some()
    }
}

/// The retry fields every multi round-trip capable request has (`InputResponseRequestParams`
/// in the 2026 schema): `inputResponses`, `requestState` and `_meta`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputResponseRequestParams {
    /// Answers to the input requests.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "bounded_optional_input_responses"
    )]
    pub input_responses: Option<InputResponses>,
    /// The `requestState`, echoed unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `_meta`: the required 2026 envelope.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn input_requests_and_responses_round_trip() {
        let v = json!({
            "a": {"method": "roots/list"},
            "b": {"method": "roots/list", "params": {}},
            "c": {"method": "x/custom", "params": {"k": 1}},
            "d": {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x"}}
        });
        let reqs: InputRequests = serde_json::from_value(v.clone()).unwrap();
        assert!(matches!(reqs["a"], InputRequest::ListRoots(None)));
        assert!(matches!(reqs["c"], InputRequest::Other(_)));
        assert_eq!(serde_json::to_value(&reqs).unwrap(), v);
        assert!(serde_json::from_value::<InputRequest>(json!({"method": "elicitation/create"})).is_err());

        let r = json!({
            "e": {"action": "decline"},
            "r": {"roots": []},
            "s": {"role": "assistant", "content": {"type": "text", "text": "t"}, "model": "m"},
            "o": {"something": "else"}
        });
        let resps: InputResponses = serde_json::from_value(r.clone()).unwrap();
        assert!(resps["e"].as_elicit().is_some());
        assert!(resps["r"].as_list_roots().is_some());
        assert!(resps["s"].as_create_message().is_some());
        assert!(matches!(resps["o"], InputResponse::Other(_)));
        assert_eq!(serde_json::to_value(&resps).unwrap(), r);
        assert!(serde_json::from_value::<InputResponse>(json!({"action": "perhaps"})).is_err());
    }

    #[test]
    fn url_elicitations_are_keyed_by_their_ids_or_their_places() {
        let data: UrlElicitationRequiredData = serde_json::from_value(json!({ "elicitations": [
            { "mode": "url", "url": "https://x/a", "message": "a", "elicitationId": "e-1",
              "_meta": { "k": 1 } },
            { "mode": "url", "url": "https://x/b", "message": "b" },
        ] }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(url_elicitations_as_input_requests(data)).unwrap(),
            json!({
                "e-1": { "method": "elicitation/create",
                    "params": { "mode": "url", "url": "https://x/a", "message": "a" } },
                "url-1": { "method": "elicitation/create",
                    "params": { "mode": "url", "url": "https://x/b", "message": "b" } },
            })
        );
    }

    #[test]
    fn builder() {
        let r = InputRequiredResult::new()
            .with_request("roots", ListRootsRequestParams::default())
            .with_state("opaque");
        assert!(r.is_well_formed());
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"resultType": "input_required", "inputRequests": {"roots": {"method": "roots/list", "params": {}}}, "requestState": "opaque"})
        );
        assert!(!InputRequiredResult::new().is_well_formed());
    }
}
