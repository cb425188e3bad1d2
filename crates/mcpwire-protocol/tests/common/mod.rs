//! Helpers shared by this crate's integration tests.

/// xorshift64*: small, deterministic, good enough to shake a parser. The fuzz-input
/// mutator below, shared by `malformed.rs` and `decode_differential.rs`, draws from it.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0; a draw is taken either way).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `seed` with one to four random edits: a flipped bit, a token from `tokens` inserted or
/// written over some bytes, a run deleted, duplicated elsewhere or cut off, a byte
/// replaced.
pub fn mutate(rng: &mut Rng, seed: &[u8], tokens: &[&[u8]]) -> Vec<u8> {
    let mut out = seed.to_vec();
    for _ in 0..=rng.below(3) {
        let at = rng.below(out.len() + 1);
        match rng.below(7) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 => {
                let token = tokens[rng.below(tokens.len())];
                out.splice(at..at, token.iter().copied());
            }
            2 if !out.is_empty() => {
                let end = (at + rng.below(16)).min(out.len());
                out.drain(at..end);
            }
            3 if at < out.len() => {
                let end = (at + rng.below(32)).min(out.len());
                let copy = out[at..end].to_vec();
                let to = rng.below(out.len() + 1);
                out.splice(to..to, copy);
            }
            4 => out.truncate(at),
            5 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = (rng.next() & 0xff) as u8;
            }
            _ => {
                let token = tokens[rng.below(tokens.len())];
                let end = (at + rng.below(8)).min(out.len());
                out.splice(at..end, token.iter().copied());
            }
        }
    }
    out
}
