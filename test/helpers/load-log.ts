// Which packages and modules a process of the binary loads: a hook preloaded with --require records
// every CommonJS require and every ES module resolution into a log, read back once the process is done.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const HOOK = `
const Module = require('node:module');
const { appendFileSync } = require('node:fs');
const log = process.env.LOAD_LOG;
const load = Module._load;
Module._load = function (request, ...rest) {
  appendFileSync(log, request + '\\n');
  return load.call(this, request, ...rest);
};
Module.register('data:text/javascript,' + encodeURIComponent(
  "import { appendFileSync } from 'node:fs';" +
  "export async function resolve(specifier, context, next) { appendFileSync(process.env.LOAD_LOG, specifier + '\\\\n'); return next(specifier, context); }",
));
`;

export interface LoadLog {
  /** The hook, for `node --require <hook>`. */
  hook: string;
  /** The log, for the child's LOAD_LOG environment variable. */
  log: string;
  /** What was loaded so far, each specifier as it was asked for. */
  read(): Set<string>;
}

/** A hook and an empty log in `dir`. */
export function loadLog(dir: string): LoadLog {
  const hook = join(dir, 'hook.cjs');
  const log = join(dir, 'loads.log');
  writeFileSync(hook, HOOK);
  writeFileSync(log, '');
  return { hook, log, read: () => new Set(readFileSync(log, 'utf8').split('\n')) };
}
