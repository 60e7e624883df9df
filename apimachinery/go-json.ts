// JSON text as Go writes a decoded value: map keys in Go's string order, `<`, `>`, `&`, U+2028 and
// U+2029 escaped, invalid UTF-16 (a lone surrogate, Go's invalid UTF-8) as `\ufffd`. Two writers
// differ in one thing: encoding/json (Go 1.22 and later, which builds kube 1.33) writes backspace
// and form feed as `\b` and `\f`; jsoniter, which structured-merge-diff v4 serialises field paths
// with (`k:{...}`, `v:...`), writes them as `\u0008` and `\u000c`, as every other control
// character.
import { compareGoStrings } from './go-sort.js';

/** Text to write as is, beside values still to be written, on goJSON's to-do stack. */
class Raw {
  constructor(readonly text: string) {}
}

/** Which of Go's JSON writers: see the top of this file. */
export type GoJSONWriter = 'encoding/json' | 'jsoniter';

/**
 * Go's json.Marshal of a decoded value. A member whose value is `undefined` is absent. Values may
 * nest 10,000 deep (kube's decoder limit), so nested values wait on an explicit stack.
 */
export function goJSON(v: unknown, writer: GoJSONWriter = 'encoding/json'): string {
  if (typeof v !== 'object' || v === null) return goJSONScalar(v, writer);
  const out: string[] = [];
  const todo: Array<Raw | { v: unknown }> = [{ v }];
  while (todo.length > 0) {
    const t = todo.pop()!;
    if (t instanceof Raw) {
      out.push(t.text);
      continue;
    }
    const x = t.v;
    if (typeof x !== 'object' || x === null) out.push(goJSONScalar(x, writer));
    else if (Array.isArray(x)) {
      todo.push(new Raw(']'));
      for (let i = x.length - 1; i >= 0; i--) {
        todo.push({ v: x[i] });
        if (i > 0) todo.push(new Raw(','));
      }
      out.push('[');
    } else {
      const m = x as Record<string, unknown>;
      const keys = Object.keys(m)
        .filter((k) => m[k] !== undefined)
        .sort(compareGoStrings);
      todo.push(new Raw('}'));
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        todo.push({ v: m[k] });
        todo.push(new Raw(`${i > 0 ? ',' : ''}${goJSONString(k, writer)}:`));
      }
      out.push('{');
    }
  }
  return out.join('');
}

function goJSONScalar(v: unknown, writer: GoJSONWriter): string {
  switch (typeof v) {
    case 'string':
      return goJSONString(v, writer);
    case 'number':
      // JS and Go agree on the shortest digits and on exponent form below 1e-6 and from 1e21.
      return Number.isFinite(v) ? String(v) : 'null';
    case 'bigint':
    case 'boolean':
      return String(v);
    default:
      return 'null';
  }
}

/** A JSON string literal with Go's escaping (HTML-safe, line separators escaped). */
export function goJSONString(s: string, writer: GoJSONWriter = 'encoding/json'): string {
  const shortBF = writer === 'encoding/json';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i]! + s[i + 1]!;
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += '\\ufffd';
      continue;
    }
    switch (c) {
      case 0x22:
        out += '\\"';
        continue;
      case 0x5c:
        out += '\\\\';
        continue;
      case 0x0a:
        out += '\\n';
        continue;
      case 0x0d:
        out += '\\r';
        continue;
      case 0x09:
        out += '\\t';
        continue;
      case 0x08:
        out += shortBF ? '\\b' : '\\u0008';
        continue;
      case 0x0c:
        out += shortBF ? '\\f' : '\\u000c';
        continue;
      case 0x3c:
      case 0x3e:
      case 0x26:
      case 0x2028:
      case 0x2029:
        out += '\\u' + c.toString(16).padStart(4, '0');
        continue;
      default:
        break;
    }
    if (c < 0x20) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += s[i]!;
  }
  return out + '"';
}

const GO_ESCAPED = /[<>&\u2028\u2029]/;
const GO_ESCAPED_ALL = /[<>&\u2028\u2029]/g;
const goEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON.stringify's text with the escapes Go's encoding/json adds (json.Marshal, and json.Encoder
 * with which kube's serializer answers every JSON request): `<`, `>`, `&`, U+2028 and U+2029.
 * Only strings can hold them, so the text means the same; most text holds none and is returned as
 * is. (Lone surrogates, which Go writes as \ufffd, do not survive the request decoder.)
 */
export function goEncoderText(text: string): string {
  return GO_ESCAPED.test(text) ? text.replace(GO_ESCAPED_ALL, goEscape) : text;
}
