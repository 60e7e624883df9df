import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, type Status } from '../../../../apimachinery/errors.js';
import { KUBE_PROTOS } from '../../../../apimachinery/apis/kube-protos.js';
import { decodeProtobufObject } from '../../../../server/codecs/protobuf.js';
import { findKubectl } from '../../../helpers/kubectl.js';

const MAGIC = Buffer.from('k8s\0', 'latin1');
// kubectl 1.32 and 1.33 send protobuf; a missing one fails its tests (test/helpers/kubectl.ts).
const FOUND = ['1.32', '1.33'].map(findKubectl);
const KUBECTLS = FOUND.flatMap((k) => (k.binary ? [k.binary] : []));

// An encoder built from the same definitions: good for table tests of the JSON mapping, blind to a
// wrong field number. The kubectl bodies and struct tags further down cover that.
const root = new protobuf.Root();
for (const text of Object.values(KUBE_PROTOS)) protobuf.parse(text, root, { keepCase: true });
root.resolveAll();

function envelope(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const bytes = unknown
    .encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }))
    .finish();
  return Buffer.concat([MAGIC, bytes]);
}

function encode(apiVersion: string, kind: string, typeName: string, object: Record<string, unknown>): Buffer {
  const type = root.lookupType(typeName);
  const problem = type.verify(object);
  if (problem) throw new Error(`${typeName}: ${problem}`);
  return envelope(apiVersion, kind, type.encode(type.fromObject(object)).finish());
}

function statusOf(fn: () => unknown): Status {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return (err as ApiError).status;
  }
  throw new Error('expected an ApiError');
}

const hex = (s: string): Buffer => Buffer.from(s, 'hex');

// Bodies recorded from kubectl 1.32.x and 1.33.1 (byte-identical in both), so these run without kubectl.
// The rbac ones came from kubectl create role|clusterrole|rolebinding|clusterrolebinding.
const RECORDED = {
  createNamespace: hex(
    '6b3873000a0f0a02763112094e616d657370616365121f0a170a0764656d6f2d6e7312001a0022002a0032003800420012001a020a001a002200',
  ),
  canICreatePods: hex(
    '6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577123f0a100a0012001a0022002a0032003800420012210a1f0a0764656661756c7412066372656174651a0022002a04706f647332003a001a08080012001a0020001a002200',
  ),
  canIGetHealthz: hex(
    '6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577122f0a100a0012001a0022002a003200380042001211120f0a082f6865616c74687a12036765741a08080012001a0020001a002200',
  ),
  canIList: hex(
    '6b3873000a310a17617574686f72697a6174696f6e2e6b38732e696f2f7631121653656c665375626a65637452756c657352657669657712230a100a0012001a0022002a0032003800420012090a0764656661756c741a04180022001a002200',
  ),
  whoami: hex(
    '6b3873000a2d0a1861757468656e7469636174696f6e2e6b38732e696f2f7631121153656c665375626a656374526576696577121a0a100a0012001a0022002a0032003800420012060a040a0012001a002200',
  ),
  // kubectl create role pod-reader --verb=get,list --resource=pods --resource-name=a --resource-name=b
  createRole: hex(
    '6b3873000a240a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311204526f6c6512370a1a0a0a706f642d72656164657212001a0022002a0032003800420012190a036765740a046c69737412001a04706f64732201612201621a002200',
  ),
  // kubectl create clusterrole nr --verb=get --non-resource-url=/healthz --resource=deployments.apps
  createClusterRole: hex(
    '6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c7573746572526f6c65123f0a120a026e7212001a0022002a0032003800420012180a036765741204617070731a0b6465706c6f796d656e7473120f0a036765742a082f6865616c74687a1a002200',
  ),
  // kubectl create clusterrole agg --aggregation-rule=rbac.example.com/aggregate=true
  createAggregatedClusterRole: hex(
    '6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b436c7573746572526f6c65123d0a130a0361676712001a0022002a003200380042001a260a240a220a1a726261632e6578616d706c652e636f6d2f6167677265676174651204747275651a002200',
  ),
  // kubectl create rolebinding rb --role=pod-reader --user=alice --serviceaccount=default:sa --group=devs
  createRoleBinding: hex(
    '6b3873000a2b0a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f7631120b526f6c6542696e64696e6712bc010a120a02726212001a0022002a00320038004200122a0a04557365721219726261632e617574686f72697a6174696f6e2e6b38732e696f1a05616c6963652200122a0a0547726f75701219726261632e617574686f72697a6174696f6e2e6b38732e696f1a04646576732200121f0a0e536572766963654163636f756e7412001a027361220764656661756c741a2d0a19726261632e617574686f72697a6174696f6e2e6b38732e696f1204526f6c651a0a706f642d7265616465721a002200',
  ),
  // kubectl create clusterrolebinding crb --clusterrole=agg --user=bob
  createClusterRoleBinding: hex(
    '6b3873000a320a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311212436c7573746572526f6c6542696e64696e67126e0a130a0363726212001a0022002a0032003800420012280a04557365721219726261632e617574686f72697a6174696f6e2e6b38732e696f1a03626f6222001a2d0a19726261632e617574686f72697a6174696f6e2e6b38732e696f120b436c7573746572526f6c651a036167671a002200',
  ),
};

