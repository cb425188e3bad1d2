//! Lifecycle: the 2025-era `initialize` handshake and `ping`, the 2026 `server/discover`,
//! identities, and the 2026 per-request `_meta` envelope.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::capabilities::{ClientCapabilities, ServerCapabilities};
use crate::common::{cacheable, meta_only_params, notification, request, EmptyResult};
use crate::content::Icon;
use crate::jsonrpc::{Notification, Request, Response};
use crate::logging::LoggingLevel;
use crate::meta::{self, Meta};
use crate::methods;
use crate::result::{CacheScope, ResultType};
use crate::version::ProtocolVersion;

/// The name and version of an MCP implementation: `clientInfo`, `serverInfo`, and the
/// 2026 `_meta` keys `io.modelcontextprotocol/clientInfo` and `…/serverInfo`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// A programmatic name.
    pub name: String,
    /// The version.
    pub version: String,
    /// A display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// The implementation's website (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with a name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Implementation { name: name.into(), version: version.into(), ..Default::default() }
    }
}

/// `initialize` params (2025 era): the first request of a session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The newest revision the client supports.
    pub protocol_version: ProtocolVersion,
    /// The client's capabilities for the session.
    pub capabilities: ClientCapabilities,
    /// The client's identity.
    pub client_info: Implementation,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `initialize` (2025 era).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The revision the server chose: the client's, or another it supports.
    pub protocol_version: ProtocolVersion,
    /// The server's capabilities for the session.
    pub capabilities: ServerCapabilities,
    /// The server's identity.
    pub server_info: Implementation,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

meta_only_params!(
    /// `notifications/initialized` params (2025 era): the client finished initializing.
    InitializedNotificationParams
);

meta_only_params!(
    /// `ping` params (2025 era; removed in 2026). The result is an [`EmptyResult`].
    PingRequestParams
);

meta_only_params!(
    /// `server/discover` params (2026): only the `_meta` envelope.
    DiscoverRequestParams
);

/// The result of `server/discover` (2026): the versions, capabilities and instructions of
/// the server. Cacheable.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Every revision the server supports.
    pub supported_versions: Vec<ProtocolVersion>,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// How to use the server, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// How long the result stays fresh, in milliseconds.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_ttl",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the result.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_scope",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_scope: Option<CacheScope>,
    /// `_meta`, with `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

cacheable!(DiscoverResult);
request!(InitializeRequestParams => methods::INITIALIZE, InitializeResult);
request!(PingRequestParams => methods::PING, EmptyResult);
request!(DiscoverRequestParams => methods::SERVER_DISCOVER, DiscoverResult);
notification!(InitializedNotificationParams => methods::INITIALIZED);

/// `initialize`, as a whole message.
pub type InitializeRequest = Request<InitializeRequestParams>;
/// The response to `initialize`.
pub type InitializeResultResponse = Response<InitializeResult>;
/// `notifications/initialized`, as a whole message.
pub type InitializedNotification = Notification<InitializedNotificationParams>;
/// `ping`, as a whole message.
pub type PingRequest = Request<PingRequestParams>;
/// `server/discover`, as a whole message.
pub type DiscoverRequest = Request<DiscoverRequestParams>;
/// The response to `server/discover`.
pub type DiscoverResultResponse = Response<DiscoverResult>;

/// Builds the `_meta` envelope every 2026 request carries: the protocol version and the
/// client capabilities (both required), the client identity (recommended) and, to opt in
/// to log notifications for this request, a log level.
pub fn request_envelope(
    version: &ProtocolVersion,
    capabilities: &ClientCapabilities,
    client_info: Option<&Implementation>,
    log_level: Option<LoggingLevel>,
) -> Meta {
    let mut m = Meta::new();
    m.insert(meta::PROTOCOL_VERSION.to_owned(), Value::String(version.as_str().to_owned()));
    m.insert(meta::CLIENT_CAPABILITIES.to_owned(), to_value(capabilities));
    if let Some(info) = client_info {
        m.insert(meta::CLIENT_INFO.to_owned(), to_value(info));
    }
    if let Some(level) = log_level {
        m.insert(meta::LOG_LEVEL.to_owned(), Value::String(level.as_str().to_owned()));
    }
    m
}

