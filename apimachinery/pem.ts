// Go's encoding/pem: pem.Decode on a latin1 text, block after block, with its rules (text around and
// between blocks skipped, a block whose END line or base64 does not hold passed over). Webhooks'
// caBundles (webhook/ca-bundle.ts) and ServiceAccount key files (server/authn) are read with it.

export interface PEMBlock {
  type: string;
  hasHeaders: boolean;
  der: Buffer;
}

/** Go's encoding/pem.Decode on a latin1 string: the next block and what follows it. */
export function decodePEM(data: string): [PEMBlock | undefined, string] {
  const getLine = (s: string): [string, string] => {
    const nl = s.indexOf('\n');
    const line = nl < 0 ? s : s.slice(0, nl);
    return [line.replace(/[ \t\r]+$/, ''), nl < 0 ? '' : s.slice(nl + 1)];
  };
  let rest = data;
  for (;;) {
    if (rest.startsWith('-----BEGIN ')) rest = rest.slice('-----BEGIN '.length);
    else {
      const at = rest.indexOf('\n-----BEGIN ');
      if (at < 0) return [undefined, data];
      rest = rest.slice(at + '\n-----BEGIN '.length);
    }
    let typeLine: string;
    [typeLine, rest] = getLine(rest);
    if (!typeLine.endsWith('-----')) continue;
    const type = typeLine.slice(0, -5);
    let hasHeaders = false;
    for (;;) {
      if (rest.length === 0) return [undefined, data];
      const [line, next] = getLine(rest);
      if (!line.includes(':')) break;
      hasHeaders = true;
      rest = next;
    }
    let endIndex: number;
    let trailerIndex: number;
    if (!hasHeaders && rest.startsWith('-----END ')) [endIndex, trailerIndex] = [0, '-----END '.length];
    else {
      endIndex = rest.indexOf('\n-----END ');
      trailerIndex = endIndex + '\n-----END '.length;
    }
    if (endIndex < 0) continue;
    const trailer = rest.slice(trailerIndex, trailerIndex + type.length + 5);
    if (trailer !== `${type}-----` || getLine(rest.slice(trailerIndex + trailer.length))[0].length !== 0) continue;
    const body = rest
      .slice(0, endIndex)
      .replace(/[ \t]/g, '')
      .replace(/[\r\n]/g, '');
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(body)) continue;
    // The rest of the END line goes with the block.
    const [, after] = getLine(rest.slice(trailerIndex));
    return [{ type, hasHeaders, der: Buffer.from(body, 'base64') }, after];
  }
}

/** Every block of a text, in order: Go's loop calling pem.Decode until it finds none. */
export function pemBlocks(data: string): PEMBlock[] {
  const blocks: PEMBlock[] = [];
  for (let rest = data; rest.length > 0; ) {
    const [block, next] = decodePEM(rest);
    if (!block) break;
    blocks.push(block);
    rest = next;
  }
  return blocks;
}
