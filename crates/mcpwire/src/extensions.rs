//! A small type map that carries transport facts (HTTP headers, the authenticated
//! principal, ...) from a transport to the handler of a message.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

/// Values keyed by their type. Cloning is cheap: values are shared.
#[derive(Clone, Default)]
pub struct Extensions {
    /// The first value stored. Most maps hold one value, a request's headers, which then
    /// needs no table: a table is an allocation per request, and another per clone.
    first: Option<Value>,
    /// Every later value of another type. Boxed, so that the map stays three words: it
    /// is carried by value in every request's futures, and a few words more can push one
    /// of those past the allocator's per-thread cache.
    #[allow(clippy::box_collection)] // The box is for the size, above.
    rest: Option<Box<HashMap<TypeId, Value, crate::hash::FastHash>>>,
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
        match &mut self.first {
            Some(first) if type_of(first) == id => *first = Arc::new(value),
            Some(_) => {
                self.rest.get_or_insert_with(Box::default).insert(id, Arc::new(value));
            }
            None => self.first = Some(Arc::new(value)),
        }
    }

    /// The value of type `T`, if one was stored.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.find(TypeId::of::<T>()).and_then(|v| v.downcast_ref())
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
        match &self.first {
            Some(first) if type_of(first) == id => Some(first),
            Some(_) => self.rest.as_ref()?.get(&id),
            None => None,
        }
    }

    /// How many values are stored.
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.as_ref().map_or(0, |rest| rest.len())
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
        #[cfg(feature = "http")]
        {
            // `shared` hands out the stored value itself: it comes back whole once every
            // map holding it is gone.
            let lent = map.shared::<String>().unwrap();
            assert!(Arc::ptr_eq(&lent, &copy.shared::<String>().unwrap()));
            drop((map, copy));
            assert_eq!(Arc::try_unwrap(lent).unwrap(), "headers");
        }
    }
}
