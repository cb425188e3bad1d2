//! The frame decoder against the decoder it replaced: on hundreds of hand-written tricky
//! frames and ~30,000 mutations of them, `decode_frame` gives exactly what the previous,
//! allocating implementation gave (the same message, or the same error code, message,
//! id and `had_method`), except that text that is not UTF-8 is now always a parse error.
//!
//! `reference` below is that previous implementation, kept verbatim apart from its names
//! and later rules, made in both: an error response whose `id` is `null` (JSON-RPC's
//! form for an error whose request id could not be read) is an error without an id; an
//! answer's id written with a fraction of zeros (`7.0`) is that integer; an id of `-0` is
//! the integer 0; an error says
//! whether the frame is an answer (`is_answer`). It captured every member as an owned
//! `Box<RawValue>` and parsed the id and the method with serde.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{mutate, Rng};
use mcpwire_protocol::jsonrpc::{decode_frame, DecodeError, Frame};

mod reference {
    use mcpwire_protocol::jsonrpc::{
        DecodeError, ErrorResponse, Frame, JsonRpcVersion, Message, Notification, Request, Response,
    };
    use mcpwire_protocol::{codes, ErrorObject, RequestId};
    use serde::de;
    use serde::{Deserialize, Deserializer};
    use serde_json::value::RawValue;

    fn parse(err: serde_json::Error) -> DecodeError {
        DecodeError {
            code: codes::PARSE_ERROR,
            message: format!("Parse error: {err}"),
            id: None,
            had_method: false,
            is_answer: false,
        }
    }

    fn invalid(message: impl Into<String>, id: Option<RequestId>, had_method: bool) -> DecodeError {
        DecodeError {
            code: codes::INVALID_REQUEST,
            message: message.into(),
            id,
            had_method,
            is_answer: false,
        }
    }

    /// The integer an answer's id writes with a fraction of zeros.
    fn integral(text: &str) -> Option<RequestId> {
        let (whole, fraction) = text.split_once('.')?;
        let zeros = !fraction.is_empty() && fraction.bytes().all(|b| b == b'0');
        zeros.then(|| whole.parse().ok().map(RequestId::Number))?
    }

    pub fn decode_frame(bytes: &[u8]) -> Result<Frame, DecodeError> {
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first == Some(&b'[') {
            let items: Vec<Box<RawValue>> = serde_json::from_slice(bytes).map_err(parse)?;
            if items.is_empty() {
                return Err(invalid("Invalid request: empty batch", None, false));
            }
            let messages = items.iter().map(|raw| decode_value(raw.get().as_bytes())).collect();
            return Ok(Frame::Batch(messages));
        }
        decode_value(bytes).map(Frame::Single)
    }

    fn decode_value(bytes: &[u8]) -> Result<Message, DecodeError> {
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first != Some(&b'{') {
            return match serde_json::from_slice::<de::IgnoredAny>(bytes) {
                Ok(_) => Err(invalid("Invalid request: a message must be a JSON object", None, false)),
                Err(e) => Err(parse(e)),
            };
        }
        let envelope: Envelope = serde_json::from_slice(bytes).map_err(|e| {
            if e.is_data() {
                invalid(format!("Invalid request: {e}"), None, false)
            } else {
                parse(e)
            }
        })?;
        envelope.classify()
    }

    #[derive(Deserialize)]
    struct Envelope {
        #[serde(default)]
        jsonrpc: Option<Box<RawValue>>,
        #[serde(default, deserialize_with = "present")]
        id: Option<Box<RawValue>>,
        #[serde(default)]
        method: Option<Box<RawValue>>,
        #[serde(default, deserialize_with = "present")]
        params: Option<Box<RawValue>>,
        #[serde(default, deserialize_with = "present")]
        result: Option<Box<RawValue>>,
        #[serde(default, deserialize_with = "present")]
        error: Option<Box<RawValue>>,
    }

    fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
        Box::<RawValue>::deserialize(d).map(Some)
    }

    impl Envelope {
        fn classify(self) -> Result<Message, DecodeError> {
            let is_answer =
                self.id.is_some() && self.method.is_none() && (self.result.is_some() || self.error.is_some());
            self.classify_members().map_err(|e| DecodeError { is_answer, ..e })
        }

        fn classify_members(self) -> Result<Message, DecodeError> {
            let had_method = self.method.is_some();
            let id = match &self.id {
                None => None,
                Some(raw)
                    if raw.get() == "null"
                        && !had_method
                        && self.error.is_some()
                        && self.result.is_none() =>
                {
                    None
                }
                // `-0` is the integer id 0 (JSON's grammar makes it an integer).
                Some(raw) if raw.get() == "-0" => Some(RequestId::Number(0)),
                Some(raw) => match serde_json::from_str::<RequestId>(raw.get()) {
                    Ok(id) => Some(id),
                    Err(_) if !had_method && integral(raw.get()).is_some() => integral(raw.get()),
                    Err(_) => {
                        let text = raw.get();
                        let what = if text == "null" {
                            "id must not be null"
                        } else if text.trim_start_matches('-').bytes().all(|b| b.is_ascii_digit()) {
                            "an integer id must be within a 64-bit signed integer's range (use a string for larger ones)"
                        } else {
                            "id must be a string or an integer"
                        };
                        return Err(invalid(format!("Invalid request: {what}"), None, had_method));
                    }
                },
            };
            let invalid = |msg: &str| Err(invalid(format!("Invalid request: {msg}"), id.clone(), had_method));
            match self.jsonrpc.as_deref().map(RawValue::get) {
                Some("\"2.0\"") => {}
                Some(_) => return invalid("jsonrpc must be \"2.0\""),
                None => return invalid("missing jsonrpc member"),
            }
            if let Some(method) = self.method {
                let method: String = match serde_json::from_str(method.get()) {
                    Ok(m) => m,
                    Err(_) => return invalid("method must be a string"),
                };
                if self.result.is_some() || self.error.is_some() {
                    return invalid("a message cannot have both a method and a result or error");
                }
                let params = match self.params {
                    Some(p) if p.get().starts_with('{') => Some(p),
                    Some(p) if p.get() == "null" => return invalid("params must not be null"),
                    Some(_) => return invalid("params must be an object"),
                    None => None,
                };
                return Ok(match id {
                    Some(id) => Message::Request(Request { jsonrpc: JsonRpcVersion, id, method, params }),
                    None => Message::Notification(Notification { jsonrpc: JsonRpcVersion, method, params }),
                });
            }
            match (self.result, self.error) {
                (Some(_), Some(_)) => invalid("a response cannot have both result and error"),
                (Some(result), None) => match id {
                    Some(id) => Ok(Message::Response(Response { jsonrpc: JsonRpcVersion, id, result })),
                    None => invalid("a result response needs an id"),
                },
                (None, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
                    Ok(error) => Ok(Message::Error(ErrorResponse { jsonrpc: JsonRpcVersion, id, error })),
                    Err(e) => invalid(&format!("malformed error object: {e}")),
                },
                (None, None) => invalid("neither a method nor a result nor an error"),
            }
        }
    }
}

/// A comparable rendering of a decode outcome: the `Debug` form shows every member,
/// raw params and results by their exact text.
fn render(outcome: &Result<Frame, DecodeError>) -> String {
    format!("{outcome:?}")
}

fn assert_same(input: &[u8]) {
    // The one intended difference: text that is not UTF-8 is a parse error as a whole
    // (the reference let a bad byte pass in a member that serde_json skips).
    if std::str::from_utf8(input).is_err() {
        let error = decode_frame(input).map(drop).unwrap_err();
        assert_eq!(error.code, mcpwire_protocol::codes::PARSE_ERROR, "{:?}", String::from_utf8_lossy(input));
        return;
    }
    let new = render(&decode_frame(input));
    let old = render(&reference::decode_frame(input));
    assert_eq!(new, old, "input: {:?}", String::from_utf8_lossy(input));
}

