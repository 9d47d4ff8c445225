/**
 * `npm run bench:turn`: tally's own milliseconds per message. Threads go through the router of the real
 * composition (store, sessions, agent, policy, audit; the embedded SQLite demo database) with a model that
 * answers at once (a clear request: no triage; the act stage answers in words: no tool call, so no cell and no
 * kernel), so what is measured is tally alone: a new thread's first message and a follow-up in it, p50 and
 * p95, and where the CPU went by stage (a profile of the measured messages, see turn-stages.ts). Targets:
 * new thread <= 150 ms, follow-up <= 30 ms on this machine. Writes bench/results/turn.json.
 */

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Profiler } from 'node:inspector';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/base/config.js';
import { createLogger } from '../src/base/logger.js';
import type { Completion, LlmClient } from '../src/ports/llm.js';
import { createTally } from '../src/wiring/create-tally.js';
import { summarize } from './stats.js';
import { stagesOf } from './turn-stages.js';

const RESULTS_DIR = new URL('./results/', import.meta.url);
const WARMUP = 5;
const THREADS = Number(process.env.BENCH_TURN_THREADS ?? 40);
const NEW_THREAD_TARGET_MS = 150;
const FOLLOW_UP_TARGET_MS = 30;

/** A model that answers at once, in words: no triage (a clear request), no tool call. */
const instantModel: LlmClient = {
  model: 'bench-instant',
  async complete(): Promise<Completion> {
    const usage = { promptTokens: 0, completionTokens: 0 };
    return { message: { role: 'assistant', content: 'Noted.' }, toolCalls: [], usage, finishReason: 'stop' };
  },
};

async function main(): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'tally-bench-turn-'));
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  const config = loadConfig(env, { TALLY_HOME: home, TALLY_INSTANCE: 'bench-turn', LOG_LEVEL: 'silent' });
  let posts = 0;
  const tally = await createTally({
    config,
    logger: createLogger({ level: config.logLevel }),
    llm: instantModel,
    post: async () => {
      posts += 1;
    },
  });
  const profiler = new Session();
  profiler.connect();
  const newThread: number[] = [];
  const followUp: number[] = [];
  let profile: Profiler.Profile | undefined;
  try {
    const say = async (threadKey: string, text: string) => {
      const started = performance.now();
      await tally.router.handle({ threadKey, user: { id: 'U1' }, text, receivedAt: Date.now() });
      return performance.now() - started;
    };
    for (let index = 0; index < WARMUP + THREADS; index += 1) {
      if (index === WARMUP) {
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
        await profiler.post('Profiler.start');
      }
      const threadKey = `bench:turn:${index}`;
      const first = await say(threadKey, 'How many customers churned, by contract type?');
      const second = await say(threadKey, 'And by payment method?');
      if (index >= WARMUP) {
        newThread.push(first);
        followUp.push(second);
      }
    }
    profile = (await profiler.post('Profiler.stop')).profile;
  } finally {
    profiler.disconnect();
    await tally.close();
    await rm(home, { recursive: true, force: true });
  }
  const messages = newThread.length + followUp.length;
  const stages = Object.fromEntries(
    Object.entries(profile ? stagesOf(profile) : {})
      .sort(([, left], [, right]) => right - left)
      .map(([stage, ms]) => [stage, Math.round((ms / messages) * 100) / 100]),
  );
  const results = { newThread: summarize(newThread), followUp: summarize(followUp) };
  const output = {
    timestamp: new Date().toISOString(),
    threads: THREADS,
    posts,
    results,
    cpuMsPerMessageByStage: stages,
    targets: {
      newThreadP50AtMost150Ms: results.newThread.p50Ms <= NEW_THREAD_TARGET_MS,
      followUpP50AtMost30Ms: results.followUp.p50Ms <= FOLLOW_UP_TARGET_MS,
    },
    notes: [
      'The model answers at once and calls no tool: every millisecond is tally (store, sessions, agent, policy, audit, posting).',
      'By stage: CPU per message from a profile of the measured messages, charged to the innermost tally frame of each sample.',
      'Timings compare within this run only.',
    ],
  };
  await mkdir(RESULTS_DIR, { recursive: true });
  const file = new URL('turn.json', RESULTS_DIR);
  await writeFile(file, `${JSON.stringify(output, null, 2)}\n`);
  const row = (label: string, summary: ReturnType<typeof summarize>) =>
    `${label.padEnd(12)} p50 ${summary.p50Ms.toFixed(1)} ms, p95 ${summary.p95Ms.toFixed(1)} ms`;
  process.stdout.write(
    [
      row('new thread', results.newThread),
      row('follow-up', results.followUp),
      `CPU ms per message by stage: ${JSON.stringify(stages)}`,
      `targets: ${JSON.stringify(output.targets)}`,
      `wrote ${file.pathname}`,
      '',
    ].join('\n'),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `bench:turn failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
