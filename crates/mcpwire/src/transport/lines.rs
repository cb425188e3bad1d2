//! Newline-delimited JSON framing: a bounded line reader and a coalescing writer.
//!
//! ```
//! use mcpwire::transport::lines::{Line, LineReader};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let input: &[u8] = b"{\"jsonrpc\":\"2.0\"}\n{\"far too long for the limit\":true}\n";
//! let mut lines = LineReader::new(input, 20);
//! let mut buf = Vec::new();
//! assert_eq!(lines.next_line(&mut buf).await.unwrap(), Some(Line::Complete));
//! assert_eq!(buf, b"{\"jsonrpc\":\"2.0\"}");
//! buf.clear();
//! assert!(matches!(lines.next_line(&mut buf).await.unwrap(), Some(Line::TooLong(_))));
//! # }
//! ```

use std::future::Future;
use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mcpwire_protocol::{codes, decode_frame, DecodeError, ErrorObject, ErrorResponse, Frame, Message};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::batch_answers::{BatchAnswers, Gathered};
use super::{InboundMeta, Outgoing, TransportEvent};

/// The default maximum line length: 16 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The words every "message too large" error carries, for code that must tell it apart.
pub(crate) const SIZE_LIMIT_WORDS: &str = "message size limit";

/// The line buffer's usual size; it shrinks back to this after a very long line.
const LINE_BUFFER_BYTES: usize = 8 * 1024;

/// Writes are coalesced up to about this many bytes per system call.
const COALESCE_BYTES: usize = 64 * 1024;

/// The write buffer's usual size; it shrinks back to this after a very long answer.
const WRITE_BUFFER_BYTES: usize = 16 * 1024;

/// The most the line and write buffers keep between messages. A buffer grown past it by
/// one huge message is given back, so that message does not pin its memory for the
/// connection's life; below it, a peer that keeps sending large messages (file contents,
/// long tool outputs) reuses one buffer instead of growing a new one, copy by copy, and
/// faulting its pages in again for every message.
const KEEP_BUFFER_BYTES: usize = 1024 * 1024;

/// When a huge message has grown `buf` past [`KEEP_BUFFER_BYTES`], empties it and gives
/// that memory back down to `usual` bytes; a smaller buffer is kept as it is.
fn give_back_if_huge(buf: &mut Vec<u8>, usual: usize) {
    if buf.capacity() > KEEP_BUFFER_BYTES {
        buf.clear();
        buf.shrink_to(usual);
    }
}

/// What one connection's [`read_loop`] tells its [`write_loop`]: how many messages it
/// has delivered since the writer last looked, and which requests came in a batch (a
/// JSON array), whose answers go out together as one array.
///
/// More than one message since the last write means the peer sent several at once
/// (pipelined requests, or a batch of responses a client's tasks will follow up on), so
/// more outgoing messages are about to be queued.
#[derive(Clone, Default)]
pub struct Arrivals(Arc<Link>);

#[derive(Default)]
struct Link {
    count: AtomicUsize,
    batches: Arc<BatchAnswers>,
}

impl std::fmt::Debug for Arrivals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Arrivals").field(&self.0.count.load(Ordering::Relaxed)).finish()
    }
}

impl Arrivals {
    /// A counter at zero, with no batch under way.
    pub fn new() -> Self {
        Arrivals::default()
    }

    fn note(&self) {
        self.0.count.fetch_add(1, Ordering::Relaxed);
    }

    /// The count since the last call, resetting it.
    fn take(&self) -> usize {
        self.0.count.swap(0, Ordering::Relaxed)
    }

    fn batches(&self) -> &Arc<BatchAnswers> {
        &self.0.batches
    }
}

/// What one call to [`LineReader::next_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line is in the buffer (without its `\n` or a trailing `\r`).
    Complete,
    /// A line longer than the limit was read and discarded; its length so far.
    TooLong(usize),
}

/// Reads lines of at most `max_bytes` without ever buffering more than that: a longer
/// line is skipped to its end and reported, and reading goes on with the next line.
pub struct LineReader<R> {
    inner: R,
    max_bytes: usize,
    /// The first and last bytes of the last line that was too long, for
    /// [`LineReader::oversized`].
    head: Vec<u8>,
    tail: Vec<u8>,
    /// The input ended in the middle of the last line returned (no `\n` after it).
    cut_by_end: bool,
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// A reader with a line limit.
    pub fn new(inner: R, max_bytes: usize) -> Self {
        LineReader { inner, max_bytes, head: Vec::new(), tail: Vec::new(), cut_by_end: false }
    }

