// JSON for objects that may hold integers beyond 2^53. kube keeps an integer that fits int64
// exactly; JS numbers round past 2^53, so the request decoder gives such integers as bigints (for
// custom resources, whose fields are free-form), and every place an object is stored, read back or
// written out goes through these two functions instead of JSON.parse/JSON.stringify.
//
// Both keep the built-ins' speed on the usual object: parseJSON hands text without a 16-digit run
// (the shortest unsafe integer) to JSON.parse, and stringifyJSON only takes its own, slower path
// when JSON.stringify meets a bigint.
import { parseJsonExact } from './endpoints/json-parse.js';

const LONG_DIGIT_RUN = /\d{16}/;

/** JSON.parse, with integers beyond 2^53 that fit int64 as exact bigints. */
export function parseJSON(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  return parseJsonExact(text, { int64: true }).value;
}

/** JSON.stringify, writing bigints as JSON integers. */
export function stringifyJSON(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError) || !/BigInt/.test(err.message)) throw err;
  }
  return stringifyWithBigInts(value) ?? 'null';
}

/** JSON.stringify's rules for plain JSON values (undefined and functions dropped), bigints as integers. */
function stringifyWithBigInts(v: unknown): string | undefined {
  switch (typeof v) {
    case 'bigint':
      return v.toString();
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) return `[${v.map((x) => stringifyWithBigInts(x) ?? 'null').join(',')}]`;
      if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(v);
      const parts: string[] = [];
      for (const [k, x] of Object.entries(v)) {
        const s = stringifyWithBigInts(x);
        if (s !== undefined) parts.push(`${JSON.stringify(k)}:${s}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return JSON.stringify(v);
  }
}
