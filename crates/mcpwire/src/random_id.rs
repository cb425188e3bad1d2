//! Random identifiers that must not be guessable (the id of a task or of a URL question
//! is all another client would need to reach it): one source of randomness and one
//! spelling (lowercase hex), whatever the id names.

use crate::error::McpError;

/// A random 128-bit id as 32 lowercase hex characters; `-32603` when the system has no
/// randomness (an id anyone could guess would let another client reach what it names).
pub(crate) fn random_id() -> Result<String, McpError> {
    random_hex::<16>().ok_or_else(|| McpError::internal("no randomness for an id"))
}

/// `N` random bytes as `2 * N` lowercase hex characters, or `None` when the system has no
/// randomness; each caller says that failure in its own error type.
pub(crate) fn random_hex<const N: usize>() -> Option<String> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
