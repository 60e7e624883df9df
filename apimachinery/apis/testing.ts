// testing.mini-apiserver.io/v1alpha1: the kinds of the testing API (server/testing/), served only
// with --enable-testing-apis. Fault: requests it matches are answered with an error, delayed,
// reset, failed after their write committed, or have their watch ended or history expired.
// Snapshot: the whole stored state saved under a name; its `restore` subresource puts it back.
// Clock: the one named `cluster` sets the server's clock (real, frozen, or offset).
//
// Their types, and their schemas, which prune, default and validate what clients send (as a CRD's
// schema does; crd/schema) and are what OpenAPI publishes.
import type { JSONSchemaProps } from './apiextensions.js';
import { int32, str } from './builtin-schemas.js';

export const TESTING_GROUP = 'testing.mini-apiserver.io';
export const TESTING_VERSION = 'v1alpha1';
export const TESTING_API_VERSION = `${TESTING_GROUP}/${TESTING_VERSION}`;
/** The one Clock the server follows. */
export const CLOCK_NAME = 'cluster';

/** Which requests a Fault acts on: every list that is given must match; empty or absent matches all. */
export interface FaultMatch {
  /** kube's verbs (get, list, watch, create, update, patch, delete, deletecollection), or `*`. */
  verbs?: string[];
  /** "" is the core group; `*` any. */
  apiGroups?: string[];
  /** As RBAC names resources: `caches`, `caches/status`, `*`, and a subresource of any resource as `*` + `/status`. */
  resources?: string[];
  namespaces?: string[];
  names?: string[];
  /** The user as authenticated (after impersonation). */
  users?: string[];
  groups?: string[];
  /** Prefixes of the User-Agent header (`kubectl/`, `python/`). */
  userAgents?: string[];
}

/** A kube Status to answer with. */
export interface FaultStatus {
  /** The HTTP code and the Status's. */
  code: number;
  /** The Status's reason; by default kube's for the code. */
  reason?: string;
  /** By default kube's text for the reason and the request. */
  message?: string;
  /** The Retry-After header and details.retryAfterSeconds. */
  retryAfterSeconds?: number;
}

/** What a Fault does to a request it matched: exactly one. */
export interface FaultAction {
  /** Answer with this Status instead of serving the request. */
  error?: FaultStatus;
  /** Serve the request (its write commits), then answer with this Status instead of the result. */
  errorAfterCommit?: FaultStatus;
  /** Close the connection without an answer (a TCP reset). */
  resetConnection?: Record<string, never>;
  /** End a watch after this many more events (0: at once), as the server ends it on a timeout. */
  endWatch?: { afterEvents: number };
  /** Forget history up to now: a watch resuming from before it, or a list continuing, gets 410. */
  expireHistory?: Record<string, never>;
}

export interface FaultSpec {
  match?: FaultMatch;
  /** How many requests it acts on; then it stops. Absent: until deleted. */
  count?: number;
  /** The chance, in percent, that it acts on a request it matches (default 100). */
  percent?: number;
  /** A Go duration to wait before the action (or before serving the request, without one). */
  delay?: string;
  action?: FaultAction;
}

export interface FaultStatusFields {
  /** The generation the server acts on: a Fault is in force once this reaches metadata.generation. */
  observedGeneration?: number;
  /** The requests it acted on. */
  hits?: number;
}

export interface SnapshotCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface SnapshotStatus {
  /** The resourceVersion the saved state is as of. */
  resourceVersion?: string;
  /** How many objects it holds. */
  objects?: number;
  /** Their size, stored. */
  bytes?: number;
  /** Ready: saved, and may be restored. */
  conditions?: SnapshotCondition[];
}

/** The answer of POST .../snapshots/<name>/restore. */
export interface SnapshotRestoreStatus {
  /** The resourceVersion of the restore's last write. */
  resourceVersion: string;
  created: number;
  updated: number;
  deleted: number;
}

type ClockMode = 'Real' | 'Frozen' | 'Offset';
export const CLOCK_MODES: readonly ClockMode[] = ['Real', 'Frozen', 'Offset'];

export interface ClockSpec {
  mode: ClockMode;
  /** Frozen: the time the clock shows (RFC 3339, microseconds kept). */
  time?: string;
  /** Offset: a Go duration added to the real time, negative to go back (`-1h30m`). */
  offset?: string;
}

// ---- schemas -----------------------------------------------------------------------------------

const strings = (description: string): JSONSchemaProps => ({
  type: 'array',
  description,
  items: { type: 'string' },
  'x-kubernetes-list-type': 'atomic',
});
const int64 = (description: string, extra: JSONSchemaProps = {}): JSONSchemaProps =>
  int32(description, { format: 'int64', ...extra });
const empty = (description: string): JSONSchemaProps => ({ type: 'object', description });