const RBAC = 'rbac.authorization.k8s.io';

const EXPECTED = {
  createNamespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo-ns' }, spec: {}, status: {} },
  canICreatePods: {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
    status: { allowed: false },
  },
  canIGetHealthz: {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: {},
    spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' } },
    status: { allowed: false },
  },
  // kubectl sends the (empty) status too; Go writes incomplete and the userInfo struct regardless.
  canIList: {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata: {},
    spec: { namespace: 'default' },
    status: { incomplete: false },
  },
  whoami: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {}, status: { userInfo: {} } },
  // The group "" of pods is written ([""]); the server fills metadata.namespace from the URL.
  createRole: {
    apiVersion: `${RBAC}/v1`,
    kind: 'Role',
    metadata: { name: 'pod-reader' },
    rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a', 'b'] }],
  },
  createClusterRole: {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: { name: 'nr' },
    rules: [
      { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] },
      { verbs: ['get'], nonResourceURLs: ['/healthz'] },
    ],
  },
  // Go writes "rules": null here; empty lists are omitted throughout.
  createAggregatedClusterRole: {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: { name: 'agg' },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] },
  },
  // A ServiceAccount subject has no apiGroup (omitempty); users and groups have no namespace.
  createRoleBinding: {
    apiVersion: `${RBAC}/v1`,
    kind: 'RoleBinding',
    metadata: { name: 'rb' },
    subjects: [
      { kind: 'User', apiGroup: RBAC, name: 'alice' },
      { kind: 'Group', apiGroup: RBAC, name: 'devs' },
      { kind: 'ServiceAccount', name: 'sa', namespace: 'default' },
    ],
    roleRef: { apiGroup: RBAC, kind: 'Role', name: 'pod-reader' },
  },
  createClusterRoleBinding: {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: 'crb' },
    subjects: [{ kind: 'User', apiGroup: RBAC, name: 'bob' }],
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'agg' },
  },
};

/** Whether a recorded request said protobuf: its media type, parameters aside. */
const isProtobufContentType = (ct: string | undefined): boolean =>
  (ct ?? '').split(';')[0]!.trim().toLowerCase() === 'application/vnd.kubernetes.protobuf';

describe('decodeProtobufObject: bodies recorded from kubectl', () => {
  it.each(Object.keys(RECORDED) as Array<keyof typeof RECORDED>)('%s', (name) => {
    expect(decodeProtobufObject(RECORDED[name])).toEqual(EXPECTED[name]);
  });
});

