/**
 * Retention against the real parts: the store (the embedded SQLite file, and Redis shared by two
 * replicas), the Docker sandbox, MariaDB, and the scripted model through the openai SDK. With a
 * retention of seconds and a fake clock, a thread whose last turn ended before the cut goes whole
 * (store entries, kernels and their workspaces, shared files, figures, and the exports that hold
 * it), a newer thread stays as it was and goes on answering, audit records go by their own retention
 * with the chain intact, and one replica per period does the work. What is left is read behind
 * tally's back: every SQLite row, every Redis key and value, every file under TALLY_HOME.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS } from '../../sandbox/container-spec.js';
import type { DockerSandbox } from '../../sandbox/docker-sandbox.js';
import { loadConfig } from '../../src/base/config.js';
import { createLogger } from '../../src/base/logger.js';
import {
  callTool,
  type ScriptContext,
  type ScriptedModelServer,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import type { Post, SharedFile } from '../../src/ports/chat.js';
import type { SweepCounts } from '../../src/retention/retention-sweep.js';
import type { StoredAuditRecord } from '../../src/store/audit-log.js';
import { exportTraining } from '../../src/training/export-training.js';
import { createTally, type Tally } from '../../src/wiring/create-tally.js';
import { cleanUp } from '../support/clean-up.js';
import { containersOf, docker } from '../support/docker.js';
import { FakeClock } from '../support/fake-clock.js';
import { parseExposition, sampleValue } from '../support/prometheus-text.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';
import { filesMentioning, mentioning, redisEntries, type StoredEntry, sqliteEntries } from '../support/stored-state.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const SECOND_MS = 1000;
const DAY_MS = 86_400_000;
const RETENTION_MS = 100 * SECOND_MS;
const AUDIT_RETENTION_MS = 200 * SECOND_MS;
/** On the hour, a day ago: what is written in real time lies in this clock's future, so no age is left to chance. */
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - DAY_MS;
const at = (seconds: number) => T0 + seconds * SECOND_MS;

/** Every trace of the old thread carries this word (its key, its messages, its file); the new one's, the other. */
const OLD = 'walrus';
const NEW = 'pelican';

const answerable = callTool('triage', { verdict: 'answerable' });
const lastLine = (context: ScriptContext) => context.lastToolResult?.content.split('\n').at(-1) ?? '';

/**
 * A thread's two messages: a question with a shared CSV (a cell with a chart, a query, a drafted
 * section), then "accept" on the other replica (a cell there, in a kernel of its own, then the answer).
 */
const threadScript = (word: string) => [
  answerable,
  callTool('run_python', {
    code: `import pandas as pd\nsales = pd.read_csv("/inputs/uploads/${word}.csv")\nsales.plot.bar(x="region", y="sales", title="${word} sales")\nint(sales.sales.sum())`,
  }),
  callTool('run_sql', { sql: 'SELECT COUNT(*) AS customers FROM user_payments' }),
  callTool('draft_section', { title: `${word} sales`, markdown: `The ${word} file sells 42 in all.` }),
  callTool('run_python', { code: 'int(sales.sales.sum()) * 2' }),
  (context: ScriptContext) => say(`${word} doubled: ${lastLine(context)}`),
];
const script = [
  ...threadScript(OLD),
  ...threadScript(NEW),
  answerable,
  callTool('run_python', { code: 'int(sales.sales.sum())' }),
  (context: ScriptContext) => say(`${NEW} again: ${lastLine(context)}`),
];

const salesFile = (word: string): SharedFile => {
  const bytes = Buffer.from(`region,sales\n${word}-north,10\n${word}-south,32\n`);
  return { name: `${word}.csv`, mime: 'text/csv', sizeBytes: bytes.byteLength, download: async () => bytes };
};
/** The store's own file is read table by table (sqliteEntries), not as bytes. */
const isStateFile = (path: string) => path.startsWith('state.db');
const isAudit = (entry: StoredEntry) => entry.name.startsWith('audit');

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (await probe()) return;
    await sleep(100);
  }
  throw new Error(`still not so after 30 s: ${what}`);
}

