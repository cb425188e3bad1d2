#!/usr/bin/env bash
# Fuzzes mcpwire for a bounded time: every cargo-fuzz target in fuzz/ for FUZZ_SECONDS
# (default 60) each, then the replay harness (the same target functions over the corpus
# plus deterministic mutations, no libFuzzer). Not part of CI (it is slow); exits non-zero
# when any target crashes.
#
#   scripts/fuzz.sh                    # all targets, 60 s each
#   FUZZ_SECONDS=600 scripts/fuzz.sh frame sse
#   FUZZ_JOBS=2 scripts/fuzz.sh         # libFuzzer workers per target (default 1)
#   FUZZ_REPLAY_PROFILE=debug scripts/fuzz.sh   # replay harness in a debug build
#
# Works on stable Rust: cargo-fuzz runs with `--sanitizer none` (AddressSanitizer needs
# nightly's -Zsanitizer; the code under test is #![forbid(unsafe_code)], so ASan would add
# little). With a nightly toolchain, FUZZ_SANITIZER=address uses it.
#
# Crashes land in fuzz/artifacts/<target>/; the growing corpus in fuzz/corpus-work/<target>/
# (seeded from the small checked-in fuzz/corpus/<target>/; copy interesting finds back).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
sanitizer=${FUZZ_SANITIZER:-none}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target/fuzz}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(frame protocol_types sse mcp_param uri_template http_endpoint)
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz from crates.io"
    cargo install cargo-fuzz --locked
fi

toolchain=()
if [ "$sanitizer" = none ]; then
    toolchain=(env RUSTUP_TOOLCHAIN="${RUSTUP_TOOLCHAIN:-stable}")
fi

cd fuzz
echo "== building ${targets[*]} (sanitizer: $sanitizer)"
"${toolchain[@]}" nice cargo fuzz build --sanitizer "$sanitizer" --target-dir "$CARGO_TARGET_DIR" "${targets[@]:0:1}" >/dev/null
for t in "${targets[@]}"; do
    "${toolchain[@]}" nice cargo fuzz build --sanitizer "$sanitizer" --target-dir "$CARGO_TARGET_DIR" "$t" >/dev/null
done

failed=()
summary=()
for t in "${targets[@]}"; do
    mkdir -p "corpus-work/$t" "artifacts/$t"
    log=$(mktemp)
    echo "== fuzzing $t for ${seconds}s"
    set +e
    "${toolchain[@]}" nice cargo fuzz run --sanitizer "$sanitizer" --target-dir "$CARGO_TARGET_DIR" "$t" \
        "corpus-work/$t" "corpus/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=20 \
        -jobs="$jobs" -workers="$jobs" -print_final_stats=1 >"$log" 2>&1
    status=$?
    set -e
    # With -jobs, libFuzzer's own output is in fuzz-N.log (and echoed to the main log).
    logs=("$log")
    if compgen -G 'fuzz-*.log' >/dev/null; then logs=(fuzz-*.log); fi
    runs=$(cat "${logs[@]}" | grep -oE 'Done [0-9]+ runs' | awk '{s += $2} END {print s + 0}' || true)
    if [ $status -ne 0 ]; then
        failed+=("$t")
        echo "!! $t crashed (exit $status); the last lines of its log:"
        cat "$log" fuzz-*.log 2>/dev/null | grep -vE '^\s+([0-9]+: |at )' | tail -25 || true
        summary+=("$t: CRASH after $runs runs (see fuzz/artifacts/$t/)")
    else
        summary+=("$t: $runs runs, no crash, corpus $(ls "corpus-work/$t" | wc -l) entries")
    fi
    rm -f "$log" fuzz-*.log
done

echo "== replay harness (corpus + deterministic mutations, no libFuzzer)"
# FUZZ_REPLAY_PROFILE=debug builds it in the workspace's own target/ (fuzz/Cargo.lock pins
# the same versions, so the workspace's debug dependencies are reused): far less to
# build on a busy machine than a fresh release tree, slower to run.
replay_profile=(--release)
replay_target=${CARGO_TARGET_DIR}-replay
if [ "${FUZZ_REPLAY_PROFILE:-release}" = debug ]; then
    replay_profile=()
    replay_target=$root/target
fi
if CARGO_TARGET_DIR=$replay_target FUZZ_REPLAY_ITERS=${FUZZ_REPLAY_ITERS:-20000} \
    nice cargo test "${replay_profile[@]}" --no-default-features -q 2>&1 | tail -5; then
    summary+=("replay: ok (${FUZZ_REPLAY_ITERS:-20000} mutations per target)")
else
    failed+=("replay")
    summary+=("replay: FAILED")
fi

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -ne 0 ]; then
    echo "crashed: ${failed[*]}"
    exit 1
fi
