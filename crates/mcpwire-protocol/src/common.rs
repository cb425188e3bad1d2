//! Small building blocks shared by every feature module: the empty result, one-or-many
//! values, `type` tag markers, numbers that keep integers integral, and the macros that
//! declare params types and tie them to their methods.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, value::MapAccessDeserializer, value::SeqAccessDeserializer, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::meta::Meta;
use crate::result::ResultType;

/// A JSON object (`{ [key: string]: unknown }` in the schema).
pub type JsonObject = Map<String, Value>;

/// An opaque pagination cursor. An empty string is a valid cursor, not the end of the list.
pub type Cursor = String;

/// The result of a request that returns nothing: `ping` (2025), `resources/subscribe` and
/// `resources/unsubscribe` and `logging/setLevel` (2025), and the 2026 tasks extension's
/// `tasks/update` and `tasks/cancel` acknowledgements.
///
/// `Result` is an open object in every revision, so unknown members are kept in `extra`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// 2026: `resultType` (`complete`). Absent from 2025-era peers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Any other member, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl EmptyResult {
    /// An empty result as a 2026 server sends it (`resultType: "complete"`).
    pub fn complete() -> Self {
        EmptyResult { result_type: Some(ResultType::Complete), ..Default::default() }
    }
}

/// A value that is either one item or an array of items, as sampling message `content`
/// is: a single block (every revision) or an array of blocks (2025-11-25 and later).
///
/// Deserializes without buffering: an object is one item, an array is many.
#[derive(Clone, Debug, PartialEq)]
pub enum OneOrMany<T> {
    /// A single item, written as a bare object.
    One(T),
    /// Several items, written as an array.
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    /// The items as a slice, whichever form they came in.
    pub fn as_slice(&self) -> &[T] {
        match self {
            OneOrMany::One(item) => std::slice::from_ref(item),
            OneOrMany::Many(items) => items,
        }
    }

    /// The items as a vector.
    pub fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::One(item) => vec![item],
            OneOrMany::Many(items) => items,
        }
    }

    /// Iterates over the items.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.as_slice().iter()
    }
}

impl<T> From<T> for OneOrMany<T> {
    fn from(item: T) -> Self {
        OneOrMany::One(item)
    }
}

impl<T> From<Vec<T>> for OneOrMany<T> {
    fn from(items: Vec<T>) -> Self {
        OneOrMany::Many(items)
    }
}

impl<T: Serialize> Serialize for OneOrMany<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            OneOrMany::One(item) => item.serialize(serializer),
            OneOrMany::Many(items) => items.serialize(serializer),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OneOrManyVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for OneOrManyVisitor<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object or an array of objects")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(OneOrMany::One)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::<T>::deserialize(SeqAccessDeserializer::new(seq)).map(OneOrMany::Many)
            }
        }
        deserializer.deserialize_any(OneOrManyVisitor(PhantomData))
    }
}

/// Serialization of JSON numbers held as `f64`: integral values within the exactly
/// representable range are written as integers (`50`, not `50.0`), so values that arrived
/// as integers leave as integers.
pub(crate) mod number {
    use serde::Serializer;

    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

    /// Serializes an `f64`.
    pub fn as_f64<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        if value.fract() == 0.0 && value.abs() < MAX_EXACT {
            // Exact: the value is integral and below 2^53 in magnitude.
            #[allow(clippy::cast_possible_truncation)]
            serializer.serialize_i64(*value as i64)
        } else {
            serializer.serialize_f64(*value)
        }
    }

    /// Serializes an `Option<f64>` (used with `skip_serializing_if = "Option::is_none"`).
    pub fn opt_f64<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => as_f64(v, serializer),
            None => serializer.serialize_none(),
        }
    }
}

/// Declares a zero-sized marker for a constant string member (a `type`, `mode` or
/// `resultType` discriminator). It serializes as its string and deserializes only from it,
/// so a standalone struct keeps and checks its discriminator.
macro_rules! tag {
    ($(#[$doc:meta])* $name:ident = $value:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name;

        impl $name {
            /// The wire string.
            pub const VALUE: &'static str = $value;
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($value)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct TagVisitor;
                impl serde::de::Visitor<'_> for TagVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        write!(f, "the string {:?}", $value)
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        if v == $value {
                            Ok($name)
                        } else {
                            Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
                        }
                    }
                }
                deserializer.deserialize_str(TagVisitor)
            }
        }
    };
}
pub(crate) use tag;

/// Declares a string enum whose unknown values parse into an `Other(String)` variant
/// instead of failing the whole message, for enums the spec leaves open or may extend.
macro_rules! open_enum {
    (
        $(#[$doc:meta])* $name:ident {
            $( $(#[$vdoc:meta])* $variant:ident = $value:literal, )+
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vdoc])* $variant, )+
            /// Any other value, kept verbatim.
            Other(String),
        }

        impl $name {
            /// The wire string.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $value, )+
                    $name::Other(s) => s,
                }
            }

            /// Parses a wire string; unknown values become `Other`.
            pub fn parse(s: &str) -> Self {
                match s {
                    $( $value => $name::$variant, )+
                    other => $name::Other(other.to_owned()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let s = std::borrow::Cow::<str>::deserialize(deserializer)?;
                Ok($name::parse(&s))
            }
        }
    };
}
pub(crate) use open_enum;

