// core/v1 Service, served as data: stored, listed, watched and printed as kube prints it, so that
// `kubectl get services` and `kubectl cluster-info` work. There is no proxying (services/proxy is
// not served), no cluster IP or node port allocation and no endpoints: a Service keeps the
// clusterIP it was given ("None" for a headless one), or none.
//
// Defaults are kube's (SetDefaults_Service, SetDefaults_ServicePort) for the fields they need no
// allocator for; validation is a subset of kube's ValidateService: the name, type, ports (name,
// port 1-65535, protocol, targetPort, duplicates), clusterIP (an IP or "None", immutable once set),
// externalName for ExternalName, sessionAffinity and nodePort's ClusterIP rule.
import { isIP } from 'node:net';
import { defineStrategy, keepStoredStatus, statusUpdate, STATUS_RESET, withoutStatus } from '../base-strategy.js';
import { serviceSchema } from '../../../apimachinery/apis/builtin-schemas.js';
import { type BuiltinKind, storedKind } from './kind.js';
import type { ServedColumn } from '../catalog.js';
import type { KindInfo } from '../strategy.js';
import { PRINTER_AGE } from './printer-columns.js';
import { objectMetaFieldLabels } from '../../../apimachinery/selectors/fields.js';
import {
  type FieldError,
  GoPrinted,
  duplicate,
  forbidden,
  index,
  invalid,
  notSupported,
  required,
} from '../../../apimachinery/field-errors.js';
import { type JsonObject, type KubeObject, isJsonObject } from '../../../apimachinery/object.js';
import { isDNS1123Label, isDNS1123Subdomain, validateDNS1035Label } from '../../../apimachinery/validation/names.js';

const serviceKind: KindInfo = {
  group: '',
  resource: 'services',
  kind: 'Service',
  listKind: 'ServiceList',
  namespaced: true,
};

const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const AFFINITIES = ['ClientIP', 'None'];
const PORT_RANGE = 'must be between 1 and 65535, inclusive';

const specOf = (obj: KubeObject): JsonObject => (isJsonObject(obj['spec']) ? obj['spec'] : {});
const portsOf = (spec: JsonObject): JsonObject[] =>
  Array.isArray(spec['ports']) ? spec['ports'].filter(isJsonObject) : [];
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** kube's SetDefaults_Service and SetDefaults_ServicePort, less what allocation decides. */
function defaultService(obj: KubeObject): void {
  if (!isJsonObject(obj['spec'])) obj['spec'] = {};
  const spec = obj['spec'] as JsonObject;
  spec['type'] ??= 'ClusterIP';
  spec['sessionAffinity'] ??= 'None';
  if (spec['type'] !== 'ExternalName') spec['internalTrafficPolicy'] ??= 'Cluster';
  if (typeof spec['clusterIP'] === 'string' && spec['clusterIP'] !== '' && spec['clusterIPs'] === undefined)
    spec['clusterIPs'] = [spec['clusterIP']];
  for (const port of portsOf(spec)) {
    port['protocol'] ??= 'TCP';
    // a missing or zero targetPort is the port (kube: intstr zero value)
    if (port['targetPort'] === undefined || port['targetPort'] === 0 || port['targetPort'] === '')
      port['targetPort'] = port['port'] ?? 0;
  }
}

/** kube's IsValidPortName (an IANA_SVC_NAME): at most 15 of [a-z0-9-], a letter, no `--`, no edge `-`. */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length < 1 || name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

const isPort = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 65535;

