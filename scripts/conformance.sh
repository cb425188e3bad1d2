#!/usr/bin/env bash
# conformance.sh — run the official MCP conformance harness
# (@modelcontextprotocol/conformance, pinned in scripts/install-peers.sh)
# against our server or client, with a checked-in baseline of expected failures.
#
# Why a wrapper: the harness needs Node >= 22 (the system Node is 20), its
# default server suite silently skips the 2026-only and pending scenarios, its
# client legs need a long timeout on 2 cores, and its closing "Total:" line
# counts checks, not scenarios. This script fixes all of that in one place.
#
# Usage:
#   scripts/conformance.sh server --url URL --spec-version V
#       [--expected-failures FILE] [--output DIR] [--timeout MS]
#     runs: node dist/index.js server --url URL --suite all --spec-version V
#           -o DIR [--expected-failures FILE] [--timeout MS]
#   scripts/conformance.sh client --command 'CMD' --spec-version V
#       [--expected-failures FILE] [--suite all] [--output DIR] [--timeout MS]
#     runs: node dist/index.js client --command 'CMD' --suite all
#           --spec-version V --timeout 60000 -o DIR [--expected-failures FILE]
#     The harness runs `/bin/sh -c "CMD <url>"` once per scenario, all
#     scenarios at once, with MCP_CONFORMANCE_SCENARIO,
#     MCP_CONFORMANCE_PROTOCOL_VERSION (= V) and sometimes
#     MCP_CONFORMANCE_CONTEXT (JSON) in the environment.
#   scripts/conformance.sh list server|client --spec-version V
#     prints the scenario names that `--suite all --spec-version V` runs, one
#     per line (what the baseline files in conformance/ are made from).
#
# V is a spec revision: 2025-11-25 or 2026-07-28 (also 2025-06-18, 2025-03-26).
# DIR defaults to <repo>/results/conformance/<mode>-<V> (git-ignored; wiped
# first). The tools are installed on demand by scripts/install-peers.sh.
#
# Expected-failures file (YAML; verified against the harness source,
# 0.2.0-alpha.12): a mapping with optional `server:` and `client:` keys, each a
# list of strings. The `server` list is used by `server` runs, `client` by
# `client` runs; the other key is ignored.
#     server:
#       - tools-call-sampling                    # whole scenario may fail
#       - server-stateless:sep-2575-some-check   # only this check may fail
#     client:
#       - auth/scope-step-up
#   * `<scenario>` expects the scenario to fail (any FAILURE or WARNING check).
#   * `<scenario>:<check-id>` expects that one check to fail. No space after
#     the colon (`- a: b` is YAML for a mapping and is rejected). Listing a
#     scenario both whole and per-check is an error.
#   * An empty file or `server: []` means "nothing may fail".
#   * Entries for scenarios that did not run are ignored.
#
# Exit status (the harness's own; this script passes it through):
#   with --expected-failures FILE:
#     0  every failing scenario/check is listed in FILE, and every listed one
#        still fails;
#     1  an unexpected failure (not in FILE), OR a stale entry: a listed
#        scenario/check that now PASSES is an error too ("Baseline is stale:
#        remove passing entries"). In this mode a WARNING counts as a failure,
#        in server runs too.
#   without it:
#     server: 1 if any check is FAILURE (warnings are tolerated), else 0;
#     client: 1 if any check is FAILURE or WARNING, else 0.
#   Any harness crash (bad YAML, unknown scenario, ...) is also 1; a usage
#   error of this script is 2.
# After the run one line summarises scenarios: a scenario counts as failed
# only when one of its checks is FAILURE (the harness's ✗ also marks
# warnings, and its "Total: N passed" counts checks, not scenarios).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${MCPWIRE_TOOLS_DIR:-$REPO_ROOT/.tools}"

usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "conformance: $*" >&2; exit 2; }

# ---- arguments -------------------------------------------------------------
MODE="${1:-}"
case "$MODE" in
  server|client|list) shift ;;
  -h|--help|help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac

LIST_KIND=""
if [[ $MODE == list ]]; then
  LIST_KIND="${1:-}"
  [[ $LIST_KIND == server || $LIST_KIND == client ]] || die "usage: list server|client --spec-version V"
  shift
fi