    /// What the last line reported as [`Line::TooLong`] said about itself: its `id` and
    /// whether it was a request (see [`super::oversized`]).
    pub(crate) fn oversized(&self) -> super::oversized::Probe {
        super::oversized::probe(&self.head, &self.tail)
    }

    /// Whether the input ended in the middle of the last line returned, without its `\n`
    /// (a peer that stopped, or died, while writing it).
    pub(crate) fn cut_by_end(&self) -> bool {
        self.cut_by_end
    }

    /// Reads the next line into `buf` (cleared first). `Ok(None)` at the end of input.
    /// A final line without a newline is still returned as a line.
    pub async fn next_line(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<Line>> {
        buf.clear();
        let mut discarded: Option<usize> = None;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(match discarded {
                    Some(n) => Some(Line::TooLong(n)),
                    None if buf.is_empty() => None,
                    None => {
                        self.cut_by_end = true;
                        if buf.last() == Some(&b'\r') {
                            buf.pop();
                        }
                        Some(Line::Complete)
                    }
                });
            }
            let (chunk, found_newline) = match memchr::memchr(b'\n', available) {
                Some(i) => (&available[..i], Some(i)),
                None => (available, None),
            };
            let consumed = chunk.len() + usize::from(found_newline.is_some());
            match &mut discarded {
                Some(n) => {
                    *n += chunk.len();
                    keep_ends(&mut self.head, &mut self.tail, None, chunk);
                }
                None if buf.len() + chunk.len() > self.max_bytes => {
                    discarded = Some(buf.len() + chunk.len());
                    keep_ends(&mut self.head, &mut self.tail, Some(buf.as_slice()), chunk);
                    buf.clear();
                }
                None => buf.extend_from_slice(chunk),
            }
            self.inner.consume(consumed);
            if found_newline.is_some() {
                if let Some(n) = discarded {
                    return Ok(Some(Line::TooLong(n)));
                }
                if buf.last() == Some(&b'\r') {
                    buf.pop();
                }
                return Ok(Some(Line::Complete));
            }
        }
    }
}

/// Keeps the start of a line that turned out too long (`buffered`: what was read of it
/// before `chunk`), and every discarded chunk's end, within [`super::oversized`]'s bounds.
fn keep_ends(head: &mut Vec<u8>, tail: &mut Vec<u8>, buffered: Option<&[u8]>, chunk: &[u8]) {
    use super::oversized::{HEAD_BYTES, TAIL_BYTES};
    if let Some(buffered) = buffered {
        head.clear();
        tail.clear();
        for part in [buffered, chunk] {
            let room = HEAD_BYTES - head.len();
            head.extend_from_slice(&part[..part.len().min(room)]);
        }
    }
    tail.extend_from_slice(&chunk[chunk.len().saturating_sub(TAIL_BYTES)..]);
    if tail.len() > 2 * TAIL_BYTES {
        tail.drain(..tail.len() - TAIL_BYTES);
    }
}

/// Reads lines, decodes each into messages and sends them on `events` until the input
/// ends or the receiver is gone. Blank lines are skipped. A batch (a JSON array) is
/// delivered element by element, and its requests' answers are gathered through
/// `arrivals` for [`write_loop`] to write as one array. Every message delivered is counted
/// in `arrivals`.
pub async fn read_loop<R: AsyncBufRead + Unpin>(
    reader: R,
    max_line_bytes: usize,
    events: &mpsc::Sender<TransportEvent>,
    arrivals: &Arrivals,
) -> io::Result<()> {
    let mut lines = LineReader::new(reader, max_line_bytes);
    let mut buf = Vec::with_capacity(LINE_BUFFER_BYTES);
    loop {
        // A huge line (or a refused one) may have left a big buffer behind.
        give_back_if_huge(&mut buf, LINE_BUFFER_BYTES);
        let Some(line) = lines.next_line(&mut buf).await? else { break };
        let delivered = match line {
            Line::TooLong(n) => {
                let probe = lines.oversized();
                let error = DecodeError {
                    code: codes::INVALID_REQUEST,
                    message: format!(
                        "Invalid request: a message of {n} bytes exceeds the {max_line_bytes}-byte {SIZE_LIMIT_WORDS}"
                    ),
                    id: probe.id,
                    had_method: probe.method,
                    is_answer: false,
                };
                deliver(events, arrivals, Err(error)).await
            }
            Line::Complete if buf.iter().all(u8::is_ascii_whitespace) => continue,
            // The common case, one message per line, goes straight to the channel
            // without a `Vec` around it.
            Line::Complete => match decode_frame(&buf) {
                Ok(Frame::Single(m)) => deliver(events, arrivals, Ok(m)).await,
                Ok(Frame::Batch(items)) => deliver_batch(events, arrivals, items).await,
                // A line the end of input cut short is not taken for an answer: the
                // connection's end, which follows, says better why none came.
                Err(e) if lines.cut_by_end() => deliver(events, arrivals, Err(e)).await,
                Err(e) => deliver(events, arrivals, Err(with_answer_id(e, &buf))).await,
            },
        };
        if !delivered {
            return Ok(());
        }
    }
    Ok(())
}

