//! Reading a POST's body, bounded in size and in time.
//!
//! A body larger than [`HttpSettings::max_body_bytes`](super::HttpSettings::max_body_bytes)
//! is refused with `413`: without keeping it when its `Content-Length` says so, else as
//! soon as [`http_body_util::Limited`] has counted past the limit. What is left of a
//! refused body is read and dropped first (up to [`DRAIN_BYTES`], for at most
//! [`DRAIN_TIME`]): a client still sending it when the answer and the close came would
//! get a broken pipe instead of the `413` (the TypeScript SDK reports `fetch failed`, the
//! Python SDK's client ends altogether). Past that the connection is closed. A body that has not all
//! arrived within [`HttpSettings::body_timeout`](super::HttpSettings::body_timeout) is
//! refused with `408` and its connection closed ([`tokio::time::timeout`] around the
//! collection): without the deadline, a client that sends a head and then trickles its
//! body would hold its connection (and the endpoint's memory for the body so far) for as
//! long as it liked.

use std::time::Duration;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use http::{header, HeaderValue, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use mcpwire_protocol::codes;

use super::{status, McpBody};

/// The most of a refused body read (and dropped) so that its client gets the answer.
const DRAIN_BYTES: u64 = 64 * 1024 * 1024;
/// The longest a refused body is read for.
const DRAIN_TIME: Duration = Duration::from_secs(5);

/// The bounds of one body.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    /// Largest accepted body.
    pub(super) max_bytes: usize,
    /// How long the whole body may take; zero for no limit.
    pub(super) timeout: Duration,
}

/// Reads a body within `limits`: `413` beyond the size (at once when `Content-Length`
/// says so, else as soon as the counted body passes it), `408` past the deadline.
/// Trailers are dropped: they carry nothing for the endpoint.
pub(super) async fn read_body<B>(
    body: B,
    limits: Limits,
    headers: &http::HeaderMap,
) -> Result<Bytes, Box<Response<McpBody>>>
where
    B: Body + Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let limit = limits.max_bytes;
    let mut body = std::pin::pin!(body);
    let declared =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if let Some(len) = declared.filter(|len| *len > limit as u64) {
        // A body too long to drain is answered at once.
        return Err(too_large(limit, len <= DRAIN_BYTES && drained(&mut body).await));
    }
    let collect = collect(Limited::new(body.as_mut(), limit));
    let collected = if limits.timeout.is_zero() {
        collect.await
    } else {
        tokio::time::timeout(limits.timeout, collect).await.map_err(|_| Box::new(too_late(limits.timeout)))?
    };
    match collected {
        Ok(bytes) => Ok(bytes),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            Err(too_large(limit, drained(&mut body).await))
        }
        Err(e) => Err(Box::new(status::error(
            StatusCode::BAD_REQUEST,
            None,
            codes::PARSE_ERROR,
            format!("could not read the body: {e}"),
        ))),
    }
}

/// The data of `body`, trailers dropped. A body that came in one chunk is that chunk, not
/// a copy of it, and takes no list of chunks to collect (`BodyExt::collect` makes one
/// for every body); the chunks of a longer body are joined.
async fn collect<B: Body + Unpin>(mut body: B) -> Result<Bytes, B::Error> {
    let mut first = Bytes::new();
    let mut joined: Option<BytesMut> = None;
    while let Some(frame) = body.frame().await {
        let Ok(mut data) = frame?.into_data() else { continue };
        let len = data.remaining();
        if len == 0 {
            continue;
        }
        match &mut joined {
            Some(joined) => joined.put(data),
            None if first.is_empty() => first = data.copy_to_bytes(len),
            None => {
                let mut both = BytesMut::with_capacity(first.len() + len);
                both.put(std::mem::take(&mut first));
                both.put(data);
                joined = Some(both);
            }
        }
    }
    Ok(joined.map_or(first, BytesMut::freeze))
}

/// Reads what is left of a refused body and drops it: whether it all came (within
/// [`DRAIN_BYTES`] and [`DRAIN_TIME`]).
async fn drained<B: Body + Unpin>(body: &mut B) -> bool {
    let discard = async {
        let mut left = DRAIN_BYTES;
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { return false };
            let Some(data) = frame.data_ref() else { continue };
            match left.checked_sub(bytes::Buf::remaining(data) as u64) {
                Some(rest) => left = rest,
                None => return false,
            }
        }
        true
    };
    tokio::time::timeout(DRAIN_TIME, discard).await.unwrap_or(false)
}