describe('decodeProtobufObject: JSON mapping', () => {
  const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

  it('writes every ObjectMeta field as kube does', () => {
    const body = encode('v1', 'Namespace', 'k8s.io.api.core.v1.Namespace', {
      metadata: {
        name: 'full',
        generateName: 'f-',
        uid: 'abc',
        resourceVersion: '42',
        generation: 2 ** 40,
        creationTimestamp: { seconds: 1700000000, nanos: 999 },
        deletionTimestamp: { seconds: 1700000060 },
        deletionGracePeriodSeconds: 0,
        labels: { z: '1', a: '2' },
        annotations: { note: 'x' },
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: 'o1',
            controller: true,
            blockOwnerDeletion: false,
          },
          { apiVersion: '', kind: '', name: '', uid: '' },
        ],
        finalizers: ['example.com/f'],
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            apiVersion: 'v1',
            time: { seconds: 1700000000 },
            fieldsType: 'FieldsV1',
            fieldsV1: { Raw: Buffer.from('{"f:metadata":{"f:labels":{}}}') },
          },
          { manager: 'apply', operation: 'Apply', fieldsV1: {} },
        ],
      },
      spec: { finalizers: ['kubernetes'] },
      status: {
        phase: 'Active',
        conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: { seconds: 0 } }],
      },
    });
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'full',
        generateName: 'f-',
        uid: 'abc',
        resourceVersion: '42',
        generation: 2 ** 40,
        creationTimestamp: '2023-11-14T22:13:20Z',
        deletionTimestamp: '2023-11-14T22:14:20Z',
        deletionGracePeriodSeconds: 0,
        labels: { a: '2', z: '1' },
        annotations: { note: 'x' },
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'owner',
            uid: 'o1',
            controller: true,
            blockOwnerDeletion: false,
          },
          { apiVersion: '', kind: '', name: '', uid: '' },
        ],
        finalizers: ['example.com/f'],
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            apiVersion: 'v1',
            time: '2023-11-14T22:13:20Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:metadata': { 'f:labels': {} } },
          },
          { manager: 'apply', operation: 'Apply' },
        ],
      },
      spec: { finalizers: ['kubernetes'] },
      // seconds: 0 is on the wire, so it is the epoch rather than the zero time.
      status: {
        phase: 'Active',
        conditions: [
          { type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '1970-01-01T00:00:00Z' },
        ],
      },
    });
    // Go's encoding/json writes map keys sorted.
    expect(Object.keys((decodeProtobufObject(body)['metadata'] as { labels: object }).labels)).toEqual(['a', 'z']);
  });

  it("omits zero times: an empty Time message and Go's zero time", () => {
    const body = encode('v1', 'Namespace', 'k8s.io.api.core.v1.Namespace', {
      metadata: { name: 'n', creationTimestamp: {}, deletionTimestamp: { seconds: -62135596800 } },
    });
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n' },
      spec: {},
      status: {},
    });
  });

  it('decodes an Event with MicroTime, series and related', () => {
    const body = encode('v1', 'Event', 'k8s.io.api.core.v1.Event', {
      metadata: { name: 'ev.1', namespace: 'default' },
      involvedObject: {
        kind: 'Cache',
        namespace: 'default',
        name: 'web',
        uid: 'u',
        apiVersion: 'cache.example.com/v1alpha1',
        fieldPath: 'spec',
      },
      reason: 'Scaled',
      message: 'scaled to 3',
      source: { component: 'ctrl', host: 'node-1' },
      firstTimestamp: { seconds: 1700000000 },
      lastTimestamp: { seconds: 1700000100 },
      count: 3,
      type: 'Normal',
      eventTime: { seconds: 1700000000, nanos: 123456789 },
      series: { count: 2, lastObservedTime: { seconds: 1700000100, nanos: 1000 } },
      action: 'Scale',
      related: { kind: 'Pod', name: 'p' },
      reportingComponent: '',
      reportingInstance: 'ctrl-0',
    });
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'ev.1', namespace: 'default' },
      involvedObject: {
        kind: 'Cache',
        namespace: 'default',
        name: 'web',
        uid: 'u',
        apiVersion: 'cache.example.com/v1alpha1',
        fieldPath: 'spec',
      },
      reason: 'Scaled',
      message: 'scaled to 3',
      source: { component: 'ctrl', host: 'node-1' },
      firstTimestamp: '2023-11-14T22:13:20Z',
      lastTimestamp: '2023-11-14T22:15:00Z',
      count: 3,
      type: 'Normal',
      eventTime: '2023-11-14T22:13:20.123456Z',
      series: { count: 2, lastObservedTime: '2023-11-14T22:15:00.000001Z' },
      action: 'Scale',
      related: { kind: 'Pod', name: 'p' },
      reportingComponent: '',
      reportingInstance: 'ctrl-0',
    });
  });

  it('writes the structs and non-omitempty fields Go writes for an almost empty Event', () => {
    expect(decodeProtobufObject(encode('v1', 'Event', 'k8s.io.api.core.v1.Event', {}))).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {},
      involvedObject: {},
      source: {},
      reportingComponent: '',
      reportingInstance: '',
    });
  });

  it('decodes an events.k8s.io/v1 Event with every field', () => {
    const body = encode('events.k8s.io/v1', 'Event', 'k8s.io.api.events.v1.Event', {
      metadata: { name: 'ev.1', namespace: 'default' },
      eventTime: { seconds: 1700000000, nanos: 123456789 },
      series: { count: 2, lastObservedTime: { seconds: 1700000100, nanos: 1000 } },
      reportingController: 'example.com/ctrl',
      reportingInstance: 'ctrl-0',
      action: 'Scale',
      reason: 'Scaled',
      regarding: {
        kind: 'Deployment',
        namespace: 'default',
        name: 'web',
        uid: 'u',
        apiVersion: 'apps/v1',
        resourceVersion: '5',
        fieldPath: 'spec',
      },
      related: { kind: 'ReplicaSet', name: 'web-1' },
      note: 'scaled to 3',
      type: 'Normal',
      deprecatedSource: { component: 'ctrl', host: 'node-1' },
      deprecatedFirstTimestamp: { seconds: 1700000000 },
      deprecatedLastTimestamp: { seconds: 1700000100 },
      deprecatedCount: 3,
    });
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'ev.1', namespace: 'default' },
      eventTime: '2023-11-14T22:13:20.123456Z',
      series: { count: 2, lastObservedTime: '2023-11-14T22:15:00.000001Z' },
      reportingController: 'example.com/ctrl',
      reportingInstance: 'ctrl-0',
      action: 'Scale',
      reason: 'Scaled',
      regarding: {
        kind: 'Deployment',
        namespace: 'default',
        name: 'web',
        uid: 'u',
        apiVersion: 'apps/v1',
        resourceVersion: '5',
        fieldPath: 'spec',
      },
      related: { kind: 'ReplicaSet', name: 'web-1' },
      note: 'scaled to 3',
      type: 'Normal',
      deprecatedSource: { component: 'ctrl', host: 'node-1' },
      deprecatedFirstTimestamp: '2023-11-14T22:13:20Z',
      deprecatedLastTimestamp: '2023-11-14T22:15:00Z',
      deprecatedCount: 3,
    });
  });

  it('an almost empty events.k8s.io/v1 Event: eventTime is null (no omitempty), the structs are written', () => {
    expect(
      decodeProtobufObject(encode('events.k8s.io/v1', 'Event', 'k8s.io.api.events.v1.Event', { series: {} })),
    ).toEqual({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {},
      eventTime: null,
      // The series' count and lastObservedTime have no omitempty either.
      series: { count: 0, lastObservedTime: null },
      regarding: {},
      deprecatedSource: {},
    });
  });

  it('rbac: RoleRef fields are always written, Subject apiGroup and namespace only when set, aggregationRule only when sent', () => {
    const body = encode(`${RBAC}/v1`, 'ClusterRoleBinding', 'k8s.io.api.rbac.v1.ClusterRoleBinding', {
      subjects: [{}],
    });
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: {},
      subjects: [{ kind: '', name: '' }],
      roleRef: { apiGroup: '', kind: '', name: '' },
    });
    expect(decodeProtobufObject(encode(`${RBAC}/v1`, 'ClusterRole', 'k8s.io.api.rbac.v1.ClusterRole', {}))).toEqual({
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: {},
    });
    expect(
      decodeProtobufObject(
        encode(`${RBAC}/v1`, 'ClusterRole', 'k8s.io.api.rbac.v1.ClusterRole', { aggregationRule: {} }),
      ),
    ).toEqual({
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: {},
      aggregationRule: {},
    });
  });

  it('decodes selector attributes of a SelfSubjectAccessReview', () => {
    const body = encode(
      'authorization.k8s.io/v1',
      'SelfSubjectAccessReview',
      'k8s.io.api.authorization.v1.SelfSubjectAccessReview',
      {
        spec: {
          resourceAttributes: {
            verb: 'list',
            group: 'cache.example.com',
            version: 'v1alpha1',
            resource: 'caches',
            subresource: 'status',
            name: 'web',
            fieldSelector: {
              rawSelector: 'spec.x=1',
              requirements: [{ key: 'spec.x', operator: 'In', values: ['1'] }],
            },
            labelSelector: { requirements: [{ key: 'app', operator: 'Exists' }] },
          },
        },
        status: { allowed: true, denied: false, reason: 'rbac' },
      },
    );
    expect(decodeProtobufObject(body)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: {
        resourceAttributes: {
          verb: 'list',
          group: 'cache.example.com',
          version: 'v1alpha1',
          resource: 'caches',
          subresource: 'status',
          name: 'web',
          fieldSelector: { rawSelector: 'spec.x=1', requirements: [{ key: 'spec.x', operator: 'In', values: ['1'] }] },
          labelSelector: { requirements: [{ key: 'app', operator: 'Exists' }] },
        },
      },
      status: { allowed: true, reason: 'rbac' },
    });
  });

  it.each(['v1', 'meta.k8s.io/v1', 'apiextensions.k8s.io/v1', 'cache.example.com/v1alpha1'])(
    'decodes DeleteOptions in %s, keeping pointer fields that are zero',
    (apiVersion) => {
      const body = encode(apiVersion, 'DeleteOptions', `${META}.DeleteOptions`, {
        gracePeriodSeconds: 0,
        preconditions: { uid: 'u1', resourceVersion: '' },
        orphanDependents: false,
        propagationPolicy: 'Foreground',
        dryRun: ['All'],
      });
      expect(decodeProtobufObject(body)).toEqual({
        apiVersion,
        kind: 'DeleteOptions',
        gracePeriodSeconds: 0,
        preconditions: { uid: 'u1', resourceVersion: '' },
        orphanDependents: false,
        propagationPolicy: 'Foreground',
        dryRun: ['All'],
      });
    },
  );

  it('leaves unset pointer fields out of DeleteOptions', () => {
    expect(decodeProtobufObject(encode('v1', 'DeleteOptions', `${META}.DeleteOptions`, {}))).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
    });
  });

  it('skips fields it does not know, as gogo-protobuf does', () => {
    const ns = root.lookupType('k8s.io.api.core.v1.Namespace');
    const known = ns.encode(ns.fromObject({ metadata: { name: 'n' } })).finish();
    // Field 99, length-delimited, 3 bytes; then field 98 as a varint.
    const extra = Buffer.from([0x9a, 0x06, 0x03, 0x61, 0x62, 0x63, 0x90, 0x06, 0x07]);
    expect(decodeProtobufObject(envelope('v1', 'Namespace', Buffer.concat([known, extra])))).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n' },
      spec: {},
      status: {},
    });
  });

  it('treats a missing raw as an empty object', () => {
    expect(decodeProtobufObject(envelope('v1', 'Namespace', new Uint8Array()))).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {},
      spec: {},
      status: {},
    });
  });
});

