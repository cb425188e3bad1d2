//! Answering the server's elicitation: on a terminal, ask the user for each field of the
//! requested schema (with its defaults); with `--no-input`, or when stdin is not a
//! terminal, decline.

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use mcpwire::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use mcpwire::McpError;
use serde_json::{json, Map, Value};

use crate::text_format::TextFormat;
use crate::ui::{Ui, Visible};

/// How elicitation is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Ask on the terminal.
    Ask,
    /// Decline, saying why.
    Decline(&'static str),
}

/// The most characters of a server's elicitation message quoted in a note.
const MAX_QUOTED_MESSAGE: usize = 500;

/// The most fields of a form the dialog asks ...
const MAX_FORM_FIELDS: usize = 50;
/// ... and the most options of one field it lists: a form past either is declined, as
/// asking it would flood the terminal and keep the user answering for hours.
const MAX_FIELD_OPTIONS: usize = 100;

/// The most characters of the server's message the dialog shows ...
const MAX_SHOWN_MESSAGE: usize = 2000;
/// ... of a field's title and description ...
const MAX_SHOWN_LABEL: usize = 300;
/// ... and of one option or default.
const MAX_SHOWN_OPTION: usize = 200;

/// Why a form (its `requestedSchema`) is too large to ask, or `None`: more than
/// [`MAX_FORM_FIELDS`] fields, or a field with more than [`MAX_FIELD_OPTIONS`] options.
fn oversized(schema: &Value) -> Option<String> {
    let properties = schema.get("properties").and_then(Value::as_object)?;
    if properties.len() > MAX_FORM_FIELDS {
        return Some(format!(
            "its form has {} fields, more than the {MAX_FORM_FIELDS} asked",
            properties.len()
        ));
    }
    let options = |schema: &Value| {
        ["enum", "oneOf", "anyOf"]
            .iter()
            .filter_map(|k| schema.get(*k).and_then(Value::as_array))
            .map(Vec::len)
            .max()
    };
    properties.iter().find_map(|(name, property)| {
        let count = options(property).into_iter().chain(property.get("items").and_then(options)).max()?;
        (count > MAX_FIELD_OPTIONS).then(|| {
            format!(
                "its field {:?} has {count} options, more than the {MAX_FIELD_OPTIONS} listed",
                crate::ui::truncate(name, 60)
            )
        })
    })
}

/// Answers one elicitation request from `server` (the target, as the user named it: the
/// dialog says who asks). Questions are asked one at a time (`turn`).
pub async fn answer(
    params: ElicitRequestParams,
    policy: Policy,
    ui: Ui,
    turn: Arc<tokio::sync::Mutex<()>>,
    server: Arc<str>,
) -> Result<ElicitResult, McpError> {
    let value = serde_json::to_value(&params)?;
    let message = value.get("message").and_then(Value::as_str).unwrap_or("").to_owned();
    // Quoted inside a note of ours: one line, bounded (a newline in it would start a line
    // that reads as the CLI's own).
    let quoted = || crate::ui::truncate(&crate::ui::one_line(&message), MAX_QUOTED_MESSAGE);
    let too_big = value.get("requestedSchema").and_then(oversized);
    let result = match (policy, &params) {
        (_, ElicitRequestParams::Url(_)) => {
            ui.note(&format!("mcpwire: declined the server's request to open a URL ({})", quoted()));
            json!({ "action": "decline" })
        }
        (Policy::Decline(why), _) => {
            ui.note(&format!("mcpwire: declined the server's request for input ({why}): {}", quoted()));
            json!({ "action": "decline" })
        }
        (Policy::Ask, ElicitRequestParams::Form(_)) if too_big.is_some() => {
            let why = too_big.unwrap_or_default();
            ui.note(&format!("mcpwire: declined the server's request for input ({why}): {}", quoted()));
            json!({ "action": "decline" })
        }
        (Policy::Ask, ElicitRequestParams::Form(_)) => {
            let _turn = turn.lock().await;
            ui.clear();
            let schema = value.get("requestedSchema").cloned().unwrap_or(Value::Null);
            ui.asking(true);
            let asking = Asking::new(ui.clone());
            let withdrawn = asking.withdrawn.clone();
            let asked = tokio::task::spawn_blocking(move || {
                let stdin = io::stdin();
                let mut input = stdin.lock();
                let mut out = io::stderr();
                dialog(&server, &message, &schema, &mut input, &mut out, &withdrawn)
            })
            .await;
            asking.finish();
            ui.asking(false);
            match asked {
                Ok(Ok(result)) => result,
                Ok(Err(e)) => {
                    tracing::debug!("the elicitation dialog failed: {e}");
                    json!({ "action": "cancel" })
                }
                Err(e) => return Err(McpError::internal(e.to_string())),
            }
        }
    };
    Ok(serde_json::from_value(result)?)
}

