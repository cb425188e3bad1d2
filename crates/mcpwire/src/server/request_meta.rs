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
#[derive(Debug)]
pub(crate) enum RequestMeta {
    Tree(Option<Meta>),
    Text(Box<RawValue>, OnceLock<Option<Meta>>),
}

impl RequestMeta {
    /// `_meta` from its text, as [`parse_with_meta`](super::params::parse_with_meta)
    /// sets it aside (`None`: the params had none).
    pub(crate) fn from_text(text: Option<Box<RawValue>>) -> Self {
        match text {
            Some(text) => RequestMeta::Text(text, OnceLock::new()),
            None => RequestMeta::Tree(None),
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
        }
    }
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
    use serde_json::json;

    #[test]
    fn text_parses_on_first_use_into_the_same_tree() {
        let text = r#"{"progressToken":3,"x":{"y":[1]}}"#;
        let meta = RequestMeta::from_text(Some(RawValue::from_string(text.to_owned()).unwrap()));
        let expected = json!({"progressToken": 3, "x": {"y": [1]}});
        assert_eq!(meta.get().map(|m| serde_json::Value::Object(m.clone())), Some(expected));
        assert!(std::ptr::eq(meta.get().unwrap(), meta.get().unwrap()), "parsed once");
        assert!(RequestMeta::from_text(None).get().is_none());
        assert!(RequestMeta::from(None).get().is_none());
    }
}
