#!/usr/bin/env python3
"""Several Python SDK clients at once through ``mcpwire proxy`` in front of
server-everything: each answers the server's elicitation and sampling requests with
its own name, and checks that the tool result it gets back carries that name (so the
proxy took each question to the client whose call caused it).

Usage:
    proxy_relay_client.py MODE URL CLIENTS

MODE is ``legacy`` (2025-11-25: a session, real server-to-client requests) or ``auto``
(2026-07-28: the questions come back as ``input_required`` rounds). Prints one line per
check; exit status 0 when all passed, 1 otherwise, 2 on a usage error.
"""

from __future__ import annotations

import sys
from typing import Any

try:
    import anyio
    from mcp import Client, types
except ImportError as exc:  # pragma: no cover - environment problem
    print(f"cannot import the Python MCP SDK ({exc}); run scripts/install-peers.sh", file=sys.stderr)
    sys.exit(2)


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def one_client(mode: str, url: str, name: str, failures: list[str]) -> None:
    async def on_elicit(context: Any, params: Any) -> Any:
        # A little wait, so that the other clients' calls are in flight meanwhile.
        await anyio.sleep(0.3)
        return types.ElicitResult(action="accept", content={"name": name})

    async def on_sample(context: Any, params: Any) -> Any:
        await anyio.sleep(0.3)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"sampled by {name}"),
            model="relay-test",
            stop_reason="endTurn",
        )

    async with Client(url, mode=mode, elicitation_callback=on_elicit, sampling_callback=on_sample) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        for tool in ("trigger-elicitation-request", "trigger-sampling-request"):
            if tool not in tools:
                failures.append(f"{name}: {tool} is not listed (the upstream did not see the capability)")
                return
        elicited = text_of(await client.call_tool("trigger-elicitation-request", {}))
        if name not in elicited:
            failures.append(f"{name}: elicitation answer not ours: {elicited[:300]!r}")
        sampled = text_of(await client.call_tool("trigger-sampling-request", {"prompt": "hi", "maxTokens": 10}))
        if f"sampled by {name}" not in sampled:
            failures.append(f"{name}: sampling answer not ours: {sampled[:300]!r}")
        print(f"ok {name}", flush=True)


async def main(mode: str, url: str, count: int) -> int:
    failures: list[str] = []
    async with anyio.create_task_group() as group:
        for i in range(count):
            group.start_soon(one_client, mode, url, f"client-{mode}-{i}", failures)
    for failure in failures:
        print(f"FAIL {failure}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("legacy", "auto"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(anyio.run(main, sys.argv[1], sys.argv[2], int(sys.argv[3])))