/// A question on screen. The dialog reads the terminal on a thread of its own, which
/// dropping the request's handler (the server cancelled its request, or the call is over)
/// does not stop: dropped before the dialog finished, this marks the question taken back,
/// so that the dialog asks nothing more and reads no line past the one being typed (the
/// next question gets the next), and tells the user.
struct Asking {
    withdrawn: Arc<AtomicBool>,
    ui: Ui,
    finished: bool,
}

impl Asking {
    fn new(ui: Ui) -> Self {
        Asking { withdrawn: Arc::default(), ui, finished: false }
    }

    /// The dialog finished: its answer goes to the server.
    fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for Asking {
    fn drop(&mut self) {
        if !self.finished {
            self.withdrawn.store(true, Ordering::Relaxed);
            self.ui.note("mcpwire: the server took its question back; what is typed there is not sent");
            self.ui.asking(false);
        }
    }
}

/// One form field, as the dialog understands it.
enum Field {
    Text {
        min: Option<u64>,
        max: Option<u64>,
        /// The schema's `format` (`email`, `uri`, `date`, `date-time`), checked as typed.
        format: Option<TextFormat>,
    },
    Integer {
        min: Option<f64>,
        max: Option<f64>,
    },
    Number {
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    /// One of (value, label).
    Choice(Vec<(String, String)>),
    /// Several of (value, label).
    Choices {
        options: Vec<(String, String)>,
        min: Option<u64>,
        max: Option<u64>,
    },
}

fn options_of(schema: &Value) -> Option<Vec<(String, String)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let v = v.as_str()?.to_owned();
                    let label = names.and_then(|n| n.get(i)).and_then(Value::as_str).unwrap_or(&v).to_owned();
                    Some((v, label))
                })
                .collect(),
        );
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alternatives) = schema.get(key).and_then(Value::as_array) {
            return Some(
                alternatives
                    .iter()
                    .filter_map(|a| {
                        let v = a.get("const")?.as_str()?.to_owned();
                        let label = a.get("title").and_then(Value::as_str).unwrap_or(&v).to_owned();
                        Some((v, label))
                    })
                    .collect(),
            );
        }
    }
    None
}

fn field_of(schema: &Value) -> Field {
    let num = |k: &str| schema.get(k).and_then(Value::as_f64);
    let int = |k: &str| schema.get(k).and_then(Value::as_u64);
    match schema.get("type").and_then(Value::as_str) {
        Some("array") => Field::Choices {
            options: schema.get("items").and_then(options_of).unwrap_or_default(),
            min: int("minItems"),
            max: int("maxItems"),
        },
        Some("boolean") => Field::Boolean,
        Some("integer") => Field::Integer { min: num("minimum"), max: num("maximum") },
        Some("number") => Field::Number { min: num("minimum"), max: num("maximum") },
        _ => match options_of(schema) {
            Some(options) if !options.is_empty() => Field::Choice(options),
            _ => Field::Text {
                min: int("minLength"),
                max: int("maxLength"),
                format: schema.get("format").and_then(Value::as_str).and_then(TextFormat::named),
            },
        },
    }
}

fn show_default(default: &Value, field: &Field) -> String {
    match (default, field) {
        (Value::Bool(b), _) => if *b { "yes" } else { "no" }.to_owned(),
        (Value::String(s), _) => s.clone(),
        (Value::Array(items), _) => items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "),
        (other, _) => other.to_string(),
    }
}