function validatePorts(spec: JsonObject, errs: FieldError[]): void {
  const ports = portsOf(spec);
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((port, i) => {
    const at = index('spec.ports', i);
    const name = typeof port['name'] === 'string' ? port['name'] : '';
    if (ports.length > 1 && name === '') errs.push(required(`${at}.name`));
    else if (name !== '') {
      for (const msg of isDNS1123Label(name)) errs.push(invalid(`${at}.name`, name, msg));
      if (names.has(name)) errs.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    if (!isPort(port['port'])) errs.push(invalid(`${at}.port`, port['port'] ?? 0, PORT_RANGE));
    const protocol = port['protocol'];
    if (protocol === undefined || protocol === '') errs.push(required(`${at}.protocol`));
    else if (typeof protocol !== 'string' || !PROTOCOLS.includes(protocol))
      errs.push(notSupported(`${at}.protocol`, protocol, PROTOCOLS));
    const target = port['targetPort'];
    if (typeof target === 'number') {
      if (!isPort(target)) errs.push(invalid(`${at}.targetPort`, target, PORT_RANGE));
    } else if (typeof target === 'string') {
      for (const msg of portNameErrors(target)) errs.push(invalid(`${at}.targetPort`, target, msg));
    }
    const nodePort = port['nodePort'];
    if (nodePort !== undefined && nodePort !== 0) {
      if (spec['type'] === 'ClusterIP')
        errs.push(forbidden(`${at}.nodePort`, "may not be used when `type` is 'ClusterIP'"));
      else if (!isPort(nodePort)) errs.push(invalid(`${at}.nodePort`, nodePort, PORT_RANGE));
    }
    // kube's key is a ServicePort of just protocol and port, printed by Go's %#v
    const key = `${String(protocol)}/${String(port['port'])}`;
    if (seen.has(key)) {
      errs.push(
        duplicate(
          at,
          new GoPrinted(
            `core.ServicePort{Name:"", Protocol:"${String(protocol)}", AppProtocol:(*string)(nil), Port:${String(port['port'])}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
          ),
        ),
      );
    }
    seen.add(key);
  });
}

/** The subset of kube's ValidateService described at the top. */
function validateService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(obj);
  const type = spec['type'];
  if (typeof type !== 'string' || !TYPES.includes(type)) errs.push(notSupported('spec.type', type ?? '', TYPES));
  const affinity = spec['sessionAffinity'];
  if (typeof affinity !== 'string' || !AFFINITIES.includes(affinity))
    errs.push(notSupported('spec.sessionAffinity', affinity ?? '', AFFINITIES));
  const clusterIP = typeof spec['clusterIP'] === 'string' ? spec['clusterIP'] : '';
  const headless = clusterIP === 'None';
  if (type === 'ExternalName') {
    if (clusterIP !== '') errs.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    const externalName = typeof spec['externalName'] === 'string' ? spec['externalName'] : '';
    if (externalName === '') errs.push(required('spec.externalName'));
    else
      for (const msg of isDNS1123Subdomain(externalName.replace(/\.$/, '')))
        errs.push(invalid('spec.externalName', externalName, msg));
  } else if (portsOf(spec).length === 0 && !headless) {
    errs.push(required('spec.ports'));
  }
  const clusterIPs = strings(spec['clusterIPs']);
  clusterIPs.forEach((ip, i) => {
    if (ip === 'None' ? clusterIPs.length > 1 : isIP(ip) === 0) {
      errs.push(
        invalid(
          index('spec.clusterIPs', i),
          ip,
          "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff) or 'None'",
        ),
      );
    }
  });
  if (clusterIP !== '' && clusterIPs.length > 0 && clusterIPs[0] !== clusterIP) {
    errs.push(invalid('spec.clusterIPs', clusterIPs, 'first value must match `clusterIP`'));
  }
  if (headless && (type === 'NodePort' || type === 'LoadBalancer'))
    errs.push(invalid('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${type} services`));
  validatePorts(spec, errs);
  return errs;
}

/** kube's ValidateServiceUpdate, as far as we keep: a cluster IP, once set, stays. */
function validateServiceUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateService(obj);
  const was = specOf(old)['clusterIP'];
  const now = specOf(obj)['clusterIP'];
  if (typeof was === 'string' && was !== '' && now !== was && specOf(obj)['type'] !== 'ExternalName') {
    errs.push(invalid('spec.clusterIPs[0]', now ?? '', 'may not change once set'));
  }
  return errs;
}

// ---- printing ---------------------------------------------------------------------------------

/** kube's makePortString: `80/TCP`, `80:30080/TCP`, comma-joined. */
function servicePorts(obj: KubeObject): string {
  const pieces = portsOf(specOf(obj)).map((p) => {
    const nodePort = typeof p['nodePort'] === 'number' && p['nodePort'] > 0 ? `:${p['nodePort']}` : '';
    return `${String(p['port'] ?? 0)}${nodePort}/${String(p['protocol'] ?? '')}`;
  });
  return pieces.length ? pieces.join(',') : '<none>';
}

/** kube's getServiceExternalIP, wide (the server's tables are always wide). */
function serviceExternalIP(obj: KubeObject): string {
  const spec = specOf(obj);
  const externalIPs = strings(spec['externalIPs']);
  switch (spec['type']) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const status = isJsonObject(obj['status']) ? obj['status'] : {};
      const lb = isJsonObject(status['loadBalancer']) ? status['loadBalancer'] : {};
      const ingress = Array.isArray(lb['ingress']) ? lb['ingress'].filter(isJsonObject) : [];
      const lbIPs = ingress.flatMap((i) =>
        typeof i['ip'] === 'string' && i['ip']
          ? [i['ip']]
          : typeof i['hostname'] === 'string' && i['hostname']
            ? [i['hostname']]
            : [],
      );
      const all = [...lbIPs, ...externalIPs];
      return all.length ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return typeof spec['externalName'] === 'string' ? spec['externalName'] : '';
    default:
      return '<unknown>';
  }
}

/** kube's labels.FormatLabels of spec.selector: sorted `k=v`, or `<none>`. */
function serviceSelector(obj: KubeObject): string {
  const sel = specOf(obj)['selector'];
  const entries = isJsonObject(sel) ? Object.entries(sel).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [];
  return entries.length ? entries.map(([k, v]) => `${k}=${String(v)}`).join(',') : '<none>';
}

const SPEC_DOC = {
  type: 'type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer. "ClusterIP" allocates a cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the selector or if that is not specified, by manual construction of an Endpoints object or EndpointSlice objects. If clusterIP is "None", no virtual IP is allocated and the endpoints are published as a set of endpoints rather than a virtual IP. "NodePort" builds on ClusterIP and allocates a port on every node which routes to the same endpoints as the clusterIP. "LoadBalancer" builds on NodePort and creates an external load-balancer (if supported in the current cloud) which routes to the same endpoints as the clusterIP. "ExternalName" aliases this service to the specified externalName. Several other fields do not apply to ExternalName services. More info: https://kubernetes.io/docs/concepts/services-networking/service/#publishing-services-service-types',
  clusterIP:
    'clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName (which requires this field to be blank) or the type field is being changed from ExternalName (in which case this field may optionally be specified, as describe above).  Valid values are "None", empty string (""), or a valid IP address. Setting this to "None" makes a "headless service" (no virtual IP), which is useful when direct endpoint connections are preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and LoadBalancer. If this field is specified when creating a Service of type ExternalName, creation will fail. This field will be wiped when updating a Service to type ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  externalIPs:
    'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.  These IPs are not managed by Kubernetes.  The user is responsible for ensuring that traffic arrives at a node with this IP.  A common example is external load-balancers that are not part of the Kubernetes system.',
  ports:
    'The list of ports that are exposed by this service. More info: https://kubernetes.io/docs/concepts/services-networking/service/#virtual-ips-and-service-proxies',
  selector:
    'Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName. More info: https://kubernetes.io/docs/concepts/services-networking/service/',
};

/** kube's serviceColumnDefinitions (Name is the table's own first column). */
const SERVICE_COLUMNS: ServedColumn[] = [
  {
    name: 'Type',
    type: 'string',
    description: SPEC_DOC.type,
    jsonPath: '.spec.type',
    value: (obj) => String(specOf(obj)['type'] ?? ''),
  },
  {
    name: 'Cluster-IP',
    type: 'string',
    description: SPEC_DOC.clusterIP,
    jsonPath: '.spec.clusterIP',
    value: (obj) => strings(specOf(obj)['clusterIPs'])[0] ?? '<none>',
  },
  {
    name: 'External-IP',
    type: 'string',
    description: SPEC_DOC.externalIPs,
    jsonPath: '.spec.externalIPs',
    value: serviceExternalIP,
  },
  { name: 'Port(s)', type: 'string', description: SPEC_DOC.ports, jsonPath: '.spec.ports', value: servicePorts },
  PRINTER_AGE,
  {
    name: 'Selector',
    type: 'string',
    description: SPEC_DOC.selector,
    jsonPath: '.spec.selector',
    priority: 1,
    value: serviceSelector,
  },
];

// ---- the strategy -------------------------------------------------------------------------------

const update = { prepare: keepStoredStatus, validate: validateServiceUpdate, resetFields: STATUS_RESET };

const serviceStrategy = defineStrategy(serviceKind, {
  schemas: { v1: serviceSchema },
  fieldLabels: objectMetaFieldLabels(serviceKind.kind),
  canonicalize: (obj) => defaultService(obj),
  subresources: {
    status: statusUpdate({ allowUnconditional: true, ...update }, (obj, old) => validateServiceUpdate(obj, old)),
  },
  create: { prepare: withoutStatus, validateName: validateDNS1035Label, validate: validateService },
  update,
});

// ---- the `kubernetes` Service ---------------------------------------------------------------------

/**
 * kube's `default/kubernetes` Service (the control plane's "kubernetes service" controller),
 * without its cluster IP (we allocate none): HTTPS on 443 to the server's secure port.
 */
export function kubernetesService(securePort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }],
    },
  };
}

// core/v1 Service as data (no proxying, no IP allocation): `kubectl get services`, `cluster-info`.
export const SERVICES: BuiltinKind = storedKind(serviceStrategy, {
  singular: 'service',
  goPackage: 'k8s.io/api/core/v1',
  shortNames: ['svc'],
  categories: ['all'],
  schema: serviceSchema,
  subresources: ['status'],
  printerColumns: SERVICE_COLUMNS,
});
