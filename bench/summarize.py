#!/usr/bin/env python3
"""Summarize the JSON reports of bench/compare.sh into one table (Markdown).

Usage: bench/summarize.py OUT_DIR

Reads OUT_DIR/r<round>-<peer>-<scenario>-<variant>.json (scenario: stdio, sessions,
stateless2025, stateless2026; variant: 32B, 4KiB, 64KiB, 32B-progress, mix...) and
OUT_DIR/r<round>-<peer>-startup.json. Each report holds two cases: stdio sequential and
pipelined, or HTTP 1 client and CLIENTS clients. One row per case:

  case | mcpwire calls/s | rmcp calls/s | mcpwire/rmcp | bare calls/s |
  mcpwire server CPU per call / bare's | errors (mcpwire/rmcp/bare) |
  server minor page faults per call (mcpwire/bare)

Figures are medians over rounds; a ratio is the median of the per-round ratios (compare.sh
runs the peers one after the other within a round, so the two runs of a round saw the
same machine, while the medians of two peers' figures can come from different rounds).
Other peers (lean, python, typescript) get a calls/s column each. Then the memory figures
(stdio peak RSS, KiB per idle 2025 session) and spawn to first response, and the raw
per-round figures.
"""

from __future__ import annotations

import glob
import json
import os
import re
import statistics
import sys

MAIN = ["mcpwire", "rmcp", "bare"]
EXTRA = ["lean", "python", "typescript"]
SCENARIOS = ["stdio", "sessions", "stateless2025", "stateless2026"]
SCENARIO_NAMES = {
    "stdio": "stdio",
    "sessions": "HTTP 2025 sessions",
    "stateless2025": "HTTP 2025 stateless",
    "stateless2026": "HTTP 2026 stateless",
}
VARIANTS = ["32B", "4KiB", "64KiB", "32B-progress", "mix"]


def load(out: str):
    runs: dict = {}
    startup: dict = {}
    for path in sorted(glob.glob(os.path.join(out, "r*-*.json"))):
        name = os.path.basename(path)
        try:
            with open(path) as f:
                report = json.load(f)
        except (OSError, json.JSONDecodeError):
            continue
        m = re.match(r"r(\d+)-([a-z]+)-startup\.json$", name)
        if m:
            startup.setdefault(m.group(2), {})[int(m.group(1))] = report
            continue
        m = re.match(r"r(\d+)-([a-z]+)-([a-z0-9]+)-(.+)\.json$", name)
        if m:
            key = (m.group(3), m.group(4))
            runs.setdefault(key, {}).setdefault(m.group(2), {})[int(m.group(1))] = report
    return runs, startup


def order(key):
    scenario, variant = key
    s = SCENARIOS.index(scenario) if scenario in SCENARIOS else len(SCENARIOS)
    v = VARIANTS.index(variant) if variant in VARIANTS else len(VARIANTS)
    return (s, v, variant)