/// Picks one option by number, value or label.
fn pick(options: &[(String, String)], text: &str) -> Option<String> {
    if let Ok(n) = text.parse::<usize>() {
        if (1..=options.len()).contains(&n) {
            return Some(options[n - 1].0.clone());
        }
    }
    options.iter().find(|(v, l)| v == text || l.eq_ignore_ascii_case(text)).map(|(v, _)| v.clone())
}

/// Reads one answer for a field: `Ok(value)` or `Err(reason)` to ask again.
fn parse_answer(field: &Field, text: &str) -> Result<Value, String> {
    let range = |n: f64, min: Option<f64>, max: Option<f64>| -> Result<(), String> {
        match (min, max) {
            (Some(lo), _) if n < lo => Err(format!("at least {lo}")),
            (_, Some(hi)) if n > hi => Err(format!("at most {hi}")),
            _ => Ok(()),
        }
    };
    match field {
        Field::Text { min, max, format } => {
            let len = text.chars().count() as u64;
            match (min, max, format) {
                (Some(lo), ..) if len < *lo => Err(format!("at least {lo} characters")),
                (_, Some(hi), _) if len > *hi => Err(format!("at most {hi} characters")),
                (.., Some(format)) if !format.accepts(text) => Err(format.described().to_owned()),
                _ => Ok(Value::String(text.to_owned())),
            }
        }
        Field::Integer { min, max } => {
            let n: i64 = text.parse().map_err(|_| "a whole number".to_owned())?;
            range(n as f64, *min, *max)?;
            Ok(json!(n))
        }
        Field::Number { min, max } => {
            let n: f64 = text.parse().map_err(|_| "a number".to_owned())?;
            range(n, *min, *max)?;
            // Keep the number as typed (7 stays 7, not 7.0) when it is valid JSON.
            match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Number(_)) => Ok(v),
                _ => Ok(json!(n)),
            }
        }
        Field::Boolean => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" | "1" => Ok(Value::Bool(true)),
            "n" | "no" | "false" | "0" => Ok(Value::Bool(false)),
            _ => Err("yes or no".to_owned()),
        },
        Field::Choice(options) => {
            pick(options, text).map(Value::String).ok_or_else(|| "one of the options".to_owned())
        }
        Field::Choices { options, min, max } => {
            let mut chosen = Vec::new();
            for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let value = pick(options, part).ok_or_else(|| format!("{part:?} is not an option"))?;
                if !chosen.contains(&value) {
                    chosen.push(value);
                }
            }
            let n = chosen.len() as u64;
            match (min, max) {
                (Some(lo), _) if n < *lo => Err(format!("at least {lo} choices")),
                (_, Some(hi)) if n > *hi => Err(format!("at most {hi} choices")),
                _ => Ok(json!(chosen)),
            }
        }
    }
}

/// The error that ends a dialog whose question the server took back.
fn taken_back() -> io::Error {
    io::Error::other("the server took its question back")
}

/// Reads a line; `None` at end of input; an error when the question was taken back
/// meanwhile (`withdrawn`).
fn read_line(input: &mut impl BufRead, withdrawn: &AtomicBool) -> io::Result<Option<String>> {
    let mut line = String::new();
    let read = input.read_line(&mut line)?;
    if withdrawn.load(Ordering::Relaxed) {
        return Err(taken_back());
    }
    if read == 0 {
        return Ok(None);
    }
    Ok(Some(line.trim_end_matches(['\n', '\r']).trim().to_owned()))
}