describe('decodeProtobufObject: errors are 400 BadRequest with one line', () => {
  const ns = root.lookupType('k8s.io.api.core.v1.Namespace');
  const cases: Array<[string, Buffer, RegExp]> = [
    ['an empty body', Buffer.alloc(0), /the body is empty/],
    ['JSON sent with the protobuf type', Buffer.from('{"kind":"Namespace"}'), /expected prefix \[107 56 115 0\]/],
    ['a short body', Buffer.from('k8s'), /expected prefix/],
    ['the prefix alone', MAGIC, /only the protobuf prefix/],
    ['a truncated envelope', RECORDED.createNamespace.subarray(0, 20), /malformed Unknown message/],
    [
      'a truncated object',
      envelope(
        'v1',
        'Namespace',
        ns
          .encode(ns.fromObject({ metadata: { name: 'abcdef' } }))
          .finish()
          .subarray(0, 6),
      ),
      /malformed Namespace message/,
    ],
    ['no kind', envelope('v1', '', new Uint8Array()), /Object 'Kind' is missing/],
    ['no apiVersion', envelope('', 'Namespace', new Uint8Array()), /Object 'apiVersion' is missing/],
    [
      'a kind it has no definition for',
      envelope('apps/v1', 'Deployment', new Uint8Array()),
      /no kind "Deployment" is registered for version "apps\/v1".*application\/json/,
    ],
    [
      'a known kind in another version',
      envelope('v1beta1', 'Namespace', new Uint8Array()),
      /no kind "Namespace" is registered for version "v1beta1"/,
    ],
    [
      'managedFields with invalid JSON',
      encode('v1', 'Namespace', 'k8s.io.api.core.v1.Namespace', {
        metadata: { managedFields: [{ fieldsV1: { Raw: Buffer.from('{nope') } }] },
      }),
      /metadata\.managedFields\[0\]\.fieldsV1 is not valid JSON/,
    ],
    [
      'a time past year 9999',
      encode('v1', 'Namespace', 'k8s.io.api.core.v1.Namespace', {
        metadata: { creationTimestamp: { seconds: 253402300800 } },
      }),
      /metadata\.creationTimestamp is outside the years 0000-9999/,
    ],
  ];
  it.each(cases)('%s', (_name, body, message) => {
    const status = statusOf(() => decodeProtobufObject(body));
    expect(status).toMatchObject({ code: 400, reason: 'BadRequest', status: 'Failure' });
    expect(status.message).toMatch(message);
    expect(status.message).not.toContain('\n');
  });
});

