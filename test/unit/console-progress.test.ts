import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { ConsoleProgress } from '../../adapters/console/console-progress.js';
import { TurnProgressTracker } from '../../src/agent/turn-progress.js';
import type { Post } from '../../src/ports/chat.js';
import type { ToolCall } from '../../src/ports/llm.js';
import { FakeTerminal, PlainOutput } from '../support/fake-terminal.js';

const ESC = String.fromCharCode(27);
const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-03-02T09:00:00Z'));
});
afterEach(() => vi.useRealTimers());

const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});

function adapterOn(output: FakeTerminal | PlainOutput): (post: Post) => Promise<unknown> {
  const adapter = new ConsoleAdapter({ input: new PassThrough(), output: output.stream, chartDir: '/nonexistent' });
  return (post) => adapter.post(adapter.threadKey, post);
}

/** A turn with a plan, a count, a Python cell that fails and its repair, a text mid-turn and an answer. */
async function repairedTurn(post: (post: Post) => Promise<unknown>): Promise<void> {
  const tracker = new TurnProgressTracker(async (progress) => void (await post(progress)), 'local');
  await tracker.setPlan(['Count the rows of each table', 'Chart churn by contract']);
  const count = call('c1', 'run_sql', { sql: 'SELECT (SELECT COUNT(*) FROM a), (SELECT COUNT(*) FROM b)' });
  await tracker.requested([count]);
  await tracker.started(count);
  await vi.advanceTimersByTimeAsync(300);
  await tracker.finished(count, { content: 'a b\n1 2\n(1 rows)' });
  await post({ kind: 'text', markdown: 'The tables differ in size.' });
  const broken = call('c2', 'run_python', { code: '# Churn by contract\nx.plot()', plan_step: 2 });
  await tracker.requested([broken]);
  await tracker.started(broken);
  await vi.advanceTimersByTimeAsync(400);
  await tracker.finished(broken, { content: "Traceback\nNameError: name 'x' is not defined", failed: true });
  const fixed = call('c3', 'run_python', { code: '# Churn by contract\nrates.plot()', plan_step: 2 });
  await tracker.requested([fixed]);
  await tracker.started(fixed);
  await vi.advanceTimersByTimeAsync(1200);
  await tracker.finished(fixed, { content: 'ok' });
  await post({ kind: 'text', markdown: 'Month-to-month churns most.' });
  await tracker.end('answered');
}

