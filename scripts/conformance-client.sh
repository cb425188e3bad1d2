#!/usr/bin/env bash
# Runs the official conformance client suite against our everything-client, at
# 2025-11-25 and at 2026-07-28, and the extension leg (the bare --suite all, where the
# OAuth extension scenarios run: client_credentials, enterprise-managed ID-JAG, DPoP,
# workload identity), each against its baseline of expected failures
# (conformance/expected-failures-client-<leg>.yml; all three are empty now).
#
# Usage: scripts/conformance-client.sh [--release]
set -euo pipefail
cd "$(dirname "$0")/.."

profile=debug
cargo_flags=()
if [[ "${1:-}" == "--release" ]]; then
  profile=release
  cargo_flags=(--release)
fi
cargo build -q "${cargo_flags[@]}" -p mcpwire-conformance --bin everything-client
client_bin="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/$profile/everything-client"

status=0
for version in 2025-11-25 2026-07-28 extensions; do
  scripts/conformance.sh client --command "$client_bin" --spec-version "$version" \
    --expected-failures "conformance/expected-failures-client-$version.yml" || status=1
done
exit "$status"
