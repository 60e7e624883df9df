// `POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token` (kube's TokenREST): the checks of
// token-request.ts over the stored ServiceAccount (and a bound Secret), then a signed token.
import { ignoreNotFound } from '../../apimachinery/errors.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { Clock } from '../../apimachinery/clock.js';
import type { CreateOnlyHandler } from '../registry/catalog.js';
import type { Store } from '../registry/store.js';
import type { LiveObject, ObjectLookup, TokenSigner } from './service-account-token.js';
import { issueTokenRequest, prepareTokenRequest } from './token-request.js';

export interface TokenRequestSigning {
  issuer: TokenSigner;
  /** --api-audiences: a TokenRequest without audiences gets these. */
  audiences: readonly string[];
  /** --service-account-max-token-expiration in seconds: longer requests are shortened, with a warning; 0 none. */
  maxExpirationSeconds: number;
  /** The server's clock: when a token is issued, and so when it expires. */
  clock: Clock;
}

/** What token authentication needs of a stored object: that it exists, its uid, whether it is going. */
export function liveObject(store: Store): ObjectLookup {
  return async (namespace, name) => {
    const obj = await store.get(namespace, name).catch(ignoreNotFound);
    if (!obj) return undefined;
    const live: LiveObject = { uid: obj.metadata.uid ?? '' };
    if (obj.metadata.deletionTimestamp) live.deletionTimestamp = obj.metadata.deletionTimestamp;
    return live;
  };
}

export function tokenRequestHandler(
  signing: TokenRequestSigning,
  serviceAccounts: Store,
  secrets: Store,
): CreateOnlyHandler {
  const secret = liveObject(secrets);
  return async ({ obj, namespace, name, warn }) => {
    const sa = await serviceAccounts.get(namespace, name).catch(ignoreNotFound);
    const prepared = await prepareTokenRequest(obj, {
      namespace,
      name,
      serviceAccount: sa && { metadata: { name, namespace, uid: sa.metadata.uid ?? '' } },
      apiAudiences: signing.audiences,
      maxExpirationSeconds: signing.maxExpirationSeconds,
      secret,
    });
    if (prepared.kind === 'error') throw prepared.error;
    for (const w of prepared.warnings) warn(w);
    return (await issueTokenRequest(prepared, signing.issuer, new Date(signing.clock.now()))) as unknown as KubeObject;
  };
}
