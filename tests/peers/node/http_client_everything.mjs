#!/usr/bin/env node
// Drive the mcpwire everything-server with the official TypeScript SDK client
// (@modelcontextprotocol/sdk 1.32.2, which speaks the 2025 era) over Streamable HTTP.
//
// Usage:
//   NODE_PATH=... node http_client_everything.mjs URL
// where URL is the endpoint (for example http://127.0.0.1:3001/mcp, from
// `everything-server --http 127.0.0.1:3001`). The SDK is resolved from
// $NODE_MODULES (set by `.tools/env.sh`), else from the usual Node resolution.
//
// It lists and calls the fixtures (conformance/README.md section 4.1), answers
// sampling, elicitation and roots requests through client handlers, collects logs and
// progress, reads resources, gets prompts, and checks the transport on the wire through
// a logging `fetch`: the session id, the headers, SSE answers, 202 for notifications and
// answers, the resumption GET of test_reconnection, the standalone GET stream
// (tools/list_changed), cancellation, and DELETE ending the session (then 404).
//
// Each check prints `ok` or `FAIL`; the exit status is 0 when all passed, 1 otherwise,
// 2 on a usage error.

import { sdk, urlArgument } from './peer.mjs';

const url = urlArgument('http_client_everything.mjs');

const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const types = await sdk('types.js');

// ---- fixture constants -------------------------------------------------------------

const SERVER_NAME = 'mcp-conformance-test-server';
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const VERSION = '2025-11-25';
const FIXTURE_TOOLS = [
  'test_simple_text', 'test_image_content', 'test_audio_content', 'test_embedded_resource',
  'test_multiple_content_types', 'test_error_handling', 'test_tool_with_logging', 'test_tool_with_progress',
  'test_reconnection', 'test_sampling', 'test_elicitation', 'test_elicitation_sep1034_defaults',
  'test_elicitation_sep1330_enums', 'json_schema_2020_12_tool', 'test_trigger_tool_change',
];

// ---- checks ------------------------------------------------------------------------

let passed = 0;
const failures = [];
const show = (v) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s && s.length > 800 ? `${s.slice(0, 800)} ...` : s;
};
function check(cond, what, detail) {
  if (cond) {
    passed += 1;
    console.log(`  ok   ${what}`);
  } else {
    const line = detail === undefined ? what : `${what}\n         got: ${show(detail)}`;
    failures.push(line);
    console.log(`  FAIL ${line}`);
  }
  return cond;
}
// JSON with object keys sorted, so key order never matters in comparisons.
const canon = (v) => JSON.stringify(v, (_, x) => (x && typeof x === 'object' && !Array.isArray(x)
  ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : x));
const same = (a, b) => canon(a) === canon(b);
function eq(got, want, what) {
  return same(got, want) ? check(true, what) : check(false, what, `${show(got)}\n         want: ${show(want)}`);
}
async function section(name, body) {
  console.log(`-- ${name}`);
  try {
    await Promise.race([
      body(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('section timed out after 30 s')), 30_000)),
    ]);
  } catch (e) {
    check(false, `section raised ${e?.name}: ${e?.message}`, e?.stack);
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function eventually(pred, ms = 3000) {
  const end = Date.now() + ms;
  while (!pred() && Date.now() < end) await sleep(20);
}
const onlyText = (r) => (r?.content?.length === 1 && r.content[0].type === 'text' ? r.content[0].text : undefined);

// ---- an HTTP log: every exchange the transport makes --------------------------------

const http = [];
async function loggingFetch(input, init = {}) {
  const headers = new Headers(init.headers ?? {});
  const entry = {
    method: init.method ?? 'GET',
    requestHeaders: Object.fromEntries(headers.entries()),
    body: typeof init.body === 'string' ? init.body : '',
  };
  const response = await fetch(input, init);
  entry.status = response.status;
  entry.headers = Object.fromEntries(response.headers.entries());
  http.push(entry);
  return response;
}

// ---- the simulated user / model ----------------------------------------------------

const peer = { sampling: [], elicitations: [], roots: 0, logs: [], toolsChanged: 0, hangSampling: null };

function makeClient() {
  const client = new Client(
    { name: 'mcpwire-ts-interop', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } },
  );
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request) => {
    peer.sampling.push(request.params);
    if (peer.hangSampling) {
      peer.hangSampling();
      await sleep(30_000);
    }
    const prompt = request.params.messages?.[0]?.content?.text ?? '';
    return { role: 'assistant', content: { type: 'text', text: `echo: ${prompt}` }, model: 'ts-interop-model', stopReason: 'endTurn' };
  });
  client.setRequestHandler(types.ElicitRequestSchema, async (request) => {
    peer.elicitations.push(request.params);
    const props = Object.keys(request.params.requestedSchema?.properties ?? {}).sort().join(',');
    if (props === 'response') return { action: 'accept', content: { response: 'hello from typescript' } };
    if (props === 'age,name,score,status,verified') {
      return { action: 'accept', content: { name: 'Grace', age: 41, score: 88.5, status: 'pending', verified: false } };
    }
    if (props.includes('untitledSingle')) {
      return { action: 'accept', content: { untitledSingle: 'option1', titledSingle: 'value2', legacyEnum: 'opt3', untitledMulti: ['option2'], titledMulti: ['value1', 'value3'] } };
    }
    return { action: 'decline' };
  });
  client.setRequestHandler(types.ListRootsRequestSchema, async () => {
    peer.roots += 1;
    return { roots: [{ uri: 'file:///tmp/mcpwire-ts', name: 'ts' }] };
  });
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => {
    peer.logs.push([n.params.level, n.params.data]);
  });
  client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => {
    peer.toolsChanged += 1;
  });
  return client;
}

