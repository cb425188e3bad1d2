//! A small type map that carries transport facts (HTTP headers, the authenticated
//! principal, ...) from a transport to the handler of a message.
//!
//! ```
//! use mcpwire::extensions::Extensions;
//! use mcpwire::Principal;
//!
//! let mut facts = Extensions::new();
//! facts.insert(Principal("alice".into()));
//! assert_eq!(facts.get::<Principal>().map(|p| p.0.as_str()), Some("alice"));
//! assert!(facts.get::<String>().is_none());
//! ```

use std::any::{Any, TypeId};
use std::sync::Arc;

use serde_json::Map;

/// Values keyed by their type. Cloning is cheap: values are shared, and so is the list
/// they are kept in. Made for the few facts a transport attaches to a message: a lookup
/// or an insert goes through every value.
#[derive(Clone, Default)]
pub struct Extensions {
    /// The first value stored. Most maps hold one value, a request's headers, which then
    /// needs no list.
    first: Option<Value>,
    /// Every later value of another type. An insert makes a new list (one allocation),
    /// so that a clone, made for each message of a request, copies none; and the map is
    /// four words, carried by value in every request's futures, where a few words more
    /// can push one past the allocator's per-thread cache.
    rest: Option<Arc<[Value]>>,
}

/// One stored value.
type Value = Arc<dyn Any + Send + Sync>;

/// The type of the value in `value` (not of the `Arc`).
fn type_of(value: &Value) -> TypeId {
    (**value).type_id()
}

impl Extensions {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `value`, replacing any earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        let id = TypeId::of::<T>();
        let value: Value = Arc::new(value);
        let first = match &mut self.first {
            Some(first) => first,
            None => {
                self.first = Some(value);
                return;
            }
        };
        if type_of(first) == id {
            *first = value;
            return;
        }
        let rest = self.rest.as_deref().unwrap_or_default();
        // Each list is made in one allocation (the length is known in advance).
        self.rest = Some(if rest.iter().any(|v| type_of(v) == id) {
            rest.iter().map(|v| if type_of(v) == id { value.clone() } else { v.clone() }).collect()
        } else {
            rest.iter().cloned().chain(std::iter::once(value)).collect()
        });
    }

    /// The value of type `T`, if one was stored, or else if the HTTP request this message
    /// came in had one in its own extensions (put there by a tower layer in front of
    /// the MCP service: a resolved user, say).
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let stored = self.find(TypeId::of::<T>()).and_then(|v| v.downcast_ref());
        #[cfg(feature = "http")]
        let stored = stored.or_else(|| {
            let http = self.find(TypeId::of::<http::Extensions>())?.downcast_ref::<http::Extensions>()?;
            http.get::<T>()
        });
        stored
    }

    /// The stored value of type `T` itself, shared: a transport that lent a value of its
    /// own (the request's headers) takes it back with `Arc::try_unwrap` once the request
    /// has let go of it.
    #[cfg(feature = "http")]
    pub(crate) fn shared<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.find(TypeId::of::<T>()).cloned().and_then(|v| v.downcast().ok())
    }

    /// The value stored under `id`.
    fn find(&self, id: TypeId) -> Option<&Value> {
        let first = self.first.as_ref()?;
        if type_of(first) == id {
            return Some(first);
        }
        self.rest.as_deref()?.iter().find(|v| type_of(v) == id)
    }

    /// How many values are stored.
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.as_deref().map_or(0, <[Value]>::len)
    }

    /// Whether no value is stored.
    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extensions").field("len", &self.len()).finish()
    }
}

/// The authenticated principal of a request (a user or client id), put in the HTTP
/// request's extensions by an authentication layer. 2025 sessions are bound to the
/// principal that created them; requests of another principal do not find the session.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

/// The verified claims of an access token, put in the HTTP request's extensions by an
/// authentication layer (`auth::server::BearerAuth`) next to the [`Principal`], and
/// handed to handlers in theirs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TokenClaims {
    /// `sub`: the resource owner (or the client itself for client credentials).
    pub subject: Option<String>,
    /// `client_id` (or `azp`): the client the token was issued to.
    pub client_id: Option<String>,
    /// The granted scopes (`scope`, space-separated, or `scp`, an array).
    pub scopes: Vec<String>,
    /// `aud`: the resources the token is for.
    pub audience: Vec<String>,
    /// `iss`: who issued the token.
    pub issuer: Option<String>,
    /// `exp`, in seconds since the Unix epoch.
    pub expires_at: Option<u64>,
    /// Every claim as received (the ones above included), for application checks.
    pub claims: Map<String, serde_json::Value>,
}

