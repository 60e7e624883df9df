// A README's walkthroughs as the steps a reader types: each command of its ```sh blocks (a
// continued line or a here-document kept whole) and each `$ ` command of its ```console blocks with
// the output shown under it, in document order. A trailing comment that starts with "refused" or
// "no" says the command fails, and so does shown output that is an error. ShellSession runs them as
// the reader would: one shell (exports and variables carry over), and "terminals" of their own for
// commands that stay in the foreground.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Shell words of one line: blanks split, '...' and "..." quote; a # after a blank starts a comment. */
export function shellWords(line: string): { words: string[]; comment: string } {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unbalanced quote in ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) {
      return { words, comment: line.slice(i + 1).trim() };
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return { words, comment: '' };
}

/** What a comment says of its command: it is refused, or answers no. */
export const saysItFails = (comment: string): boolean => /^(refused|no)\b/.test(comment);

/** Shown output that is kubectl's (or the server's) refusal. */
const SHOWN_ERROR = /^(Error from server|error:|The .+ is invalid)/;

export interface Step {
  /** The `##`/`###` heading the step is under. */
  section: string;
  /** As the document shows it: continuation lines and a here-document included, comment kept. */
  command: string;
  /** The trailing comment of its first line. */
  comment: string;
  fails: boolean;
  /** For a console block's command: the output the document shows. */
  shown?: string;
}

/** The commands of one ```sh block: blank and comment lines skipped, continuations and here-documents joined. */
export function shBlockCommands(block: string): { command: string; comment: string }[] {
  const lines = block.split('\n');
  const out: { command: string; comment: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === '' || lines[i]!.trim().startsWith('#')) continue;
    const first = i;
    while (lines[i]!.endsWith('\\') && i + 1 < lines.length) i++;
    const head = lines.slice(first, i + 1).join('\n');
    for (const m of head.matchAll(/<<-?\s*(['"]?)(\w+)\1/g)) {
      const end = lines.findIndex((l, j) => j > i && l === m[2]);
      if (end < 0) throw new Error(`here-document ${m[2]} never ends after: ${head}`);
      i = end;
    }
    out.push({
      command: lines.slice(first, i + 1).join('\n'),
      comment: shellWords(head.replaceAll('\\\n', ' ')).comment,
    });
  }
  return out;
}

/** Every step of the document's ```sh and ```console blocks, in order. */
export function walkthroughSteps(markdown: string): Step[] {
  const steps: Step[] = [];
  let section = '';
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading) section = heading[1]!;
    const fence = /^```(sh|console)$/.exec(line);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l === '```');
    const body = lines.slice(i + 1, end);
    i = end;
    if (fence[1] === 'sh') {
      for (const c of shBlockCommands(body.join('\n'))) steps.push({ section, ...c, fails: saysItFails(c.comment) });
      continue;
    }
    for (let j = 0; j < body.length; j++) {
      if (!body[j]!.startsWith('$ ')) continue;
      let k = j + 1;
      while (k < body.length && !body[k]!.startsWith('$ ')) k++;
      const shown = body.slice(j + 1, k).join('\n');
      const command = body[j]!.slice(2);
      const comment = shellWords(command).comment;
      steps.push({ section, command, comment, shown, fails: saysItFails(comment) || SHOWN_ERROR.test(shown) });
      j = k - 1;
    }
  }
  return steps;
}

export interface StepResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A terminal running one foreground command, as a reader opens one for `make run`. */
export interface Terminal {
  command: string;
  child: ChildProcess;
  output(): string;
  /** Ctrl-C, as the reader stops it; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * One bash for the steps, in `cwd`, whose state (exports, variables, background jobs) carries
 * from step to step, as a reader's shell; each step's stdin is /dev/null and its output is its own.
 */
export class ShellSession {
  private readonly bash: ChildProcess;
  private readonly scratch = mkdtempSync(join(tmpdir(), 'walkthrough-steps-'));
  private count = 0;
  private pending = '';
  private waiter: ((line: string) => void) | undefined;
  private readonly terminals: Terminal[] = [];

  constructor(
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    // detached: its own process group, so close() ends its background jobs with it.
    this.bash = spawn('bash', ['--noprofile', '--norc'], {
      cwd,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.bash.stdout!.on('data', (c: Buffer) => {
      this.pending += c.toString();
      const nl = this.pending.indexOf('\n');
      if (nl >= 0 && this.waiter) {
        const line = this.pending.slice(0, nl);
        this.pending = this.pending.slice(nl + 1);
        this.waiter(line);
      }
    });
  }

  /** Runs one command in the session's shell, to completion. */
  run(command: string): Promise<StepResult> {
    const n = this.count++;
    const file = (ext: string): string => join(this.scratch, `step-${n}.${ext}`);
    writeFileSync(file('sh'), `${command}\n`);
    const done = new Promise<string>((resolve) => (this.waiter = resolve));
    this.bash.stdin!.write(`source ${file('sh')} </dev/null >${file('out')} 2>${file('err')}; echo "$?"\n`);
    return done.then((code) => ({
      code: Number(code),
      stdout: readFileSync(file('out'), 'utf8'),
      stderr: readFileSync(file('err'), 'utf8'),
    }));
  }

  /** Runs a foreground command in a terminal of its own, in the session's directory and environment, until `ready` shows in its output. */
  async open(command: string, ready: RegExp): Promise<Terminal> {
    const child = spawn('bash', ['-c', command], {
      cwd: this.cwd,
      env: this.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      const onData = (c: Buffer): void => {
        output += c.toString();
        if (ready.test(output)) resolve();
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      void exited.then((code) => reject(new Error(`${command} exited ${code} before it was ready:\n${output}`)));
    });
    const terminal: Terminal = {
      command,
      child,
      output: () => output,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
        return exited;
      },
    };
    this.terminals.push(terminal);
    return terminal;
  }

  /** The terminals still open, oldest first. */
  openTerminals(): Terminal[] {
    return this.terminals.filter((t) => t.child.exitCode === null && t.child.signalCode === null);
  }

  /** Stops the terminals (Ctrl-C), then the shell and whatever it left running. */
  async close(): Promise<void> {
    for (const t of this.openTerminals().reverse()) await t.stop();
    const exited = new Promise((resolve) => this.bash.once('exit', resolve));
    try {
      process.kill(-this.bash.pid!, 'SIGTERM');
    } catch {
      // Already gone.
    }
    await exited;
    rmSync(this.scratch, { recursive: true, force: true });
  }
}