// ---- the run -----------------------------------------------------------------------

console.log(`== mcpwire everything-server x TypeScript SDK client over HTTP, url=${url}`);
const transport = new StreamableHTTPClientTransport(new URL(url), {
  fetch: loggingFetch,
  reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 },
});
const client = makeClient();
let sessionId;

await section('initialize and session', async () => {
  await client.connect(transport);
  sessionId = transport.sessionId;
  check(typeof sessionId === 'string' && /^[\x21-\x7e]{16,}$/.test(sessionId), 'initialize minted a visible-ASCII Mcp-Session-Id', sessionId);
  eq(transport.protocolVersion, VERSION, 'negotiated protocol version');
  eq(client.getServerVersion()?.name, SERVER_NAME, 'server name');
  const caps = client.getServerCapabilities() ?? {};
  eq(caps.tools?.listChanged, true, 'capabilities.tools.listChanged');
  eq(caps.resources?.subscribe, true, 'capabilities.resources.subscribe');
  check('logging' in caps && 'completions' in caps, 'capabilities.logging and completions', caps);
  eq(client.getInstructions(), 'A fixture server for the MCP conformance suite.', 'instructions');
  const initialized = http.find((e) => e.body.includes('"notifications/initialized"'));
  eq(initialized?.status, 202, 'notifications/initialized -> 202');
  await eventually(() => http.some((e) => e.method === 'GET' && !e.requestHeaders['last-event-id']));
  const get = http.find((e) => e.method === 'GET' && !e.requestHeaders['last-event-id']);
  check(get?.status === 200 && get.headers['content-type']?.startsWith('text/event-stream'),
    'the standalone GET stream opened (200, text/event-stream)', get);
});

await section('tools/list', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  eq(FIXTURE_TOOLS.filter((n) => !names.includes(n)), [], 'every fixture tool is listed');
  eq(tools.filter((t) => !t.description).map((t) => t.name), [], 'every tool has a description');
  eq(tools.filter((t) => t.inputSchema?.type !== 'object').map((t) => t.name), [], 'every tool has an object inputSchema');
});

await section('content tools', async () => {
  let r = await client.callTool({ name: 'test_simple_text', arguments: {} });
  eq(r.content, [{ type: 'text', text: 'This is a simple text response for testing.' }], 'test_simple_text');
  r = await client.callTool({ name: 'test_image_content', arguments: {} });
  eq(r.content, [{ type: 'image', data: PNG, mimeType: 'image/png' }], 'test_image_content');
  r = await client.callTool({ name: 'test_audio_content', arguments: {} });
  eq(r.content, [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }], 'test_audio_content');
  r = await client.callTool({ name: 'test_embedded_resource', arguments: {} });
  eq(r.content, [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }], 'test_embedded_resource');
  r = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
  eq(r.content.map((c) => c.type), ['text', 'image', 'resource'], 'test_multiple_content_types: text, image, resource');
  r = await client.callTool({ name: 'test_error_handling', arguments: {} });
  check(r.isError === true && onlyText(r) === 'This tool intentionally returns an error for testing', 'test_error_handling: isError with its text', r);
  const args = { name: 'Ada', contactMethod: 'email', email: 'ada@example.com' };
  r = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: args });
  const echoed = onlyText(r) ?? '';
  const prefix = 'JSON Schema 2020-12 tool called with: ';
  eq(echoed.startsWith(prefix) ? JSON.parse(echoed.slice(prefix.length)) : echoed, args, 'json_schema_2020_12_tool echoes its arguments');
  const posts = http.filter((e) => e.method === 'POST' && e.body.includes('"tools/call"'));
  // These tools answer at once, with nothing to stream first: one JSON body each.
  check(posts.length > 0 && posts.every((e) => e.status === 200 && e.headers['content-type']?.startsWith('application/json')),
    'tools/call POSTs answered at once are answered as JSON', posts.map((e) => [e.status, e.headers['content-type']]));
  check(posts.every((e) => e.requestHeaders['mcp-session-id'] === sessionId && e.requestHeaders['mcp-protocol-version'] === VERSION),
    'every tools/call POST carried the session id and MCP-Protocol-Version', posts.map((e) => e.requestHeaders));
  let err;
  try { await client.callTool({ name: 'no_such_tool', arguments: {} }); } catch (e) { err = e; }
  check(err?.code === -32602, 'unknown tool -> error -32602', err?.message);
});

