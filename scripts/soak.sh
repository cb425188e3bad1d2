#!/usr/bin/env bash
# Soak test (not in CI): mixed load over Streamable HTTP against `everything-server --http`
# for SOAK_SECONDS (default 600), with 2025 sessions opened and abandoned, 2026 calls,
# SSE streams read or dropped mid-call, cancellations and malformed requests. The
# server's resident memory (VmRSS from /proc/<pid>/status) is sampled every second into
# SOAK_OUT (default target/soak/rss.csv). Fails if memory keeps growing: the peak of the
# last third of the run must not exceed the peak of the middle third by more than 10%
# plus 8 MiB, and the server must still answer at the end.
#
#   scripts/soak.sh                       # 10 minutes
#   SOAK_SECONDS=180 SOAK_WORKERS=8 scripts/soak.sh
#
# Abandoned sessions live until the idle timeout (30 minutes in everything-server), so
# only the first SOAK_ABANDON (default 300) sessions are abandoned; later ones are
# deleted. Traffic goes to 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${SOAK_SECONDS:-600}
workers=${SOAK_WORKERS:-6}
abandon=${SOAK_ABANDON:-300}
port=${SOAK_PORT:-$((20000 + RANDOM % 20000))}
out=${SOAK_OUT:-target/soak/rss.csv}
mkdir -p "$(dirname "$out")"

echo "== building everything-server (release)"
nice cargo build --release -q -p mcpwire-conformance --bin everything-server
bin=${CARGO_TARGET_DIR:-target}/release/everything-server

"$bin" --http "127.0.0.1:$port" 2>"$(dirname "$out")/server.log" &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    sleep 0.1
done

echo "== sampling RSS of pid $server every second into $out"
(
    echo "second,rss_kib"
    start=$(date +%s)
    while kill -0 "$server" 2>/dev/null; do
        rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$server/status" 2>/dev/null || echo 0)
        echo "$(( $(date +%s) - start )),$rss"
        sleep 1
    done
) >"$out" &
sampler=$!

echo "== load: $workers workers for ${seconds}s against 127.0.0.1:$port"
python3 - "$port" "$seconds" "$workers" "$abandon" <<'PY'
import http.client, json, random, socket, sys, threading, time

port, seconds, workers, abandon_max = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
deadline = time.time() + seconds
lock = threading.Lock()
stats = {"requests": 0, "errors": 0, "abandoned": 0, "sessions": 0, "dropped_streams": 0}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
ACCEPT = "application/json, text/event-stream"

def count(key, n=1):
    with lock:
        stats[key] += n

def post(body, headers, read=True):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    h = {"Content-Type": "application/json", "Accept": ACCEPT, "Host": "localhost"}
    h.update(headers)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn.request("POST", "/mcp", body=data, headers=h)
    resp = conn.getresponse()
    count("requests")
    if not read:
        return conn, resp
    payload = resp.read()
    conn.close()
    return resp.status, resp.getheader("mcp-session-id"), payload

def stateless_request(i, method, params):
    params = dict(params)
    params["_meta"] = META
    headers = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    name = params.get("name") or params.get("uri")
    if name:
        headers["Mcp-Name"] = name
    return {"jsonrpc": "2.0", "id": i, "method": method, "params": params}, headers

def check(status, ok=(200, 202)):
    if status not in ok:
        count("errors")

def stateless_round(rng, i):
    for method, params in [
        ("tools/call", {"name": "test_simple_text", "arguments": {}}),
        ("tools/list", {}),
        ("resources/read", {"uri": "test://static-text"}),
        ("prompts/get", {"name": "test_simple_prompt"}),
        ("server/discover", {}),
        ("tools/call", {"name": "test_tool_with_progress", "arguments": {}}),
    ]:
        body, headers = stateless_request(i, method, params)
        if method == "tools/call" and params["name"] == "test_tool_with_progress":
            body["params"]["_meta"] = dict(META, progressToken=i)
        status, _, _ = post(body, headers)
        check(status)
    # A stream closed mid-call: the cancel of 2026.
    body, headers = stateless_request(i, "tools/call", {"name": "test_tool_with_progress", "arguments": {}})
    body["params"]["_meta"] = dict(META, progressToken=i)
    conn, resp = post(body, headers, read=False)
    resp.read(1)
    conn.close()
    count("dropped_streams")
    # Malformed: not JSON, lying headers.
    status, _, _ = post(b"{not json", {"MCP-Protocol-Version": "2026-07-28"})
    check(status, (400,))
    body, headers = stateless_request(i, "tools/list", {})
    headers["Mcp-Method"] = "tools/call"
    status, _, _ = post(body, headers)
    check(status, (400,))

