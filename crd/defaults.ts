// apiextensions.k8s.io/v1 defaulting of a CustomResourceDefinition, as kube's v1 defaults.go and
// its generated defaulter: names, conversion strategy, webhook service port and storedVersions.
// Schema defaults inside openAPIV3Schema are not touched here.
import type { CRDNames, CRDSpec, CRDVersion, CustomResourceDefinition } from '../apimachinery/apis/apiextensions.js';

const DEFAULT_WEBHOOK_PORT = 443;

export function defaultCRD(crd: CustomResourceDefinition): void {
  const spec = materializeSpec(crd);
  const names = spec.names;
  const kind = typeof names.kind === 'string' ? names.kind : '';
  if (!names.singular) names.singular = kind.toLowerCase();
  if (!names.listKind && kind) names.listKind = `${kind}List`;
  spec.conversion ??= { strategy: 'None' };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service) service.port ??= DEFAULT_WEBHOOK_PORT;

  if (!crd.status?.storedVersions?.length) {
    const storage = spec.versions.find((v) => v.storage)?.name;
    if (storage !== undefined) {
      crd.status = { acceptedNames: { plural: '', kind: '' }, ...crd.status, storedVersions: [storage] };
    }
  }
}

/**
 * Go decodes into structs, so absent required fields read as zero values and are written back as
 * such (`served: false`, `group: ""`); doing the same keeps our objects byte-compatible. A CRD
 * defaulted already is not written to at all (the CRD controller's status write shares its spec
 * with the stored object).
 */
function materializeSpec(crd: CustomResourceDefinition): CRDSpec {
  const spec = (crd.spec ??= {} as CRDSpec);
  spec.group ??= '';
  spec.scope ??= '' as CRDSpec['scope'];
  spec.names ??= {} as CRDNames;
  spec.names.plural ??= '';
  spec.names.kind ??= '';
  // A null entry decodes to an all-zero version in Go.
  if (!spec.versions || spec.versions.includes(null as unknown as CRDVersion))
    spec.versions = (spec.versions ?? []).map((v) => v ?? ({} as CRDVersion));
  for (const v of spec.versions) {
    v.name ??= '';
    v.served ??= false;
    v.storage ??= false;
  }
  return spec;
}