await section('sampling and elicitation', async () => {
  peer.sampling.length = 0;
  let r = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Say hi from TS' } });
  eq(onlyText(r), 'LLM response: echo: Say hi from TS', 'test_sampling returns the sampled text');
  eq(peer.sampling.length, 1, 'the sampling handler ran once');
  eq(peer.sampling[0]?.maxTokens, 100, 'sampling/createMessage maxTokens');
  // The answer's 202 may come back just after the tool result (which it unblocked).
  const answerPosts = () => http.filter((e) => e.method === 'POST' && e.body.includes('"result"') && e.body.includes('ts-interop-model'));
  await eventually(() => answerPosts().length > 0);
  const answers = answerPosts();
  eq(answers.map((e) => e.status), [202], 'the sampling answer was POSTed back and got 202');

  peer.elicitations.length = 0;
  r = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Tell me' } });
  eq(onlyText(r), 'User response: action=accept, content={"response":"hello from typescript"}', 'test_elicitation returns action and content');
  eq(peer.elicitations[0]?.message, 'Tell me', 'elicitation/create message');
  eq(peer.elicitations[0]?.requestedSchema?.required, ['response'], 'elicitation/create requestedSchema.required');

  r = await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
  check(onlyText(r)?.startsWith('Elicitation completed: action=accept, content='), 'test_elicitation_sep1034_defaults', r);
  const props = peer.elicitations.at(-1)?.requestedSchema?.properties ?? {};
  eq([props.name?.default, props.age?.default, props.score?.default, props.status?.default, props.verified?.default],
    ['John Doe', 30, 95.5, 'active', true], 'SEP-1034 defaults');
  r = await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} });
  check(onlyText(r)?.includes('"titledMulti":["value1","value3"]'), 'test_elicitation_sep1330_enums', r);
});

await section('logging and progress', async () => {
  peer.logs.length = 0;
  let r = await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  eq(onlyText(r), 'Tool with logging executed successfully', 'test_tool_with_logging text');
  await eventually(() => peer.logs.length >= 3);
  eq(peer.logs, [['info', 'Tool execution started'], ['info', 'Tool processing data'], ['info', 'Tool execution completed']],
    'three info log messages, in order');
  const logged = http.filter((e) => e.method === 'POST' && e.body.includes('"test_tool_with_logging"'));
  check(logged.length === 1 && logged[0].status === 200 && logged[0].headers['content-type']?.startsWith('text/event-stream'),
    'a tools/call that sends messages before its answer is answered as an SSE stream', logged.map((e) => [e.status, e.headers['content-type']]));
  eq(await client.setLoggingLevel('warning'), {}, 'logging/setLevel returns {}');
  peer.logs.length = 0;
  await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  await sleep(100);
  eq(peer.logs, [], 'after setLevel(warning) no info message arrives');
  await client.setLoggingLevel('debug');

  const progress = [];
  r = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
    onprogress: (p) => progress.push([p.progress, p.total]),
  });
  await eventually(() => progress.length >= 3);
  eq(progress, [[0, 100], [50, 100], [100, 100]], 'progress 0, 50, 100 of 100 through onprogress');
  check(/^\d+$/.test(onlyText(r) ?? ''), 'test_tool_with_progress returns its progress token', r);
});

await section('resumption (test_reconnection)', async () => {
  const mark = http.length;
  const r = await client.callTool({ name: 'test_reconnection', arguments: {} });
  check(onlyText(r)?.startsWith('Reconnection test completed successfully.'), 'test_reconnection result arrives', r);
  const resumes = http.slice(mark).filter((e) => e.method === 'GET' && e.requestHeaders['last-event-id']);
  check(resumes.some((e) => e.status === 200), 'the result came through a GET with Last-Event-ID (200)',
    resumes.map((e) => [e.status, e.requestHeaders['last-event-id']]));
});

