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

export interface RealworldCRD {
  readonly project: string;
  /** The file's path. */
  readonly file: string;
  readonly crd: CustomResourceDefinition;
}

/**
 * The corpus's CRDs, parsed. Reading YAML is the slow part: `withRules` reads only the files
 * that have x-kubernetes-validations.
 */
export function realworldCRDs(o: { withRules?: boolean } = {}): RealworldCRD[] {
  const out: RealworldCRD[] = [];
  for (const project of realworldProjects())
    for (const file of realworldFiles(project)) {
      const text = readFileSync(file, 'utf8');
      if (o.withRules && !text.includes('x-kubernetes-validations')) continue;
      for (const doc of crdDocuments(text)) out.push({ project, file, crd: parse(doc) as CustomResourceDefinition });
    }
  return out;
}
