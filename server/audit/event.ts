// audit.k8s.io/v1 Events, built as kube's audit filters build them (endpoints/filters/audit.go,
// audit/request.go, audit/context.go): one recorder per request, which the front door feeds as the
// request goes, and which hands each stage's event to the sink unless the policy omits the stage.
import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { AuthorizationAttributes, AuthorizationResult } from '../../apimachinery/authorization.js';
import type { StatusDetails } from '../../apimachinery/errors.js';
import { parseJSON, stringifyJSON } from '../../apimachinery/json.js';
import type { UserInfo } from '../../apimachinery/user.js';
import {
  type AuditLevel,
  type AuditStage,
  type PolicyRuleEvaluator,
  type RequestAuditConfig,
  levelAtLeast,
} from './policy.js';
import { isJsonObject } from '../../apimachinery/object.js';
import { type MicroClock, formatMicroTime } from '../../apimachinery/validation/micro-time.js';
import { systemClock } from '../../apimachinery/clock.js';

/** authentication/v1 UserInfo: every field omitempty. */
interface AuditUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** audit/v1 ObjectReference: every field omitempty. */
interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** The metav1.Status an event carries: kube copies only code, status, message, reason and details. */
interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** audit.k8s.io/v1 Event, keys in kube's order so the JSON lines read as kube's. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  user: AuditUserInfo;
  impersonatedUser?: AuditUserInfo;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: AuditResponseStatus;
  requestObject?: unknown;
  responseObject?: unknown;
  /** MicroTime: RFC 3339 in UTC with six fractional digits. */
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** kube's audit.Sink. Events are fresh objects: a sink may keep them. */
export interface AuditSink {
  processEvents(events: AuditEvent[]): void;
}

/** The fields of a metav1.Status a caller may hand over (an ApiError's status, say). */
interface StatusLike {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

export const AUDIT_ID_HEADER = 'Audit-ID';
const DECISION_ANNOTATION = 'authorization.k8s.io/decision';
const REASON_ANNOTATION = 'authorization.k8s.io/reason';

/** kube's WithAuditInit: the client's Audit-ID header as is (no truncation), else a new UUID. */
export function auditIDFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v ? v : randomUUID();
}

const MAX_USER_AGENT = 1024;

/** kube's maybeTruncateUserAgent. */
export function truncateUserAgent(ua: string | undefined): string {
  if (!ua) return '';
  return ua.length > MAX_USER_AGENT ? `${ua.slice(0, MAX_USER_AGENT)}...TRUNCATED` : ua;
}

// Go's ParseIPSloppy: IPv4 parts may carry leading zeros (read as decimal), IPv6 as usual.
function parseIPSloppy(s: string): string | undefined {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    return parts.every((n) => n <= 255) ? parts.join('.') : undefined;
  }
  if (isIP(s) !== 6) return undefined;
  return canonicalIPv6(s);
}

