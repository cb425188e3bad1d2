#!/usr/bin/env bash
# bench/compare.sh — mcpwire's echo server side by side with a bare tokio/hyper echo,
# rmcp (crates.io), the Python SDK (PyPI) and the TypeScript SDK (npm), interleaved for
# several rounds, client and server each pinned to one core. Not part of CI.
#
# Usage: bench/compare.sh [--quick] [--no-build]
#
# Environment (defaults in brackets):
#   ROUNDS [3]            rounds; each round runs every peer once per scenario, interleaved
#   PEERS ["bare rmcp python typescript mcpwire lean"]   (lean: bench/stdio-echo, mcpwire
#                         without default features on a current-thread runtime, built
#                         alone into $CARGO_TARGET_DIR/lean; stdio scenario only)
#   CALLS [5000]          sequential calls (stdio and HTTP single client)
#   PIPE_CALLS [50000]    stdio pipelined calls, IN_FLIGHT [32] in flight
#   CLIENTS [32]          concurrent HTTP clients, for DURATION [5] seconds
#   SESSIONS [1000]       idle 2025 sessions for the memory-per-session figure
#   STARTUP_RUNS [20]     spawns timed for spawn-to-first-response
#   SCENARIOS ["stdio stateless sessions"]   which scenarios run (e.g. just "stdio")
#   CLIENT_CPU [0] SERVER_CPU [1]   the cores of taskset
#   CARGO_TARGET_DIR [<repo>/target]; peers build into $CARGO_TARGET_DIR/peers/<name>
#   OUT [bench/results/<date>]      where the JSON reports and summary.md go (git-ignored)
# --quick: ROUNDS=1 CALLS=2000 PIPE_CALLS=20000 DURATION=2 SESSIONS=300 STARTUP_RUNS=10.
#
# Needs: cargo, taskset (util-linux), python3; for the Python and TypeScript peers,
# scripts/install-peers.sh (run here unless SKIP_INSTALL=1; a peer whose runtime is
# missing is skipped with a note).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD=1
for arg in "$@"; do
  case "$arg" in
    --quick) ROUNDS="${ROUNDS:-1}"; CALLS="${CALLS:-2000}"; PIPE_CALLS="${PIPE_CALLS:-20000}"
             DURATION="${DURATION:-2}"; SESSIONS="${SESSIONS:-300}"; STARTUP_RUNS="${STARTUP_RUNS:-10}" ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
ROUNDS="${ROUNDS:-3}"
PEERS="${PEERS:-bare rmcp python typescript mcpwire lean}"
CALLS="${CALLS:-5000}"
PIPE_CALLS="${PIPE_CALLS:-50000}"
IN_FLIGHT="${IN_FLIGHT:-32}"
CLIENTS="${CLIENTS:-32}"
DURATION="${DURATION:-5}"
SESSIONS="${SESSIONS:-1000}"
STARTUP_RUNS="${STARTUP_RUNS:-20}"
SCENARIOS="${SCENARIOS:-stdio stateless sessions}"
CLIENT_CPU="${CLIENT_CPU:-0}"
SERVER_CPU="${SERVER_CPU:-1}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="${OUT:-$ROOT/bench/results/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"

log() { echo "compare: $*" >&2; }
die() { echo "compare: ERROR: $*" >&2; exit 1; }
command -v taskset >/dev/null || die "taskset not found (Debian package util-linux)"
command -v python3 >/dev/null || die "python3 not found"

BENCH="$CARGO_TARGET_DIR/release/mcpwire-bench"
ECHO="$CARGO_TARGET_DIR/release/echo-server"
LEAN="$CARGO_TARGET_DIR/lean/release/stdio-echo"
RMCP="$CARGO_TARGET_DIR/peers/rmcp/release/rmcp-echo"
BARE="$CARGO_TARGET_DIR/peers/bare/release/bare-echo"

# ---- build and install -------------------------------------------------------------
if [[ $BUILD == 1 ]]; then
  log "building mcpwire-bench and echo-server (release)"
  (cd "$ROOT" && cargo build --release -p mcpwire-bench)
  for p in $PEERS; do
    case "$p" in
      rmcp) log "building the rmcp peer (crates.io)"
            CARGO_TARGET_DIR="$CARGO_TARGET_DIR/peers/rmcp" cargo build --release \
              --manifest-path "$ROOT/bench/peers/rmcp-echo/Cargo.toml" ;;
      lean) log "building stdio-echo alone (its own features, not the workspace's union)"
            (cd "$ROOT" && CARGO_TARGET_DIR="$CARGO_TARGET_DIR/lean" cargo build --release -p stdio-echo) ;;
      bare) log "building the bare peer"
            CARGO_TARGET_DIR="$CARGO_TARGET_DIR/peers/bare" cargo build --release \
              --manifest-path "$ROOT/bench/peers/bare-echo/Cargo.toml" ;;
    esac
  done
  if [[ " $PEERS " == *" python "* || " $PEERS " == *" typescript "* ]] && [[ "${SKIP_INSTALL:-0}" != 1 ]]; then
    log "installing the Python and TypeScript SDKs (scripts/install-peers.sh)"
    "$ROOT/scripts/install-peers.sh" >&2 || log "install-peers failed; those peers may be skipped"
  fi
