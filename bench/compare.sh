#!/usr/bin/env bash
# bench/compare.sh — mcpwire's echo-server side by side with rmcp (bench/peers/rmcp-echo)
# and a bare serde_json/hyper echo (bench/peers/bare-echo), case by case, interleaved for
# several rounds, client and server each pinned to one core. Not part of CI.
#
# Usage: bench/compare.sh [--quick] [--no-build]
#
# A case is a transport (SCENARIOS) times a request variant (VARIANTS):
#   stdio           stdio, 2025 era: sequential calls, then pipelined calls (IN_FLIGHT in
#                   flight), each on a fresh server
#   sessions        HTTP, 2025 era, one session per client (SSE answers)
#   stateless2025   HTTP, 2025 era without sessions: initialize, then POSTs with no
#                   session id (echo-server: `--mode stateless`, i.e. `HttpSettings::sessionless`)
#   stateless2026   HTTP, 2026-07-28 era (no handshake, JSON answers)
#   Each HTTP case runs 1 client (CALLS sequential calls) and CLIENTS clients for
#   DURATION seconds against one server.
#   Variants: 32B, 4KiB, 64KiB (the echo's text; any SIZE in bytes also works), SIZE+progress
#   (every request carries `_meta.progressToken`), mix (tools/list, tools/call,
#   resources/read of a 100 KiB text and prompts/get in turn).
# Also measured: peak RSS of the stdio servers (32B), spawn to first response, and KiB
# per idle 2025 session (sessions, 32B).
#
# Environment (defaults in brackets):
#   ROUNDS [3]            rounds; each round runs every peer once per case, interleaved
#   PEERS ["bare rmcp mcpwire"]   also: lean (bench/stdio-echo: stdio only, echo variants
#                         only), python and typescript (echo variants only)
#   SCENARIOS ["stdio sessions stateless2025 stateless2026"]
#   VARIANTS ["32B 4KiB 64KiB 32B+progress mix"]
#   CALLS [5000]          sequential calls (stdio and HTTP single client)
#   PIPE_CALLS [50000]    stdio pipelined calls, IN_FLIGHT [32] in flight
#   CLIENTS [32]          concurrent HTTP clients, for DURATION [5] seconds
#   SESSIONS [1000]       idle 2025 sessions for the memory-per-session figure (0: skip)
#   STARTUP_RUNS [20]     spawns timed for spawn-to-first-response (0: skip)
#   CLIENT_CPU [0] SERVER_CPU [1]   the cores of taskset
#   CARGO_TARGET_DIR [<repo>/target]; peers build into $CARGO_TARGET_DIR/peers/<name>
#   OUT [bench/results/<date>]      where the JSON reports and summary.md go (git-ignored)
# --quick: ROUNDS=1 CALLS=1000 PIPE_CALLS=10000 DURATION=1.5 SESSIONS=300 STARTUP_RUNS=5
# (about 3 minutes on 2 cores once built; the full run about 25).
#
# Needs: cargo, taskset (util-linux), python3; for the Python and TypeScript peers,
# scripts/install-peers.sh (run here unless SKIP_INSTALL=1; a peer whose runtime is
# missing is skipped with a note).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD=1
for arg in "$@"; do
  case "$arg" in
    --quick) ROUNDS="${ROUNDS:-1}"; CALLS="${CALLS:-1000}"; PIPE_CALLS="${PIPE_CALLS:-10000}"
             DURATION="${DURATION:-1.5}"; SESSIONS="${SESSIONS:-300}"; STARTUP_RUNS="${STARTUP_RUNS:-5}" ;;
    --no-build) BUILD=0 ;;
    -h|--help) sed -n '2,41p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
ROUNDS="${ROUNDS:-3}"
PEERS="${PEERS:-bare rmcp mcpwire}"
CALLS="${CALLS:-5000}"
PIPE_CALLS="${PIPE_CALLS:-50000}"
IN_FLIGHT="${IN_FLIGHT:-32}"
CLIENTS="${CLIENTS:-32}"
DURATION="${DURATION:-5}"
SESSIONS="${SESSIONS:-1000}"
STARTUP_RUNS="${STARTUP_RUNS:-20}"
SCENARIOS="${SCENARIOS:-stdio sessions stateless2025 stateless2026}"
VARIANTS="${VARIANTS:-32B 4KiB 64KiB 32B+progress mix}"
CLIENT_CPU="${CLIENT_CPU:-0}"
SERVER_CPU="${SERVER_CPU:-1}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="${OUT:-$ROOT/bench/results/$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"

log() { echo "compare: $*" >&2; }
die() { echo "compare: ERROR: $*" >&2; exit 1; }
command -v taskset >/dev/null || die "taskset not found (Debian package util-linux)"
command -v python3 >/dev/null || die "python3 not found"

MCPWIRE="$CARGO_TARGET_DIR/release/mcpwire"  # its `bench` command is the load generator
# echo-server is built on its own, in a target directory of its own: built with the CLI,
# cargo would unify the features both ask of mcpwire and serde_json (the CLI's `redis`,
# `preserve_order`), and the server measured would not be the one a user builds.
ECHO="$CARGO_TARGET_DIR/user/release/echo-server"
LEAN="$CARGO_TARGET_DIR/lean/release/stdio-echo"
RMCP="$CARGO_TARGET_DIR/peers/rmcp/release/rmcp-echo"
BARE="$CARGO_TARGET_DIR/peers/bare/release/bare-echo"

# ---- build and install -------------------------------------------------------------
if [[ $BUILD == 1 ]]; then
  log "building mcpwire (the load generator: mcpwire bench), then echo-server alone (release)"
  (cd "$ROOT" && cargo build --release -p mcpwire-cli)
  (cd "$ROOT" && CARGO_TARGET_DIR="$CARGO_TARGET_DIR/user" cargo build --release -p mcpwire-bench --bin echo-server)
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
[[ -x $MCPWIRE && -x $ECHO ]] || die "missing $MCPWIRE or $ECHO (run without --no-build)"
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

# The load generator's (mcpwire bench) flags for a variant: 32B | 4KiB | 64KiB | BYTES, each with an
# optional +progress; or mix (32-byte texts).
variant_flags() {
  local v=$1 size progress=()
  if [[ $v == mix ]]; then echo "--payload-bytes 32 --mix"; return; fi
  if [[ $v == *+progress ]]; then progress=(--progress-token); v=${v%+progress}; fi
  case "$v" in
    *KiB) size=$(( ${v%KiB} * 1024 )) ;;
    *B) size=${v%B} ;;
    *) size=$v ;;
  esac
  echo "--payload-bytes $size ${progress[*]}"
}

