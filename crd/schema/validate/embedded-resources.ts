// Embedded resources (apiextensions-apiserver schema/objectmeta Validate, isResourceRoot=false):
// apiVersion, kind and metadata of every x-kubernetes-embedded-resource object.
import { type FieldError, child, index, invalid, key, required } from '../../../apimachinery/field-errors.js';
import { validateObjectMeta } from '../../../apimachinery/validation/object-meta.js';
import { appendAll } from '../../../apimachinery/append.js';
import { isDNS1035Label, validatePathSegmentName } from '../../../apimachinery/validation/names.js';
import { type DPath, type ValidationContext, dchild, dindex, goBadValue } from './go-values.js';
import { isJsonObject } from '../../../apimachinery/object.js';
import { type Node, additionalSchema } from './schema-node.js';

export function embeddedErrors(
  x: unknown,
  n: Node | undefined,
  pth: string,
  dpath: DPath,
  ctx: ValidationContext,
  out: FieldError[],
): void {
  // A value whose schema embeds no resource anywhere has nothing to check (and every write walked it whole).
  if (!n?.embeddedWithin) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => embeddedErrors(v, n.items, index(pth, i), dindex(dpath, i), ctx, out));
    return;
  }
  if (!isJsonObject(x)) return;
  if (n.embedded) embeddedResourceErrors(x, pth, dpath, ctx, out);
  for (const k of Object.keys(x)) {
    const p = n.properties.get(k);
    if (p) embeddedErrors(x[k], p, child(pth, k), dchild(dpath, k), ctx, out);
    else if (n.additionalProperties !== undefined)
      embeddedErrors(x[k], additionalSchema(n), key(pth, k), dchild(dpath, k), ctx, out);
  }
}

function embeddedResourceErrors(
  x: Record<string, unknown>,
  pth: string,
  dpath: DPath,
  ctx: ValidationContext,
  out: FieldError[],
): void {
  const apiVersionPath = child(pth, 'apiVersion');
  const kindPath = child(pth, 'kind');
  if (!Object.hasOwn(x, 'apiVersion')) out.push(required(apiVersionPath));
  if (!Object.hasOwn(x, 'kind')) out.push(required(kindPath));
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (k === 'apiVersion') {
      if (typeof v !== 'string')
        out.push(invalid(apiVersionPath, goBadValue(v, dchild(dpath, k), ctx.isFloat), 'must be a string'));
      else if (v === '') out.push(invalid(apiVersionPath, v, 'must not be empty'));
      else if (v !== '/' && v.split('/').length > 2)
        out.push(invalid(apiVersionPath, v, `unexpected GroupVersion string: ${v}`));
    } else if (k === 'kind') {
      if (typeof v !== 'string')
        out.push(invalid(kindPath, goBadValue(v, dchild(dpath, k), ctx.isFloat), 'must be a string'));
      else if (v === '') out.push(invalid(kindPath, v, 'must not be empty'));
      else {
        const msgs = isDNS1035Label(v.toLowerCase());
        if (msgs.length > 0)
          out.push(invalid(kindPath, v, `may have mixed case, but should otherwise match: ${msgs.join(',')}`));
      }
    } else if (k === 'metadata') {
      // kube decodes the metadata into an ObjectMeta (a decoding error is reported on
      // `metadata`) and validates it with a stand-in name when it has none.
      let meta: unknown = v ?? {};
      if (isJsonObject(meta)) {
        const name = meta['name'];
        if (name === undefined || name === null || name === '') meta = { ...meta, name: 'fakename' };
      }
      const ns = isJsonObject(meta) ? meta['namespace'] : undefined;
      appendAll(
        out,
        validateObjectMeta(meta, {
          namespaced: typeof ns === 'string' && ns !== '',
          validateName: validatePathSegmentName,
          path: child(pth, 'metadata'),
        }),
      );
    }
  }
}