const statusSchema = (description: string): JSONSchemaProps => ({
  type: 'object',
  description,
  required: ['code'],
  properties: {
    code: int32('The HTTP status code, also the Status code (400 to 599).', { minimum: 400, maximum: 599 }),
    reason: str("The Status reason (Conflict, TooManyRequests, ...); by default kube's for the code."),
    message: str("The Status message; by default kube's text for the reason and the request."),
    retryAfterSeconds: int32('Sent as the Retry-After header and details.retryAfterSeconds.', { minimum: 0 }),
  },
});

export const faultSchema: JSONSchemaProps = {
  type: 'object',
  description:
    'Fault makes the server misbehave on the requests it matches, a number of times or with a chance, for testing how clients cope. It never applies to the server itself.',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      description: 'Which requests, how often, and what happens to them.',
      properties: {
        match: {
          type: 'object',
          description: 'Which requests: every list given must match; an empty or absent list matches all.',
          properties: {
            verbs: strings('get, list, watch, create, update, patch, delete, deletecollection, or "*".'),
            apiGroups: strings('API groups ("" is the core group), or "*".'),
            resources: strings(
              'Resources and subresources as RBAC names them: "caches", "caches/status", "*/status", "*".',
            ),
            namespaces: strings('Namespaces of the requests ("" for cluster-scoped ones).'),
            names: strings('Names of the objects the requests name.'),
            users: strings('User names, as authenticated (after impersonation).'),
            groups: strings("Groups, any of the user's."),
            userAgents: strings('Prefixes of the User-Agent header, e.g. "kubectl/".'),
          },
        },
        count: int64('How many requests to act on, then stop; absent: until deleted.', { minimum: 1 }),
        percent: int32('The chance, in percent, that a matching request is acted on (default 100).', {
          minimum: 1,
          maximum: 100,
        }),
        delay: str('A Go duration ("500ms", "2s") to wait first; alone, the request is then served.'),
        action: {
          type: 'object',
          description: 'What to do: exactly one of the fields.',
          properties: {
            error: statusSchema('Answer with this Status; the request is not served.'),
            errorAfterCommit: statusSchema(
              'Serve the write (it commits), then answer with this Status: the ambiguous outcome of a write. Writes only.',
            ),
            resetConnection: empty('Close the connection without an answer.'),
            endWatch: {
              type: 'object',
              description:
                'End watches after more events: the open ones when the Fault is made, and new ones. Watches only.',
              required: ['afterEvents'],
              properties: {
                afterEvents: int32('Events to send first (bookmarks count); 0 ends them at once.', { minimum: 0 }),
              },
            },
            expireHistory: empty(
              'Compact storage and the watch caches up to now, before serving the request: a watch resuming from an older resourceVersion, or a list continuing, gets 410 Gone.',
            ),
          },
        },
      },
    },
    status: {
      type: 'object',
      description: 'What the server did with it.',
      properties: {
        observedGeneration: int64('The generation in force: the Fault acts once this equals metadata.generation.'),
        hits: int64('Requests it acted on.'),
      },
    },
  },
};

const conditionSchema: JSONSchemaProps = {
  type: 'object',
  required: ['type', 'status'],
  properties: {
    type: str('Ready: saved, and may be restored.'),
    status: str('True, False or Unknown.', { enum: ['True', 'False', 'Unknown'] }),
    reason: str('Why, in CamelCase.'),
    message: str('Why, for people.'),
    lastTransitionTime: str('When the status last changed.', { format: 'date-time' }),
  },
};

export const snapshotSchema: JSONSchemaProps = {
  type: 'object',
  description:
    'Snapshot saves every stored object (but the testing API\'s own) under its name; POST to its "restore" subresource puts them back, writing the difference as new resourceVersions.',
  properties: {
    spec: { type: 'object', description: 'Nothing to set: a Snapshot is saved when it is created.' },
    status: {
      type: 'object',
      description: 'What was saved.',
      properties: {
        resourceVersion: str('The resourceVersion the saved state is as of.'),
        objects: int64('How many objects it holds.'),
        bytes: int64('Their stored size.'),
        conditions: {
          type: 'array',
          description: 'Ready: saved, and may be restored.',
          items: conditionSchema,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
        },
      },
    },
  },
};

export const clockSchema: JSONSchemaProps = {
  type: 'object',
  description:
    'Clock sets the time the server stamps and checks (creation and deletion times, managedFields, conditions, tokens, audit, Leases, compaction). Only the Clock named "cluster" exists; without it the clock is real.',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['mode'],
      properties: {
        mode: str('Real, Frozen (at time) or Offset (real time plus offset).', { enum: [...CLOCK_MODES] }),
        time: str('Frozen: the time the clock shows (RFC 3339).', { format: 'date-time' }),
        offset: str('Offset: a Go duration added to the real time ("1h", "-30m").'),
      },
    },
    status: {
      type: 'object',
      properties: {
        observedGeneration: int64('The generation the server clock follows.'),
      },
    },
  },
};
