//! Roots: `roots/list`, a server asking for the client's filesystem roots. A request from
//! server to client in the 2025 era; an input request of a multi round-trip result in 2026
//! (deprecated there, and `notifications/roots/list_changed` is removed).

use serde::{Deserialize, Serialize};

use crate::common::{meta_only_params, request};
use crate::jsonrpc::{MethodCall, Request, Response};
use crate::meta::Meta;
use crate::methods;

/// A root: a directory or file the server may work in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Root {
    /// The URI; `file://` in every current revision.
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `_meta` (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Root {
    /// A root without a display name.
    pub fn new(uri: impl Into<String>) -> Self {
        Root { uri: uri.into(), ..Default::default() }
    }
}

meta_only_params!(
    /// `roots/list` params: only `_meta`.
    ListRootsRequestParams
);

/// The result of `roots/list`.
///
/// In 2026 this does not extend `Result` (it is an input response), so it has no
/// `resultType`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

request!(ListRootsRequestParams => methods::ROOTS_LIST, ListRootsResult);

/// `roots/list` as a 2025-era JSON-RPC request (server to client).
pub type ListRootsRequest = Request<ListRootsRequestParams>;
/// `roots/list` as a 2026 input request: `{method, params?}` only.
pub type ListRootsInputRequest = MethodCall<ListRootsRequestParams>;
/// The response to a 2025-era `roots/list`.
pub type ListRootsResultResponse = Response<ListRootsResult>;
