// What the TypeScript SDK peer scripts share: the endpoint URL from the command line, the
// packages' modules (from $NODE_MODULES when set, as `.tools/env.sh` sets it, else from the
// usual Node resolution), a call's outcome and the checks with their summary line.

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

/// A module of an installed package: `file` under $NODE_MODULES when set, else the bare
/// `specifier` through the usual Node resolution.
function packageModule(file, specifier) {
  const base = process.env.NODE_MODULES;
  return import(base ? pathToFileURL(path.join(base, file)).href : specifier);
}

/// One module of the SDK, by its path under `dist/esm` (for example `client/index.js`).
export function sdk(sub) {
  return packageModule(`@modelcontextprotocol/sdk/dist/esm/${sub}`, `@modelcontextprotocol/sdk/${sub.replace(/\.js$/, '')}`);
}

/// The TypeScript SDK v2 client package (`@modelcontextprotocol/client`), which speaks
/// both eras.
export function clientV2() {
  return packageModule('@modelcontextprotocol/client/dist/index.mjs', '@modelcontextprotocol/client');
}

/// The stdio transport of the TypeScript SDK v2 client package.
export function clientV2Stdio() {
  return packageModule('@modelcontextprotocol/client/dist/stdio.mjs', '@modelcontextprotocol/client/stdio');
}

/// What a call gives: `{ value }`, or `{ error }` when it rejects.
export async function outcome(call) {
  try {
    return { value: await call() };
  } catch (error) {
    return { error };
  }
}

/// An outcome as a check's detail: the error's class, code and message, or the value.
export function show(o) {
  return o.error ? `${o.error.constructor?.name} ${o.error.code ?? ''} ${o.error.message}` : JSON.stringify(o.value);
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
