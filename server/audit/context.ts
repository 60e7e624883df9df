// The audit recorder of the request a response answers: the front door sets it once it knows who
// asks; the handlers that decode bodies and the one Status/document writer report to it. Keyed by
// the response, which every layer holds, so no signature has to carry it.
import type { ServerResponse } from 'node:http';
import type { AuditRecorder } from './event.js';

const recorders = new WeakMap<ServerResponse, AuditRecorder>();

export function setAuditRecorder(res: ServerResponse, rec: AuditRecorder): void {
  recorders.set(res, rec);
}

/** The request's recorder; undefined when nothing audits it. */
export const auditOf = (res: ServerResponse): AuditRecorder | undefined => recorders.get(res);
