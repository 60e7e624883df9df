// Real etcd processes for tests: a single member or a 3-member cluster on free loopback ports, each
// member in its own temporary data directory, with kill -9 / stop / restart on the same data.
// Members run with etcd's default durability (fsync on); only raft timing is shortened.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EtcdStorage } from '../../storage/etcd.js';
import type { Storage } from '../../storage/interface.js';
import type { BackendFixture } from './backends.js';

export interface EtcdMember {
  readonly name: string;
  /** The client URL, e.g. http://127.0.0.1:40123. */
  readonly endpoint: string;
  /** Whether the process is up (it may still be starting). */
  readonly running: boolean;
  /** The etcd process's id while it runs (benchmarks read its CPU time from /proc). */
  readonly pid: number;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, then waits for the exit: a crash, as far as etcd can tell. */
  kill(): Promise<void>;
  /** Starts the member again on the same data and ports; waits until it answers /health. */
  start(): Promise<void>;
  /** stop() if running, then start(). */
  restart(): Promise<void>;
}

export interface EtcdProcess extends EtcdMember {
  /** Kills the member and removes its data. */
  destroy(): Promise<void>;
}

export interface EtcdCluster {
  readonly endpoints: string[];
  readonly members: EtcdMember[];
  /** The index in `members` of the current leader, as the running members report it. */
  leader(): Promise<number>;
  /** Kills every member and removes their data. */
  destroy(): Promise<void>;
}

const HEALTHY_WITHIN_MS = 20_000;
// Short raft timing so a cluster elects, and re-elects after a kill, in a fraction of a second.
const RAFT_FLAGS = ['--heartbeat-interval=10', '--election-timeout=100'];

let etcdBinary: string | undefined;
function findEtcd(): string {
  if (etcdBinary) return etcdBinary;
  const found = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' }).stdout.trim();
  if (!found) throw new Error('etcd is not on PATH: run scripts/ensure-etcd.sh (as root it installs etcd-server)');
  etcdBinary = found;
  return found;
}

/** The version of the etcd tests run ("3.4.23"), as `etcd --version` prints it. */
export function etcdVersion(): string {
  const out = spawnSync(findEtcd(), ['--version'], { encoding: 'utf8' }).stdout;
  const m = /^etcd Version: (\S+)$/m.exec(out);
  if (!m) throw new Error(`etcd --version printed no version: ${out}`);
  return m[1]!;
}

/** A port nothing listens on right now (the kernel's pick for port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address for port 0');
  return address.port;
}

async function healthy(endpoint: string): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as { health?: string };
    return res.ok && body.health === 'true';
  } catch {
    return false;
  }
}

interface MemberSpec {
  name: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
  /** etcd's own flags beyond those every member gets, e.g. --max-txn-ops. */
  flags: readonly string[];
}

const peerUrl = (m: MemberSpec): string => `http://127.0.0.1:${m.peerPort}`;

// Runs etcd under a watchdog shell that SIGKILLs it when its stdin (a pipe from this process)
// closes, so etcd dies with the test process however that ends, even by SIGKILL. The shell prints
// etcd's pid, and exits when etcd does. etcd's own output (panics; logs go to --log-outputs) is
// appended to $WATCHDOG_OUTPUT.
const WATCHDOG = `
exec 3<&0
"$0" "$@" </dev/null >>"$WATCHDOG_OUTPUT" 2>&1 &
pid=$!
echo "$pid"
( read _ <&3; kill -9 "$pid" 2>/dev/null ) &
reader=$!
wait "$pid"
status=$?
kill "$reader" 2>/dev/null
exit "$status"`;

