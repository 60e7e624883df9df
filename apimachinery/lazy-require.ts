// Packages loaded on first use rather than at start-up. Importing protobufjs, yaml, ws, re2js,
// prom-client or jsonpath-plus costs tens of milliseconds each; a server that never meets a protobuf body, a YAML
// document, a WebSocket, a pattern, a scrape of /metrics or a Table's JSONPath column should not pay for them before it is ready
// (nor for Node's worker_threads, which only a YAML body too deep for the event loop needs). CommonJS builds only (each of
// these ships one): require is synchronous, so callers stay synchronous.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `id`'s exports, required the first time the returned function is called. */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