/// The parts of a 2026 request envelope, read from a request's `_meta`.
///
/// The capabilities and the client's identity are shared: a server moves the envelope
/// several times on its way to the handler, and the contexts that hand it out clone it.
#[derive(Clone, Debug, PartialEq)]
pub struct RequestEnvelope {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub protocol_version: ProtocolVersion,
    /// `io.modelcontextprotocol/clientCapabilities`.
    pub client_capabilities: Arc<ClientCapabilities>,
    /// `io.modelcontextprotocol/clientInfo`, when present and well-formed.
    pub client_info: Option<Arc<Implementation>>,
    /// `io.modelcontextprotocol/logLevel`, when present.
    pub log_level: Option<LoggingLevel>,
}

/// Why a 2026 request's `_meta` envelope could not be read. Every case answers with
/// `-32602` (invalid params).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EnvelopeError {
    /// A required key is absent.
    Missing(&'static str),
    /// A key holds a value of the wrong shape.
    Invalid(&'static str),
}

impl std::fmt::Display for EnvelopeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EnvelopeError::Missing(k) => write!(f, "missing _meta member {k:?}"),
            EnvelopeError::Invalid(k) => write!(f, "invalid _meta member {k:?}"),
        }
    }
}

impl std::error::Error for EnvelopeError {}

impl RequestEnvelope {
    /// Reads the envelope from a request's `_meta` (`None` when the params had none).
    /// An ill-formed `clientInfo` is ignored (it is display-only); an ill-formed log
    /// level is an error.
    pub fn from_meta(meta: Option<&Meta>) -> Result<Self, EnvelopeError> {
        let meta = meta.ok_or(EnvelopeError::Missing(meta::PROTOCOL_VERSION))?;
        let protocol_version = match meta.get(meta::PROTOCOL_VERSION) {
            Some(Value::String(s)) => ProtocolVersion::parse(s),
            Some(_) => return Err(EnvelopeError::Invalid(meta::PROTOCOL_VERSION)),
            None => return Err(EnvelopeError::Missing(meta::PROTOCOL_VERSION)),
        };
        let client_capabilities = match meta.get(meta::CLIENT_CAPABILITIES) {
            Some(v) => ClientCapabilities::deserialize(v)
                .map(Arc::new)
                .map_err(|_| EnvelopeError::Invalid(meta::CLIENT_CAPABILITIES))?,
            None => return Err(EnvelopeError::Missing(meta::CLIENT_CAPABILITIES)),
        };
        let client_info =
            meta.get(meta::CLIENT_INFO).and_then(|v| Implementation::deserialize(v).ok()).map(Arc::new);
        let log_level = match meta.get(meta::LOG_LEVEL) {
            Some(v) => {
                Some(LoggingLevel::deserialize(v).map_err(|_| EnvelopeError::Invalid(meta::LOG_LEVEL))?)
            }
            None => None,
        };
        Ok(RequestEnvelope { protocol_version, client_capabilities, client_info, log_level })
    }

    /// [`RequestEnvelope::from_meta`], read from `_meta`'s JSON text (`None` when the
    /// params had none, or `null`) without building a [`Meta`] tree of it: the
    /// envelope's members are read straight into their types. When that reading does
    /// not settle it (a member of the wrong shape, a repeated member, text that is not
    /// an object), the tree is built and `from_meta` decides, so the answer is always
    /// `from_meta`'s.
    pub fn from_meta_text(meta: Option<&RawValue>) -> Result<Self, EnvelopeError> {
        let Some(text) = meta.map(RawValue::get).filter(|t| *t != "null") else {
            return Self::from_meta(None);
        };
        if let Some(envelope) = read_envelope(text) {
            return Ok(envelope);
        }
        let tree: Option<Meta> = serde_json::from_str(text).ok();
        Self::from_meta(tree.as_ref())
    }

    /// The envelope of a request's params text (checked JSON): `_meta` is found by
    /// [`skim`](crate::skim) without reading the other members, and its envelope members
    /// are read straight into their types. `Some` only when that settles it: the params
    /// are an object whose `_meta` envelope reads cleanly. Otherwise (no `_meta`, a member
    /// of the wrong shape, a repeated member, params that are not an object) it is `None`,
    /// and the caller reads the params as a tree, where [`RequestEnvelope::from_meta`]
    /// decides and words the error.
    pub fn from_params_text(params: &str) -> Option<Self> {
        let ([], meta) = crate::skim::members_within(params, [], "_meta", ENVELOPE_KEYS)?;
        envelope_of(meta?)
    }

