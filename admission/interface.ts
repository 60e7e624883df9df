// kube's admission interfaces (k8s.io/apiserver/pkg/admission): what a plugin sees of a request
// (Attributes), the two phases a plugin may take part in, and the chain the registry runs around
// every write: each mutating plugin that handles the operation, in order, before the kind's
// strategy validates; then each validating plugin, on the object as it will be stored.
import type { Qualified } from '../apimachinery/errors.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { UserInfo } from '../apimachinery/user.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface Attributes {
  operation: Operation;
  /** Group and kind (kube's GetKind). */
  kind: Qualified;
  /** Group and plural resource (kube's GetResource). */
  resource: Qualified;
  subresource: string;
  /** "" for cluster-scoped resources. */
  namespace: string;
  /** "" while a create's name is still to be generated. */
  name: string;
  /** The new object: a mutating plugin may change it. Absent for DELETE. */
  object: KubeObject | undefined;
  /** The stored object, for UPDATE and DELETE. */
  oldObject: KubeObject | undefined;
  dryRun: boolean;
  /** Who asked; absent for the server's own controllers' writes. */
  userInfo: UserInfo | undefined;
  /** A warning for the client (a `Warning` header), when the request can carry one. */
  warn?: (text: string) => void;
  /** An annotation on the request's audit event, when it is audited. */
  annotate?: (key: string, value: string) => void;
  /**
   * kube's ObjectInterfaces' decoding and defaulter: what the mutating webhook plugin puts an object
   * a webhook patched through before the next webhook sees it. Absent: nothing.
   */
  defaultPatched?: (obj: KubeObject) => void;
}

export interface AdmissionPlugin {
  readonly name: string;
  handles(operation: Operation): boolean;
  /** Mutating phase; throws an ApiError to refuse. */
  admit?(a: Attributes): Promise<void>;
  /** Whether `admit` may change `a.object`; a plugin with `admit` that does not say is taken to. */
  mutates?(a: Attributes): boolean;
  /** Validating phase; throws an ApiError to refuse. */
  validate?(a: Attributes): Promise<void>;
}

export class AdmissionChain {
  constructor(private readonly plugins: readonly AdmissionPlugin[]) {}

  async admit(a: Attributes): Promise<void> {
    for (const p of this.plugins) if (p.admit && p.handles(a.operation)) await p.admit(a);
  }

  /** Whether the mutating phase may change `a.object`: if not, the store need not keep a copy of it as sent. */
  mayMutate(a: Attributes): boolean {
    return this.plugins.some((p) => p.admit && p.handles(a.operation) && (p.mutates?.(a) ?? true));
  }

  async validate(a: Attributes): Promise<void> {
    for (const p of this.plugins) if (p.validate && p.handles(a.operation)) await p.validate(a);
  }
}

/** A chain with no plugins, for stores nothing is admitted to. */
export const NO_ADMISSION = new AdmissionChain([]);
