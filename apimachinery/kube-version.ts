// The Kubernetes release whose API this server implements: /version's gitVersion and the OpenAPI
// documents' info.version name it.
export const KUBE_VERSION = { major: '1', minor: '33', patch: '0' } as const;
