/**
 * `npm run bench:load`: tally under a busy morning on this machine. Bursts of 10, 50 and 100 new
 * threads at once, and a steady arrival of one new thread a second, each thread running a python
 * block, a sql block and a python block that needs the first one's variable (no model involved),
 * through the real composition (sandbox, store, embedded SQLite demo database). The anchor, in the
 * same run, is the 50-burst with admission off (every start at once and no kernel cap), as tally
 * started kernels before. Writes bench/results/load.json and prints the table.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Docker from 'dockerode';
import type { DockerSandbox } from '../sandbox/docker-sandbox.js';
import { loadConfig } from '../src/base/config.js';
import { LlmNotConfiguredError } from '../src/base/errors.js';
import { createLogger } from '../src/base/logger.js';
import type { Post } from '../src/ports/chat.js';
import { createTally } from '../src/wiring/create-tally.js';
import { machineInfo } from './machine.js';
import { type Summary, summarize } from './stats.js';

const RESULTS_DIR = new URL('./results/', import.meta.url);
const STEADY_SECONDS = Number(process.env.BENCH_LOAD_STEADY_SECONDS ?? 120);

interface ScenarioResult {
  name: string;
  threads: number;
  answered: number;
  lost: number;
  /** Error posts seen in any thread. */
  errors: number;
  firstReply: Summary;
  /** From the first message sent to the last thread answered. */
  wallS: number;
  kernelStartsPerMinute: number;
  kernelsParked: number;
  peakHostMemoryMib: number;
  peakContainers: number;
}

const sumOf = (index: number) => ((9 + index) * (10 + index)) / 2;

/** What the host uses now: total minus available, as /proc/meminfo says. */
async function hostMemoryUsedMib(): Promise<number> {
  const text = await readFile('/proc/meminfo', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return Math.round((field('MemTotal') - field('MemAvailable')) / 1024);
}

async function runScenario(
  name: string,
  home: string,
  threads: number,
  spacingMs: number,
  overrides: Record<string, string> = {},
): Promise<ScenarioResult> {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const config = loadConfig(env, {
    TALLY_HOME: home,
    TALLY_INSTANCE: `bench-load-${name.replace(/[^a-z0-9]+/gi, '-')}`,
    LOG_LEVEL: 'silent',
    ...overrides,
  });
  const logger = createLogger({ level: config.logLevel });
  const posts = new Map<string, Array<{ post: Post; at: number }>>();
  const tally = await createTally({
    config,
    logger,
    // The threads run their own code blocks: no model is asked anything.
    llm: { model: 'none', complete: () => Promise.reject(new LlmNotConfiguredError()) },
    post: async (threadKey, post) => {
      const list = posts.get(threadKey) ?? [];
      list.push({ post, at: performance.now() });
      posts.set(threadKey, list);
    },
  });
  const sandbox = tally.sandbox as DockerSandbox;
  const docker = new Docker(config.docker);
  let peakMemory = 0;
  let peakContainers = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peakMemory = Math.max(peakMemory, await hostMemoryUsedMib());
      const containers = await docker
        .listContainers({ filters: { label: [`tally.instance=${config.instance}`] } })
        .catch(() => []);
      peakContainers = Math.max(peakContainers, containers.length);
      await sleep(500);
    }
  })();
  const startedAt = performance.now();
  const sent: number[] = [];
  const flows: Array<Promise<void>> = [];
  try {
    for (let index = 0; index < threads; index += 1) {
      const threadKey = `bench:${name}:${index}`;
      const say = (text: string) =>
        tally.router.handle({ threadKey, user: { id: 'U1' }, text, receivedAt: Date.now() });
      sent[index] = performance.now();
      flows.push(
        (async () => {
          await say(
            `\`\`\`python\nimport pandas as pd\ndf = pd.DataFrame({'x': range(${10 + index})})\nlen(df)\n\`\`\``,
          );
          await say('```sql\nSELECT Churn, COUNT(*) AS n FROM user_churn GROUP BY Churn\n```');
          await say("```python\nprint('sum', int(df['x'].sum()))\n```");
        })(),
      );
      if (spacingMs > 0 && index < threads - 1) await sleep(spacingMs);
    }
    await Promise.all(flows);
  } finally {
    sampling = false;
    await sampler;
  }
  const wallMs = performance.now() - startedAt;
  const stats = sandbox.stats();
  await tally.close();
  const firstReplies: number[] = [];
  let answered = 0;
  let errors = 0;
  for (let index = 0; index < threads; index += 1) {
    const thread = posts.get(`bench:${name}:${index}`) ?? [];
    const first = thread.find(({ post }) => post.kind === 'code');
    if (first) firstReplies.push(first.at - (sent[index] ?? startedAt));
    errors += thread.filter(({ post }) => post.kind === 'error' || (post.kind === 'code' && post.error)).length;
    const printed = thread.map(({ post }) => (post.kind === 'code' ? (post.output ?? '') : '')).join('\n');
    if (printed.includes(`\nsum ${sumOf(index)}`)) answered += 1;
  }
  return {
    name,
    threads,
    answered,
    lost: threads - answered,
    errors,
    firstReply: summarize(firstReplies.length > 0 ? firstReplies : [Number.NaN]),
    wallS: Math.round(wallMs / 100) / 10,
    kernelStartsPerMinute: Math.round((stats.started / (wallMs / 60_000)) * 10) / 10,
    kernelsParked: stats.parked,
    peakHostMemoryMib: peakMemory,
    peakContainers,
  };
}

