// The sealed identity record on a real etcd: replicas racing to found it end with one identity,
// another token opens nothing, another prefix is another cluster, a record copied between prefixes
// does not open, concurrent changes all land, and a follower sees each version.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTokenRecord, generateAdminToken } from '../../../server/authn/token-file.js';
import { type ClusterIdentity, newServiceAccountKey } from '../../../server/identity/record.js';
import { IDENTITY_KEY, IdentityError, type IdentityVersion, SharedIdentity } from '../../../server/identity/shared.js';
import { generateCa } from '../../../server/pki.js';
import { EtcdStorage } from '../../../storage/etcd.js';
import { type EtcdProcess, startEtcd } from '../../helpers/etcd.js';
import { eventually } from '../../helpers/eventually.js';

const candidate = async (): Promise<ClusterIdentity> => ({
  ca: await generateCa(),
  serviceAccountKeys: [newServiceAccountKey()],
  tokenFile: formatTokenRecord(generateAdminToken()),
});

describe('the shared identity record on etcd', () => {
  let etcd: EtcdProcess;
  const opened: EtcdStorage[] = [];
  const storage = async (prefix: string): Promise<EtcdStorage> => {
    const s = await EtcdStorage.connect([etcd.endpoint], prefix);
    opened.push(s);
    return s;
  };

  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await etcd?.destroy();
  });

  it('ends a race of eight replicas founding it on an empty prefix with one identity, created once', async () => {
    const stores = await Promise.all(Array.from({ length: 8 }, () => storage('/race')));
    const joined = await Promise.all(stores.map((s) => new SharedIdentity(s, 'race-token', '/race').join(candidate)));
    expect(joined.filter((j) => j.created)).toHaveLength(1);
    const founder = joined.find((j) => j.created)!;
    for (const j of joined) {
      expect(j.identity).toEqual(founder.identity);
      expect(j.revision).toBe(founder.revision);
    }
  });

  it('keeps what was founded: a later join reads it and proposes nothing', async () => {
    const s = await storage('/later');
    const first = await new SharedIdentity(s, 't', '/later').join(candidate);
    let asked = false;
    const second = await new SharedIdentity(s, 't', '/later').join(async () => {
      asked = true;
      return candidate();
    });
    expect(asked).toBe(false);
    expect(second).toEqual({ ...first, created: false });
  });

  it('is stored sealed: no key, certificate or token in the value etcd holds', async () => {
    const s = await storage('/sealed');
    const { identity } = await new SharedIdentity(s, 't', '/sealed').join(candidate);
    const raw = (await s.get(IDENTITY_KEY))!.value;
    expect(JSON.parse(raw)).toMatchObject({ kind: 'MiniApiserverSealedIdentity', kdf: { name: 'scrypt' } });
    const token = identity.tokenFile.split(',')[0]!;
    for (const secret of [token, 'PRIVATE KEY', 'CERTIFICATE', identity.ca.cert.split('\n')[1]!])
      expect(raw).not.toContain(secret);
  });

  it('opens for nobody with another token: the join fails and proposes nothing', async () => {
    const s = await storage('/tokens');
    await new SharedIdentity(s, 'right', '/tokens').join(candidate);
    const wrong = new SharedIdentity(s, 'wrong', '/tokens');
    let asked = false;
    const propose = (): Promise<ClusterIdentity> => {
      asked = true;
      return candidate();
    };
    await expect(wrong.join(propose)).rejects.toThrow(
      new IdentityError(
        'the cluster identity at etcd prefix "/tokens" was sealed with another token (or under another prefix): this server shares nothing with it',
      ),
    );
    expect(asked).toBe(false);
    await expect(wrong.update((id) => id)).rejects.toBeInstanceOf(IdentityError);
  });

  it('is another cluster’s under another prefix, even with the same token', async () => {
    const [a, b] = await Promise.all([storage('/cluster-a'), storage('/cluster-b')]);
    const ja = await new SharedIdentity(a, 'same', '/cluster-a').join(candidate);
    const jb = await new SharedIdentity(b, 'same', '/cluster-b').join(candidate);
    expect(jb.created).toBe(true);
    expect(jb.identity.ca.cert).not.toBe(ja.identity.ca.cert);
    expect(jb.identity.tokenFile).not.toBe(ja.identity.tokenFile);
  });

  it('does not open when copied under another prefix: the seal names where it was written', async () => {
    const [from, to] = await Promise.all([storage('/origin'), storage('/copy')]);
    await new SharedIdentity(from, 'same', '/origin').join(candidate);
    await to.create(IDENTITY_KEY, (await from.get(IDENTITY_KEY))!.value);
    await expect(new SharedIdentity(to, 'same', '/copy').join(candidate)).rejects.toBeInstanceOf(IdentityError);
  });

  it('lands concurrent changes from several replicas, each over the other’s (compare-and-swap)', async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => storage('/cas')));
    const first = await new SharedIdentity(stores[0]!, 't', '/cas').join(candidate);
    const added = stores.map(() => newServiceAccountKey());
    await Promise.all(
      stores.map((s, i) =>
        new SharedIdentity(s, 't', '/cas').update((now) => ({
          ...now,
          serviceAccountKeys: [added[i]!, ...now.serviceAccountKeys],
        })),
      ),
    );
    const now = await new SharedIdentity(stores[0]!, 't', '/cas').current();
    expect(now!.identity.serviceAccountKeys).toHaveLength(5);
    expect(new Set(now!.identity.serviceAccountKeys)).toEqual(
      new Set([...added, ...first.identity.serviceAccountKeys]),
    );
  });

  it('is followed: a watcher sees each later version, in order, and nothing after it closes', async () => {
    const [s1, s2] = await Promise.all([storage('/follow'), storage('/follow')]);
    const leader = new SharedIdentity(s1, 't', '/follow');
    const joined = await leader.join(candidate);
    const seen: IdentityVersion[] = [];
    const problems: string[] = [];
    const follower = new SharedIdentity(s2, 't', '/follow').follow(
      joined.revision,
      (v) => seen.push(v),
      (p) => problems.push(p),
    );
    const keys = [newServiceAccountKey(), newServiceAccountKey()];
    for (const k of keys)
      await leader.update((now) => ({ ...now, serviceAccountKeys: [k, ...now.serviceAccountKeys] }));
    await eventually('two versions', async () => (seen.length === 2 ? true : undefined));
    expect(seen.map((v) => v.identity.serviceAccountKeys[0])).toEqual(keys);
    expect(seen[1]!.identity.serviceAccountKeys).toHaveLength(3);
    follower.close();
    // A second follower over the same etcd connection sees the next version: the closed one, by then, has not.
    const later: IdentityVersion[] = [];
    const witness = new SharedIdentity(s2, 't', '/follow').follow(
      seen[1]!.revision,
      (v) => later.push(v),
      (p) => problems.push(p),
    );
    await leader.update((now) => ({ ...now, tokenFile: `${now.tokenFile}x,y,z\n` }));
    await eventually('the witness to see the third version', async () => (later.length === 1 ? true : undefined));
    witness.close();
    expect(seen).toHaveLength(2);
    expect(problems).toEqual([]);
  });

  it('follows on from the current version when the revision it started from was compacted away', async () => {
    const s = await storage('/compacted');
    const leader = new SharedIdentity(s, 't', '/compacted');
    const joined = await leader.join(candidate);
    const latest = await leader.update((now) => ({
      ...now,
      serviceAccountKeys: [newServiceAccountKey(), ...now.serviceAccountKeys],
    }));
    await s.compact(await s.currentRevision());
    const seen: IdentityVersion[] = [];
    const follower = new SharedIdentity(s, 't', '/compacted').follow(
      joined.revision,
      (v) => seen.push(v),
      () => {},
    );
    await eventually('the current version', async () => (seen.length > 0 ? true : undefined));
    follower.close();
    expect(seen.map((v) => v.revision)).toEqual([latest.revision]);
    expect(seen[0]!.identity).toEqual(latest.identity);
  });
});