/// Declares a params struct whose only member is `_meta`.
macro_rules! meta_only_params {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct $name {
            /// `_meta`: on a 2026 request the required envelope
            /// (`io.modelcontextprotocol/protocolVersion`, `…/clientCapabilities`); on a
            /// 2026 listen-stream notification `io.modelcontextprotocol/subscriptionId`.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<$crate::meta::Meta>,
        }
    };
}
pub(crate) use meta_only_params;

/// Declares the params of a paginated list request: `_meta` and `cursor`.
macro_rules! paginated_params {
    ($(#[$doc:meta])* $name:ident) => {
        $crate::common::paginated_params!(@base $(#[$doc])* $name);

        impl From<$crate::pagination::PaginatedRequestParams> for $name {
            fn from(p: $crate::pagination::PaginatedRequestParams) -> Self {
                $name { meta: p.meta, cursor: p.cursor }
            }
        }
    };
    (@base $(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
        pub struct $name {
            /// `_meta`. On a 2026 request it carries the required envelope.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<$crate::meta::Meta>,
            /// The `nextCursor` of the previous page; absent for the first page.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub cursor: Option<String>,
        }

        impl $name {
            /// The params for the page after `cursor`.
            pub fn with_cursor(cursor: impl Into<String>) -> Self {
                $name { meta: None, cursor: Some(cursor.into()) }
            }
        }
    };
}
pub(crate) use paginated_params;

/// Implements [`crate::RequestParams`] for a params type.
macro_rules! request {
    ($params:ty => $method:expr, $result:ty) => {
        impl $crate::rpc::RequestParams for $params {
            const METHOD: &'static str = $method;
            type Result = $result;
        }
    };
}
pub(crate) use request;

/// Implements [`crate::NotificationParams`] for a params type.
macro_rules! notification {
    ($params:ty => $method:expr) => {
        impl $crate::rpc::NotificationParams for $params {
            const METHOD: &'static str = $method;
        }
    };
}
pub(crate) use notification;

/// Reads a peer's optional count of milliseconds (a cache hint's `ttlMs`, a task's
/// time to live or poll interval) leniently: a negative number is 0 (a cache hint is
/// then stale at once, as the 2026 caching rules say), a fraction is rounded down, a
/// number past `u64::MAX` is `u64::MAX`. One odd number must not cost the whole result.
pub(crate) fn lenient_millis<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let number: Option<serde_json::Number> = serde::Deserialize::deserialize(d)?;
    Ok(number.as_ref().map(millis))
}

/// A count of milliseconds, as [`lenient_millis`] reads it.
fn millis(n: &serde_json::Number) -> u64 {
    // `as` saturates: negative and NaN to 0, too large to `u64::MAX`.
    n.as_u64().unwrap_or_else(|| n.as_f64().map_or(0, |f| f as u64))
}

/// Reads an optional member whose value may itself be `null` (2026 `structuredContent`,
/// any JSON value): present is `Some`, `null` included; only an absent member is `None`
/// (with `#[serde(default)]`).
pub(crate) fn present_value<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    serde::Deserialize::deserialize(d).map(Some)
}

/// Reads a cacheable result's `ttlMs`: a number as [`lenient_millis`] reads it, anything
/// else (a string, an object) as no hint, which the 2026 caching rules read as stale at
/// once. A hint the client cannot use must not cost it the result it came with.
pub(crate) fn lenient_ttl<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let value: Option<serde_json::Value> = serde::Deserialize::deserialize(d)?;
    Ok(match value {
        Some(serde_json::Value::Number(n)) => Some(millis(&n)),
        _ => None,
    })
}

/// Reads a cacheable result's `cacheScope`: `public`, `private`, or absent (`null` too);
/// any other value or shape reads as private.
pub(crate) fn lenient_scope<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<crate::result::CacheScope>, D::Error> {
    use crate::result::CacheScope;
    let value: Option<serde_json::Value> = serde::Deserialize::deserialize(d)?;
    Ok(match value {
        None => None,
        Some(serde_json::Value::String(s)) if s == "public" => Some(CacheScope::Public),
        // Unknown reads as the narrower scope: a private result is never shared across
        // authorization contexts (the spec's MUST), so this can leak nothing.
        Some(_) => Some(CacheScope::Private),
    })
}

/// Implements [`crate::result::Cacheable`] for a result with `ttl_ms` and `cache_scope`.
macro_rules! cacheable {
    ($result:ty) => {
        impl $crate::result::Cacheable for $result {
            fn cache_hint(&self) -> Option<$crate::result::CacheHint> {
                self.ttl_ms.map(|ttl_ms| $crate::result::CacheHint {
                    ttl_ms,
                    scope: self.cache_scope.unwrap_or_default(),
                })
            }

            fn set_cache_hint(&mut self, hint: $crate::result::CacheHint) {
                self.ttl_ms = Some(hint.ttl_ms);
                self.cache_scope = Some(hint.scope);
            }
        }
    };
}
pub(crate) use cacheable;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn a_peers_odd_milliseconds_are_read_not_refused() {
        use crate::tools::ListToolsResult;
        let ttl = |v: serde_json::Value| {
            serde_json::from_value::<ListToolsResult>(json!({ "tools": [], "ttlMs": v })).map(|r| r.ttl_ms)
        };
        assert_eq!(ttl(json!(-5)).unwrap(), Some(0), "negative: stale at once");
        assert_eq!(ttl(json!(1500.7)).unwrap(), Some(1500));
        assert_eq!(ttl(json!(1e30)).unwrap(), Some(u64::MAX));
        assert_eq!(ttl(json!(u64::MAX)).unwrap(), Some(u64::MAX));
        assert_eq!(ttl(json!(null)).unwrap(), None);
        // Not a number at all: no hint (stale at once), and the result is still read.
        assert_eq!(ttl(json!("5")).unwrap(), None);
        assert_eq!(ttl(json!({ "ms": 5 })).unwrap(), None);
        let missing: ListToolsResult = serde_json::from_value(json!({ "tools": [] })).unwrap();
        assert_eq!(missing.ttl_ms, None);
        let task: crate::tasks::Task = serde_json::from_value(json!({
            "taskId": "t", "status": "working", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": -1, "pollInterval": -1
        }))
        .unwrap();
        assert_eq!((task.ttl, task.poll_interval), (Some(0), Some(0)));
    }

    #[test]
    fn an_unknown_cache_scope_reads_as_private() {
        use crate::result::CacheScope;
        use crate::tools::ListToolsResult;
        let scope = |v: serde_json::Value| {
            serde_json::from_value::<ListToolsResult>(json!({ "tools": [], "cacheScope": v }))
                .map(|r| r.cache_scope)
                .unwrap()
        };
        assert_eq!(scope(json!("public")), Some(CacheScope::Public));
        assert_eq!(scope(json!("private")), Some(CacheScope::Private));
        assert_eq!(scope(json!("shared")), Some(CacheScope::Private));
        assert_eq!(scope(json!("PUBLIC")), Some(CacheScope::Private));
        assert_eq!(scope(json!(["public"])), Some(CacheScope::Private));
        assert_eq!(scope(json!(null)), None);
    }

    tag!(
        /// test tag
        Foo = "foo"
    );

    #[test]
    fn tags_check_their_value() {
        assert_eq!(serde_json::to_value(Foo).unwrap(), json!(Foo::VALUE));
        assert!(serde_json::from_value::<Foo>(json!("foo")).is_ok());
        assert!(serde_json::from_value::<Foo>(json!("bar")).is_err());
        assert!(serde_json::from_value::<Foo>(json!(1)).is_err());
    }

    #[test]
    fn one_or_many_round_trips_both_forms() {
        let one: OneOrMany<JsonObject> = serde_json::from_value(json!({"a": 1})).unwrap();
        assert!(matches!(one, OneOrMany::One(_)));
        assert_eq!(serde_json::to_value(&one).unwrap(), json!({"a": 1}));
        let many: OneOrMany<JsonObject> = serde_json::from_value(json!([{"a": 1}, {}])).unwrap();
        assert_eq!(many.as_slice().len(), 2);
        assert_eq!(serde_json::to_value(&many).unwrap(), json!([{"a": 1}, {}]));
        assert!(serde_json::from_value::<OneOrMany<JsonObject>>(json!("x")).is_err());
    }

    #[test]
    fn integral_floats_serialize_as_integers() {
        #[derive(Serialize)]
        struct N {
            #[serde(serialize_with = "number::as_f64")]
            n: f64,
        }
        assert_eq!(serde_json::to_string(&N { n: 50.0 }).unwrap(), r#"{"n":50}"#);
        assert_eq!(serde_json::to_string(&N { n: -3.0 }).unwrap(), r#"{"n":-3}"#);
        assert_eq!(serde_json::to_string(&N { n: 0.25 }).unwrap(), r#"{"n":0.25}"#);
        assert_eq!(serde_json::to_string(&N { n: 1e300 }).unwrap(), r#"{"n":1e+300}"#);
    }

    #[test]
    fn empty_result_keeps_unknown_members() {
        let v = json!({"resultType": "complete", "_meta": {"k": 1}, "x": [1]});
        let r: EmptyResult = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(r.result_type, Some(ResultType::Complete));
        assert_eq!(serde_json::to_value(&r).unwrap(), v);
    }
}
