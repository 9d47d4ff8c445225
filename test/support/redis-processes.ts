/**
 * Private Redis processes for tests that must stop one: a redis-server on a port of its own, a Sentinel set
 * (a master, a replica and three Sentinels) and a Cluster (three masters, each with a replica). Each is ended by its PID, never by name, and the machine's shared
 * Redis is never touched.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RedisClusterSettings, RedisSentinelSettings } from '../../src/base/config-types.js';
import { freePort } from './free-port.js';

export interface RedisProcess {
  pid: number;
  port: number;
  /** SIGKILLs it (by PID) and waits for it to be gone; nothing when it is gone already. */
  kill(): Promise<void>;
}

export function redisServerPath(): string {
  try {
    return execFileSync('which', ['redis-server'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      "redis-server is not installed, and this test starts (and stops) its own. Run 'bash scripts/ensure-redis.sh' " +
        "(it installs Debian's redis-server as root) or install Redis so that redis-server is on PATH.",
    );
  }
}

/** A private redis-server on `port`, without persistence, with `args` added (a config file first, if any). */
export async function startRedis(port: number, dir: string, args: string[] = []): Promise<RedisProcess> {
  const child: ChildProcess = spawn(
    redisServerPath(),
    [...args, '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output = (output + String(chunk)).slice(-8_000);
  });
  child.stderr?.on('data', (chunk) => {
    output = (output + String(chunk)).slice(-8_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = child.pid;
  if (pid === undefined) throw new Error(`redis-server did not start: ${output}`);
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(pid, 'SIGKILL');
    await exited;
  };
  await eventually('redis-server answers', async () => {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${output.slice(-500)}`);
    return (await ask(port, 'PING')).startsWith('+PONG');
  });
  return { pid, port, kill };
}

export interface SentinelSet {
  /** What TALLY_REDIS_SENTINELS and TALLY_REDIS_MASTER_NAME say for it. */
  settings: RedisSentinelSettings;
  master: RedisProcess;
  replica: RedisProcess;
  sentinels: RedisProcess[];
  /** The port of the master the Sentinels name now. */
  masterPort(): Promise<number>;
  /** Ends every process of the set and removes its files. */
  close(): Promise<void>;
}

/**
 * A master, its replica and three Sentinels (quorum 2) that call a master down after `downAfterMs` without a
 * reply, all on free ports of their own.
 */
export async function startSentinelSet(downAfterMs = 1000): Promise<SentinelSet> {
  const dir = await mkdtemp(join(tmpdir(), 'tally-sentinel-'));
  const name = 'tally-test';
  const started: RedisProcess[] = [];
  try {
    const master = await startRedis(await freePort(), dir);
    started.push(master);
    const replica = await startRedis(await freePort(), dir, ['--replicaof', '127.0.0.1', String(master.port)]);
    started.push(replica);
    await eventually('the replica is in sync', async () =>
      (await ask(replica.port, 'INFO replication')).includes('master_link_status:up'),
    );
    const sentinels: RedisProcess[] = [];
    for (const index of [0, 1, 2]) {
      const file = join(dir, `sentinel-${index}.conf`);
      await writeFile(
        file,
        [
          `sentinel monitor ${name} 127.0.0.1 ${master.port} 2`,
          `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
          `sentinel failover-timeout ${name} 10000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
      );
      const sentinel = await startRedis(await freePort(), dir, [file, '--sentinel']);
      started.push(sentinel);
      sentinels.push(sentinel);
    }
    const masterPort = async () => {
      const reply = await ask(sentinels[0]?.port ?? 0, `SENTINEL get-master-addr-by-name ${name}`);
      return Number(reply.split('\r\n')[4]);
    };
    return {
      settings: { sentinels: sentinels.map(({ port }) => ({ host: '127.0.0.1', port })), masterName: name },
      master,
      replica,
      sentinels,
      masterPort,
      async close() {
        for (const process of started) await process.kill();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const process of started) await process.kill();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

export interface RedisClusterSet {
  /** What TALLY_REDIS_CLUSTER says for it. */
  settings: RedisClusterSettings;
  nodes: RedisProcess[];
  /** The node that is master of `key`'s slot now. */
  masterOf(key: string): Promise<RedisProcess>;
  /** The port of each master now, and of the replicas. */
  roles(): Promise<{ masters: number[]; replicas: number[] }>;
  /** The length of list `key` in each replica's own copy (a replica that has none of its slot says 0). */
  lengthOnReplicas(key: string): Promise<number[]>;
  /** Ends every process and removes its files. */
  close(): Promise<void>;
}

/**
 * Three masters with a replica each, built with `redis-cli --cluster create`, that promote a replica once its master
 * has not answered for `nodeTimeoutMs`, all on free ports (and free cluster-bus ports, port + 10000) of their own.
 */
export async function startRedisCluster(nodeTimeoutMs = 1000): Promise<RedisClusterSet> {
  const dir = await mkdtemp(join(tmpdir(), 'tally-cluster-'));
  const started: RedisProcess[] = [];
  const stopAll = async () => {
    for (const process of started) await process.kill();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < 6; index += 1) {
      const port = await clusterPort();
      const args = ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`];
      started.push(await startRedis(port, dir, [...args, '--cluster-node-timeout', String(nodeTimeoutMs)]));
    }
    const addresses = started.map(({ port }) => `127.0.0.1:${port}`);
    execFileSync(redisCliPath(), ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], {
      stdio: 'pipe',
      timeout: 60_000,
    });
    await eventually('every node of the cluster says it is ok', async () => {
      const states = await Promise.all(started.map(({ port }) => ask(port, 'CLUSTER INFO')));
      return states.every((state) => state.includes('cluster_state:ok'));
    });
    await eventually('every master has its replica in sync', async () => {
      const replication = await Promise.all(started.map(({ port }) => ask(port, 'INFO replication')));
      const masters = replication.filter((info) => info.includes('role:master'));
      const replicas = replication.filter((info) => info.includes('role:slave'));
      return (
        masters.length === 3 &&
        masters.every((info) => /connected_slaves:1\b/.test(info) && /slave0:.*state=online/.test(info)) &&
        replicas.every((info) => info.includes('master_link_status:up'))
      );
    });
    const roles = async () => {
      const masters: number[] = [];
      const replicas: number[] = [];
      for (const { port } of started) {
        const role = await ask(port, 'ROLE');
        if (role.includes('master')) masters.push(port);
        else if (role.includes('slave')) replicas.push(port);
      }
      return { masters, replicas };
    };
    const masterOf = async (key: string) => {
      for (const node of started) {
        // A master answers for its own slots; any other node (a replica too) says MOVED <slot> <host:port>.
        const reply = await ask(node.port, `GET ${key}`);
        if (reply === '' || reply.startsWith('-CLUSTERDOWN')) continue;
        if (!reply.startsWith('-MOVED')) return node;
        const port = Number(reply.trim().split(':').pop());
        const owner = started.find((candidate) => candidate.port === port);
        if (owner) return owner;
      }
      throw new Error(`no node of the cluster answers for ${key}`);
    };
    const lengthOnReplicas = async (key: string) =>
      (await roles()).replicas.map((port) => {
        // A replica answers reads of its master's slots only after READONLY, on the same connection.
        const input = `READONLY\nLLEN ${key}\n`;
        const output = execFileSync(redisCliPath(), ['-p', String(port)], { input, encoding: 'utf8' });
        return Number(output.trim().split('\n').at(-1)) || 0;
      });
    return {
      settings: { nodes: started.slice(0, 3).map(({ port }) => ({ host: '127.0.0.1', port })) },
      nodes: started,
      masterOf,
      roles,
      lengthOnReplicas,
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** A free port whose cluster-bus port (port + 10000) is free too. */
async function clusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 < 65_536 && (await isFree(port + 10_000))) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });
}

function redisCliPath(): string {
  try {
    return execFileSync('which', ['redis-cli'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error("redis-cli is not installed: run 'bash scripts/ensure-redis.sh' (Debian's redis-tools).");
  }
}

/** One inline command's raw reply ('' when nothing answers within a second). */
export function ask(port: number, command: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = () => {
      socket.destroy();
      resolve(reply);
    };
    socket.setTimeout(1_000, done);
    socket.on('error', done);
    socket.on('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk) => {
      reply += String(chunk);
      if (isWhole(reply)) done();
    });
  });
}

/** Whether a RESP reply has arrived whole: a line, a bulk string, or an array of those (one level). */
function isWhole(reply: string): boolean {
  const lines = reply.split('\r\n');
  const first = lines[0] ?? '';
  if (!reply.includes('\r\n')) return false;
  if (first.startsWith('$'))
    return Number(first.slice(1)) < 0 || reply.length >= first.length + 4 + Number(first.slice(1));
  if (first.startsWith('*')) return lines.length > 2 * Number(first.slice(1)) + 1;
  return true;
}

/** Re-runs `probe` until it returns true; fails with `what` after `timeoutMs`. */
export async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
