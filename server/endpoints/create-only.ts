// POST to a resource that computes its answer (kube's access reviews, a ServiceAccount's token):
// the body decoded as any typed object is (JSON, YAML or protobuf), checked to be the resource's
// kind, handed to the resource's handler, and the result answered 201 Created, as kube's
// create-only REST storages answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../../apimachinery/user.js';
import { type KubeObject, isJsonObject } from '../../apimachinery/object.js';
import type { CreateOnlyHandler, ResourceDescriptor } from '../registry/catalog.js';
import type { RequestInfo } from '../request/request-info.js';
import { decodeObjectBody, readBody } from './body.js';
import { checkBodyObject } from './body-object.js';
import { sendJson } from './respond.js';
import { negotiateResourceOutput } from './output.js';
import { addWarning } from './field-validation.js';
import { auditOf } from '../audit/context.js';

interface CreateOnlyCtx {
  req: IncomingMessage;
  res: ServerResponse;
  info: RequestInfo;
  desc: ResourceDescriptor;
  user: UserInfo;
  maxRequestBodyBytes: number;
}

export async function serveCreateOnly(ctx: CreateOnlyCtx, handler: CreateOnlyHandler): Promise<void> {
  // Negotiated first, as kube's create handler does; these kinds are typed (JSON where one has no protobuf encoding).
  const { mediaType } = negotiateResourceOutput(ctx.req.headers.accept, true);
  const { value } = await decodeObjectBody(
    await readBody(ctx.req, ctx.maxRequestBodyBytes),
    ctx.req.headers['content-type'],
    true,
  );
  // A subresource's body is its own kind (a TokenRequest, not a ServiceAccount): its handler decodes it.
  const obj = ctx.info.subresource
    ? isJsonObject(value)
      ? (value as unknown as KubeObject)
      : checkBodyObject(ctx.desc, value, { group: ctx.desc.group, name: ctx.desc.names.kind })
    : checkBodyObject(ctx.desc, value, { group: ctx.desc.group, name: ctx.desc.names.kind });
  auditOf(ctx.res)?.requestObject(obj);
  const answer = await handler({
    obj,
    user: ctx.user,
    namespace: ctx.info.namespace,
    name: ctx.info.name,
    warn: (text) => addWarning(ctx.res, text),
  });
  sendJson(ctx.res, 201, answer, mediaType);
}
