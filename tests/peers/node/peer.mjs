// What the TypeScript SDK peer scripts share: the endpoint URL from the command line and
// the SDK's modules, from $NODE_MODULES when set (`.tools/env.sh` sets it), else from the
// usual Node resolution.

import path from 'node:path';
import { pathToFileURL } from 'node:url';

/// The endpoint URL, the script's one argument; exits 2 with a usage line without one.
export function urlArgument(script) {
  const url = process.argv[2];
  if (!url || !url.startsWith('http')) {
    console.error(`usage: ${script} URL`);
    process.exit(2);
  }
  return url;
}

/// One module of the SDK, by its path under `dist/esm` (for example `client/index.js`).
export async function sdk(sub) {
  const base = process.env.NODE_MODULES;
  if (base) {
    return import(pathToFileURL(path.join(base, '@modelcontextprotocol/sdk/dist/esm', sub)).href);
  }
  return import(`@modelcontextprotocol/sdk/${sub.replace(/\.js$/, '')}`);
}
