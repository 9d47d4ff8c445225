import { describe, expect, it } from 'vitest';
import { planSteps, TurnProgressTracker } from '../../src/agent/turn-progress.js';
import type { Post, TurnProgress } from '../../src/ports/chat.js';
import type { ToolCall } from '../../src/ports/llm.js';

const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  id,
  name,
  arguments: JSON.stringify(args),
});

function tracked(plan: Array<{ title: string; status: 'pending' | 'complete' }> = []) {
  const posts: TurnProgress[] = [];
  let now = 1000;
  const emit = async (post: Post) => {
    if (post.kind === 'progress') posts.push(post.progress);
  };
  const tracker = new TurnProgressTracker(emit, 'U1', plan, () => now);
  return { tracker, posts, tick: (ms: number) => (now += ms), last: () => posts.at(-1) as TurnProgress };
}

describe('planSteps', () => {
  it('reads numbered and bulleted steps, one line each, without bold markers', () => {
    expect(planSteps('Here is the plan:\n1. Count rows\n2) **Load** customers\n- Chart churn\nDone.')).toEqual([
      'Count rows',
      'Load customers',
      'Chart churn',
    ]);
  });
});

describe('TurnProgressTracker', () => {
  it('takes each call pending → in_progress → error or complete, and says "repaired" on the retry', async () => {
    const { tracker, posts, last } = tracked();
    const broken = call('c1', 'run_python', { code: '# Churn by contract\nrates = customers.groupby("X")' });
    const fixed = call('c2', 'run_python', { code: '# Churn by contract\nrates = customers.groupby("Contract")' });
    await tracker.requested([broken]);
    await tracker.started(broken);
    await tracker.finished(broken, {
      content: "error: KeyError: 'X'\nTraceback (most recent call last):\nKeyError: 'X'",
      failed: true,
    });
    await tracker.requested([fixed]);
    await tracker.started(fixed);
    await tracker.finished(fixed, { content: 'result (Series):\n...' });
    await tracker.end('answered');

    const statuses = (id: string) =>
      posts
        .map((post) => post.tasks.find((task) => task.id === id)?.status)
        .filter((status, index, all) => status && status !== all[index - 1]);
    expect(statuses('c1')).toEqual(['pending', 'in_progress', 'error']);
    expect(statuses('c2')).toEqual(['pending', 'in_progress', 'complete']);
    expect(last().tasks.map((task) => [task.title, task.output])).toEqual([
      ['Churn by contract', "KeyError: 'X'"],
      ['Churn by contract', 'repaired'],
    ]);
    expect(last().state).toBe('done');
    expect(new Set(posts.map((post) => post.turnId)).size).toBe(1);
  });

  it('names calls as an analyst would, with the rows a load brought', async () => {
    const { tracker, last } = tracked();
    const calls = [
      call('a', 'run_sql', {
        sql: "SELECT 'x', COUNT(*) FROM user_churn UNION ALL SELECT 'y', COUNT(*) FROM user_payments",
      }),
      call('b', 'load_dataframe', { sql: 'SELECT * FROM user_churn', name: 'customers' }),
      call('c', 'run_python', { code: 'customers.head()' }),
      call('d', 'describe_table', { table: 'user_churn' }),
      call('e', 'run_sql', {
        sql: 'SELECT COUNT(*) FROM user_payments p LEFT JOIN user_demographics d USING (customerID)',
      }),
    ];
    await tracker.requested(calls);
    for (const [index, each] of calls.entries()) {
      await tracker.started(each);
      const content =
        ['x | 7043\n(2 rows)', 'customers: 5634 rows loaded from telco_db. Columns: …', 'ok', 'user_churn: 7043 rows'][
          index
        ] ?? '';
      await tracker.finished(each, { content });
    }
    expect(last().tasks.map((task) => task.title)).toEqual([
      'Count rows per table',
      'Load customers (5,634 rows)',
      'Run Python',
      'Describe user_churn',
      'Count matches across user_payments, user_demographics',
    ]);
    expect(last().tasks[0]?.output).toBe('2 rows');
  });

  it('moves the plan to the step each call names, and completes it when the turn answers', async () => {
    const { tracker, posts, last } = tracked();
    await tracker.setPlan(['Count rows', 'Load data', 'Chart churn']);
    const first = call('a', 'run_sql', { sql: 'SELECT COUNT(*) FROM t', plan_step: 1 });
    const second = call('b', 'load_dataframe', { sql: 'SELECT * FROM t', name: 'df', plan_step: 2 });
    await tracker.started(first);
    expect(last().plan.map((step) => step.status)).toEqual(['in_progress', 'pending', 'pending']);
    await tracker.finished(first, { content: '(1 rows)' });
    await tracker.started(second);
    expect(last().plan.map((step) => step.status)).toEqual(['complete', 'in_progress', 'pending']);
    await tracker.finished(second, { content: 'df: 3 rows loaded from db.' });
    await tracker.end('answered');
    expect(last().plan.map((step) => step.status)).toEqual(['complete', 'complete', 'complete']);
    expect(posts.every((post, index) => index === posts.length - 1 || post.state === 'running')).toBe(true);
  });

  it('keeps a paused plan where it was and marks the step being worked on as failed when the turn fails', async () => {
    const paused = tracked();
    await paused.tracker.setPlan(['One', 'Two']);
    await paused.tracker.started(call('a', 'run_python', { code: 'x = 1', plan_step: 2 }));
    await paused.tracker.end('paused');
    expect(paused.tracker.plan.map((step) => step.status)).toEqual(['complete', 'in_progress']);

    const failed = tracked(
      paused.tracker.plan.map((step) => ({ ...step, status: step.status === 'complete' ? 'complete' : 'pending' })),
    );
    await failed.tracker.started(call('b', 'run_python', { code: 'x = 2', plan_step: 2 }));
    await failed.tracker.end('failed');
    expect(failed.last().state).toBe('failed');
    expect(failed.last().plan.map((step) => step.status)).toEqual(['complete', 'error']);
    expect(failed.last().tasks[0]?.status).toBe('error');
  });

  it('posts nothing for a turn without work, and extraction rows at most every 250 ms', async () => {
    const quiet = tracked();
    await quiet.tracker.end('answered');
    expect(quiet.posts).toEqual([]);

    const { tracker, posts, tick, last } = tracked();
    const load = call('l', 'load_dataframe', { sql: 'SELECT * FROM big', name: 'big' });
    await tracker.started(load);
    const before = posts.length;
    for (let rows = 8192; rows <= 81920; rows += 8192) {
      await tracker.rows(load, rows);
      tick(50);
    }
    expect(posts.length - before).toBeLessThanOrEqual(3);
    expect(posts.length - before).toBeGreaterThanOrEqual(1);
    await tracker.finished(load, { content: 'big: 81920 rows loaded from db.' });
    expect(last().tasks[0]?.rows?.received).toBe(81920);
  });
});
