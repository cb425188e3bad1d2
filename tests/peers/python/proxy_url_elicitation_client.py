#!/usr/bin/env python3
"""A Python SDK client calls server-everything's ``trigger-url-elicitation`` tool on its
error path (``errorPath: true``) through ``mcpwire proxy``: the 2025-era server answers
``-32042`` (URL elicitation required) and proceeds when the call is made again.

Usage:
    proxy_url_elicitation_client.py MODE URL

MODE is ``legacy`` (2025-11-25: the client gets the ``-32042`` error with the URL to
open, then calls again) or ``auto`` (2026-07-28, which has no ``-32042``: the URL must
come as an ``input_required`` round, which the SDK answers through its elicitation
callback and retries by itself). Prints one line per check; exit status 0 when all
passed, 1 otherwise, 2 on a usage error.
"""

from __future__ import annotations

import sys
from typing import Any

try:
    import anyio
    from mcp import Client, types
    from mcp.shared.exceptions import MCPError
except ImportError as exc:  # pragma: no cover - environment problem
    print(f"cannot import the Python MCP SDK ({exc}); run scripts/install-peers.sh", file=sys.stderr)
    sys.exit(2)

TOOL = "trigger-url-elicitation"
LINK = "https://example.com/consent"
DONE = "User completed the URL elicitation flow"


async def run(mode: str, url: str) -> list[str]:
    failures: list[str] = []
    asked: list[dict[str, Any]] = []

    def check(ok: bool, what: str, detail: Any = "") -> None:
        print(f"{'ok  ' if ok else 'FAIL'} {mode}: {what}" + ("" if ok else f": {detail}"))
        if not ok:
            failures.append(what)

    async def on_elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.model_dump(mode="json", by_alias=True, exclude_none=True))
        return types.ElicitResult(action="accept")

    args = {"url": LINK, "errorPath": True}
    async with Client(url, mode=mode, elicitation_callback=on_elicit, read_timeout_seconds=60) as client:
        if mode == "legacy":
            try:
                result = await client.call_tool(TOOL, args)
                check(False, "the first call answers -32042", result)
            except MCPError as e:
                data = e.error.data or {}
                urls = [x.get("url") for x in data.get("elicitations", [])]
                check(e.error.code == -32042 and bool(urls), "the first call answers -32042 with a URL", e.error)
        try:
            result = await client.call_tool(TOOL, args)
            text = " ".join(c.text for c in result.content if getattr(c, "type", None) == "text")
            check(not result.is_error and DONE in text, "the call goes through", text)
        except MCPError as e:
            check(False, "the call goes through", f"{e.error.code} {e.error.message}")
        if mode != "legacy":
            # First the URL of the -32042 (as a 2026 question: no elicitationId), then the
            # tool's own URL question once it goes through.
            first = asked[0] if asked else {}
            ok = first.get("mode") == "url" and first.get("url") != LINK and "elicitationId" not in first
            check(ok, "the URL of the -32042 was asked as an input request", asked)
    return failures


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("legacy", "auto"):
        print(__doc__, file=sys.stderr)
        return 2
    failures = anyio.run(run, sys.argv[1], sys.argv[2])
    print(f"ok {sys.argv[1]}" if not failures else f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
