//! JSON-RPC request ids.
//!
//! An id is a string or an integer, never null (MCP tightens JSON-RPC here). `7` and `"7"`
//! are different values on the wire: two requests of a peer's, each echoed exactly as
//! received. But a peer that answers our request `7` with id `"7"` is still answering
//! it: [`RequestId::key`] gives the form under which answers to our own requests are
//! matched.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A JSON-RPC request id as it appears on the wire: a string or an integer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id, such as the ids this SDK allocates (1, 2, 3, ...).
    Number(i64),
    /// A string id, such as `"listen-1"`.
    String(String),
}

/// The matching key of a [`RequestId`]: a string that is the canonical decimal form of an
/// `i64` matches the integer, so `"7"` and `7` share a key; everything else keys as itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum IdKey {
    /// An integer id, or a string holding one in canonical form.
    Number(i64),
    /// Any other string id.
    String(String),
}

impl RequestId {
    /// The key under which an answer's id is matched against our requests in flight.
    pub fn key(&self) -> IdKey {
        match self {
            RequestId::Number(n) => IdKey::Number(*n),
            RequestId::String(s) => match canonical_integer(s) {
                Some(n) => IdKey::Number(n),
                None => IdKey::String(s.clone()),
            },
        }
    }
}

/// Parses `s` as an `i64` only when `s` is exactly that integer's decimal form
/// (no sign on zero, no leading zeros, no `+`), so the mapping is one-to-one.
fn canonical_integer(s: &str) -> Option<i64> {
    let n: i64 = s.parse().ok()?;
    (n.to_string() == s).then_some(n)
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s)
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => serializer.serialize_i64(*n),
            RequestId::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or integer request id")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("request id out of the i64 range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<RequestId, E> {
                Ok(RequestId::String(v))
            }
        }
        deserializer.deserialize_any(IdVisitor)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn numeric_string_keys_like_the_integer() {
        assert_eq!(RequestId::from("7").key(), RequestId::from(7).key());
        assert_eq!(RequestId::from("-3").key(), IdKey::Number(-3));
        assert_ne!(RequestId::from("07").key(), RequestId::from(7).key());
        assert_ne!(RequestId::from("+7").key(), RequestId::from(7).key());
        assert_eq!(RequestId::from("abc").key(), IdKey::String("abc".into()));
    }

    #[test]
    fn null_float_bool_and_object_ids_are_rejected() {
        for bad in ["null", "1.5", "true", "{}", "[]"] {
            assert!(serde_json::from_str::<RequestId>(bad).is_err(), "{bad}");
        }
        assert_eq!(serde_json::from_str::<RequestId>("7").ok(), Some(RequestId::Number(7)));
        assert_eq!(serde_json::from_str::<RequestId>("\"7\"").ok(), Some(RequestId::String("7".into())));
    }
}
