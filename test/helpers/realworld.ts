// The real-world CRDs of ../shared/realworld/crds (its README: what nine widely used projects
// publish), which tests read from there and never copy into the repository: where the folder is,
// why a test cannot run when it is missing (a user's clone has no ../shared), and its CRDs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { CustomResourceDefinition } from '../../apimachinery/apis/apiextensions.js';

export const REALWORLD_CRDS_DIR = join(
  resolve(fileURLToPath(new URL('../..', import.meta.url))),
  '..',
  'shared',
  'realworld',
  'crds',
);

/** Why the real-world tests cannot run here, if they cannot; a test says so in one line and skips. */
export const REALWORLD_MISSING: string | undefined = existsSync(REALWORLD_CRDS_DIR)
  ? undefined
  : `${REALWORLD_CRDS_DIR} does not exist (the real-world CRDs are in ../shared/realworld)`;

/** The corpus's projects, its folders, sorted. */
export const realworldProjects = (): string[] =>
  readdirSync(REALWORLD_CRDS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();

/** A project's YAML files, sorted, by their paths. */
export const realworldFiles = (project: string): string[] =>
  readdirSync(join(REALWORLD_CRDS_DIR, project))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(REALWORLD_CRDS_DIR, project, f));

/** A file's CustomResourceDefinition documents, as text (istio ships fifteen in one file). */
export const crdDocuments = (text: string): string[] =>
  text.split(/^---[ \t]*$/m).filter((d) => /^kind:\s*CustomResourceDefinition\s*$/m.test(d));

/** A CRD document's metadata.name, read from its text. */
export const crdNameOf = (doc: string): string | undefined => /^ {2}name: (\S+)$/m.exec(doc)?.[1];

export interface RealworldFile {
  readonly project: string;
  /** The file's path. */
  readonly file: string;
}

/** The corpus's files that hold x-kubernetes-validations rules (none where the corpus is missing). */
export const realworldRuleFiles = (): RealworldFile[] =>
  REALWORLD_MISSING
    ? []
    : realworldProjects().flatMap((project) =>
        realworldFiles(project)
          .filter((file) => readFileSync(file, 'utf8').includes('x-kubernetes-validations'))
          .map((file) => ({ project, file })),
      );

/** A file's CRDs, parsed (YAML is the slow part: a test takes one file at a time). */
export const crdsOf = (file: string): CustomResourceDefinition[] =>
  crdDocuments(readFileSync(file, 'utf8')).map((doc) => parse(doc) as CustomResourceDefinition);

/** Every rule and messageExpression in a CRD or schema, in document order. */
export function expressionsOf(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) expressionsOf(x, out);
  else if (v !== null && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      if (k === 'x-kubernetes-validations' && Array.isArray(x))
        for (const r of x as { rule?: string; messageExpression?: string }[])
          for (const e of [r.rule, r.messageExpression]) if (e) out.push(e);
      expressionsOf(x, out);
    }
  return out;
}
