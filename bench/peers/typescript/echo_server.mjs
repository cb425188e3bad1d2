#!/usr/bin/env node
// The TypeScript SDK peer of bench/compare.sh: one `echo` tool on @modelcontextprotocol/sdk
// (installed into .tools/node by scripts/install-peers.sh; 1.x speaks the 2025 era only).
//
// Usage (NODE_MODULES from .tools/env.sh):
//   node echo_server.mjs --stdio
//   node echo_server.mjs --http HOST:PORT --mode stateless|sessions
//
// stateless: the SDK's documented stateless pattern (a new server and transport per
// request, sessionIdGenerator undefined, enableJsonResponse); sessions: one transport per
// session (randomUUID ids), SSE responses. Served by node:http on /mcp.

import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

async function load(sub) {
  const base = process.env.NODE_MODULES;
  if (base) return import(pathToFileURL(path.join(base, sub)).href);
  return import(sub);
}

const { McpServer } = await load('@modelcontextprotocol/sdk/dist/esm/server/mcp.js');
const { StdioServerTransport } = await load('@modelcontextprotocol/sdk/dist/esm/server/stdio.js');
const { StreamableHTTPServerTransport } = await load('@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js');
const { isInitializeRequest } = await load('@modelcontextprotocol/sdk/dist/esm/types.js');
const { z } = await load('zod/index.js').catch(() => load('zod'));

function makeServer() {
  const server = new McpServer({ name: 'typescript-echo', version: '0.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes the text back', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined);
      } catch (e) {
        reject(e);
      }
    });
    req.on('error', reject);
  });
}

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--stdio') {
  await makeServer().connect(new StdioServerTransport());
} else if (args.length === 4 && args[0] === '--http' && args[2] === '--mode') {
  const [host, port] = [args[1].slice(0, args[1].lastIndexOf(':')), Number(args[1].slice(args[1].lastIndexOf(':') + 1))];
  const stateless = args[3] === 'stateless';
  const sessions = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (!req.url.startsWith('/mcp')) {
        res.writeHead(404).end();
        return;
      }
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      if (stateless) {
        const server = makeServer();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => {
          transport.close();
          server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
        return;
      }
      const id = req.headers['mcp-session-id'];
      let transport = id ? sessions.get(id) : undefined;
      if (!transport && req.method === 'POST' && isInitializeRequest(body)) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => sessions.set(sid, transport),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await makeServer().connect(transport);
      }
      if (!transport) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No valid session' } }),
        );
        return;
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    }
  });
  httpServer.on('connection', (socket) => socket.setNoDelay(true));
  httpServer.keepAliveTimeout = 60_000;
  httpServer.listen(port, host);
} else {
  console.error('usage: echo_server.mjs --stdio | --http HOST:PORT --mode stateless|sessions');
  process.exit(2);
}