function table(results: ScenarioResult[]): string {
  const header =
    '| scenario | answered | lost | errors | first reply p50 / p95 | wall | kernel starts/min | parked | peak host memory | peak containers |';
  const line = '|---|---|---|---|---|---|---|---|---|---|';
  const rows = results.map(
    (result) =>
      `| ${result.name} | ${result.answered}/${result.threads} | ${result.lost} | ${result.errors} | ` +
      `${(result.firstReply.p50Ms / 1000).toFixed(1)} s / ${(result.firstReply.p95Ms / 1000).toFixed(1)} s | ` +
      `${result.wallS} s | ${result.kernelStartsPerMinute} | ${result.kernelsParked} | ${result.peakHostMemoryMib} MiB | ${result.peakContainers} |`,
  );
  return [header, line, ...rows].join('\n');
}

async function main(): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'tally-bench-load-'));
  const say = (message: string) => process.stderr.write(`bench:load: ${message}\n`);
  try {
    const config = loadConfig({}, { TALLY_HOME: home });
    const machine = await machineInfo(new Docker(config.docker));
    const results: ScenarioResult[] = [];
    for (const threads of [10, 50, 100]) {
      say(`burst of ${threads} new threads`);
      results.push(await runScenario(`burst ${threads}`, home, threads, 0));
    }
    say(`one new thread a second for ${STEADY_SECONDS} s`);
    results.push(await runScenario(`steady 1/s for ${STEADY_SECONDS} s`, home, STEADY_SECONDS, 1000));
    say('anchor: burst of 50 with admission off (every start at once, no kernel cap)');
    const anchor = await runScenario('anchor: burst 50, admission off', home, 50, 0, {
      TALLY_SANDBOX_START_CONCURRENCY: '1000',
      TALLY_MAX_KERNELS: '1000',
    });
    results.push(anchor);
    const burst50 = results.find((result) => result.name === 'burst 50');
    const ratio = (burst50?.firstReply.p50Ms ?? Number.NaN) / anchor.firstReply.p50Ms;
    const output = {
      timestamp: new Date().toISOString(),
      machine,
      defaults: { startConcurrency: config.sandbox.startConcurrency, maxKernels: config.sandbox.maxKernels },
      results,
      ratios: { burst50FirstReplyP50OverAnchor: Math.round(ratio * 100) / 100 },
      targets: {
        burst100AllAnswered: results.find((result) => result.name === 'burst 100')?.answered === 100,
        noneLost: results.filter((result) => !result.name.startsWith('anchor')).every((result) => result.lost === 0),
        burst50FirstReplyP50AtMostHalfOf79_7s: (burst50?.firstReply.p50Ms ?? Number.POSITIVE_INFINITY) <= 79_700 / 2,
      },
      notes: [
        'Each thread: a python block, a sql block (embedded SQLite demo database), a python block using the first one; no model.',
        'first reply: from sending a thread’s first message to its first answer (the first code post).',
        'The anchor runs the same 50-burst with admission off, the way kernels started before the start queue.',
        'Timings compare within this run only.',
      ],
    };
    await mkdir(RESULTS_DIR, { recursive: true });
    const file = new URL('load.json', RESULTS_DIR);
    await writeFile(file, `${JSON.stringify(output, null, 2)}\n`);
    process.stdout.write(
      `${table(results)}\n\nburst 50 first reply p50 / anchor's: ${output.ratios.burst50FirstReplyP50OverAnchor}x\n` +
        `targets: ${JSON.stringify(output.targets)}\nwrote ${file.pathname}\n`,
    );
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:load failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
