// What kubectl prints to stderr for a write the server refused (`kubectl create -f`, one object):
// cmdutil.CheckErr's text for an Invalid Status (kind, name and each cause, not the message), its
// `Error from server (<Reason>): ...` for any other Status, whose message AddSourceToErr prefixed
// with the file, and cli-runtime's error for an object no resource serves.
import type { Status } from '../../apimachinery/errors.js';
import { goQuote } from '../../apimachinery/field-errors.js';
import type { Outcome } from './validate.js';

/** kubectl's name for standard input as a source. */
export const STDIN_SOURCE = 'STDIN';

/** The lines kubectl prints for a refused write of an object read from `source`; empty for an accepted one. */
export function kubectlErrorText(outcome: Outcome, source: string): string {
  switch (outcome.result) {
    case 'valid':
      return '';
    case 'no-match':
      return (
        `error: resource mapping not found for name: ${goQuote(outcome.name)} namespace: ${goQuote(outcome.namespace)} ` +
        `from ${goQuote(source)}: ${outcome.message}\nensure CRDs are installed first\n`
      );
    case 'invalid':
      return statusText(outcome.status, source, outcome.operation === 'create' ? 'creating' : 'replacing');
  }
}

/** checkErr's text for one Status error from a write of `source`, ending in a newline. */
export function statusText(status: Status, source: string, verb: string): string {
  // AddSourceToErr: the file in the message, which an Invalid Status with details never shows.
  const message = `error when ${verb} ${goQuote(source)}: ${status.message}`;
  if (status.reason !== 'Invalid')
    return `Error from server${status.reason ? ` (${status.reason})` : ''}: ${message}\n`;
  const details = status.details;
  if (!details) return `The request is invalid${message ? `: ${message}` : ''}\n`;
  let text = 'The request is invalid';
  const causes = details.causes ?? [];
  if (details.kind || details.name) text = `The ${details.kind ?? ''} ${goQuote(details.name ?? '')} is invalid`;
  else if (causes.length === 0) text += `: ${message}`;
  if (causes.length === 0) return `${text}\n`;
  // statusCausesToAggrError, then MultilineError: one cause on the line, several as a list.
  const lines = [...new Set(causes.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`))];
  if (lines.length === 1) return `${text}: ${lines[0]}\n`;
  return `${text}: \n${lines.map((l) => `* ${l}\n`).join('')}`;
}

/** A warning as kubectl prints it. */
export const kubectlWarning = (text: string): string => `Warning: ${text}\n`;
