/**
 * A busy morning: many new threads at once on this small machine. Every thread runs a python block,
 * a sql block and a python block that needs the first one's variable, with no model involved, like
 * the operator's trial in the issue. Nothing may be lost, duplicated or answered in another thread.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DockerSandbox } from '../../sandbox/docker-sandbox.js';
import type { Post } from '../../src/ports/chat.js';
import { type PostedMessage, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

let fixture: TallyFixture | undefined;

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const QUEUED =
  /^Starting your session's kernel: many threads started at once, (you are next|(\d+) threads? (is|are) ahead of you)\.$/;

/** Thread i's DataFrame has 10 + i rows 0..9+i, so its sum names the thread. */
const sumOf = (index: number) => ((9 + index) * (10 + index)) / 2;

async function oneThread(tally: TallyFixture, threadKey: string, index: number): Promise<void> {
  await tally.say(
    `\`\`\`python\nimport pandas as pd\ndf = pd.DataFrame({'x': range(${10 + index})})\nlen(df)\n\`\`\``,
    threadKey,
  );
  await tally.say('```sql\nSELECT Churn, COUNT(*) AS n FROM user_churn GROUP BY Churn ORDER BY Churn\n```', threadKey);
  await tally.say("```python\nprint('sum', int(df['x'].sum()))\n```", threadKey);
}

function postsOfThread(posts: PostedMessage[], threadKey: string): Post[] {
  return posts.filter((posted) => posted.threadKey === threadKey).map((posted) => posted.post);
}

/** The texts of a thread's code outputs, in order. */
function outputs(posts: Post[]): string[] {
  return posts.flatMap((post) => (post.kind === 'code' && post.output ? [post.output] : []));
}

function checkThread(posts: Post[], index: number, threads: number) {
  const errors = posts.filter((post) => post.kind === 'error' || (post.kind === 'code' && post.error));
  expect(errors, `thread ${index}`).toEqual([]);
  const printed = outputs(posts).join('\n');
  expect(printed, `thread ${index}`).toContain(`sum ${sumOf(index)}`);
  for (let other = 0; other < threads; other += 1) {
    if (other !== index) expect(`${printed}\n`).not.toContain(`\nsum ${sumOf(other)}\n`);
  }
  expect(posts.filter((post) => post.kind === 'table')).toHaveLength(1); // the sql block, once
  expect(outputs(posts).filter((text) => text.includes('\nsum '))).toHaveLength(1); // answered once
}

describe('a burst of new threads', () => {
  it('answers 50 threads started at once, each told its place in line once while it waits', async () => {
    fixture = await startTallyFixture([]);
    const tally = fixture;
    const threads = 50;
    const keys = Array.from({ length: threads }, (_, index) => `${tally.thread}:${index}`);
    await Promise.all(keys.map((threadKey, index) => oneThread(tally, threadKey, index)));
    let told = 0;
    for (const [index, threadKey] of keys.entries()) {
      const posts = postsOfThread(tally.posts, threadKey);
      checkThread(posts, index, threads);
      // Told at most once in the whole thread, and only before its first answer.
      const firstAnswer = posts.findIndex((post) => post.kind === 'code');
      const noticesAt = posts.flatMap((post, at) => (post.kind === 'status' && QUEUED.test(post.text) ? [at] : []));
      expect(noticesAt.length, `thread ${index}`).toBeLessThanOrEqual(1);
      expect(
        noticesAt.filter((at) => at > firstAnswer),
        `thread ${index}: notices after its answer`,
      ).toEqual([]);
      told += noticesAt.length;
    }
    // Only the first few starts (one per core) begin at once: nearly everyone else waited and was told.
    expect(told).toBeGreaterThanOrEqual(threads - 4);
    const places = tally.posts.flatMap(({ post }) =>
      post.kind === 'status' ? [QUEUED.exec(post.text)?.[2] ?? (QUEUED.test(post.text) ? '0' : undefined)] : [],
    );
    expect(Math.max(...places.filter((place) => place !== undefined).map(Number))).toBeGreaterThan(10);
  }, 900_000);

  it('at TALLY_MAX_KERNELS=5, answers 12 threads, parking idle kernels and restoring them with their variables', async () => {
    fixture = await startTallyFixture([], { TALLY_MAX_KERNELS: '5' });
    const tally = fixture;
    const sandbox = tally.tally.sandbox as DockerSandbox;
    let most = 0;
    const sampler = setInterval(() => {
      const stats = sandbox.stats();
      most = Math.max(most, stats.live + stats.pooled + stats.starting);
    }, 20);
    try {
      const threads = 12;
      const keys = Array.from({ length: threads }, (_, index) => `${tally.thread}:${index}`);
      await Promise.all(keys.map((threadKey, index) => oneThread(tally, threadKey, index)));
      // Every thread again, all idle before: most kernels must be parked and come back from their journal.
      await Promise.all(
        keys.map((threadKey) => tally.say("```python\nprint('again', int(df['x'].sum()))\n```", threadKey)),
      );
      let restored = 0;
      for (const [index, threadKey] of keys.entries()) {
        const posts = postsOfThread(tally.posts, threadKey);
        checkThread(posts, index, threads);
        expect(outputs(posts).join('\n')).toContain(`again ${sumOf(index)}`);
        if (posts.some((post) => post.kind === 'status' && post.text.startsWith("Restored this session's kernel"))) {
          restored += 1;
        }
      }
      expect(sandbox.stats().parked).toBeGreaterThanOrEqual(threads - 5);
      expect(restored).toBeGreaterThanOrEqual(threads - 5);
      expect(most).toBeLessThanOrEqual(5);
    } finally {
      clearInterval(sampler);
    }
  }, 900_000);
});
