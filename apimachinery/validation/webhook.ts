// kube's webhook client config rules (k8s.io/apiserver/pkg/util/webhook/validation.go), shared as
// kube shares them: the admission webhooks (admissionregistration) and the CRD conversion webhook
// (apiextensions) check a clientConfig's url or service with these, each at its own field path.
import { type FieldError, child, invalid, required } from '../field-errors.js';
import { parseGoURL, unescapeGoURL } from '../go-url.js';
import { isDNS1123Subdomain } from './names.js';

/** A clientConfig's service as a request holds it: anything may be absent or of another type. */
interface WebhookService {
  name?: unknown;
  namespace?: unknown;
  port?: unknown;
  path?: unknown;
}

const URL_FORM = '; desired format: https://host[/path]';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** webhook.ValidateWebhookURL. */
export function validateWebhookURL(path: string, raw: string, forceHttps = true): FieldError[] {
  const parsed = parseGoURL(raw);
  if (!parsed.ok) return [required(path, `url must be a valid URL: ${parsed.error}${URL_FORM}`)];
  const u = parsed.url;
  const errs: FieldError[] = [];
  if (forceHttps && u.scheme !== 'https')
    errs.push(invalid(path, u.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (u.host.length === 0) errs.push(invalid(path, u.host, `host must be provided${URL_FORM}`));
  if (u.user !== undefined) errs.push(invalid(path, u.user, 'user information is not permitted in the URL'));
  // Go's URL.Fragment is the unescaped fragment.
  if (u.fragment.length !== 0)
    errs.push(invalid(path, unescapeGoURL(u.fragment), 'fragments are not permitted in the URL'));
  if (u.rawQuery.length !== 0) errs.push(invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService. */
export function validateWebhookService(path: string, svc: WebhookService): FieldError[] {
  const errs: FieldError[] = [];
  if (str(svc.name).length === 0) errs.push(required(child(path, 'name'), 'service name is required'));
  if (str(svc.namespace).length === 0) errs.push(required(child(path, 'namespace'), 'service namespace is required'));
  // Defaulting sets 443; an absent port reads as Go's zero.
  const port = typeof svc.port === 'number' ? svc.port : 0;
  if (!(port >= 1 && port <= 65535))
    errs.push(invalid(child(path, 'port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const urlPath = str(svc.path);
  if (urlPath === '/' || urlPath.length === 0) return errs;
  const pathField = child(path, 'path');
  if (urlPath === '//') {
    errs.push(invalid(pathField, urlPath, 'segment[0] may not be empty'));
    return errs;
  }
  if (!urlPath.startsWith('/')) errs.push(invalid(pathField, urlPath, "must start with a '/'"));
  let toCheck = urlPath.slice(1);
  if (toCheck.endsWith('/')) toCheck = toCheck.slice(0, -1);
  toCheck.split('/').forEach((step, i) => {
    if (step.length === 0) {
      errs.push(invalid(pathField, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step)) errs.push(invalid(pathField, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}
