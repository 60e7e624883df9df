// kube's fieldValidation: what a write does about fields its schema does not know and keys the
// body gives twice (Strict fails, Warn answers with Warning headers, Ignore drops them quietly),
// and the Warning header itself.
import type { ServerResponse } from 'node:http';
import type { ApiError } from '../../apimachinery/errors.js';
import { goQuote } from '../../apimachinery/field-errors.js';

/** The metav1 options kinds a write's query parameters decode into (named in their 422s). */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** kube's warning recorder bounds: past 4,096 runes in all, every warning is cut to 256 runes. */
const TRUNCATE_AT_TOTAL_RUNES = 4 * 1024;
const TRUNCATE_ITEM_RUNES = 256;

interface WarningState {
  /** Every distinct warning text, in order, as given. */
  recorded: string[];
  written: number;
  truncating: boolean;
}

const warnings = new WeakMap<ServerResponse, WarningState>();

/** One `Warning: 299 - "..."` header value: Go's quoting, sent as its UTF-8 bytes as Go sends them. */
function warningHeader(text: string): string {
  return Buffer.from(`299 - ${goQuote(text)}`, 'utf8').toString('latin1');
}

/** The first `n` runes of `text`: a warning's text may be megabytes (a path deep down), its cut is not. */
function runes(text: string, n: number): string[] {
  const out: string[] = [];
  for (const ch of text) if (out.push(ch) >= n) break;
  return out;
}
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Adds one warning to the response, as kube's warning recorder (endpoints/filters/warning.go):
 * each text once, and once they pass 4,096 runes in all, each cut to 256 runes and the rest
 * dropped, so no request can make a response header the client refuses. Text that is not valid
 * UTF-16 (a lone surrogate from a JSON escape) is sent with U+FFFD, as Go's decoder reads it.
 */
export function addWarning(res: ServerResponse, warning: string): void {
  let state = warnings.get(res);
  if (state && state.written >= TRUNCATE_AT_TOTAL_RUNES && state.truncating) return;
  const text = warning.replace(LONE_SURROGATE, '\uFFFD');
  if (text === '') return;
  if (!state) warnings.set(res, (state = { recorded: [], written: 0, truncating: false }));
  if (state.recorded.includes(text)) return;
  state.recorded.push(text);
  // The text whole when it fits what is left of the total (so one rune more tells it does not).
  const room = TRUNCATE_AT_TOTAL_RUNES - state.written;
  const chars = runes(text, state.truncating ? TRUNCATE_ITEM_RUNES : room + 1);
  if (chars.length <= room || state.truncating) {
    state.written += chars.length;
    appendHeader(res, warningHeader(chars.join('')));
    return;
  }
  // Over the limit for the first time: replay everything so far, truncated.
  state.truncating = true;
  state.written = 0;
  res.removeHeader('Warning');
  for (const recorded of state.recorded) {
    const cut = runes(recorded, TRUNCATE_ITEM_RUNES);
    state.written += cut.length;
    appendHeader(res, warningHeader(cut.join('')));
  }
}

function appendHeader(res: ServerResponse, value: string): void {
  if (res.headersSent) return;
  const existing = res.getHeader('Warning');
  const all = Array.isArray(existing) ? existing : existing === undefined ? [] : [String(existing)];
  res.setHeader('Warning', [...all, value]);
}

/**
 * What strict decoding found (duplicate keys in the body, fields the schema prunes), handled as
 * the directive says: Strict fails with `fail(errors)`, Warn warns, Ignore says nothing.
 */
export function strictDecoding(
  warn: (text: string) => void,
  directive: FieldValidation,
  duplicateFields: readonly string[],
  fail: (errors: string) => ApiError,
): (unknownFields: readonly string[]) => void {
  // Called again by a write's retries (and for a built-in kind, after the body's decoding, by the
  // strategy): what was said once is not said again.
  // The duplicates are the body's, the same at every call: said once, as a whole, not hashed by
  // text (100 paths deep down may be megabytes each).
  let duplicatesSaid = false;
  const reported = new Set<string>();
  return (unknownFields) => {
    // Ignore says nothing: no texts to make (a body may give 200,000 unknown fields).
    if (directive === 'Ignore') return;
    const duplicates = duplicatesSaid ? [] : duplicateFields.map((f) => `duplicate field ${goQuote(f)}`);
    const unknown = unknownFields.map((f) => `unknown field ${goQuote(f)}`).filter((e) => !reported.has(e));
    if (duplicates.length + unknown.length === 0) return;
    if (directive === 'Strict') throw fail(`strict decoding error: ${[...duplicates, ...unknown].join(', ')}`);
    duplicatesSaid = true;
    for (const e of duplicates) warn(e);
    for (const e of unknown) {
      reported.add(e);
      warn(e);
    }
  };
}