/// Frames that probe each decision of the decoder.
fn tricky_frames() -> Vec<Vec<u8>> {
    let mut frames: Vec<String> = Vec::new();
    let ids = [
        "1",
        "0",
        "-0",
        "-1",
        "7",
        "123456789012345678",
        "999999999999999999",
        "1234567890123456789",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "1.0",
        "1.5",
        "1e2",
        "1E2",
        "-1e-2",
        "0.0",
        "null",
        "true",
        "false",
        "\"a\"",
        "\"\"",
        "\"7\"",
        "\"\\u0041\"",
        "\"a\\\"b\"",
        "\"\\ud800\"",
        "{}",
        "[]",
        "[1]",
        " 5 ",
    ];
    let methods = [
        "\"tools/call\"",
        "\"\"",
        "\"a\\/b\"",
        "\"\\u0074ools/call\"",
        "\"tab\\there\"",
        "\"é\"",
        "\"\\\"\"",
        "\"a\\\\\"",
        "7",
        "null",
        "true",
        "{}",
        "[]",
        "\"\\ud83d\\ude00\"",
        "\"😀\"",
    ];
    for id in ids {
        frames.push(format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m"}}"#));
        frames.push(format!(r#"{{"jsonrpc":"1.0","id":{id},"method":"m"}}"#));
        frames.push(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#));
        frames.push(format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":1,"message":"x"}}}}"#));
        frames.push(format!(r#"{{"id":{id},"method":"m"}}"#));
        frames.push(format!(r#"{{"jsonrpc":"2.0","id":{id}}}"#));
    }
    for method in methods {
        frames.push(format!(r#"{{"jsonrpc":"2.0","id":1,"method":{method},"params":{{"a":1}}}}"#));
        frames.push(format!(r#"{{"jsonrpc":"2.0","method":{method}}}"#));
        frames.push(format!(r#"{{"jsonrpc":"2.0","id":1,"method":{method},"result":{{}}}}"#));
    }
    for jsonrpc in ["\"2.0\"", "\"2.00\"", "\"\\u0032.0\"", "2.0", "2", "null", "\"\"", "{}", "\"2.0 \""] {
        frames.push(format!(r#"{{"jsonrpc":{jsonrpc},"id":1,"method":"m"}}"#));
        frames.push(format!(r#"{{"jsonrpc":{jsonrpc},"method":"m"}}"#));
    }
    for params in ["{}", "null", "[]", "[1]", "1", "\"x\"", "true", "{\"a\":[1,{\"b\":null}]}", " { } "] {
        frames.push(format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{params}}}"#));
        frames.push(format!(r#"{{"jsonrpc":"2.0","method":"m","params":{params}}}"#));
    }
    for result_error in [
        r#""result":{},"error":{"code":1,"message":""}"#,
        r#""result":null"#,
        r#""result":1"#,
        r#""error":null"#,
        r#""error":{"code":-32601,"message":"m","data":[1]}"#,
        r#""error":{"code":"x","message":"m"}"#,
        r#""error":{"message":"m"}"#,
        r#""error":7"#,
    ] {
        frames.push(format!(r#"{{"jsonrpc":"2.0","id":1,{result_error}}}"#));
        frames.push(format!(r#"{{"jsonrpc":"2.0",{result_error}}}"#));
    }
    frames.extend(
        [
            "",
            " ",
            "{",
            "}",
            "{}",
            "[]",
            "[ ]",
            "[{}]",
            "[1,2]",
            "42",
            "\"x\"",
            "null",
            "not json",
            "\u{0}",
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} "#,
            r#" {"jsonrpc":"2.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m",}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{},"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":{"deep":[1,2,{"x":"\u00e9"}]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":"\ud800"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":1e999}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":1e999}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"x":"\ud800"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","par\u0061ms":{}}"#,
            r#"{"jsonrpc":"2.0","\u0069d":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"_meta":{"progressToken":1}}}"#,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\t\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\n\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\u{7f}\",\"method\":\"m\"}",
            r#"[{"jsonrpc":"2.0","id":1,"method":"a"}, 3, {"jsonrpc":"2.0","method":"b"}, {"id":null}]"#,
            r#"[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","error":{"code":1,"message":""}}]"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"a"}"#,
        ]
        .map(str::to_owned),
    );
    let mut bytes: Vec<Vec<u8>> = frames.into_iter().map(String::into_bytes).collect();
    bytes.push(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}".to_vec());
    bytes.push(b"{\"jsonrpc\":\"2.0\",\"id\":\"\xc3\",\"method\":\"m\"}".to_vec());
    bytes.push(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":\"\xff\"}".to_vec());
    bytes.push(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"\xff\":1}}".to_vec());
    bytes
}

#[test]
fn tricky_frames_decode_as_before() {
    let frames = tricky_frames();
    assert!(frames.len() > 200, "{} frames", frames.len());
    for frame in &frames {
        assert_same(frame);
    }
}

const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b"\"",
    b"\\",
    b"\\\"",
    b"\\u0041",
    b"null",
    b"true",
    b"0",
    b"-0",
    b"1e999",
    b"-1",
    b"1.5",
    b"12345678901234567890",
    b"\"id\"",
    b"\"method\"",
    b"\"params\"",
    b"\"result\"",
    b"\"error\"",
    b"\"jsonrpc\"",
    b"\"2.0\"",
    b"\xff",
    b"\xc3",
    b" ",
    b"\n",
    b"\t",
];

#[test]
fn mutated_frames_decode_as_before() {
    let seeds = tricky_frames();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut decoded = 0usize;
    for _ in 0..30_000 {
        let seed = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, seed, TOKENS);
        assert_same(&input);
        decoded += usize::from(decode_frame(&input).is_ok());
    }
    assert!(decoded > 300, "only {decoded} mutated frames decoded");
}