# Whether PEER runs VARIANT in SCENARIO: lean is stdio only; the peers without the mix's
# resource and prompt skip it; the TypeScript SDK 1.x does not speak 2026.
runs_case() {
  local peer=$1 scenario=$2 variant=$3
  case "$peer" in
    lean) [[ $scenario == stdio && $variant != mix ]] ;;
    python) [[ $variant != mix ]] ;;
    typescript) [[ $variant != mix && $scenario != stateless2026 ]] ;;
    *) return 0 ;;
  esac
}

bench() { taskset -c "$CLIENT_CPU" "$MCPWIRE" --json bench "$@"; }

# Waits (bounded) until ADDR accepts connections.
wait_port() {
  local host=${1%:*} port=${1##*:}
  for _ in $(seq 1 600); do
    if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  return 1
}

# File names: r<round>-<peer>-<scenario>-<variant>.json ("+" becomes "-").
file_of() { echo "$OUT/r$1-$2-$3-${4//+/-}.json"; }

PORT_BASE=$((20000 + RANDOM % 12000))  # below the ephemeral ports (32768 and up)
run_http() {
  local round=$1 peer=$2 scenario=$3 variant=$4 port=$5
  local addr="127.0.0.1:$port" mode=stateless era=2025 extra=()
  case "$scenario" in
    sessions) mode=sessions
              [[ $variant == 32B && $SESSIONS -gt 0 ]] && extra=(--sessions "$SESSIONS") ;;
    stateless2026) era=2026 ;;
  esac
  local log="$OUT/$peer-$scenario-${variant//+/-}.log"
  # shellcheck disable=SC2046
  taskset -c "$SERVER_CPU" $(server_cmd "$peer" http "$addr" "$mode") >"$log" 2>&1 &
  local pid=$!
  if ! wait_port "$addr"; then
    log "$peer $scenario did not start (see $log)"; kill "$pid" 2>/dev/null || true; return 0
  fi
  # shellcheck disable=SC2046
  bench --label "$peer" --era "$era" --calls "$CALLS" --clients "$CLIENTS" --seconds "$DURATION" \
    $(variant_flags "$variant") --server-pid "$pid" "${extra[@]}" "http://$addr/mcp" \
    >"$(file_of "$round" "$peer" "$scenario" "$variant")" || log "$peer $scenario $variant failed"
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

run_stdio() {
  local round=$1 peer=$2 variant=$3
  # shellcheck disable=SC2046
  bench --label "$peer" --era 2025 --calls "$CALLS" --pipelined-calls "$PIPE_CALLS" --in-flight "$IN_FLIGHT" \
    --startup-runs 0 $(variant_flags "$variant") -- taskset -c "$SERVER_CPU" $(server_cmd "$peer" stdio) \
    >"$(file_of "$round" "$peer" stdio "$variant")" || log "$peer stdio $variant failed"
  if [[ $variant == 32B && $STARTUP_RUNS -gt 0 ]]; then
    # Startup without the taskset wrapper (its exec would be counted).
    # shellcheck disable=SC2046
    bench --label "$peer" --era 2025 --calls 0 --pipelined-calls 0 --startup-runs "$STARTUP_RUNS" \
      -- $(server_cmd "$peer" stdio) >"$OUT/r$round-$peer-startup.json" || log "$peer startup failed"
  fi
}

log "results in $OUT (rounds=$ROUNDS, peers: $PEERS)"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "rounds=$ROUNDS calls=$CALLS pipe_calls=$PIPE_CALLS in_flight=$IN_FLIGHT clients=$CLIENTS duration=$DURATION sessions=$SESSIONS startup_runs=$STARTUP_RUNS"
  echo "scenarios: $SCENARIOS; variants: $VARIANTS"
  echo "client cpu=$CLIENT_CPU server cpu=$SERVER_CPU"
} >"$OUT/meta.txt"

port=$PORT_BASE
for round in $(seq 1 "$ROUNDS"); do
  for scenario in $SCENARIOS; do
    for variant in $VARIANTS; do
      for peer in $PEERS; do
        if ! available "$peer"; then log "skipping $peer (not built or installed)"; continue; fi
        runs_case "$peer" "$scenario" "$variant" || continue
        log "round $round: $peer $scenario $variant"
        port=$((port + 1))
        case "$scenario" in
          stdio) run_stdio "$round" "$peer" "$variant" ;;
          sessions|stateless2025|stateless2026) run_http "$round" "$peer" "$scenario" "$variant" "$port" ;;
          *) die "unknown scenario $scenario" ;;
        esac
      done
    done
  done
done
log "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/meta.txt"

python3 "$ROOT/bench/summarize.py" "$OUT" | tee "$OUT/summary.md"
