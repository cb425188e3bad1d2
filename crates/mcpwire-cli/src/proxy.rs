//! `mcpwire proxy`.

use crate::cli::Proxy;

/// `mcpwire proxy`.
pub async fn run(_args: &Proxy) -> anyhow::Result<i32> {
    anyhow::bail!("not yet")
}
