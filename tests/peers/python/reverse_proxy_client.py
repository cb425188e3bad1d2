#!/usr/bin/env python3
"""A Python SDK client over stdio through ``mcpwire proxy --stdio URL`` to
server-everything over Streamable HTTP (a 2025-era server, with sessions): the server's
questions (sampling, elicitation, roots) reach the stdio client and its answers go back,
progress comes through, and a call the client cancels ends and leaves the connection
usable.

Usage:
    reverse_proxy_client.py MODE MCPWIRE URL

MODE is ``legacy`` (2025-11-25: ``initialize``, real server-to-client requests on the
pipe) or ``auto`` (2026-07-28 on the pipe: the questions come as ``input_required``
rounds). MCPWIRE is the ``mcpwire`` binary. Prints one line per failure and
``ok MODE`` at the end; exit status 0 when all passed, 1 otherwise, 2 on a usage error.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

try:
    import anyio
    from mcp import Client, types
    from mcp.client.stdio import StdioServerParameters, stdio_client
except ImportError as exc:  # pragma: no cover - environment problem
    print(f"cannot import the Python MCP SDK ({exc}); run scripts/install-peers.sh", file=sys.stderr)
    sys.exit(2)

ROOT = "file:///tmp/reverse-proxy-root"
CALL_SECONDS = 30


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def run(mode: str, mcpwire: str, url: str) -> list[str]:
    failures: list[str] = []

    async def on_sample(context: Any, params: Any) -> Any:
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="sampled over the pipe"),
            model="reverse-proxy-test",
            stop_reason="endTurn",
        )

    async def on_elicit(context: Any, params: Any) -> Any:
        return types.ElicitResult(action="accept", content={"name": "Ada"})

    async def on_roots(context: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(uri=ROOT, name="reverse")])

    params = StdioServerParameters(command=mcpwire, args=["proxy", "--stdio", url])
    async with Client(
        stdio_client(params),
        mode=mode,
        sampling_callback=on_sample,
        elicitation_callback=on_elicit,
        list_roots_callback=on_roots,
    ) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        asks = {
            "trigger-sampling-request": ({"prompt": "hi", "maxTokens": 5}, "sampled over the pipe"),
            "trigger-elicitation-request": ({}, "Name: Ada"),
            "get-roots-list": ({}, ROOT),
        }
        for tool, (args, want) in asks.items():
            if tool not in tools:
                failures.append(f"{mode}: {tool} is not listed (the upstream did not see the capability)")
                continue
            with anyio.fail_after(CALL_SECONDS):
                got = text_of(await client.call_tool(tool, args))
            if want not in got:
                failures.append(f"{mode}: {tool} did not carry the client's answer: {got[:300]!r}")

        progress: list[float] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append(value)

        with anyio.fail_after(CALL_SECONDS):
            done = text_of(
                await client.call_tool(
                    "trigger-long-running-operation", {"duration": 1, "steps": 2}, progress_callback=on_progress
                )
            )
        if "completed" not in done or not progress:
            failures.append(f"{mode}: long operation: {done[:200]!r}, progress {progress}")

        # A call cancelled from the client side ends, and the next call goes through.
        with anyio.move_on_after(0.5) as scope:
            await client.call_tool("trigger-long-running-operation", {"duration": 5, "steps": 5})
        if not scope.cancelled_caught:
            failures.append(f"{mode}: the 5 s operation finished within 0.5 s")
        with anyio.fail_after(CALL_SECONDS):
            after = text_of(await client.call_tool("echo", {"message": "after the cancel"}))
        if after != "Echo: after the cancel":
            failures.append(f"{mode}: the call after a cancel got {after!r}")

        if mode == "legacy":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.send_ping()
    return failures


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in ("legacy", "auto"):
        print(__doc__, file=sys.stderr)
        return 2
    mode = sys.argv[1]
    failures = anyio.run(run, mode, sys.argv[2], sys.argv[3])
    for failure in failures:
        print(f"FAIL {failure}", flush=True)
    if failures:
        return 1
    print(f"ok {mode}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
