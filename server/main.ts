// The mini-apiserver command: flags in, one server out; SIGTERM/SIGINT shut it down gracefully.
// Every failure an operator can cause ends as one line on stderr and a non-zero exit, no stack.
// The server's modules are imported when a server starts: `validate` loads only its own.
// bin/mini-apiserver runs main() from the bundle (make build).
import { createLogger } from '../apimachinery/log.js';
import { CLI_DEFAULTS, parseArgs, usage } from './flags.js';
import { StartupError } from './startup/errors.js';
import { migrateStorage } from './migrate-storage.js';
import { readKubeconfig } from './client/api-client.js';
import { join } from 'node:path';
import { serverVersion } from './version.js';

const EXIT_USAGE = 2;

function fail(message: string, code: number): never {
  process.stderr.write(`mini-apiserver: ${message}\n`);
  process.exit(code);
}

/** `migrate-storage <crd> [--kubeconfig PATH | --data-dir DIR]`, against a running server. */
async function migrateStorageCommand(argv: readonly string[]): Promise<void> {
  let crd: string | undefined;
  let kubeconfig: string | undefined;
  let dataDir: string = CLI_DEFAULTS.dataDir;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith('--')
      ? (arg.split(/=(.*)/s, 2) as [string, string | undefined])
      : [arg, undefined];
    const value = (): string => inline ?? argv[++i] ?? fail(`flag needs an argument: ${flag}`, EXIT_USAGE);
    if (flag === '--kubeconfig') kubeconfig = value();
    else if (flag === '--data-dir') dataDir = value();
    else if (!arg.startsWith('-') && crd === undefined) crd = arg;
    else
      fail(
        `migrate-storage: unexpected argument ${JSON.stringify(arg)} (usage: migrate-storage <crd> [--kubeconfig PATH | --data-dir DIR])`,
        EXIT_USAGE,
      );
  }
  if (!crd)
    fail('migrate-storage: which CRD? (usage: migrate-storage <crd> [--kubeconfig PATH | --data-dir DIR])', EXIT_USAGE);
  const path = kubeconfig ?? join(dataDir, 'admin.kubeconfig');
  try {
    const r = await migrateStorage(readKubeconfig(path), crd);
    process.stdout.write(
      `${crd}: ${r.objects} objects in ${r.storageVersion}; storedVersions ${JSON.stringify(r.storedVersions)}\n`,
    );
  } catch (err) {
    fail(`migrate-storage: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
}

/** `validate -f FILE...`: exits with its code once its output is written. */
async function validate(argv: readonly string[]): Promise<void> {
  const { validateCommand } = await import('./validate/command.js');
  process.exitCode = await validateCommand(argv, {
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}

/** `rotate-service-account-key ...`: a new signing key for the replicas sharing an identity. */
async function rotateCommand(argv: readonly string[]): Promise<void> {
  const { ROTATE_USAGE, parseRotateArgs, rotateServiceAccountKey } = await import('./rotate-service-account-key.js');
  const args = parseRotateArgs(argv);
  if (typeof args === 'string') fail(`rotate-service-account-key: ${args} (usage: ${ROTATE_USAGE})`, EXIT_USAGE);
  try {
    const r = await rotateServiceAccountKey(args);
    process.stdout.write(`service account signing key rotated: new key id ${r.keyId}; ${r.keys} keys verify\n`);
  } catch (err) {
    fail(`rotate-service-account-key: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, 1);
  }
}

/** Runs the command line; true once a server is serving, false when a command has run. */
export async function main(): Promise<boolean> {
  const command = process.argv[2];
  if (command === 'migrate-storage') await migrateStorageCommand(process.argv.slice(3));
  else if (command === 'validate') await validate(process.argv.slice(3));
  else if (command === 'rotate-service-account-key') await rotateCommand(process.argv.slice(3));
  else return serve();
  return false;
}

async function serve(): Promise<boolean> {
  const cmd = parseArgs(process.argv.slice(2));
  switch (cmd.kind) {
    case 'help':
      process.stdout.write(usage());
      return false;
    case 'version':
      process.stdout.write(`mini-apiserver ${serverVersion().gitVersion}\n`);
      return false;
    case 'error':
      fail(`${cmd.message} (see --help)`, EXIT_USAGE);
  }
  const logger = createLogger({ level: cmd.options.logLevel });
  const { startServer } = await import('./index.js');
  const server = await startServer({ ...cmd.options, logger }).catch((err: unknown) => {
    const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    if (err instanceof StartupError) return fail(message, 1);
    // A bug rather than an operator mistake: still one line, with the stack a flag away.
    logger.debug('start-up failed', { err: err instanceof Error ? err.stack : String(err) });
    return fail(`unexpected error: ${message} (-v 4 logs the stack)`, 1);
  });
  process.stdout.write(
    `mini-apiserver serving on ${server.url} (${server.storage}); kubeconfig: ${server.kubeconfigPath}\n`,
  );

  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    // A second signal means "now", as kube-apiserver exits on the second SIGTERM.
    if (stopping) fail(`received ${signal} again: exiting without waiting`, 1);
    stopping = true;
    logger.info('received signal, shutting down', { signal });
    server.close().then(
      () => process.exit(0),
      (err: unknown) => fail(`shutdown failed: ${err instanceof Error ? err.message : String(err)}`, 1),
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return true;
}
