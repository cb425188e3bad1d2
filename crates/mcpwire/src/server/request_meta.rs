//! A request's `_meta` as a handler's context keeps it.
//!
//! A 2026 request's `_meta` carries the whole envelope (version, capabilities, client
//! identity) and the server reads the envelope's members straight from the text; a tree
//! of all of it was built on every call and dropped unread by almost every handler.
//! So the context keeps the text and parses it the first time [`Ctx::meta`] asks.
//!
//! [`Ctx::meta`]: super::Ctx::meta

use std::sync::OnceLock;

use mcpwire_protocol::Meta;
use serde_json::value::RawValue;

/// `_meta`: parsed already, or its JSON text (an object) and the tree made from it on
/// first use.
pub(crate) enum RequestMeta {
    Tree(Option<Meta>),
    Text(Box<RawValue>, OnceLock<Option<Meta>>),
    /// Still in the request's body (an HTTP body), which was read once without keeping
    /// `_meta`: `params._meta` is read from it on first use.
    #[cfg(feature = "http")]
    InBody(bytes::Bytes, OnceLock<Option<Meta>>),
}

impl RequestMeta {
    /// `_meta` from its text, as [`CallToolRequestParams::from_str_with_meta_text`]
    /// returns it (`None`: the params had none).
    ///
    /// [`CallToolRequestParams::from_str_with_meta_text`]:
    ///     mcpwire_protocol::tools::CallToolRequestParams::from_str_with_meta_text
    pub(crate) fn from_text(text: Option<Box<RawValue>>) -> Self {
        match text {
            Some(text) => RequestMeta::Text(text, OnceLock::new()),
            None => RequestMeta::Tree(None),
        }
    }

    /// `params._meta` of the JSON-RPC request in `body`, read on first use.
    #[cfg(feature = "http")]
    pub(crate) fn in_body(body: bytes::Bytes) -> Self {
        RequestMeta::InBody(body, OnceLock::new())
    }

    /// The text, when it has not been parsed.
    pub(crate) fn text(&self) -> Option<&RawValue> {
        match self {
            RequestMeta::Text(text, _) => Some(text),
            _ => None,
        }
    }

    /// The tree (parsed now if it was text).
    pub(crate) fn get(&self) -> Option<&Meta> {
        match self {
            RequestMeta::Tree(meta) => meta.as_ref(),
            // The text was read as an object once already, so it parses.
            RequestMeta::Text(text, tree) => {
                tree.get_or_init(|| serde_json::from_str(text.get()).ok()).as_ref()
            }
            #[cfg(feature = "http")]
            RequestMeta::InBody(body, tree) => tree.get_or_init(|| meta_in_body(body)).as_ref(),
        }
    }
}

/// `params._meta` of the request in `body`.
#[cfg(feature = "http")]
fn meta_in_body(body: &[u8]) -> Option<Meta> {
    #[derive(serde::Deserialize)]
    struct Frame {
        params: Params,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    serde_json::from_slice::<Frame>(body).ok()?.params.meta
}

impl From<Option<Meta>> for RequestMeta {
    fn from(meta: Option<Meta>) -> Self {
        RequestMeta::Tree(meta)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use mcpwire_protocol::tools::CallToolRequestParams;
    use serde_json::json;

    #[test]
    fn text_parses_on_first_use_into_the_same_tree() {
        let text = r#"{"name":"t","_meta":{"progressToken":3,"x":{"y":[1]}}}"#;
        let (_, meta_text) = CallToolRequestParams::from_str_with_meta_text(text).unwrap();
        let meta = RequestMeta::from_text(meta_text);
        assert!(meta.text().is_some());
        let expected = json!({"progressToken": 3, "x": {"y": [1]}});
        assert_eq!(meta.get().map(|m| serde_json::Value::Object(m.clone())), Some(expected));
        assert!(std::ptr::eq(meta.get().unwrap(), meta.get().unwrap()), "parsed once");
        assert!(RequestMeta::from_text(None).get().is_none());
        assert!(RequestMeta::from(None).text().is_none());
    }

    #[cfg(feature = "http")]
    #[test]
    fn meta_in_the_body_is_read_on_first_use() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"a":[1],"b":{"c":null}}}}"#;
        let meta = RequestMeta::in_body(bytes::Bytes::from_static(body.as_bytes()));
        assert!(meta.text().is_none());
        let expected = json!({"a": [1], "b": {"c": null}});
        assert_eq!(meta.get().map(|m| serde_json::Value::Object(m.clone())), Some(expected));
        assert!(std::ptr::eq(meta.get().unwrap(), meta.get().unwrap()), "parsed once");
    }
}
