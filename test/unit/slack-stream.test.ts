/**
 * The Slack streamed message without Slack: which chunks a turn's progress snapshots become (only
 * what changed, every status a card went through), how they are grouped under the markdown limit,
 * and how `SlackStream` paces its calls (one start, coalesced appends, everything left in the stop)
 * and hands what it could not send to its failure handler.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SlackStream, type StreamFailure } from '../../adapters/slack/slack-stream.js';
import {
  callBatches,
  compactChunks,
  markdownChunks,
  nothingSent,
  progressChunks,
  type StreamChunk,
} from '../../adapters/slack/slack-stream-chunks.js';
import type { ProgressTask, TurnProgress } from '../../src/ports/chat.js';

function snapshot(plan: TurnProgress['plan'], tasks: ProgressTask[], state: TurnProgress['state'] = 'running') {
  return { turnId: 't1', userId: 'U1', startedAt: 0, state, plan, tasks } satisfies TurnProgress;
}

const task = (id: string, status: ProgressTask['status'], extra: Partial<ProgressTask> = {}): ProgressTask => ({
  id,
  title: 'Run Python',
  status,
  details: 'x = 1',
  ...extra,
});

describe('progressChunks', () => {
  it('sends the plan title once, a card per step and call, then only the cards that changed', () => {
    const sent = nothingSent();
    const first = progressChunks(
      sent,
      snapshot(
        [
          { title: 'Load', status: 'in_progress' },
          { title: 'Chart', status: 'pending' },
        ],
        [task('c1', 'pending')],
      ),
    );
    expect(first[0]).toEqual({ type: 'plan_update', title: 'Plan' });
    expect(first.slice(1)).toEqual([
      { type: 'task_update', id: 'step-1', title: 'Load', status: 'in_progress' },
      { type: 'task_update', id: 'step-2', title: 'Chart', status: 'pending' },
      { type: 'task_update', id: 'c1', title: 'Run Python', status: 'pending', details: 'x = 1' },
    ]);
    const second = progressChunks(
      sent,
      snapshot(
        [
          { title: 'Load', status: 'in_progress' },
          { title: 'Chart', status: 'pending' },
        ],
        [task('c1', 'error', { output: "NameError: name 'y' is not defined" })],
      ),
    );
    // Details are appended by Slack, so they go once; the unchanged steps not at all.
    expect(second).toEqual([
      {
        type: 'task_update',
        id: 'c1',
        title: 'Run Python',
        status: 'error',
        output: "NameError: name 'y' is not defined",
      },
    ]);
    expect(
      progressChunks(
        sent,
        snapshot(
          [
            { title: 'Load', status: 'in_progress' },
            { title: 'Chart', status: 'pending' },
          ],
          [task('c1', 'error', { output: "NameError: name 'y' is not defined" })],
        ),
      ),
    ).toEqual([]);
  });

  it('shows the rows of an extraction under way in its title, and the final title when done', () => {
    const sent = nothingSent();
    const loading = task('c1', 'in_progress', {
      title: 'Load customers',
      rows: { received: 12_000, expected: 50_000 },
    });
    expect(progressChunks(sent, snapshot([], [loading]))[0]).toMatchObject({
      title: 'Load customers (12,000 of 50,000 rows)',
    });
    const loaded = task('c1', 'complete', { title: 'Load customers (50,000 rows)' });
    expect(progressChunks(sent, snapshot([], [loaded]))[0]).toMatchObject({
      title: 'Load customers (50,000 rows)',
      status: 'complete',
    });
  });

  it('cuts card fields to 256 characters', () => {
    const [chunk] = progressChunks(nothingSent(), snapshot([], [task('c1', 'pending', { details: 'y'.repeat(400) })]));
    expect(chunk?.type === 'task_update' && chunk.details?.length).toBe(256);
  });
});

describe('compactChunks', () => {
  it('keeps every status a card went through, once each, with the latest fields and the first details', () => {
    const chunks: StreamChunk[] = [
      { type: 'task_update', id: 'c1', title: 'Load', status: 'pending', details: 'SELECT 1' },
      { type: 'task_update', id: 'c1', title: 'Load', status: 'in_progress' },
      { type: 'task_update', id: 'c1', title: 'Load (10 rows so far)', status: 'in_progress' },
      { type: 'markdown_text', text: 'Hello' },
      { type: 'task_update', id: 'c1', title: 'Load (20 rows)', status: 'complete' },
    ];
    expect(compactChunks(chunks)).toEqual([
      { type: 'task_update', id: 'c1', title: 'Load', status: 'pending', details: 'SELECT 1' },
      { type: 'task_update', id: 'c1', title: 'Load (10 rows so far)', status: 'in_progress' },
      { type: 'markdown_text', text: 'Hello' },
      { type: 'task_update', id: 'c1', title: 'Load (20 rows)', status: 'complete' },
    ]);
  });
});

describe('markdown and calls', () => {
  it('cuts long markdown into chunks of at most 12,000 characters, losing nothing', () => {
    const text = `${'a line of the answer\n'.repeat(1000)}end`;
    const chunks = markdownChunks(text);
    expect(chunks.length).toBe(2);
    expect(chunks.every((chunk) => chunk.type === 'markdown_text' && chunk.text.length <= 12_000)).toBe(true);
    expect(chunks.map((chunk) => (chunk.type === 'markdown_text' ? chunk.text : '')).join('')).toBe(text);
  });

  it('groups chunks into calls that each carry at most 12,000 characters of markdown', () => {
    const batches = callBatches([
      { type: 'plan_update', title: 'Plan' },
      { type: 'markdown_text', text: 'a'.repeat(7000) },
      { type: 'markdown_text', text: 'b'.repeat(7000) },
      { type: 'task_update', id: 'c1', title: 'T', status: 'complete' },
    ]);
    expect(batches.map((batch) => batch.map((chunk) => chunk.type))).toEqual([
      ['plan_update', 'markdown_text'],
      ['markdown_text', 'task_update'],
    ]);
  });
});

describe('SlackStream', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * A stream whose calls are written down; the `at`-th call to `fail.method` fails, at once or, with
   * `held`, only when `failHeld()` is called (so chunks can queue behind it while it is under way).
   */
  function recorded(fail?: { method: 'start' | 'append' | 'stop'; at?: number; held?: boolean }) {
    const calls: Array<{ method: string; chunks: StreamChunk[] }> = [];
    const failures: StreamFailure[] = [];
    const error = () => Object.assign(new Error('x'), { data: { error: 'internal_error' } });
    let failHeld = (): void => {
      throw new Error('no call is held');
    };
    const act = async (method: 'start' | 'append' | 'stop', chunks: StreamChunk[]) => {
      calls.push({ method, chunks });
      const count = calls.filter((call) => call.method === method).length;
      if (fail?.method !== method || (fail.at ?? 1) !== count) return;
      if (!fail.held) throw error();
      await new Promise<void>((_resolve, reject) => {
        failHeld = () => reject(error());
      });
    };
    const stream = new SlackStream({
      intervalMs: 400,
      now: () => Date.now(),
      calls: {
        start: async (chunks) => {
          await act('start', chunks);
          return '1700000000.000200';
        },
        append: (_ts, chunks) => act('append', chunks),
        stop: (_ts, chunks) => act('stop', chunks),
      },
      onFailure: async (failure) => {
        failures.push(failure);
      },
    });
    return { stream, calls, failures, failHeld: () => failHeld() };
  }

  const card = (id: string, status: ProgressTask['status']): StreamChunk => ({
    type: 'task_update',
    id,
    title: id,
    status,
  });

  it('starts at once, then sends what piles up at most once per interval, and the rest with the stop', async () => {
    const { stream, calls } = recorded();
    expect(await stream.open([card('c1', 'pending')])).toBe(true);
    for (let update = 0; update < 20; update += 1) {
      stream.push([card('c1', update % 2 === 0 ? 'in_progress' : 'complete')]);
      await vi.advanceTimersByTimeAsync(50);
    }
    stream.push([{ type: 'markdown_text', text: 'The answer.' }]);
    await stream.stop();
    const methods = calls.map((call) => call.method);
    expect(methods[0]).toBe('start');
    expect(methods.at(-1)).toBe('stop');
    // 20 updates over a second: at most 3 appends at 400 ms, not 20.
    expect(methods.filter((method) => method === 'append').length).toBeLessThanOrEqual(3);
    expect(calls.at(-1)?.chunks).toContainEqual({ type: 'markdown_text', text: 'The answer.' });
    expect(stream.ts).toBe('1700000000.000200');
  });

  it('hands the chunks of a failed call and everything after it to the failure handler, in order, and sends no more', async () => {
    const { stream, calls, failures, failHeld } = recorded({ method: 'append', held: true });
    await stream.open([card('c1', 'pending')]);
    // Two batches in one call: over 12,000 characters of markdown go in two appends.
    const partOne = { type: 'markdown_text', text: `Part one. ${'a'.repeat(7000)}` } as const;
    const partTwo = { type: 'markdown_text', text: `Part two. ${'b'.repeat(7000)}` } as const;
    stream.push([partOne, partTwo]);
    await vi.advanceTimersByTimeAsync(500);
    expect(calls.map((call) => call.method)).toEqual(['start', 'append']);
    expect(calls[1]?.chunks).toEqual([partOne]);
    // Queued behind the append under way.
    stream.push([card('c1', 'complete')]);
    stream.push([{ type: 'markdown_text', text: 'Part three.' }]);
    failHeld();
    await stream.idle();
    expect(failures).toHaveLength(1);
    expect(failures[0]?.phase).toBe('append');
    expect(failures[0]?.unsent).toEqual([
      partOne,
      partTwo,
      card('c1', 'complete'),
      { type: 'markdown_text', text: 'Part three.' },
    ]);
    expect(stream.failed).toBe(true);
    // Nothing more goes out: not the timer's call for what queued, not a later push, not the stop.
    await vi.advanceTimersByTimeAsync(1000);
    stream.push([{ type: 'markdown_text', text: 'ignored' }]);
    await stream.stop();
    expect(calls.map((call) => call.method)).toEqual(['start', 'append']);
    expect(failures).toHaveLength(1);
  });

  it('reports a refused start with the chunks it carried', async () => {
    const { stream, failures } = recorded({ method: 'start' });
    expect(await stream.open([card('c1', 'pending')])).toBe(false);
    expect(failures[0]).toMatchObject({ phase: 'start', unsent: [card('c1', 'pending')] });
  });
});
