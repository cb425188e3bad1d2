//! Reading a whole response body within the transport's message size limit.

use bytes::Bytes;
use http_body_util::BodyExt;

/// Reads a whole body, refusing more than `limit` bytes; the error says which.
pub(super) async fn read_limited(body: hyper::body::Incoming, limit: usize) -> Result<Bytes, String> {
    match http_body_util::Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            Err(format!("the response body exceeds the {limit}-byte message size limit"))
        }
        Err(e) => Err(format!("the response body could not be read: {e}")),
    }
}