URL="" CMD="" SPEC="" BASELINE="" OUTDIR="" SUITE="all" TIMEOUT=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --url) URL="${2:?--url needs a value}"; shift 2 ;;
    --command) CMD="${2:?--command needs a value}"; shift 2 ;;
    --spec-version) SPEC="${2:?--spec-version needs a value}"; shift 2 ;;
    --expected-failures) BASELINE="${2:?--expected-failures needs a file}"; shift 2 ;;
    --output|-o) OUTDIR="${2:?--output needs a directory}"; shift 2 ;;
    --suite) SUITE="${2:?--suite needs a value}"; shift 2 ;;
    --timeout) TIMEOUT="${2:?--timeout needs milliseconds}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
  esac
done
[[ -n $SPEC ]] || die "--spec-version is required (2025-11-25, 2026-07-28, or 'extensions' for the bare --suite all leg that runs the extension scenarios)"
# 'extensions': the bare `--suite all` leg (no --spec-version), where the extension
# scenarios (tasks, skills, the OAuth extensions) run.
spec_args=(--spec-version "$SPEC")
[[ $SPEC != extensions ]] || spec_args=()

# ---- tools -----------------------------------------------------------------
if ! install_log="$("$REPO_ROOT/scripts/install-peers.sh" 2>&1)"; then
  echo "$install_log" >&2
  echo "conformance: installing the harness failed" >&2
  exit 1
fi
# shellcheck source=/dev/null
source "$TOOLS/env.sh"
harness() { "$NODE22" "$CONFORMANCE_JS" "$@"; }

if [[ $MODE == list ]]; then
  harness list "--$LIST_KIND" --spec-version "$SPEC" | sed -n 's/^  - \([^ ]*\).*/\1/p'
  exit "${PIPESTATUS[0]}"
fi

# ---- run -------------------------------------------------------------------
args=("$MODE")
if [[ $MODE == server ]]; then
  [[ -n $URL ]] || die "server mode needs --url URL"
  [[ -z $CMD ]] || die "--command is for client mode"
  [[ $SUITE == all ]] || die "server mode always runs --suite all (the default 'active' suite skips scenarios)"
  args+=(--url "$URL" --suite all "${spec_args[@]}")
  [[ -z $TIMEOUT ]] || args+=(--timeout "$TIMEOUT")
else
  [[ -n $CMD ]] || die "client mode needs --command 'CMD'"
  [[ -z $URL ]] || die "--url is for server mode"
  # All client scenarios start at once; 2 cores need a generous timeout.
  args+=(--command "$CMD" --suite "$SUITE" "${spec_args[@]}" --timeout "${TIMEOUT:-60000}")
fi

if [[ -n $BASELINE ]]; then
  [[ -f $BASELINE ]] || die "expected-failures file not found: $BASELINE"
  BASELINE="$(cd "$(dirname "$BASELINE")" && pwd)/$(basename "$BASELINE")"
  # The harness reads the file only after the whole run; check it up front
  # with the same rules (and the harness's own yaml package) to fail fast.
  # shellcheck disable=SC2016  # JavaScript, not shell, expands these
  "$NODE22" --input-type=module -e '
    import { readFileSync } from "node:fs";
    import { createRequire } from "node:module";
    const YAML = createRequire(`${process.env.NODE_MODULES}/`)("yaml");
    const [file, mode] = process.argv.slice(1);
    const bad = (m) => { console.error(`conformance: invalid expected-failures file ${file}: ${m}`); process.exit(1); };
    let doc; try { doc = YAML.parse(readFileSync(file, "utf8")); } catch (e) { bad(e.message); }
    if (doc == null) process.exit(0);
    if (typeof doc !== "object" || Array.isArray(doc)) bad("expected a mapping with server: and/or client: lists");
    for (const key of ["server", "client"]) {
      const list = doc[key];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list)) bad(`${key}: must be a list of scenario names`);
      const whole = new Set(list.filter((e) => typeof e === "string" && !e.includes(":")));
      for (const e of list) {
        if (typeof e !== "string") bad(`${key}: entry ${JSON.stringify(e)} is not a string (write "- scenario:check-id", no space after the colon)`);
        const i = e.indexOf(":");
        if (i === 0 || i === e.length - 1) bad(`${key}: entry "${e}" needs text on both sides of the colon`);
        if (i > 0 && whole.has(e.slice(0, i))) bad(`${key}: "${e}" is redundant with the whole-scenario entry "${e.slice(0, i)}"`);
      }
    }
    const other = mode === "server" ? "client" : "server";
    if (doc[mode] === undefined && doc[other] !== undefined)
      console.error(`conformance: note: ${file} has no ${mode}: list (only ${other}:), so nothing may fail`);
  ' "$BASELINE" "$MODE" || exit 1
  args+=(--expected-failures "$BASELINE")
