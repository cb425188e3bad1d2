#!/usr/bin/env python3
"""A small MCP server built on the official Python SDK (``mcp==2.3.0``), over stdio.

The mcpwire client's interop tests (``conformance/tests/client_interop/``) spawn it and
drive it in both protocol eras. The SDK decides the era from the first request on the
stream: ``initialize`` makes it a 2025 session (server-to-client requests are real
requests), an enveloped request such as ``server/discover`` makes it a 2026 stream
(server-to-client input becomes ``input_required`` rounds).

Usage:
    .tools/venv/bin/python tests/peers/python/server_fixture.py

What it serves (the tests assert these exact names and outputs):

Tools
    echo(text)            -> "echo: <text>"
    add(a, b)             -> structured {"sum": a+b}, text '{"sum": ...}'
    progress(steps)       -> reports progress i/steps ("step i of steps"), then "done <steps>"
    log(message)          -> logs debug/info/warning, then "logged"; on a 2025 session the
                             levels below the one `logging/setLevel` chose are filtered here
    elicit_name           -> asks a name (form elicitation) -> "Hello, <name>!"
    favourite             -> two dependent questions (name, then colour): two MRTR rounds
                             -> "<name> likes <colour>"
    sample                -> asks the client's model -> "model said: <text> (model <model>)"
    roots                 -> lists the client's roots -> "roots: <uri>, <uri>"
    slow(seconds, tag)    -> sleeps; records whether it finished or was cancelled
    was_cancelled(tag)    -> waits up to 5 s for `slow(tag)` to end, then reports
                             "cancelled", "finished", "running" or "unknown"
    crash                 -> exits the process at once with status 3 (``os._exit``)
    pid                   -> this process id
    fail                  -> raises: an isError result "boom"
    touch(uri)            -> announces notifications/resources/updated for uri
    change_tools          -> announces notifications/tools/list_changed
Resources
    fixture://static              text "static content"
    fixture://items/{id}          JSON {"id": "<id>"}
Prompt
    greet(name, style="plain")    one user message "Greet <name> in a <style> style."
Completion
    greet.style                   the styles starting with the typed prefix
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Annotated, Any

import anyio
from pydantic import BaseModel

try:
    import mcp.types as types
    from mcp.server.lowlevel.server import NotificationOptions
    from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.server.stdio import stdio_server
except ImportError as exc:  # pragma: no cover - environment problem
    print(f"cannot import the Python MCP SDK ({exc}); run scripts/install-peers.sh", file=sys.stderr)
    sys.exit(2)

# Logging and roots are deprecated in 2026-07-28 but still served; use them quietly.
warnings.simplefilter("ignore")

NAME = "python-fixture"
VERSION = "2.3.0-fixture"
STYLES = ["plain", "pirate", "poetic", "formal"]
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

server = MCPServer(NAME, version=VERSION, instructions="A fixture server for mcpwire's client tests.")

# The level a 2025 client chose with logging/setLevel (None: everything).
log_level: str | None = None
# What each `slow` call did, by tag: "running", "finished" or "cancelled".
slow_calls: dict[str, str] = {}
slow_ended: dict[str, anyio.Event] = {}


class Sum(BaseModel):
    sum: int


class NameForm(BaseModel):
    name: str


class ColourForm(BaseModel):
    colour: str


# ---- tools -----------------------------------------------------------------------------


@server.tool(description="Echoes its text")
def echo(text: str) -> str:
    return f"echo: {text}"


@server.tool(description="Adds two integers (structured output)")
def add(a: int, b: int) -> Sum:
    return Sum(sum=a + b)


@server.tool(description="Reports progress for each step")
async def progress(steps: int, ctx: Context) -> str:
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
        await anyio.sleep(0.01)
    return f"done {steps}"


@server.tool(description="Logs at debug, info and warning")
async def log(message: str, ctx: Context) -> str:
    for level in ("debug", "info", "warning"):
        # 2025 sessions: honour logging/setLevel here (the SDK sends every level).
        # 2026 requests: the SDK filters by the request's logLevel itself.
        if log_level is None or LEVELS.index(level) >= LEVELS.index(log_level):
            await ctx.log(level, f"{level}: {message}", logger_name="fixture")
    return "logged"


def ask_name() -> Elicit[NameForm]:
    return Elicit("What is your name?", NameForm)


def ask_colour(name: Annotated[NameForm, Resolve(ask_name)]) -> Elicit[ColourForm]:
    return Elicit(f"{name.name}, what is your favourite colour?", ColourForm)


def ask_model() -> Sample:
    message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Capital of France?"))
    return Sample([message], max_tokens=20)


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool(description="Asks the user's name")
async def elicit_name(name: Annotated[NameForm, Resolve(ask_name)]) -> str:
    return f"Hello, {name.name}!"


@server.tool(description="Asks a name, then a favourite colour (two rounds)")
async def favourite(
    name: Annotated[NameForm, Resolve(ask_name)],
    colour: Annotated[ColourForm, Resolve(ask_colour)],
) -> str:
    return f"{name.name} likes {colour.colour}"


@server.tool(description="Asks the client's model")
async def sample(answer: Annotated[types.CreateMessageResult, Resolve(ask_model)]) -> str:
    content = answer.content
    text = content.text if isinstance(content, types.TextContent) else repr(content)
    return f"model said: {text} (model {answer.model})"


@server.tool(description="Lists the client's roots")
async def roots(result: Annotated[types.ListRootsResult, Resolve(ask_roots)]) -> str:
    return "roots: " + ", ".join(str(r.uri) for r in result.roots)


@server.tool(description="Sleeps, recording whether it finished or was cancelled")
async def slow(seconds: float, tag: str) -> str:
    slow_calls[tag] = "running"
    slow_ended[tag] = anyio.Event()
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        slow_calls[tag] = "cancelled"
        slow_ended[tag].set()
        raise
    slow_calls[tag] = "finished"
    slow_ended[tag].set()
    return f"slept {seconds}"


@server.tool(description="How the slow call with this tag ended (waits up to 5 s)")
async def was_cancelled(tag: str) -> str:
    with anyio.move_on_after(5):
        while tag not in slow_ended:
            await anyio.sleep(0.01)
        await slow_ended[tag].wait()
    return slow_calls.get(tag, "unknown")


@server.tool(description="Kills this server process (exit status 3)")
def crash() -> str:
    print("server_fixture: crashing on purpose", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool(description="This process id")
def pid() -> int:
    return os.getpid()


@server.tool(description="Always fails")
def fail() -> str:
    raise ToolError("boom")


def stateless(ctx: Context) -> bool:
    return ctx.protocol_version == "2026-07-28"


@server.tool(description="Announces notifications/resources/updated for a URI")
async def touch(uri: str, ctx: Context) -> str:
    if stateless(ctx):
        await ctx.notify_resource_updated(uri)
    else:
        await ctx.session.send_resource_updated(uri)
    return f"touched {uri}"


@server.tool(description="Announces notifications/tools/list_changed")
async def change_tools(ctx: Context) -> str:
    if stateless(ctx):
        await ctx.notify_tools_changed()
    else:
        await ctx.session.send_tool_list_changed()
    return "tools changed"


# ---- resources, prompts, completion ---------------------------------------------------


@server.resource("fixture://static", name="static", description="A static text", mime_type="text/plain")
def static_resource() -> str:
    return "static content"


@server.resource("fixture://items/{id}", name="item", description="An item by id", mime_type="application/json")
def item(id: str) -> dict[str, Any]:
    return {"id": id}


@server.prompt(description="Greets someone")
def greet(name: str, style: str = "plain") -> str:
    return f"Greet {name} in a {style} style."


@server.completion()
async def complete(ref: Any, argument: types.CompletionArgument, context: Any) -> types.Completion | None:
    if isinstance(ref, types.PromptReference) and ref.name == "greet" and argument.name == "style":
        values = [s for s in STYLES if s.startswith(argument.value)]
        return types.Completion(values=values, total=len(values), has_more=False)
    return None


# ---- 2025-only methods the MCPServer layer does not register ---------------------------


async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    global log_level
    log_level = params.level
    return types.EmptyResult()


async def subscribe(ctx: Any, params: types.SubscribeRequestParams) -> types.EmptyResult:
    return types.EmptyResult()


async def unsubscribe(ctx: Any, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    return types.EmptyResult()


async def main() -> None:
    lowlevel = server._lowlevel_server  # noqa: SLF001 - the list_changed options live there
    lowlevel.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)
    lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, unsubscribe)
    options = lowlevel.create_initialization_options(
        NotificationOptions(tools_changed=True, prompts_changed=True, resources_changed=True)
    )
    async with stdio_server() as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, options)


if __name__ == "__main__":
    anyio.run(main)
