//! The JSON-RPC messages of the raw drivers, written by hand, and a lean response check.

use serde::Deserialize;
use serde_json::value::RawValue;

pub use mcpwire_examples::echo::{MIX_PROMPT, MIX_RESOURCE_URI};

use super::config::{BenchConfig, Protocol, ToolCall, V2025, V2026};

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

/// The requests a run sends besides the echo call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallOptions {
    /// Every request carries `_meta.progressToken` (its id, so tokens are unique).
    pub progress_token: bool,
    /// Requests cycle through `tools/list`, `tools/call echo`, `resources/read`
    /// ([`MIX_RESOURCE_URI`]) and `prompts/get` ([`MIX_PROMPT`]) by id (`id % 4`; an id of
    /// the form `4n + 1` is always the echo call, so a check of id 1 checks the echo).
    pub mix: bool,
    /// Call this tool with these arguments instead of `echo {text}`: its answers are
    /// checked for a result that is not a tool error.
    pub tool: Option<ToolCall>,
}

/// One request form, split around its id (every `None` slot of `parts` is the id).
#[derive(Clone, Debug)]
struct Template {
    parts: Vec<Option<String>>,
    method: &'static str,
    name: Option<String>,
}

impl Template {
    /// `{"jsonrpc":"2.0","id":ID,"method":METHOD,"params":{FIELDS,"_meta":{...}}}`, the
    /// `_meta` holding the progress token and (2026) the envelope.
    fn new(
        method: &'static str,
        name: Option<String>,
        fields: &str,
        protocol: Protocol,
        progress: bool,
    ) -> Template {
        let mut meta: Vec<Option<String>> = Vec::new();
        if progress {
            meta.push(Some(r#""progressToken":"#.to_owned()));
            meta.push(None);
        }
        if protocol == Protocol::V2026 {
            let sep = if progress { "," } else { "" };
            meta.push(Some(format!(
                concat!(
                    r#"{}"io.modelcontextprotocol/protocolVersion":"{}","#,
                    r#""io.modelcontextprotocol/clientCapabilities":{{}},"#,
                    r#""io.modelcontextprotocol/clientInfo":{{"name":"mcpwire-bench","version":"{}"}}"#
                ),
                sep,
                V2026,
                env!("CARGO_PKG_VERSION")
            )));
        }
        let mut parts = vec![Some(r#"{"jsonrpc":"2.0","id":"#.to_owned()), None];
        let mut params = format!(r#","method":"{method}","params":{{{fields}"#);
        if !meta.is_empty() {
            if !fields.is_empty() {
                params.push(',');
            }
            params.push_str(r#""_meta":{"#);
            for part in meta {
                match part {
                    Some(text) => params.push_str(&text),
                    None => {
                        parts.push(Some(std::mem::take(&mut params)));
                        parts.push(None);
                    }
                }
            }
            params.push('}');
        }
        params.push_str("}}");
        parts.push(Some(params));
        Template { parts, method, name }
    }

    fn write(&self, id: &[u8], out: &mut Vec<u8>) {
        for part in &self.parts {
            out.extend_from_slice(part.as_ref().map_or(id, |text| text.as_bytes()));
        }
    }

    fn len(&self, id: &[u8]) -> usize {
        self.parts.iter().map(|part| part.as_ref().map_or(id.len(), String::len)).sum()
    }
}

/// Builds a run's requests quickly: `tools/call echo` (or, with [`CallOptions::mix`], the
/// mix), each split around its id.
#[derive(Clone, Debug)]
pub struct EchoCall {
    templates: Vec<Template>,
    /// A chosen tool rather than `echo`.
    custom: bool,
    /// The era the requests are written for.
    protocol: Protocol,
}

impl EchoCall {
    /// The requests the raw drivers send for `config`.
    pub fn for_config(config: &BenchConfig) -> EchoCall {
        let options =
            CallOptions { progress_token: config.progress_token, mix: config.mix, tool: config.tool.clone() };
        EchoCall::with_options(config.protocol, &config.text, options)
    }

    /// The requests for `protocol` and `options`; `text` is the echo's argument (and the
    /// prompt's).
    pub fn with_options(protocol: Protocol, text: &str, options: CallOptions) -> EchoCall {
        let text = serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into());
        let progress = options.progress_token;
        let echo = match &options.tool {
            Some(tool) => {
                let name = serde_json::to_string(&tool.name).unwrap_or_else(|_| "\"\"".into());
                let arguments = serde_json::to_string(&tool.arguments).unwrap_or_else(|_| "{}".into());
                let params = format!(r#""name":{name},"arguments":{arguments}"#);
                Template::new("tools/call", Some(tool.name.clone()), &params, protocol, progress)
            }
            None => Template::new(
                "tools/call",
                Some("echo".into()),
                &format!(r#""name":"echo","arguments":{{"text":{text}}}"#),
                protocol,
                progress,
            ),
        };
        let templates = if options.mix {
            vec![
                Template::new("tools/list", None, "", protocol, progress),
                echo,
                Template::new(
                    "resources/read",
                    Some(MIX_RESOURCE_URI.into()),
                    &format!(r#""uri":"{MIX_RESOURCE_URI}""#),
                    protocol,
                    progress,
                ),
                Template::new(
                    "prompts/get",
                    Some(MIX_PROMPT.into()),
                    &format!(r#""name":"{MIX_PROMPT}","arguments":{{"text":{text}}}"#),
                    protocol,
                    progress,
                ),
            ]
        } else {
            vec![echo]
        };
        EchoCall { templates, custom: options.tool.is_some(), protocol }
    }

    /// Full check of the answer to the tool call: the echo came back, or (a chosen tool)
    /// a result that is not a tool error.
    pub fn check(&self, line: &[u8], text: &str) -> Result<(), String> {
        if !self.custom {
            return check_echo(line, text);
        }
        let v: serde_json::Value = serde_json::from_slice(line).map_err(|e| format!("not JSON: {e}"))?;
        match v.get("result") {
            Some(result) if result.get("isError") != Some(&serde_json::Value::Bool(true)) => Ok(()),
            _ => Err(format!("the tool call failed: {}", String::from_utf8_lossy(line))),
        }
    }

    fn template(&self, id: u64) -> &Template {
        &self.templates[(id % self.templates.len() as u64) as usize]
    }

    /// Appends the request with `id` to `out`.
    #[inline]
    pub fn write(&self, id: u64, out: &mut Vec<u8>) {
        self.template(id).write(itoa::Buffer::new().format(id).as_bytes(), out);
    }

    /// The length of the request with `id`.
    pub fn len(&self, id: u64) -> usize {
        self.template(id).len(itoa::Buffer::new().format(id).as_bytes())
    }

    /// The method of the request with `id` (the 2026 `Mcp-Method` header).
    pub fn method(&self, id: u64) -> &'static str {
        self.template(id).method
    }

    /// The name, URI or nothing that the 2026 `Mcp-Name` header of the request with `id`
    /// carries.
    pub fn name(&self, id: u64) -> Option<&str> {
        self.template(id).name.as_deref()
    }

    /// Whether the request with `id` is the echo call.
    pub fn is_echo(&self, id: u64) -> bool {
        self.template(id).method == "tools/call"
    }

    /// What the report should say when `line`, the answer to one of these requests, is not
    /// an answer of their era: a 2026-07-28 server MUST put `resultType` in every result,
    /// so a result without it came from a server that answered in 2025 terms, and the run
    /// measures that server's 2025 serving, not the 2026 era it is labelled with.
    pub fn era_note(&self, line: &[u8]) -> Option<String> {
        if self.protocol != Protocol::V2026 {
            return None;
        }
        let answer: serde_json::Value = serde_json::from_slice(line).ok()?;
        let result = answer.get("result")?;
        result.get("resultType").is_none().then(|| {
            "the server answered the 2026-07-28 requests without `resultType` (2025 terms): \
             this measures its 2025 serving, not the 2026 era"
                .to_owned()
        })
    }
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
    use mcpwire_examples::echo::payload_text;

    /// A 2026 run whose answers have no `resultType` is noted as measuring 2025 serving; a
    /// 2026 answer, an error, and any 2025 run are not.
    #[test]
    fn a_2026_run_answered_in_2025_terms_is_noted() {
        let v2026 = EchoCall::with_options(Protocol::V2026, "x", CallOptions::default());
        let v2025 = EchoCall::with_options(Protocol::V2025, "x", CallOptions::default());
        let legacy = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}]}}"#;
        let modern = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}"#;
        let error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#;
        assert!(v2026.era_note(legacy).is_some_and(|n| n.contains("2025 terms")));
        assert_eq!(v2026.era_note(modern), None);
        assert_eq!(v2026.era_note(error), None);
        assert_eq!(v2025.era_note(legacy), None);
    }

    #[test]
    fn builds_valid_requests() {
        for p in [Protocol::V2025, Protocol::V2026] {
            let call = EchoCall::with_options(p, "hi \"there\"", CallOptions::default());
            let mut out = Vec::new();
            call.write(1234, &mut out);
            assert_eq!(out.len(), call.len(1234));
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
            assert_eq!(v["id"], 1234);
            assert_eq!(v["params"]["arguments"]["text"], "hi \"there\"");
            assert_eq!(v["params"]["_meta"].is_object(), p == Protocol::V2026);
        }
        for p in [Protocol::V2025, Protocol::V2026] {
            for progress_token in [false, true] {
                let call =
                    EchoCall::with_options(p, "x", CallOptions { progress_token, mix: true, tool: None });
                for id in 0..8u64 {
                    let mut out = Vec::new();
                    call.write(id, &mut out);
                    assert_eq!(out.len(), call.len(id));
                    let v: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
                    assert_eq!(v["id"], id, "{}", String::from_utf8_lossy(&out));
                    assert_eq!(v["method"], call.method(id));
                    assert_eq!(call.is_echo(id), id % 4 == 1);
                    let meta = &v["params"]["_meta"];
                    assert_eq!(meta["progressToken"] == id, progress_token);
                    assert_eq!(
                        meta["io.modelcontextprotocol/protocolVersion"] == V2026,
                        p == Protocol::V2026
                    );
                    match call.method(id) {
                        "resources/read" => assert_eq!(v["params"]["uri"], MIX_RESOURCE_URI),
                        "prompts/get" => assert_eq!(v["params"]["arguments"]["text"], "x"),
                        "tools/call" => assert_eq!(v["params"]["arguments"]["text"], "x"),
                        "tools/list" => assert!(v["params"].is_object()),
                        other => panic!("unexpected {other}"),
                    }
                }
            }
        }
        assert_eq!(payload_text(65_536).len(), 65_536);
        assert_eq!(serde_json::to_string(&payload_text(4096)).unwrap_or_default().len(), 4098);
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
