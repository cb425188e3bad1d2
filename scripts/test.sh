#!/usr/bin/env bash
# The project's test command (README.md): installs the real peers the tests talk to
# (Node 22 with the official conformance suite, and the Python SDK) into .tools/, runs
# every Rust test (including the Python SDK interop tests), then the official
# conformance server suite at both protocol versions.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p results

scripts/install-peers.sh
# shellcheck disable=SC1091
source .tools/env.sh
export MCPWIRE_PYTHON="$PYTHON"

echo "== cargo test --workspace [$(date -u +%T)]"
cargo test --workspace
# Feature `metrics` is on in no crate of the workspace: its tests run on their own.
echo "== cargo test -p mcpwire --features metrics --test metrics_labels [$(date -u +%T)]"
cargo test -p mcpwire --features metrics --test metrics_labels
echo "== conformance [$(date -u +%T)]"
scripts/conformance-server.sh
scripts/conformance-client.sh
