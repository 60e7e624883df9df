// What a watch is asked for: its options (selectors, resourceVersion and its match,
// sendInitialEvents, bookmarks, how objects are rendered), checked as kube checks them, and where
// the watch starts.
import { type FieldError, forbidden, notSupported } from '../../../apimachinery/field-errors.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import type { Store } from '../../registry/store.js';

export interface WatchOptions {
  store: Store;
  namespace: string | undefined;
  /** Label and field selectors; an object that stops matching is DELETED for this watcher. */
  predicate: ((obj: KubeObject) => boolean) | undefined;
  resourceVersion: string;
  resourceVersionMatch: string;
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
  timeoutSeconds: number | undefined;
  /** The object as the client sees it: apiVersion and kind, Table or metadata-only. */
  render(obj: KubeObject): unknown;
  /** `{apiVersion, kind}` of a BOOKMARK's object. */
  typeMeta: { apiVersion: string; kind: string };
  /** Watchers with equal keys render an object identically, so they share its serialisation. */
  renderKey: string;
  /**
   * For kinds served in several versions: objects (in the storage version) to the version asked
   * for, e.g. through a conversion webhook. Events then go out in order once converted.
   */
  convert?: (objects: KubeObject[]) => Promise<KubeObject[]>;
}

/** kube's validateWatchOptions (metainternalversion validation), with WatchList enabled. */
export function validateWatchOptions(
  o: Pick<WatchOptions, 'resourceVersionMatch' | 'sendInitialEvents'> & { continue: string },
): FieldError[] {
  const errs: FieldError[] = [];
  const match = o.resourceVersionMatch;
  if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push(
      forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'),
    );
  }
  if (match) {
    if (o.sendInitialEvents === undefined) {
      errs.push(
        forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    }
    if (match !== 'NotOlderThan') errs.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (o.continue)
      errs.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

/**
 * Where a (valid) watch starts: with the current objects as ADDED events, or after a revision.
 * With sendInitialEvents, the state "not older than" rv: we always have the newest.
 */
export function watchStart(o: Pick<WatchOptions, 'resourceVersion' | 'sendInitialEvents'>): {
  initial: boolean;
  afterRevision: number | undefined;
} {
  if (o.sendInitialEvents !== undefined)
    return {
      initial: o.sendInitialEvents,
      afterRevision: o.sendInitialEvents ? undefined : numeric(o.resourceVersion),
    };
  return { initial: o.resourceVersion === '' || o.resourceVersion === '0', afterRevision: numeric(o.resourceVersion) };
}

const numeric = (rv: string): number | undefined => (rv === '' || rv === '0' ? undefined : Number(rv));
