// Go's base64.StdEncoding decoding, for its errors: encoding/json decodes a []byte field (a
// Secret's data) with it, and kube answers a malformed value with Go's CorruptInputError text
// (`illegal base64 data at input byte 4`). Node's decoder accepts anything, so the rules (padding
// required, \r and \n skipped, nothing after the padding) are Go's, walked as decodeQuantum walks them.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Map([...ALPHABET].map((c, i) => [c.charCodeAt(0), i]));
const PAD = 0x3d; // '='
const isNewline = (c: number): boolean => c === 0x0a || c === 0x0d;

type GoBase64Result = { ok: true; bytes: Buffer } | { ok: false; error: string };

const corrupt = (at: number): GoBase64Result => ({ ok: false, error: `illegal base64 data at input byte ${at}` });

/** Decodes `text` as Go's base64.StdEncoding.DecodeString does, with its error on malformed input. */
export function decodeGoBase64(text: string): GoBase64Result {
  const src = Buffer.from(text, 'utf8');
  let si = 0;
  for (;;) {
    let j = 0;
    let padded = false;
    while (j < 4) {
      if (si === src.length) {
        if (j === 0) return { ok: true, bytes: Buffer.from(text.replace(/[\r\n]/g, ''), 'base64') };
        return corrupt(si - j);
      }
      const c = src[si++]!;
      if (DECODE.has(c)) {
        j++;
        continue;
      }
      if (isNewline(c)) continue;
      if (c !== PAD) return corrupt(si - 1);
      // Padding: only after two or three symbols, "==" after two.
      if (j < 2) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && isNewline(src[si]!)) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== PAD) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si]!)) si++;
      if (si < src.length) return corrupt(si);
      padded = true;
      break;
    }
    if (padded) return { ok: true, bytes: Buffer.from(text.replace(/[\r\n]/g, ''), 'base64') };
  }
}