def cases(scenario: str, report: dict):
    """(case label, workload result) of a report, the second-level case first."""
    for r in report.get("results", []):
        w = r["workload"]
        if scenario == "stdio":
            label = "sequential" if w.startswith("sequential") else "pipelined k=" + w.split("k=")[1].split()[0]
        else:
            label = "1 client" if w.startswith("sequential") else w.split()[1].replace("c=", "") + " clients"
        yield label, r


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def paired(a: dict, b: dict):
    """The median over rounds of a[round] / b[round], over the rounds both have."""
    return med([a[k] / b[k] for k in a if k in b and a[k] is not None and b[k]])


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.{digits}f}"
    return str(v)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = sys.argv[1]
    runs, startup = load(out)
    extras = [p for p in EXTRA if any(p in by_peer for by_peer in runs.values())]
    meta = os.path.join(out, "meta.txt")
    if os.path.exists(meta):
        print("```")
        print(open(meta).read().rstrip())
        print("```\n")
    print("Medians over rounds; ratios are medians of per-round ratios. CPU ÷ bare: mcpwire's server CPU\n"
          "time per call divided by bare-echo's. `!`: the client used 90% of a core (the rate may be\n"
          "the generator's). Errors: mcpwire/rmcp/bare, summed over rounds. Page faults: the server's\n"
          "minor faults per call, medians (memory its allocator gave back and took again).\n")
    head = ["case", "mcpwire calls/s", "rmcp calls/s", "mcpwire/rmcp", "bare calls/s", "CPU/call ÷ bare", "errors",
            "page faults/call mcpwire/bare"]
    head += [f"{p} calls/s" for p in extras]
    print("| " + " | ".join(head) + " |")
    print("|---" * len(head) + "|")
    for key in sorted(runs, key=order):
        scenario, variant = key
        by_peer = runs[key]
        labels = []
        for rep in next(iter(by_peer.values())).values():
            labels = [label for label, _ in cases(scenario, rep)]
            break
        for label in labels:
            rate, cpu, errors, bound, faults = {}, {}, {}, {}, {}
            for peer, rounds in by_peer.items():
                rate[peer], cpu[peer], errors[peer], bound[peer], faults[peer] = {}, {}, 0, False, {}
                for rnd, rep in rounds.items():
                    for l, r in cases(scenario, rep):
                        if l == label:
                            rate[peer][rnd] = r["calls_per_sec"]
                            cpu[peer][rnd] = r.get("server_cpu_us_per_call")
                            faults[peer][rnd] = r.get("server_minor_faults_per_call")
                            errors[peer] += r["errors"]
                            bound[peer] |= r.get("client_bound", False)

            def cell(peer):
                if peer not in rate or not rate[peer]:
                    return "-"
                return fmt(med(rate[peer].values())) + ("!" if bound[peer] else "")

            row = [
                f"{SCENARIO_NAMES.get(scenario, scenario)} {label}, {variant.replace('-', '+')}",
                cell("mcpwire"),
                cell("rmcp"),
                fmt(paired(rate.get("mcpwire", {}), rate.get("rmcp", {}))),
                cell("bare"),
                fmt(paired(cpu.get("mcpwire", {}), cpu.get("bare", {}))),
                "/".join(str(errors[p]) if p in errors else "-" for p in MAIN),
                "/".join(fmt(med(faults.get(p, {}).values())) for p in ("mcpwire", "bare")),
            ] + [cell(p) for p in extras]
            print("| " + " | ".join(row) + " |")

    peers = MAIN + extras
    print("\n| memory and startup | " + " | ".join(peers) + " |")
    print("|---" * (len(peers) + 1) + "|")

    def figure(label, scenario, variant, get):
        by_peer = runs.get((scenario, variant), {})
        cells = [fmt(med([get(rep) for rep in by_peer.get(p, {}).values()])) for p in peers]
        print(f"| {label} | " + " | ".join(cells) + " |")

    figure("stdio server peak RSS, 32B (MiB)", "stdio", "32B",
           lambda rep: rep["server_peak_rss_kib"] / 1024 if rep.get("server_peak_rss_kib") else None)
    figure("KiB per idle 2025 session", "sessions", "32B",
           lambda rep: (rep.get("sessions") or {}).get("kib_per_session"))
    cells = [fmt(med([(rep.get("startup") or {}).get("median_ms") for rep in startup.get(p, {}).values()]))
             for p in peers]
    print("| spawn to first response (ms, median) | " + " | ".join(cells) + " |")

    print("\n## Raw per-round figures\n")
    for key in sorted(runs, key=order):
        scenario, variant = key
        for peer, rounds in sorted(runs[key].items()):
            for rnd, rep in sorted(rounds.items()):
                for label, r in cases(scenario, rep):
                    srv = r.get("server_cpu_us_per_call")
                    print(
                        f"- r{rnd} {peer} {scenario} {variant} {label} ({rep['protocol']}): "
                        f"{r['calls_per_sec']:,.0f} calls/s, p50 {r['latency']['p50_us']:.1f} us, "
                        f"p99 {r['latency']['p99_us']:.1f}, max {r['latency']['max_us']:.0f}, "
                        f"stalls {r['stalls_40ms']}, server {fmt(srv)} us/call, "
                        f"{fmt(r.get('server_minor_faults_per_call'))} faults/call, "
                        f"client {r['client_cpu_us_per_call']:.2f} us/call "
                        f"({r['client_cpu_share'] * 100:.0f}% of a core), errors {r['errors']}"
                    )
                if rep.get("sessions"):
                    s = rep["sessions"]
                    print(f"- r{rnd} {peer} sessions: {s['kib_per_session']:.2f} KiB/session "
                          f"({s['rss_before_kib']} -> {s['rss_after_kib']} KiB)")
                if rep.get("server_peak_rss_kib"):
                    print(f"- r{rnd} {peer} {scenario} {variant} server peak RSS: {rep['server_peak_rss_kib']} KiB")
                for note in rep.get("notes", []):
                    print(f"- r{rnd} {peer} {scenario} {variant} note: {note}")
    for peer, rounds in sorted(startup.items()):
        for rnd, rep in sorted(rounds.items()):
            s = rep.get("startup") or {}
            if s:
                print(f"- r{rnd} {peer} startup: median {s['median_ms']:.2f} ms, "
                      f"min {s['min_ms']:.2f}, max {s['max_ms']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
