/**
 * `npm run bench:soak`: does tally's state stay bounded under steady traffic with retention on? Two
 * tallies side by side through the real composition (sandbox, MariaDB with telco, the scripted
 * model): one on Redis under a prefix of its own, one on the embedded SQLite store. Each gets a new
 * thread every 6 s for SOAK_MINUTES (default 20), with retention and audit retention of 2 minutes and
 * a sweep every 30 s. Every 30 s the stores' sizes (by key family) and the process's memory are
 * sampled; at the end each series' slope over the last 10 minutes is set against its noise and
 * called flat or growing. Writes bench/results/soak.json and prints the table.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Docker from 'dockerode';
import { loadConfig } from '../src/base/config.js';
import { createLogger } from '../src/base/logger.js';
import { startScriptedModelServer } from '../src/demo/scripted-model-server.js';
import { createLlmClient } from '../src/llm/create-llm-client.js';
import { createTally, type Tally } from '../src/wiring/create-tally.js';
import { loadTelco } from '../telco_data/index.js';
import { machineInfo } from './machine.js';
import { createScratchDatabase } from './mysql-admin.js';
import { type SoakSample, type SoakSide, sampleSoak, soakReport } from './soak-report.js';
import { SoakTraffic, soakScript } from './soak-traffic.js';
import { RedisProbe } from './store-probes.js';

const { values: flags } = parseArgs({ options: { minutes: { type: 'string' } }, strict: true });
const MINUTES = Number(flags.minutes ?? process.env.SOAK_MINUTES ?? 20);
const THREAD_EVERY_MS = 6_000;
const SAMPLE_EVERY_MS = 30_000;
const RETENTION_MINUTES = 2;
const SWEEP_MINUTES = 0.5;
/** The last this many minutes are judged (half the run when it is shorter than 20 minutes). */
const WINDOW_MINUTES = Math.min(10, MINUTES / 2);
const TURN_TIMEOUT_MS = 5 * 60_000;
const REDIS_URL = process.env.TALLY_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const RESULTS_DIR = new URL('./results/', import.meta.url);

const say = (message: string) => process.stderr.write(`bench:soak: ${message}\n`);
const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - performance.now())));

/** Runs the clean-ups in reverse order, each whatever the others did; returns what failed. */
async function cleanUp(steps: Array<[string, () => Promise<unknown>]>): Promise<string[]> {
  const failed: string[] = [];
  for (const [label, step] of steps.reverse()) {
    await step().catch((error: unknown) => failed.push(`${label}: ${String(error)}`));
  }
  return failed;
}