/** Go's net.IP.String(): IPv4-mapped addresses as IPv4, others RFC 5952 (lowercase, longest zero run as ::). */
function canonicalIPv6(s: string): string {
  let text = s.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -tail[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const h = head ? head.split(':') : [];
  const r = rest === undefined ? [] : rest ? rest.split(':') : [];
  const groups = rest === undefined ? h : [...h, ...Array<string>(8 - h.length - r.length).fill('0'), ...r];
  const nums = groups.map((g) => parseInt(g, 16));
  if (nums.slice(0, 5).every((n) => n === 0) && nums[5] === 0xffff) {
    return [nums[6]! >> 8, nums[6]! & 255, nums[7]! >> 8, nums[7]! & 255].join('.');
  }
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (nums[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && nums[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = nums.map((n) => n.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

function hostOf(remoteAddress: string): string {
  // Node gives the bare address; Go's RemoteAddr is host:port. Accept both.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(remoteAddress);
  if (bracketed) return bracketed[1]!;
  const v4port = /^([\d.]+):\d+$/.exec(remoteAddress);
  return v4port ? v4port[1]! : remoteAddress;
}

/**
 * kube's utilnet.SourceIPs: every valid address of X-Forwarded-For, then X-Real-Ip unless already
 * listed, then the connection's address unless it is the chain's last. Clients can forge the
 * headers; the connection's address is why it always comes last.
 */
export function sourceIPs(input: {
  xForwardedFor?: string | undefined;
  xRealIp?: string | undefined;
  remoteAddress?: string | undefined;
}): string[] {
  const ips: string[] = [];
  if (input.xForwardedFor) {
    for (const part of input.xForwardedFor.split(',')) {
      const ip = parseIPSloppy(part.trim());
      if (ip) ips.push(ip);
    }
  }
  if (input.xRealIp) {
    const ip = parseIPSloppy(input.xRealIp);
    if (ip && !ips.includes(ip)) ips.push(ip);
  }
  if (input.remoteAddress) {
    const ip = parseIPSloppy(hostOf(input.remoteAddress));
    if (ip && (ips.length === 0 || ips[ips.length - 1] !== ip)) ips.push(ip);
  }
  return ips;
}

/** kube's getAuthMethods: the message of a 401's audit event when no Status is logged. */
export function authenticationFailedMessage(attempted: { basic?: boolean; bearer?: boolean; x509?: boolean }): string {
  const methods = (['basic', 'bearer', 'x509'] as const).filter((m) => attempted[m]);
  return methods.length
    ? `Authentication failed, attempted: ${methods.join(', ')}`
    : 'Authentication failed, no credentials provided';
}

function auditUser(user: UserInfo | undefined): AuditUserInfo {
  const out: AuditUserInfo = {};
  if (!user) return out;
  if (user.name) out.username = user.name;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length)
    out.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

function withoutManagedFieldsOne(obj: unknown): unknown {
  if (!isJsonObject(obj) || !isJsonObject(obj.metadata) || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** kube's copyWithoutManagedFields: the object, a list's items and a Table's row objects, copied, never mutated. */
function withoutManagedFields(obj: unknown): unknown {
  if (!isJsonObject(obj)) return obj;
  let out = withoutManagedFieldsOne(obj) as Record<string, unknown>;
  if (Array.isArray(out.items)) out = { ...out, items: out.items.map(withoutManagedFieldsOne) };
  if (out.kind === 'Table' && Array.isArray(out.rows)) {
    out = {
      ...out,
      rows: out.rows.map((row) =>
        isJsonObject(row) && 'object' in row ? { ...row, object: withoutManagedFieldsOne(row.object) } : row,
      ),
    };
  }
  return out;
}

function isStatus(obj: unknown): obj is StatusLike {
  return isJsonObject(obj) && obj.kind === 'Status' && (obj.apiVersion === 'v1' || obj.apiVersion === undefined);
}

/** The bounded copy kube keeps of a Status (LogResponseObject). */
function boundedStatus(s: StatusLike): AuditResponseStatus {
  const out: AuditResponseStatus = { metadata: {} };
  if (s.status) out.status = s.status;
  if (s.message) out.message = s.message;
  if (s.reason) out.reason = s.reason;
  if (s.details && Object.keys(s.details).length) out.details = s.details;
  if (s.code) out.code = s.code;
  return out;
}

export interface BeginInput {
  /** The request as authorization sees it, with the authenticated (not impersonated) user. */
  attrs: AuthorizationAttributes;
  /** Path and query as the client sent them (Go's URL.RequestURI()). */
  requestURI: string;
  sourceIPs: string[];
  userAgent?: string | undefined;
  auditID: string;
  /** watch, and the streaming subresources (log, exec, attach, portforward, proxy): they get a ResponseStarted event. */
  longRunning?: boolean;
  /** Microseconds since the epoch; defaults to now. */
  requestReceived?: number;
}

/** Where the request object came from, when the route knows better than the URL (kube's gvr argument). */
interface ObjectGVR {
  apiGroup?: string;
  apiVersion?: string;
  resource?: string;
  subresource?: string;
}

export interface AuditRecorder {
  readonly auditID: string;
  readonly level: AuditLevel;
  /** False at level None: every method is then a no-op. */
  readonly enabled: boolean;
  /** kube's AddAuditAnnotation: the first value of a key stays. */
  annotate(key: string, value: string): void;
  /** The authorization filter's annotations: decision allow|forbid and the authorizer's reason. */
  authorized(result: AuthorizationResult): void;
  impersonated(user: UserInfo): void;
  /** kube's LogRequestObject: fills objectRef from the object's metadata; the body itself at Request and above. */
  requestObject(obj: unknown, gvr?: ObjectGVR): void;
  /** kube's LogRequestPatch: the patch document as the request object, at Request and above. */
  requestPatch(patch: unknown): void;
  /** kube's LogResponseObject: a Status becomes responseStatus; the body itself at RequestResponse. */
  responseObject(obj: unknown): void;
  /** The status line went out (101 for a WebSocket upgrade): a long-running request's ResponseStarted event. */
  responseStarted(code: number): void;
  /**
   * The response is done: ResponseComplete (after ResponseStarted for a long-running request).
   * Without a code, and none was sent (the client went away first), kube's faked
   * `200 Success "Connection closed early"` status is used.
   */
  complete(code?: number, status?: StatusLike, responseObject?: unknown): void;
  /** The handler threw unexpectedly: a Panic event, and no ResponseComplete. */
  panic(err: unknown): void;
}

class NoopRecorder implements AuditRecorder {
  readonly level: AuditLevel = 'None';
  readonly enabled = false;
  constructor(readonly auditID: string) {}
  annotate(): void {}
  authorized(): void {}
  impersonated(): void {}
  requestObject(): void {}
  requestPatch(): void {}
  responseObject(): void {}
  responseStarted(): void {}
  complete(): void {}
  panic(): void {}
}

class EventRecorder implements AuditRecorder {
  readonly enabled = true;
  readonly auditID: string;
  readonly level: AuditLevel;
  private readonly received: number;
  private readonly verb: string;
  private readonly requestURI: string;
  private readonly user: AuditUserInfo;
  private readonly ips: string[];
  private readonly userAgent: string;
  private readonly longRunning: boolean;
  private impersonatedUser: AuditUserInfo | undefined;
  private objectRef: AuditObjectReference | undefined;
  private status: AuditResponseStatus | undefined;
  private reqObject: unknown;
  private respObject: unknown;
  private readonly annotations = new Map<string, string>();
  private codeSent = false;
  private done = false;

  constructor(
    input: BeginInput,
    private readonly config: RequestAuditConfig,
    private readonly sink: AuditSink,
    private readonly clock: MicroClock,
    private readonly warn: (msg: string) => void,
  ) {
    this.auditID = input.auditID;
    this.level = config.level;
    this.received = input.requestReceived ?? clock();
    const a = input.attrs;
    this.verb = a.verb;
    this.requestURI = input.requestURI;
    this.user = auditUser(a.user);
    this.ips = [...input.sourceIPs];
    this.userAgent = truncateUserAgent(input.userAgent);
    this.longRunning = input.longRunning ?? false;
    if (a.resourceRequest) {
      this.objectRef = {};
      this.fillRef({
        namespace: a.namespace,
        name: a.name,
        resource: a.resource,
        subresource: a.subresource,
        apiGroup: a.apiGroup,
        apiVersion: a.apiVersion,
      });
    }
  }

  private fillRef(values: AuditObjectReference): void {
    const ref = (this.objectRef ??= {});
    for (const [k, v] of Object.entries(values) as [keyof AuditObjectReference, string | undefined][]) {
      if (v && !ref[k]) ref[k] = v;
    }
  }

  /** A fresh event in kube's key order, empty optional fields left out (Go's omitempty). */
  private snapshot(stage: AuditStage, stageTime: number): AuditEvent {
    const ev: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: this.level,
      auditID: this.auditID,
      stage,
      requestURI: this.requestURI,
      verb: this.verb,
      user: structuredClone(this.user),
    } as AuditEvent;
    if (this.impersonatedUser) ev.impersonatedUser = structuredClone(this.impersonatedUser);
    if (this.ips.length) ev.sourceIPs = [...this.ips];
    if (this.userAgent) ev.userAgent = this.userAgent;
    if (this.objectRef && Object.keys(this.objectRef).length) ev.objectRef = { ...this.objectRef };
    if (this.status) ev.responseStatus = structuredClone(this.status);
    if (this.reqObject !== undefined) ev.requestObject = this.reqObject;
    if (this.respObject !== undefined) ev.responseObject = this.respObject;
    ev.requestReceivedTimestamp = formatMicroTime(this.received);
    ev.stageTimestamp = formatMicroTime(stageTime);
    if (this.annotations.size) ev.annotations = Object.fromEntries(this.annotations);
    return ev;
  }

  /** kube's processAuditEvent: omitted stages are dropped; RequestReceived is stamped with the receipt time. */
  emit(stage: AuditStage): void {
    if (this.config.omitStages.includes(stage)) return;
    this.sink.processEvents([this.snapshot(stage, stage === 'RequestReceived' ? this.received : this.clock())]);
  }

  annotate(key: string, value: string): void {
    const old = this.annotations.get(key);
    if (old !== undefined && old !== value) {
      this.warn(
        `Failed to set annotations[${JSON.stringify(key)}] to ${JSON.stringify(value)} for audit:${JSON.stringify(this.auditID)}, it has already been set to ${JSON.stringify(old)}`,
      );
      return;
    }
    this.annotations.set(key, value);
  }

  authorized(result: AuthorizationResult): void {
    this.annotate(DECISION_ANNOTATION, result.decision === 'allow' ? 'allow' : 'forbid');
    this.annotate(REASON_ANNOTATION, result.reason);
  }

  impersonated(user: UserInfo): void {
    this.impersonatedUser = auditUser(user);
  }

  private prepare(obj: unknown): unknown {
    return this.config.omitManagedFields ? withoutManagedFields(obj) : obj;
  }

  /**
   * kube encodes the request body when it is logged; the registry goes on to default and mutate
   * the same object, so keep a copy as it was (JSON round trip: depth-safe and int64-exact).
   */
  private snapshotBody(obj: unknown): unknown {
    return parseJSON(stringifyJSON(this.prepare(obj)));
  }

  requestObject(obj: unknown, gvr?: ObjectGVR): void {
    if (this.done) return;
    const meta = isJsonObject(obj) && isJsonObject(obj.metadata) ? obj.metadata : undefined;
    const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    if (meta)
      this.fillRef({
        namespace: str(meta.namespace),
        name: str(meta.name),
        uid: str(meta.uid),
        resourceVersion: str(meta.resourceVersion),
      });
    if (gvr) {
      const ref = (this.objectRef ??= {});
      // kube sets group and version together, only when the version is still unknown.
      if (!ref.apiVersion) {
        if (gvr.apiGroup) ref.apiGroup = gvr.apiGroup;
        if (gvr.apiVersion) ref.apiVersion = gvr.apiVersion;
      }
      this.fillRef({ resource: gvr.resource, subresource: gvr.subresource });
    }
    if (levelAtLeast(this.level, 'Request')) this.reqObject = this.snapshotBody(obj);
  }

  requestPatch(patch: unknown): void {
    if (this.done || !levelAtLeast(this.level, 'Request')) return;
    // The patch as sent: omitManagedFields is about objects, not patches (kube logs patch bytes as is).
    this.reqObject = parseJSON(stringifyJSON(patch));
  }

  responseObject(obj: unknown): void {
    if (this.done) return;
    if (isStatus(obj)) this.status = boundedStatus(obj);
    if (levelAtLeast(this.level, 'RequestResponse')) this.respObject = this.prepare(obj);
  }

  /** kube's auditResponseWriter.processCode: once, on the first status line. */
  private processCode(code: number): void {
    if (this.codeSent) return;
    this.codeSent = true;
    (this.status ??= { metadata: {} }).code = code;
    if (this.longRunning) this.emit('ResponseStarted');
  }

  responseStarted(code: number): void {
    if (this.done) return;
    this.processCode(code);
  }

  complete(code?: number, status?: StatusLike, responseObject?: unknown): void {
    if (this.done) return;
    if (status) {
      const previous = this.status?.code;
      this.status = boundedStatus(status);
      if (this.codeSent && this.status.code === undefined && previous !== undefined) this.status.code = previous;
    }
    if (responseObject !== undefined) this.responseObject(responseObject);
    if (code !== undefined) this.processCode(code);
    else if (!this.status) {
      this.status = { metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 };
      if (this.longRunning && !this.codeSent) this.emit('ResponseStarted');
    }
    this.done = true;
    this.emit('ResponseComplete');
  }

  /** A responseStatus carrying only a message (kube's failed-authentication event). */
  statusMessage(message: string): void {
    this.status = { metadata: {}, message };
  }

  panic(err: unknown): void {
    if (this.done) return;
    this.done = true;
    const why = err instanceof Error ? err.message : String(err);
    this.status = {
      metadata: {},
      status: 'Failure',
      message: `APIServer panic'd: ${why}`,
      reason: 'InternalError',
      code: 500,
    };
    this.emit('Panic');
  }
}

interface AuditorOptions {
  policy: PolicyRuleEvaluator;
  sink: AuditSink;
  clock?: MicroClock;
  /** Where kube would klog a warning (a conflicting annotation). */
  warn?: (msg: string) => void;
}

/** The audit front: evaluates the policy once per request and hands back its recorder. */
export class Auditor {
  private readonly clock: MicroClock;
  private readonly warn: (msg: string) => void;

  constructor(private readonly opts: AuditorOptions) {
    this.clock = opts.clock ?? (() => systemClock.nowMicros());
    this.warn = opts.warn ?? (() => {});
  }

  /** kube's WithAudit: decides the level; above None, sends RequestReceived at once. */
  begin(input: BeginInput): AuditRecorder {
    const config = this.opts.policy.evaluate(input.attrs);
    if (config.level === 'None') return new NoopRecorder(input.auditID);
    const rec = new EventRecorder(input, config, this.opts.sink, this.clock, this.warn);
    rec.emit('RequestReceived');
    return rec;
  }

  /**
   * kube's WithFailedAuthenticationAudit: a 401 gets one event, stage ResponseStarted, with no user.
   * `attrs.user` should be empty (name '', no groups), as kube evaluates the policy with none.
   * `status` is the Status written to the client (kube logs it when the handler writes one);
   * without it the message says which credentials were tried.
   */
  failedAuthentication(
    input: BeginInput,
    attempted: { basic?: boolean; bearer?: boolean; x509?: boolean },
    status?: StatusLike,
  ): void {
    const config = this.opts.policy.evaluate(input.attrs);
    if (config.level === 'None') return;
    const rec = new EventRecorder({ ...input, longRunning: true }, config, this.opts.sink, this.clock, this.warn);
    if (status) rec.responseObject({ ...status, kind: 'Status' });
    else rec.statusMessage(authenticationFailedMessage(attempted));
    rec.responseStarted(401);
  }
}
