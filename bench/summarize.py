#!/usr/bin/env python3
"""Summarize the JSON reports of bench/compare.sh into the issue's table (Markdown).

Usage: bench/summarize.py OUT_DIR

Reads OUT_DIR/r<round>-<peer>-<scenario>.json (scenario: stdio, startup, http-stateless,
http-sessions), takes the median over rounds of every figure, and prints one row per
figure: each peer's value, mcpwire's ratio to rmcp and to bare, the issue-9 target and
whether mcpwire meets it. Then the raw per-round figures.

A ratio is the median of the per-round ratios: compare.sh runs the peers one after the
other within a round, so the two runs of a round saw the same machine, while the medians
of two peers' figures can come from different rounds (a slow round of one against a fast
round of the other). Targets set as ratios are judged on these paired ratios.
"""

from __future__ import annotations

import glob
import json
import os
import re
import statistics
import sys

PEERS = ["bare", "rmcp", "python", "typescript", "mcpwire", "lean"]

# Rows whose target is judged on another binary than `echo-server`: the peak RSS of a
# stdio server is also measured on `stdio-echo` (peer "lean": stdio only, no HTTP code,
# current-thread runtime), the setup README recommends for a server that only speaks
# stdio.
SUBJECT = {"stdio-only server peak RSS, stdio-echo (MiB)": "lean"}


def load(out: str) -> dict:
    runs: dict = {}
    for path in sorted(glob.glob(os.path.join(out, "r*-*.json"))):
        m = re.match(r"r(\d+)-([a-z]+)-(.+)\.json$", os.path.basename(path))
        if not m:
            continue
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, json.JSONDecodeError):
            continue
        runs.setdefault((m.group(2), m.group(3)), []).append((int(m.group(1)), report))
    return runs


def result(report: dict, prefix: str):
    for r in report.get("results", []):
        if r["workload"].startswith(prefix):
            return r
    return None


# (label, scenario, extractor, unit, target description,
#  check(mcpwire, mcpwire/rmcp, mcpwire/bare) -> bool|None), the ratios paired by round
def figures():
    def wl(prefix, key):
        def get(rep):
            r = result(rep, prefix)
            if r is None:
                return None
            if key.startswith("latency."):
                return r["latency"][key.split(".", 1)[1]]
            return r.get(key)
        return get

    def stalls(rep):
        return sum(r.get("stalls_40ms", 0) for r in rep.get("results", []))

    return [
        ("stdio pipelined k=32 (calls/s)", "stdio", wl("pipelined", "calls_per_sec"), "",
         ">= 2x rmcp", lambda m, r, b: None if r is None else r >= 2),
        ("stdio pipelined server CPU (us/call)", "stdio", wl("pipelined", "server_cpu_us_per_call"), "",
         "<= 5 us", lambda m, r, b: m <= 5),
        ("stdio sequential p50 (us)", "stdio", wl("sequential", "latency.p50_us"), "",
         "<= 2x bare", lambda m, r, b: None if b is None else b <= 2),
        ("stdio sequential p99 (us)", "stdio", wl("sequential", "latency.p99_us"), "", "", None),
        ("HTTP stateless c=32 (req/s)", "http-stateless", wl("concurrent", "calls_per_sec"), "",
         ">= 2x rmcp", lambda m, r, b: None if r is None else r >= 2),
        ("HTTP stateless server CPU (us/req)", "http-stateless", wl("concurrent", "server_cpu_us_per_call"), "",
         "<= 15 us", lambda m, r, b: m <= 15),
        ("HTTP stateless c=32 p99 (us)", "http-stateless", wl("concurrent", "latency.p99_us"), "", "", None),
        ("HTTP sessions+SSE c=32 (req/s)", "http-sessions", wl("concurrent", "calls_per_sec"), "",
         ">= 2.5x rmcp", lambda m, r, b: None if r is None else r >= 2.5),
        ("HTTP sessions server CPU (us/req)", "http-sessions", wl("concurrent", "server_cpu_us_per_call"), "",
         "<= 17 us", lambda m, r, b: m <= 17),
        ("HTTP single client p50 (us)", "http-stateless", wl("sequential", "latency.p50_us"), "",
         "<= 1.1x bare", lambda m, r, b: None if b is None else b <= 1.1),
        ("HTTP single client p99 (us)", "http-stateless", wl("sequential", "latency.p99_us"), "",
         "<= 1.5x bare", lambda m, r, b: None if b is None else b <= 1.5),
        ("KiB per idle 2025 session", "http-sessions",
         lambda rep: (rep.get("sessions") or {}).get("kib_per_session"), "", "<= 4 KiB", lambda m, r, b: m <= 4),
        ("stdio server peak RSS (MiB)", "stdio",
         lambda rep: rep["server_peak_rss_kib"] / 1024 if rep.get("server_peak_rss_kib") else None, "",
         "<= 4 MiB", lambda m, r, b: m <= 4),
        ("stdio-only server peak RSS, stdio-echo (MiB)", "stdio",
         lambda rep: rep["server_peak_rss_kib"] / 1024 if rep.get("server_peak_rss_kib") else None, "",
         "<= 4 MiB", lambda m, r, b: m <= 4),
        ("spawn to first response (ms, median)", "startup",
         lambda rep: (rep.get("startup") or {}).get("median_ms"), "", "<= 5 ms", lambda m, r, b: m <= 5),
        ("stalls >= 40 ms (all stdio runs)", "stdio", stalls, "", "0", lambda m, r, b: m == 0),
        ("stalls >= 40 ms (HTTP stateless)", "http-stateless", stalls, "", "0", lambda m, r, b: m == 0),
        ("stalls >= 40 ms (HTTP sessions)", "http-sessions", stalls, "", "0", lambda m, r, b: m == 0),
        ("client CPU (us/call), stdio pipelined", "stdio", wl("pipelined", "client_cpu_us_per_call"), "", "", None),
        ("client CPU share, HTTP stateless c=32", "http-stateless", wl("concurrent", "client_cpu_share"), "", "", None),
        ("client CPU share, HTTP sessions c=32", "http-sessions", wl("concurrent", "client_cpu_share"), "", "", None),
    ]


