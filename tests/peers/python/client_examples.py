#!/usr/bin/env python3
"""Drive mcpwire's example servers with the official Python SDK client over stdio.

Usage:
    client_examples.py MODE EXAMPLES_DIR

MODE is ``legacy`` (2025-11-25: ``initialize``, real server-to-client requests) or
``auto`` (2026-07-28, reached by ``server/discover``; elicitation and sampling travel as
``input_required`` results). EXAMPLES_DIR holds the built examples
(``target/debug/examples``). Prints one JSON object with what each example answered;
exits 0 when every call succeeded, 1 otherwise.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio

import mcp.types as types
from mcp import Client, StdioServerParameters


async def sampling_callback(context: Any, params: types.CreateMessageRequestParams) -> Any:
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="see the tiles"),
        model="python-example-model",
        stop_reason="endTurn",
    )


async def elicitation_callback(context: Any, params: types.ElicitRequestParams) -> Any:
    schema = params.model_dump(by_alias=True).get("requestedSchema") or {}
    answers: dict[str, Any] = {}
    for name, field in (schema.get("properties") or {}).items():
        answers[name] = 2 if field.get("type") in ("integer", "number") else "Lisbon"
    return types.ElicitResult(action="accept", content=answers)


def texts(result: Any) -> list[str]:
    return [c.text for c in result.content if getattr(c, "type", None) == "text"]


async def run(mode: str, examples: str) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def server(name: str) -> StdioServerParameters:
        return StdioServerParameters(command=os.path.join(examples, name), args=[])

    async with Client(server("tools"), mode=mode) as client:
        tools = await client.list_tools()
        forecast = await client.call_tool("forecast", {"city": "Lisbon"})
        out["tools"] = {
            "names": sorted(t.name for t in tools.tools),
            "forecast": forecast.structured_content,
            "shout": texts(await client.call_tool("shout", {"text": "hi"})),
            "shout_bangs": texts(await client.call_tool("shout", {"text": "hi", "bangs": 2})),
        }
        taught = await client.call_tool("teach", {"name": "hello", "text": "Hi there"})
        after = await client.list_tools()
        out["teach"] = {
            "answer": texts(taught),
            "names": sorted(t.name for t in after.tools),
            "hello": texts(await client.call_tool("hello", {})),
        }
    async with Client(
        server("elicitation_sampling"),
        mode=mode,
        sampling_callback=sampling_callback,
        elicitation_callback=elicitation_callback,
    ) as client:
        out["plan_trip"] = texts(await client.call_tool("plan_trip", {}))
    async with Client(server("prompts"), mode=mode) as client:
        prompts = await client.list_prompts()
        got = await client.get_prompt("commit_message", {"change": "fix the parser"})
        out["prompts"] = {
            "arguments": {p.name: sorted(a.name for a in (p.arguments or [])) for p in prompts.prompts},
            "commit_message": [m.content.text for m in got.messages],
        }
    async with Client(server("methods"), mode=mode) as client:
        await client.call_tool("add", {"name": "apples", "quantity": 2})
        added = await client.call_tool("add", {"name": "bread"})
        listed = await client.read_resource("shopping://list")
        out["methods"] = {
            "added": added.structured_content,
            "list": [c.text for c in listed.contents],
        }
    async with Client(server("resources"), mode=mode) as client:
        read = await client.read_resource("books://rust/ownership")
        out["resources"] = [c.text for c in read.contents]
    return out


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("legacy", "auto"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        print(json.dumps(anyio.run(run, sys.argv[1], sys.argv[2])))
    except Exception as exc:  # noqa: BLE001 - report any failure as the test's output
        print(f"FAIL: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
