//! A fast hasher for the maps on the request path whose keys the server makes itself:
//! random session ids and SSE stream names. A client's input is only ever looked
//! up in them, never inserted, so they cannot be flooded with colliding keys, and the
//! keyed SipHash std uses by default buys nothing there but its cost (a few hundred
//! instructions for a stream name, several times per request).

use std::hash::{BuildHasherDefault, Hasher};

/// Builds [`FastHasher`]s.
pub(crate) type FastHash = BuildHasherDefault<FastHasher>;

/// Eight bytes at a time, each word folded in with a rotate, xor and multiply, then
/// MurmurHash3's 64-bit finalizer: without it, keys that differ only in their last
/// bytes (stream names end in a counter) would share their low bits, which pick the
/// table's bucket.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FastHasher(u64);

impl FastHasher {
    fn fold(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.fold(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // The tail's length in its last byte, so that "ab" and "ab\0" differ.
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            word[7] = rest.len() as u8;
            self.fold(u64::from_le_bytes(word));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.fold(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.fold(n);
    }

    fn write_u128(&mut self, n: u128) {
        self.fold(n as u64);
        self.fold((n >> 64) as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.fold(n as u64);
    }

    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    use super::*;

    fn hash<T: std::hash::Hash + ?Sized>(value: &T) -> u64 {
        FastHash::default().hash_one(value)
    }

    /// Stream names of one session differ only in their trailing counter: their hashes
    /// must still differ in the low bits that pick a bucket.
    #[test]
    fn names_that_differ_at_the_end_spread_over_the_low_bits() {
        let session = "0123456789abcdef0123456789abcdef";
        let buckets: HashSet<u64> = (0..4096u64).map(|no| hash(&format!("{session}-{no}")) & 4095).collect();
        assert!(buckets.len() > 2400, "4,096 names fell into {} of 4,096 buckets", buckets.len());
        let ids: HashSet<u64> = (0..4096u128).map(|n| hash(&(n << 64 | 7)) & 4095).collect();
        assert!(ids.len() > 2400, "4,096 ids fell into {} of 4,096 buckets", ids.len());
    }

    #[test]
    fn trailing_zero_bytes_and_lengths_are_told_apart() {
        assert_ne!(hash(b"ab".as_slice()), hash(b"ab\0".as_slice()));
        assert_ne!(hash("ab"), hash("ab\0"));
        assert_ne!(hash(""), hash("\0"));
        assert_eq!(hash("same"), hash("same"));
    }
}
