#!/usr/bin/env bash
# bench/latency_pairs.sh — single-client HTTP latency of two servers, measured in pairs.
# Not part of CI.
#
# Usage: bench/latency_pairs.sh [-n PAIRS] [--era 2025|2026] SERVER_A SERVER_B
#   SERVER_A/B: binaries that take `--http ADDR --mode stateless` (echo-server, the bare
#   and rmcp peers). Each pair runs both servers once, 5,000 sequential calls each
#   (CALLS), server pinned to core SERVER_CPU (1), client to CLIENT_CPU (0); which goes
#   first alternates. Prints each pair's p50s and B/A, then the median ratio.
#
# This machine's speed drifts between runs more than two servers differ, so a table of
# medians taken over separate rounds (compare.sh) can pair a slow run of one with a fast
# run of the other; the ratio of two runs made back to back is steadier.
set -euo pipefail

PAIRS=16 ERA=2026
while [[ $# -gt 2 ]]; do
  case "$1" in
    -n) PAIRS=$2; shift 2 ;;
    --era) ERA=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -eq 2 ]] || { sed -n '4,9p' "$0" >&2; exit 2; }
A=$1 B=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MCPWIRE=${MCPWIRE:-${CARGO_TARGET_DIR:-$ROOT/target}/release/mcpwire}
CALLS=${CALLS:-5000} SERVER_CPU=${SERVER_CPU:-1} CLIENT_CPU=${CLIENT_CPU:-0}
[[ -x $MCPWIRE ]] || { echo "no $MCPWIRE: cargo build --release -p mcpwire-cli" >&2; exit 1; }

# p50 in microseconds of one run of server $1 on a free port: below the kernel's ephemeral
# range (32768 and up here), where a client socket of an earlier run may hold the port,
# and again on another port if the run gave nothing.
run() {
  local port pid p50 tries
  for tries in 1 2 3; do
    port=$((20000 + RANDOM % 12000))
    taskset -c "$SERVER_CPU" "$1" --http "127.0.0.1:$port" --mode stateless >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 200); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
    p50=$(taskset -c "$CLIENT_CPU" "$MCPWIRE" --json bench --era "$ERA" --calls "$CALLS" --clients 0 --timeout 60 \
      "http://127.0.0.1:$port/mcp" 2>/dev/null | python3 -c \
      'import json,sys; r=json.load(sys.stdin)["results"]; print(next(x["latency"]["p50_us"] for x in r if x["workload"].startswith("sequential")))' \
      2>/dev/null) || p50=""
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    [[ -n $p50 ]] && break
    echo "latency_pairs: run $tries of $1 gave nothing; trying another port" >&2
  done
  echo "$p50"
}

for i in $(seq 1 "$PAIRS"); do
  if ((i % 2)); then a=$(run "$A"); b=$(run "$B"); else b=$(run "$B"); a=$(run "$A"); fi
  echo "$a $b"
done | python3 -c '
import statistics, sys
rows = [tuple(map(float, l.split())) for l in sys.stdin if l.strip()]
print("   p50 A   p50 B    B/A")
for a, b in rows:
    print(f"{a:8.1f} {b:7.1f} {b / a:6.2f}")
r = [b / a for a, b in rows]
print(f"median B/A {statistics.median(r):.3f} (range {min(r):.2f}-{max(r):.2f}); "
      f"median p50 A {statistics.median(a for a, _ in rows):.1f} us, B {statistics.median(b for _, b in rows):.1f} us")
'
