//! Links `echo-server` with its functions in the order of `link/echo-server.order`.
//!
//! The kernel maps a program's code 64 KiB at a time around each page it runs, so the
//! code a stdio session runs (about 550 KiB) costs as much memory as the windows it is
//! scattered over: 2.1 MiB of echo-server's 2.6 MiB of text. Placed side by side it
//! costs its own size, and the server's peak RSS falls by about 1.4 MiB.
//! `bench/link_order.py` writes the list, with a section for each way of building
//! echo-server (Cargo's feature unification renames the dependencies' symbols).
//!
//! lld reads the list (`--symbol-ordering-file`); GNU ld does not know the option. rustc
//! links with its own lld on x86_64 Linux since 1.90, so the list is passed only there,
//! and only when neither Cargo nor the flags name another linker. Names lld no longer
//! finds are ignored in silence: a stale list costs memory, never a build.
//! `MCPWIRE_NO_LINK_ORDER=1` turns it off.

use std::env;
use std::process::Command;

fn main() {
    let order = concat!(env!("CARGO_MANIFEST_DIR"), "/link/echo-server.order");
    println!("cargo:rerun-if-changed=link/echo-server.order");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MCPWIRE_NO_LINK_ORDER");
    if env::var_os("MCPWIRE_NO_LINK_ORDER").is_some() || !links_with_rust_lld() {
        return;
    }
    println!("cargo:rustc-link-arg-bin=echo-server=-Wl,--symbol-ordering-file={order}");
    println!("cargo:rustc-link-arg-bin=echo-server=-Wl,--no-warn-symbol-ordering");
}

/// Whether rustc will link with its own lld: the x86_64 Linux GNU target, rustc 1.90
/// or later, and no linker named by Cargo's configuration or the flags.
fn links_with_rust_lld() -> bool {
    let target_is_default_lld = env::var("TARGET").is_ok_and(|t| t == "x86_64-unknown-linux-gnu");
    let linker_named = env::var_os("RUSTC_LINKER").is_some()
        || env::var("CARGO_ENCODED_RUSTFLAGS").is_ok_and(|flags| {
            ["linker", "fuse-ld", "link-self-contained"].iter().any(|word| flags.contains(word))
        });
    target_is_default_lld && !linker_named && rustc_minor().is_some_and(|minor| minor >= 90)
}

/// The minor version of the rustc Cargo builds with (`rustc 1.95.0 (...)` gives 95).
fn rustc_minor() -> Option<u32> {
    let rustc = env::var_os("RUSTC")?;
    let output = Command::new(rustc).arg("--version").output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    if parts.next()? != "1" {
        return None;
    }
    parts.next()?.parse().ok()
}