// The Go struct tags compiled into kubectl carry every field's wire type, number and name, so each
// field written in KUBE_PROTOS is checked against upstream, not only those kubectl happens to send.
const tagSource = KUBECTLS[KUBECTLS.length - 1];
describe(`field numbers agree with the protobuf struct tags in ${tagSource ? path.basename(tagSource) : 'kubectl (not found)'}`, () => {
  it('every field of every message', () => {
    if (!tagSource) expect.fail(FOUND.map((k) => k.problem).join('\n'));
    const binary = readFileSync(tagSource!).toString('latin1');
    const tags = new Set<string>();
    for (const m of binary.matchAll(/protobuf:"([a-z0-9]+),(\d+),[^"]*?name=([A-Za-z0-9]+)/g))
      tags.add(`${m[1]},${m[2]},${m[3]}`);
    // Upstream's tags that disagree with generated.proto and the marshalling code: varint for this
    // string field, bytes for these integer and bool fields (kubectl's own bodies write a varint).
    const upstreamQuirks = new Map([
      ['DeleteOptions.propagationPolicy', 'varint'],
      ['ListMeta.remainingItemCount', 'bytes'],
      ['SubjectRulesReviewStatus.incomplete', 'bytes'],
      ['ServiceSpec.healthCheckNodePort', 'bytes'],
      ['ServiceSpec.allocateLoadBalancerNodePorts', 'bytes'],
    ]);
    const mismatches: string[] = [];
    const visit = (ns: protobuf.NamespaceBase): void => {
      for (const nested of ns.nestedArray) {
        // kubectl links no apiextensions types; those numbers are upstream's generated.proto as is.
        if (nested.fullName.startsWith('.k8s.io.apiextensions_apiserver.')) continue;
        if (nested instanceof protobuf.Type) {
          for (const field of nested.fieldsArray) {
            const length = field.map || field.resolvedType || field.type === 'string' || field.type === 'bytes';
            const wire = upstreamQuirks.get(`${nested.name}.${field.name}`) ?? (length ? 'bytes' : 'varint');
            if (!tags.has(`${wire},${field.id},${field.name}`))
              mismatches.push(`${nested.fullName}.${field.name} = ${field.id} (${wire})`);
          }
        }
        if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) visit(nested);
      }
    };
    visit(root);
    expect(tags.size).toBeGreaterThan(1000);
    expect(mismatches).toEqual([]);
  });
});

