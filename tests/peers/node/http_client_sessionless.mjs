#!/usr/bin/env node
// Drive the mcpwire everything-server in session-less mode (`everything-server --http ADDR
// --sessionless`) with the official TypeScript SDK client (@modelcontextprotocol/sdk
// 1.32.2, 2025 era) over Streamable HTTP.
//
// Usage:
//   NODE_MODULES=... node http_client_sessionless.mjs URL
//
// Session-less, every POST stands alone: no session id is issued, the answers are JSON or
// SSE holding only the answer. The SDK's client fails an exchange whose HTTP status is
// not 2xx without reading its body, so a JSON-RPC error must come with 200 to reach the
// caller as an McpError with its code. Checks: the handshake gives no session id, tools
// list and run, a tool's own error is a result with `isError`, and an unknown tool, an
// unknown prompt and a method the server does not offer come back as McpErrors with their
// codes (-32602, -32602, -32601).
//
// Each check prints `ok` or `FAIL`; the exit status is 0 when all passed, 1 otherwise,
// 2 on a usage error.

import { Checks, outcome, sdk, show, urlArgument } from './peer.mjs';

const url = urlArgument('http_client_sessionless.mjs');

const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { McpError, EmptyResultSchema } = await sdk('types.js');

const checks = new Checks();
const check = checks.check.bind(checks);

/// Whether a call rejected with an McpError of `code`.
const isMcpError = (o, code) => o.error instanceof McpError && o.error.code === code;

const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: 'ts-sessionless-interop', version: '0' }, { capabilities: {} });
await client.connect(transport);
check(transport.sessionId === undefined, 'the handshake issues no session id', transport.sessionId);

const tools = await client.listTools();
check(tools.tools.some((t) => t.name === 'test_simple_text'), 'tools/list lists the fixtures');

const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
check(
  simple.content?.[0]?.text === 'This is a simple text response for testing.',
  'a tool runs',
  JSON.stringify(simple),
);

const failing = await client.callTool({ name: 'test_error_handling', arguments: {} });
check(failing.isError === true, "a tool's own error is a result with isError", JSON.stringify(failing));

const unknownTool = await outcome(() => client.callTool({ name: 'no_such_tool', arguments: {} }));
check(isMcpError(unknownTool, -32602), 'an unknown tool is an McpError -32602', show(unknownTool));

const unknownPrompt = await outcome(() => client.getPrompt({ name: 'no_such_prompt', arguments: {} }));
check(isMcpError(unknownPrompt, -32602), 'an unknown prompt is an McpError -32602', show(unknownPrompt));

const unknownMethod = await outcome(() => client.request({ method: 'no/such/method', params: {} }, EmptyResultSchema));
check(isMcpError(unknownMethod, -32601), 'an unknown method is an McpError -32601', show(unknownMethod));

const after = await client.callTool({ name: 'test_simple_text', arguments: {} });
check(after.content?.[0]?.text !== undefined, 'the client goes on after the errors');

await client.close();
checks.finish('ts-sessionless');
