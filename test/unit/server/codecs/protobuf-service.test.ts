// core/v1 Service and ServiceList as protobuf: the encoder against the decoder, IntOrString in both
// forms, Go's omitempty and pointer semantics, and the bytes gogo writes for an IntOrString.
import { describe, expect, it } from 'vitest';
import { decodeProtobufObject } from '../../../../server/codecs/protobuf.js';
import { hasProtobufKind } from '../../../../server/codecs/messages.js';
import { encodeProtobufObject } from '../../../../server/codecs/protobuf-encode.js';

const roundTrip = (obj: Record<string, unknown>): Record<string, unknown> =>
  decodeProtobufObject(encodeProtobufObject(obj));

/** A Service with every field of ServiceSpec and ServiceStatus set to a non-zero value. */
const FULL: Record<string, unknown> = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'u1',
    resourceVersion: '9',
    creationTimestamp: '2024-05-01T10:00:00Z',
    labels: { app: 'web' },
  },
  spec: {
    ports: [
      { name: 'http', protocol: 'TCP', appProtocol: 'http', port: 80, targetPort: 8080, nodePort: 30080 },
      { name: 'metrics', protocol: 'UDP', port: 9090, targetPort: 'metrics' },
    ],
    selector: { app: 'web', tier: 'front' },
    clusterIP: '10.0.0.10',
    clusterIPs: ['10.0.0.10', 'fd00::10'],
    type: 'LoadBalancer',
    externalIPs: ['192.0.2.1'],
    sessionAffinity: 'ClientIP',
    loadBalancerIP: '192.0.2.2',
    loadBalancerSourceRanges: ['192.0.2.0/24'],
    externalName: 'x.example.com',
    externalTrafficPolicy: 'Local',
    healthCheckNodePort: 31000,
    publishNotReadyAddresses: true,
    sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
    ipFamilies: ['IPv4', 'IPv6'],
    ipFamilyPolicy: 'PreferDualStack',
    allocateLoadBalancerNodePorts: true,
    loadBalancerClass: 'example.com/lb',
    internalTrafficPolicy: 'Local',
    trafficDistribution: 'PreferClose',
  },
  status: {
    loadBalancer: {
      ingress: [
        {
          ip: '192.0.2.3',
          hostname: 'lb.example.com',
          ipMode: 'VIP',
          ports: [{ port: 80, protocol: 'TCP', error: 'Pending' }],
        },
      ],
    },
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        observedGeneration: 3,
        lastTransitionTime: '2024-05-01T10:00:00Z',
        reason: 'Ok',
        message: 'fine',
      },
    ],
  },
};

describe('Service and ServiceList: protobuf and back', () => {
  it('are kinds with a protobuf encoding', () => {
    expect(hasProtobufKind('v1', 'Service')).toBe(true);
    expect(hasProtobufKind('v1', 'ServiceList')).toBe(true);
  });

  it('a Service with every field set comes back unchanged', () => {
    expect(roundTrip(FULL)).toEqual(FULL);
  });

  it('a ServiceList: ListMeta and items, whose apiVersion and kind are not on the wire', () => {
    const { apiVersion: _a, kind: _k, ...item } = FULL;
    const list = { apiVersion: 'v1', kind: 'ServiceList', metadata: { resourceVersion: '12' }, items: [FULL, FULL] };
    expect(roundTrip(list)).toEqual({ ...list, items: [item, item] });
  });

  it('targetPort is a bare int or a bare string, as intstr.IntOrString marshals', () => {
    const svc = (targetPort: unknown) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { ports: [{ port: 80, protocol: 'TCP', targetPort }] },
    });
    const ports = (obj: Record<string, unknown>) => (obj['spec'] as { ports: Array<Record<string, unknown>> }).ports;
    expect(ports(roundTrip(svc(8080)))[0]!['targetPort']).toBe(8080);
    expect(ports(roundTrip(svc('http')))[0]!['targetPort']).toBe('http');
    // A numeric-looking string stays a string (type String), as Go's UnmarshalJSON keys on the quote.
    expect(ports(roundTrip(svc('8080')))[0]!['targetPort']).toBe('8080');
  });

  it('Go omitempty and pointers: zero scalars go, port and struct fields stay, set pointers stay even when zero', () => {
    const minimal = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: {
        ports: [{ name: '', protocol: '', port: 0, nodePort: 0 }],
        clusterIP: '',
        healthCheckNodePort: 0,
        publishNotReadyAddresses: false,
        allocateLoadBalancerNodePorts: false,
        ipFamilyPolicy: '',
        sessionAffinityConfig: {},
      },
    };
    expect(roundTrip(minimal)).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: {
        // port has no omitempty; targetPort is a struct, which omitempty never omits: Go writes 0.
        ports: [{ port: 0, targetPort: 0 }],
        allocateLoadBalancerNodePorts: false,
        ipFamilyPolicy: '',
        sessionAffinityConfig: {},
      },
      // status and its loadBalancer are structs: written even when empty, as kube's JSON has them.
      status: { loadBalancer: {} },
    });
  });

  it('status: a Condition writes reason and message without omitempty; a PortStatus its port and protocol', () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: {},
      status: { loadBalancer: { ingress: [{ ports: [{}] }] }, conditions: [{ type: 'T', status: 'False' }] },
    };
    expect(roundTrip(svc)).toEqual({
      ...svc,
      status: {
        loadBalancer: { ingress: [{ ports: [{ port: 0, protocol: '' }] }] },
        conditions: [{ type: 'T', status: 'False', lastTransitionTime: null, reason: '', message: '' }],
      },
    });
  });

  it('writes an IntOrString as gogo does: type, intVal and strVal, all three', () => {
    const bytes = (targetPort: unknown): string =>
      encodeProtobufObject({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {},
        spec: { ports: [{ port: 80, targetPort }] },
      }).toString('hex');
    // A ServicePort by field number: name "", protocol "", port 80, targetPort, nodePort 0 (appProtocol is a nil pointer).
    const servicePort = (targetPort: string): string => '0a00' + '1200' + '1850' + targetPort + '2800';
    // {type 0, intVal 8080, strVal ""}
    const int = '2207' + '0800' + '10903f' + '1a00';
    expect(bytes(8080)).toContain('0a' + '11' + servicePort(int));
    // {type 1, intVal 0, strVal "http"}
    const str = '220a' + '0801' + '1000' + '1a0468747470';
    expect(bytes('http')).toContain('0a' + '14' + servicePort(str));
  });
});
