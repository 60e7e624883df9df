// API versions as kube orders and hashes them: GA > beta > alpha, then by number, which puts a
// group's preferred version first; and the storage version hash discovery publishes.
import { createHash } from 'node:crypto';
import { isJsonObject } from './object.js';

export interface GroupVersion {
  group: string;
  version: string;
}

export interface GroupVersionKind extends GroupVersion {
  kind: string;
}

/** schema.ParseGroupVersion; undefined where it errors (more than one slash). */
export function parseGroupVersion(s: string): GroupVersion | undefined {
  if (s === '' || s === '/') return { group: '', version: '' };
  const i = s.indexOf('/');
  if (i < 0) return { group: '', version: s };
  if (s.indexOf('/', i + 1) >= 0) return undefined;
  return { group: s.slice(0, i), version: s.slice(i + 1) };
}

/** schema.GroupVersionKind's String: `group/version, Kind=kind` (`/v1, Kind=Namespace` for core). */
export const gvkString = (g: GroupVersionKind): string => `${g.group}/${g.version}, Kind=${g.kind}`;

/** schema.FromAPIVersionAndKind: an apiVersion that does not parse gives the empty group and version. */
export function fromAPIVersionAndKind(apiVersion: string, kind: string): GroupVersionKind {
  return { ...(parseGroupVersion(apiVersion) ?? { group: '', version: '' }), kind };
}

/** Unstructured's GroupVersionKind(): an unparseable apiVersion gives the empty GVK. */
export function unstructuredGVK(obj: unknown): GroupVersionKind {
  const o = isJsonObject(obj) ? obj : {};
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const gv = parseGroupVersion(str(o['apiVersion']));
  return gv ? { ...gv, kind: str(o['kind']) } : { group: '', version: '', kind: '' };
}

/**
 * kube's discovery hash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>").
 * The core group keeps its empty segment ("/v1/Namespace"), as kube-apiserver hashes it.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const MAX_INT64 = 2n ** 63n - 1n;
const STABILITY = { alpha: 0, beta: 1, ga: 2 } as const;

interface KubeVersion {
  major: bigint;
  stability: number;
  minor: bigint;
}

/** Go parses the numbers with strconv.Atoi, so one beyond int64 makes the string not kube-like. */
function parseKubeVersion(v: string): KubeVersion | undefined {
  const m = KUBE_VERSION.exec(v);
  if (!m) return undefined;
  const major = BigInt(m[1]!);
  const minor = m[3] === undefined ? 0n : BigInt(m[3]);
  if (major > MAX_INT64 || minor > MAX_INT64) return undefined;
  const stability = m[2] === 'alpha' ? STABILITY.alpha : m[2] === 'beta' ? STABILITY.beta : STABILITY.ga;
  return { major, stability, minor };
}

const sign = (n: bigint): number => (n > 0n ? 1 : n < 0n ? -1 : 0);

/**
 * As kube's version.CompareKubeAwareVersionStrings: positive when `a` ranks above `b`. Kube-like
 * versions rank above others; those compare by stability, then major, then minor; the rest rank in
 * reverse string order, so that "foo1" comes before "foo10".
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const va = parseKubeVersion(a);
  const vb = parseKubeVersion(b);
  if (!va && !vb) return b < a ? -1 : 1;
  if (!va) return -1;
  if (!vb) return 1;
  return va.stability - vb.stability || sign(va.major - vb.major) || sign(va.minor - vb.minor);
}

/** Versions in kube's discovery order, preferred first (a new array; equal ranks keep their order). */
export function sortVersions(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => compareKubeAwareVersions(b, a));
}
