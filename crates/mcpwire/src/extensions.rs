//! A small type map that carries transport facts (HTTP headers, the authenticated
//! principal, ...) from a transport to the handler of a message.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

/// Values keyed by their type. Cloning is cheap: values are shared.
#[derive(Clone, Default)]
pub struct Extensions {
    /// Type ids are hashes already: no need for SipHash on each insert and lookup.
    map: HashMap<TypeId, Arc<dyn Any + Send + Sync>, crate::hash::FastHash>,
}

impl Extensions {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `value`, replacing any earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.map.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was stored.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map.get(&TypeId::of::<T>()).and_then(|v| v.downcast_ref())
    }

    /// The stored value of type `T` itself, shared: a transport that lent a value of its
    /// own (the request's headers) takes it back with `Arc::try_unwrap` once the request
    /// has let go of it.
    #[cfg(feature = "http")]
    pub(crate) fn shared<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.map.get(&TypeId::of::<T>()).cloned().and_then(|v| v.downcast().ok())
    }

    /// Whether no value is stored.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extensions").field("len", &self.map.len()).finish()
    }
}

/// The authenticated principal of a request (a user or client id), put in the HTTP
/// request's extensions by an authentication layer. 2025 sessions are bound to the
/// principal that created them; requests of another principal do not find the session.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Principal(pub String);
