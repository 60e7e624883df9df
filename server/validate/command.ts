// `mini-apiserver validate -f FILE... [--old FILE]... [-o json|yaml]`: validate() on files, printed
// as kubectl prints a create of each object: `Warning: ...` and kube's errors on stderr, a line per
// accepted object (or, with -o, the objects) on stdout. Exit 0 when all are accepted, 1 when any is
// refused, 2 for a usage or input error (one line). Loaded alone by main.ts: no server is started.
import { readFile } from 'node:fs/promises';
import { type JsonObject, isJsonObject } from '../../apimachinery/object.js';
import { stringifyJSON } from '../../apimachinery/json.js';
import { fsReason } from '../startup/errors.js';
import { encodeYaml } from '../codecs/yaml-encode.js';
import { ValidateInputError, isCRD, readObjects } from './documents.js';
import { STDIN_SOURCE, kubectlErrorText, kubectlWarning } from './kubectl-text.js';
import { type Outcome, requireTypeMeta, validate } from './validate.js';

const EXIT_VALID = 0;
const EXIT_INVALID = 1;
const EXIT_USAGE = 2;

export interface ValidateArgs {
  /** -f/--filename: files, `-` for standard input. */
  files: string[];
  /** --old: the objects before an update. */
  old: string[];
  output: 'json' | 'yaml' | undefined;
}

export type ParsedArgs = { args: ValidateArgs } | { help: true } | { error: string };

const VALIDATE_USAGE = `Usage: mini-apiserver validate -f FILE [-f FILE]... [--old FILE]... [-o json|yaml]

Runs what kube-apiserver runs when CustomResourceDefinitions and then objects of their kinds are
created (or, with --old, updated), without a server: the CRD's validation, then each object's
pruning, defaulting, schema, CEL rules and metadata rules. Prints what kubectl would.

  -f, --filename FILE   CRDs and objects (YAML or JSON, several documents, Lists); - reads stdin
      --old FILE        objects as they were: an object with the same apiVersion, kind, namespace
                        and name is validated as an update of it (transition rules, ratcheting)
  -o, --output FORMAT   json or yaml: print the accepted objects, pruned and defaulted
  -h, --help            this text

Exit status: 0 when everything is accepted, 1 when anything is refused, 2 for a usage or input error.
`;

/** The command line, or the one error it has. */
export function parseValidateArgs(argv: readonly string[]): ParsedArgs {
  const args: ValidateArgs = { files: [], old: [], output: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') return { help: true };
    const long = /^--(filename|old|output)(?:=(.*))?$/s.exec(arg);
    const short = /^-([fo])(?:=?(.+))?$/s.exec(arg);
    const flag = long?.[1] ?? (short?.[1] === 'f' ? 'filename' : short?.[1] === 'o' ? 'output' : undefined);
    if (!flag)
      return {
        error:
          arg.startsWith('-') && arg !== '-' ? `unknown flag: ${arg}` : `unexpected argument ${JSON.stringify(arg)}`,
      };
    const value = long?.[2] ?? short?.[2] ?? argv[++i];
    if (value === undefined || value === '') return { error: `flag needs an argument: ${arg}` };
    if (flag === 'filename') args.files.push(value);
    else if (flag === 'old') args.old.push(value);
    else if (value === 'json' || value === 'yaml') args.output = value;
    else return { error: `unsupported output format ${JSON.stringify(value)}: json or yaml` };
  }
  if (args.files.length === 0) return { error: 'no objects: give -f FILE (or -f - for stdin)' };
  if ([...args.files, ...args.old].filter((f) => f === '-').length > 1)
    return { error: 'stdin (-) can be read only once' };
  return { args };
}

export interface CommandIO {
  readStdin(): Promise<string>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Runs the command; resolves with its exit code. */
export async function validateCommand(argv: readonly string[], io: CommandIO): Promise<number> {
  const parsed = parseValidateArgs(argv);
  if ('help' in parsed) {
    io.stdout(VALIDATE_USAGE);
    return EXIT_VALID;
  }
  if ('error' in parsed) {
    io.stderr(`mini-apiserver: validate: ${parsed.error} (see validate --help)\n`);
    return EXIT_USAGE;
  }
  const { files, old, output } = parsed.args;
  try {
    const given = await readSources(files, io);
    // kubectl's create (resource.Helper with modify) sends no resourceVersion of the file's.
    for (const g of given) if (isJsonObject(g.object['metadata'])) delete g.object['metadata']['resourceVersion'];
    const crds = given.filter((g) => isCRD(g.object));
    const objects = given.filter((g) => !isCRD(g.object));
    const result = await validate({
      crds: crds.map((g) => g.object),
      objects: objects.map((g) => g.object),
      oldObjects: (await readSources(old, io)).map((g) => g.object),
    });
    const report = (outcome: Outcome, source: string): void => {
      for (const w of outcome.warnings) io.stderr(kubectlWarning(w));
      if (outcome.result !== 'valid') io.stderr(kubectlErrorText(outcome, source));
      else if (!output)
        io.stdout(`${resourceName(outcome)} valid${outcome.operation === 'update' ? ' (update)' : ''}\n`);
    };
    result.crds.forEach((o, i) => report(o, crds[i]!.source));
    result.objects.forEach((o, i) => report(o, objects[i]!.source));
    if (output) io.stdout(printed(result.objects, output));
    return result.valid ? EXIT_VALID : EXIT_INVALID;
  } catch (err) {
    if (!(err instanceof ValidateInputError)) throw err;
    io.stderr(`mini-apiserver: validate: ${err.message}\n`);
    return EXIT_USAGE;
  }
}

interface Given {
  object: JsonObject;
  /** The file as kubectl names it in its errors. */
  source: string;
}

/** Every object of the files, in order, each with its file. */
async function readSources(paths: readonly string[], io: CommandIO): Promise<Given[]> {
  const out: Given[] = [];
  for (const path of paths) {
    const source = path === '-' ? STDIN_SOURCE : path;
    const text = await (path === '-' ? io.readStdin() : readFile(path, 'utf8')).catch((err: unknown) => {
      throw new ValidateInputError(`${path}: ${fsReason(err)}`);
    });
    const read = await readObjects(text).catch((err: unknown) => {
      throw err instanceof ValidateInputError ? new ValidateInputError(`${source}: ${err.message}`) : err;
    });
    for (const { object, line } of read)
      out.push({ object: requireTypeMeta(object, `${source}: line ${line}`), source });
  }
  return out;
}

/** kubectl's name for an object it wrote: `cache.cache.example.com/c1`. */
function resourceName(o: Outcome): string {
  const slash = o.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : o.apiVersion.slice(0, slash);
  return `${o.kind.toLowerCase()}${group ? `.${group}` : ''}/${o.name}`;
}

/** The accepted objects as kubectl's printers write each: YAML documents, or a JSON document per line. */
function printed(outcomes: readonly Outcome[], format: 'json' | 'yaml'): string {
  const objects = outcomes.flatMap((o) => (o.result === 'valid' ? [o.object] : []));
  if (format === 'json') return objects.map((o) => `${stringifyJSON(o)}\n`).join('');
  return objects.map(encodeYaml).join('---\n');
}
