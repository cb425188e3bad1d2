//! The memory of a single-use [`StateSealer`](super::StateSealer): which tokens were
//! already opened, each kept until it expires (an expired token is refused anyway).

use std::collections::HashMap;
use std::sync::Mutex;

/// How many unexpired tokens one sealer remembers at most (about 64 bytes each). Past
/// that, new tokens are refused rather than forgotten: forgetting would let them be
/// replayed. Ten minutes' tokens at the default TTL is about 170 a second.
pub(super) const MAX_SPENT: usize = 100_000;

/// Tokens already opened, by their tag, with their expiry (milliseconds since the epoch).
#[derive(Default)]
pub(super) struct Spent {
    tags: Mutex<Tags>,
}

#[derive(Default)]
struct Tags {
    expiry_by_tag: HashMap<[u8; 32], u64>,
    /// The size at which expired entries are next swept out.
    sweep_at: usize,
}

/// Why a token could not be claimed.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    /// It was opened before.
    Replayed,
    /// [`MAX_SPENT`] unexpired tokens are remembered already.
    Full,
}

impl Spent {
    /// Records the token with `tag` as used, unless it already was; `now` and `expires_at`
    /// in milliseconds since the epoch.
    pub(super) fn claim(&self, tag: [u8; 32], expires_at: u64, now: u64) -> Result<(), Refused> {
        let mut tags = self.tags.lock().unwrap_or_else(|e| e.into_inner());
        if tags.expiry_by_tag.contains_key(&tag) {
            return Err(Refused::Replayed);
        }
        if tags.expiry_by_tag.len() >= tags.sweep_at {
            tags.expiry_by_tag.retain(|_, expiry| *expiry > now);
            tags.sweep_at = (2 * tags.expiry_by_tag.len()).clamp(1024, MAX_SPENT);
        }
        if tags.expiry_by_tag.len() >= MAX_SPENT {
            return Err(Refused::Full);
        }
        tags.expiry_by_tag.insert(tag, expires_at);
        Ok(())
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.tags.lock().unwrap_or_else(|e| e.into_inner()).expiry_by_tag.len()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_tag_is_claimed_once_and_expired_ones_are_swept_out() {
        let spent = Spent::default();
        assert_eq!(spent.claim([1; 32], 100, 0), Ok(()));
        assert_eq!(spent.claim([1; 32], 100, 0), Err(Refused::Replayed));
        for i in 0..1023u32 {
            let mut tag = [0; 32];
            tag[..4].copy_from_slice(&i.to_be_bytes());
            tag[31] = 2;
            spent.claim(tag, 50, 10).unwrap();
        }
        // At 1,024 entries the next claim sweeps out the 1,023 that expired at 50.
        assert_eq!(spent.claim([3; 32], 200, 60), Ok(()));
        assert_eq!(spent.len(), 2, "the one expiring at 100 and the new one");
    }

    #[test]
    fn a_full_memory_refuses_rather_than_forgets() {
        let spent = Spent::default();
        for i in 0..MAX_SPENT as u32 {
            let mut tag = [0; 32];
            tag[..4].copy_from_slice(&i.to_be_bytes());
            spent.claim(tag, u64::MAX, 0).unwrap();
        }
        assert_eq!(spent.claim([9; 32], u64::MAX, 0), Err(Refused::Full));
        assert_eq!(spent.claim([0; 32], u64::MAX, 0), Err(Refused::Replayed));
    }
}
