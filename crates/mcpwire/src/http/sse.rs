//! Server-Sent Events encoding. Each event is built in one buffer so it goes out in one
//! write (no partial events, no small-packet stalls).

use bytes::Bytes;

/// One event: `id`, `retry` and `data` lines. JSON-RPC messages never contain raw
/// newlines (serialized JSON escapes them), so a message is one `data:` line.
pub fn event(id: Option<&str>, retry_ms: Option<u64>, data: &[u8]) -> Bytes {
    Bytes::from(event_vec(id, retry_ms, data))
}

/// [`event`]'s bytes, in a buffer of exactly their size: it goes into `Bytes` without
/// a second allocation (a `Vec` with room to spare needs one for its shared header).
fn event_vec(id: Option<&str>, retry_ms: Option<u64>, data: &[u8]) -> Vec<u8> {
    // The retry value is written once, here, and both measured and copied from there.
    let mut digits = itoa::Buffer::new();
    let retry = retry_ms.map(|ms| digits.format(ms));
    let id_line = id.map_or(0, |id| "id: \n".len() + id.len());
    let retry_line = retry.map_or(0, |ms| "retry: \n".len() + ms.len());
    let capacity = "event: message\n".len() + id_line + retry_line + "data: \n\n".len() + data.len();
    let mut out = Vec::with_capacity(capacity);
    out.extend_from_slice(b"event: message\n");
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    if let Some(ms) = retry {
        out.extend_from_slice(b"retry: ");
        out.extend_from_slice(ms.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"data: ");
    let start = out.len();
    out.extend_from_slice(data);
    // Defensive: an embedded newline would end the data line early.
    if memchr::memchr2(b'\n', b'\r', data).is_some() {
        for b in &mut out[start..] {
            if *b == b'\n' || *b == b'\r' {
                *b = b' ';
            }
        }
    }
    out.extend_from_slice(b"\n\n");
    out
}

/// A priming event: an id and `retry`, with empty data, so a client that loses the
/// connection has a `Last-Event-ID` to resume from.
pub fn priming(id: &str, retry_ms: u64) -> Bytes {
    Bytes::from(priming_vec(id, retry_ms))
}

/// [`priming`]'s bytes, in a buffer of exactly their size.
fn priming_vec(id: &str, retry_ms: u64) -> Vec<u8> {
    let mut digits = itoa::Buffer::new();
    let retry = digits.format(retry_ms);
    let mut out = Vec::with_capacity("id: \nretry: \ndata: \n\n".len() + id.len() + retry.len());
    out.extend_from_slice(b"id: ");
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b"\nretry: ");
    out.extend_from_slice(retry.as_bytes());
    out.extend_from_slice(b"\ndata: \n\n");
    out
}

/// A comment line, used as a keep-alive (clients ignore comments).
pub fn keep_alive() -> Bytes {
    Bytes::from_static(b": keep-alive\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_built_in_buffers_of_exactly_their_size() {
        for id in [None, Some(""), Some("0123456789abcdef0123456789abcdef-17#1")] {
            for retry in [None, Some(0), Some(9), Some(10), Some(1000), Some(u64::MAX)] {
                for data in [&b""[..], b"{}", b"line\nbreak", &[b'x'; 300]] {
                    let v = event_vec(id, retry, data);
                    assert_eq!(v.len(), v.capacity(), "{id:?} {retry:?} {}", data.len());
                }
            }
        }
        for retry in [0, 9, 10, 1000, u64::MAX] {
            let v = priming_vec("s-1#0", retry);
            assert_eq!(v.len(), v.capacity(), "{retry}");
        }
    }

    #[test]
    fn encodes_one_event_per_message() {
        assert_eq!(
            &event(Some("s:1"), None, b"{\"a\":1}")[..],
            b"event: message\nid: s:1\ndata: {\"a\":1}\n\n"
        );
        assert_eq!(&event(None, Some(100), b"x\ny")[..], b"event: message\nretry: 100\ndata: x y\n\n");
        assert_eq!(&priming("s:0", 250)[..], b"id: s:0\nretry: 250\ndata: \n\n");
        assert_eq!(&priming("s:0", 0)[..], b"id: s:0\nretry: 0\ndata: \n\n");
        assert_eq!(
            &event(None, Some(u64::MAX), b"{}")[..],
            format!("event: message\nretry: {}\ndata: {{}}\n\n", u64::MAX).as_bytes()
        );
    }
}
