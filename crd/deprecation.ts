// The warning kube sends with every request to a deprecated version of a CRD
// (apiextensions-apiserver's customresource_handler.go, defaultDeprecationWarning).
import type { CustomResourceDefinition } from '../apimachinery/apis/apiextensions.js';
import { compareKubeAwareVersions } from '../apimachinery/versions.js';

/**
 * The version's deprecationWarning, else kube's text, which names the highest-ranked served,
 * undeprecated version above it; undefined when the version is not deprecated. An empty
 * deprecationWarning is returned as it is: the warning recorder drops it, as kube's does.
 */
export function deprecationWarning(crd: CustomResourceDefinition, version: string): string | undefined {
  const { group, names, versions } = crd.spec;
  const v = versions.find((x) => x.name === version);
  if (!v?.deprecated) return undefined;
  if (v.deprecationWarning !== undefined) return v.deprecationWarning;
  const text = `${group}/${version} ${names.kind} is deprecated`;
  const newer = versions
    .filter((x) => x.served && !x.deprecated && compareKubeAwareVersions(version, x.name) < 0)
    .map((x) => x.name)
    .sort((a, b) => compareKubeAwareVersions(b, a));
  return newer.length === 0 ? text : `${text}; use ${group}/${newer[0]} ${names.kind}`;
}