def session_round(rng, i):
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "soak", "version": "0"}}}
    status, sid, _ = post(init, {})
    check(status)
    if not sid:
        count("errors")
        return
    count("sessions")
    h = {"Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25"}
    status, _, _ = post({"jsonrpc": "2.0", "method": "notifications/initialized"}, h)
    check(status)
    for j in range(1, 4):
        status, _, _ = post({"jsonrpc": "2.0", "id": j, "method": "tools/call", "params": {
            "name": "test_tool_with_logging", "arguments": {}}}, h)
        check(status)
    # A call cancelled by notification, its stream dropped early.
    conn, resp = post({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": 9}}}, h, read=False)
    status, _, _ = post({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}}, h)
    check(status)
    conn.close()
    with lock:
        keep = stats["abandoned"] < abandon_max and rng.random() < 0.5
        if keep:
            stats["abandoned"] += 1
    if not keep:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("DELETE", "/mcp", headers=dict(h, Host="localhost"))
        check(conn.getresponse().status)
        count("requests")
        conn.close()

def worker(n):
    rng = random.Random(n)
    i = n * 1_000_000
    while time.time() < deadline:
        i += 1
        try:
            if rng.random() < 0.5:
                stateless_round(rng, i)
            else:
                session_round(rng, i)
        except (OSError, http.client.HTTPException):
            count("errors")

threads = [threading.Thread(target=worker, args=(n,)) for n in range(workers)]
for t in threads:
    t.start()
last = time.time()
while any(t.is_alive() for t in threads):
    time.sleep(1)
    if time.time() - last >= 30:
        last = time.time()
        with lock:
            print(f"   {int(seconds - (deadline - time.time()))}s: {stats}", flush=True)
for t in threads:
    t.join()
print(f"load done: {stats}")
# Still answering?
body, headers = stateless_request(1, "tools/list", {})
status, _, _ = post(body, headers)
print(f"final tools/list: HTTP {status}")
sys.exit(0 if status == 200 else 1)
PY
load_status=$?
sleep 2
kill "$sampler" 2>/dev/null || true

echo "== RSS (KiB), one sample every 10 s"
awk -F, 'NR > 1 && ($1 % 10 == 0) {printf "%5ss %8s\n", $1, $2}' "$out"
python3 - "$out" <<'PY'
import csv, sys
rows = [(int(r["second"]), int(r["rss_kib"])) for r in csv.DictReader(open(sys.argv[1])) if r["rss_kib"].isdigit()]
rss = [v for _, v in rows if v > 0]
if len(rss) < 9:
    print("too few samples"); sys.exit(1)
third = len(rss) // 3
middle, last = max(rss[third:2 * third]), max(rss[2 * third:])
limit = middle * 1.10 + 8 * 1024
print(f"peak RSS: first third {max(rss[:third])} KiB, middle third {middle} KiB, last third {last} KiB (limit {int(limit)} KiB)")
# The trend of the second half (least squares), for the report: near 0 when memory levels off.
half = [(t, v) for t, v in rows if v > 0][len(rss) // 2:]
n = len(half)
mt, mv = sum(t for t, _ in half) / n, sum(v for _, v in half) / n
var = sum((t - mt) ** 2 for t, _ in half)
slope = sum((t - mt) * (v - mv) for t, v in half) / var if var else 0.0
print(f"RSS start {rss[0]} KiB, max {max(rss)} KiB, end {rss[-1]} KiB; "
      f"slope over the last {half[-1][0] - half[0][0]} s: {slope * 60:.1f} KiB/min")
if last > limit:
    print("FAIL: memory keeps growing"); sys.exit(1)
print("ok: memory levels off")
PY
exit $load_status
