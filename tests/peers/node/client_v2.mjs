#!/usr/bin/env node
// Drive the mcpwire everything-server with the TypeScript SDK v2 client
// (@modelcontextprotocol/client 2.4.0), over Streamable HTTP or stdio, in either era.
//
// Usage:
//   NODE_MODULES=... node client_v2.mjs legacy|auto URL
//   NODE_MODULES=... node client_v2.mjs legacy|auto COMMAND ARGS...   (stdio: the client spawns it)
//
// `legacy` is the client's default (an `initialize` handshake, 2025-11-25); `auto` makes it
// probe and pick 2026-07-28 (per-request `_meta`, `input_required` rounds for the server's
// questions). In both: the era it settled on, the tools (a plain one, a tool error, an
// unknown tool as a protocol error), elicitation and sampling answered by the client's
// handlers, progress, resources (a read, a missing one), templates, prompts and
// completion.
//
// Each check prints `ok` or `FAIL`; the exit status is 0 when all passed, 1 otherwise,
// 2 on a usage error.

import { Checks, clientV2, clientV2Stdio, outcome, show } from './peer.mjs';

const [mode, target, ...args] = process.argv.slice(2);
if ((mode !== 'legacy' && mode !== 'auto') || !target) {
  console.error('usage: client_v2.mjs legacy|auto URL | COMMAND ARGS...');
  process.exit(2);
}
const { Client, StreamableHTTPClientTransport } = await clientV2();
const transport = target.startsWith('http')
  ? new StreamableHTTPClientTransport(new URL(target))
  : new (await clientV2Stdio()).StdioClientTransport({ command: target, args, stderr: 'inherit' });

const checks = new Checks();
const check = checks.check.bind(checks);

const text = (r) => r?.content?.[0]?.text;

const client = new Client(
  { name: 'ts-v2-interop', version: '0' },
  { capabilities: { elicitation: { form: {} }, sampling: {} }, versionNegotiation: { mode } },
);
client.setRequestHandler('elicitation/create', async () => ({
  action: 'accept',
  content: { username: 'ts-v2', email: 'ts@example.com' },
}));
client.setRequestHandler('sampling/createMessage', async () => ({
  role: 'assistant',
  content: { type: 'text', text: 'sampled by ts-v2' },
  model: 'test-model',
  stopReason: 'endTurn',
}));
await client.connect(transport);
const era = client.getProtocolEra();
check(era === (mode === 'auto' ? 'modern' : 'legacy'), `the client settled on the ${mode === 'auto' ? 'modern' : 'legacy'} era`, era);

const tools = await outcome(() => client.listTools());
check(tools.value?.tools?.some((t) => t.name === 'test_simple_text'), 'tools/list lists the fixtures', show(tools));

const simple = await outcome(() => client.callTool({ name: 'test_simple_text', arguments: {} }));
check(text(simple.value) === 'This is a simple text response for testing.', 'a tool runs', show(simple));

const failing = await outcome(() => client.callTool({ name: 'test_error_handling', arguments: {} }));
check(failing.value?.isError === true, "a tool's own error is a result with isError", show(failing));

const unknown = await outcome(() => client.callTool({ name: 'no_such_tool', arguments: {} }));
check(unknown.error?.code === -32602, 'an unknown tool is a protocol error -32602', show(unknown));

const elicited = await outcome(() => client.callTool({ name: 'test_elicitation', arguments: { message: 'who?' } }));
check(
  text(elicited.value)?.includes('action=accept') && text(elicited.value)?.includes('ts@example.com'),
  "the server's elicitation reaches the client's handler and its answer comes back",
  show(elicited),
);

const sampled = await outcome(() => client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } }));
check(text(sampled.value)?.includes('sampled by ts-v2'), "the server's sampling request reaches the client's handler", show(sampled));

const progress = [];
const withProgress = await outcome(() =>
  client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { onprogress: (p) => progress.push(p.progress) }),
);
check(withProgress.value !== undefined && progress.length >= 1, 'progress notifications reach the caller', `${progress} ${show(withProgress)}`);

const read = await outcome(() => client.readResource({ uri: 'test://static-text' }));
check(read.value?.contents?.[0]?.text === 'This is the content of the static text resource.', 'a resource reads', show(read));

const missing = await outcome(() => client.readResource({ uri: 'test://no-such-resource' }));
check(missing.error !== undefined && /not found/i.test(missing.error.message), 'a missing resource is an error', show(missing));

const templates = await outcome(() => client.listResourceTemplates());
check(templates.value?.resourceTemplates?.length >= 1, 'resource templates are listed', show(templates));

const prompt = await outcome(() => client.getPrompt({ name: 'test_simple_prompt', arguments: {} }));
check(prompt.value?.messages?.[0]?.content?.text === 'This is a simple prompt for testing.', 'a prompt is got', show(prompt));

const completion = await outcome(() =>
  client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'a' } }),
);
check(Array.isArray(completion.value?.completion?.values), 'completion answers', show(completion));

await client.close();
checks.finish(`ts-v2 ${mode} ${target.startsWith('http') ? 'http' : 'stdio'}`);