async function main(): Promise<void> {
  if (!(MINUTES > 0))
    throw new Error(`SOAK_MINUTES (or --minutes) must be a number of minutes above 0, not ${MINUTES}`);
  const root = await mkdtemp(join(tmpdir(), 'tally-bench-soak-'));
  const run = randomBytes(4).toString('hex');
  const prefix = `tally-soak:${run}`;
  const cleanups: Array<[string, () => Promise<unknown>]> = [
    ['temp dirs', () => rm(root, { recursive: true, force: true })],
  ];
  const docker = new Docker(loadConfig({}, { TALLY_HOME: root }).docker);
  const leftovers: Record<string, number> = {};
  try {
    const machine = await machineInfo(docker);
    say(`MariaDB database with telco, Redis prefix ${prefix}, temp dir ${root}`);
    const database = await createScratchDatabase('tally_soak');
    cleanups.push(['database', () => database.drop()]);
    await loadTelco({ target: database.url });
    // Two stores, at most two turns a thread, four model requests a turn, and as much again to spare.
    const threadsPerSide = Math.ceil((MINUTES * 60_000) / THREAD_EVERY_MS);
    const model = await startScriptedModelServer({ script: soakScript(threadsPerSide * 2 * 2 * 4 * 2) });
    cleanups.push(['model server', () => model.close()]);
    const probe = await RedisProbe.connect(REDIS_URL, prefix);
    cleanups.push([
      'redis keys',
      async () => {
        leftovers.redisKeysDeleted = await probe.deleteAll();
        probe.close();
      },
    ]);
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    const sides: SoakSide[] = [];
    for (const name of ['redis', 'sqlite'] as const) {
      const home = join(root, name);
      const config = loadConfig(env, {
        TALLY_HOME: home,
        TALLY_INSTANCE: `soak-${name}-${run}`,
        DATABASE_URL: database.url,
        LLM_BASE_URL: model.url,
        LLM_MODEL: 'scripted',
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
        TALLY_REQUIRE_READONLY: 'false',
        TALLY_SANDBOX_POOL_SIZE: '1',
        TALLY_SANDBOX_IDLE_TTL_MS: '60000',
        TALLY_RETENTION_DAYS: String(RETENTION_MINUTES / 1440),
        TALLY_AUDIT_RETENTION_DAYS: String(RETENTION_MINUTES / 1440),
        TALLY_RETENTION_SWEEP_MINUTES: String(SWEEP_MINUTES),
        ...(name === 'redis' ? { REDIS_URL, TALLY_REDIS_PREFIX: prefix } : {}),
      });
      const logger = createLogger({ level: config.logLevel });
      const traffic = new SoakTraffic({
        name,
        followUpEvery: 3,
        turnTimeoutMs: TURN_TIMEOUT_MS,
        users: ['U1', 'U2', 'U3', 'U4'],
      });
      const tally: Tally = await createTally({
        config,
        logger,
        llm: createLlmClient(config.llm, logger),
        post: traffic.post,
        sweepRetention: true,
      });
      cleanups.push([
        `${name} tally`,
        async () => {
          await tally.router.shutdown(30_000);
          await tally.close();
          const left = await docker.listContainers({
            all: true,
            filters: { label: [`tally.instance=${config.instance}`] },
          });
          leftovers[`${name}Containers`] = left.length;
          await Promise.all(left.map((container) => docker.getContainer(container.Id).remove({ force: true })));
        },
      ]);
      tally.router.startRecovering();
      sides.push({ name, tally, traffic, statePath: join(home, 'state.db') });
    }

    say(`${MINUTES} min of traffic: a new thread every ${THREAD_EVERY_MS / 1000} s on each store`);
    const samples: SoakSample[] = [];
    const flows: Array<Promise<void>> = [];
    const startedAt = performance.now();
    const durationMs = MINUTES * 60_000;
    const send = async (side: SoakSide, offsetMs: number) => {
      for (let index = 0; offsetMs + index * THREAD_EVERY_MS < durationMs; index += 1) {
        await sleepUntil(startedAt + offsetMs + index * THREAD_EVERY_MS);
        flows.push(
          side.traffic
            .thread((inbound) => side.tally.router.handle(inbound), index)
            .catch((error: unknown) => {
              say(`${side.name} thread ${index} failed: ${String(error)}`);
            }),
        );
      }
    };
    const sampleAll = async () => {
      for (let tick = 0; tick * SAMPLE_EVERY_MS <= durationMs; tick += 1) {
        await sleepUntil(startedAt + tick * SAMPLE_EVERY_MS);
        // The scripted server records every request; drop them so its memory is not counted as tally's.
        model.requests.splice(0);
        const sample = await sampleSoak((performance.now() - startedAt) / 60_000, sides, probe);
        samples.push(sample);
        say(describeSample(sample));
      }
    };
    // The two stores' threads alternate, 3 s apart.
    await Promise.all([...sides.map((side, index) => send(side, (index * THREAD_EVERY_MS) / 2)), sampleAll()]);
    say(`traffic stopped; waiting for ${flows.length} threads to finish`);
    await Promise.all(flows);

    const report = soakReport(samples, sides, WINDOW_MINUTES);
    const failedCleanups = await cleanUp(cleanups.splice(1));
    const output = {
      timestamp: new Date().toISOString(),
      machine,
      settings: {
        minutes: MINUTES,
        threadEverySeconds: THREAD_EVERY_MS / 1000,
        followUpEveryNthThread: 3,
        sampleEverySeconds: SAMPLE_EVERY_MS / 1000,
        retentionMinutes: RETENTION_MINUTES,
        auditRetentionMinutes: RETENTION_MINUTES,
        sweepEveryMinutes: SWEEP_MINUTES,
        windowMinutes: WINDOW_MINUTES,
        sandboxPoolSize: 1,
        sandboxIdleTtlMs: 60_000,
      },
      ...report.json,
      cleanup: { ...leftovers, failed: failedCleanups },
      samples,
    };
    await mkdir(RESULTS_DIR, { recursive: true });
    const file = new URL('soak.json', RESULTS_DIR);
    await writeFile(file, `${JSON.stringify(output, null, 2)}\n`);
    process.stdout.write(`${report.text}\nwrote ${file.pathname}\n`);
    if (failedCleanups.length > 0) say(`clean-up failed: ${failedCleanups.join('; ')}`);
  } finally {
    const failed = await cleanUp(cleanups);
    if (failed.length > 0) say(`clean-up failed: ${failed.join('; ')}`);
  }
}

function describeSample(sample: SoakSample): string {
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  return (
    `t=${sample.minutes.toFixed(1)} min: redis prefix ${mib(sample.redis.prefixBytes)} in ${sample.redis.prefixKeys} keys ` +
    `(server ${mib(sample.redis.usedMemoryBytes)}), sqlite ${mib(sample.sqlite.fileBytes)}, ` +
    `rss ${mib(sample.process.rssBytes)}, heap ${mib(sample.process.heapUsedBytes)}, ` +
    `answered ${sample.traffic.map((side) => `${side.name} ${side.answered}/${side.sent}`).join(', ')}`
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
