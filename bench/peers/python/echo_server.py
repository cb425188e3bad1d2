#!/usr/bin/env python3
"""The Python SDK peer of bench/compare.sh: one ``echo`` tool on the official SDK (``mcp``,
installed into .tools/venv by scripts/install-peers.sh).

Usage:
    echo_server.py --stdio
    echo_server.py --http HOST:PORT --mode stateless|sessions

``stateless``: ``stateless_http=True, json_response=True`` (2026-07-28 requests are served
statelessly by the SDK's modern path); ``sessions``: the defaults (2025 sessions, SSE).
"""

from __future__ import annotations

import logging
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("python-echo", log_level="WARNING")


@server.tool(description="Echoes the text back")
def echo(text: str) -> str:
    return text


def main(argv: list[str]) -> int:
    logging.getLogger().setLevel(logging.WARNING)
    if argv == ["--stdio"]:
        server.run("stdio")
        return 0
    if len(argv) == 4 and argv[0] == "--http" and argv[2] == "--mode" and argv[3] in ("stateless", "sessions"):
        host, _, port = argv[1].rpartition(":")
        stateless = argv[3] == "stateless"
        server.run(
            "streamable-http",
            host=host,
            port=int(port),
            streamable_http_path="/mcp",
            stateless_http=stateless,
            json_response=stateless,
        )
        return 0
    print("usage: echo_server.py --stdio | --http HOST:PORT --mode stateless|sessions", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
