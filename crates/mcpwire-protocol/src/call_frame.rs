//! A 2026 `tools/call` request read from its frame in one pass.
//!
//! The general reading takes three: [`decode_frame`] captures the params as text, the
//! typed params are read from that text with `_meta` captured as text again, and the
//! envelope is read from that. Each capture is a full scan of what it captures, and on a
//! small call the scans cost more than the server's work. [`decode_tool_call`] reads the
//! request, its params and its envelope in one scan, for the common case only: whenever
//! it is not sure to agree with the general reading, it gives up and leaves the frame to
//! it, so errors are always the general reading's.
//!
//! [`decode_frame`]: crate::jsonrpc::decode_frame

use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::{value::MapAccessDeserializer, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::frame_scan::{object, scan_call_params, scan_method_frame};
use crate::id::RequestId;
use crate::json_scan::{Checked, Cursor};
use crate::jsonrpc::{present, read_id};
use crate::lifecycle::RequestEnvelope;
use crate::methods;
use crate::tools::{CallToolRequestParams, CallToolWire};

/// A `tools/call` request with a well-formed 2026 envelope, as [`decode_tool_call`] read it.
#[derive(Debug, PartialEq)]
pub struct ToolCallFrame {
    /// The request's id.
    pub id: RequestId,
    /// The params, with `meta` left `None`: `_meta` is not kept (a caller that needs
    /// its other members reads them from the text).
    pub params: CallToolRequestParams,
    /// The envelope in `_meta`.
    pub envelope: RequestEnvelope,
    /// `_meta`'s text (an object), for a caller that reads its other members: shared
    /// with this thread's memory of the last `_meta` read, so that the same `_meta` on
    /// every request is copied once, not once a request.
    pub meta: Arc<str>,
}

/// Reads `text` as one `tools/call` request whose `_meta` holds a well-formed envelope,
/// in one pass. `Some` means the general reading agrees: [`decode_frame`] gives a
/// request with this id and method `tools/call`,
/// [`CallToolRequestParams::from_str_with_meta_text`] these params (and `_meta`'s text),
/// and [`RequestEnvelope::from_meta_text`] this envelope from that text. `None` says
/// nothing: any other message, a flaw, or a rarer spelling (escapes in the method or the
/// version, a repeated member, a `null` in the envelope) is left to the general reading.
///
/// [`decode_frame`]: crate::jsonrpc::decode_frame
pub fn decode_tool_call(text: &str) -> Option<ToolCallFrame> {
    scan_tool_call(text).or_else(|| decode_tool_call_with_serde(text))
}

/// [`decode_tool_call`] for the spelling clients use, read by hand: the frame as
/// [`scan_method_frame`] reads it, with an id, and params as [`scan_call_params`] reads
/// them, with `_meta`. Anything else is `None`, left to serde_json.
fn scan_tool_call(text: &str) -> Option<ToolCallFrame> {
    let frame = scan_method_frame(text, |cursor| scan_call_params(cursor, scan_meta))?;
    if frame.method != methods::TOOLS_CALL {
        return None;
    }
    let (id, params) = (frame.id?, frame.params?);
    let (envelope, meta) = match params.meta? {
        ScannedMeta::Remembered(envelope, text) => (envelope, text),
        ScannedMeta::Text(text) => RequestEnvelope::read_members_with_text(text)?,
    };
    let arguments = params.arguments.map(Checked::to_raw);
    let params = CallToolRequestParams { name: params.name.to_owned(), arguments, ..Default::default() };
    Some(ToolCallFrame { id, params, envelope, meta })
}

/// `_meta`: the one this thread read last, with its envelope, or another object's text.
enum ScannedMeta<'a> {
    Remembered(RequestEnvelope, Arc<str>),
    Text(&'a str),
}

/// `_meta`'s object. The one a client sends on every request is found by comparing it
/// with the last one read, which is cheaper than scanning it.
fn scan_meta<'a>(cursor: &mut Cursor<'a>) -> Option<ScannedMeta<'a>> {
    cursor.ws();
    if let Some((envelope, text)) = RequestEnvelope::remembered_at_start(cursor.rest()) {
        cursor.skip(text.len());
        return Some(ScannedMeta::Remembered(envelope, text));
    }
    object(cursor).map(|meta| ScannedMeta::Text(meta.text()))
}

/// [`decode_tool_call`] through serde_json, for the spellings the scan leaves.
fn decode_tool_call_with_serde(text: &str) -> Option<ToolCallFrame> {
    // A struct would also read an array, by position.
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let frame: CallFrame<'_> = serde_json::from_str(text).ok()?;
    // The rules of the general reading's `classify`, for a request.
    if frame.jsonrpc.get() != "\"2.0\""
        || frame.method.get().strip_prefix('"').and_then(|m| m.strip_suffix('"')) != Some(methods::TOOLS_CALL)
        || frame.result.is_some()
        || frame.error.is_some()
    {
        return None;
    }
    let id = read_id(frame.id).ok()?;
    let (params, meta) = frame.params.0.split();
    // `_meta` is taken as text and read on its own: a client sends the same one on every
    // request, and a thread that read it before has its envelope already.
    let (envelope, meta) = RequestEnvelope::read_members_with_text(meta??.get())?;
    Some(ToolCallFrame { id, params, envelope, meta })
}

