//! Protocol revisions and the two eras they belong to.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The two eras of the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Era {
    /// Revisions 2024-11-05 to 2025-11-25: an `initialize` handshake opens a stateful
    /// session; either side may send requests.
    Stateful,
    /// Revision 2026-07-28 on: no handshake, every request carries its own `_meta`
    /// envelope, and the server never sends requests (multi round-trip results instead).
    Stateless,
}

/// A protocol revision string. The five published revisions are variants; any other
/// string parses into [`ProtocolVersion::Unknown`] without error, so that a peer's
/// unsupported version can be reported back to it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProtocolVersion {
    /// `2024-11-05`: the HTTP+SSE transport.
    V2024_11_05,
    /// `2025-03-26`: Streamable HTTP; batches must be accepted.
    V2025_03_26,
    /// `2025-06-18`: batching removed, `MCP-Protocol-Version` header added.
    V2025_06_18,
    /// `2025-11-25`: SSE polling, core tasks, URL elicitation, sampling tools.
    V2025_11_25,
    /// `2026-07-28`: the stateless revision.
    V2026_07_28,
    /// A string that names no revision this crate knows.
    Unknown(String),
}

impl ProtocolVersion {
    /// The newest revision.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_07_28;
    /// The newest revision that uses the `initialize` handshake.
    pub const LATEST_STATEFUL: ProtocolVersion = ProtocolVersion::V2025_11_25;
    /// The revision an HTTP server assumes when a 2025-era request has no
    /// `MCP-Protocol-Version` header.
    pub const HTTP_DEFAULT: ProtocolVersion = ProtocolVersion::V2025_03_26;
    /// Every known revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];
    /// The known revisions of the stateful era, oldest first.
    pub const STATEFUL: [ProtocolVersion; 4] = [
        ProtocolVersion::V2024_11_05,
        ProtocolVersion::V2025_03_26,
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
    ];
    /// The known revisions of the stateless era, oldest first.
    pub const STATELESS: [ProtocolVersion; 1] = [ProtocolVersion::V2026_07_28];

    /// Parses a revision string; unknown strings are kept, never rejected.
    pub fn parse(s: &str) -> ProtocolVersion {
        match s {
            "2024-11-05" => ProtocolVersion::V2024_11_05,
            "2025-03-26" => ProtocolVersion::V2025_03_26,
            "2025-06-18" => ProtocolVersion::V2025_06_18,
            "2025-11-25" => ProtocolVersion::V2025_11_25,
            "2026-07-28" => ProtocolVersion::V2026_07_28,
            other => ProtocolVersion::Unknown(other.to_owned()),
        }
    }

    /// The revision string.
    pub fn as_str(&self) -> &str {
        match self {
            ProtocolVersion::V2024_11_05 => "2024-11-05",
            ProtocolVersion::V2025_03_26 => "2025-03-26",
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
            ProtocolVersion::Unknown(s) => s,
        }
    }

    /// Whether this is one of the published revisions.
    pub fn is_known(&self) -> bool {
        !matches!(self, ProtocolVersion::Unknown(_))
    }

    /// The era of a known revision; `None` for an unknown string.
    pub fn era(&self) -> Option<Era> {
        match self {
            ProtocolVersion::V2026_07_28 => Some(Era::Stateless),
            ProtocolVersion::Unknown(_) => None,
            _ => Some(Era::Stateful),
        }
    }

    /// `true` when both are known and `self` is the same revision as `other` or newer.
    /// An unknown string is never "at least" anything.
    pub fn is_at_least(&self, other: &ProtocolVersion) -> bool {
        matches!(self.partial_cmp(other), Some(Ordering::Greater | Ordering::Equal))
    }

    /// Whether this revision requires servers to accept JSON-RPC batches.
    pub fn accepts_batches(&self) -> bool {
        *self == ProtocolVersion::V2025_03_26
    }

    fn rank(&self) -> Option<u8> {
        match self {
            ProtocolVersion::V2024_11_05 => Some(0),
            ProtocolVersion::V2025_03_26 => Some(1),
            ProtocolVersion::V2025_06_18 => Some(2),
            ProtocolVersion::V2025_11_25 => Some(3),
            ProtocolVersion::V2026_07_28 => Some(4),
            ProtocolVersion::Unknown(_) => None,
        }
    }
}

/// Known revisions are ordered by date; an unknown string is unordered against everything
/// except an equal unknown string.
impl PartialOrd for ProtocolVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        match (self.rank(), other.rank()) {
            (Some(a), Some(b)) => Some(a.cmp(&b)),
            _ if self == other => Some(Ordering::Equal),
            _ => None,
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for ProtocolVersion {
    fn from(s: &str) -> Self {
        ProtocolVersion::parse(s)
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(deserializer)?;
        Ok(ProtocolVersion::parse(&s))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn orders_known_revisions_and_not_unknown_ones() {
        assert!(ProtocolVersion::V2026_07_28 > ProtocolVersion::V2025_11_25);
        assert!(ProtocolVersion::V2024_11_05 < ProtocolVersion::V2025_03_26);
        let odd = ProtocolVersion::parse("1900-01-01");
        assert_eq!(odd.partial_cmp(&ProtocolVersion::V2024_11_05), None);
        assert!(!odd.is_at_least(&ProtocolVersion::V2024_11_05));
        assert!(ProtocolVersion::V2025_11_25.is_at_least(&ProtocolVersion::V2025_06_18));
    }

    #[test]
    fn knows_each_era() {
        assert_eq!(ProtocolVersion::V2026_07_28.era(), Some(Era::Stateless));
        for v in ProtocolVersion::STATEFUL {
            assert_eq!(v.era(), Some(Era::Stateful));
        }
        assert_eq!(ProtocolVersion::parse("").era(), None);
    }

    #[test]
    fn round_trips_any_string() {
        for s in ["2025-06-18", "draft", "", "\u{1F600}"] {
            let v: ProtocolVersion = serde_json::from_value(serde_json::json!(s)).unwrap();
            assert_eq!(serde_json::to_value(&v).unwrap(), serde_json::json!(s));
        }
    }
}
