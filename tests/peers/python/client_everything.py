#!/usr/bin/env python3
"""Drive the mcpwire everything-server with the official Python SDK client over stdio.

Usage:
    client_everything.py MODE SERVER_COMMAND [SERVER_ARG ...]

MODE is ``legacy`` (the 2025-11-25 era: ``initialize`` handshake, real
server-to-client requests) or ``auto`` (the 2026-07-28 stateless era, reached by
``server/discover``; server-to-client input travels as ``input_required`` results
that the client's multi-round-trip loop answers).

Example:
    .tools/venv/bin/python tests/peers/python/client_everything.py legacy target/debug/everything-server --stdio

Set MCPWIRE_INTEROP_TRACE=FILE to write the main connection's JSON-RPC messages to FILE
(one JSON object a line). Every check runs, and its outcome is printed (``ok`` / ``FAIL``). The exit status is 0
when every check passed, 1 when one failed, 2 on a usage error. Needs ``mcp`` 2.x
(``scripts/install-peers.sh`` installs it into ``.tools/venv``).

The fixtures and their exact outputs are described in section 4 of
``conformance/README.md`` and in ``conformance/src/everything.rs``. Besides what the
Python client reports, a tap on the stdio transport records every JSON-RPC message,
so wire-level facts (no late response after a cancel, no server-to-client request in
the 2026 era, ``resultType`` on every 2026 result, ...) are checked too.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

try:
    import mcp.types as types
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.shared.exceptions import MCPError
except ImportError as exc:  # pragma: no cover - environment problem
    print(f"cannot import the Python MCP SDK ({exc}); run scripts/install-peers.sh", file=sys.stderr)
    sys.exit(2)

# Deprecated-but-still-served features (logging/setLevel, ping, roots, subscribe) are
# exercised on purpose.
warnings.simplefilter("ignore")

# --------------------------------------------------------------------------------------
# Fixture constants (conformance/README.md section 4.1)
# --------------------------------------------------------------------------------------

SERVER_NAME = "mcp-conformance-test-server"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
LEGACY_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"

# JSON_SCHEMA_2020_12_FIXTURE from the conformance suite
# (src/scenarios/server/json-schema-2020-12.ts); must be listed verbatim.
JSON_SCHEMA_2020_12_FIXTURE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}

X_MCP_HEADER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
    "required": ["region"],
}

NO_ARG_TOOLS = [
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_error_handling",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_reconnection",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_missing_capability",
    "test_trigger_tool_change",
    "test_trigger_prompt_change",
]
MRTR_TOOLS = [
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_tampered_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_capabilities",
]
ARG_TOOLS = ["test_sampling", "test_elicitation", "json_schema_2020_12_tool", "test_x_mcp_header"]
ALL_TOOLS = NO_ARG_TOOLS + MRTR_TOOLS + ARG_TOOLS

FIXTURE_PROMPTS = {
    "test_simple_prompt": [],
    "test_prompt_with_arguments": ["arg1", "arg2"],
    "test_prompt_with_embedded_resource": ["resourceUri"],
    "test_prompt_with_image": [],
    "test_input_required_result_prompt": [],
}

# What the simulated user and model answer.
ROOTS = [("file:///tmp/mcpwire-interop/a", "a"), ("file:///tmp/mcpwire-interop/b", "b")]
SAMPLING_REPLIES = {
    "What is the capital of France?": "Paris",
    "Generate a greeting": "Hello from Python",
}
SEP1034_ANSWER = {"name": "Grace Hopper", "age": 41, "score": 88.25, "status": "pending", "verified": False}
SEP1330_ANSWER = {
    "untitledSingle": "option2",
    "titledSingle": "value3",
    "legacyEnum": "opt1",
    "untitledMulti": ["option1", "option3"],
    "titledMulti": ["value2"],
}


# --------------------------------------------------------------------------------------
# Check bookkeeping
# --------------------------------------------------------------------------------------


class Checks:
    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.passed = 0
        self.failures: list[str] = []
        self.section = ""

    def check(self, cond: bool, what: str, detail: Any = None) -> bool:
        if cond:
            self.passed += 1
            print(f"  ok   {what}")
        else:
            message = f"[{self.section}] {what}"
            if detail is not None:
                message += f"\n         got: {_short(detail)}"
            self.failures.append(message)
            print(f"  FAIL {what}" + (f"\n         got: {_short(detail)}" if detail is not None else ""))
        return cond

    def eq(self, got: Any, want: Any, what: str) -> bool:
        if got == want:
            return self.check(True, what)
        return self.check(False, what, f"{_short(got)}\n         want: {_short(want)}")

    def fail(self, what: str, detail: Any = None) -> None:
        self.check(False, what, detail)

    async def section_run(self, name: str, body: Callable[[], Awaitable[None]]) -> None:
        self.section = name
        print(f"-- {name}")
        try:
            with anyio.fail_after(30):
                await body()
        except Exception as exc:  # a section that blows up is one failure, the others still run
            tb = traceback.format_exc()
            self.fail(f"section raised {type(exc).__name__}: {_exc_text(exc)}", tb)


def _short(value: Any, limit: int = 1200) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + " ..."


def _exc_text(exc: BaseException) -> str:
    if isinstance(exc, MCPError):
        return f"MCPError(code={exc.code}, message={exc.message!r}, data={exc.data!r})"
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_exc_text(e) for e in exc.exceptions)
    return f"{exc!r}"


def dump(model: Any) -> Any:
    if hasattr(model, "model_dump"):
        return model.model_dump(by_alias=True, mode="json", exclude_none=True)
    return model


def texts(result: Any) -> list[str]:
    return [c.text for c in result.content if getattr(c, "type", None) == "text"]


def only_text(result: Any) -> str | None:
    content = result.content
    if len(content) == 1 and getattr(content[0], "type", None) == "text":
        return content[0].text
    return None


def json_after(text: str | None, prefix: str) -> Any:
    """The JSON value that follows `prefix` in `text`, or a marker string when absent."""
    if text is None or not text.startswith(prefix):
        return f"<no {prefix!r} prefix in {text!r}>"
    try:
        return json.loads(text[len(prefix) :])
    except ValueError:
        return f"<not JSON after the prefix: {text[len(prefix):]!r}>"


_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64URL = _B64[:62] + "-_"


def mutate(state: str, index: int) -> str:
    """`state` with the character at `index` changed so that the bytes change whatever the
    encoding: a base64 character gets its top bit flipped (a significant bit even in the
    last character), anything else becomes another character."""
    ch = state[index]
    for alphabet in (_B64, _B64URL):
        if ch in alphabet:
            new = alphabet[(alphabet.index(ch) + 32) % 64]
            break
    else:
        new = "x" if ch != "x" else "y"
    return state[:index] + new + state[index + 1 :]


async def eventually(predicate: Callable[[], bool], timeout: float = 3.0) -> None:
    """Wait until `predicate()` holds (notifications may be delivered just after the result), at most `timeout`."""
    with anyio.move_on_after(timeout):
        while not predicate():
            await anyio.sleep(0.02)


async def expect_error(awaitable: Awaitable[Any]) -> MCPError | str:
    """The MCPError the awaitable raised, or a description of what happened instead."""
    try:
        result = await awaitable
    except MCPError as exc:
        return exc
    except Exception as exc:
        return f"raised {type(exc).__name__}: {_exc_text(exc)} instead of an MCPError"
    return f"succeeded with {_short(dump(result))}"


# --------------------------------------------------------------------------------------
# A tap on the stdio transport: every JSON-RPC message in both directions
# --------------------------------------------------------------------------------------


class Tap:
    def __init__(self) -> None:
        self.messages: list[tuple[str, dict[str, Any]]] = []  # ("in" | "out", message)

    def mark(self) -> int:
        return len(self.messages)

    def record(self, direction: str, item: Any) -> None:
        message = getattr(item, "message", None)
        if message is not None:
            self.messages.append((direction, dump(message)))

    def since(self, mark: int, direction: str | None = None) -> list[dict[str, Any]]:
        return [m for d, m in self.messages[mark:] if direction is None or d == direction]

    def client_requests(self, mark: int = 0, method: str | None = None) -> list[dict[str, Any]]:
        return [
            m
            for m in self.since(mark, "out")
            if "method" in m and "id" in m and (method is None or m["method"] == method)
        ]

    def server_requests(self, mark: int = 0) -> list[dict[str, Any]]:
        return [m for m in self.since(mark, "in") if "method" in m and "id" in m]

    def server_notifications(self, mark: int = 0, method: str | None = None) -> list[dict[str, Any]]:
        return [
            m
            for m in self.since(mark, "in")
            if "method" in m and "id" not in m and (method is None or m["method"] == method)
        ]

    def responses_to(self, request_id: Any, mark: int = 0) -> list[dict[str, Any]]:
        return [m for m in self.since(mark, "in") if "method" not in m and m.get("id") == request_id]

    def exchanges(self, mark: int, method: str, name: str | None = None) -> list[tuple[dict, dict | None]]:
        """(request, response) pairs of client requests of `method` (and params.name) since mark."""
        pairs = []
        for req in self.client_requests(mark, method):
            if name is not None and (req.get("params") or {}).get("name") != name:
                continue
            responses = self.responses_to(req["id"], mark)
            pairs.append((req, responses[0] if responses else None))
        return pairs


class _TapRead:
    def __init__(self, inner: Any, tap: Tap) -> None:
        self._inner = inner
        self._tap = tap

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._tap.record("in", item)
        return item

    def __aiter__(self) -> _TapRead:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapRead:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._inner.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _TapWrite:
    def __init__(self, inner: Any, tap: Tap) -> None:
        self._inner = inner
        self._tap = tap

    async def send(self, item: Any) -> None:
        self._tap.record("out", item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapWrite:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._inner.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class TapTransport:
    """The SDK's own stdio transport, with every message recorded."""

    def __init__(self, params: StdioServerParameters, tap: Tap) -> None:
        self._cm = stdio_client(params)
        self._tap = tap

    async def __aenter__(self) -> tuple[_TapRead, _TapWrite]:
        read, write = await self._cm.__aenter__()
        return _TapRead(read, self._tap), _TapWrite(write, self._tap)

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._cm.__aexit__(*exc)