/// The members of a request frame, the params read as `tools/call` params.
#[derive(Deserialize)]
struct CallFrame<'a> {
    #[serde(borrow)]
    jsonrpc: &'a RawValue,
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow)]
    method: &'a RawValue,
    // `_meta` as its text (`Option` inside for the `Default` the derived `CallToolWire`
    // asks of it: a `_meta` of `null` is `None` outside, as with any `Option`).
    #[serde(borrow)]
    params: ObjectOnly<CallToolWire<Option<&'a RawValue>>>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// `T` read from a JSON object only: a derived struct also reads an array by position,
/// which the general reading refuses (it checks that params are an object; `_meta`'s
/// text is checked by [`RequestEnvelope::read_members`]).
struct ObjectOnly<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Object<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Object<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(Object(PhantomData)).map(ObjectOnly)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::jsonrpc::{decode_frame, Frame, Message};

    /// What the general reading makes of `text`: the id, params and envelope of a
    /// `tools/call` whose params and envelope read cleanly, else `None`.
    fn general(text: &str) -> Option<ToolCallFrame> {
        let Ok(Frame::Single(Message::Request(r))) = decode_frame(text.as_bytes()) else { return None };
        if r.method != methods::TOOLS_CALL {
            return None;
        }
        let (params, meta) =
            CallToolRequestParams::from_str_with_meta_text(r.params.as_deref().map_or("{}", RawValue::get))
                .ok()?;
        let envelope = RequestEnvelope::from_meta_text(meta.as_deref()).ok()?;
        Some(ToolCallFrame { id: r.id, params, envelope, meta: meta?.get().into() })
    }

    const ENVELOPE: &str = r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}"#;

    fn call(id: &str, params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
    }

    fn params(meta: &str) -> String {
        format!(r#"{{"name":"echo","arguments":{{"text":"hi"}},"_meta":{meta}}}"#)
    }

    /// Calls the one-pass reading must take (and agree on).
    fn common() -> Vec<String> {
        let meta = format!("{{{ENVELOPE}}}");
        vec![
            call("1", &params(&meta)),
            call("\"abc\"", &params(&meta)),
            call("-4", &params(&meta)),
            format!(" \n{} \n", call("7", &params(&meta))),
            format!(r#"{{"params":{},"method":"tools/call","id":3,"jsonrpc":"2.0"}}"#, params(&meta)),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"x":[1,{{"y":null}}],"method":"tools/call","params":{}}}"#,
                params(&meta)
            ),
            call("1", &format!(r#"{{"name":"echo","_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","arguments":null,"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"_meta":{meta},"name":"e\u0063ho","other":{{"a":[1,2]}}}}"#)),
            call("1", &format!(r#"{{"name":"t","task":{{"ttl":1000}},"requestState":"s","_meta":{meta}}}"#)),
            call(
                "1",
                &format!(r#"{{"name":"t","inputResponses":{{"a":{{"action":"cancel"}}}},"_meta":{meta}}}"#),
            ),
            call(
                "1",
                &params(&format!(
                    r#"{{"progressToken":5,{ENVELOPE},"io.modelcontextprotocol/clientInfo":{{"name":"c","version":"1"}},"io.modelcontextprotocol/logLevel":"debug"}}"#
                )),
            ),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}"#,
                ),
            ),
        ]
    }

    /// Frames it may leave to the general reading (or take, if it agrees).
    fn rare() -> Vec<String> {
        let meta = format!("{{{ENVELOPE}}}");
        let p = params(&meta);
        vec![
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools\/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{p}}}"#),
            call("123456789012345678901234", &p),
            format!(r#"{{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":[1],"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"id":1,"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{p},"result":{{}}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{p},"error":null}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/call","params":{p}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call"}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["echo",null,{meta}]}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":7,"params":{p}}}"#),
            format!("[{}]", call("1", &p)),
            format!("{} x", call("1", &p)),
            call("1", &p)[..40].to_owned(),
            call("1", r#"{"name":"echo"}"#),
            call("1", &format!(r#"{{"name":"echo","name":"other","_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":5,"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"arguments":{{}},"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","arguments":[1],"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","arguments":"x","_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","_meta":{meta},"_meta":{meta}}}"#)),
            call("1", &format!(r#"{{"name":"echo","task":5,"_meta":{meta}}}"#)),
            call("1", &params("null")),
            call("1", &params("5")),
            call("1", &params(r#"["2026-07-28",{}]"#)),
            call("1", &params("{}")),
            call("1", &params(r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#)),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":"2026-\u0030\u0037-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
                ),
            ),
            call(
                "1",
                &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}"#)),
            ),
            call("1", &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/clientInfo":null}}"#))),
            call(
                "1",
                &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/clientInfo":{{"name":3}}}}"#)),
            ),
            call("1", &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/logLevel":"loud"}}"#))),
            call("1", &params(&format!(r#"{{{ENVELOPE},"io.modelcontextprotocol/logLevel":null}}"#))),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}"#,
                ),
            ),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}"#,
                ),
            ),
            call(
                "1",
                &params(
                    r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":5}}"#,
                ),
            ),
            "{}".to_owned(),
            "{\"jsonrpc\":\"2.0\"".to_owned(),
            "null".to_owned(),
        ]
    }

    #[test]
    fn the_common_calls_are_read_in_one_pass_and_agree() {
        for text in common() {
            let fast = decode_tool_call(&text);
            assert!(fast.is_some(), "not read in one pass: {text}");
            assert_eq!(fast, general(&text), "{text}");
        }
    }

    /// Other methods, flaws and rare spellings are refused (the general reading then
    /// answers them, or reads what it can), never read some other way.
    #[test]
    fn the_rest_is_left_to_the_general_reading() {
        for text in rare() {
            assert_eq!(decode_tool_call(&text), None, "{text}");
        }
    }

    /// `count` texts made from `seeds` by one to three changes each (a byte dropped, a
    /// byte of JSON's punctuation inserted, or a byte replaced by one), from a fixed
    /// xorshift sequence; those that are not UTF-8 are skipped.
    fn mutations(seeds: &[String], count: usize) -> Vec<String> {
        const BYTES: &[u8] = br#"{}[]:,"\ 0123456789.-+eEtrufalsnu"#;
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |n: usize| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
        };
        let mut texts = Vec::with_capacity(count);
        for _ in 0..count {
            let mut bytes = seeds[next(seeds.len())].clone().into_bytes();
            for _ in 0..=next(3) {
                let at = next(bytes.len());
                match next(3) {
                    0 => drop(bytes.remove(at)),
                    1 => bytes.insert(at, BYTES[next(BYTES.len())]),
                    _ => bytes[at] = BYTES[next(BYTES.len())],
                }
            }
            texts.extend(String::from_utf8(bytes).ok());
        }
        texts
    }

    /// Reads each text with `first` and, where it reads a call, checks that `second`
    /// reads the same: how many `first` read, and how many it left.
    fn agreement(
        texts: Vec<String>,
        first: fn(&str) -> Option<ToolCallFrame>,
        second: fn(&str) -> Option<ToolCallFrame>,
    ) -> (usize, usize) {
        let (mut read, mut left) = (0, 0);
        for text in texts {
            match first(&text) {
                Some(frame) => {
                    read += 1;
                    assert_eq!(Some(frame), second(&text), "{text}");
                }
                None => left += 1,
            }
        }
        (read, left)
    }

    /// Mutated calls, read both ways: whatever the one pass reads, the general reading
    /// reads the same.
    #[test]
    fn mutated_calls_are_read_alike_or_left_to_the_general_reading() {
        let (read, left) = agreement(mutations(&common(), 4000), decode_tool_call, general);
        // Both outcomes were tried: some mutations keep a readable call, most do not.
        assert!(read > 100 && left > 100, "{read} read, {left} left");
    }

    /// The hand scan takes the spellings clients send, and whatever it takes (of the
    /// common calls and of thousands of mutations of them) serde_json reads alike.
    #[test]
    fn the_scan_takes_the_usual_spelling_and_agrees_with_serde_json() {
        let meta = format!("{{{ENVELOPE}}}");
        let usual = [
            call("1", &params(&meta)),
            call("\"abc\"", &params(&meta)),
            format!(" \n{} \n", call("7", &params(&meta))),
            format!(r#"{{"params":{},"method":"tools/call","id":3,"jsonrpc":"2.0"}}"#, params(&meta)),
            call("1", &format!(r#"{{"name":"echo","_meta":{meta}}}"#)),
            call(
                "2",
                &format!(
                    r#"{{"_meta":{meta},"arguments":{{"a":[1,-2.5e3,{{"b":null}}],"c":"\u00e9\n"}},"name":"x"}}"#
                ),
            ),
        ];
        for text in &usual {
            let scanned = scan_tool_call(text);
            assert!(scanned.is_some(), "not scanned: {text}");
            assert_eq!(scanned, decode_tool_call_with_serde(text), "{text}");
        }
        let (taken, left) = agreement(mutations(&usual, 20_000), scan_tool_call, decode_tool_call_with_serde);
        assert!(taken > 500 && left > 1000, "{taken} taken, {left} left");
    }

    #[test]
    fn the_params_keep_every_member_but_meta() {
        let text = call(
            "9",
            r#"{"name":"t","arguments":{"a":1},"requestState":"s","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"2"}}}"#,
        );
        let f = decode_tool_call(&text).unwrap();
        assert_eq!(f.id, RequestId::Number(9));
        assert_eq!(f.params.name, "t");
        assert_eq!(f.params.arguments.as_deref().map(RawValue::get), Some(r#"{"a":1}"#));
        assert_eq!(f.params.request_state.as_deref(), Some("s"));
        assert!(f.params.meta.is_none());
        assert!(f.envelope.client_capabilities.sampling.is_some());
        assert_eq!(f.envelope.client_info.unwrap().version, "2");
    }
}
