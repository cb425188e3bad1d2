//! [`AuthResponseBody`]: the response bodies that the auth services ([`BearerAuthLayer`]
//! and [`MetadataRouter`]) build their own answers in, whatever body the wrapped service
//! uses.
//!
//! [`BearerAuthLayer`]: super::BearerAuthLayer
//! [`MetadataRouter`]: super::MetadataRouter

use bytes::Bytes;
use http_body_util::Full;

use crate::http::McpBody;

/// A response body the auth services can build their own answers (errors, metadata) in.
pub trait AuthResponseBody {
    /// A complete body of these bytes.
    fn from_bytes(bytes: Bytes) -> Self;
}

impl AuthResponseBody for McpBody {
    fn from_bytes(bytes: Bytes) -> Self {
        McpBody::full(bytes)
    }
}

impl AuthResponseBody for Full<Bytes> {
    fn from_bytes(bytes: Bytes) -> Self {
        Full::new(bytes)
    }
}