await section('resources', async () => {
  const { resources } = await client.listResources();
  const uris = resources.map((x) => x.uri);
  eq(['test://static-text', 'test://static-binary', 'test://watched-resource'].filter((u) => !uris.includes(u)), [], 'resources/list has the fixtures');
  let r = await client.readResource({ uri: 'test://static-text' });
  eq(r.contents, [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }], 'read test://static-text');
  r = await client.readResource({ uri: 'test://static-binary' });
  eq(r.contents[0]?.blob, PNG, 'read test://static-binary (blob)');
  r = await client.readResource({ uri: 'test://template/42/data' });
  eq(JSON.parse(r.contents[0]?.text ?? 'null'), { id: '42', templateTest: true, data: 'Data for ID: 42' }, 'read the resource template');
  const { resourceTemplates } = await client.listResourceTemplates();
  eq(resourceTemplates.map((t) => t.uriTemplate), ['test://template/{id}/data'], 'resources/templates/list');
  eq(await client.subscribeResource({ uri: 'test://watched-resource' }), {}, 'resources/subscribe returns {}');
  eq(await client.unsubscribeResource({ uri: 'test://watched-resource' }), {}, 'resources/unsubscribe returns {}');
  let err;
  try { await client.readResource({ uri: 'test://nope' }); } catch (e) { err = e; }
  check(err?.code === -32002, 'unknown resource -> -32002 (2025: resource not found)', err?.message);
});

await section('prompts and completion', async () => {
  const { prompts } = await client.listPrompts();
  const names = prompts.map((p) => p.name);
  eq(['test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image'].filter((n) => !names.includes(n)), [], 'prompts/list has the fixtures');
  let p = await client.getPrompt({ name: 'test_simple_prompt' });
  eq(p.messages, [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }], 'get test_simple_prompt');
  p = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a', arg2: 'b' } });
  eq(p.messages[0]?.content?.text, "Prompt with arguments: arg1='a', arg2='b'", 'get test_prompt_with_arguments');
  p = await client.getPrompt({ name: 'test_prompt_with_image' });
  eq(p.messages.map((m) => m.content.type), ['image', 'text'], 'get test_prompt_with_image');
  const c = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'x' } });
  eq(c.completion, { values: [], total: 0, hasMore: false }, 'completion/complete');
  eq(await client.ping(), {}, 'ping returns {}');
});

await section('standalone GET stream', async () => {
  peer.toolsChanged = 0;
  const r = await client.callTool({ name: 'test_trigger_tool_change', arguments: {} });
  eq(onlyText(r), 'Tool list change notification sent', 'test_trigger_tool_change text');
  await eventually(() => peer.toolsChanged >= 1);
  eq(peer.toolsChanged, 1, 'notifications/tools/list_changed arrived (once) on the GET stream');
});

await section('cancellation', async () => {
  const controller = new AbortController();
  let entered;
  const inSampling = new Promise((r) => { entered = r; });
  peer.hangSampling = entered;
  const mark = http.length;
  const call = client.callTool({ name: 'test_sampling', arguments: { prompt: 'never answered' } }, undefined, { signal: controller.signal });
  await inSampling;
  peer.hangSampling = null;
  controller.abort('interop cancel');
  let err;
  try { await call; } catch (e) { err = e; }
  check(err !== undefined, 'the aborted call rejects', err);
  await sleep(200);
  const cancels = http.slice(mark).filter((e) => e.method === 'POST' && e.body.includes('"notifications/cancelled"'));
  eq(cancels.map((e) => e.status), [202], 'notifications/cancelled was POSTed and got 202');
  const r = await client.callTool({ name: 'test_simple_text', arguments: {} });
  eq(onlyText(r), 'This is a simple text response for testing.', 'a call after the cancellation succeeds');
});

await section('session end', async () => {
  await transport.terminateSession();
  const del = http.filter((e) => e.method === 'DELETE');
  eq(del.map((e) => [e.status, e.requestHeaders['mcp-session-id'] === sessionId]), [[200, true]], 'DELETE with the session id -> 200');
  await client.close();
  const after = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
  });
  eq(after.status, 404, 'a request with the deleted session id -> 404');
});

console.log();
console.log(`== ts: ${passed} passed, ${failures.length} failed`);
for (const f of failures) console.log(`FAILED ${f}`);
process.exit(failures.length === 0 ? 0 : 1);
