#!/usr/bin/env bash
# Runs the official conformance server suite against our everything-server over
# Streamable HTTP, at 2025-11-25 and at 2026-07-28, each against its baseline of
# expected failures (conformance/expected-failures-server-<version>.yml).
#
# Usage: scripts/conformance-server.sh [--release]
set -euo pipefail
cd "$(dirname "$0")/.."

profile=debug
cargo_flags=()
if [[ "${1:-}" == "--release" ]]; then
  profile=release
  cargo_flags=(--release)
fi
cargo build -q "${cargo_flags[@]}" -p mcpwire-conformance --bin everything-server
server_bin="${CARGO_TARGET_DIR:-target}/$profile/everything-server"
[ -x "$server_bin" ] || { echo "conformance-server: no $server_bin" >&2; exit 1; }

# A free loopback port.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
mkdir -p results
"$server_bin" --http "127.0.0.1:$port" > results/everything-server-http.log 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true' EXIT

# Wait until it answers (at most 10 s).
for _ in $(seq 1 100); do
  if python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(s.connect_ex(('127.0.0.1', $port)))"; then
    break
  fi
  sleep 0.1
done
kill -0 "$server_pid" 2>/dev/null || { echo "conformance-server: everything-server did not start:" >&2; cat results/everything-server-http.log >&2; exit 1; }

status=0
for version in 2025-11-25 2026-07-28 extensions; do
  scripts/conformance.sh server --url "http://127.0.0.1:$port/mcp" --spec-version "$version" \
    --expected-failures "conformance/expected-failures-server-$version.yml" || status=1
done
exit "$status"