    /// Writes the envelope as a `_meta` object.
    pub fn to_meta(&self) -> Meta {
        request_envelope(
            &self.protocol_version,
            &self.client_capabilities,
            self.client_info.as_deref(),
            self.log_level,
        )
    }
}

/// The envelope of a `_meta` text, read member by member: the four envelope members are
/// found by [`skim`](crate::skim) and each is read into its type. `Some` only when that
/// settles it: `_meta` is an object, the version (a string without escapes; with them,
/// never seen, the tree decides) and the capabilities are there, and every member present
/// reads, the identity included (the tree ignores an ill-formed one). A member holding
/// `null` is present and fails its type, as in a tree; a repeated member makes the skim
/// give up (a tree keeps the last). Otherwise `None`, and `from_meta` decides.
fn read_envelope(text: &str) -> Option<RequestEnvelope> {
    envelope_of(crate::skim::members(text, ENVELOPE_KEYS)?)
}

/// The `_meta` members of the envelope, in the order [`envelope_of`] takes them.
const ENVELOPE_KEYS: [&str; 4] =
    [meta::PROTOCOL_VERSION, meta::CLIENT_CAPABILITIES, meta::CLIENT_INFO, meta::LOG_LEVEL];

/// The envelope of its four members' raw text ([`ENVELOPE_KEYS`]), as [`read_envelope`]
/// settles it.
fn envelope_of([version, capabilities, info, level]: [Option<&str>; 4]) -> Option<RequestEnvelope> {
    let version = crate::skim::plain_string(version?)?;
    let client_info = match info {
        Some(raw) => Some(Arc::new(serde_json::from_str(raw).ok()?)),
        None => None,
    };
    let log_level = match level {
        Some(raw) => Some(serde_json::from_str::<LoggingLevel>(raw).ok()?),
        None => None,
    };
    Some(RequestEnvelope {
        protocol_version: ProtocolVersion::parse(version),
        client_capabilities: Arc::new(serde_json::from_str(capabilities?).ok()?),
        client_info,
        log_level,
    })
}

