//! Human-readable output: aligned tables, content blocks, results.

use std::fmt::Write as _;

use serde_json::Value;

use crate::args::describe_type;

/// The widest a column other than the last may be on a terminal; longer cells are cut
/// with `…`. Piped output keeps every cell whole, so identifiers can be used as printed.
const MAX_COLUMN: usize = 44;

/// A table: a header row and rows, printed with aligned columns. The last column is
/// not padded (and is cut to the terminal's width when stdout is a terminal).
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column names.
    pub fn new(header: &[&str]) -> Self {
        Table { header: header.iter().map(|h| h.to_string()).collect(), rows: Vec::new() }
    }

    /// Adds a row (one cell per column; newlines become spaces).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells.into_iter().map(|c| crate::ui::one_line(&c)).collect());
    }

    /// Renders the table; `width` (a terminal's) cuts long cells and each line, `None`
    /// (piped output) cuts nothing.
    pub fn render(&self, width: Option<usize>) -> String {
        // On a terminal, cells are measured and cut as they are shown, their control
        // characters as text (`print_stdout` would make them so after the cut).
        let shown: Vec<Vec<String>>;
        let rows = match width {
            Some(_) => {
                shown = self
                    .rows
                    .iter()
                    .map(|row| row.iter().map(|c| crate::ui::visible(c).into_owned()).collect())
                    .collect();
                &shown
            }
            None => &self.rows,
        };
        let columns = self.header.len();
        let cap = if width.is_some() { MAX_COLUMN } else { usize::MAX };
        let mut widths = vec![0; columns];
        for row in std::iter::once(&self.header).chain(rows) {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.chars().count()).min(cap);
            }
        }
        // Drop columns that are empty in every row.
        let keep: Vec<bool> =
            (0..columns).map(|i| rows.iter().any(|r| r.get(i).is_some_and(|c| !c.is_empty()))).collect();
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(rows) {
            let cells: Vec<(usize, &String)> =
                row.iter().enumerate().take(columns).filter(|(i, _)| keep[*i] || rows.is_empty()).collect();
            let mut line = String::new();
            for (n, (i, cell)) in cells.iter().enumerate() {
                if n + 1 == cells.len() {
                    line.push_str(cell);
                } else {
                    let cell = crate::ui::truncate(cell, widths[*i]);
                    let _ = write!(line, "{:<w$}  ", cell, w = widths[*i]);
                }
            }
            let line = line.trim_end();
            match width {
                Some(w) => out.push_str(&crate::ui::truncate(line, w)),
                None => out.push_str(line),
            }
            out.push('\n');
        }
        out
    }
}

/// The arguments of a tool's input schema: `<required: type>` and `[optional: type]`.
pub fn schema_arguments(schema: &Value) -> String {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return String::new() };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut parts = Vec::new();
    // Required first, each group in schema order.
    for want_required in [true, false] {
        for (name, property) in properties {
            if required.contains(&name.as_str()) != want_required {
                continue;
            }
            let ty = describe_type(schema, property);
            parts.push(if want_required { format!("<{name}: {ty}>") } else { format!("[{name}: {ty}]") });
        }
    }
    parts.join(" ")
}

