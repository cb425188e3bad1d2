#!/usr/bin/env bash
# bench/callgrind.sh — user-space instructions per echo call, server side, under callgrind:
# stable whatever else the machine is doing (kernel time is not counted). Not part of CI.
#
# Usage: bench/callgrind.sh [PEER...]     (default: bare rmcp mcpwire; also bare-tasks, the
# bare echo answering each stdio request in a task of its own: stdio scenarios only)
#
# Per peer and scenario, the server runs under `valgrind --tool=callgrind`; the
# instruction count of a run with N1 calls is subtracted from one with N2 calls, so
# start-up and handshakes cancel out: instructions per call = (I2 - I1) / (N2 - N1).
#   stdio-seq     sequential calls (2025 era)
#   stdio-pipe    32 in flight (2025 era)
#   http-2026     sequential stateless 2026 requests (one connection)
#   http-2025     sequential calls on one 2025 session (SSE answers)
#   http-2025s    sequential 2025 calls to a session-less server (JSON answers)
# The HTTP scenarios zero the counters (callgrind_control -z) after a warm-up and dump
# them (-d) after the measured calls. Profiles stay in bench/callgrind/ (git-ignored):
# read one with `callgrind_annotate --inclusive=yes FILE | head -80`.
#
# Environment: CARGO_TARGET_DIR [<repo>/target], N1 [500], N2 [2500], PIPE [10000],
# ONLY [all; `stdio` skips the HTTP scenarios, `http` the stdio ones], ECHO_SERVER [the mcpwire server binary;
# set it to a saved copy to measure a before/after pair], MCPWIRE [the mcpwire binary, whose
# `bench --no-check` drives the calls],
# SERVER_ARGS [extra arguments for mcpwire's echo-server, e.g. --current-thread],
# BENCH_ARGS [extra arguments for every `mcpwire bench` run, e.g. --progress-token or
# --payload-bytes 4096, to measure the same scenarios with another request shape].
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
T="${CARGO_TARGET_DIR:-$ROOT/target}"
MCPWIRE="${MCPWIRE:-$T/release/mcpwire}"
ONLY="${ONLY:-all}"
read -r -a SERVER_ARGS <<< "${SERVER_ARGS:-}"
read -r -a BENCH_ARGS <<< "${BENCH_ARGS:-}"
OUTDIR="${OUTDIR:-$ROOT/bench/callgrind}"
N1="${N1:-500}"
N2="${N2:-2500}"
PIPE="${PIPE:-10000}"
mkdir -p "$OUTDIR"
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind not found" >&2; exit 1; }
[[ -x $MCPWIRE ]] || { echo "callgrind.sh: build first: cargo build --release -p mcpwire-cli; CARGO_TARGET_DIR=$T/user cargo build --release -p mcpwire-bench --bin echo-server (alone: see compare.sh)" >&2; exit 1; }

server() {
  case "$1" in
    mcpwire) echo "${ECHO_SERVER:-$T/user/release/echo-server}" ;;
    rmcp) echo "$T/peers/rmcp/release/rmcp-echo" ;;
    bare | bare-tasks) echo "$T/peers/bare/release/bare-echo" ;;
  esac
}

total() { # total instructions in a callgrind output file
  grep -E '^(summary|totals):' "$1" | head -1 | awk '{print $2}'
}

stdio_run() { # PEER TAG CALLS PIPE -> instruction total
  local peer=$1 tag=$2 calls=$3 pipe=$4 file="$OUTDIR/$1-$2.out"
  local mode=--stdio extra=()
  [[ $peer == mcpwire ]] && extra=("${SERVER_ARGS[@]}")
  [[ $peer == bare-tasks ]] && mode=--stdio-tasks
  rm -f "$file"
  "$MCPWIRE" bench --no-check "${BENCH_ARGS[@]}" --calls "$calls" --pipelined-calls "$pipe" --warmup 0 --startup-runs 0 --timeout 900 -- \
    valgrind --tool=callgrind --callgrind-out-file="$file" "$(server "$peer")" "$mode" "${extra[@]}" >/dev/null 2>&1
  # Wait (bounded) for valgrind to write the file after the server exits.
  for _ in $(seq 1 100); do [[ -s $file ]] && break; sleep 0.1; done
  total "$file"
}

http_run() { # PEER MODE ERA -> instructions per call
  local peer=$1 mode=$2 era=$3 port=$((30000 + RANDOM % 20000))
  local file="$OUTDIR/$peer-http-$era-$mode.out"
  rm -f "$file" "$file".*
  valgrind --tool=callgrind --callgrind-out-file="$file" "$(server "$peer")" \
    --http "127.0.0.1:$port" --mode "$mode" >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 300); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  "$MCPWIRE" bench --no-check "${BENCH_ARGS[@]}" --era "$era" --calls 200 --clients 0 --warmup 0 --timeout 900 "http://127.0.0.1:$port/mcp" >/dev/null
  callgrind_control -z "$pid" >/dev/null
  "$MCPWIRE" bench --no-check "${BENCH_ARGS[@]}" --era "$era" --calls "$((N2 - N1))" --clients 0 --warmup 0 --timeout 900 "http://127.0.0.1:$port/mcp" >/dev/null
  callgrind_control -d "$pid" >/dev/null
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # The dump after zeroing holds the measured calls (+1 checked call, +handshake in 2025).
  local dump
  dump=$(ls -t "$file".* 2>/dev/null | head -1)
  local calls=$((N2 - N1 + 1))
  echo $(( $(total "$dump") / calls ))
}

PEERS=("$@")
[[ ${#PEERS[@]} -eq 0 ]] && PEERS=(bare rmcp mcpwire)
printf '%-10s %14s %14s %14s %14s %14s\n' peer stdio-seq stdio-pipe http-2026 http-2025 http-2025s
for peer in "${PEERS[@]}"; do
  seq=- pipe=- h26=- h25=- h25s=-
  if [[ $ONLY != http ]]; then
    a=$(stdio_run "$peer" seq1 "$N1" 0)
    b=$(stdio_run "$peer" seq2 "$N2" 0)
    c=$(stdio_run "$peer" pipe "$N1" "$PIPE")
    seq=$(( (b - a) / (N2 - N1) ))
    pipe=$(( (c - a) / PIPE ))
  fi
  if [[ $ONLY != stdio && $peer != bare-tasks ]]; then
    h26=$(http_run "$peer" stateless 2026)
    h25=$(http_run "$peer" sessions 2025)
    h25s=$(http_run "$peer" stateless 2025)
  fi
  printf '%-10s %14s %14s %14s %14s %14s\n' "$peer" "$seq" "$pipe" "$h26" "$h25" "$h25s"
done
