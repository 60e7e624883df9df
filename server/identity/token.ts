// --token-file: the cluster token kept off the command line (where every user of the host sees it).
import { readFileSync } from 'node:fs';
import { fsReason } from '../startup/errors.js';

/** The file's text, blanks around it trimmed (as k3s reads its token file); empty is an error. */
export async function readClusterTokenFile(file: string): Promise<string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${fsReason(err)}`);
  }
  const token = text.trim();
  if (token === '') throw new Error(`${file} is empty`);
  return token;
}
