// A start with a cluster token (--token): the replica joins the identity its etcd prefix holds (or
// proposes its own: its data dir's CA, signing key and tokens.csv when it has them, else fresh
// ones), keeps a copy in its data dir (its own serving certificate, for its own addresses, signed by
// the shared CA), and follows the record while it runs. Parts a flag names (--tls-cert-file,
// --token-auth-file, --service-account-signing-key-file) stay the operator's. The sealed record and
// its parts are identity/'s; this is where they meet the data dir and the PKI.
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from '../apimachinery/log.js';
import type { Storage } from '../storage/interface.js';
import { parsePrivateKeyPem } from './authn/service-account-token.js';
import { type TokenRecord, formatTokenRecord, generateAdminToken, parseTokenFile } from './authn/token-file.js';
import { type ClusterIdentity, newServiceAccountKey, pkcs8, sha256 } from './identity/record.js';
import { IdentityError, type IdentityVersion, SharedIdentity } from './identity/shared.js';
import { reconcileTokenFile } from './identity/token-file-sync.js';
import {
  type ServingHosts,
  type ServingTls,
  caUsable,
  generateCa,
  issueServingCert,
  loadOrIssueServingCert,
  readCa,
  readIfExists,
  writeCa,
} from './pki.js';
import { writeFileAtomic } from './startup/write-file-atomic.js';

export interface SharedIdentityOptions {
  storage: Storage;
  token: string;
  /** --etcd-prefix ('' without one). */
  prefix: string;
  dataDir: string | undefined;
  /** This replica's addresses, for its serving certificate. */
  hosts: ServingHosts;
  /** What the flags gave, which the cluster's identity does not replace. */
  given: { tls: boolean; tokens: boolean; signingKey: boolean };
  logger: Logger;
}

/** What a running replica may take from a later version of the record. */
export interface Rotatable {
  tokens: TokenRecord[];
  /** Newest first: the first signs. */
  serviceAccountKeys: KeyObject[];
}

export interface SharedCredentials extends Rotatable {
  /** The cluster's CA: clients trust it, and client certificates it signed authenticate. */
  caCert: string;
  /** This replica's certificate from the cluster's CA; undefined when --tls-cert-file gave one. */
  serving: ServingTls | undefined;
  /** Calls `apply` with each later version, until closed. */
  follow(apply: (update: Rotatable) => void): { close(): void };
}

/** DIR/tokens.csv.sha256: the cluster's token file this data dir last took (see token-file-sync.ts). */
const files = (dataDir: string) => ({
  pki: join(dataDir, 'pki'),
  saKey: join(dataDir, 'pki', 'sa.key'),
  tokens: join(dataDir, 'tokens.csv'),
  synced: join(dataDir, 'tokens.csv.sha256'),
});

/** This data dir's identity, what it lacks made fresh: what the replica proposes when the cluster has none. */
async function candidate(dataDir: string | undefined): Promise<ClusterIdentity> {
  const f = dataDir === undefined ? undefined : files(dataDir);
  const [ca, saKey, tokenFile] = f
    ? await Promise.all([readCa(f.pki), readIfExists(f.saKey), readIfExists(f.tokens)])
    : [undefined, undefined, undefined];
  if (tokenFile !== undefined) checked(f!.tokens, () => parseTokenFile(tokenFile));
  return {
    ca: ca ?? (await generateCa()),
    serviceAccountKeys: [
      saKey !== undefined ? checked(f!.saKey, () => pkcs8(parsePrivateKeyPem(saKey))) : newServiceAccountKey(),
    ],
    tokenFile: tokenFile ?? formatTokenRecord(generateAdminToken()),
  };
}

/** `read()`, its error naming the file. */
function checked<T>(file: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new IdentityError(`${file}: ${(err as Error).message}`);
  }
}

const rotatable = (id: ClusterIdentity): Rotatable => ({
  tokens: parseTokenFile(id.tokenFile).records,
  serviceAccountKeys: id.serviceAccountKeys.map(parsePrivateKeyPem),
});