# --------------------------------------------------------------------------------------
# The simulated user / model behind the client callbacks
# --------------------------------------------------------------------------------------


class Peer:
    def __init__(self) -> None:
        self.sampling: list[dict[str, Any]] = []
        self.elicitations: list[dict[str, Any]] = []
        self.roots_calls = 0
        self.logs: list[tuple[str, Any]] = []
        # When set, the sampling callback signals `sampling_entered` and then hangs.
        self.sampling_hang = False
        self.sampling_entered = anyio.Event()

    def reset(self) -> None:
        self.sampling.clear()
        self.elicitations.clear()
        self.roots_calls = 0
        self.logs.clear()

    async def sampling_callback(self, context: Any, params: types.CreateMessageRequestParams) -> Any:
        self.sampling.append(dump(params))
        if self.sampling_hang:
            self.sampling_entered.set()
            await anyio.sleep(30)
        first = params.messages[0].content if params.messages else None
        prompt = getattr(first, "text", "")
        reply = SAMPLING_REPLIES.get(prompt, f"echo: {prompt}")
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=reply),
            model="python-interop-model",
            stop_reason="endTurn",
        )

    async def elicitation_callback(self, context: Any, params: types.ElicitRequestParams) -> Any:
        raw = dump(params)
        self.elicitations.append(raw)
        properties = set((raw.get("requestedSchema") or {}).get("properties", {}))
        if properties == {"response"}:
            content: dict[str, Any] = {"response": "hello from python"}
        elif properties == {"name"}:
            content = {"name": "Ada"}
        elif properties == {"color"}:
            content = {"color": "blue"}
        elif properties == {"ok"}:
            content = {"ok": True}
        elif properties == {"context"}:
            content = {"context": "interop-context"}
        elif properties == set(SEP1034_ANSWER):
            content = dict(SEP1034_ANSWER)
        elif properties == set(SEP1330_ANSWER):
            content = dict(SEP1330_ANSWER)
        else:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=content)

    async def list_roots_callback(self, context: Any) -> Any:
        self.roots_calls += 1
        return types.ListRootsResult(roots=[types.Root(uri=uri, name=name) for uri, name in ROOTS])

    async def logging_callback(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append((params.level, params.data))


def make_client(
    mode: str, server: StdioServerParameters, tap: Tap, peer: Peer | None, log_level: str | None = None
) -> Client:
    kwargs: dict[str, Any] = {}
    if peer is not None:
        kwargs.update(
            sampling_callback=peer.sampling_callback,
            elicitation_callback=peer.elicitation_callback,
            list_roots_callback=peer.list_roots_callback,
            logging_callback=peer.logging_callback,
        )
    if log_level is not None:
        kwargs["log_level"] = log_level
    # No response cache: every list and read must reach the server.
    return Client(TapTransport(server, tap), mode=mode, cache=None, **kwargs)


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------


class Run:
    def __init__(self, mode: str, server: StdioServerParameters) -> None:
        self.mode = mode
        self.stateless = mode != "legacy"
        self.server = server
        self.c = Checks(mode)
        self.tap = Tap()
        self.peer = Peer()
        self.client: Client = None  # type: ignore[assignment]

    # -- helpers -----------------------------------------------------------------------

    async def call(self, name: str, args: dict[str, Any] | None = None, **kw: Any) -> Any:
        self.peer.reset()
        return await self.client.call_tool(name, args or {}, **kw)

    def check_wire_mode(self, mark: int, tool: str, want_keys: list[str] | None) -> None:
        """The transport the input went over: real requests (2025) or input_required rounds (2026)."""
        c = self.c
        exchanges = self.tap.exchanges(mark, "tools/call", tool)
        server_requests = self.tap.server_requests(mark)
        if self.stateless:
            c.eq([r["method"] for r in server_requests], [], f"{tool}: no server-to-client request on the wire (2026)")
            first = exchanges[0][1] if exchanges and exchanges[0][1] else {}
            result = first.get("result", {})
            c.eq(result.get("resultType"), "input_required", f"{tool}: round 1 answers resultType input_required")
            if want_keys is not None:
                c.eq(sorted(result.get("inputRequests", {})), sorted(want_keys), f"{tool}: round 1 inputRequests keys")
            last = exchanges[-1][1] if exchanges and exchanges[-1][1] else {}
            c.eq(last.get("result", {}).get("resultType"), "complete", f"{tool}: the last round is resultType complete")
            if len(exchanges) > 1 and want_keys is not None:
                retry_params = exchanges[1][0].get("params", {})
                c.eq(sorted(retry_params.get("inputResponses", {})), sorted(want_keys), f"{tool}: round 2 carries inputResponses for those keys")
        else:
            c.eq(len(exchanges), 1, f"{tool}: a single tools/call on the wire (2025)")
            result = exchanges[0][1].get("result", {}) if exchanges and exchanges[0][1] else {}
            c.check(result.get("resultType", "complete") == "complete" and "inputRequests" not in result,
                    f"{tool}: no input_required result in the 2025 era", result)
            c.check(len(server_requests) >= 1, f"{tool}: the server asked through real server-to-client requests", server_requests)

    # -- sections ----------------------------------------------------------------------

    async def identity(self) -> None:
        c, cl, tap = self.c, self.client, self.tap
        first = tap.client_requests(0)
        first_method = first[0]["method"] if first else None
        if self.stateless:
            c.eq(first_method, "server/discover", "the first request is server/discover")
            c.eq(tap.client_requests(0, "initialize"), [], "no initialize was sent")
            c.eq(cl.protocol_version, MODERN_VERSION, "negotiated protocol version")
            discover = tap.responses_to(first[0]["id"])[0].get("result", {}) if first else {}
            c.check(MODERN_VERSION in discover.get("supportedVersions", []), "discover lists 2026-07-28 in supportedVersions", discover)
            c.eq(discover.get("resultType"), "complete", "discover carries resultType complete")
            c.check("ttlMs" in discover and "cacheScope" in discover, "discover carries ttlMs and cacheScope", discover)
            info = (discover.get("_meta") or {}).get("io.modelcontextprotocol/serverInfo") or {}
            c.eq(info.get("name"), SERVER_NAME, "discover _meta serverInfo.name")
            capabilities = discover.get("capabilities", {})
        else:
            c.eq(first_method, "initialize", "the first request is initialize")
            c.eq(cl.protocol_version, LEGACY_VERSION, "negotiated protocol version")
            init = tap.responses_to(first[0]["id"])[0].get("result", {}) if first else {}
            c.eq(init.get("protocolVersion"), LEGACY_VERSION, "initialize result protocolVersion")
            initialized = [m for m in tap.since(0, "out") if m.get("method") == "notifications/initialized"]
            c.eq(len(initialized), 1, "the client sent notifications/initialized")
            c.eq(cl.instructions, "A fixture server for the MCP conformance suite.", "instructions")
            capabilities = init.get("capabilities", {})
        c.eq(cl.server_info.name if cl.server_info else None, SERVER_NAME, "server name (client view)")
        c.check(bool(cl.server_info and cl.server_info.version), "server version is non-empty")
        c.eq(capabilities.get("tools", {}).get("listChanged"), True, "capabilities.tools.listChanged")
        c.eq(capabilities.get("prompts", {}).get("listChanged"), True, "capabilities.prompts.listChanged")
        c.eq(capabilities.get("resources", {}).get("listChanged"), True, "capabilities.resources.listChanged")
        c.eq(capabilities.get("resources", {}).get("subscribe"), True, "capabilities.resources.subscribe")
        c.check("logging" in capabilities, "capabilities.logging is declared", capabilities)
        c.check("completions" in capabilities, "capabilities.completions is declared", capabilities)

    async def list_tools(self) -> None:
        c, cl = self.c, self.client
        mark = self.tap.mark()
        tools: list[Any] = []
        cursor = None
        for _ in range(50):
            page = await cl.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        names = [t.name for t in tools]
        c.eq(len(names), len(set(names)), "tool names are unique across pages")
        c.eq(sorted(set(ALL_TOOLS) - set(names)), [], "every fixture tool is listed")
        by_name = {t.name: t for t in tools}
        wire_tools = {}
        for _, resp in self.tap.exchanges(mark, "tools/list"):
            for t in ((resp or {}).get("result") or {}).get("tools", []):
                wire_tools[t["name"]] = t
            if self.stateless:
                result = (resp or {}).get("result") or {}
                c.check(result.get("resultType") == "complete" and "ttlMs" in result and "cacheScope" in result,
                        "tools/list page carries resultType, ttlMs and cacheScope", {k: v for k, v in result.items() if k != "tools"})
        bad_desc = [n for n in ALL_TOOLS if n in by_name and not by_name[n].description]
        c.eq(bad_desc, [], "every fixture tool has a description")
        bad_schema = [n for n in ALL_TOOLS if n in wire_tools and (wire_tools[n].get("inputSchema") or {}).get("type") != "object"]
        c.eq(bad_schema, [], "every fixture tool has an object inputSchema")
        no_props = [n for n in NO_ARG_TOOLS + MRTR_TOOLS if n in wire_tools and wire_tools[n]["inputSchema"].get("properties") != {}]
        c.eq(no_props, [], "tools without arguments list {type:object, properties:{}}")
        if "json_schema_2020_12_tool" in wire_tools:
            c.eq(wire_tools["json_schema_2020_12_tool"]["inputSchema"], JSON_SCHEMA_2020_12_FIXTURE,
                 "json_schema_2020_12_tool inputSchema is verbatim on the wire")
            c.eq(by_name["json_schema_2020_12_tool"].input_schema, JSON_SCHEMA_2020_12_FIXTURE,
                 "json_schema_2020_12_tool inputSchema is verbatim in the client model")
        if "test_x_mcp_header" in wire_tools:
            c.eq(wire_tools["test_x_mcp_header"]["inputSchema"], X_MCP_HEADER_SCHEMA, "test_x_mcp_header inputSchema")
        for name, arg in [("test_sampling", "prompt"), ("test_elicitation", "message")]:
            schema = wire_tools.get(name, {}).get("inputSchema", {})
            c.check(schema.get("properties", {}).get(arg, {}).get("type") == "string" and arg in schema.get("required", []),
                    f"{name} takes a required string {arg!r}", schema)

    async def content_tools(self) -> None:
        c = self.c
        r = await self.call("test_simple_text")
        c.check(not r.is_error, "test_simple_text is not an error")
        c.eq(dump(r)["content"], [{"type": "text", "text": "This is a simple text response for testing."}], "test_simple_text content")

        r = await self.call("test_image_content")
        c.eq(dump(r)["content"], [{"type": "image", "data": PNG, "mimeType": "image/png"}], "test_image_content content")

        r = await self.call("test_audio_content")
        c.eq(dump(r)["content"], [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}], "test_audio_content content")

        r = await self.call("test_embedded_resource")
        c.eq(dump(r)["content"], [{"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}],
            "test_embedded_resource content")

        r = await self.call("test_multiple_content_types")
        c.eq(dump(r)["content"], [
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "test://mixed-content-resource", "mimeType": "application/json",
                                              "text": "{\"test\":\"data\",\"value\":123}"}},
        ], "test_multiple_content_types content (text, image, resource in order)")

        r = await self.call("test_error_handling")
        c.eq(r.is_error, True, "test_error_handling has isError true")
        c.eq(texts(r), ["This tool intentionally returns an error for testing"], "test_error_handling text")

        args = {"name": "Ada", "contactMethod": "email", "email": "ada@example.com", "address": {"street": "1 Main St", "city": "London"}}
        r = await self.call("json_schema_2020_12_tool", args)
        c.eq(json_after(only_text(r), "JSON Schema 2020-12 tool called with: "), args, "json_schema_2020_12_tool echoes its arguments")

        r = await self.call("test_x_mcp_header", {"region": "eu-west-1"})
        c.eq(only_text(r), "Region: eu-west-1", "test_x_mcp_header text")

        r = await self.call("test_reconnection")
        c.check((only_text(r) or "").startswith("Reconnection test completed successfully."), "test_reconnection text", dump(r))

        r = await self.call("test_trigger_tool_change")
        c.eq(only_text(r), "Tool list change notification sent", "test_trigger_tool_change text")
        r = await self.call("test_trigger_prompt_change")
        c.eq(only_text(r), "Prompt list change notification sent", "test_trigger_prompt_change text")

        err = await expect_error(self.call("no_such_tool"))
        c.check(isinstance(err, MCPError) and err.code == -32602, "unknown tool -> error -32602", _exc_text(err) if isinstance(err, MCPError) else err)

    async def sampling_and_elicitation(self) -> None:
        c, peer = self.c, self.peer

        mark = self.tap.mark()
        r = await self.call("test_sampling", {"prompt": "Say hi to the interop test"})
        c.eq(only_text(r), "LLM response: echo: Say hi to the interop test", "test_sampling returns the sampled text")
        c.eq(len(peer.sampling), 1, "test_sampling: the sampling callback ran once")
        if peer.sampling:
            s = peer.sampling[0]
            c.eq(s.get("messages"), [{"role": "user", "content": {"type": "text", "text": "Say hi to the interop test"}}], "test_sampling request messages")
            c.eq(s.get("maxTokens"), 100, "test_sampling request maxTokens")
        self.check_wire_mode(mark, "test_sampling", None)

        mark = self.tap.mark()
        r = await self.call("test_elicitation", {"message": "Tell me something"})
        c.eq(json_after(only_text(r), "User response: action=accept, content="), {"response": "hello from python"},
             "test_elicitation returns the action and content")
        c.eq(len(peer.elicitations), 1, "test_elicitation: the elicitation callback ran once")
        if peer.elicitations:
            e = peer.elicitations[0]
            schema = e.get("requestedSchema", {})
            c.eq(e.get("message"), "Tell me something", "test_elicitation message")
            c.eq(schema.get("type"), "object", "test_elicitation requestedSchema.type")
            c.eq(schema.get("properties", {}).get("response", {}).get("type"), "string", "test_elicitation response property is a string")
            c.eq(schema.get("required"), ["response"], "test_elicitation requestedSchema.required")
        self.check_wire_mode(mark, "test_elicitation", None)

        r = await self.call("test_elicitation_sep1034_defaults")
        c.eq(json_after(only_text(r), "Elicitation completed: action=accept, content="), SEP1034_ANSWER,
             "test_elicitation_sep1034_defaults returns the action and content")
        props = peer.elicitations[0].get("requestedSchema", {}).get("properties", {}) if peer.elicitations else {}
        want_defaults = {"name": ("string", "John Doe"), "age": ("integer", 30), "score": ("number", 95.5),
                         "status": ("string", "active"), "verified": ("boolean", True)}
        got_defaults = {k: (v.get("type"), v.get("default")) for k, v in props.items()}
        c.eq(got_defaults, want_defaults, "SEP-1034 property types and defaults")
        c.eq(props.get("status", {}).get("enum"), ["active", "inactive", "pending"], "SEP-1034 status enum")

        r = await self.call("test_elicitation_sep1330_enums")
        c.eq(json_after(only_text(r), "Elicitation completed: action=accept, content="), SEP1330_ANSWER,
             "test_elicitation_sep1330_enums returns the action and content")
        props = peer.elicitations[0].get("requestedSchema", {}).get("properties", {}) if peer.elicitations else {}
        c.eq(sorted(props), sorted(SEP1330_ANSWER), "SEP-1330 property names")
        c.eq(props.get("untitledSingle", {}).get("enum"), ["option1", "option2", "option3"], "SEP-1330 untitledSingle enum")
        c.eq([o.get("const") for o in props.get("titledSingle", {}).get("oneOf", [])], ["value1", "value2", "value3"], "SEP-1330 titledSingle oneOf consts")
        c.check(all(o.get("title") for o in props.get("titledSingle", {}).get("oneOf", [{}])), "SEP-1330 titledSingle entries have titles", props.get("titledSingle"))
        c.eq(props.get("legacyEnum", {}).get("enum"), ["opt1", "opt2", "opt3"], "SEP-1330 legacyEnum enum")
        c.eq(len(props.get("legacyEnum", {}).get("enumNames", [])), 3, "SEP-1330 legacyEnum enumNames")
        um = props.get("untitledMulti", {})
        c.check(um.get("type") == "array" and um.get("minItems") == 1 and um.get("maxItems") == 3
                and um.get("items", {}).get("enum") == ["option1", "option2", "option3"], "SEP-1330 untitledMulti shape", um)
        tm = props.get("titledMulti", {})
        c.check(tm.get("type") == "array" and [o.get("const") for o in tm.get("items", {}).get("anyOf", [])] == ["value1", "value2", "value3"],
                "SEP-1330 titledMulti shape", tm)

    async def logging_and_progress(self) -> None:
        c, peer, tap = self.c, self.peer, self.tap
        want_logs = [("info", "Tool execution started"), ("info", "Tool processing data"), ("info", "Tool execution completed")]

        mark = tap.mark()
        r = await self.call("test_tool_with_logging")
        c.eq(only_text(r), "Tool with logging executed successfully", "test_tool_with_logging text")
        if self.stateless:
            await anyio.sleep(0.2)  # give stray messages a chance to show up
        else:
            await eventually(lambda: len(peer.logs) >= 3)
        wire_logs = tap.server_notifications(mark, "notifications/message")
        if self.stateless:
            c.eq(peer.logs, [], "2026 without log_level: the logging callback got nothing")
            c.eq(wire_logs, [], "2026 without log_level: no notifications/message on the wire")
        else:
            c.eq(peer.logs, want_logs, "2025: three info log messages, in order, through logging_callback")
            call_id = tap.exchanges(mark, "tools/call", "test_tool_with_logging")[0][0]["id"]
            order = [m.get("method") or ("response" if m.get("id") == call_id else None) for m in tap.since(mark, "in")]
            c.eq([o for o in order if o in ("notifications/message", "response")],
                 ["notifications/message"] * 3 + ["response"], "2025: the log notifications precede the tool result")
            # logging/setLevel filters: nothing below warning arrives, then debug lets info through again.
            res = await self.client.set_logging_level("warning")
            c.eq(dump(res), {}, "logging/setLevel returns {}")
            await self.call("test_tool_with_logging")
            await anyio.sleep(0.1)
            c.eq(peer.logs, [], "2025: after setLevel(warning) no info message arrives")
            await self.client.set_logging_level("debug")
            await self.call("test_tool_with_logging")
            await eventually(lambda: len(peer.logs) >= 3)
            c.eq(peer.logs, want_logs, "2025: after setLevel(debug) the info messages arrive again")

        for attempt in (1, 2):
            progress: list[tuple[float, float | None, str | None]] = []

            async def on_progress(p: float, total: float | None, message: str | None) -> None:
                progress.append((p, total, message))

            mark = tap.mark()
            r = await self.call("test_tool_with_progress", progress_callback=on_progress)
            await eventually(lambda: len(progress) >= 3)
            c.eq([(p, t) for p, t, _ in progress], [(0, 100), (50, 100), (100, 100)], f"progress call {attempt}: the callback got 0, 50, 100 of 100")
            req = tap.client_requests(mark, "tools/call")
            token = ((req[0].get("params") or {}).get("_meta") or {}).get("progressToken") if req else None
            c.check(token is not None, f"progress call {attempt}: the request carried a progressToken", req)
            c.eq(only_text(r), str(token), f"progress call {attempt}: the tool returns the progress token")
            wire = tap.server_notifications(mark, "notifications/progress")
            c.check(all((n.get("params") or {}).get("progressToken") == token for n in wire) and len(wire) == 3,
                    f"progress call {attempt}: three notifications/progress with that token on the wire", wire)

    async def stateless_log_levels(self) -> None:
        """2026: log messages flow only when the request opts in with a logLevel."""
        c = self.c
        want_logs = [("info", "Tool execution started"), ("info", "Tool processing data"), ("info", "Tool execution completed")]
        for level, want in (("info", want_logs), ("debug", want_logs), ("warning", [])):
            tap, peer = Tap(), Peer()
            async with make_client(self.mode, self.server, tap, peer, log_level=level) as cl:
                r = await cl.call_tool("test_tool_with_logging", {})
                if want:
                    await eventually(lambda: len(peer.logs) >= len(want))
                else:
                    await anyio.sleep(0.2)
                c.eq(only_text(r), "Tool with logging executed successfully", f"log_level={level}: tool text")
                req = tap.client_requests(0, "tools/call")
                meta = ((req[0].get("params") or {}).get("_meta") or {}) if req else {}
                c.eq(meta.get("io.modelcontextprotocol/logLevel"), level, f"log_level={level}: the request carries the logLevel opt-in")
                c.eq(peer.logs, want, f"log_level={level}: logging callback got {len(want)} info messages in order")

    async def mrtr_tools(self) -> None:
        c, peer = self.c, self.peer
        root_count = len(ROOTS)
        cases = [
            ("test_input_required_result_elicitation", "Hello, Ada!", ["user_name"]),
            ("test_input_required_result_sampling", "Sampling result: Paris", ["capital_question"]),
            ("test_input_required_result_list_roots", f"Found {root_count} root(s)", ["client_roots"]),
            ("test_input_required_result_request_state", "state-ok: requestState validated (ok=true)", ["confirm"]),
            ("test_input_required_result_tampered_state", "state-ok: integrity verified", ["confirm"]),
            ("test_input_required_result_multiple_inputs", f"Name: Ada; Greeting: Hello from Python; Roots: {root_count}",
             ["user_name", "greeting", "client_roots"]),
            ("test_input_required_result_multi_round", "Multi-round complete for Ada who likes blue", ["step1"]),
            ("test_input_required_result_capabilities", "capabilities-ok: elicitation, sampling, roots",
             ["user_name", "capital_question", "client_roots"]),
        ]
        for name, want, keys in cases:
            mark = self.tap.mark()
            r = await self.call(name)
            c.eq(only_text(r), want, f"{name} text")
            self.check_wire_mode(mark, name, keys)
            if name == "test_input_required_result_sampling" and peer.sampling:
                s = peer.sampling[0]
                c.check(s.get("maxTokens") == 100 and s["messages"][0]["content"]["text"] == "What is the capital of France?",
                        f"{name}: the sampling request", s)
            if name == "test_input_required_result_multiple_inputs":
                c.eq((len(peer.elicitations), len(peer.sampling), peer.roots_calls), (1, 1, 1),
                     f"{name}: one elicitation, one sampling, one roots request")
                greet = [s for s in peer.sampling if s["messages"][0]["content"]["text"] == "Generate a greeting"]
                c.check(len(greet) == 1 and greet[0].get("maxTokens") == 50, f"{name}: the greeting sampling request (maxTokens 50)", peer.sampling)
            if name == "test_input_required_result_multi_round":
                c.eq([e.get("message") for e in peer.elicitations],
                     ["Step 1: What is your name?", "Step 2: What is your favorite color?"], f"{name}: two elicitations in order")
                if self.stateless:
                    ex = self.tap.exchanges(mark, "tools/call", name)
                    c.eq(len(ex), 3, f"{name}: three rounds on the wire")
                    if len(ex) == 3:
                        r2 = (ex[1][1] or {}).get("result", {})
                        c.eq(sorted(r2.get("inputRequests", {})), ["step2"], f"{name}: round 2 asks step2")
                        s1 = (ex[0][1] or {}).get("result", {}).get("requestState")
                        s2 = r2.get("requestState")
                        c.check(s1 is not None and s2 is not None and s1 != s2, f"{name}: the requestState evolves between rounds", [s1, s2])
                        c.eq(ex[2][0]["params"].get("requestState"), s2, f"{name}: round 3 echoes round 2's requestState")
            if name == "test_input_required_result_request_state" and self.stateless:
                ex = self.tap.exchanges(mark, "tools/call", name)
                state = (ex[0][1] or {}).get("result", {}).get("requestState") if ex else None
                c.check(isinstance(state, str) and state != "", f"{name}: round 1 carries a requestState", state)
                c.check(len(ex) > 1 and ex[1][0]["params"].get("requestState") == state, f"{name}: the retry echoes it")

        if self.stateless:
            await self.mrtr_manual()

        # The prompt with an input round (2026: input_required; 2025: a real elicitation).
        mark = self.tap.mark()
        peer.reset()
        p = await self.client.get_prompt("test_input_required_result_prompt", {})
        c.eq(dump(p)["messages"], [{"role": "user", "content": {"type": "text", "text": "Prompt with context: interop-context"}}],
             "test_input_required_result_prompt result")
        c.eq(len(peer.elicitations), 1, "test_input_required_result_prompt: one elicitation")
        ex = self.tap.exchanges(mark, "prompts/get")
        if self.stateless:
            first = (ex[0][1] or {}).get("result", {}) if ex else {}
            c.eq(first.get("resultType"), "input_required", "test_input_required_result_prompt: round 1 is input_required")
            c.eq(sorted(first.get("inputRequests", {})), ["user_context"], "test_input_required_result_prompt: key user_context")
            c.eq(self.tap.server_requests(mark), [], "test_input_required_result_prompt: no server-to-client request")
        else:
            c.eq(len(ex), 1, "test_input_required_result_prompt: one prompts/get (2025)")
            c.eq([m["method"] for m in self.tap.server_requests(mark)], ["elicitation/create"], "test_input_required_result_prompt: a real elicitation/create (2025)")

    async def mrtr_manual(self) -> None:
        """2026: drive the input_required loop by hand: wrong keys, extra keys, tampered state."""
        c, session = self.c, self.client.session
        accept_name = types.ElicitResult(action="accept", content={"name": "Lin"})

        first = await session.call_tool("test_input_required_result_elicitation", {}, allow_input_required=True)
        c.check(isinstance(first, types.InputRequiredResult), "manual: round 1 is an InputRequiredResult", dump(first))
        wrong = await session.call_tool("test_input_required_result_elicitation", {}, allow_input_required=True,
                                         input_responses={"not_user_name": accept_name})
        c.check(isinstance(wrong, types.InputRequiredResult), "manual: a wrong key brings a new input_required", dump(wrong))
        extra = await session.call_tool("test_input_required_result_elicitation", {}, allow_input_required=True,
                                         input_responses={"user_name": accept_name, "unrelated": accept_name},
                                         request_state=getattr(first, "request_state", None))
        c.eq(only_text(extra) if isinstance(extra, types.CallToolResult) else dump(extra), "Hello, Lin!", "manual: extra keys are ignored")

        first = await session.call_tool("test_input_required_result_tampered_state", {}, allow_input_required=True)
        state = getattr(first, "request_state", None)
        c.check(isinstance(first, types.InputRequiredResult) and isinstance(state, str) and state,
                "manual: tampered_state round 1 carries a requestState", dump(first))
        confirm = {"confirm": types.ElicitResult(action="accept", content={"ok": True})}
        if isinstance(state, str) and state:
            for where, index in (("last", len(state) - 1), ("middle", len(state) // 2)):
                tampered = mutate(state, index)
                err = await expect_error(session.call_tool("test_input_required_result_tampered_state", {}, allow_input_required=True,
                                                           input_responses=confirm, request_state=tampered))
                c.check(isinstance(err, MCPError) and err.code == -32602,
                        f"manual: a requestState tampered at its {where} character gets error -32602", _exc_text(err) if isinstance(err, MCPError) else err)
            good = await session.call_tool("test_input_required_result_tampered_state", {}, allow_input_required=True,
                                           input_responses=confirm, request_state=state)
            c.eq(only_text(good) if isinstance(good, types.CallToolResult) else dump(good), "state-ok: integrity verified",
                 "manual: the untouched requestState is accepted")

        # A requestState must be integrity-protected (README 4.4: the equivalent of the Python
        # SDK's request_state_security): whatever byte a client changes, the server must not
        # complete the call from the altered state (an error or a fresh input_required is fine).
        name_answer = {"step1": types.ElicitResult(action="accept", content={"name": "Ada"})}
        round1 = await session.call_tool("test_input_required_result_multi_round", {}, allow_input_required=True)
        round2 = await session.call_tool("test_input_required_result_multi_round", {}, allow_input_required=True,
                                         input_responses=name_answer, request_state=getattr(round1, "request_state", None))
        state = getattr(round2, "request_state", None)
        c.check(isinstance(round2, types.InputRequiredResult) and isinstance(state, str) and state,
                "manual: multi_round round 2 carries a requestState", dump(round2))
        color = {"step2": types.ElicitResult(action="accept", content={"color": "blue"})}
        if isinstance(state, str) and state:
            for where, index in (("last", len(state) - 1), ("middle", len(state) // 2)):
                forged = mutate(state, index)
                try:
                    outcome = await session.call_tool("test_input_required_result_multi_round", {}, allow_input_required=True,
                                                      input_responses=color, request_state=forged)
                except MCPError as exc:
                    accepted, detail = False, _exc_text(exc)
                else:
                    accepted = isinstance(outcome, types.CallToolResult) and not outcome.is_error
                    detail = dump(outcome)
                c.check(not accepted, f"manual: multi_round refuses a requestState altered at its {where} character "
                        f"({state!r} -> {forged!r})", detail)

    async def resources(self) -> None:
        c, cl = self.c, self.client
        mark = self.tap.mark()
        listed = await cl.list_resources()
        by_uri = {str(r.uri): dump(r) for r in listed.resources}
        want = {
            "test://static-text": ("Static Text Resource", "text/plain"),
            "test://static-binary": ("Static Binary Resource", "image/png"),
            "test://watched-resource": ("Watched Resource", "text/plain"),
        }
        for uri, (name, mime) in want.items():
            r = by_uri.get(uri)
            c.check(r is not None and r.get("name") == name and r.get("mimeType") == mime and bool(r.get("description")),
                    f"resources/list has {uri} with name, description and mimeType", r)
        templates = await cl.list_resource_templates()
        tdump = [dump(t) for t in templates.resource_templates]
        tmpl = [t for t in tdump if t.get("uriTemplate") == "test://template/{id}/data"]
        c.check(len(tmpl) == 1 and tmpl[0].get("mimeType") == "application/json" and bool(tmpl[0].get("name")),
                "resources/templates/list has test://template/{id}/data (application/json)", tdump)
        if self.stateless:
            for req, resp in self.tap.exchanges(mark, "resources/list") + self.tap.exchanges(mark, "resources/templates/list"):
                result = (resp or {}).get("result") or {}
                c.check(result.get("resultType") == "complete" and "ttlMs" in result and "cacheScope" in result,
                        f"{req['method']} carries resultType, ttlMs and cacheScope", result)

        r = await cl.read_resource("test://static-text")
        c.eq(dump(r)["contents"], [{"uri": "test://static-text", "mimeType": "text/plain",
                                    "text": "This is the content of the static text resource."}], "read test://static-text")
        r = await cl.read_resource("test://static-binary")
        c.eq(dump(r)["contents"], [{"uri": "test://static-binary", "mimeType": "image/png", "blob": PNG}], "read test://static-binary (blob)")
        r = await cl.read_resource("test://watched-resource")
        c.eq([x.get("text") for x in dump(r)["contents"]], ["Watched resource content"], "read test://watched-resource")

        result = await expect_error(cl.read_resource("test://template/42/data"))
        if isinstance(result, str) and result.startswith("succeeded"):
            r = await cl.read_resource("test://template/42/data")
            contents = dump(r)["contents"]
            c.eq(len(contents), 1, "template read returns one content")
            if contents:
                c.eq(contents[0].get("uri"), "test://template/42/data", "template read echoes the uri")
                c.eq(contents[0].get("mimeType"), "application/json", "template read mimeType")
                try:
                    body = json.loads(contents[0].get("text", ""))
                except ValueError:
                    body = contents[0].get("text")
                c.eq(body, {"id": "42", "templateTest": True, "data": "Data for ID: 42"}, "template read text")
        else:
            c.fail("read test://template/42/data", _exc_text(result) if isinstance(result, MCPError) else result)

        err = await expect_error(cl.read_resource("test://no-such-resource"))
        want_code = -32602 if self.stateless else -32002
        got = _exc_text(err) if isinstance(err, MCPError) else err
        c.check(isinstance(err, MCPError) and err.code == want_code, f"unknown resource -> error {want_code}", got)
        c.check(isinstance(err, MCPError) and isinstance(err.data, dict) and err.data.get("uri") == "test://no-such-resource",
                "unknown resource error carries data.uri", got)

        if not self.stateless:
            res = await cl.subscribe_resource("test://watched-resource")
            c.eq(dump(res), {}, "resources/subscribe returns {} (2025)")
            res = await cl.unsubscribe_resource("test://watched-resource")
            c.eq(dump(res), {}, "resources/unsubscribe returns {} (2025)")
            res = await cl.send_ping()
            c.eq(dump(res), {}, "ping returns {} (2025)")

    async def prompts(self) -> None:
        c, cl = self.c, self.client
        listed = await cl.list_prompts()
        by_name = {p.name: dump(p) for p in listed.prompts}
        for name, args in FIXTURE_PROMPTS.items():
            p = by_name.get(name)
            got_args = [(a.get("name"), a.get("required")) for a in (p or {}).get("arguments") or []]
            c.check(p is not None and bool(p.get("description")) and got_args == [(a, True) for a in args],
                    f"prompts/list has {name} with description and required arguments {args}", p)

        p = await cl.get_prompt("test_simple_prompt")
        c.eq(dump(p)["messages"], [{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}], "get test_simple_prompt")
        p = await cl.get_prompt("test_prompt_with_arguments", {"arg1": "first", "arg2": "second"})
        c.eq(dump(p)["messages"], [{"role": "user", "content": {"type": "text",
                                                                 "text": "Prompt with arguments: arg1='first', arg2='second'"}}],
             "get test_prompt_with_arguments")
        p = await cl.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://interop/doc"})
        c.eq(dump(p)["messages"], [
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "test://interop/doc", "mimeType": "text/plain",
                                                                          "text": "Embedded resource content for testing."}}},
            {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
        ], "get test_prompt_with_embedded_resource")
        p = await cl.get_prompt("test_prompt_with_image")
        c.eq(dump(p)["messages"], [
            {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
        ], "get test_prompt_with_image")

        err = await expect_error(cl.get_prompt("test_prompt_with_arguments", {"arg1": "only-one"}))
        c.check(isinstance(err, MCPError) and err.code == -32602, "missing required prompt argument -> error -32602",
                _exc_text(err) if isinstance(err, MCPError) else err)
        err = await expect_error(cl.get_prompt("no_such_prompt"))
        c.check(isinstance(err, MCPError) and err.code == -32602, "unknown prompt -> error -32602",
                _exc_text(err) if isinstance(err, MCPError) else err)

    async def completion(self) -> None:
        c, cl = self.c, self.client
        mark = self.tap.mark()
        r = await cl.complete(types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"), {"name": "arg1", "value": "fi"})
        c.eq(r.completion.values, [], "completion/complete (prompt ref) returns no values")
        ex = self.tap.exchanges(mark, "completion/complete")
        wire = ((ex[0][1] or {}).get("result") or {}).get("completion") if ex else None
        c.eq(wire, {"values": [], "total": 0, "hasMore": False}, "completion/complete wire result")
        r = await cl.complete(types.ResourceTemplateReference(type="ref/resource", uri="test://template/{id}/data"), {"name": "id", "value": "4"})
        c.eq(r.completion.values, [], "completion/complete (resource template ref) returns no values")

    async def capabilities_gate(self) -> None:
        c = self.c
        r = await self.call("test_missing_capability")
        c.eq(only_text(r), "Success", "test_missing_capability with sampling declared -> Success")
        tap = Tap()
        async with make_client(self.mode, self.server, tap, None) as bare:
            caps = ((tap.client_requests(0)[0].get("params") or {}).get("capabilities")) if not self.stateless else None
            if caps is not None:
                c.check("sampling" not in caps, "the bare client declares no sampling capability", caps)
            err = await expect_error(bare.call_tool("test_missing_capability", {}))
            got = _exc_text(err) if isinstance(err, MCPError) else err
            # -32021 is a 2026 code; a 2025 session gets -32601 (the code 2025 gives a request
            # the client's capabilities cannot serve), with the same data.
            code = -32021 if self.stateless else -32601
            c.check(isinstance(err, MCPError) and err.code == code, f"test_missing_capability without sampling -> error {code}", got)
            c.check(isinstance(err, MCPError) and err.data == {"requiredCapabilities": {"sampling": {}}},
                    f"the {code} error carries data.requiredCapabilities {{sampling:{{}}}}", got)
            r = await bare.call_tool("test_input_required_result_capabilities", {})
            c.eq(only_text(r), "capabilities-ok: none", "test_input_required_result_capabilities with no capabilities")
            r = await bare.call_tool("test_simple_text", {})
            c.eq(only_text(r), "This is a simple text response for testing.", "the bare connection still serves calls")

    async def cancellation(self) -> None:
        c, tap = self.c, self.tap
        mark = tap.mark()
        with anyio.move_on_after(0.03) as scope:
            await self.call("test_reconnection")
        c.check(scope.cancelled_caught, "the slow call (test_reconnection, ~150 ms) was cancelled from the client side")
        req = tap.client_requests(mark, "tools/call")
        call_id = req[0]["id"] if req else None
        await anyio.sleep(0.6)  # well past the tool's 150 ms
        cancels = [m for m in tap.since(mark, "out") if m.get("method") == "notifications/cancelled"]
        c.check(any((m.get("params") or {}).get("requestId") == call_id for m in cancels),
                "the client sent notifications/cancelled for the call", cancels)
        c.check(call_id is not None, "the slow call went out on the wire", req)
        late = tap.responses_to(call_id, mark) if call_id is not None else []
        c.eq(late, [], "the server sent no (late) response for the cancelled request")
        r = await self.call("test_simple_text")
        c.eq(only_text(r), "This is a simple text response for testing.", "a call after the cancellation succeeds")

        # Cancel while the server waits on the client (2025: a pending sampling request;
        # 2026: the client is cancelled during its own callback between rounds).
        self.peer.sampling_hang = True
        self.peer.sampling_entered = anyio.Event()
        try:
            mark = tap.mark()
            with anyio.move_on_after(3) as scope:
                async with anyio.create_task_group() as tg:
                    async def run_call() -> None:
                        await self.client.call_tool("test_sampling", {"prompt": "never answered"})

                    tg.start_soon(run_call)
                    await self.peer.sampling_entered.wait()
                    tg.cancel_scope.cancel()
            c.check(not scope.cancelled_caught, "a call blocked on a sampling callback can be cancelled")
        finally:
            self.peer.sampling_hang = False
        await anyio.sleep(0.3)
        calls = tap.exchanges(mark, "tools/call", "test_sampling")
        if self.stateless:
            # Round 1 already ended with input_required; the cancelled client must not retry.
            c.eq(len(calls), 1, "2026: the cancelled client sent no retry round")
            first = (calls[0][1] or {}).get("result", {}) if calls else {}
            c.eq(first.get("resultType"), "input_required", "2026: round 1 had answered input_required")
        else:
            call_id = calls[0][0]["id"] if calls else None
            c.check(call_id is not None, "2025: the call went out on the wire", calls)
            cancels = [m for m in tap.since(mark, "out") if m.get("method") == "notifications/cancelled"]
            c.check(any((m.get("params") or {}).get("requestId") == call_id for m in cancels),
                    "2025: the client sent notifications/cancelled for the call", cancels)
            c.eq(tap.responses_to(call_id, mark) if call_id is not None else [], [],
                 "2025: no response for the call cancelled while the server awaited sampling")
            await eventually(lambda: bool(tap.server_notifications(mark, "notifications/cancelled")))
            asked = [m for m in tap.server_requests(mark) if m.get("method") == "sampling/createMessage"]
            withdrawn = [m for m in tap.server_notifications(mark, "notifications/cancelled")
                         if asked and (m.get("params") or {}).get("requestId") == asked[0]["id"]]
            c.check(len(asked) == 1 and len(withdrawn) == 1,
                    "2025: the server withdrew its pending sampling/createMessage (notifications/cancelled)", tap.since(mark, "in"))
        r = await self.call("test_simple_text")
        c.eq(only_text(r), "This is a simple text response for testing.", "a call after that cancellation succeeds")

    async def listen(self) -> None:
        """2026: subscriptions/listen over stdio gets only the change notifications it asked for."""
        c, cl = self.c, self.client
        mark = self.tap.mark()
        async with cl.listen(tools_list_changed=True) as sub:
            c.eq(sub.honored.tools_list_changed if sub.honored else None, True, "listen: the server honoured toolsListChanged")
            acks = self.tap.server_notifications(mark, "notifications/subscriptions/acknowledged")
            listen_req = self.tap.client_requests(mark, "subscriptions/listen")
            listen_id = listen_req[0]["id"] if listen_req else None
            c.check(len(acks) == 1 and ((acks[0].get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/subscriptionId") == listen_id,
                    "listen: acknowledged with subscriptionId = the request id", acks)
            r = await cl.call_tool("test_trigger_prompt_change", {})
            c.eq(only_text(r), "Prompt list change notification sent", "listen: test_trigger_prompt_change text")
            r = await cl.call_tool("test_trigger_tool_change", {})
            c.eq(only_text(r), "Tool list change notification sent", "listen: test_trigger_tool_change text")
            with anyio.fail_after(5):
                event = await sub.__anext__()
            c.eq(type(event).__name__, "ToolsListChanged", "listen: a ToolsListChanged event arrives")
            await anyio.sleep(0.1)
        changed = self.tap.server_notifications(mark, "notifications/tools/list_changed")
        c.check(len(changed) == 1 and ((changed[0].get("params") or {}).get("_meta") or {}).get("io.modelcontextprotocol/subscriptionId") == listen_id,
                "listen: one notifications/tools/list_changed carrying the subscriptionId", changed)
        c.eq(self.tap.server_notifications(mark, "notifications/prompts/list_changed"), [],
             "listen: no prompts/list_changed (not asked for)")
        r = await cl.call_tool("test_simple_text", {})
        c.eq(only_text(r), "This is a simple text response for testing.", "listen: the connection works after the stream closed")

    async def wire_invariants(self) -> None:
        """Checks over everything the main connection saw."""
        c = self.c
        msgs = self.tap.since(0, "in")
        if self.stateless:
            c.eq([m["method"] for m in self.tap.server_requests(0)], [], "2026: no server-to-client request over the whole run")
            missing = [m for m in msgs if "result" in m and m["result"].get("resultType") not in ("complete", "input_required")]
            c.eq(missing, [], "2026: every result carries resultType")
        else:
            with_rt = [m for m in msgs if "result" in m and m["result"].get("resultType") == "input_required"]
            c.eq(with_rt, [], "2025: no input_required result over the whole run")
        bad_ids = [m for m in msgs if "error" in m and m.get("id") is None]
        c.eq(bad_ids, [], "every error response keeps its request id")

    async def main(self) -> int:
        print(f"== mcpwire everything-server x Python SDK client, mode={self.mode}, server={self.server.command} {' '.join(self.server.args)}")
        try:
            with anyio.fail_after(60):
                client = make_client(self.mode, self.server, self.tap, self.peer)
                async with client:
                    self.client = client
                    await self.c.section_run("identity and capabilities", self.identity)
                    await self.c.section_run("tools/list", self.list_tools)
                    await self.c.section_run("content tools", self.content_tools)
                    await self.c.section_run("sampling and elicitation", self.sampling_and_elicitation)
                    await self.c.section_run("logging and progress", self.logging_and_progress)
                    await self.c.section_run("input-required (MRTR) tools and prompt", self.mrtr_tools)
                    await self.c.section_run("resources", self.resources)
                    await self.c.section_run("prompts", self.prompts)
                    await self.c.section_run("completion", self.completion)
                    await self.c.section_run("capability gate", self.capabilities_gate)
                    await self.c.section_run("cancellation", self.cancellation)
                    if self.stateless:
                        await self.c.section_run("subscriptions/listen", self.listen)
                    await self.c.section_run("wire invariants", self.wire_invariants)
                if self.stateless:
                    await self.c.section_run("2026 log levels", self.stateless_log_levels)
        except Exception as exc:
            self.c.fail(f"the run aborted: {type(exc).__name__}: {_exc_text(exc)}", traceback.format_exc())
        trace = os.environ.get("MCPWIRE_INTEROP_TRACE")
        if trace:
            with open(trace, "w") as f:
                for direction, message in self.tap.messages:
                    f.write(json.dumps({"dir": direction, "msg": message}, sort_keys=True) + "\n")
            print(f"(wire trace of the main connection written to {trace})")
        print()
        print(f"== mode={self.mode}: {self.c.passed} passed, {len(self.c.failures)} failed")
        for f in self.c.failures:
            print(f"FAILED {f}")
        return 0 if not self.c.failures else 1


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] not in ("legacy", "auto"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, command, args = argv[1], argv[2], argv[3:]
    server = StdioServerParameters(command=command, args=args)
    return anyio.run(Run(mode, server).main)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
