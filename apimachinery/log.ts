// Structured logs: one JSON object per line on stderr, as kube's --logging-format=json.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

const order: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** Whether a line at `level` is written: for a caller that would build its fields on every request. */
  enabled(level: LogLevel): boolean;
  with(fields: LogFields): Logger;
}

export function createLogger(
  opts: { level?: LogLevel; write?: (line: string) => void; base?: LogFields } = {},
): Logger {
  const min = order[opts.level ?? 'info'];
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const base = opts.base ?? {};
  const emit = (level: LogLevel, msg: string, fields?: LogFields): void => {
    if (order[level] < min) return;
    write(JSON.stringify({ ts: new Date().toISOString(), level, msg, ...base, ...fields }));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    enabled: (level) => order[level] >= min,
    with: (fields) => createLogger({ ...opts, base: { ...base, ...fields } }),
  };
}

/** A logger that drops everything: for library users who start many servers in tests. */
export const silentLogger: Logger = createLogger({ write: () => {} });
