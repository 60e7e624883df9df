// `mini-apiserver rotate-service-account-key`: a new ServiceAccount signing key at the head of the
// shared identity. Every running replica follows the record: from then on it signs with the new key
// and verifies with all of them, so tokens signed before the rotation keep working until they expire.
import { createPrivateKey } from 'node:crypto';
import { openStorage } from '../storage/index.js';
import { keyIdFromPublicKey } from './authn/service-account-token.js';
import { parseEtcdServers } from './flags.js';
import { newServiceAccountKey } from './identity/record.js';
import { SharedIdentity } from './identity/shared.js';
import { readClusterTokenFile } from './identity/token.js';

export const ROTATE_USAGE =
  'rotate-service-account-key --etcd-servers URL,URL [--etcd-prefix PREFIX] (--token TOKEN | --token-file FILE)';

export interface RotateArgs {
  etcdServers: string[];
  etcdPrefix: string;
  token: { token: string } | { file: string };
}

/** The command's flags, named as the server's; a string is the usage error. */
export function parseRotateArgs(argv: readonly string[]): RotateArgs | string {
  const seen = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    if (!['--etcd-servers', '--etcd-prefix', '--token', '--token-file'].includes(flag))
      return `unexpected argument ${JSON.stringify(arg)}`;
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '') return `flag needs a value: ${flag}`;
    seen.set(flag, value);
  }
  const servers = seen.get('--etcd-servers');
  if (servers === undefined) return 'which etcd? --etcd-servers is required';
  const etcdServers = parseEtcdServers(servers);
  if (typeof etcdServers === 'string') return `--etcd-servers: ${etcdServers}`;
  const token = seen.get('--token');
  const file = seen.get('--token-file');
  if ((token === undefined) === (file === undefined)) return 'one of --token and --token-file is required';
  return {
    etcdServers,
    etcdPrefix: seen.get('--etcd-prefix') ?? '',
    token: token !== undefined ? { token } : { file: file! },
  };
}

/** Prepends a new signing key; returns its key id (the `kid` of the tokens it signs) and how many keys verify. */
export async function rotateServiceAccountKey(args: RotateArgs): Promise<{ keyId: string; keys: number }> {
  const token = 'token' in args.token ? args.token.token : await readClusterTokenFile(args.token.file);
  const storage = await openStorage({ kind: 'etcd', endpoints: args.etcdServers, prefix: args.etcdPrefix });
  try {
    const pem = newServiceAccountKey();
    const { identity } = await new SharedIdentity(storage, token, args.etcdPrefix).update((now) => ({
      ...now,
      serviceAccountKeys: [pem, ...now.serviceAccountKeys],
    }));
    return { keyId: keyIdFromPublicKey(createPrivateKey(pem)), keys: identity.serviceAccountKeys.length };
  } finally {
    await storage.close();
  }
}
