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

/// The TypeScript SDK v2 client package (`@modelcontextprotocol/client`), which speaks
/// both eras.
export async function clientV2() {
  const base = process.env.NODE_MODULES;
  if (base) {
    return import(pathToFileURL(path.join(base, '@modelcontextprotocol/client/dist/index.mjs')).href);
  }
  return import('@modelcontextprotocol/client');
}

/// The stdio transport of the TypeScript SDK v2 client package.
export async function clientV2Stdio() {
  const base = process.env.NODE_MODULES;
  if (base) {
    return import(pathToFileURL(path.join(base, '@modelcontextprotocol/client/dist/stdio.mjs')).href);
  }
  return import('@modelcontextprotocol/client/stdio');
}

/// A script's checks: each prints `ok` or `FAIL` as it is made; `finish` prints the
/// summary line (`== LABEL: N passed, M failed`) and exits 0 when all passed, 1 otherwise.
export class Checks {
  constructor() {
    this.passed = 0;
    this.failures = [];
  }

  check(ok, what, detail) {
    if (ok) {
      this.passed += 1;
      console.log(`ok   ${what}`);
    } else {
      this.failures.push(what);
      console.log(`FAIL ${what}${detail === undefined ? '' : `: ${String(detail).slice(0, 300)}`}`);
    }
  }

  finish(label) {
    console.log();
    console.log(`== ${label}: ${this.passed} passed, ${this.failures.length} failed`);
    for (const f of this.failures) console.log(`FAILED ${f}`);
    process.exit(this.failures.length === 0 ? 0 : 1);
  }
}