interface Recorded {
  method: string;
  url: string;
  contentType: string;
  body: Buffer;
}

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const resource = (group: string, plural: string, kind: string, scope: string, verbs: string[]) => ({
  resource: plural,
  responseKind: { group, version: 'v1', kind },
  scope,
  singularResource: kind.toLowerCase(),
  verbs,
});
const discovery = (items: unknown[]) => ({
  kind: 'APIGroupDiscoveryList',
  apiVersion: 'apidiscovery.k8s.io/v2',
  metadata: {},
  items,
});
const ALL_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];
const CORE = discovery([
  {
    metadata: { creationTimestamp: null },
    versions: [
      {
        version: 'v1',
        freshness: 'Current',
        resources: [
          resource('', 'namespaces', 'Namespace', 'Cluster', ALL_VERBS),
          resource('', 'pods', 'Pod', 'Namespaced', ALL_VERBS),
        ],
      },
    ],
  },
]);
const GROUPS = discovery([
  {
    metadata: { name: 'authorization.k8s.io', creationTimestamp: null },
    versions: [
      {
        version: 'v1',
        freshness: 'Current',
        resources: [
          resource('authorization.k8s.io', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', 'Cluster', [
            'create',
          ]),
          resource('authorization.k8s.io', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', 'Cluster', ['create']),
        ],
      },
    ],
  },
  {
    metadata: { name: 'authentication.k8s.io', creationTimestamp: null },
    versions: [
      {
        version: 'v1',
        freshness: 'Current',
        resources: [
          resource('authentication.k8s.io', 'selfsubjectreviews', 'SelfSubjectReview', 'Cluster', ['create']),
        ],
      },
    ],
  },
]);