/// `413`; the connection is closed after it unless the whole body was read.
fn too_large(limit: usize, drained: bool) -> Box<Response<McpBody>> {
    let mut response = status::error(
        StatusCode::PAYLOAD_TOO_LARGE,
        None,
        codes::INVALID_REQUEST,
        format!("Request body exceeds {limit} bytes"),
    );
    if !drained {
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    Box::new(response)
}

/// `408` for a body that did not arrive in time; the connection is closed after it (what
/// is left of the body is never read).
fn too_late(timeout: Duration) -> Response<McpBody> {
    let mut response = status::error(
        StatusCode::REQUEST_TIMEOUT,
        None,
        codes::INVALID_REQUEST,
        format!("Request body not received within {} ms", timeout.as_millis()),
    );
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::convert::Infallible;

    use super::*;
    use http_body_util::StreamBody;

    const NO_DEADLINE: Duration = Duration::ZERO;

    fn limits(max_bytes: usize, timeout: Duration) -> Limits {
        Limits { max_bytes, timeout }
    }

    /// A body that arrives in `chunks`, with trailers at the end.
    fn chunked(
        chunks: &[&'static str],
    ) -> StreamBody<impl futures_util::Stream<Item = Result<http_body::Frame<Bytes>, Infallible>>> {
        let mut frames: Vec<Result<http_body::Frame<Bytes>, Infallible>> =
            chunks.iter().map(|c| Ok(http_body::Frame::data(Bytes::from_static(c.as_bytes())))).collect();
        frames.push(Ok(http_body::Frame::trailers(http::HeaderMap::new())));
        StreamBody::new(futures_util::stream::iter(frames))
    }

    /// A body whose chunks arrive `gap` apart.
    fn trickled(
        chunks: &'static [&'static str],
        gap: Duration,
    ) -> StreamBody<impl futures_util::Stream<Item = Result<http_body::Frame<Bytes>, Infallible>>> {
        use futures_util::StreamExt;
        StreamBody::new(futures_util::stream::iter(chunks).then(move |c| async move {
            tokio::time::sleep(gap).await;
            Ok(http_body::Frame::data(Bytes::from_static(c.as_bytes())))
        }))
    }

    #[tokio::test]
    async fn a_body_is_read_whole_however_it_is_chunked() {
        let headers = http::HeaderMap::new();
        for chunks in [&[][..], &[""], &["{}"], &["", "{", "", "}"], &["{\"a\"", ":", "1}"], &["{}", ""]] {
            let bytes = read_body(chunked(chunks), limits(64, NO_DEADLINE), &headers).await.unwrap();
            assert_eq!(bytes, chunks.concat().as_bytes(), "{chunks:?}");
        }
        let too_large =
            read_body(chunked(&["{\"a\":", "\"0123456789\"}"]), limits(10, NO_DEADLINE), &headers)
                .await
                .unwrap_err();
        assert_eq!(too_large.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[tokio::test]
    async fn a_body_in_one_chunk_is_that_chunk_not_a_copy() {
        let headers = http::HeaderMap::new();
        let chunk = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}";
        let bytes =
            read_body(chunked(&[chunk]), limits(64, Duration::from_secs(30)), &headers).await.unwrap();
        assert_eq!(bytes.as_ptr(), chunk.as_ptr());
    }

    #[tokio::test(start_paused = true)]
    async fn a_content_length_past_the_limit_gets_413_without_keeping_the_body() {
        let mut headers = http::HeaderMap::new();
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("65"));
        let never =
            StreamBody::new(futures_util::stream::pending::<Result<http_body::Frame<Bytes>, Infallible>>());
        let refused = read_body(never, limits(64, NO_DEADLINE), &headers).await.unwrap_err();
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(
            refused.headers()[header::CONNECTION],
            "close",
            "the rest never came: the connection ends"
        );
        let whole = chunked(&["x"; 65]);
        let refused = read_body(whole, limits(64, NO_DEADLINE), &headers).await.unwrap_err();
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert!(
            refused.headers().get(header::CONNECTION).is_none(),
            "read to its end: the connection goes on"
        );
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(DRAIN_BYTES + 1));
        let too_long =
            StreamBody::new(futures_util::stream::pending::<Result<http_body::Frame<Bytes>, Infallible>>());
        let refused = read_body(too_long, limits(64, NO_DEADLINE), &headers).await.unwrap_err();
        assert_eq!(refused.headers()[header::CONNECTION], "close", "too long to drain: answered at once");
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_that_arrives_within_its_deadline_is_read() {
        let headers = http::HeaderMap::new();
        let body = trickled(&["{\"a\"", ":", "1}"], Duration::from_secs(9));
        let bytes = read_body(body, limits(64, Duration::from_secs(30)), &headers).await.unwrap();
        assert_eq!(bytes, "{\"a\":1}".as_bytes());
    }

    #[tokio::test(start_paused = true)]
    async fn a_body_trickled_past_its_deadline_gets_408_and_closes_the_connection() {
        let headers = http::HeaderMap::new();
        let start = tokio::time::Instant::now();
        // Each piece comes well within the deadline of the last; the whole does not.
        let body = trickled(&["{", "\"a\"", ":", "1", "}"], Duration::from_secs(8));
        let late = read_body(body, limits(64, Duration::from_secs(30)), &headers).await.unwrap_err();
        assert_eq!(start.elapsed(), Duration::from_secs(30));
        assert_eq!(late.status(), StatusCode::REQUEST_TIMEOUT);
        assert_eq!(late.headers().get(header::CONNECTION).unwrap(), "close");
    }

    #[tokio::test(start_paused = true)]
    async fn a_zero_timeout_waits_for_as_long_as_the_body_takes() {
        let headers = http::HeaderMap::new();
        let body = trickled(&["{", "}"], Duration::from_secs(3600));
        let bytes = read_body(body, limits(64, NO_DEADLINE), &headers).await.unwrap();
        assert_eq!(bytes, "{}".as_bytes());
    }
}