/// The arguments of a prompt: `<required>` and `[optional]`.
pub fn prompt_arguments(arguments: &[Value]) -> String {
    arguments
        .iter()
        .filter_map(|a| {
            let name = a.get("name")?.as_str()?;
            Some(if a.get("required").and_then(Value::as_bool) == Some(true) {
                format!("<{name}>")
            } else {
                format!("[{name}]")
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The size of base64 data, for people: `N bytes` (its decoded length), or that it is
/// not base64 at all.
pub fn base64_size(data: &str) -> String {
    match base64_decode(data) {
        Some(bytes) => format!("{} bytes", bytes.len()),
        None => "invalid base64 data".to_owned(),
    }
}

/// Decodes standard (or URL-safe) base64; `None` if it is not base64.
pub fn base64_decode(data: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in data.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b'\n' | b'\r' | b' ' => continue,
            _ => return None,
        } as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// A resource's contents, for people: text as is, binary described. `redirect_saves`:
/// this is `mcpwire read`'s only content on a terminal, which a redirection of stdout
/// would save as bytes (said only then: anywhere else it would not).
pub fn resource_contents(contents: &Value, out: &mut String, redirect_saves: bool) {
    let uri = contents.get("uri").and_then(Value::as_str).unwrap_or("");
    let mime = contents.get("mimeType").and_then(Value::as_str);
    if let Some(text) = contents.get("text").and_then(Value::as_str) {
        out.push_str(text);
        if !text.ends_with('\n') {
            out.push('\n');
        }
    } else if let Some(blob) = contents.get("blob").and_then(Value::as_str) {
        let how = if redirect_saves {
            "redirect stdout to a file to save it, or use --json"
        } else {
            "--json shows its base64 data"
        };
        let _ = writeln!(
            out,
            "[binary {uri}: {}, {}; {how}]",
            mime.unwrap_or("application/octet-stream"),
            base64_size(blob)
        );
    }
}

/// One content block, for people.
pub fn content_block(block: &Value, out: &mut String) {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    let mime = || block.get("mimeType").and_then(Value::as_str).unwrap_or("?").to_owned();
    let size = || block.get("data").and_then(Value::as_str).map_or_else(|| "no data".to_owned(), base64_size);
    match kind {
        "text" => {
            let text = block.get("text").and_then(Value::as_str).unwrap_or("");
            out.push_str(text);
            if !text.ends_with('\n') {
                out.push('\n');
            }
        }
        "image" => {
            let _ = writeln!(out, "[image: {}, {}]", mime(), size());
        }
        "audio" => {
            let _ = writeln!(out, "[audio: {}, {}]", mime(), size());
        }
        "resource_link" => {
            let uri = block.get("uri").and_then(Value::as_str).unwrap_or("");
            let name = block.get("name").and_then(Value::as_str).unwrap_or("");
            let _ = writeln!(out, "[resource link: {uri} {name}]");
        }
        "resource" => {
            let resource = block.get("resource").cloned().unwrap_or(Value::Null);
            let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
            match resource.get("mimeType").and_then(Value::as_str) {
                Some(m) => {
                    let _ = writeln!(out, "[resource {uri} ({m})]");
                }
                None => {
                    let _ = writeln!(out, "[resource {uri}]");
                }
            }
            resource_contents(&resource, out, false);
        }
        _ => {
            let _ = writeln!(out, "{}", serde_json::to_string_pretty(block).unwrap_or_default());
        }
    }
}

/// A tool result for people: the content blocks, then the structured content pretty
/// printed. Where one repeats the other (the text is the structured content serialized,
/// the structured content only wraps the text, as `{"result": text}`, or only wraps the
/// content blocks themselves, as `{"content": [..]}`), it is shown once, as the blocks
/// (whose binary data is summarized, not printed).
pub fn call_result(result: &Value) -> String {
    let mut out = String::new();
    let structured = result.get("structuredContent").filter(|v| !v.is_null());
    let content = result.get("content");
    // The structured content's one member, when it is a wrapper of one.
    let only = structured.and_then(Value::as_object).filter(|o| o.len() == 1).and_then(|o| o.iter().next());
    let sole = only.map(|(_, v)| v);
    let blocks: Vec<&Value> = content.and_then(Value::as_array).into_iter().flatten().collect();
    let texts: Vec<&str> = blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect();
    let wraps_text = |text: &str| {
        sole.is_some_and(|v| {
            v.as_str() == Some(text) || serde_json::from_str::<Value>(text).ok().as_ref() == Some(v)
        })
    };
    let mirrors_blocks = only.is_some_and(|(k, v)| k == "content" && Some(v) == content);
    let repeated = mirrors_blocks || matches!(texts.as_slice(), [text] if wraps_text(text));
    let structured = structured.filter(|_| !repeated);
    for block in blocks {
        if let (Some(s), Some(text)) = (structured, block.get("text").and_then(Value::as_str)) {
            if serde_json::from_str::<Value>(text).ok().as_ref() == Some(s) {
                continue;
            }
        }
        content_block(block, &mut out);
    }
    if let Some(s) = structured {
        out.push_str(&serde_json::to_string_pretty(s).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// A prompt for people: its description, then each message as `[role]` and content.
pub fn prompt_result(result: &Value) -> String {
    let mut out = String::new();
    if let Some(d) = result.get("description").and_then(Value::as_str).filter(|d| !d.trim().is_empty()) {
        let _ = writeln!(out, "# {d}");
    }
    for message in result.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
        let _ = writeln!(out, "[{role}]");
        if let Some(content) = message.get("content") {
            content_block(content, &mut out);
        }
    }
    out
}

/// `value` as `--json` prints it: pretty JSON, with the control characters serde_json
/// writes as they are (DEL and the C1 controls; it escapes the others) written as JSON
/// escapes (`\u009b`): the same JSON, which a terminal does not take for escape
/// sequences, and which showing controls as text on a terminal no longer turns invalid.
pub fn json_text(value: &Value) -> serde_json::Result<String> {
    let text = serde_json::to_string_pretty(value)?;
    // Outside strings JSON has no control characters but whitespace: any other is in a
    // string, where an escape stands for it.
    let hidden = |c: char| c.is_control() && !matches!(c, '\n' | '\t' | '\r' | ' ');
    if !text.contains(hidden) {
        return Ok(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match hidden(c) {
            true => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            false => out.push(c),
        }
    }
    Ok(out)
}

/// The names of a capabilities object, with their flags: `tools (listChanged)`.
pub fn capabilities(caps: &Value) -> Vec<String> {
    let Some(caps) = caps.as_object() else { return Vec::new() };
    caps.iter()
        .map(|(name, value)| {
            let flags: Vec<String> = value
                .as_object()
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| match v {
                            Value::Bool(true) => k.clone(),
                            Value::Bool(false) => format!("no {k}"),
                            Value::Object(inner) if inner.is_empty() => k.clone(),
                            Value::Object(inner) => {
                                format!("{k}: {}", inner.keys().cloned().collect::<Vec<_>>().join(", "))
                            }
                            other => format!("{k}={other}"),
                        })
                        .collect()
                })
                .unwrap_or_default();
            if flags.is_empty() {
                name.clone()
            } else {
                format!("{name} ({})", flags.join(", "))
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn aligns_tables_and_drops_empty_columns() {
        let mut t = Table::new(&["NAME", "ARGS", "DESCRIPTION"]);
        t.row(vec!["a".into(), "".into(), "first\nline".into()]);
        t.row(vec!["long_name".into(), "".into(), "second".into()]);
        assert_eq!(t.render(None), "NAME       DESCRIPTION\na          first line\nlong_name  second\n");
        assert_eq!(t.render(Some(8)).lines().nth(1), Some("a      …"));
    }

    /// On a terminal, a cell's control characters are shown as text before the columns are
    /// measured and the lines cut: the columns stay aligned and no line is wider than the
    /// terminal, whatever a server puts in a name or a description.
    #[test]
    fn a_terminals_table_measures_cells_as_shown() {
        let mut t = Table::new(&["NAME", "DESCRIPTION"]);
        t.row(vec![format!("evil{}", "\u{1b}[2J".repeat(3)), "x".into()]);
        t.row(vec!["plain".into(), format!("{}end", "\u{1b}]0;T\u{7}".repeat(20))]);
        let shown = t.render(Some(60));
        assert!(!shown.contains(|c: char| c.is_control() && c != '\n'), "{shown}");
        let lines: Vec<&str> = shown.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= 60), "{shown}");
        let at = lines[0].find("DESCRIPTION").unwrap();
        for line in &lines {
            let chars: Vec<char> = line.chars().collect();
            assert!(chars[at - 2] == ' ' && chars[at - 1] == ' ' && chars[at] != ' ', "{shown}");
        }
        // Piped, the cells are the server's own.
        assert!(t.render(None).contains("\u{1b}[2J"), "{}", t.render(None));
    }

    /// `--json` stays JSON on a terminal, where stdout's control characters are made
    /// visible: serde_json escapes C0 controls in strings but writes DEL and the C1
    /// controls (U+009B is a CSI) as they are, which would become `\u{9b}`, no JSON escape.
    #[test]
    fn json_output_stays_json_on_a_terminal() {
        let value = json!({ "d": "a\u{9b}31m\u{7f}\u{1b}[2J\u{85}" });
        let text = json_text(&value).unwrap();
        let shown = crate::ui::visible(&text);
        assert!(!shown.contains(|c: char| c.is_control() && c != '\n'), "{shown}");
        assert_eq!(serde_json::from_str::<Value>(&shown).unwrap(), value, "{shown}");
    }

    #[test]
    fn piped_tables_keep_identifiers_whole() {
        let uri = "demo://resource/static/document/architecture-and-design-notes.md";
        let mut t = Table::new(&["URI", "NAME"]);
        t.row(vec![uri.into(), "notes".into()]);
        assert!(t.render(None).contains(&format!("{uri}  notes")), "{}", t.render(None));
        assert!(!t.render(Some(200)).contains(uri));
    }

    #[test]
    fn describes_schemas() {
        let schema = json!({ "type": "object", "properties": {
            "b": { "type": "integer" }, "a": { "type": "string" } }, "required": ["b"] });
        assert_eq!(schema_arguments(&schema), "<b: integer> [a: string]");
        // Fixed choices are named, a long list shortened with `…`.
        let many: Vec<String> = (0..10_000).map(|n| format!("v{n}")).collect();
        let schema = json!({ "type": "object", "$defs": { "Unit": { "enum": ["celsius", "fahrenheit"] } },
            "properties": {
                "unit": { "type": "string", "enum": ["celsius", "fahrenheit"] },
                "order": { "anyOf": [{ "$ref": "#/$defs/Unit" }, { "type": "null" }] },
                "level": { "oneOf": [{ "const": 1 }, { "const": 2 }] },
                "units": { "type": "array", "items": { "$ref": "#/$defs/Unit" } },
                "many": { "enum": many },
                "long": { "enum": ["x".repeat(100_000)] } },
            "required": ["unit"] });
        let described = schema_arguments(&schema);
        assert!(described.starts_with("<unit: celsius|fahrenheit> [order: celsius|fahrenheit|null] [level: 1|2] [units: array of celsius|fahrenheit] [many: v0|v1|v2|v3|v4|v5|v6|v7|…] [long: xxx"), "{described}");
        assert!(described.len() < 250 && described.ends_with("…]"), "{described}");
        assert_eq!(
            prompt_arguments(&[json!({"name": "x", "required": true}), json!({"name": "y"})]),
            "<x> [y]"
        );
    }

    #[test]
    fn prints_results() {
        let r = json!({ "content": [
            { "type": "text", "text": "{\"sum\": 3}" },
            { "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png" }
        ], "structuredContent": { "sum": 3 } });
        assert_eq!(call_result(&r), "[image: image/png, 8 bytes]\n{\n  \"sum\": 3\n}\n");
        let wrapped =
            json!({ "content": [{ "type": "text", "text": "hi" }], "structuredContent": { "result": "hi" } });
        assert_eq!(call_result(&wrapped), "hi\n");
        let sum = json!({ "content": [{ "type": "text", "text": "{\"sum\": 5}" }], "structuredContent": { "sum": 5 } });
        assert_eq!(call_result(&sum), "{\n  \"sum\": 5\n}\n");
        let image = json!({ "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png" });
        let mirrored = json!({ "content": [image], "structuredContent": { "content": [image] } });
        assert_eq!(call_result(&mirrored), "[image: image/png, 8 bytes]\n");
        assert_eq!(base64_decode("aGVsbG8=").unwrap(), b"hello");
        assert_eq!(base64_size("aGVsbG8="), "5 bytes");
        assert_eq!(base64_size("!!!notbase64!!!"), "invalid base64 data");
        assert_eq!(
            capabilities(&json!({ "tools": { "listChanged": true }, "logging": {} })),
            ["tools (listChanged)", "logging"]
        );
    }

    #[test]
    fn an_empty_list_wrapped_as_the_result_is_shown() {
        // fastmcp answers a tool returning an empty list with no content blocks and the
        // list wrapped as `{"result": []}`: only a `content` wrapper mirrors the blocks.
        let empty = json!({ "content": [], "structuredContent": { "result": [] } });
        assert_eq!(call_result(&empty), "{\n  \"result\": []\n}\n");
        let mirrored = json!({ "content": [], "structuredContent": { "content": [] } });
        assert_eq!(call_result(&mirrored), "");
    }
}