/** Plausible JSON replies, enough for kubectl to print success; everything else is a 404 Status. */
function reply(method: string, pathname: string): [number, string, unknown] {
  const ts = '2024-01-01T00:00:00Z';
  if (pathname === '/api') return [200, AGGREGATED, CORE];
  if (pathname === '/apis') return [200, AGGREGATED, GROUPS];
  if (method === 'POST' && pathname === '/api/v1/namespaces') {
    return [
      201,
      'application/json',
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'demo-ns', uid: 'u1', resourceVersion: '1', creationTimestamp: ts },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      },
    ];
  }
  if (method === 'DELETE' && pathname === '/api/v1/namespaces/demo-ns') {
    return [
      200,
      'application/json',
      {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'demo-ns', uid: 'u1', resourceVersion: '2', creationTimestamp: ts, deletionTimestamp: ts },
        spec: {},
        status: { phase: 'Terminating' },
      },
    ];
  }
  if (method === 'POST' && pathname === '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews') {
    return [
      201,
      'application/json',
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        metadata: {},
        spec: {},
        status: { allowed: true },
      },
    ];
  }
  if (method === 'POST' && pathname === '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews') {
    return [
      201,
      'application/json',
      {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectRulesReview',
        metadata: {},
        spec: {},
        status: { resourceRules: [], nonResourceRules: [], incomplete: false },
      },
    ];
  }
  if (method === 'POST' && pathname === '/apis/authentication.k8s.io/v1/selfsubjectreviews') {
    return [
      201,
      'application/json',
      {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
        metadata: {},
        status: { userInfo: { username: 'tester' } },
      },
    ];
  }
  if (method === 'POST' && pathname === '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles') {
    return [
      201,
      'application/json',
      {
        ...EXPECTED.createRole,
        metadata: { name: 'pod-reader', namespace: 'default', uid: 'u2', resourceVersion: '3', creationTimestamp: ts },
      },
    ];
  }
  return [
    404,
    'application/json',
    {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    },
  ];
}

describe('the kubectl binaries that send protobuf', () => {
  it.each(FOUND)('kubectl $version is there', (k) => {
    if (!k.binary) expect.fail(k.problem);
  });
});