/// The dialog: each field in the schema's order (the protocol type and this build's
/// JSON maps keep the server's order), then whether to send. End of input cancels. What
/// it shows of the server's form has its control characters made visible. A question
/// taken back (`withdrawn`) ends it with an error at the next line read, or at once.
pub fn dialog(
    server: &str,
    message: &str,
    schema: &Value,
    input: &mut impl BufRead,
    out: &mut impl Write,
    withdrawn: &AtomicBool,
) -> io::Result<Value> {
    if withdrawn.load(Ordering::Relaxed) {
        return Err(taken_back());
    }
    let out = &mut Visible(out);
    let cancel = json!({ "action": "cancel" });
    writeln!(out, "The server {server} asks: {}", crate::ui::truncate(message, MAX_SHOWN_MESSAGE))?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
    let mut content = Map::new();
    for (name, property) in properties {
        let field = field_of(property);
        let is_required = required.contains(&name.as_str());
        let default = property.get("default");
        let title = property.get("title").and_then(Value::as_str).unwrap_or(name);
        let mut label = title.to_owned();
        if let Some(d) = property.get("description").and_then(Value::as_str) {
            label.push_str(&format!(" — {d}"));
        }
        let label = crate::ui::truncate(&label, MAX_SHOWN_LABEL);
        let kind = match &field {
            Field::Text { format: Some(format), .. } => format.described().to_owned(),
            Field::Text { .. } => "text".to_owned(),
            Field::Integer { .. } => "whole number".to_owned(),
            Field::Number { .. } => "number".to_owned(),
            Field::Boolean => "yes/no".to_owned(),
            Field::Choice(options) | Field::Choices { options, .. } => {
                for (i, (value, shown)) in options.iter().enumerate() {
                    let (value, shown) = (
                        crate::ui::truncate(value, MAX_SHOWN_OPTION),
                        crate::ui::truncate(shown, MAX_SHOWN_OPTION),
                    );
                    if value == shown {
                        writeln!(out, "    {}) {value}", i + 1)?;
                    } else {
                        writeln!(out, "    {}) {shown} ({value})", i + 1)?;
                    }
                }
                if matches!(field, Field::Choice(_)) {
                    "pick one".to_owned()
                } else {
                    "pick any, comma-separated".to_owned()
                }
            }
        };
        loop {
            let mut prompt = format!("  {label} ({kind}{})", if is_required { ", required" } else { "" });
            if let Some(d) = default {
                prompt.push_str(&format!(
                    " [{}]",
                    crate::ui::truncate(&show_default(d, &field), MAX_SHOWN_OPTION)
                ));
            }
            write!(out, "{prompt}: ")?;
            out.flush()?;
            let Some(text) = read_line(input, withdrawn)? else {
                writeln!(out)?;
                return Ok(cancel);
            };
            if text.is_empty() {
                match default {
                    Some(d) => {
                        content.insert(name.clone(), d.clone());
                        break;
                    }
                    None if is_required => {
                        writeln!(out, "    (an answer is required)")?;
                        continue;
                    }
                    None => break,
                }
            }
            match parse_answer(&field, &text) {
                Ok(value) => {
                    content.insert(name.clone(), value);
                    break;
                }
                Err(expected) => writeln!(out, "    (expected {expected})")?,
            }
        }
    }
    loop {
        write!(out, "Send? [Y]es, [n]o to decline, [c]ancel: ")?;
        out.flush()?;
        let Some(text) = read_line(input, withdrawn)? else {
            writeln!(out)?;
            return Ok(cancel);
        };
        match text.to_ascii_lowercase().as_str() {
            "" | "y" | "yes" => return Ok(json!({ "action": "accept", "content": content })),
            "n" | "no" => return Ok(json!({ "action": "decline" })),
            "c" | "cancel" => return Ok(cancel),
            _ => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use std::io::Read;

    fn run(schema: Value, typed: &str) -> (Value, String) {
        let mut input = io::Cursor::new(typed.as_bytes().to_vec());
        let mut out = Vec::new();
        let result =
            dialog("stdio:demo", "Tell me", &schema, &mut input, &mut out, &AtomicBool::new(false)).unwrap();
        (result, String::from_utf8(out).unwrap())
    }

    #[test]
    fn asks_each_field_with_defaults() {
        let schema = json!({
            "type": "object",
            "properties": {
                "age": { "type": "integer", "default": 30, "minimum": 0 },
                "name": { "type": "string", "description": "User name", "default": "John Doe" },
                "status": { "type": "string", "enum": ["active", "inactive"], "default": "active" },
                "tags": { "type": "array", "items": { "anyOf": [
                    { "const": "a", "title": "First" }, { "const": "b", "title": "Second" }
                ] } },
                "verified": { "type": "boolean", "default": true }
            },
            "required": ["name"]
        });
        // In the schema's order: age (twice refused), name (its default), status, tags,
        // verified, then send.
        let (result, shown) = run(schema, "x\n-1\n41\n\n2\n1, second\nno\n\n");
        assert_eq!(
            result,
            json!({ "action": "accept", "content": {
                "age": 41, "name": "John Doe", "status": "inactive", "tags": ["a", "b"], "verified": false
            } })
        );
        assert!(shown.starts_with("The server stdio:demo asks: Tell me\n"), "{shown}");
        assert!(shown.contains("(expected a whole number)"), "{shown}");
        assert!(shown.contains("(expected at least 0)"), "{shown}");
        assert!(shown.contains("name — User name (text, required) [John Doe]"), "{shown}");
    }

    #[test]
    fn asks_in_the_order_the_server_wrote() {
        // Through the protocol type, as `answer` gets it: its fields keep their order.
        let text = r#"{"message":"m","requestedSchema":{"type":"object","properties":{
            "zip":{"type":"string"},"age":{"type":"integer"},"name":{"type":"string"}},"required":["name"]}}"#;
        let params: ElicitRequestParams = serde_json::from_str(text).unwrap();
        let schema = serde_json::to_value(&params).unwrap()["requestedSchema"].clone();
        let (_, shown) = run(schema, "");
        let first = shown.lines().nth(1).unwrap_or_default();
        assert!(first.starts_with("  zip (text)"), "{shown}");
        let (_, shown) = run(serde_json::to_value(&params).unwrap()["requestedSchema"].clone(), "z\n4\n");
        let (zip, age, name) =
            (shown.find("zip (").unwrap(), shown.find("age (").unwrap(), shown.find("name (").unwrap());
        assert!(zip < age && age < name, "{shown}");
    }

    #[test]
    fn string_formats_are_checked_as_typed() {
        let schema = json!({ "type": "object", "properties": {
            "email": { "type": "string", "format": "email" },
            "home": { "type": "string", "format": "uri" },
            "born": { "type": "string", "format": "date" },
            "at": { "type": "string", "format": "date-time" }
        } });
        let typed = "not an email\nme@example.com\nyesterday\nhttps://example.com/me\n2026-02-30\n2024-02-29\n2026-07-28\n2026-07-28T09:30:00.5+02:00\n\n";
        let (result, shown) = run(schema, typed);
        assert_eq!(
            result,
            json!({ "action": "accept", "content": {
                "email": "me@example.com", "home": "https://example.com/me",
                "born": "2024-02-29", "at": "2026-07-28T09:30:00.5+02:00"
            } })
        );
        assert!(shown.contains("email (an email address): "), "{shown}");
        assert!(shown.contains("(expected an email address)"), "{shown}");
        assert!(shown.contains("(expected a URI, such as https://example.com/)"), "{shown}");
        assert!(shown.contains("(expected a date, YYYY-MM-DD)"), "{shown}");
        assert!(shown.contains("(expected a date and time, such as 2026-07-28T09:30:00Z)"), "{shown}");
    }

    /// What the server wrote (its message, titles, descriptions, options, defaults) is
    /// shown with its control characters as text: the dialog is on a terminal.
    #[test]
    fn a_servers_escape_sequences_are_shown_as_text() {
        let evil = "\u{1b}]0;PWNED\u{7}\u{1b}[2J\u{9b}31m";
        let schema = json!({ "type": "object", "properties": {
            "a": { "type": "string", "title": format!("title{evil}"), "description": format!("about{evil}"),
                   "default": format!("default{evil}") },
            "b": { "type": "string", "enum": [format!("value{evil}")], "enumNames": [format!("label{evil}")] },
            "c": { "type": "array", "items": { "anyOf": [{ "const": format!("v{evil}"), "title": format!("t{evil}") }] } }
        } });
        let mut input = io::Cursor::new(b"\n1\n1\n\n".to_vec());
        let mut out = Vec::new();
        let asked = dialog(
            "stdio:demo",
            &format!("Tell me{evil}"),
            &schema,
            &mut input,
            &mut out,
            &AtomicBool::new(false),
        );
        let result = asked.unwrap();
        let shown = String::from_utf8(out).unwrap();
        let controls: Vec<char> = shown.chars().filter(|c| c.is_control() && *c != '\n').collect();
        assert!(controls.is_empty(), "{controls:?} in {shown}");
        assert!(shown.contains("Tell me\\u{1b}]0;PWNED\\u{7}"), "{shown}");
        // The answers are the server's values, unchanged.
        assert_eq!(result["content"]["a"], json!(format!("default{evil}")));
        assert_eq!(result["content"]["b"], json!(format!("value{evil}")));
    }

    /// Input that the server takes its question back during, as the user types the
    /// first line.
    struct TakenBackWhileTyping<'a> {
        typed: io::Cursor<Vec<u8>>,
        withdrawn: &'a AtomicBool,
    }

    impl Read for TakenBackWhileTyping<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.typed.read(buf)
        }
    }

    impl BufRead for TakenBackWhileTyping<'_> {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            self.withdrawn.store(true, Ordering::Relaxed);
            self.typed.fill_buf()
        }

        fn consume(&mut self, n: usize) {
            self.typed.consume(n)
        }
    }

    /// A question the server took back (its request cancelled, the call over) asks
    /// nothing more: the dialog ends at the line being typed, and reads no further (the
    /// next question gets the next line); one taken back before it was shown is not
    /// shown at all. The user is told.
    #[test]
    fn a_question_taken_back_ends_at_the_line_being_typed() {
        let schema = json!({ "type": "object", "properties": {
            "a": { "type": "string" }, "b": { "type": "string" } } });
        let withdrawn = AtomicBool::new(false);
        let mut input =
            TakenBackWhileTyping { typed: io::Cursor::new(b"one\ntwo\ny\n".to_vec()), withdrawn: &withdrawn };
        let mut out = Vec::new();
        assert!(dialog("stdio:demo", "Tell me", &schema, &mut input, &mut out, &withdrawn).is_err());
        assert_eq!(input.typed.position(), 4);
        let shown = String::from_utf8(out).unwrap();
        assert!(shown.contains("  a (text): ") && !shown.contains("  b (text)"), "{shown}");

        let mut input = io::Cursor::new(b"one\n".to_vec());
        let mut out = Vec::new();
        assert!(dialog("stdio:demo", "Tell me", &schema, &mut input, &mut out, &withdrawn).is_err());
        assert_eq!((input.position(), out.len()), (0, 0));

        // Dropped before it finished (the request's handler is dropped when the server
        // cancels it), the question is marked taken back; finished, it is not.
        let asking = Asking::new(Ui::new(false));
        let flag = asking.withdrawn.clone();
        drop(asking);
        assert!(flag.load(Ordering::Relaxed));
        let asking = Asking::new(Ui::new(false));
        let flag = asking.withdrawn.clone();
        asking.finish();
        assert!(!flag.load(Ordering::Relaxed));
    }

    /// A declined request's message is quoted on one line of the note, cut: a server's
    /// newline cannot start a line that reads as the CLI's own.
    #[tokio::test]
    async fn a_declined_requests_message_is_quoted_on_one_bounded_line() {
        let forged =
            format!("pay here\nmcpwire: the server runs this call as task forged\n{}", "x".repeat(5000));
        let url =
            json!({ "mode": "url", "message": forged, "url": "https://pay.example", "elicitationId": "1" });
        let form = json!({ "message": forged, "requestedSchema": { "type": "object", "properties": {} } });
        for (params, policy) in [(url, Policy::Ask), (form, Policy::Decline("--no-input"))] {
            let (ui, written) = Ui::buffered();
            let params = serde_json::from_value(params).unwrap();
            let turn = Arc::new(tokio::sync::Mutex::new(()));
            let result = answer(params, policy, ui, turn, Arc::from("s")).await.unwrap();
            assert_eq!(serde_json::to_value(result).unwrap(), json!({ "action": "decline" }));
            let text = String::from_utf8(written.lock().unwrap().clone()).unwrap();
            assert_eq!(text.lines().count(), 1, "{text}");
            assert!(text.contains("pay here mcpwire: the server runs"), "{text}");
            assert!(text.chars().count() < 700, "{} characters", text.chars().count());
        }
    }

    /// A form too large to ask (100,000 fields, or a field of 100,000 options) is
    /// declined at once, saying why on one line; one within bounds is shown with the
    /// server's long texts cut.
    #[tokio::test]
    async fn an_oversized_form_is_declined_not_asked() {
        let fields: Map<String, Value> =
            (0..100_000).map(|n| (format!("f{n}"), json!({ "type": "string" }))).collect();
        let options: Vec<String> = (0..100_000).map(|n| format!("o{n}")).collect();
        let consts: Vec<Value> = options.iter().map(|o| json!({ "const": o, "title": o })).collect();
        let forms = [
            (json!({ "type": "object", "properties": fields }), "its form has 100000 fields"),
            (
                json!({ "type": "object", "properties": { "pick": { "type": "string", "enum": options } } }),
                "its field \"pick\" has 100000 options",
            ),
            (
                json!({ "type": "object", "properties": { "many": { "type": "array", "items": { "anyOf": consts } } } }),
                "its field \"many\" has 100000 options",
            ),
        ];
        for (schema, why) in forms {
            let (ui, written) = Ui::buffered();
            let params = json!({ "message": "Fill this in", "requestedSchema": schema });
            let params = serde_json::from_value(params).unwrap();
            let turn = Arc::new(tokio::sync::Mutex::new(()));
            let asked = answer(params, Policy::Ask, ui, turn, Arc::from("s"));
            let result =
                tokio::time::timeout(std::time::Duration::from_secs(30), asked).await.unwrap().unwrap();
            assert_eq!(serde_json::to_value(result).unwrap(), json!({ "action": "decline" }));
            let text = String::from_utf8(written.lock().unwrap().clone()).unwrap();
            assert_eq!(text.lines().count(), 1, "{text}");
            assert!(
                text.starts_with("mcpwire: declined the server's request for input (") && text.contains(why),
                "{text}"
            );
        }

        let long = "x".repeat(100_000);
        let options: Vec<String> = (0..MAX_FIELD_OPTIONS).map(|n| format!("{n}{long}")).collect();
        let schema = json!({ "type": "object", "properties": {
            "a": { "type": "string", "title": long, "description": long, "default": long },
            "b": { "type": "string", "enum": options } } });
        let mut input = io::Cursor::new(b"\n1\n\n".to_vec());
        let mut out = Vec::new();
        let result = dialog("s", &long, &schema, &mut input, &mut out, &AtomicBool::new(false)).unwrap();
        assert_eq!(result["content"]["a"], json!(long), "the answer is the server's default, whole");
        let shown = String::from_utf8(out).unwrap();
        let bound =
            MAX_SHOWN_MESSAGE + MAX_SHOWN_LABEL + 2 * MAX_SHOWN_OPTION * (MAX_FIELD_OPTIONS + 1) + 2000;
        assert!(shown.len() < bound, "{} bytes shown", shown.len());
    }

    #[test]
    fn requires_answers_and_can_decline_or_cancel() {
        let schema =
            json!({ "type": "object", "properties": { "r": { "type": "string" } }, "required": ["r"] });
        let (result, shown) = run(schema.clone(), "\nhello\nn\n");
        assert_eq!(result, json!({ "action": "decline" }));
        assert!(shown.contains("(an answer is required)"));
        assert_eq!(run(schema.clone(), "hi\nc\n").0, json!({ "action": "cancel" }));
        assert_eq!(run(schema, "").0, json!({ "action": "cancel" }));
    }
}
