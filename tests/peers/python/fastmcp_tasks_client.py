#!/usr/bin/env python3
"""Drive mcpwire's everything-server's task tools with the PyPI ``fastmcp`` client
(``fastmcp-tasks``: the 2026-07-28 ``io.modelcontextprotocol/tasks`` extension) over stdio.

Usage:
    fastmcp_tasks_client.py SERVER_COMMAND [SERVER_ARG ...]

Checks: a task tool's result comes back through ``call_tool`` (fastmcp polls it);
a task that asks for confirmation is answered through the elicitation handler
(``tasks/update``); a task started with ``call_tool_task`` is cancelled and reads
``cancelled``; a task's tool error is reported as one. Prints ``ok``/``FAIL`` per check
and a final ``== fastmcp tasks: N checks, M failed`` line; exits 0 when all passed.
"""

from __future__ import annotations

import asyncio
import sys
import traceback

from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp_tasks import call_tool_task

failures = 0
checks = 0


def check(name: str, ok: bool, detail: str = "") -> None:
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
    print(f"{'ok' if ok else 'FAIL'} {name} {detail}", flush=True)


async def confirm(message, response_type, params, context):
    # Accept, answering every field the form asks for with `true`.
    fields = (params.requested_schema or {}).get("properties", {})
    return {name: True for name in fields}


async def main(command: list[str]) -> None:
    transport = StdioTransport(command=command[0], args=command[1:])
    async with Client(transport, elicitation_handler=confirm, timeout=60) as client:
        result = await client.call_tool("slow_compute", {"seconds": 0.5, "label": "py"})
        text = result.content[0].text
        check("task result through call_tool", text.startswith("Computed py"), text)

        result = await client.call_tool("confirm_delete", {"filename": "a.txt"})
        text = result.content[0].text
        check("task input answered through tasks/update", text == "Deleted a.txt", text)

        task = await call_tool_task(client, "slow_compute", {"seconds": 60})
        await task.cancel()
        status = await task.status()
        check("cancelled task reads cancelled", status.status == "cancelled", str(status.status))

        result = await client.call_tool("failing_job", {}, raise_on_error=False)
        check("task tool error is an error result", result.is_error, str(result.content))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        asyncio.run(main(sys.argv[1:]))
    except Exception:  # noqa: BLE001 - report any failure as a failed check
        traceback.print_exc()
        check("the run finished", False)
    print(f"== fastmcp tasks: {checks} checks, {failures} failed", flush=True)
    sys.exit(1 if failures else 0)
