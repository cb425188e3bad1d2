#!/usr/bin/env python3
"""Writes echo-server's link order: the functions its stdio sessions run, hottest first.

Usage: bench/link_order.py
       bench/link_order.py --check BINARY

The kernel maps a program's code in 64 KiB windows around each page it runs
(fault-around), so a stdio session that runs 550 KiB of functions scattered over
2.6 MiB of text has most of the text resident. Listing those functions in
`crates/mcpwire-bench/link/echo-server.order` lets the linker (lld's
`--symbol-ordering-file`, passed by the crate's build.rs) place them side by side.

For each way `echo-server` is built in release (`-p mcpwire-bench`, and the whole
workspace), the script builds it into CARGO_TARGET_DIR (or target/) and runs it
under callgrind: `--stdio` for a 2025-era session and for a 2026-07-28 one
(handshake, listing, calls one at a time and 32 in flight, the errors a client
meets, end of input). Names the linker no longer finds are ignored, so a stale
list costs memory, never a failed build: run the script again after changes to
the stdio path. `--check` says how many of the listed functions BINARY
still has (compare.sh runs it and warns below 90%).
"""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates", "mcpwire-bench", "link", "echo-server.order")
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "link-order", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def call(n, text, meta=None):
    params = {"name": "echo", "arguments": {"text": text}}
    if meta:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params}


def session_2025():
    """The messages of a 2025-era session, as (message, answered) pairs."""
    yield {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "link-order", "version": "1"}}}, True
    yield {"jsonrpc": "2.0", "method": "notifications/initialized"}, False
    yield {"jsonrpc": "2.0", "id": "list", "method": "tools/list"}, True
    yield {"jsonrpc": "2.0", "id": "ping", "method": "ping"}, True
    yield {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}, False
    yield from common_errors(None)


def session_2026():
    """The messages of a 2026-07-28 session (no handshake; `_meta` on each request)."""
    yield {"jsonrpc": "2.0", "id": "d", "method": "server/discover", "params": {"_meta": META}}, True
    yield {"jsonrpc": "2.0", "id": "list", "method": "tools/list", "params": {"_meta": META}}, True
    yield {"jsonrpc": "2.0", "id": "ping", "method": "ping", "params": {"_meta": META}}, True
    yield from common_errors(META)


def common_errors(meta):
    bad = call("bad", 5, meta)
    unknown = call("unknown", "x", meta)
    unknown["params"]["name"] = "nope"
    yield bad, True
    yield unknown, True
    yield {"jsonrpc": "2.0", "id": "m", "method": "no/such/method"}, True
    yield "{not json", True


def drive(binary, messages, meta, out_file):
    """Runs one session under callgrind: the given messages, then calls, then end of input.

    `meta` is the `_meta` the calls carry (None in the 2025 era). A server that stops
    answering is killed after five minutes, which ends the readline it hangs.
    """
    cmd = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out_file}",
           binary, "--stdio"]
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
    watchdog = threading.Timer(300, child.kill)
    watchdog.start()

    def send(message):
        line = message if isinstance(message, str) else json.dumps(message)
        child.stdin.write(line.encode() + b"\n")

    for message, answered in messages:
        send(message)
        child.stdin.flush()
        if answered:
            child.stdout.readline()
    for n in range(20):
        send(call(n, "y" * 32, meta))
        child.stdin.flush()
        child.stdout.readline()
    for burst in range(10):
        for n in range(32):
            send(call(1000 + burst * 32 + n, "x" * 32, meta))
        child.stdin.flush()
        for _ in range(32):
            child.stdout.readline()
    child.stdin.close()
    child.wait()
    watchdog.cancel()
    if child.returncode != 0:
        sys.exit(f"link order: the {binary} session ended with status {child.returncode}")