impl TokenClaims {
    /// The identity sessions are bound to: the subject, else the client id. One
    /// authorization server names both, so a client id equal to some user's subject
    /// would share that user's sessions: servers that accept client-credentials tokens
    /// from an authorization server that allows this should bind on richer claims.
    pub fn principal(&self) -> Option<&str> {
        self.subject.as_deref().or(self.client_id.as_deref())
    }

    /// Whether every scope of `required` was granted.
    pub fn has_scopes<S: AsRef<str>>(&self, required: &[S]) -> bool {
        required.iter().all(|r| self.scopes.iter().any(|s| s == r.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn values_of_each_type_are_found_and_replaced_wherever_they_are_kept() {
        let mut map = Extensions::new();
        assert!(map.is_empty());
        assert_eq!(map.get::<u8>(), None);
        map.insert(1u8);
        map.insert(String::from("two"));
        map.insert(3u64);
        assert!(!map.is_empty());
        assert_eq!(
            (map.get::<u8>(), map.get::<String>(), map.get::<u64>()),
            (Some(&1), Some(&"two".into()), Some(&3))
        );
        assert_eq!(map.get::<u32>(), None);
        // The first value and a later one are each replaced in place.
        map.insert(10u8);
        map.insert(30u64);
        assert_eq!((map.get::<u8>(), map.get::<u64>()), (Some(&10), Some(&30)));
        assert_eq!(format!("{map:?}"), "Extensions { len: 3 }");
    }

    #[test]
    fn a_clone_shares_the_values_and_inserts_into_its_own_map() {
        let mut map = Extensions::new();
        map.insert(String::from("headers"));
        let mut copy = map.clone();
        copy.insert(7u32);
        assert_eq!(copy.get::<String>().map(String::as_str), Some("headers"));
        assert_eq!(map.get::<u32>(), None, "the original did not change");
        // Nor when a clone replaces or adds a later value of the list they share.
        let mut again = copy.clone();
        again.insert(8u32);
        again.insert(9u16);
        assert_eq!((again.get::<u32>(), again.get::<u16>()), (Some(&8), Some(&9)));
        assert_eq!((copy.get::<u32>(), copy.get::<u16>()), (Some(&7), None));
        #[cfg(feature = "http")]
        {
            // `shared` hands out the stored value itself: it comes back whole once every
            // map holding it is gone.
            let lent = map.shared::<String>().unwrap();
            assert!(Arc::ptr_eq(&lent, &copy.shared::<String>().unwrap()));
            drop((map, copy, again));
            assert_eq!(Arc::try_unwrap(lent).unwrap(), "headers");
        }
    }
}

/// A W3C trace context (<https://www.w3.org/TR/trace-context/>) as MCP carries it in a
/// message's `_meta`: `traceparent`, and `tracestate` when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceContext {
    /// `version-traceid-parentid-flags`, for example
    /// `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`.
    pub traceparent: String,
    /// Vendor-specific trace data, if any.
    pub tracestate: Option<String>,
}

impl TraceContext {
    /// The trace context in a `_meta` object, if it has a `traceparent`.
    pub fn from_meta(meta: &serde_json::Map<String, serde_json::Value>) -> Option<TraceContext> {
        let traceparent = meta.get("traceparent")?.as_str()?.to_owned();
        let tracestate = meta.get("tracestate").and_then(|v| v.as_str()).map(str::to_owned);
        Some(TraceContext { traceparent, tracestate })
    }

    /// Writes the trace context into a `_meta` object.
    pub fn write_to(&self, meta: &mut serde_json::Map<String, serde_json::Value>) {
        meta.insert("traceparent".into(), self.traceparent.clone().into());
        if let Some(state) = &self.tracestate {
            meta.insert("tracestate".into(), state.clone().into());
        }
    }
}