for (const kubectl of KUBECTLS) {
  describe(`bodies ${path.basename(kubectl)} sends to a recording server`, () => {
    const requests: Recorded[] = [];
    let server: http.Server;
    let dir: string;

    beforeAll(async () => {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const url = new URL(req.url ?? '/', 'http://127.0.0.1');
          requests.push({
            method: req.method ?? '',
            url: req.url ?? '',
            contentType: req.headers['content-type'] ?? '',
            body: Buffer.concat(chunks),
          });
          const [code, contentType, payload] = reply(req.method ?? '', url.pathname);
          res.writeHead(code, { 'Content-Type': contentType });
          res.end(JSON.stringify(payload));
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      dir = mkdtempSync(path.join(os.tmpdir(), 'protobuf-capture-'));
      writeFileSync(
        path.join(dir, 'kubeconfig'),
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters: [{name: c, cluster: {server: "http://127.0.0.1:' + port + '"}}]',
          'users: [{name: u, user: {token: t}}]',
          'contexts: [{name: x, context: {cluster: c, user: u, namespace: default}}]',
          'current-context: x',
          '',
        ].join('\n'),
      );
    });

    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    });

    /** Runs kubectl (asynchronously: the recording server lives in this process) and returns the request it sent. */
    async function capture(
      args: string[],
      method: string,
      pathname: string,
    ): Promise<{ stdout: string; request: Recorded }> {
      const from = requests.length;
      const { stdout } = await promisify(execFile)(
        kubectl,
        ['--kubeconfig', path.join(dir, 'kubeconfig'), '--cache-dir', path.join(dir, 'cache'), ...args],
        {
          timeout: 30_000,
        },
      );
      const request = requests
        .slice(from)
        .find((r) => r.method === method && new URL(r.url, 'http://x').pathname === pathname);
      if (!request)
        throw new Error(
          `kubectl ${args.join(' ')} sent no ${method} ${pathname}; it sent ${requests
            .slice(from)
            .map((r) => `${r.method} ${r.url}`)
            .join(', ')}`,
        );
      return { stdout, request };
    }

    it('create namespace sends a protobuf Namespace', async () => {
      const { stdout, request } = await capture(['create', 'namespace', 'demo-ns'], 'POST', '/api/v1/namespaces');
      expect(stdout).toContain('namespace/demo-ns created');
      expect(isProtobufContentType(request.contentType)).toBe(true);
      expect(decodeProtobufObject(request.body)).toEqual(EXPECTED.createNamespace);
    });

    it('auth can-i create pods sends a protobuf SelfSubjectAccessReview', async () => {
      const { stdout, request } = await capture(
        ['auth', 'can-i', 'create', 'pods'],
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      );
      expect(stdout.trim()).toBe('yes');
      expect(isProtobufContentType(request.contentType)).toBe(true);
      expect(decodeProtobufObject(request.body)).toEqual(EXPECTED.canICreatePods);
    });

    it('auth can-i get /healthz sends nonResourceAttributes', async () => {
      const { request } = await capture(
        ['auth', 'can-i', 'get', '/healthz'],
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      );
      expect(decodeProtobufObject(request.body)).toEqual(EXPECTED.canIGetHealthz);
    });

    it('auth can-i --list sends a protobuf SelfSubjectRulesReview', async () => {
      const { request } = await capture(
        ['auth', 'can-i', '--list'],
        'POST',
        '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
      );
      expect(isProtobufContentType(request.contentType)).toBe(true);
      expect(decodeProtobufObject(request.body)).toEqual(EXPECTED.canIList);
    });

    it('auth whoami sends a protobuf SelfSubjectReview', async () => {
      const { stdout, request } = await capture(
        ['auth', 'whoami'],
        'POST',
        '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      );
      expect(stdout).toContain('tester');
      expect(isProtobufContentType(request.contentType)).toBe(true);
      expect(decodeProtobufObject(request.body)).toEqual(EXPECTED.whoami);
    });

    it('create role sends a protobuf Role', async () => {
      const { stdout, request } = await capture(
        [
          'create',
          'role',
          'pod-reader',
          '--verb=get,list',
          '--resource=pods',
          '--resource-name=a',
          '--resource-name=b',
        ],
        'POST',
        '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
      );
      expect(stdout).toContain('role.rbac.authorization.k8s.io/pod-reader created');
      expect(isProtobufContentType(request.contentType)).toBe(true);
      expect(decodeProtobufObject(request.body)).toEqual(EXPECTED.createRole);
    });

    it('delete namespace still sends its DeleteOptions as JSON', async () => {
      const { request } = await capture(
        ['delete', 'namespace', 'demo-ns', '--wait=false'],
        'DELETE',
        '/api/v1/namespaces/demo-ns',
      );
      expect(request.contentType).toBe('application/json');
      expect(JSON.parse(request.body.toString('utf8'))).toEqual({ propagationPolicy: 'Background' });
    });
  });
}
