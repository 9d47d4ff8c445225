/**
 * Discord's live progress: the text of the progress message (plan checklist, step marks, outputs,
 * the 2,000-character limit) and the display that posts it once and edits it at most once per
 * interval, always ending with the final picture; a message a dead process left half-edited is
 * stopped by the thread's next turn (on a real SQLite store), one of this process's is not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OpenPosts } from '../../adapters/common/open-posts.js';
import { DiscordProgress, type OpenProgress, type ProgressTransport } from '../../adapters/discord/discord-progress.js';
import {
  formatElapsed,
  LEFT_OPEN_HEADER,
  leftOpenText,
  renderProgress,
} from '../../adapters/discord/discord-progress-text.js';
import { createLogger } from '../../src/base/logger.js';
import type { ProgressTask, TurnProgress } from '../../src/ports/chat.js';
import { openPostKey } from '../../src/ports/chat.js';
import { createStore } from '../../src/store/create-store.js';

const task = (id: string, title: string, status: ProgressTask['status'], output?: string): ProgressTask => ({
  id,
  title,
  status,
  ...(output ? { output } : {}),
});

function turn(overrides: Partial<TurnProgress> = {}): TurnProgress {
  return { turnId: 't1', userId: 'U1', startedAt: 0, state: 'running', plan: [], tasks: [], ...overrides };
}

describe('the progress message text', () => {
  it('shows the plan as a checklist and each step with its mark and short output', () => {
    const text = renderProgress(
      turn({
        plan: [
          { title: 'Load the payments', status: 'complete' },
          { title: 'Count contracts', status: 'in_progress' },
          { title: 'Chart them', status: 'pending' },
        ],
        tasks: [
          task('a', 'Load payments (7,043 rows)', 'complete'),
          task('b', 'Run Python', 'error', "KeyError: 'Contrat'"),
          task('c', 'Run Python', 'complete', 'repaired'),
          { ...task('d', 'Load customers', 'in_progress'), rows: { received: 1200, expected: 5634 } },
          task('e', 'Count rows per table', 'pending'),
        ],
      }),
      { now: 12_400, note: 'stopping' },
    );
    expect(text).toBe(
      [
        '**Working…** · 12 s',
        '**Plan**',
        '☑ 1. Load the payments',
        '▶ 2. Count contracts',
        '☐ 3. Chart them',
        '**Steps**',
        '✓ Load payments (7,043 rows)',
        "✗ Run Python — KeyError: 'Contrat'",
        '↻ Run Python — repaired',
        '⏳ Load customers — 1,200 of 5,634 rows',
        '◦ Count rows per table',
        '*… stopping*',
      ].join('\n'),
    );
  });

  it('says how the turn ended, and shows markdown in titles as itself', () => {
    const done = renderProgress(turn({ state: 'done', tasks: [task('a', 'Query *user_churn*', 'complete')] }), {
      now: 75_000,
    });
    expect(done.split('\n')).toEqual(['**Done** · 1 min 15 s', '**Steps**', '✓ Query \\*user\\_churn\\*']);
    const waiting = turn({
      state: 'done',
      tasks: [task('a', 'Draft section: Overview', 'complete', 'waiting for you')],
    });
    expect(renderProgress(waiting, { now: 0 })).toMatch(/^\*\*Waiting for you\*\*/);
    expect(renderProgress(turn({ state: 'failed' }), { now: 0 })).toMatch(/^\*\*Stopped\*\* · /);
    expect(formatElapsed(120_000)).toBe('2 min');
  });

  it('stays under 2,000 characters by folding the oldest completed steps first', () => {
    const tasks = Array.from({ length: 60 }, (_, index) =>
      index === 3
        ? task(`t${index}`, 'Run Python', 'error', `ValueError: ${'x'.repeat(60)}`)
        : task(`t${index}`, `Query table_${index} ${'y'.repeat(40)}`, 'complete', `${index} rows`),
    );
    const text = renderProgress(turn({ tasks }), { now: 0 });
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toMatch(/\n… \d+ more steps\n/);
    expect(text).toContain('✗ Run Python — ValueError'); // the failure is kept, older successes fold
    expect(text).toContain('Query table\\_59');
    expect(text).not.toContain('Query table\\_0 ');
  });
});

