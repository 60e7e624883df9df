// The events kind without what makes an event valid: the store, endpoint and admission tests use
// events as a plain namespaced kind, and are about those layers, not about event validation.
import { defineStrategy } from '../../server/registry/base-strategy.js';
import { EVENT_SCHEMAS, eventKind } from '../../server/registry/builtin/events.js';

export const plainEventStrategy = defineStrategy(eventKind, { schemas: EVENT_SCHEMAS });