def paired_ratio(a: dict, b: dict):
    """The median over rounds of a[round] / b[round], over the rounds both have."""
    ratios = [a[k] / b[k] for k in a if k in b and a[k] is not None and b[k]]
    return statistics.median(ratios) if ratios else None


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.2f}"
    return str(v)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    runs = load(out)
    peers = [p for p in PEERS if any(k[0] == p for k in runs)]
    rows = figures()
    meta = os.path.join(out, "meta.txt")
    if os.path.exists(meta):
        print("```")
        print(open(meta).read().rstrip())
        print("```\n")
    print("Median over rounds. Ratios are mcpwire / peer (lean / peer on the stdio-echo row), the median of the\n"
          "per-round ratios; targets set as ratios are judged on those.\n")
    print("| figure | " + " | ".join(peers) + " | mcpwire/rmcp | mcpwire/bare | target | met |")
    print("|---" * (len(peers) + 5) + "|")
    for label, scenario, get, _unit, target, check in rows:
        values, by_round = {}, {}
        for p in peers:
            by_round[p] = {rnd: get(rep) for rnd, rep in runs.get((p, scenario), [])}
            vals = [v for v in by_round[p].values() if v is not None]
            values[p] = statistics.median(vals) if vals else None
        subject = SUBJECT.get(label, "mcpwire")
        m = values.get(subject)
        mine = by_round.get(subject, {})
        to_rmcp = paired_ratio(mine, by_round.get("rmcp", {}))
        to_bare = paired_ratio(mine, by_round.get("bare", {}))
        met = "-"
        if check is not None and m is not None:
            verdict = check(m, to_rmcp, to_bare)
            met = "-" if verdict is None else ("yes" if verdict else "**no**")
        print(
            f"| {label} | " + " | ".join(fmt(values[p]) for p in peers)
            + f" | {fmt(to_rmcp)} | {fmt(to_bare)} | {target} | {met} |"
        )
    print("\n## Raw per-round figures\n")
    for (peer, scenario), reps in sorted(runs.items()):
        for rnd, rep in sorted(reps, key=lambda x: x[0]):
            for r in rep.get("results", []):
                srv = r.get("server_cpu_us_per_call")
                print(
                    f"- r{rnd} {peer} {scenario} {r['workload']} ({rep['protocol']}): "
                    f"{r['calls_per_sec']:,.0f} calls/s, p50 {r['latency']['p50_us']:.1f} us, "
                    f"p90 {r['latency']['p90_us']:.1f}, p99 {r['latency']['p99_us']:.1f}, "
                    f"max {r['latency']['max_us']:.0f}, stalls {r['stalls_40ms']}, "
                    f"server {fmt(srv)} us/call, client {r['client_cpu_us_per_call']:.2f} us/call "
                    f"({r['client_cpu_share'] * 100:.0f}% of a core), errors {r['errors']}"
                )
            if rep.get("startup"):
                s = rep["startup"]
                print(f"- r{rnd} {peer} startup: median {s['median_ms']:.2f} ms, min {s['min_ms']:.2f}, max {s['max_ms']:.2f}")
            if rep.get("sessions"):
                s = rep["sessions"]
                print(f"- r{rnd} {peer} sessions: {s['kib_per_session']:.2f} KiB/session ({s['rss_before_kib']} -> {s['rss_after_kib']} KiB)")
            if rep.get("server_peak_rss_kib") and scenario in ("stdio", "http-sessions", "http-stateless"):
                print(f"- r{rnd} {peer} {scenario} server peak RSS: {rep['server_peak_rss_kib']} KiB")
            for note in rep.get("notes", []):
                print(f"- r{rnd} {peer} {scenario} note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
