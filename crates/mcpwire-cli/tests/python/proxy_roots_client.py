#!/usr/bin/env python3
"""A Python SDK client (2025-11-25 session) through ``mcpwire proxy`` in front of
server-everything: it offers one root, which the server asks for at start-up (outside
any request: the client's first request is a listing); then it changes to two roots,
says so with ``notifications/roots/list_changed``, and checks that server-everything
(which asks for roots again when told) reports two. Prints ``ok`` and exits 0 when it does, else prints
what it saw and exits 1 (also when the SDK is missing); 2 on a usage error.

Usage:
    proxy_roots_client.py URL
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

if importlib.util.find_spec("mcp") is None:  # pragma: no cover - environment problem
    sys.exit("the Python MCP SDK is missing; run scripts/install-peers.sh")

import anyio  # noqa: E402
from mcp import Client, types  # noqa: E402


async def roots_seen(client: Any) -> str:
    """What get-roots-list reports: the roots the server holds for this client."""
    result = await client.call_tool("get-roots-list", {})
    return " ".join(block.text for block in result.content if block.type == "text")


async def main(url: str) -> int:
    roots = [types.Root(uri="file:///tmp/mcpwire-one", name="one")]
    asked = anyio.Event()

    async def list_roots(context: Any) -> types.ListRootsResult:
        asked.set()
        return types.ListRootsResult(roots=list(roots))

    async with Client(url, mode="legacy", list_roots_callback=list_roots) as client:
        await client.list_tools()
        with anyio.move_on_after(10):
            await asked.wait()
        if not asked.is_set():
            print("FAIL the server's start-up roots/list never reached the client", flush=True)
            return 1
        first = await roots_seen(client)
        if "(1 total)" not in first:
            print(f"FAIL before the change: {first[:300]!r}", flush=True)
            return 1
        roots.append(types.Root(uri="file:///tmp/mcpwire-two", name="two"))
        await client.send_roots_list_changed()
        seen = ""
        with anyio.move_on_after(20):
            while "(2 total)" not in seen:
                await anyio.sleep(0.2)
                seen = await roots_seen(client)
        if "(2 total)" not in seen or "mcpwire-two" not in seen:
            print(f"FAIL after the change: {seen[:300]!r}", flush=True)
            return 1
    print("ok", flush=True)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(anyio.run(main, sys.argv[1]))