/// The error of a line that did not decode, naming the `id` it carries when the line
/// reads as an answer (an `id` among its first or last bytes, no `method`): the request
/// it answers then fails at once with the reason, not at its timeout. A line that reads
/// as a request or notification keeps the error it had.
pub(crate) fn with_answer_id(mut error: DecodeError, line: &[u8]) -> DecodeError {
    use super::oversized::{probe, HEAD_BYTES, TAIL_BYTES};
    if error.id.is_none() && !error.had_method {
        let found =
            probe(&line[..line.len().min(HEAD_BYTES)], &line[line.len().saturating_sub(TAIL_BYTES)..]);
        if !found.method {
            error.id = found.id;
        }
    }
    error
}

/// Delivers the items of a batch, each marked [`Batched`](super::Batched), and has their
/// answers gathered into one array ([`BatchAnswers`]). An item that is not a valid
/// message and has no id to answer it by is answered in the array by the reader (the
/// `-32600` the dispatcher would give it); one with an id goes to the dispatcher.
/// `false` when the receiver is gone.
async fn deliver_batch(
    events: &mpsc::Sender<TransportEvent>,
    arrivals: &Arrivals,
    items: Vec<Result<Message, DecodeError>>,
) -> bool {
    let batches = arrivals.batches();
    let batch = batches.open();
    let mut delivered = true;
    for item in items {
        let mut meta = InboundMeta::default();
        meta.extensions.insert(super::Batched);
        let event = match item {
            Ok(message) => {
                if let Message::Request(r) = &message {
                    if batches.expect(&batch, &r.id) {
                        meta.on_unanswered = Some(batches.hook(r.id.clone()));
                    }
                }
                TransportEvent::message(message, meta)
            }
            Err(e) if e.id.is_none() => {
                let error = ErrorObject::new(e.code, e.message);
                batches.add(&batch, Message::Error(ErrorResponse::new(None, error)));
                continue;
            }
            Err(e) => {
                if let (Some(id), true) = (&e.id, e.had_method) {
                    batches.expect(&batch, id);
                }
                TransportEvent::invalid(e)
            }
        };
        arrivals.note();
        if events.send(event).await.is_err() {
            delivered = false;
            break;
        }
    }
    batches.close(batch);
    delivered
}

/// Sends one decoded item on `events`; `false` when the receiver is gone.
async fn deliver(
    events: &mpsc::Sender<TransportEvent>,
    arrivals: &Arrivals,
    item: Result<Message, DecodeError>,
) -> bool {
    arrivals.note();
    let event = match item {
        Ok(message) => TransportEvent::message(message, InboundMeta::default()),
        Err(e) => TransportEvent::invalid(e),
    };
    events.send(event).await.is_ok()
}

