#!/usr/bin/env python3
"""A Python SDK client subscribes to a resource through ``mcpwire proxy`` in front of
server-everything (a 2025-era server over stdio), turns on that server's simulated
updates (its ``toggle-subscriber-updates`` tool), and checks that
``notifications/resources/updated`` for the resource reaches it through the proxy.

Usage:
    proxy_subscriptions_client.py MODE URL

MODE is ``legacy`` (2025-11-25: ``resources/subscribe`` on a session, the update on its
GET stream) or ``auto`` (2026-07-28: a ``subscriptions/listen`` stream naming the
resource). Prints one line per check; exit status 0 when all passed, 1 otherwise, 2 on
a usage error.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

try:
    import anyio
    from mcp import Client, types
except ImportError as exc:  # pragma: no cover - environment problem
    print(f"cannot import the Python MCP SDK ({exc}); run scripts/install-peers.sh", file=sys.stderr)
    sys.exit(2)

URI = "demo://resource/static/document/architecture.md"
WAIT_SECONDS = 15


async def legacy(url: str, failures: list[str]) -> None:
    updated = anyio.Event()

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if isinstance(root, types.ResourceUpdatedNotification) and str(root.params.uri) == URI:
            updated.set()

    async with Client(url, mode="legacy", message_handler=on_message) as client:
        caps = client.session.server_capabilities
        if caps is None:
            failures.append("legacy: no server capabilities after initialize")
        elif caps.tasks is not None:
            failures.append(f"legacy: the proxy offers tasks it cannot relay: {caps.tasks!r}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.subscribe_resource(URI)
        await client.call_tool("toggle-subscriber-updates", {})
        with anyio.move_on_after(WAIT_SECONDS):
            await updated.wait()
        if not updated.is_set():
            failures.append(f"legacy: no notifications/resources/updated for {URI} within {WAIT_SECONDS} s")
        print("ok legacy", flush=True)


async def modern(url: str, failures: list[str]) -> None:
    async with Client(url, mode="auto") as client:
        async with client.listen(resource_subscriptions=[URI]) as subscription:
            honored = subscription.honored
            if URI not in (getattr(honored, "resource_subscriptions", None) or []):
                failures.append(f"auto: the listen acknowledgement dropped the resource: {honored!r}")
            await client.call_tool("toggle-subscriber-updates", {})
            got = False
            with anyio.move_on_after(WAIT_SECONDS):
                async for event in subscription:
                    if URI in repr(event):
                        got = True
                        break
            if not got:
                failures.append(f"auto: no resource update for {URI} within {WAIT_SECONDS} s")
        print("ok auto", flush=True)


async def main(mode: str, url: str) -> int:
    failures: list[str] = []
    await (legacy if mode == "legacy" else modern)(url, failures)
    for failure in failures:
        print(f"FAIL {failure}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("legacy", "auto"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2]))
