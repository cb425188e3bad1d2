//! The fuzz targets without libFuzzer: each test replays the target's checked-in corpus
//! (`corpus/<target>/`), then runs `FUZZ_REPLAY_ITERS` (default 2000) inputs mutated from
//! it by a deterministic PRNG (`FUZZ_REPLAY_SEED`, default 1). Runs on stable Rust:
//!
//!     cd fuzz && cargo test --release --no-default-features
//!
//! A failing input is written to `artifacts/<target>/replay-<seed>-<n>` and named in the
//! panic message; replay it with `cargo fuzz run <target> <file>` or by putting it in the
//! corpus.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// xorshift64*: small, fast and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Tokens worth splicing into JSON, SSE, headers and templates.
#[rustfmt::skip]
const TOKENS: &[&[u8]] = &[
    b"{", b"}", b"[", b"]", b"\"", b":", b",", b"\n", b"\r", b"\r\n", b"\0", b"\xff", b"\xc3\x28", b"null",
    b"true", b"-0", b"1e999", b"9223372036854775808", b"-9223372036854775809", b"\"jsonrpc\":\"2.0\"",
    b"\"id\":", b"\"method\":", b"\"params\":", b"\"result\":", b"\"error\":", b"\"_meta\":",
    b"\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"", b"\\u0000", b"\\ud800", b"data:",
    b"id:", b"event:", b"retry:", b": ", b"=?base64?", b"?=", b"{x}", b"{+x}", b"{#x}", b"{.x,y}",
    b"{/x*}", b"{;x}", b"{?x,y}", b"{&z}", b"{x:3}", b"%", b"%2F", b"%ZZ", b"\xFF", b"x-mcp-header",
    b"mcp-session-id: ", b"last-event-id: ", b"mcp-method: ", b"mcp-name: ",
];

fn mutate(rng: &mut Rng, base: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut out = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(8) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = rng.next() as u8;
            }
            2 => {
                let i = rng.below(out.len() + 1);
                out.insert(i, rng.next() as u8);
            }
            3 if !out.is_empty() => {
                let i = rng.below(out.len());
                let n = 1 + rng.below(8.min(out.len() - i));
                out.drain(i..i + n);
            }
            4 | 5 => {
                let i = rng.below(out.len() + 1);
                let token = TOKENS[rng.below(TOKENS.len())];
                out.splice(i..i, token.iter().copied());
            }
            6 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                let i = rng.below(out.len() + 1);
                let j = rng.below(other.len() + 1);
                out.truncate(i);
                out.extend_from_slice(&other[j..]);
            }
            _ if !out.is_empty() => {
                // Repeat a slice (deep nesting, long lines).
                let i = rng.below(out.len());
                let n = 1 + rng.below(4.min(out.len() - i));
                let piece = out[i..i + n].to_vec();
                for _ in 0..rng.below(64) {
                    out.splice(i..i, piece.iter().copied());
                }
            }
            _ => out.push(rng.next() as u8),
        }
    }
    out.truncate(64 * 1024);
    out
}

fn dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus").join(target)
}

fn load(target: &str) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir(target)).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    files.sort();
    files.iter().filter_map(|f| std::fs::read(f).ok()).collect()
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn run(target: &str, f: fn(&[u8]), iterations_scale: u64) {
    let corpus = load(target);
    assert!(!corpus.is_empty(), "corpus/{target} is empty");
    let seed = env_u64("FUZZ_REPLAY_SEED", 1);
    let iterations = env_u64("FUZZ_REPLAY_ITERS", 2000) / iterations_scale;
    let save = |n: String, input: &[u8]| {
        let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("artifacts").join(target);
        let _ = std::fs::create_dir_all(&out);
        let path = out.join(format!("replay-{seed}-{n}"));
        let _ = std::fs::write(&path, input);
        path
    };
    for (i, input) in corpus.iter().enumerate() {
        if catch_unwind(AssertUnwindSafe(|| f(input))).is_err() {
            panic!("{target}: corpus entry {i} fails; copy: {}", save(format!("corpus{i}"), input).display());
        }
    }
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut pool = corpus.clone();
    for n in 0..iterations {
        let base = pool[rng.below(pool.len())].clone();
        let input = mutate(&mut rng, &base, &corpus);
        if catch_unwind(AssertUnwindSafe(|| f(&input))).is_err() {
            panic!("{target}: mutated input {n} fails; saved as {}", save(n.to_string(), &input).display());
        }
        // Keep some mutants to mutate further (a crude stand-in for coverage feedback).
        if pool.len() < 4096 && rng.below(4) == 0 {
            pool.push(input);
        }
    }
    eprintln!(
        "{target}: {} corpus entries and {iterations} mutated inputs passed (seed {seed})",
        corpus.len()
    );
}

#[test]
fn frame() {
    run("frame", mcpwire_fuzz::frame, 1);
}

#[test]
fn protocol_types() {
    run("protocol_types", mcpwire_fuzz::protocol_types, 1);
}

#[test]
fn sse() {
    run("sse", mcpwire_fuzz::sse, 1);
}

#[test]
fn mcp_param() {
    run("mcp_param", mcpwire_fuzz::mcp_param, 1);
}

#[test]
fn uri_template() {
    run("uri_template", mcpwire_fuzz::uri_template, 1);
}

#[test]
fn http_endpoint() {
    // Each input runs a whole service in its own runtime: fewer of them.
    run("http_endpoint", mcpwire_fuzz::http_endpoint, 4);
}

/// Every type the `protocol_types` target can pick is reachable from the corpus.
#[test]
fn protocol_types_selectors_are_in_range() {
    assert!(mcpwire_fuzz::TYPE_NAMES.len() < 256, "one byte picks the type");
}
