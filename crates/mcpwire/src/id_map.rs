//! [`IdMap`], the map that every side of a connection keeps its requests in.

/// A map keyed by JSON-RPC request ids: looked up for every request and response, so it
/// hashes with foldhash (a few instructions for a short key, where the standard library's
/// SipHash takes a few hundred), seeded at random per map because the peer picks the ids.
/// The key is the exact [`RequestId`](mcpwire_protocol::RequestId) for the peer's
/// requests (`7` and `"7"` are two requests) and its [`IdKey`](mcpwire_protocol::IdKey)
/// for our own, whose answers match either form.
pub(crate) type IdMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
