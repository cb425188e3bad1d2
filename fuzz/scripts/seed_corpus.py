#!/usr/bin/env python3
"""Writes the small checked-in seed corpus of every fuzz target (fuzz/corpus/<target>/).

Usage: python3 fuzz/scripts/seed_corpus.py [SPEC_EXAMPLES_DIR]
The protocol_types and frame seeds take the 2026 schema examples when the folder is given
(compacted JSON); the other seeds are written out here. Re-running overwrites seed-*
files only, so entries found by fuzzing (other names) stay.
"""
import json, os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CORPUS = os.path.join(ROOT, "corpus")

def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)

def type_names():
    src = open(os.path.join(ROOT, "src", "lib.rs")).read()
    block = src[src.index("types!(") + len("types!("):]
    block = block[:block.index(");")]
    return [t.strip() for t in block.split(",") if t.strip()]

def main():
    examples = sys.argv[1] if len(sys.argv) > 1 else None
    names = type_names()
    # protocol_types: a selector byte, then JSON of that type.
    generic = {"{}": "{}"}
    for i, full in enumerate(names):
        short = full.split("::")[-1]
        wrote = False
        if examples:
            d = os.path.join(examples, short)
            if os.path.isdir(d):
                for f in sorted(os.listdir(d))[:2]:
                    value = json.load(open(os.path.join(d, f)))
                    put("protocol_types", f"{i:03}-{short}-{f}", bytes([i]) + json.dumps(value, separators=(",", ":")).encode())
                    wrote = True
        if not wrote:
            put("protocol_types", f"{i:03}-{short}-empty", bytes([i]) + b"{}")
    # frame: capacity byte, limit byte, then lines.
    frames = [
        b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
        b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}',
        b'{"jsonrpc":"2.0","id":"a","result":{}}',
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}',
        b'[{"jsonrpc":"2.0","id":1,"method":"a"},3]',
        b'{"jsonrpc":"2.0","id":{},"method":"m"}',
        b'{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}',
        b"\xff\xfe{}",
        b"[" * 200,
    ]
    if examples:
        for kind in ["CallToolRequest", "CancelledNotification", "CallToolResultResponse", "ParseError", "UnsupportedProtocolVersionError"]:
            d = os.path.join(examples, kind)
            if os.path.isdir(d):
                for f in sorted(os.listdir(d))[:1]:
                    frames.append(json.dumps(json.load(open(os.path.join(d, f))), separators=(",", ":")).encode())
    for i, f in enumerate(frames):
        put("frame", f"{i:02}", bytes([7, 200]) + f + b"\n" + f[: len(f) // 2] + b"\r\n\n" + f)
    # 2026 tools/call frames, which the one-pass reading takes (its agreement is checked).
    envelope = (b'"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
                b'"io.modelcontextprotocol/clientCapabilities":{"roots":{},"x":[1]}')
    calls = [
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{' + envelope + b'}}}',
        b'{"params":{"_meta":{' + envelope + b',"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},'
        b'"io.modelcontextprotocol/logLevel":"info"},"name":"t","requestState":"s","task":{"ttl":5}},'
        b'"method":"tools/call","id":"x","jsonrpc":"2.0"}',
    ]
    for i, f in enumerate(calls):
        put("frame", f"call-{i:02}", bytes([7, 200]) + f + b"\n" + f[: len(f) // 2] + b"\r\n\n" + f)
    # sse: limit byte, chunk byte, then a stream.
    streams = [
        b"id: s-1#0\nretry: 1000\ndata: \n\nevent: message\nid: s-1#1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
        b": keep-alive\n\ndata: a\rdata: b\r\r\ndata: c\r\n\r\nid: x\0y\ndata: d\n\n",
        b"event: endpoint\ndata: /messages?sessionId=1\n\n",
        b"data" + b"x" * 300 + b"\n\n",
        b"retry: 18446744073709551616\nretry: 5\nid\ndata\n\n",
    ]
    for i, s in enumerate(streams):
        put("sse", f"{i:02}", bytes([64, 3]) + s)
    # mcp_param: a header value, NUL, then [properties, arguments].
    params = [
        ("us-west", [{"region": {"type": "string", "x-mcp-header": "Region"}}, {"region": "us-west"}]),
        ("=?base64?5pel5pys?=", [{"n": {"type": "integer", "x-mcp-header": "Count"}}, {"n": 42}]),
        (" padded ", [{"b": {"type": "boolean", "x-mcp-header": "Flag"}, "s": {"type": "string", "x-mcp-header": "S"}}, {"b": True, "s": " lead"}]),
        ("=?base64?!!?=", [{"x": {"type": "string", "x-mcp-header": "X"}}, {"x": None}]),
        ("", [{"f": {"type": "number", "x-mcp-header": "F"}}, {"f": 1.5}]),
        ("=?base64??=", [{"u": {"type": "string", "x-mcp-header": "U"}}, {"u": "\u65e5\u672c\n"}]),
    ]
    for i, (v, rest) in enumerate(params):
        put("mcp_param", f"{i:02}", v.encode() + b"\0" + json.dumps(rest).encode())
    # uri_template: template, NUL, URI.
    templates = [
        ("test://template/{id}/data", "test://template/42/data"),
        ("file:///{+path}", "file:///a/b%20c"),
        ("http://x{/seg*}{?q,lang}{&page}", "http://x/a/b?lang=en&q=1&page=2"),
        ("s://h{.fmt}{;p,q}{#frag}", "s://h.json;q=1;p#top"),
        ("{a}{b}{c:2}", "xyzuvw"),
        ("x{", "x"),
        ("{x,y,z}", "1,2,3"),
        ("a{?x*}", "a?x=1&x=2"),
    ]
    for i, (t, u) in enumerate(templates):
        put("uri_template", f"{i:02}", t.encode() + b"\0" + u.encode())
    # http_endpoint: requests separated by 0xFF (method, flags, version, [headers], body).
    init = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}'
    call = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}'
    stateless_request = b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"region","arguments":{"region":"eu"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
    http = [
        bytes([0, 0, 0]) + init + b"\xff" + bytes([0, 0x20, 1]) + call + b"\xff" + bytes([5, 0x20, 1]) + b"\xff" + bytes([6, 0x20, 1]),
        bytes([0, 0, 4]) + stateless_request,
        bytes([0, 0x40, 0, 0]) + b"\xff" + bytes([0, 0x60, 1, 2]) + b"\xff" + bytes([0, 0x60, 1, 3]) + b"\xff" + bytes([0, 0x60, 1, 6]),
        bytes([0, 0x40, 4, 9]) + b"\xff" + bytes([0, 0x40, 4, 11]) + b"\xff" + bytes([0, 0x40, 4, 12]),
        bytes([0, 0x80, 0]) + b"mcp-session-id: nope\nlast-event-id: x#1\n\n" + call,
        bytes([0, 3, 0]) + init,
        bytes([0, 0x40, 3, 1]) + b"\xff" + bytes([0, 0x60, 3, 8]),
        bytes([0, 0, 4]) + b"{" * 1000,
    ]
    for i, h in enumerate(http):
        put("http_endpoint", f"{i:02}", h)

main()
