// The admin kubeconfig: one cluster (server URL + CA data), one token user, one current context.
import { encodeYaml } from './codecs/yaml-encode.js';

const CONTEXT_NAME = 'mini-apiserver';

/** The host clients dial: loopback when we listen on every interface. */
export function clientHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::') return '127.0.0.1';
  return bindAddress;
}

/**
 * host:port in URL form, brackets around an IPv6 literal (the one kind of host with a colon: an
 * address or a name, never a host:port). Not net.isIPv6, whose first call compiles a regular
 * expression that costs a start milliseconds.
 */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

interface KubeconfigParams {
  server: string;
  caCert: string;
  token: string;
  userName: string;
}

/** YAML as kubectl writes it (our sigs.k8s.io/yaml writer: the `yaml` package is not loaded at start-up). */
export function renderKubeconfig({ server, caCert, token, userName }: KubeconfigParams): string {
  return encodeYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: CONTEXT_NAME, cluster: { server, 'certificate-authority-data': Buffer.from(caCert).toString('base64') } },
    ],
    users: [{ name: userName, user: { token } }],
    contexts: [{ name: CONTEXT_NAME, context: { cluster: CONTEXT_NAME, user: userName } }],
    'current-context': CONTEXT_NAME,
    preferences: {},
  });
}