fi
[[ -x $BENCH && -x $ECHO ]] || die "missing $BENCH or $ECHO (run without --no-build)"
# echo-server's stdio functions are linked side by side (crates/mcpwire-bench/build.rs);
# a list gone stale raises its peak RSS, so say so before measuring it.
python3 "$ROOT/bench/link_order.py" --check "$ECHO" >&2 || log "WARNING: echo-server's link order is stale"
TOOLS="${MCPWIRE_TOOLS_DIR:-$ROOT/.tools}"
# shellcheck disable=SC1091
[[ -f $TOOLS/env.sh ]] && source "$TOOLS/env.sh"

# The server command of a peer: server_cmd PEER stdio | server_cmd PEER http ADDR MODE
server_cmd() {
  local peer=$1 kind=$2
  local tail=(--stdio)
  [[ $kind == http ]] && tail=(--http "$3" --mode "$4")
  case "$peer" in
    mcpwire)    echo "$ECHO ${tail[*]}" ;;
    lean)       echo "$LEAN" ;;
    rmcp)       echo "$RMCP ${tail[*]}" ;;
    bare)       echo "$BARE ${tail[*]}" ;;
    python)     echo "${PYTHON:-missing} $ROOT/bench/peers/python/echo_server.py ${tail[*]}" ;;
    typescript) echo "${NODE22:-missing} $ROOT/bench/peers/typescript/echo_server.mjs ${tail[*]}" ;;
  esac
}

available() {
  case "$1" in
    mcpwire) [[ -x $ECHO ]] ;;
    lean) [[ -x $LEAN ]] ;;
    rmcp) [[ -x $RMCP ]] ;;
    bare) [[ -x $BARE ]] ;;
    python) [[ -x "${PYTHON:-}" ]] ;;
    typescript) [[ -x "${NODE22:-}" && -d "${NODE_MODULES:-}/@modelcontextprotocol/sdk" ]] ;;
    *) return 1 ;;
  esac
}

# The era a peer's stateless HTTP run uses: 2026 where the SDK speaks it, else the
# 2025 stateless JSON form (TypeScript SDK 1.x).
stateless_era() { [[ $1 == typescript ]] && echo 2025 || echo 2026; }

bench() { taskset -c "$CLIENT_CPU" "$BENCH" --json "$@"; }

# Waits (bounded) until ADDR accepts connections.
wait_port() {
  local host=${1%:*} port=${1##*:}
  for _ in $(seq 1 600); do
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  return 1
}

PORT_BASE=$((20000 + RANDOM % 12000))  # below the ephemeral ports (32768 and up)
run_http() {
  local round=$1 peer=$2 mode=$3 port=$4
  local addr="127.0.0.1:$port"
  # shellcheck disable=SC2046
  taskset -c "$SERVER_CPU" $(server_cmd "$peer" http "$addr" "$mode") >"$OUT/$peer-http-$mode.log" 2>&1 &
  local pid=$!
  if ! wait_port "$addr"; then
    log "$peer http $mode did not start (see $OUT/$peer-http-$mode.log)"; kill "$pid" 2>/dev/null || true; return 0
  fi
  local era=2025 extra=()
  if [[ $mode == stateless ]]; then era=$(stateless_era "$peer"); else extra=(--sessions "$SESSIONS"); fi
  bench --label "$peer" --era "$era" --calls "$CALLS" --clients "$CLIENTS" --seconds "$DURATION" \
    --server-pid "$pid" "${extra[@]}" "http://$addr/mcp" >"$OUT/r$round-$peer-http-$mode.json" \
    || log "$peer http $mode failed"
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

run_stdio() {
  local round=$1 peer=$2
  # shellcheck disable=SC2046
  bench --label "$peer" --era 2025 --calls "$CALLS" --pipelined-calls "$PIPE_CALLS" --in-flight "$IN_FLIGHT" \
    --startup-runs 0 -- taskset -c "$SERVER_CPU" $(server_cmd "$peer" stdio) \
    >"$OUT/r$round-$peer-stdio.json" || log "$peer stdio failed"
  # Startup without the taskset wrapper (its exec would be counted).
  # shellcheck disable=SC2046
  bench --label "$peer" --era 2025 --calls 0 --pipelined-calls 0 --startup-runs "$STARTUP_RUNS" \
    -- $(server_cmd "$peer" stdio) >"$OUT/r$round-$peer-startup.json" || log "$peer startup failed"
}

log "results in $OUT (rounds=$ROUNDS, peers: $PEERS)"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "rounds=$ROUNDS calls=$CALLS pipe_calls=$PIPE_CALLS in_flight=$IN_FLIGHT clients=$CLIENTS duration=$DURATION sessions=$SESSIONS startup_runs=$STARTUP_RUNS"
  echo "client cpu=$CLIENT_CPU server cpu=$SERVER_CPU"
} >"$OUT/meta.txt"

port=$PORT_BASE
for round in $(seq 1 "$ROUNDS"); do
  for scenario in $SCENARIOS; do
    for peer in $PEERS; do
      if ! available "$peer"; then log "skipping $peer (not built or installed)"; continue; fi
      if [[ $peer == lean && $scenario != stdio ]]; then continue; fi
      log "round $round: $peer $scenario"
      port=$((port + 1))
      case "$scenario" in
        stdio) run_stdio "$round" "$peer" ;;
        *) run_http "$round" "$peer" "$scenario" "$port" ;;
      esac
    done
  done
done

python3 "$ROOT/bench/summarize.py" "$OUT" | tee "$OUT/summary.md"