describe('console progress on a terminal', () => {
  it('redraws one block in place and ends showing every step with its mark, posts below it', async () => {
    const terminal = new FakeTerminal();
    await repairedTurn(adapterOn(terminal));
    expect(terminal.lines).toEqual([
      'Plan',
      '  ▸ 1. Count the rows of each table',
      '  · 2. Chart churn by contract',
      'Steps',
      '  ✓ Count rows per table    0.3s  1 row',
      'The tables differ in size.',
      'Plan',
      '  ✓ 1. Count the rows of each table',
      '  ▸ 2. Chart churn by contract',
      'Steps',
      "  ✗ Churn by contract    0.4s  NameError: name 'x' is not defined",
      '  ↻ Churn by contract    1.2s  repaired',
      'Month-to-month churns most.',
    ]);
    // The count was drawn running, then redrawn in place as done.
    expect(terminal.writes.join('')).toContain(`${ESC}[5A`);
    expect(terminal.writes.join('')).toMatch(SPINNER);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('shows a bar for an extraction of more than 100,000 rows, with the total when known', async () => {
    const terminal = new FakeTerminal();
    const progress = new ConsoleProgress({ output: terminal.stream });
    const tracker = new TurnProgressTracker(
      async (post) => progress.show(post.kind === 'progress' ? post.progress : never()),
      'local',
    );
    const load = call('l1', 'load_dataframe', { sql: 'SELECT * FROM events', name: 'events' });
    await tracker.started(load);
    await tracker.rows(load, 40_000, 1_000_000);
    await vi.advanceTimersByTimeAsync(300);
    await tracker.rows(load, 400_000, 1_000_000);
    await vi.advanceTimersByTimeAsync(100);
    expect(terminal.lines).toEqual([
      expect.stringMatching(/^ {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Load events$/),
      '      [████████░░░░░░░░░░░░] 400,000 of 1,000,000 rows (40%), 0.4s',
    ]);
    await vi.advanceTimersByTimeAsync(200);
    await tracker.rows(load, 700_000);
    await vi.advanceTimersByTimeAsync(100);
    expect(terminal.lines[1]).toMatch(/^ {6}\[░*█{4}░*\] 700,000 rows, 0\.7s$/);
    await tracker.finished(load, { content: 'events: 1,000,000 rows loaded from db.' });
    await tracker.end('answered');
    expect(terminal.lines).toEqual(['  ✓ Load events (1,000,000 rows)    0.7s']);
  });

  it('shows no bar for a small extraction or a short cell, and a bar once a cell runs over 3 s', async () => {
    const terminal = new FakeTerminal();
    const progress = new ConsoleProgress({ output: terminal.stream });
    const tracker = new TurnProgressTracker(
      async (post) => progress.show(post.kind === 'progress' ? post.progress : never()),
      'local',
    );
    const load = call('l1', 'load_dataframe', { sql: 'SELECT * FROM customers', name: 'customers' });
    await tracker.started(load);
    await tracker.rows(load, 5_000, 5_634);
    await vi.advanceTimersByTimeAsync(500);
    await tracker.finished(load, { content: 'customers: 5634 rows loaded from db.' });
    const cell = call('p1', 'run_python', { code: 'model.fit(X, y)' });
    await tracker.started(cell);
    await vi.advanceTimersByTimeAsync(2_900);
    expect(terminal.lines.join('\n')).not.toContain('[');
    expect(terminal.lines[1]).toMatch(/^ {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Run Python {21}2\.9s$/);
    await vi.advanceTimersByTimeAsync(600);
    expect(terminal.lines.slice(1)).toEqual([
      expect.stringMatching(/^ {2}[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Run Python$/),
      expect.stringMatching(/^ {6}\[[░█]{20}\] running, 3\.5s$/),
    ]);
    await tracker.finished(cell, { content: 'ok' });
    await tracker.end('answered');
    expect(terminal.lines).toEqual([
      '  ✓ Load customers (5,634 rows)    0.5s',
      '  ✓ Run Python                     3.5s',
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('console progress in plain output', () => {
  it('prints the plan once and a line per step start and end, without escape codes', async () => {
    const output = new PlainOutput();
    await repairedTurn(adapterOn(output));
    expect(output.text).not.toContain(ESC);
    expect(output.text).not.toMatch(SPINNER);
    expect(output.text.split('\n')).toEqual([
      'Plan:',
      '  1. Count the rows of each table',
      '  2. Chart churn by contract',
      '▸ Step 1 of 2: Count the rows of each table',
      '… Count rows per table',
      '✓ Count rows per table: 1 row (0.3s)',
      'The tables differ in size.',
      '▸ Step 2 of 2: Chart churn by contract',
      '… Churn by contract',
      "✗ Churn by contract: NameError: name 'x' is not defined (0.4s)",
      '… Churn by contract',
      '↻ Churn by contract: repaired (1.2s)',
      'Month-to-month churns most.',
      '',
    ]);
  });

  it('reports a long extraction and a long cell now and then, not on every update', async () => {
    const output = new PlainOutput();
    const progress = new ConsoleProgress({ output: output.stream });
    const tracker = new TurnProgressTracker(
      async (post) => progress.show(post.kind === 'progress' ? post.progress : never()),
      'local',
    );
    const load = call('l1', 'load_dataframe', { sql: 'SELECT * FROM events', name: 'events' });
    await tracker.started(load);
    for (let received = 25_000; received <= 1_000_000; received += 25_000) {
      await vi.advanceTimersByTimeAsync(250);
      await tracker.rows(load, received, 1_000_000);
    }
    await tracker.finished(load, { content: 'events: 1,000,000 rows loaded from db.' });
    const cell = call('p1', 'run_python', { code: 'model.fit(X, y)' });
    await tracker.started(cell);
    await vi.advanceTimersByTimeAsync(40_000);
    await tracker.finished(cell, { content: 'ok' });
    await tracker.end('answered');
    expect(output.text.split('\n')).toEqual([
      '… Load events',
      '  … Load events: 475,000 of 1,000,000 rows (47%), 5.0s',
      '  … Load events: 975,000 of 1,000,000 rows (97%), 10s',
      '✓ Load events (1,000,000 rows) (10s)',
      '… Run Python',
      '  … Run Python: running, 5.0s',
      '  … Run Python: running, 15s',
      '  … Run Python: running, 35s',
      '✓ Run Python (40s)',
      '',
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

function never(): never {
  throw new Error('only progress posts are expected here');
}