fi

if [[ -z $OUTDIR ]]; then
  OUTDIR="$REPO_ROOT/results/conformance/$MODE-$SPEC"
  rm -rf "$OUTDIR"
fi
mkdir -p "$OUTDIR"
args+=(-o "$OUTDIR")
LOG="$OUTDIR/harness.log"
MARKER="$OUTDIR/.started"
: > "$MARKER"

echo "conformance: node $("$NODE22" --version), harness $CONFORMANCE_VERSION"
echo "conformance: running: node .../conformance/dist/index.js ${args[*]}"
set +e
harness "${args[@]}" 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}
set -e

# ---- summary ---------------------------------------------------------------
# The scenario set comes from the harness's summary lines
# ("✓ name: N passed, M failed[, K warnings]"); the statuses come from the
# checks.json files this run wrote (the server summary hides warnings).
# failed = a FAILURE check; warned = no FAILURE but a WARNING; passed = neither
# (a scenario that scored no check at all counts as passed, as in the harness).
read -r total passed failed warned nochecks < <(
  find "$OUTDIR" -name checks.json -newer "$MARKER" -print0 |
  "$NODE22" -e '
    const fs = require("node:fs"), path = require("node:path");
    const [log, outdir, mode] = process.argv.slice(1);
    const lines = fs.readFileSync(log, "utf8").split("\n");
    const re = /^[✓✗] (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?$/;
    const scen = new Map();
    for (const l of lines) { const m = re.exec(l); if (m) scen.set(m[1], { fail: +m[3], warn: +(m[4] ?? 0), n: +m[2] + +m[3] }); }
    const files = fs.readFileSync(0, "utf8").split("\0").filter(Boolean);
    for (const f of files) {
      let name = path.relative(outdir, path.dirname(f)).split(path.sep).join("/");
      name = name.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
      if (mode === "server") name = name.replace(/^server-/, "");
      if (!scen.has(name)) continue;
      const checks = JSON.parse(fs.readFileSync(f, "utf8"));
      scen.set(name, {
        fail: checks.filter((c) => c.status === "FAILURE").length,
        warn: checks.filter((c) => c.status === "WARNING").length,
        n: checks.filter((c) => ["SUCCESS", "FAILURE", "WARNING"].includes(c.status)).length,
      });
    }
    let p = 0, fl = 0, w = 0, z = 0;
    for (const s of scen.values()) {
      if (s.fail > 0) fl++; else if (s.warn > 0) w++; else { p++; if (s.n === 0) z++; }
    }
    console.log(scen.size, p, fl, w, z);
  ' "$LOG" "$OUTDIR" "$MODE"
)
baseline_note=""
if [[ -n $BASELINE ]]; then
  expected=$(grep -c '^  ~ ' "$LOG" || true)
  stale=$(grep -c '^  ✓ ' "$LOG" || true)
  unexpected=$(grep -c '^  ✗ ' "$LOG" || true)
  if grep -q -e 'Baseline check passed' -e 'Baseline is stale' -e 'Unexpected failures detected' "$LOG"; then
    baseline_note="; baseline $(basename "$BASELINE"): $expected expected, $unexpected unexpected, $stale stale"
  else
    baseline_note="; baseline $(basename "$BASELINE") NOT applied (harness error, see above)"
  fi
fi
if [[ $total == 0 ]]; then
  echo "conformance $MODE $SPEC: harness produced no scenario summary (exit $status); see $LOG" >&2
  [[ $status != 0 ]] || status=1
else
  echo "conformance $MODE $SPEC: $total scenarios: $passed passed, $failed failed, $warned warnings only ($nochecks of the passed scored no check)$baseline_note; harness exit $status"
fi
exit "$status"
