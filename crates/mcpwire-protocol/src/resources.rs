//! Resources: `resources/list`, `resources/templates/list`, `resources/read`, and the
//! 2025-era `resources/subscribe` / `resources/unsubscribe`.
//!
//! A resource that does not exist is answered differently by era: `-32002` up to
//! 2025-11-25, `-32602` in 2026 (see [`resource_not_found_code`]); clients accept both
//! ([`is_resource_not_found`]).

use serde::{Deserialize, Serialize};

use crate::common::{cacheable, paginated_params, request, EmptyResult};
use crate::content::{Annotations, Icon, ResourceContents};
use crate::error::codes;
use crate::jsonrpc::{Request, Response};
use crate::meta::Meta;
use crate::methods;
use crate::mrtr::InputResponses;
use crate::result::{CacheScope, ResultType};
use crate::version::{Era, ProtocolVersion};

/// A resource the server can read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource URI.
    pub uri: String,
    /// A programmatic name.
    pub name: String,
    /// A display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size in bytes of the raw content, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Resource {
    /// A resource with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Resource { uri: uri.into(), name: name.into(), ..Default::default() }
    }
}

/// A family of resources described by an RFC 6570 URI template.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template.
    pub uri_template: String,
    /// A programmatic name.
    pub name: String,
    /// A display name (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every matching resource, if they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

paginated_params!(
    /// `resources/list` params.
    ListResourcesRequestParams
);

paginated_params!(
    /// `resources/templates/list` params.
    ListResourceTemplatesRequestParams
);

/// The result of `resources/list`. Cacheable in 2026.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// 2026: `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The resources on this page.
    pub resources: Vec<Resource>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// 2026: how long the result stays fresh, in milliseconds.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_ttl",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// 2026: who may reuse the result.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_scope",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_scope: Option<CacheScope>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The result of `resources/templates/list`. Cacheable in 2026.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// 2026: `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The templates on this page.
    pub resource_templates: Vec<ResourceTemplate>,
    /// The cursor of the next page; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// 2026: how long the result stays fresh, in milliseconds.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_ttl",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// 2026: who may reuse the result.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_scope",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_scope: Option<CacheScope>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `resources/read` params.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceRequestParams {
    /// The URI to read.
    pub uri: String,
    /// `_meta`: `progressToken`, and on 2026 requests the required envelope.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Answers to the input requests of an `input_required` result (2026 retry); at most
    /// [`MAX_INPUT_RESPONSES`](crate::mrtr::MAX_INPUT_RESPONSES) are read.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::mrtr::bounded_optional_input_responses"
    )]
    pub input_responses: Option<InputResponses>,
    /// The `requestState` of an `input_required` result, echoed unchanged (2026 retry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
}

impl ReadResourceRequestParams {
    /// Params reading `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        ReadResourceRequestParams { uri: uri.into(), ..Default::default() }
    }
}

/// The result of `resources/read`. Cacheable in 2026. In 2026 a missing resource is an
/// error, never an empty `contents`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// 2026: `resultType` (`complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// The contents: one resource, or several for a URI that names a collection.
    pub contents: Vec<ResourceContents>,
    /// 2026: how long the result stays fresh, in milliseconds.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_ttl",
        skip_serializing_if = "Option::is_none"
    )]
    pub ttl_ms: Option<u64>,
    /// 2026: who may reuse the result.
    #[serde(
        default,
        deserialize_with = "crate::common::lenient_scope",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_scope: Option<CacheScope>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `resources/subscribe` params (2025 era; 2026 uses `subscriptions/listen`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeRequestParams {
    /// The URI to watch.
    pub uri: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// `resources/unsubscribe` params (2025 era).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnsubscribeRequestParams {
    /// The URI to stop watching.
    pub uri: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The error code a server sends for a resource that does not exist: `-32002` in the
/// stateful era, `-32602` (invalid params) in 2026, which must not emit `-32002`.
pub fn resource_not_found_code(version: &ProtocolVersion) -> i64 {
    match version.era() {
        Some(Era::Stateless) => codes::INVALID_PARAMS,
        _ => codes::RESOURCE_NOT_FOUND,
    }
}

/// Whether a client should read an error code as "resource not found" in answer to
/// `resources/read`: `-32002` from any revision, or `-32602` from 2026.
pub fn is_resource_not_found(code: i64, version: &ProtocolVersion) -> bool {
    code == codes::RESOURCE_NOT_FOUND
        || (code == codes::INVALID_PARAMS && version.era() == Some(Era::Stateless))
}

cacheable!(ListResourcesResult);
cacheable!(ListResourceTemplatesResult);
cacheable!(ReadResourceResult);
request!(ListResourcesRequestParams => methods::RESOURCES_LIST, ListResourcesResult);
request!(ListResourceTemplatesRequestParams => methods::RESOURCES_TEMPLATES_LIST, ListResourceTemplatesResult);
request!(ReadResourceRequestParams => methods::RESOURCES_READ, ReadResourceResult);
request!(SubscribeRequestParams => methods::RESOURCES_SUBSCRIBE, EmptyResult);
request!(UnsubscribeRequestParams => methods::RESOURCES_UNSUBSCRIBE, EmptyResult);

/// `resources/list`, as a whole message.
pub type ListResourcesRequest = Request<ListResourcesRequestParams>;
/// The response to `resources/list`.
pub type ListResourcesResultResponse = Response<ListResourcesResult>;
/// `resources/templates/list`, as a whole message.
pub type ListResourceTemplatesRequest = Request<ListResourceTemplatesRequestParams>;
/// The response to `resources/templates/list`.
pub type ListResourceTemplatesResultResponse = Response<ListResourceTemplatesResult>;
/// `resources/read`, as a whole message.
pub type ReadResourceRequest = Request<ReadResourceRequestParams>;
/// The response to `resources/read` with a complete result.
pub type ReadResourceResultResponse = Response<ReadResourceResult>;
/// `resources/subscribe`, as a whole message.
pub type SubscribeRequest = Request<SubscribeRequestParams>;
/// `resources/unsubscribe`, as a whole message.
pub type UnsubscribeRequest = Request<UnsubscribeRequestParams>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_codes_by_era() {
        assert_eq!(resource_not_found_code(&ProtocolVersion::V2025_11_25), codes::RESOURCE_NOT_FOUND);
        assert_eq!(resource_not_found_code(&ProtocolVersion::V2026_07_28), codes::INVALID_PARAMS);
        assert!(is_resource_not_found(codes::RESOURCE_NOT_FOUND, &ProtocolVersion::V2026_07_28));
        assert!(is_resource_not_found(codes::INVALID_PARAMS, &ProtocolVersion::V2026_07_28));
        assert!(!is_resource_not_found(codes::INVALID_PARAMS, &ProtocolVersion::V2025_06_18));
    }
}
