//! The JSON-RPC messages of the raw drivers, written by hand, and a lean response check.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::Protocol;

/// The 2025 revision the raw drivers speak.
pub const V2025: &str = "2025-11-25";
/// The 2026 revision the raw drivers speak.
pub const V2026: &str = "2026-07-28";

/// The `initialize` request (2025 era) with id 0.
pub fn initialize() -> String {
    format!(
        concat!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{}","#,
            r#""capabilities":{{}},"clientInfo":{{"name":"mcpwire-bench","version":"{}"}}}}}}"#
        ),
        V2025,
        env!("CARGO_PKG_VERSION")
    )
}

/// The `notifications/initialized` notification.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// Builds `tools/call echo` requests quickly: the body is split around the id.
#[derive(Clone, Debug)]
pub struct EchoCall {
    head: String,
    tail: String,
}

impl EchoCall {
    /// The call for `protocol` with `text` as the argument.
    pub fn new(protocol: Protocol, text: &str) -> EchoCall {
        let text = serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into());
        let meta = match protocol {
            Protocol::V2025 => String::new(),
            Protocol::V2026 => format!(
                concat!(
                    r#","_meta":{{"io.modelcontextprotocol/protocolVersion":"{}","#,
                    r#""io.modelcontextprotocol/clientCapabilities":{{}},"#,
                    r#""io.modelcontextprotocol/clientInfo":{{"name":"mcpwire-bench","version":"{}"}}}}"#
                ),
                V2026,
                env!("CARGO_PKG_VERSION")
            ),
        };
        EchoCall {
            head: r#"{"jsonrpc":"2.0","id":"#.to_owned(),
            tail: format!(
                r#","method":"tools/call","params":{{"name":"echo","arguments":{{"text":{text}}}{meta}}}}}"#
            ),
        }
    }

    /// Appends the request with `id` to `out`.
    #[inline]
    pub fn write(&self, id: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(self.head.as_bytes());
        let mut buf = [0u8; 20];
        out.extend_from_slice(format_u64(id, &mut buf));
        out.extend_from_slice(self.tail.as_bytes());
    }

    /// The length of the request with `id`.
    pub fn len(&self, id: u64) -> usize {
        let mut buf = [0u8; 20];
        self.head.len() + format_u64(id, &mut buf).len() + self.tail.len()
    }

    /// Never empty (for clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// Formats `n` in decimal into `buf`, without allocating.
pub fn format_u64(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

#[derive(Deserialize)]
struct Response<'a> {
    id: Option<u64>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

/// What a response line says.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// A result for this id.
    Ok(u64),
    /// An error (or a result-less answer) for this id; the text is the raw message.
    Err(Option<u64>, String),
    /// Not a response with a numeric id (a notification, a request from the server...).
    Other,
}

/// Reads a JSON-RPC response without building a tree (the result stays raw).
pub fn answer(line: &[u8]) -> Answer {
    match serde_json::from_slice::<Response<'_>>(line) {
        Ok(Response { id: Some(id), result: Some(_), error: None }) => Answer::Ok(id),
        Ok(Response { id, error: Some(e), .. }) => Answer::Err(id, e.get().to_owned()),
        Ok(Response { id: Some(id), .. }) => {
            Answer::Err(Some(id), String::from_utf8_lossy(line).into_owned())
        }
        _ => Answer::Other,
    }
}

/// Full check of one echo answer: the first content is text equal to `text`.
pub fn check_echo(line: &[u8], text: &str) -> Result<(), String> {
    let v: serde_json::Value = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
    let got = v.pointer("/result/content/0/text").and_then(|t| t.as_str());
    if got == Some(text) {
        Ok(())
    } else {
        Err(format!("unexpected echo answer: {}", String::from_utf8_lossy(line)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_valid_requests() {
        for p in [Protocol::V2025, Protocol::V2026] {
            let call = EchoCall::new(p, "hi \"there\"");
            let mut out = Vec::new();
            call.write(1234, &mut out);
            assert_eq!(out.len(), call.len(1234));
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
            assert_eq!(v["id"], 1234);
            assert_eq!(v["params"]["arguments"]["text"], "hi \"there\"");
            assert_eq!(v["params"]["_meta"].is_object(), p == Protocol::V2026);
        }
        let init: serde_json::Value = serde_json::from_str(&initialize()).unwrap_or_default();
        assert_eq!(init["params"]["protocolVersion"], V2025);
    }

    #[test]
    fn reads_answers() {
        assert_eq!(answer(br#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#), Answer::Ok(7));
        assert_eq!(answer(br#"{"result":{"id":"x"},"jsonrpc":"2.0","id":8}"#), Answer::Ok(8));
        assert!(matches!(answer(br#"{"jsonrpc":"2.0","id":9,"error":{"code":1}}"#), Answer::Err(Some(9), _)));
        assert_eq!(answer(br#"{"jsonrpc":"2.0","method":"x"}"#), Answer::Other);
        assert!(check_echo(br#"{"id":1,"result":{"content":[{"type":"text","text":"a"}]}}"#, "a").is_ok());
    }
}
