#!/usr/bin/env python3
"""A small fastmcp server for the CLI and proxy tests: a tool whose arguments are declared
in a non-alphabetical order, a tool that asks the client a question (elicitation), one
that asks a multi-select question (whose items fastmcp writes without a ``type``), a
tool that logs (fastmcp sends each log message as ``{"msg": ..., "extra": ...}``), one
that logs at four levels, one that reports progress, resources and a resource template,
a prompt with arguments, and completion of the prompt's and the template's arguments.
Every list comes in pages of two (``list_page_size``), so that a client must follow
``nextCursor``.

Usage: fastmcp_server.py   (serves MCP over stdio)
"""

from __future__ import annotations

from dataclasses import dataclass

from fastmcp import Context, FastMCP

mcp = FastMCP("fastmcp-fixture", list_page_size=2)

CITIES = ["Oslo", "Osaka", "Ottawa", "Paris"]


@mcp.tool
def book_table(restaurant: str, party_size: int, date: str) -> str:
    """Book a table."""
    return f"Booked {restaurant} for {party_size} on {date}"


@dataclass
class Name:
    name: str


@mcp.tool
async def greet(ctx: Context) -> str:
    """Ask for a name, then greet."""
    answer = await ctx.elicit("What is your name?", response_type=Name)
    if answer.action == "accept":
        return f"Hello, {answer.data.name}!"
    return f"No name ({answer.action})"


@mcp.tool
async def paint(ctx: Context) -> str:
    """Ask which colours (a multi-select question), then paint."""
    answer = await ctx.elicit("Which colours?", response_type=[["red", "green", "blue"]])
    if answer.action == "accept":
        return f"Painted {', '.join(answer.data)}"
    return f"No colours ({answer.action})"


@mcp.tool
async def tidy(ctx: Context, rooms: list[str] | None = None) -> str:
    """Log two messages, one with extra fields, then answer (with the rooms, if given)."""
    await ctx.info("tidying up")
    await ctx.warning("found crumbs", extra={"count": 3, "room": "kitchen"})
    return "tidy" if rooms is None else f"tidy: {', '.join(rooms)}"


@mcp.tool
async def levels(ctx: Context) -> str:
    """Log one message at each of debug, info, warning and error."""
    await ctx.debug("at debug")
    await ctx.info("at info")
    await ctx.warning("at warning")
    await ctx.error("at error")
    return "logged"


@mcp.tool
async def count(ctx: Context, steps: int = 3) -> str:
    """Report progress for each step."""
    for step in range(1, steps + 1):
        await ctx.report_progress(step, steps, f"step {step}")
    return f"counted {steps}"


def _static_resource(n: int) -> None:
    def read() -> str:
        return f"static {n}"

    mcp.resource(f"fixture://static/{n}", name=f"static-{n}")(read)


for _n in range(3):
    _static_resource(_n)


@mcp.resource("fixture://city/{name}")
def city(name: str) -> str:
    """A city by name."""
    return f"city {name}"


@mcp.prompt
def plan(city: str, days: str = "1") -> str:
    """Plan a trip."""
    return f"Plan {days} days in {city}"


@mcp.completion
def complete(ref, argument, context):
    return [c for c in CITIES if c.startswith(argument.value)]


if __name__ == "__main__":
    mcp.run(show_banner=False)
