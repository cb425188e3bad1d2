//! HTTP statuses for JSON-RPC errors, and the error responses of the endpoint itself.

use std::sync::Arc;

use bytes::Bytes;
use http::{header, HeaderMap, HeaderValue, Response, StatusCode};
use mcpwire_protocol::{codes, ErrorObject, ErrorResponse, Message, RequestId};

use super::response_body::McpBody;

/// The HTTP status of a 2026 request's JSON-RPC error, sent as a plain JSON body. `400`
/// for a request the server could not take as it was sent: not JSON or not a request
/// (`-32700`, `-32600`), headers that disagree with the body (`-32020`), a client
/// capability or a protocol version the server needs and does not get (`-32021`,
/// `-32022`), and a `-32602` that refused the request's envelope (`_meta` missing or
/// ill-formed: `envelope_refused`). `404` for an unknown method. `200` for every other
/// error, as for any request that was answered: an unknown tool, a bad cursor, a missing
/// resource, arguments of the wrong type.
pub fn for_error(code: i64, envelope_refused: bool) -> StatusCode {
    match code {
        codes::PARSE_ERROR
        | codes::INVALID_REQUEST
        | codes::HEADER_MISMATCH
        | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
        | codes::UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
        codes::INVALID_PARAMS if envelope_refused => StatusCode::BAD_REQUEST,
        codes::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// Header room in every response: hyper reuses a response's header map for the next
/// request on its connection, so a map with room for a typical MCP request's headers
/// (`Host`, `Content-Type`, `Accept`, `Content-Length`, the three `Mcp-*` headers,
/// `User-Agent`, `Authorization`, ...) spares each request's parse growing it (a
/// reallocation and a rehash per request, otherwise).
const HEADER_ROOM: usize = 12;

/// The largest header map a connection keeps from one request for its next ones: twice
/// [`HEADER_ROOM`].
pub(crate) const ROOM_KEPT: usize = 2 * HEADER_ROOM;

/// A response with a 200 status, no headers yet and [`HEADER_ROOM`].
pub(crate) fn response(body: McpBody) -> Response<McpBody> {
    response_in(None, body)
}

/// [`response`] with its headers in `room` when given: a map made earlier (emptied
/// first), whose room is reused. hyper keeps a response's map after writing it and parses
/// the connection's next request into it, so a connection whose responses reuse their
/// requests' maps ([`reclaim_room`]) makes none per request (a map with [`HEADER_ROOM`]
/// is a 1.2 KiB allocation, beyond the allocator's per-thread cache).
pub(crate) fn response_in(room: Option<HeaderMap>, body: McpBody) -> Response<McpBody> {
    let mut response = Response::new(body);
    *response.headers_mut() = match room {
        Some(mut headers) => {
            headers.clear();
            headers
        }
        None => HeaderMap::with_capacity(HEADER_ROOM),
    };
    response
}

/// The request's own header map, lent to its handlers (`headers`: the transport facts'
/// copy, from `Extensions::shared`), taken back for its response ([`response_in`]).
/// `None` while a handler still holds it, and for a map grown past [`ROOM_KEPT`] by a
/// request with many headers: an idle connection would keep it.
pub(crate) fn reclaim_room(headers: Option<Arc<HeaderMap>>) -> Option<HeaderMap> {
    headers.and_then(|h| Arc::try_unwrap(h).ok()).filter(|h| h.capacity() <= ROOM_KEPT)
}

/// A JSON body response.
pub fn json(status: StatusCode, body: impl Into<Bytes>) -> Response<McpBody> {
    json_in(None, status, body)
}

/// [`json`] with its headers in `room` when given ([`response_in`]).
pub(crate) fn json_in(
    room: Option<HeaderMap>,
    status: StatusCode,
    body: impl Into<Bytes>,
) -> Response<McpBody> {
    json_body_in(room, status, McpBody::full(body))
}

/// [`json_in`] with its body made already.
pub(crate) fn json_body_in(room: Option<HeaderMap>, status: StatusCode, body: McpBody) -> Response<McpBody> {
    let mut response = response_in(room, body);
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// A JSON-RPC error response with an HTTP status.
pub fn error(
    status: StatusCode,
    id: Option<RequestId>,
    code: i64,
    message: impl Into<String>,
) -> Response<McpBody> {
    error_object(status, id, ErrorObject::new(code, message))
}

/// [`error`] with a full error object.
pub fn error_object(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response<McpBody> {
    json(status, Message::Error(ErrorResponse::new(id, error)).to_vec())
}

/// `503` with `Retry-After: 1` and a JSON-RPC error: the endpoint is at one of its
/// bounds (the client should try again shortly).
pub fn busy(id: Option<RequestId>, message: &str) -> Response<McpBody> {
    let mut response = error(StatusCode::SERVICE_UNAVAILABLE, id, codes::INTERNAL_ERROR, message);
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// An empty response with a status.
pub fn empty(status: StatusCode) -> Response<McpBody> {
    let mut response = response(McpBody::empty());
    *response.status_mut() = status;
    response
}
