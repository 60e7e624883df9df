// The Cache CRD validate's tests use, unit and e2e alike: CEL rules with a message, a
// messageExpression and a transition rule, defaults, a status subresource, a deprecated version
// and one not served; and Cache objects of it. The messageExpression formats the size: kube
// refuses `'size ' + string(self.size)`, whose estimated cost is unbounded (string() of an int has
// no size cel-go can bound; kubernetes/kubernetes#124234).

export const CACHE_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: caches.cache.example.com}
spec:
  group: cache.example.com
  scope: Namespaced
  names: {plural: caches, singular: cache, kind: Cache}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: "self.maxSize >= self.size", message: "maxSize must be >= size"}
            - {rule: "self.size != 7", messageExpression: "'size %d is unlucky'.format([self.size])"}
            properties:
              size: {type: integer, minimum: 1, maximum: 10}
              maxSize: {type: integer, default: 10}
              engine:
                type: string
                enum: [redis, memcached]
                default: redis
                x-kubernetes-validations:
                - {rule: "self == oldSelf", messageExpression: "'engine is immutable: was ' + oldSelf"}
          status: {type: object, properties: {ready: {type: boolean}}}
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v1alpha1
    served: false
    storage: false
    schema: {openAPIV3Schema: {type: object}}
`;

/** A Cache (v1 unless `apiVersion` says otherwise) named `name` with this spec, and more fields. */
export const cache = (
  name: string,
  spec: Record<string, unknown>,
  more: Record<string, unknown> = {},
  apiVersion = 'cache.example.com/v1',
): Record<string, unknown> => ({ apiVersion, kind: 'Cache', metadata: { name }, spec, ...more });
