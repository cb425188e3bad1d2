#!/usr/bin/env python3
"""A small fastmcp server for the CLI and proxy tests: a tool whose arguments are declared
in a non-alphabetical order, a tool that asks the client a question (elicitation), and a
tool that logs (fastmcp sends each log message as ``{"msg": ..., "extra": ...}``).

Usage: fastmcp_server.py   (serves MCP over stdio)
"""

from __future__ import annotations

from dataclasses import dataclass

from fastmcp import Context, FastMCP

mcp = FastMCP("fastmcp-fixture")


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
async def tidy(ctx: Context, rooms: list[str] | None = None) -> str:
    """Log two messages, one with extra fields, then answer (with the rooms, if given)."""
    await ctx.info("tidying up")
    await ctx.warning("found crumbs", extra={"count": 3, "room": "kitchen"})
    return "tidy" if rooms is None else f"tidy: {', '.join(rooms)}"


if __name__ == "__main__":
    mcp.run(show_banner=False)
