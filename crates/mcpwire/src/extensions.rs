//! A small type map that carries transport facts (HTTP headers, the authenticated
//! principal, ...) from a transport to the handler of a message.

use std::any::{Any, TypeId};
use std::sync::Arc;

/// A stored value.
type Value = Arc<dyn Any + Send + Sync>;

/// Values keyed by their type. Cloning is cheap: values are shared.
///
/// A request carries a handful of types at most, nearly always one (its HTTP headers):
/// the first is kept inline and the others in a list searched in order, so carrying the
/// headers costs no allocation beyond their own (a hash map allocated its table on every
/// request).
#[derive(Clone, Default)]
pub struct Extensions {
    /// The first type stored. Never cleared, so `others` is empty while this is `None`.
    first: Option<(TypeId, Value)>,
    others: Vec<(TypeId, Value)>,
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
        match &mut self.first {
            None => self.first = Some((id, value)),
            Some((first, slot)) if *first == id => *slot = value,
            Some(_) => match self.others.iter_mut().find(|(other, _)| *other == id) {
                Some((_, slot)) => *slot = value,
                None => self.others.push((id, value)),
            },
        }
    }

    /// The value of type `T`, if one was stored.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let id = TypeId::of::<T>();
        self.first
            .iter()
            .chain(&self.others)
            .find(|(stored, _)| *stored == id)
            .and_then(|(_, value)| value.downcast_ref())
    }

    /// Whether no value is stored.
    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    /// How many values are stored.
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.others.len()
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
    use super::*;

    #[test]
    fn values_are_found_by_type_and_replaced_by_type() {
        let mut ext = Extensions::new();
        assert!(ext.is_empty());
        assert_eq!(ext.get::<u8>(), None);
        ext.insert(1u8);
        ext.insert(String::from("a"));
        ext.insert(Principal("p".into()));
        assert!(!ext.is_empty());
        assert_eq!(ext.len(), 3);
        ext.insert(2u8);
        ext.insert(String::from("b"));
        assert_eq!(ext.len(), 3, "a type is stored once");
        assert_eq!(ext.get::<u8>(), Some(&2));
        assert_eq!(ext.get::<String>().map(String::as_str), Some("b"));
        assert_eq!(ext.get::<Principal>(), Some(&Principal("p".into())));
        assert_eq!(ext.get::<u16>(), None);
        let copy = ext.clone();
        assert_eq!(copy.get::<String>().map(String::as_str), Some("b"));
        assert_eq!(format!("{copy:?}"), "Extensions { len: 3 }");
    }
}