class Member implements EtcdMember {
  private child: ChildProcess | undefined;
  private etcdPid = 0;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly spec: MemberSpec,
    private readonly initialCluster: string,
    private readonly token: string,
  ) {}

  get name(): string {
    return this.spec.name;
  }
  get endpoint(): string {
    return `http://127.0.0.1:${this.spec.clientPort}`;
  }
  get running(): boolean {
    return this.child !== undefined;
  }
  get pid(): number {
    return this.etcdPid;
  }
  private get logFile(): string {
    return join(this.spec.dataDir, '..', `${this.spec.name}.log`);
  }

  /** Spawns etcd and learns its pid; does not wait for health. */
  async spawn(): Promise<void> {
    if (this.child) throw new Error(`etcd member ${this.name} is already running`);
    const args = [
      `--name=${this.spec.name}`,
      `--data-dir=${this.spec.dataDir}`,
      `--listen-client-urls=${this.endpoint}`,
      `--advertise-client-urls=${this.endpoint}`,
      `--listen-peer-urls=${peerUrl(this.spec)}`,
      `--initial-advertise-peer-urls=${peerUrl(this.spec)}`,
      `--initial-cluster=${this.initialCluster}`,
      '--initial-cluster-state=new',
      `--initial-cluster-token=${this.token}`,
      ...RAFT_FLAGS,
      ...this.spec.flags,
      '--logger=zap',
      `--log-outputs=${this.logFile}`,
    ];
    // ETCD_* variables from the environment would override the flags above.
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('ETCD_')));
    env.WATCHDOG_OUTPUT = `${this.logFile}.out`;
    // The shell's stderr is dropped: it reports "Killed" for every kill -9.
    const child = spawn('sh', ['-c', WATCHDOG, findEtcd(), ...args], { stdio: ['pipe', 'pipe', 'ignore'], env });
    this.exited = new Promise((resolve) =>
      child.once('exit', () => {
        if (this.child === child) this.child = undefined;
        resolve();
      }),
    );
    this.child = child;
    child.stdout!.setEncoding('utf8');
    const [line] = (await Promise.race([once(child.stdout!, 'data'), this.exited.then(() => [''])])) as [string];
    this.etcdPid = Number(line.trim());
    if (!this.etcdPid) throw new Error(`etcd member ${this.name} did not start`);
  }

  async waitHealthy(): Promise<void> {
    const deadline = Date.now() + HEALTHY_WITHIN_MS;
    while (!(await healthy(this.endpoint))) {
      if (!this.child) throw new Error(`etcd member ${this.name} exited during start-up: ${this.logTail()}`);
      if (Date.now() > deadline) {
        throw new Error(`etcd member ${this.name} not healthy after ${HEALTHY_WITHIN_MS} ms: ${this.logTail()}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  logTail(): string {
    if (!existsSync(this.logFile)) return '(no log)';
    return readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-5).join('\n');
  }

  async start(): Promise<void> {
    await this.spawn();
    await this.waitHealthy();
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async restart(): Promise<void> {
    if (this.child) await this.stop();
    await this.start();
  }

  private async signal(sig: NodeJS.Signals): Promise<void> {
    if (!this.child) return;
    process.kill(this.etcdPid, sig);
    await this.exited;
  }
}

async function memberSpecs(dir: string, count: number, flags: readonly string[]): Promise<MemberSpec[]> {
  const ports = new Set<number>();
  while (ports.size < count * 2) ports.add(await freePort());
  const [...p] = ports;
  return Array.from({ length: count }, (_, i) => ({
    name: `m${i + 1}`,
    clientPort: p[2 * i]!,
    peerPort: p[2 * i + 1]!,
    dataDir: join(dir, `m${i + 1}`),
    flags,
  }));
}

async function startMembers(count: number, flags: readonly string[] = []): Promise<{ dir: string; members: Member[] }> {
  findEtcd();
  const dir = await mkdtemp(join(tmpdir(), 'mini-apiserver-etcd-'));
  try {
    // A port picked free may be taken before etcd binds it; a fresh set of ports fixes that.
    for (let attempt = 1; ; attempt++) {
      const specs = await memberSpecs(dir, count, flags);
      const initialCluster = specs.map((s) => `${s.name}=${peerUrl(s)}`).join(',');
      const token = `test-${process.pid}-${Date.now()}-${attempt}`;
      const members = specs.map((s) => new Member(s, initialCluster, token));
      try {
        // All at once: a cluster member only turns healthy once a quorum is up.
        await Promise.all(members.map((m) => m.spawn()));
        await Promise.all(members.map((m) => m.waitHealthy()));
        return { dir, members };
      } catch (err) {
        await Promise.all(members.map((m) => m.kill()));
        if (attempt >= 3 || !/address already in use/.test(String(err))) throw err;
        for (const s of specs) rmSync(s.dataDir, { recursive: true, force: true });
      }
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A single-member etcd on free loopback ports in a fresh temporary directory; `flags` are etcd's
 * own beyond those every member gets (its defaults otherwise, as a user's etcd has them).
 */
export async function startEtcd(flags: readonly string[] = []): Promise<EtcdProcess> {
  const { dir, members } = await startMembers(1, flags);
  const member = members[0]!;
  return Object.assign(member, {
    async destroy(): Promise<void> {
      await member.kill();
      await rm(dir, { recursive: true, force: true });
    },
  });
}

/** A cluster of `size` members on loopback, bootstrapped with a static --initial-cluster. */
export async function startEtcdCluster(size = 3): Promise<EtcdCluster> {
  const { dir, members } = await startMembers(size);
  return {
    endpoints: members.map((m) => m.endpoint),
    members,
    async leader() {
      const statuses = await Promise.all(members.map((m) => (m.running ? memberStatus(m.endpoint) : undefined)));
      const leader = statuses.find((s) => s !== undefined)?.leader;
      const index = statuses.findIndex((s) => s !== undefined && s.memberId === leader);
      if (index < 0) throw new Error('no running member reports a leader that is running');
      return index;
    },
    async destroy() {
      await Promise.all(members.map((m) => m.kill()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A member's own id and the leader it follows, from etcd's JSON gateway (v3.4 serves /v3/). */
async function memberStatus(endpoint: string): Promise<{ memberId: string; leader: string } | undefined> {
  try {
    const res = await fetch(`${endpoint}/v3/maintenance/status`, {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(1000),
    });
    const body = (await res.json()) as { header?: { member_id?: string }; leader?: string };
    if (!body.header?.member_id || !body.leader) return undefined;
    return { memberId: body.header.member_id, leader: body.leader };
  } catch {
    return undefined;
  }
}

/**
 * The contract suite's etcd backend: a fresh single member, used through a key prefix so that the
 * suite also checks the prefix is added and stripped. restart() restarts etcd itself.
 */
export async function createEtcdFixture(): Promise<BackendFixture> {
  const etcd = await startEtcd();
  const open = new Set<Storage>();
  const openStore = async (): Promise<Storage> => {
    const store = await EtcdStorage.connect([etcd.endpoint], '/contract-prefix');
    open.add(store);
    return store;
  };
  return {
    name: 'etcd',
    open: openStore,
    async restart(store) {
      await store.close();
      open.delete(store);
      await etcd.restart();
      return openStore();
    },
    async teardown() {
      for (const store of open) await store.close();
      await etcd.destroy();
    },
  };
}