def self_costs(path, binary):
    """Instructions each function of `binary` ran by itself, from a callgrind file."""
    names = {"ob": {}, "fn": {}}
    costs = collections.Counter()
    ob = fn = None
    skip_next = False
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        key, _, rest = line.partition("=")
        if key in ("ob", "cob", "fn", "cfn") and rest.startswith("("):
            m = re.match(r"\((\d+)\)(?: (.*))?", rest)
            table = names["ob" if key.endswith("ob") else "fn"]
            if m.group(2) is not None:
                table[m.group(1)] = m.group(2)
            value = table[m.group(1)]
            if key == "ob":
                ob = value
            elif key == "fn":
                fn = re.sub(r"'\d+$", "", value)
            continue
        if key == "calls":
            skip_next = True  # the next cost line is the call's inclusive cost
            continue
        if line[:1].isdigit() or line[:1] in "+-*":
            if skip_next:
                skip_next = False
                continue
            if ob == binary and fn is not None:
                parts = line.split()
                if len(parts) >= 2:
                    costs[fn] += int(parts[1])
    return costs


def text_symbols(binary):
    out = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    return {p[2] for p in (line.split() for line in out.splitlines())
            if len(p) == 3 and p[1] in "tTwW"}


# The builds whose echo-server the list serves. Cargo unifies features over the
# packages it builds, so the whole workspace builds echo-server's dependencies with
# other features than `-p mcpwire-bench` does, and that renames their symbols: each
# build has its own section. (lld keeps a name's first place and skips the names a
# binary lacks.)
BUILDS = (
    ("cargo build --release -p mcpwire-bench", ["cargo", "build", "--release", "-p", "mcpwire-bench"]),
    ("cargo build --release", ["cargo", "build", "--release"]),
)
SECTION = "# build: "


def sections():
    """The list's sections: build label -> the names listed for it."""
    found = {}
    names = None
    with open(OUT) as f:
        for line in f:
            line = line.strip()
            if line.startswith(SECTION):
                names = found.setdefault(line[len(SECTION):], [])
            elif line and not line.startswith("#") and names is not None:
                names.append(line)
    return found


def check(binary):
    """Whether `binary` still has 90% of the names of the section that fits it best."""
    symbols = text_symbols(binary)
    best = max(((sum(1 for n in names if n in symbols), len(names), label)
                for label, names in sections().items()), default=(0, 0, "none"))
    found, listed, label = best
    share = found / listed if listed else 0.0
    print(f"link order: {found} of {listed} listed functions ({label}) are in {binary} ({share:.0%})")
    if share < 0.9:
        print("link order: stale; run bench/link_order.py to write it again", file=sys.stderr)
        return 1
    return 0


# The C runtime's start-up code (crt1.o, crtbegin.o), which callgrind cannot name. It
# runs once, but unlisted it lands after the listed functions and costs a window.
START = ("_start", "deregister_tm_clones", "register_tm_clones", "__do_global_dtors_aux", "frame_dummy")


def profile(binary):
    """The functions of `binary` that its stdio sessions run, most instructions first."""
    known = text_symbols(binary)
    total = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for era, messages, meta in (("2025", session_2025(), None), ("2026", session_2026(), META)):
            path = os.path.join(tmp, f"callgrind.{era}")
            drive(binary, list(messages), meta, path)
            total.update(self_costs(path, binary))
    return [name for name in START if name in known] + [
        name for name, _ in total.most_common() if name in known and name not in START
    ]


def write(lists):
    """Writes the list: one section of names for each (build label, names)."""
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("# Written by bench/link_order.py: the functions echo-server --stdio runs,\n")
        f.write("# hottest first, for each way of building it. lld places them side by side\n")
        f.write("# (see build.rs).\n")
        for label, names in lists:
            f.write(f"{SECTION}{label}\n")
            f.write("\n".join(names) + "\n")
            print(f"{OUT}: {label}: {len(names)} functions")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        sys.exit(check(os.path.abspath(sys.argv[2])))
    if len(sys.argv) > 1:
        sys.exit(__doc__)
    # Absolute: callgrind names the binary by the path it ran from.
    target = os.path.abspath(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")))
    binary = os.path.join(target, "release", "echo-server")
    lists = []
    for label, command in BUILDS:
        subprocess.run(command, cwd=ROOT, check=True)
        lists.append((label, profile(binary)))
    write(lists)


if __name__ == "__main__":
    main()
