//! The members of a request or notification in the spelling clients use, read by hand
//! with [`Cursor`]: what [`decode_frame`] and [`decode_tool_call`] try before serde_json.
//! Whatever this reads, serde_json reads the same way; anything else is `None`, and
//! serde_json decides (and words the errors) as ever.
//!
//! [`decode_frame`]: crate::jsonrpc::decode_frame
//! [`decode_tool_call`]: crate::call_frame::decode_tool_call

use crate::id::RequestId;
use crate::json_scan::{Checked, Cursor};
use crate::jsonrpc::plain_id;

/// A request (with an id) or a notification, as [`scan_method_frame`] read it.
pub(crate) struct MethodFrame<'a, P> {
    pub(crate) id: Option<RequestId>,
    pub(crate) method: &'a str,
    pub(crate) params: Option<P>,
}

/// `{"jsonrpc": "2.0", "id": …, "method": "…", "params": …}` with each member at most
/// once, in any order, `id` and `params` optional; `params` is read by `read_params`.
/// `None` for anything else: another member (`result`, `error`, an unknown one), an id
/// other than one [`plain_id`] reads, a method with an
/// escape, a `jsonrpc` other than `"2.0"` spelled plainly, or text after the object.
pub(crate) fn scan_method_frame<'a, P>(
    text: &'a str,
    mut read_params: impl FnMut(&mut Cursor<'a>) -> Option<P>,
) -> Option<MethodFrame<'a, P>> {
    let mut cursor = Cursor::new(text);
    let (mut version, mut id, mut method, mut params) = (None, None, None, None);
    cursor.members(|name, cursor| {
        match name {
            "jsonrpc" if version.is_none() => version = Some(cursor.value()?.text()),
            "id" if id.is_none() => id = Some(plain_id(cursor.value()?.text())?),
            "method" if method.is_none() => method = Some(cursor.plain_string()?),
            "params" if params.is_none() => params = Some(read_params(cursor)?),
            _ => return None,
        }
        Some(())
    })?;
    let plain = cursor.at_end() && version? == "\"2.0\"";
    plain.then_some(MethodFrame { id, method: method?, params })
}

/// `tools/call` params, as [`scan_call_params`] read them.
pub(crate) struct CallParams<'a, M> {
    pub(crate) name: &'a str,
    /// The arguments object.
    pub(crate) arguments: Option<Checked<'a>>,
    pub(crate) meta: Option<M>,
}

/// `tools/call` params as `{"name": "…", "arguments": {…}, "_meta": …}`: each member at
/// most once, in any order, `name` required and without escapes, `arguments` an object,
/// `_meta` read by `read_meta`. `None` for anything else (another member included).
pub(crate) fn scan_call_params<'a, M>(
    cursor: &mut Cursor<'a>,
    mut read_meta: impl FnMut(&mut Cursor<'a>) -> Option<M>,
) -> Option<CallParams<'a, M>> {
    let (mut name, mut arguments, mut meta) = (None, None, None);
    cursor.members(|member, cursor| {
        match member {
            "name" if name.is_none() => name = Some(cursor.plain_string()?),
            "arguments" if arguments.is_none() => arguments = Some(object(cursor)?),
            "_meta" if meta.is_none() => meta = Some(read_meta(cursor)?),
            _ => return None,
        }
        Some(())
    })?;
    Some(CallParams { name: name?, arguments, meta })
}

/// An object value.
pub(crate) fn object<'a>(cursor: &mut Cursor<'a>) -> Option<Checked<'a>> {
    cursor.value().filter(|value| value.text().starts_with('{'))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn scan(text: &str) -> Option<(Option<RequestId>, &str, Option<&str>)> {
        let frame = scan_method_frame(text, |c| c.value())?;
        Some((frame.id, frame.method, frame.params.map(Checked::text)))
    }

    #[test]
    fn it_reads_the_usual_spelling() {
        let n = |n| Some(RequestId::Number(n));
        assert_eq!(scan(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Some((n(1), "ping", None)));
        assert_eq!(
            scan(r#" { "method" : "a/b" , "params" : {"x":[1]} , "jsonrpc" : "2.0" } "#),
            Some((None, "a/b", Some(r#"{"x":[1]}"#)))
        );
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":"x-1","method":"m","params":{}}"#),
            Some((Some(RequestId::String("x-1".into())), "m", Some("{}")))
        );
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":999999999999999999,"method":"m"}"#),
            Some((n(999_999_999_999_999_999), "m", None))
        );
    }

    #[test]
    fn it_leaves_the_rest() {
        for text in [
            "",
            "{}",
            "[]",
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":-1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1234567890123456789,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b","method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}"#,
            r#"{"jsonrpc":"2.\u0030","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m"} x"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","#,
            r#"{"jsonrpc":"2.0","\u0069d":1,"method":"m"}"#,
        ] {
            assert!(scan(text).is_none(), "{text}");
        }
    }
}
