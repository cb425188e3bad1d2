//! An incremental Server-Sent Events parser (the WHATWG event-stream format): bytes in,
//! events out, in time linear in the input however it is chunked, and with bounded memory
//! (a line or an event's data longer than the limit is an error, not a reason to buffer
//! without end).

use std::sync::Arc;

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` type (`None` means the default, `message`).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last event id seen so far in the stream (ids persist across events). Shared,
    /// not copied: every event until the next `id:` carries the same one.
    pub id: Option<Arc<str>>,
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
            SseError::TooLong(n) => write!(f, "an SSE event exceeds the {n}-byte message size limit"),
        }
    }
}

impl std::error::Error for SseError {}

/// The longest `id:` kept; a longer one is ignored (as an id holding NUL is), so that a
/// server cannot make every `Last-Event-ID` and every event carry megabytes.
pub const MAX_ID_BYTES: usize = 1024;

/// The UTF-8 byte order mark, which the format skips at the start of a stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The parser's state between chunks.
#[derive(Debug)]
pub struct SseParser {
    /// The unfinished line (bytes after the last line terminator).
    buf: Vec<u8>,
    /// How much of `buf` is known to hold no line terminator, so a long line fed in
    /// small chunks is scanned once, not once per chunk.
    scanned: usize,
    /// Whether the start of the stream was checked for a byte order mark.
    past_bom: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    /// The `id:` of the event being read; it becomes `last_id` when the event ends.
    id_buffer: Option<Arc<str>>,
    last_id: Option<Arc<str>>,
    retry_ms: Option<u64>,
    limit: usize,
}

impl SseParser {
    /// A parser that refuses lines and events longer than `limit` bytes.
    pub fn new(limit: usize) -> Self {
        SseParser {
            buf: Vec::new(),
            scanned: 0,
            past_bom: false,
            data: String::new(),
            has_data: false,
            event: None,
            id_buffer: None,
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
        if !self.past_bom {
            if self.buf.len() < BOM.len() && BOM.starts_with(&self.buf) {
                return Ok(Vec::new()); // maybe a BOM: wait for its other bytes
            }
            if self.buf.starts_with(BOM) {
                self.buf.drain(..BOM.len());
            }
            self.past_bom = true;
        }
        let mut events = Vec::new();
        let mut start = 0;
        loop {
            let from = start + self.scanned;
            let Some(pos) = memchr::memchr2(b'\n', b'\r', &self.buf[from..]) else {
                // No terminator in what is left: it is never scanned again.
                self.scanned = self.buf.len() - start;
                break;
            };
            let line_end = from + pos;
            let skip = match (self.buf[line_end], self.buf.get(line_end + 1)) {
                (b'\r', Some(b'\n')) => 2,
                // A `\r` at the very end may be the first half of `\r\n`: wait for more.
                (b'\r', None) => {
                    self.scanned = line_end - start;
                    break;
                }
                _ => 1,
            };
            let line = String::from_utf8_lossy(&self.buf[start..line_end]).into_owned();
            start = line_end + skip;
            self.scanned = 0;
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

    /// Ends the stream: an unterminated final event is discarded, as the format says. The
    /// last event id and `retry` stay, for a resumed stream; the next stream may start
    /// with its own byte order mark.
    pub fn finish(&mut self) {
        self.buf.clear();
        self.scanned = 0;
        self.past_bom = false;
        self.data.clear();
        self.has_data = false;
        self.event = None;
        self.id_buffer = self.last_id.clone();
    }

    fn line(&mut self, line: &str) -> Result<Option<SseEvent>, SseError> {
        if line.is_empty() {
            self.last_id = self.id_buffer.clone();
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
            "id" if !value.contains('\0') && value.len() <= MAX_ID_BYTES => {
                self.id_buffer = Some(value.into())
            }
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
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

    fn event(kind: Option<&str>, data: &str, id: Option<&str>) -> SseEvent {
        SseEvent { event: kind.map(str::to_owned), data: data.to_owned(), id: id.map(Arc::from) }
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
        assert_eq!(events[0], event(None, "", Some("1")));
        assert_eq!(events[1], event(Some("message"), "{\"a\":1}", Some("1")));
        assert_eq!(events[2].data, "x\ny");
    }

    /// A stream with every feature: a BOM, the three line endings, comments, multi-line
    /// data, ids (one with NUL, ignored), `retry` (one invalid, ignored), an event type, an
    /// empty-data event, a blank-only block and an unterminated tail.
    const STREAM: &[u8] = b"\xEF\xBB\xBF: hello\r\nid: 1\r\nretry: 250\r\ndata: a\r\ndata:b\r\n\r\n\
event: note\rdata:  two spaces\rid: x\0y\r\r\
\n\nretry: +5\ndata\nid: 3\n\ndata: {\"k\":[1,2]}\ndata: end\r\n\ndata: tail";

    fn expected() -> Vec<SseEvent> {
        vec![
            event(None, "a\nb", Some("1")),
            event(Some("note"), " two spaces", Some("1")),
            event(None, "", Some("3")),
            event(None, "{\"k\":[1,2]}\nend", Some("3")),
        ]
    }

    #[test]
    fn every_split_into_three_chunks_gives_the_same_events() {
        let mut whole = SseParser::new(1024);
        assert_eq!(whole.push(STREAM).unwrap(), expected());
        assert_eq!(whole.last_event_id(), Some("3"));
        assert_eq!(whole.retry_ms(), Some(250));
        for i in 0..=STREAM.len() {
            for j in i..=STREAM.len() {
                let mut p = SseParser::new(1024);
                let mut events = p.push(&STREAM[..i]).unwrap();
                events.extend(p.push(&STREAM[i..j]).unwrap());
                events.extend(p.push(&STREAM[j..]).unwrap());
                assert_eq!(events, expected(), "split at {i} and {j}");
                assert_eq!((p.last_event_id(), p.retry_ms()), (Some("3"), Some(250)), "split at {i}, {j}");
            }
        }
    }

    #[test]
    fn byte_by_byte_gives_the_same_events() {
        let mut p = SseParser::new(1024);
        let events: Vec<SseEvent> = STREAM.iter().flat_map(|b| p.push(&[*b]).unwrap()).collect();
        assert_eq!(events, expected());
    }

    #[test]
    fn a_bom_is_skipped_only_at_the_start_of_each_stream() {
        let mut p = SseParser::new(1024);
        assert_eq!(p.push(b"\xEF\xBB").unwrap(), vec![]);
        assert_eq!(p.push(b"\xBFdata: 1\n\n").unwrap(), vec![event(None, "1", None)]);
        // Mid-stream, a BOM is part of the line: here it makes an unknown field name.
        assert_eq!(p.push(b"\xEF\xBB\xBFdata: 2\n\n").unwrap(), vec![]);
        p.finish();
        // A resumed stream (after `finish`) may start with its own BOM.
        assert_eq!(p.push(b"\xEF\xBB\xBFdata: 3\n\n").unwrap(), vec![event(None, "3", None)]);
    }

    #[test]
    fn an_id_counts_once_its_event_ends_and_survives_a_new_stream() {
        let mut p = SseParser::new(1024);
        p.push(b"id: 1\ndata: a\n\nid: 2\ndata: b\n").unwrap();
        // The stream drops in the middle of event 2: resume from 1.
        assert_eq!(p.last_event_id(), Some("1"));
        p.finish();
        assert_eq!(p.push(b"data: c\n\n").unwrap(), vec![event(None, "c", Some("1"))]);
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
    fn a_16_mib_event_in_4_kib_chunks() {
        const SIZE: usize = 16 * 1024 * 1024;
        let mut body = Vec::with_capacity(SIZE + 64);
        body.extend_from_slice(b"id: big\ndata: ");
        body.extend((0..SIZE).map(|i| b'a' + (i % 26) as u8));
        body.extend_from_slice(b"\n\ndata: after\n\n");
        let mut p = SseParser::new(SIZE + 1);
        let mut events = Vec::new();
        for chunk in body.chunks(4096) {
            events.extend(p.push(chunk).unwrap());
        }
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].data.len(), SIZE);
        assert!(events[0].data.bytes().enumerate().all(|(i, b)| b == b'a' + (i % 26) as u8));
        assert_eq!(events[0].id.as_deref(), Some("big"));
        assert_eq!(events[1], event(None, "after", Some("big")));
    }

    /// A long `id:` is not kept (the last short one stays), and however many events
    /// follow an id, they share it: 100,000 empty events after a 1 KiB id hold one copy.
    #[test]
    fn ids_are_bounded_and_shared() {
        let mut p = SseParser::new(16 << 20);
        let long = format!("id: {}\ndata: a\n\n", "i".repeat(MAX_ID_BYTES + 1));
        let e = p.push(format!("id: short\ndata: x\n\n{long}").as_bytes()).unwrap();
        assert_eq!(e[1].id.as_deref(), Some("short"), "the long id is ignored");
        let id = "j".repeat(MAX_ID_BYTES);
        let mut body = format!("id: {id}\n").into_bytes();
        for _ in 0..100_000 {
            body.extend_from_slice(b"data:\n\n");
        }
        let events = p.push(&body).unwrap();
        assert_eq!(events.len(), 100_000);
        let first = events[0].id.clone().unwrap();
        assert_eq!(&*first, id.as_str());
        assert!(events.iter().all(|e| e.id.as_ref().is_some_and(|i| Arc::ptr_eq(i, &first))));
        assert_eq!(p.last_event_id(), Some(id.as_str()));
    }

    #[test]
    fn an_event_over_the_limit_errors_before_buffering_much_more() {
        const LIMIT: usize = 1 << 20;
        // One endless line: refused once the unfinished line passes the limit, so the
        // buffer never holds more than the limit plus one chunk.
        let mut p = SseParser::new(LIMIT);
        let chunk = [b'x'; 4096];
        let failed_at = (1..).find(|_| p.push(&chunk).is_err()).unwrap();
        assert_eq!(failed_at, LIMIT / 4096 + 1);
        // Many short data lines: refused once the event's data passes the limit.
        let mut p = SseParser::new(LIMIT);
        let line = [b"data: ".as_slice(), &[b'y'; 1017], b"\n"].concat(); // 1018 bytes of data each
        let failed_at = (1..).find(|_| p.push(&line).is_err()).unwrap();
        assert_eq!(failed_at, LIMIT / 1018 + 1);
    }

    #[test]
    fn overlong_input_is_an_error() {
        let mut p = SseParser::new(16);
        assert_eq!(p.push(&[b'x'; 40]), Err(SseError::TooLong(16)));
        let mut p = SseParser::new(16);
        assert_eq!(p.push(b"data: 0123456789\ndata: 0123456789\n"), Err(SseError::TooLong(16)));
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