/// Serializes a value of this crate into a `Value`. These types serialize only strings,
/// numbers, booleans and string-keyed maps, which cannot fail.
fn to_value<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    /// `_meta` texts: well-formed envelopes and every kind of flaw.
    fn meta_cases() -> Vec<String> {
        let v = r#""io.modelcontextprotocol/protocolVersion""#;
        let c = r#""io.modelcontextprotocol/clientCapabilities""#;
        let i = r#""io.modelcontextprotocol/clientInfo""#;
        let l = r#""io.modelcontextprotocol/logLevel""#;
        vec![
            format!(r#"{{{v}:"2026-07-28",{c}:{{}},{i}:{{"name":"a","version":"1"}}}}"#),
            format!(r#"{{"progressToken":7,{v}:"2026-07-28",{c}:{{"roots":{{}},"x-y":[1]}},{l}:"debug"}}"#),
            format!(r#"{{{v}:"2026-\u0030\u0037-28",{c}:{{}}}}"#),
            format!(r#"{{{v}:"1999-01-01",{c}:{{}}}}"#),
            format!(r#"{{{v}:"2026-07-28"}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:null}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:[]}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{"roots":5}}}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{}},{i}:null}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{}},{i}:{{"name":3}}}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{}},{l}:null}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{}},{l}:"loud"}}"#),
            format!(r#"{{{v}:null,{c}:{{}}}}"#),
            format!(r#"{{{v}:20260728,{c}:{{}}}}"#),
            format!(r#"{{{c}:{{}}}}"#),
            format!(r#"{{{v}:"2025-11-25",{c}:{{}},{v}:"2026-07-28"}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{"roots":{{}},"roots":{{"listChanged":true}}}}}}"#),
            "{}".to_owned(),
            "null".to_owned(),
            "[1]".to_owned(),
            format!(r#"["2026-07-28",{{}}]"#),
            "\"text\"".to_owned(),
        ]
    }

    /// `from_meta_text` answers what `from_meta` answers on the parsed object, whatever
    /// the text: well-formed envelopes (read directly) and every kind of flaw (decided
    /// by the tree).
    #[test]
    fn envelope_from_text_agrees_with_the_tree() {
        let cases = meta_cases();
        for text in &cases {
            let raw = RawValue::from_string(text.clone()).unwrap();
            let tree: Option<Meta> = serde_json::from_str(text).ok();
            let expected = RequestEnvelope::from_meta(tree.as_ref());
            assert_eq!(RequestEnvelope::from_meta_text(Some(&raw)), expected, "{text}");
        }
        assert_eq!(RequestEnvelope::from_meta_text(None), RequestEnvelope::from_meta(None));
        let direct = read_envelope(&cases[0]).unwrap();
        assert_eq!(direct.client_info.unwrap().name, "a");
    }

    /// `from_params_text` answers what the tree answers, or leaves it to the tree: for
    /// every `_meta` text, wherever `_meta` sits among other members, and for params that
    /// are not an object. The well-formed envelopes are read in the one pass.
    #[test]
    fn envelope_from_params_agrees_with_the_tree() {
        let args = r#""arguments":{"_meta":{"x":1},"list":[1,{"b":"c\"d"}],"n":null}"#;
        for (i, text) in meta_cases().iter().enumerate() {
            for params in [
                format!(r#"{{"_meta":{text}}}"#),
                format!(r#"{{"name":"echo",{args},"_meta":{text}}}"#),
                format!(r#" {{"_meta":{text},{args},"uri":"a://b"}}"#),
            ] {
                let tree: Value = serde_json::from_str(&params).unwrap();
                let meta: Option<Meta> =
                    tree.get("_meta").and_then(|m| serde_json::from_value(m.clone()).ok());
                let expected = RequestEnvelope::from_meta(meta.as_ref());
                match RequestEnvelope::from_params_text(&params) {
                    Some(read) => assert_eq!(Ok(read), expected, "{params}"),
                    None => assert!(
                        i > 1 || expected.is_err(),
                        "a well-formed envelope was left to the tree: {params}"
                    ),
                }
            }
        }
        let first = &meta_cases()[0];
        for params in ["{}".to_owned(), r#"{"_meta":null}"#.to_owned(), format!("[{first}]"), "[]".to_owned()]
        {
            assert_eq!(RequestEnvelope::from_params_text(&params), None, "{params}");
        }
    }

    #[test]
    fn envelope_round_trip() {
        let caps = ClientCapabilities { roots: Some(Default::default()), ..Default::default() };
        let info = Implementation::new("c", "1");
        let m = request_envelope(&ProtocolVersion::V2026_07_28, &caps, Some(&info), Some(LoggingLevel::Info));
        assert_eq!(
            Value::Object(m.clone()),
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/logLevel": "info"
            })
        );
        let env = RequestEnvelope::from_meta(Some(&m)).unwrap();
        assert_eq!(*env.client_capabilities, caps);
        assert_eq!(env.to_meta(), m);
    }

    #[test]
    fn envelope_errors() {
        assert_eq!(RequestEnvelope::from_meta(None), Err(EnvelopeError::Missing(meta::PROTOCOL_VERSION)));
        let mut m = Meta::new();
        m.insert(meta::PROTOCOL_VERSION.into(), json!("2026-07-28"));
        assert_eq!(
            RequestEnvelope::from_meta(Some(&m)),
            Err(EnvelopeError::Missing(meta::CLIENT_CAPABILITIES))
        );
        m.insert(meta::CLIENT_CAPABILITIES.into(), json!([]));
        assert_eq!(
            RequestEnvelope::from_meta(Some(&m)),
            Err(EnvelopeError::Invalid(meta::CLIENT_CAPABILITIES))
        );
        m.insert(meta::CLIENT_CAPABILITIES.into(), json!({}));
        m.insert(meta::LOG_LEVEL.into(), json!("loud"));
        assert_eq!(RequestEnvelope::from_meta(Some(&m)), Err(EnvelopeError::Invalid(meta::LOG_LEVEL)));
    }
}
