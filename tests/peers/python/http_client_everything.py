#!/usr/bin/env python3
"""Drive the mcpwire everything-server with the official Python SDK client over
Streamable HTTP.

Usage:
    http_client_everything.py MODE URL

MODE is ``legacy`` (the 2025-11-25 era: ``initialize`` handshake, a session, real
server-to-client requests on the POST's SSE stream) or ``auto`` (the 2026-07-28
stateless era reached by ``server/discover``; one POST per request with the
``Mcp-Method``/``Mcp-Name``/``Mcp-Param-*`` headers). URL is the endpoint, for example
``http://127.0.0.1:3001/mcp`` (start ``everything-server --http 127.0.0.1:3001``).

Every check of ``client_everything.py`` (the stdio run: fixtures, sampling and
elicitation callbacks, logging, progress, resources, prompts, completion,
cancellation, listen, wire invariants) runs again over HTTP: this script imports that
module and swaps the transport for the SDK's own ``streamable_http_client``, tapped so
that every JSON-RPC message is recorded. An ``httpx2`` event hook also records every
HTTP exchange (method, status, headers), so the transport rules are checked too:
the session id, the protocol-version and routing headers, SSE answers, the resumption
GET of ``test_reconnection``, 202 for notifications, the closing DELETE.

Exit status: 0 when every check passed, 1 when one failed, 2 on a usage error.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import client_everything as ce  # noqa: E402  (the stdio run's checks, reused)

try:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
except ImportError as exc:  # pragma: no cover - environment problem
    print(f"cannot import the Python MCP SDK ({exc}); run scripts/install-peers.sh", file=sys.stderr)
    sys.exit(2)

import anyio  # noqa: E402

SESSION_HEADER = "mcp-session-id"
# The HTTP status of a JSON-RPC error answered as a plain JSON body.
ERROR_STATUS = {-32700: 400, -32600: 400, -32602: 400, -32020: 400, -32021: 400, -32022: 400, -32601: 404}


class HttpLog:
    """Every HTTP exchange of one client: (method, status, request headers, response headers)."""

    def __init__(self) -> None:
        self.exchanges: list[dict[str, Any]] = []

    def mark(self) -> int:
        return len(self.exchanges)

    async def on_response(self, response: httpx2.Response) -> None:
        request = response.request
        body = request.content if hasattr(request, "content") else b""
        self.exchanges.append(
            {
                "method": request.method,
                "status": response.status_code,
                "request_headers": {k.lower(): v for k, v in request.headers.items()},
                "headers": {k.lower(): v for k, v in response.headers.items()},
                "body": body.decode("utf-8", "replace") if isinstance(body, bytes) else "",
            }
        )

    def since(self, mark: int = 0, method: str | None = None) -> list[dict[str, Any]]:
        return [e for e in self.exchanges[mark:] if method is None or e["method"] == method]


class HttpTapTransport:
    """The SDK's Streamable HTTP transport, with every message (ce.Tap) and every HTTP
    exchange (HttpLog) recorded."""

    def __init__(self, url: str, tap: ce.Tap, log: HttpLog) -> None:
        self._url = url
        self._tap = tap
        self._log = log
        self._http: httpx2.AsyncClient | None = None
        self._cm: Any = None

    async def __aenter__(self) -> tuple[ce._TapRead, ce._TapWrite]:
        self._http = create_mcp_http_client()
        self._http.event_hooks["response"].append(self._log.on_response)
        await self._http.__aenter__()
        self._cm = streamable_http_client(self._url, http_client=self._http)
        read, write = await self._cm.__aenter__()
        return ce._TapRead(read, self._tap), ce._TapWrite(write, self._tap)

    async def __aexit__(self, *exc: Any) -> Any:
        try:
            return await self._cm.__aexit__(*exc)
        finally:
            if self._http is not None:
                await self._http.__aexit__(None, None, None)


# Every HTTP log of the run, by tap, so the checks can reach the one of a client.
LOGS: dict[int, HttpLog] = {}


def make_http_client(mode: str, url: str, tap: ce.Tap, peer: ce.Peer | None, log_level: str | None = None) -> Client:
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
    log = LOGS.setdefault(id(tap), HttpLog())
    return Client(HttpTapTransport(url, tap, log), mode=mode, cache=None, **kwargs)


# The reused sections create their extra clients through this name.
ce.make_client = make_http_client


def visible_ascii(value: str) -> bool:
    return bool(value) and all(0x21 <= ord(ch) <= 0x7E for ch in value)


class HttpRun(ce.Run):
    def __init__(self, mode: str, url: str) -> None:
        super().__init__(mode, url)  # type: ignore[arg-type]  (the "server" is the URL here)
        self.url = url

    @property
    def http(self) -> HttpLog:
        return LOGS.setdefault(id(self.tap), HttpLog())

    async def transport_rules(self) -> None:
        """What went over HTTP so far on the main connection."""
        c, log = self.c, self.http
        posts = log.since(0, "POST")
        c.check(len(posts) > 10, "the run went over HTTP POSTs", len(posts))
        bad_status = []
        for e in posts:
            if e["status"] in (200, 202):
                continue
            # A JSON-RPC error answered with its table status (the Python SDK's mapping):
            # the client must still have seen the error, with the request's id.
            try:
                request_id = json.loads(e["body"]).get("id")
            except ValueError:
                request_id = None
            errors = [m for m in self.tap.responses_to(request_id) if "error" in m] if request_id is not None else []
            code = errors[0]["error"]["code"] if errors else None
            if code is None or ERROR_STATUS.get(code) != e["status"]:
                bad_status.append((e["status"], code, e["body"][:120]))
        c.eq(bad_status, [], "every POST got 200/202, or the status of its JSON-RPC error code (400/404)")
        sse = [e for e in posts if e["headers"].get("content-type", "").startswith("text/event-stream")]
        if self.stateless:
            c.eq([e for e in log.exchanges if e["method"] != "POST"], [], "2026: only POSTs (no GET stream, no DELETE)")
            c.eq([e["headers"][SESSION_HEADER] for e in posts if SESSION_HEADER in e["headers"]], [],
                 "2026: the server never mints an Mcp-Session-Id")
            requests = [e for e in posts if '"id"' in e["body"] and '"method"' in e["body"]]
            missing = [e["body"][:100] for e in requests if "mcp-method" not in e["request_headers"]
                       or e["request_headers"].get("mcp-protocol-version") != ce.MODERN_VERSION]
            c.eq(missing, [], "2026: every request POST carried Mcp-Method and MCP-Protocol-Version")
            region = [e for e in posts if '"test_x_mcp_header"' in e["body"] and '"tools/call"' in e["body"]]
            c.check(bool(region) and all(e["request_headers"].get("mcp-param-region") == "eu-west-1" for e in region),
                    "2026: test_x_mcp_header went out with Mcp-Param-Region (and was accepted)",
                    [(e["status"], e["request_headers"].get("mcp-param-region")) for e in region])
            progress = [e for e in posts if '"test_tool_with_progress"' in e["body"]]
            c.check(bool(progress) and all(e in sse for e in progress),
                    "2026: a call that streams progress is answered as SSE", [e["headers"] for e in progress])
            simple = [e for e in posts if '"test_simple_text"' in e["body"]]
            c.check(bool(simple) and all(e["headers"].get("content-type", "").startswith("application/json") for e in simple),
                    "2026: a call that streams nothing is answered as JSON", [e["headers"] for e in simple])
        else:
            init = [e for e in posts if '"initialize"' in e["body"]]
            sid = init[0]["headers"].get(SESSION_HEADER, "") if init else ""
            c.check(visible_ascii(sid) and len(sid) >= 16, "2025: initialize minted a visible-ASCII Mcp-Session-Id", sid)
            later = log.exchanges[log.exchanges.index(init[0]) + 1:] if init else []
            c.eq([e["method"] for e in later if e["request_headers"].get(SESSION_HEADER) != sid], [],
                 "2025: every later request carried the session id")
            c.eq([e["method"] for e in later if e["request_headers"].get("mcp-protocol-version") != ce.LEGACY_VERSION], [],
                 "2025: every later request carried MCP-Protocol-Version 2025-11-25")
            notes = [e for e in posts if '"notifications/initialized"' in e["body"]]
            c.eq([e["status"] for e in notes], [202], "2025: notifications/initialized -> 202")
            c.check(len(sse) >= 10, "2025: request POSTs are answered as SSE streams", len(sse))
            resumes = [e for e in log.since(0, "GET") if "last-event-id" in e["request_headers"]]
            c.check(any(e["status"] == 200 for e in resumes),
                    "2025: test_reconnection was resumed by a GET with Last-Event-ID (200)",
                    [(e["status"], e["request_headers"].get("last-event-id")) for e in resumes])
            answers = [e for e in posts if '"result"' in e["body"] and '"method"' not in e["body"]]
            c.check(bool(answers) and all(e["status"] == 202 for e in answers),
                    "2025: the client's answers to sampling/elicitation were POSTed back and got 202",
                    [e["status"] for e in answers])

    async def cancellation(self) -> None:
        """The stdio checks, with one HTTP difference: a 2025 request POST's SSE stream ends
        only with a response, so a cancelled request's stream ends with the error -32800
        (as the Python SDK's own server does; the client ignores it). Any other late
        response still fails the checks."""
        original = self.tap.responses_to
        terminators: list[dict[str, Any]] = []

        def responses_to(request_id: Any, mark: int = 0) -> list[dict[str, Any]]:
            found = original(request_id, mark)
            ends = [m for m in found if (m.get("error") or {}).get("code") == -32800]
            terminators.extend(m for m in ends if m not in terminators)
            return [m for m in found if m not in ends]

        self.tap.responses_to = responses_to  # type: ignore[method-assign]
        try:
            await super().cancellation()
        finally:
            del self.tap.responses_to
        if self.stateless:
            self.c.eq(terminators, [], "2026: no -32800 (a cancelled 2026 request gets nothing more)")
        else:
            print(f"  (2025: {len(terminators)} cancelled stream(s) ended with -32800)")

    async def main(self) -> int:
        print(f"== mcpwire everything-server x Python SDK client over HTTP, mode={self.mode}, url={self.url}")
        try:
            with anyio.fail_after(90):
                client = make_http_client(self.mode, self.url, self.tap, self.peer)
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
                    await self.c.section_run("HTTP transport rules", self.transport_rules)
                if not self.stateless:
                    deletes = self.http.since(0, "DELETE")
                    self.c.section = "session end"
                    self.c.eq([e["status"] for e in deletes], [200], "2025: closing the client DELETEs the session (200)")
                if self.stateless:
                    await self.c.section_run("2026 log levels", self.stateless_log_levels)
        except Exception as exc:
            self.c.fail(f"the run aborted: {type(exc).__name__}: {ce._exc_text(exc)}", ce.traceback.format_exc())
        print()
        print(f"== mode={self.mode}: {self.c.passed} passed, {len(self.c.failures)} failed")
        for f in self.c.failures:
            print(f"FAILED {f}")
        return 0 if not self.c.failures else 1


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in ("legacy", "auto") or not argv[2].startswith("http"):
        print(__doc__, file=sys.stderr)
        return 2
    return anyio.run(HttpRun(argv[1], argv[2]).main)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