/// Writes every [`Outgoing`] message as one line, coalescing messages into as few writes
/// as it can, until the channel closes.
///
/// Whatever is queued when the writer wakes goes out in one write. Beyond that, while the
/// reader has delivered more messages since the previous write (`arrivals`) than the
/// writer has taken answers for, the rest are being produced right now, by tasks that may
/// be queued behind the writer or running on another worker thread: the writer yields
/// and drains the queue again, so that those finishing meanwhile share the write. It
/// stops at the first yield that brings no new answer (a slow handler holds the others
/// back by one scheduling round at most) or at about 64 KiB. Without that, on
/// the multi-thread runtime the writer is woken (and run at once) by each answer in turn
/// and writes them one by one. A lone request (one message since the last write) is
/// written without yielding, so it waits for nothing; so is a message nobody asked for.
/// Not every message delivered is answered (notifications, responses), which costs at
/// most one fruitless yield.
///
/// The answers to the requests of a JSON-RPC batch are held until the batch's last one,
/// then written together as one array (see [`read_loop`]).
///
/// When `closing` resolves the queue is closed to new messages, and the writer returns
/// once it has written everything already queued, including whatever it had taken when
/// `closing` resolved: the writer is told to finish rather than dropped, which could
/// lose a batch it holds. (Bounding how long that may take is the caller's business.)
pub async fn write_loop<W: AsyncWrite + Unpin>(
    writer: &mut W,
    outgoing: &mut mpsc::Receiver<Outgoing>,
    arrivals: &Arrivals,
    closing: impl Future<Output = ()>,
) -> io::Result<()> {
    let mut closing = std::pin::pin!(closing);
    let mut closed = false;
    let batches = arrivals.batches();
    let mut buf = Vec::with_capacity(WRITE_BUFFER_BYTES);
    loop {
        give_back_if_huge(&mut buf, WRITE_BUFFER_BYTES);
        buf.clear();
        let first = tokio::select! {
            biased;
            () = &mut closing, if !closed => {
                closed = true;
                outgoing.close();
                continue;
            }
            next = next_to_write(outgoing, batches) => next,
        };
        let first = match first {
            ToWrite::Message(Some(first)) => first,
            ToWrite::Message(None) => break,
            ToWrite::Batches => {
                batches.take_ready().iter().for_each(|answers| encode_batch(answers, &mut buf));
                writer.write_all(&buf).await?;
                writer.flush().await?;
                continue;
            }
        };
        put(first, batches, &mut buf);
        let mut delivered = arrivals.take();
        let mut taken = 1 + drain(outgoing, batches, &mut buf);
        while delivered > taken && buf.len() < COALESCE_BYTES {
            tokio::task::yield_now().await;
            delivered += arrivals.take();
            match drain(outgoing, batches, &mut buf) {
                0 => break,
                n => taken += n,
            }
        }
        if !buf.is_empty() {
            writer.write_all(&buf).await?;
            writer.flush().await?;
        }
    }
    // What batches gathered before the end goes out as it is.
    buf.clear();
    batches.take_all().iter().for_each(|answers| encode_batch(answers, &mut buf));
    if !buf.is_empty() {
        writer.write_all(&buf).await?;
        writer.flush().await?;
    }
    Ok(())
}

/// What the writer wakes up for.
enum ToWrite {
    /// The next outgoing message, or `None` when the queue is closed and empty.
    Message(Option<Outgoing>),
    /// Batches that completed away from the writer ([`BatchAnswers::take_ready`]).
    Batches,
}

/// The next thing to write: batches completed elsewhere first (the reader completed them
/// before it read what follows them), else an outgoing message.
async fn next_to_write(outgoing: &mut mpsc::Receiver<Outgoing>, batches: &BatchAnswers) -> ToWrite {
    std::future::poll_fn(|cx| {
        if batches.poll_completed_elsewhere(cx).is_ready() {
            return std::task::Poll::Ready(ToWrite::Batches);
        }
        outgoing.poll_recv(cx).map(ToWrite::Message)
    })
    .await
}

/// Appends whatever is queued to `buf`, up to about [`COALESCE_BYTES`]; how many messages.
fn drain(outgoing: &mut mpsc::Receiver<Outgoing>, batches: &BatchAnswers, buf: &mut Vec<u8>) -> usize {
    let mut n = 0;
    while buf.len() < COALESCE_BYTES {
        match outgoing.try_recv() {
            Ok(next) => put(next, batches, buf),
            Err(_) => break,
        }
        n += 1;
    }
    n
}

/// Appends an outgoing message as its own line, or holds it with its batch (appending
/// the batch's array when it was the last answer the batch waited for).
fn put(out: Outgoing, batches: &BatchAnswers, buf: &mut Vec<u8>) {
    let (message, _) = out.into_parts();
    match batches.gather(message) {
        Gathered::Alone(message) => encode_line(&message, buf),
        Gathered::Complete(answers) => encode_batch(&answers, buf),
        Gathered::Held => {}
    }
}

/// Appends a batch's answers as one JSON array and its newline.
fn encode_batch(answers: &[Message], buf: &mut Vec<u8>) {
    let at = buf.len();
    buf.push(b'[');
    for (i, answer) in answers.iter().enumerate() {
        if i > 0 {
            buf.push(b',');
        }
        answer.write_to(buf);
    }
    buf.push(b']');
    end_line(buf, at);
}