describe.each([
  { store: 'sqlite', replicaCount: 1 },
  { store: 'redis', replicaCount: 2 },
])('retention on $store with $replicaCount replica(s)', ({ store, replicaCount }) => {
  const clock = new FakeClock(T0);
  const replicas: Tally[] = [];
  const posts: Array<{ threadKey: string; post: Post }> = [];
  const oldThread = `console:retention:${OLD}`;
  const newThread = `console:retention:${NEW}`;
  let environment: TestEnvironment;
  let redis: RedisTestSpace | undefined;
  let model: ScriptedModelServer;
  let home: string;
  /** What stood before the first sweep. */
  let before: { newEntries: StoredEntry[]; oldFolders: string[]; newFolders: string[]; audit: StoredAuditRecord[] };
  let firstSweep: SweepCounts | undefined;

  const instanceOf = (index: number) =>
    replicaCount === 1 ? environment.instance : `${environment.instance}-${index}`;
  const replica = (index: number): Tally => {
    const tally = replicas[index % replicas.length];
    if (!tally) throw new Error('no replica');
    return tally;
  };
  const send = (index: number, threadKey: string, text: string, files?: SharedFile[]) =>
    replica(index).router.handle({
      threadKey,
      user: { id: 'U1' },
      text,
      receivedAt: clock.now(),
      ...(files ? { files } : {}),
    });
  const textsOf = (threadKey: string) =>
    posts.flatMap(({ threadKey: key, post }) => (key === threadKey && post.kind === 'text' ? [post.markdown] : []));
  const entries = async () => (redis ? redisEntries(redis) : sqliteEntries(join(home, 'state.db')));
  /** The store entries named after the thread (its session, log, inbox, journal, report, figures, shared files). */
  const entriesOf = async (threadKey: string) =>
    (await entries()).filter((entry) => entry.name.includes(threadKey)).sort((a, b) => a.text.localeCompare(b.text));
  /** The thread's kernel workspace on each replica that holds a kernel for it. */
  const workspacesOf = (threadKey: string) =>
    replicas.flatMap((tally) => {
      const kernel = (tally.sandbox as DockerSandbox).sessions.get(threadKey);
      return kernel ? [kernel.workspacePath] : [];
    });
  const containersFor = async (threadKey: string) =>
    (
      await Promise.all(
        replicas.map((_, index) =>
          docker.listContainers({
            all: true,
            filters: { label: [`${LABELS.instance}=${instanceOf(index)}`, `${LABELS.session}=${threadKey}`] },
          }),
        ),
      )
    ).flat();
  const sweepAll = async () =>
    (await Promise.all(replicas.map((tally) => tally.retention?.sweepOnce()))).filter(
      (counts): counts is SweepCounts => counts !== undefined,
    );
  const sweeps = async (result: string) => {
    let total = 0;
    for (const tally of replicas) {
      const families = parseExposition((await tally.metrics.render()).body);
      total += sampleValue(families, 'tally_retention_sweeps_total', { result });
    }
    return total;
  };

  async function seedThread(threadKey: string, word: string): Promise<void> {
    await send(0, threadKey, `What do the ${word} sales add up to?`, [salesFile(word)]);
    await send(1, threadKey, 'accept');
  }

  /** A console export, a chart and an eval run, and a training export, all last changed `seconds` in. */
  async function seedFiles(word: string, seconds: number): Promise<void> {
    const paths = [
      join(home, 'reports', `${word}.md`),
      join(home, 'charts', `${word}.png`),
      join(home, 'eval', `run-${word}`, 'summary.json'),
    ];
    for (const path of paths) {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, `${word}\n`);
    }
    const exported = await exportTraining(replica(0).store, join(home, 'training', `${word}.jsonl`));
    expect(exported.examples).toBeGreaterThan(0);
    const stamp = at(seconds) / SECOND_MS;
    for (const path of [...paths, join(home, 'eval', `run-${word}`), exported.examplesPath, exported.preferencesPath]) {
      await utimes(path, stamp, stamp);
    }
  }

  beforeAll(async () => {
    environment = await createTestEnvironment('retention');
    home = environment.home;
    if (store === 'redis') redis = await createRedisTestSpace('retention');
    model = await startScriptedModelServer({ script });
    for (let index = 0; index < replicaCount; index += 1) {
      const config = loadConfig({
        ...environment.env(model.url),
        TALLY_INSTANCE: instanceOf(index),
        TALLY_RETENTION_DAYS: String(RETENTION_MS / DAY_MS),
        TALLY_AUDIT_RETENTION_DAYS: String(AUDIT_RETENTION_MS / DAY_MS),
        TALLY_RETENTION_SWEEP_MINUTES: '1',
        ...(redis ? { REDIS_URL: redis.url, TALLY_REDIS_PREFIX: redis.keyPrefix } : {}),
      });
      const logger = createLogger({ level: config.logLevel });
      const tally = await createTally({
        config,
        logger,
        llm: createLlmClient(config.llm, logger),
        post: async (threadKey, post) => {
          posts.push({ threadKey, post });
        },
        sweepRetention: true,
        clock,
      });
      replicas.push(tally);
      // The test sweeps by hand at chosen times: the periodic sweep would race it whenever the clock moves.
      await tally.retention?.stop();
    }
  }, 240_000);

  afterAll(async () => {
    await cleanUp(
      ...replicas.map((tally) => () => tally.close()),
      () => model?.close(),
      () => redis?.cleanup(),
      async () => {
        if (replicaCount === 1) return; // environment.close() checks its own instance
        const left = (await Promise.all(replicas.map((_, index) => containersOf(instanceOf(index))))).flat();
        if (left.length > 0) throw new Error(`leaked ${left.length} containers`);
      },
      () => environment?.close(),
    );
  }, 120_000);

  it('keeps all a thread leaves until it expires: store entries, a kernel on each replica, files, exports', async () => {
    await seedThread(oldThread, OLD);
    await seedFiles(OLD, 0);
    clock.set(at(120)); // past the old thread's retention
    await seedThread(newThread, NEW);
    await seedFiles(NEW, 120);
    expect(textsOf(oldThread).at(-1)).toBe(`${OLD} doubled: 84`);
    expect(textsOf(newThread).at(-1)).toBe(`${NEW} doubled: 84`);
    for (const threadKey of [oldThread, newThread]) {
      const names = (await entriesOf(threadKey)).map((entry) => entry.name);
      for (const kind of ['session', 'log', 'journal', 'inbox', 'inbox-done', 'report', 'figure', 'upload']) {
        expect(names.some((name) => name.startsWith(`${kind}:${threadKey}`))).toBe(true);
      }
      const workspaces = workspacesOf(threadKey);
      expect(workspaces).toHaveLength(replicaCount);
      expect(workspaces.every((path) => existsSync(join(path, 'inputs', 'uploads')))).toBe(true);
    }
    // The control for what the sweep must remove: the old thread is on disk, in the new export too.
    expect(await filesMentioning(home, OLD, { skip: isStateFile })).toEqual(
      expect.arrayContaining(['charts/walrus.png', 'eval/run-walrus/summary.json', 'reports/walrus.md']),
    );
    expect(await filesMentioning(join(home, 'training'), OLD)).toEqual([
      'pelican.jsonl',
      'walrus.jsonl',
      'walrus.preferences.jsonl',
    ]);
    expect(mentioning(await entries(), oldThread).some(isAudit)).toBe(true);
  });

  it('sweeps once a period, on one replica only', async () => {
    clock.set(at(130));
    before = {
      newEntries: await entriesOf(newThread),
      oldFolders: workspacesOf(oldThread),
      newFolders: workspacesOf(newThread),
      audit: await replica(0).auditLog.read(),
    };
    const done = await sweepAll();
    expect(done).toEqual([{ threads: 1, inboxEntries: 4, files: 5, auditRecords: 0, trainingExports: 1 }]);
    firstSweep = done[0];
    expect(await sweepAll()).toEqual([]); // the same period again: every replica skips
    expect(await sweeps('done')).toBe(1);
    expect(await sweeps('skipped')).toBe(2 * replicaCount - 1);
    expect(await sweeps('failed')).toBe(0);
  });

  it('leaves nothing of the expired thread: no store entry, kernel, workspace or file holds it', async () => {
    // Audit records have a retention of their own (longer here); and the thread's key, no content, waits
    // among the forgotten threads until the next sweep, for the other replicas to drop their kernels.
    const stored = await entries();
    expect(mentioning(stored, OLD).filter((entry) => !isAudit(entry))).toEqual([
      { name: 'forgotten-threads', text: expect.any(String) },
    ]);
    expect(mentioning(stored, oldThread).some(isAudit)).toBe(true);
    // Every replica drops its kernel of the thread: the sweeper at once, the others when they next look.
    clock.advance(20 * SECOND_MS);
    await until(
      async () => workspacesOf(oldThread).length === 0 && (await containersFor(oldThread)).length === 0,
      `the kernels of ${oldThread} are disposed on every replica`,
    );
    expect(before.oldFolders).toHaveLength(replicaCount);
    for (const folder of before.oldFolders) {
      expect(existsSync(folder)).toBe(false);
      expect(existsSync(`${folder}.ext4`)).toBe(false); // the workspace's disk image, where quotas work
    }
    expect(await filesMentioning(home, OLD, { skip: isStateFile })).toEqual([]);
  });

  it('leaves the newer thread as it was, and it answers a follow-up in its kernel', async () => {
    expect(await entriesOf(newThread)).toEqual(before.newEntries);
    expect(workspacesOf(newThread)).toEqual(before.newFolders);
    expect((await containersFor(newThread)).length).toBe(replicaCount);
    expect(await filesMentioning(home, NEW, { skip: isStateFile })).toEqual(
      expect.arrayContaining([
        'charts/pelican.png',
        'eval/run-pelican/summary.json',
        'reports/pelican.md',
        'training/pelican.jsonl',
      ]),
    );
    // The export was written again without the expired thread, and kept its age.
    const exported = join(home, 'training', `${NEW}.jsonl`);
    expect(await readFile(exported, 'utf8')).toContain(`What do the ${NEW} sales add up to?`);
    expect((await stat(exported)).mtimeMs).toBe(at(120));
    await send(0, newThread, 'And the total once more?');
    expect(textsOf(newThread).at(-1)).toBe(`${NEW} again: 42`);
  });

  it('expires audit records past their own retention in a later period; newer ones and the chain stay', async () => {
    clock.set(at(215)); // the audit cut is 15 s in; the threads' cut, 115 s in
    const cut = at(215) - AUDIT_RETENTION_MS;
    const expired = before.audit.filter((record) => record.atMs < cut);
    const kept = (await replica(0).auditLog.read()).filter((record) => record.atMs >= cut);
    expect(expired.length).toBeGreaterThan(0);
    expect(kept.some((record) => record.text.includes(newThread))).toBe(true);
    const counts = { threads: 0, inboxEntries: 1, files: 0, auditRecords: expired.length, trainingExports: 0 };
    expect(await sweepAll()).toEqual([counts]);
    const after = await replica(0).auditLog.read();
    expect(after.slice(0, kept.length)).toEqual(kept);
    expect(await replica(0).auditLog.verify()).toEqual({ ok: true, records: after.length });
    const deletions = after.flatMap((record) => {
      const parsed = JSON.parse(record.text) as { kind: string; deletion?: unknown };
      return parsed.kind === 'deletion' ? [{ atMs: record.atMs, deletion: parsed.deletion }] : [];
    });
    expect(deletions).toEqual([
      {
        atMs: at(130),
        deletion: { requestedBy: 'retention', scope: 'retention', target: 'expired', counts: firstSweep },
      },
      {
        atMs: at(215),
        deletion: { requestedBy: 'retention', scope: 'retention', target: 'expired', counts },
      },
    ]);
    // Now nothing anywhere names the old thread, not even the store's own files (a SQLite WAL keeps old
    // pages until it is written back), while the new one is still whole.
    expect(mentioning(await entries(), OLD)).toEqual([]);
    expect(await filesMentioning(home, OLD)).toEqual([]);
    expect((await entriesOf(newThread)).some((entry) => entry.name === `session:${newThread}`)).toBe(true);
  });
});
