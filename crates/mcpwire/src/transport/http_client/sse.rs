//! An incremental Server-Sent Events parser (the WHATWG event-stream format): bytes in,
//! events out, with bounded memory (a line longer than the limit is an error, not a
//! reason to buffer without end).

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` type (`None` means the default, `message`).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last event id seen so far in the stream (ids persist across events).
    pub id: Option<String>,
}

/// Why a stream cannot be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SseError {
    /// A line (or an event's data) is longer than the limit.
    TooLong(usize),
}

impl std::fmt::Display for SseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SseError::TooLong(n) => write!(f, "an SSE event exceeds {n} bytes"),
        }
    }
}

impl std::error::Error for SseError {}

/// The parser's state between chunks.
#[derive(Debug)]
pub struct SseParser {
    buf: Vec<u8>,
    data: String,
    has_data: bool,
    event: Option<String>,
    last_id: Option<String>,
    retry_ms: Option<u64>,
    limit: usize,
}

impl SseParser {
    /// A parser that refuses lines and events longer than `limit` bytes.
    pub fn new(limit: usize) -> Self {
        SseParser {
            buf: Vec::new(),
            data: String::new(),
            has_data: false,
            event: None,
            last_id: None,
            retry_ms: None,
            limit,
        }
    }

    /// The last event id seen (for `Last-Event-ID`).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The last `retry:` value seen, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Feeds bytes; returns the events they complete.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        self.buf.extend_from_slice(chunk);
        let mut events = Vec::new();
        let mut start = 0;
        loop {
            let rest = &self.buf[start..];
            let Some(pos) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') else { break };
            // A `\r` at the very end may be the first half of `\r\n`: wait for more.
            if rest[pos] == b'\r' && pos + 1 == rest.len() {
                break;
            }
            let line_end = start + pos;
            let skip =
                if self.buf[line_end] == b'\r' && self.buf.get(line_end + 1) == Some(&b'\n') { 2 } else { 1 };
            let line = String::from_utf8_lossy(&self.buf[start..line_end]).into_owned();
            start = line_end + skip;
            if let Some(event) = self.line(&line)? {
                events.push(event);
            }
        }
        self.buf.drain(..start);
        if self.buf.len() > self.limit {
            return Err(SseError::TooLong(self.limit));
        }
        Ok(events)
    }

    /// Ends the stream: an unterminated final event is discarded, as the format says.
    pub fn finish(&mut self) {
        self.buf.clear();
        self.data.clear();
        self.has_data = false;
        self.event = None;
    }

    fn line(&mut self, line: &str) -> Result<Option<SseEvent>, SseError> {
        if line.is_empty() {
            if !self.has_data {
                self.event = None;
                return Ok(None);
            }
            let mut data = std::mem::take(&mut self.data);
            if data.ends_with('\n') {
                data.pop();
            }
            self.has_data = false;
            return Ok(Some(SseEvent { event: self.event.take(), data, id: self.last_id.clone() }));
        }
        if line.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.data.len() + value.len() + 1 > self.limit {
                    return Err(SseError::TooLong(self.limit));
                }
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            "retry" => {
                if let Ok(ms) = value.parse() {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn all(input: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new(1 << 20);
        input.iter().flat_map(|c| p.push(c).unwrap()).collect()
    }

    #[test]
    fn parses_events_across_chunk_boundaries_and_line_endings() {
        let events = all(&[
            b"id: 1\nretry: 100\ndata: \n\nevent: message\nda",
            b"ta: {\"a\":1}\r",
            b"\n\r\ndata: x\rdata: y\r\r",
            // A trailing CR may be the first half of CRLF, so the parser resolves it
            // only once the next byte arrives.
            b": next\n",
        ]);
        // The priming event has a data field (empty), so it is dispatched with empty data;
        // the transport skips such events.
        assert_eq!(events.len(), 3, "{events:?}");
        assert_eq!(events[0], SseEvent { event: None, data: String::new(), id: Some("1".into()) });
        assert_eq!(
            events[1],
            SseEvent { event: Some("message".into()), data: "{\"a\":1}".into(), id: Some("1".into()) }
        );
        assert_eq!(events[2].data, "x\ny");
    }

    #[test]
    fn comments_are_ignored_and_ids_persist() {
        let mut p = SseParser::new(1000);
        let e = p.push(b": keep-alive\n\nid: 7\ndata: a\n\ndata: b\n\n").unwrap();
        assert_eq!(
            e.iter().map(|e| (e.data.as_str(), e.id.as_deref())).collect::<Vec<_>>(),
            vec![("a", Some("7")), ("b", Some("7"))]
        );
        assert_eq!(p.last_event_id(), Some("7"));
    }

    #[test]
    fn overlong_input_is_an_error() {
        let mut p = SseParser::new(16);
        assert!(p.push(&[b'x'; 40]).is_err());
        let mut p = SseParser::new(16);
        assert!(p.push(b"data: 0123456789\ndata: 0123456789\n").is_err());
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut seed = 0x1234_5678_u64;
        for _ in 0..2000 {
            let mut p = SseParser::new(256);
            let bytes: Vec<u8> = (0..64)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let alphabet = b"data:id\n\r :x";
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            let _ = p.push(&bytes);
        }
    }
}