/// Appends one message and its newline. A newline or carriage-return byte in valid JSON
/// can only be insignificant whitespace (inside strings they are escaped), such as raw
/// params forwarded from an HTTP body, so each is replaced by a space to keep the message
/// on one line (a peer that splits lines at `\r` too would otherwise cut it in two).
fn encode_line(message: &Message, buf: &mut Vec<u8>) {
    let at = buf.len();
    message.write_to(buf);
    end_line(buf, at);
}

/// Ends the line that starts at `at`, replacing any newline or carriage return in it.
fn end_line(buf: &mut Vec<u8>, mut at: usize) {
    while let Some(i) = memchr::memchr2(b'\n', b'\r', &buf[at..]) {
        buf[at + i] = b' ';
        at += i + 1;
    }
    buf.push(b'\n');
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_message_with_raw_line_breaks_is_written_on_one_line() {
        let raw =
            serde_json::value::RawValue::from_string("{\r\n  \"a\": \"x\\r\\ny\",\n  \"b\": 1\r}".into())
                .unwrap();
        let response = mcpwire_protocol::Response::new(mcpwire_protocol::RequestId::Number(1), raw);
        let mut buf = Vec::new();
        encode_line(&Message::Response(response), &mut buf);
        let (line, end) = buf.split_at(buf.len() - 1);
        assert_eq!(end, b"\n");
        assert!(!line.contains(&b'\n') && !line.contains(&b'\r'), "{}", String::from_utf8_lossy(line));
        let value: serde_json::Value = serde_json::from_slice(line).unwrap();
        assert_eq!(value["result"], serde_json::json!({ "a": "x\r\ny", "b": 1 }));
    }

    async fn lines(input: &[u8], max: usize) -> Vec<Result<String, usize>> {
        let mut reader = LineReader::new(tokio::io::BufReader::with_capacity(4, input), max);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = reader.next_line(&mut buf).await.unwrap() {
            out.push(match line {
                Line::Complete => Ok(String::from_utf8(buf.clone()).unwrap()),
                Line::TooLong(n) => Err(n),
            });
        }
        out
    }

    #[test]
    fn buffers_up_to_the_keep_size_are_kept_and_bigger_ones_given_back() {
        let mut kept = Vec::with_capacity(KEEP_BUFFER_BYTES);
        kept.extend_from_slice(b"last message");
        give_back_if_huge(&mut kept, LINE_BUFFER_BYTES);
        assert!(kept.capacity() >= KEEP_BUFFER_BYTES);
        assert_eq!(kept, b"last message");

        let mut huge = Vec::with_capacity(KEEP_BUFFER_BYTES + 1);
        huge.extend_from_slice(b"last message");
        give_back_if_huge(&mut huge, LINE_BUFFER_BYTES);
        assert!(huge.is_empty());
        assert!(huge.capacity() < KEEP_BUFFER_BYTES, "capacity {}", huge.capacity());
    }

    /// Records each write it is given, and is always ready.
    #[derive(Default)]
    struct CountingWriter(Vec<Vec<u8>>);

    impl AsyncWrite for CountingWriter {
        fn poll_write(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<io::Result<usize>> {
            self.get_mut().0.push(buf.to_vec());
            std::task::Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }

        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    fn outgoing(method: &str) -> Outgoing {
        let line = format!(r#"{{"jsonrpc":"2.0","method":"{method}"}}"#);
        match decode_frame(line.as_bytes()).unwrap() {
            Frame::Single(m) => Outgoing::unrelated(m),
            Frame::Batch(_) => unreachable!(),
        }
    }

    /// The writer is polled by hand, so what it does at each step is exact: no runtime,
    /// no timing.
    #[test]
    fn the_writer_yields_until_quiet_for_the_answers_owed_and_a_lone_one_goes_at_once() {
        let (tx, mut rx) = mpsc::channel(16);
        let arrivals = Arrivals::new();
        let mut writer = CountingWriter::default();
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        {
            let mut writing =
                std::pin::pin!(write_loop(&mut writer, &mut rx, &arrivals, std::future::pending()));
            // Three requests read; the first answer is queued: the writer takes it and yields.
            (0..3).for_each(|_| arrivals.note());
            tx.try_send(outgoing("a")).unwrap();
            assert!(writing.as_mut().poll(&mut cx).is_pending());
            // The other two answers arrive meanwhile, and go out with the first.
            tx.try_send(outgoing("b")).unwrap();
            tx.try_send(outgoing("c")).unwrap();
            assert!(writing.as_mut().poll(&mut cx).is_pending());
            // A lone request's answer is written on the first poll: no yield.
            arrivals.note();
            tx.try_send(outgoing("d")).unwrap();
            assert!(writing.as_mut().poll(&mut cx).is_pending());
            // So is a message nobody asked for (nothing read since the last write).
            tx.try_send(outgoing("e")).unwrap();
            assert!(writing.as_mut().poll(&mut cx).is_pending());
            // Three more requests; each round that brings an answer earns another yield.
            (0..3).for_each(|_| arrivals.note());
            tx.try_send(outgoing("f")).unwrap();
            assert!(writing.as_mut().poll(&mut cx).is_pending());
            tx.try_send(outgoing("g")).unwrap();
            assert!(writing.as_mut().poll(&mut cx).is_pending());
            // A round that brings none ends the batch: the third answer, late, goes alone.
            assert!(writing.as_mut().poll(&mut cx).is_pending());
            tx.try_send(outgoing("h")).unwrap();
            assert!(writing.as_mut().poll(&mut cx).is_pending());
            drop(tx);
            assert!(matches!(writing.as_mut().poll(&mut cx), std::task::Poll::Ready(Ok(()))));
        }
        assert_eq!(
            methods_by_write(writer),
            vec![vec!["a", "b", "c"], vec!["d"], vec!["e"], vec!["f", "g"], vec!["h"]]
        );
    }

    #[test]
    fn closing_while_the_writer_yields_still_writes_what_it_took_and_what_is_queued() {
        let (tx, mut rx) = mpsc::channel(16);
        let arrivals = Arrivals::new();
        let closing = tokio_util::sync::CancellationToken::new();
        let mut writer = CountingWriter::default();
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        {
            let mut writing =
                std::pin::pin!(write_loop(&mut writer, &mut rx, &arrivals, closing.cancelled()));
            (0..2).for_each(|_| arrivals.note());
            tx.try_send(outgoing("a")).unwrap();
            assert!(writing.as_mut().poll(&mut cx).is_pending(), "yielded, holding a");
            tx.try_send(outgoing("b")).unwrap();
            closing.cancel();
            assert!(matches!(writing.as_mut().poll(&mut cx), std::task::Poll::Ready(Ok(()))));
        }
        assert!(tx.try_send(outgoing("c")).is_err(), "closed to new messages");
        assert_eq!(methods_by_write(writer), vec![vec!["a", "b"]]);
    }

    /// After an answer far larger than the coalescing size the writer gives its big
    /// buffer back and goes on writing whole lines.
    #[tokio::test]
    async fn a_huge_answer_then_small_ones_are_written_whole() {
        let (tx, mut rx) = mpsc::channel(16);
        let arrivals = Arrivals::new();
        let mut writer = CountingWriter::default();
        tx.try_send(outgoing(&"h".repeat(5 * COALESCE_BYTES))).unwrap();
        tx.try_send(outgoing("small")).unwrap();
        drop(tx);
        write_loop(&mut writer, &mut rx, &arrivals, std::future::pending()).await.unwrap();
        let written: Vec<u8> = writer.0.concat();
        let lines: Vec<&[u8]> = written.split(|b| *b == b'\n').collect();
        assert_eq!(lines.len(), 3, "two lines and the empty rest");
        assert_eq!(lines[0].len(), 5 * COALESCE_BYTES + 29);
        assert_eq!(lines[1], br#"{"jsonrpc":"2.0","method":"small"}"#);
    }

    /// The methods of the messages in each write.
    fn methods_by_write(writer: CountingWriter) -> Vec<Vec<String>> {
        let writes = writer.0.into_iter().map(|w| String::from_utf8(w).unwrap());
        writes.map(|w| w.lines().map(|l| l.split('"').nth(7).unwrap().to_owned()).collect()).collect()
    }

    #[tokio::test]
    async fn splits_lines_and_keeps_an_unterminated_last_line() {
        assert_eq!(
            lines(b"ab\r\ncd\n\nef", 100).await,
            vec![Ok("ab".into()), Ok("cd".into()), Ok("".into()), Ok("ef".into())]
        );
        assert_eq!(lines(b"ab\r", 100).await, vec![Ok("ab".into())], "a final \\r is dropped too");
    }

    #[tokio::test]
    async fn skips_an_overlong_line_and_goes_on() {
        assert_eq!(lines(b"0123456789\nok\n0123456789", 5).await, vec![Err(10), Ok("ok".into()), Err(10)]);
        assert_eq!(lines(b"12345\n", 5).await, vec![Ok("12345".into())]);
    }
}