/** Joins (or founds) the cluster's identity and writes this replica's copy into its data dir. */
export async function joinSharedIdentity(o: SharedIdentityOptions): Promise<SharedCredentials> {
  const shared = new SharedIdentity(o.storage, o.token, o.prefix);
  let version: IdentityVersion = await shared
    .join(() => candidate(o.dataDir))
    .then((j) => {
      o.logger.info(j.created ? 'founded the cluster identity' : 'joined the cluster identity', { prefix: o.prefix });
      return j;
    });
  // Checked before anything is written: a CA that cannot sign would leave a data dir half replaced.
  if (!caUsable(version.identity.ca, new Date()))
    throw new IdentityError("the cluster identity's CA cannot sign: expired, not a CA, or not its key");
  if (o.dataDir !== undefined) version = await keepCopy(shared, version, o);
  const { identity } = version;
  const serving = o.given.tls
    ? undefined
    : o.dataDir !== undefined
      ? await loadOrIssueServingCert(files(o.dataDir).pki, identity.ca, o.hosts, o.logger)
      : { ...(await issueServingCert(identity.ca, o.hosts)), caCert: identity.ca.cert };
  return {
    caCert: identity.ca.cert,
    serving,
    ...rotatable(identity),
    follow: (apply) =>
      shared.follow(
        version.revision,
        (v) => {
          apply(rotatable(v.identity));
          if (o.dataDir !== undefined && !o.given.tokens)
            void followTokenFile(o.dataDir, v.identity.tokenFile).catch((err: unknown) =>
              o.logger.warn('could not update tokens.csv from the cluster', { err: String(err) }),
            );
          o.logger.info('the cluster identity changed', { serviceAccountKeys: v.identity.serviceAccountKeys.length });
        },
        (message) => o.logger.warn(message),
      ),
  };
}

/** DIR's CA, signing key and token file made the cluster's; a local edit of tokens.csv made the cluster's first. */
async function keepCopy(
  shared: SharedIdentity,
  version: IdentityVersion,
  o: SharedIdentityOptions,
): Promise<IdentityVersion> {
  const f = files(o.dataDir!);
  const { identity } = version;
  const localCa = await readCa(f.pki);
  if (localCa?.cert !== identity.ca.cert) {
    if (localCa) o.logger.warn("the data dir's CA is replaced by the cluster's", { dir: f.pki });
    await writeCa(f.pki, identity.ca);
  }
  const localKey = await readIfExists(f.saKey);
  if (!o.given.signingKey && localKey !== identity.serviceAccountKeys[0]) {
    // A key a rotation retired stays among the cluster's; any other signed tokens nobody here verifies.
    if (localKey !== undefined && !identity.serviceAccountKeys.includes(localKey))
      o.logger.warn("the data dir's ServiceAccount signing key is replaced by the cluster's", { file: f.saKey });
    await writeFileAtomic(f.saKey, identity.serviceAccountKeys[0]!, 0o600);
  }
  if (o.given.tokens) return version;

  const [local, synced] = await Promise.all([readIfExists(f.tokens), readIfExists(f.synced)]);
  const action = reconcileTokenFile(local, synced?.trim(), identity.tokenFile);
  switch (action.kind) {
    case 'keep':
      break;
    case 'take':
      if (action.replaces === 'unsynced')
        o.logger.warn("the data dir's tokens.csv is replaced by the cluster's", { file: f.tokens });
      await writeFileAtomic(f.tokens, identity.tokenFile, 0o600);
      break;
    case 'push': {
      checked(f.tokens, () => parseTokenFile(local!));
      version = await shared.update((now) => {
        if (sha256(now.tokenFile) !== synced?.trim()) throw conflict(f.tokens);
        return { ...now, tokenFile: local! };
      });
      o.logger.info("this data dir's edit of tokens.csv is now the cluster's", { file: f.tokens });
      break;
    }
    case 'conflict':
      throw conflict(f.tokens);
  }
  await writeFileAtomic(f.synced, `${sha256(version.identity.tokenFile)}\n`, 0o600);
  return version;
}

const conflict = (file: string): IdentityError =>
  new IdentityError(
    `${file} was edited here while the cluster's token file changed too: move it aside to take the cluster's, then add the lines again`,
  );

/** A later version's token file, written over DIR/tokens.csv unless that was edited here since it was last taken. */
async function followTokenFile(dataDir: string, tokenFile: string): Promise<void> {
  const f = files(dataDir);
  const [local, synced] = await Promise.all([readIfExists(f.tokens), readIfExists(f.synced)]);
  const action = reconcileTokenFile(local, synced?.trim(), tokenFile);
  if (action.kind !== 'take' || action.replaces === 'unsynced') return;
  await writeFileAtomic(f.tokens, tokenFile, 0o600);
  await writeFileAtomic(f.synced, `${sha256(tokenFile)}\n`, 0o600);
}