/** A transport that records what was sent and when; each call takes `latencyMs`. Messages are M1, M2, … */
function recording(latencyMs = 5, messagePrefix = 'M') {
  const calls: Array<{
    kind: 'send' | 'edit' | 'typing' | 'stop';
    content?: string;
    messageId?: string;
    at: number;
    answeredAt?: number;
  }> = [];
  const wait = () => new Promise((resolve) => setTimeout(resolve, latencyMs));
  let sent = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const transport: ProgressTransport = {
    inOrder: (_threadId, run) => {
      const next = queue.then(run);
      queue = next.catch(() => {});
      return next;
    },
    send: async (_threadId, content) => {
      const call = { kind: 'send' as const, content, at: Date.now() };
      calls.push(call);
      await wait();
      sent += 1;
      return `${messagePrefix}${sent}`;
    },
    stopLeftOpen: async (_threadId, messageId) => {
      calls.push({ kind: 'stop', messageId, at: Date.now() });
    },
    edit: async (_threadId, _messageId, content) => {
      calls.push({ kind: 'edit', content, at: Date.now() });
      await wait();
    },
    typing: async () => {
      calls.push({ kind: 'typing', at: Date.now() });
    },
  };
  return { calls, transport };
}

const until = async (probe: () => boolean) => {
  const deadline = Date.now() + 5000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('a progress message a dead process left half-edited', () => {
  it('is stopped by the next turn in any process, keeping its picture; one this process is finishing is not', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tally-progress-'));
    const logger = createLogger({ level: 'silent' });
    const store = await createStore({ sqlitePath: join(home, 'state.db'), logger });
    try {
      const open = () => new OpenPosts<OpenProgress>(store, logger);
      // A process posts a running turn's progress, and dies: its message stays on record.
      const dead = recording(5, 'dead-');
      const first = new DiscordProgress({ transport: dead.transport, open: open(), intervalMs: 50, logger });
      first.show('T1', turn({ turnId: 'dead-turn' }));
      await until(() => dead.calls.some((call) => call.kind === 'send'));
      await expect.poll(() => store.get(openPostKey('T1'))).toEqual({ messageId: 'dead-1' });

      // Another process's next turn in that thread stops it before posting its own.
      const living = recording(5, 'living-');
      const second = new DiscordProgress({ transport: living.transport, open: open(), intervalMs: 50, logger });
      second.show('T1', turn({ turnId: 'next-turn' }));
      await until(() => living.calls.some((call) => call.kind === 'send'));
      expect(living.calls.filter((call) => call.kind !== 'typing').map((call) => call.kind)).toEqual(['stop', 'send']);
      expect(living.calls.find((call) => call.kind === 'stop')?.messageId).toBe('dead-1');

      // This process ends that turn and starts another at once, before the final state is sent: not stopped.
      second.show('T1', turn({ turnId: 'next-turn', state: 'done' }));
      second.show('T1', turn({ turnId: 'third-turn' }));
      await until(() => living.calls.filter((call) => call.kind === 'send').length === 2);
      second.show('T1', turn({ turnId: 'third-turn', state: 'done' }));
      // Turns that ended leave nothing on record once their final state is sent.
      await expect.poll(() => store.get(openPostKey('T1'))).toBeUndefined();
      await second.close();
      expect(living.calls.filter((call) => call.kind === 'stop')).toHaveLength(1);
      await first.close();
    } finally {
      await store.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('keeps the last picture under a header saying where the work went on', () => {
    const picture = renderProgress(turn({ tasks: [task('a', 'Query user_churn', 'in_progress')] }), { now: 5_000 });
    const stopped = leftOpenText(picture);
    expect(stopped.split('\n')[0]).toBe(LEFT_OPEN_HEADER);
    expect(stopped.split('\n').slice(1)).toEqual(picture.split('\n').slice(1));
  });
});

describe('the live progress display', () => {
  it('posts once, then edits at most once per interval with the latest picture, ending with the final one', async () => {
    const { calls, transport } = recording();
    const progress = new DiscordProgress({ transport, intervalMs: 150, logger: createLogger({ level: 'silent' }) });
    const tasks: ProgressTask[] = [];
    for (let index = 0; index < 12; index += 1) {
      tasks.push(task(`t${index}`, `Step ${index}`, 'complete'));
      progress.show('T1', turn({ tasks: [...tasks] }));
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    expect(progress.note('T1', 'stopping')).toBe(true);
    progress.show('T1', turn({ state: 'done', tasks: [...tasks] }));
    expect(progress.note('T1', 'anything')).toBe(false); // nothing runs: the caller shows it
    await until(() => calls.some((call) => call.content?.startsWith('**Done**')));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const writes = calls.filter((call) => call.kind !== 'typing');
    expect(writes.filter((call) => call.kind === 'send')).toHaveLength(1);
    expect(writes[0]?.kind).toBe('send');
    expect(writes.length).toBeGreaterThan(2);
    expect(writes.length).toBeLessThan(12);
    for (let index = 1; index < writes.length; index += 1) {
      expect((writes[index]?.at ?? 0) - (writes[index - 1]?.at ?? 0)).toBeGreaterThanOrEqual(150);
    }
    expect(writes.at(-1)?.content).toContain('✓ Step 11');
    expect(writes.at(-1)?.content).not.toContain('stopping');
    expect(calls.filter((call) => call.kind === 'typing').length).toBeGreaterThan(0);
    await progress.close();
  });
});
