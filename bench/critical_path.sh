#!/usr/bin/env bash
# bench/critical_path.sh — the user-space instructions a server runs while a single
# HTTP client waits: from the `recv` that read a request to the `writev` that sends its
# answer. Not part of CI.
#
# Usage: bench/critical_path.sh SERVER [SERVER...]
#   SERVER: a binary that takes `--http ADDR --mode stateless` (echo-server, the bare and
#   rmcp peers). Environment: ERA [2026], CALLS [300], CARGO_TARGET_DIR, MCPWIRE [the
#   mcpwire binary, whose `bench --no-check` drives the calls].
#
# The server runs under callgrind with `--dump-after=recv --dump-before=writev`, so each
# request leaves two profiles: one from its read to its answer's write (what the client
# waits for), one from that write to the next read (what runs while the client reads
# the answer and sends its next request; none of it delays a sequential client). Prints
# the median and the 10th/90th percentiles of each over the last 100 requests. The first
# is what `bench/latency_pairs.sh` measures with the machine's noise taken out: work
# moved from before the write to after it shows here and not in `callgrind.sh`, which
# counts both. Profiles stay in bench/callgrind/critical-<name>/ (git-ignored); read one
# with `callgrind_annotate --inclusive=yes FILE`.
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '5,9p' "$0" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MCPWIRE=${MCPWIRE:-${CARGO_TARGET_DIR:-$ROOT/target}/release/mcpwire}
ERA=${ERA:-2026} CALLS=${CALLS:-300}
[[ -x $MCPWIRE ]] || { echo "no $MCPWIRE: cargo build --release -p mcpwire-cli" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "critical_path.sh: valgrind not found" >&2; exit 1; }

# The instruction total of each profile of trigger $2 among the last 200 in folder $1.
totals() {
  local f
  for f in $(ls "$1"/cg.* | sort -t. -k2 -n | tail -200); do
    grep -q "Trigger: --dump-$2" "$f" && grep -E '^(summary|totals):' "$f" | head -1 | awk '{print $2}'
  done
}
stats() { sort -n | awk '{a[NR]=$1} END {printf "median %d (p10 %d, p90 %d, n %d)", a[int(NR/2)], a[int(NR/10)], a[int(NR*0.9)], NR}'; }

printf '%-28s %-36s %s\n' server "read -> write (the client waits)" "write -> next read"
for server in "$@"; do
  out="$ROOT/bench/callgrind/critical-$(basename "$server")"
  rm -rf "$out" && mkdir -p "$out"
  port=$((20000 + RANDOM % 12000))
  valgrind --tool=callgrind --dump-after=recv --dump-before=writev --callgrind-out-file="$out/cg" \
    "$server" --http "127.0.0.1:$port" --mode stateless >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  "$MCPWIRE" bench --no-check --era "$ERA" --calls "$CALLS" --clients 0 --warmup 0 --timeout 900 \
    "http://127.0.0.1:$port/mcp" >/dev/null || echo "critical_path.sh: the run of $server failed" >&2
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  printf '%-28s %-36s %s\n' "$(basename "$server")" "$(totals "$out" before=writev | stats)" \
    "$(totals "$out" after=recv | stats)"
done
