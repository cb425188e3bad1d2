//! Fields every 2026 result shares: `resultType` and the cache hints.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// `resultType` (2026): how to read a result. A result without one (from a 2025-era
/// peer) is [`ResultType::Complete`]. Extension values (such as the tasks extension's
/// `task`) parse as [`ResultType::Other`] so that one unknown value does not fail the
/// whole message; whether it is acceptable is decided by the advertised extensions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum ResultType {
    /// The request completed; the result holds its final content.
    #[default]
    Complete,
    /// The server needs input first (multi round-trip requests).
    InputRequired,
    /// The tasks extension: the result is a task handle.
    Task,
    /// Any other value, kept verbatim.
    Other(String),
}

impl ResultType {
    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
            ResultType::Other(s) => s,
        }
    }

    /// Parses a wire string.
    pub fn parse(s: &str) -> ResultType {
        match s {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            "task" => ResultType::Task,
            other => ResultType::Other(other.to_owned()),
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Ok(ResultType::parse(&s))
    }
}

/// `cacheScope` (2026): who may reuse a cached result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data: any client or intermediary may cache and share it.
    Public,
    /// Reusable only within the same authorization context.
    #[default]
    Private,
}

/// A cache hint: `ttlMs` and `cacheScope`, as carried by the six cacheable 2026 results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CacheHint {
    /// How long the result stays fresh, in milliseconds (0 = stale at once).
    pub ttl_ms: u64,
    /// Who may reuse it.
    pub scope: CacheScope,
}

/// A result that carries the 2026 cache hints (`ttlMs`, `cacheScope`): the results of
/// `server/discover`, `tools/list`, `prompts/list`, `resources/list`,
/// `resources/templates/list` and `resources/read`.
pub trait Cacheable {
    /// The hint, when the result has a `ttlMs`; an absent `cacheScope` reads as private.
    fn cache_hint(&self) -> Option<CacheHint>;
    /// Sets `ttlMs` and `cacheScope`.
    fn set_cache_hint(&mut self, hint: CacheHint);
}
