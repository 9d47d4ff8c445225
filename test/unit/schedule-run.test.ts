/**
 * One scheduled run against a stand-in thread: the root message, the request from the owner, and
 * with `auto` the accept decisions and the report; a failure is said in the thread.
 */
import { describe, expect, it } from 'vitest';
import type { PendingQuestion } from '../../src/agent/conversation.js';
import { createLogger } from '../../src/base/logger.js';
import type { Inbound, Post } from '../../src/ports/chat.js';
import type { Schedule } from '../../src/schedules/schedule-file.js';
import { rootText, runSchedule, type ScheduleRunOptions } from '../../src/schedules/schedule-run.js';
import { ThreadWatch } from '../../src/schedules/thread-watch.js';
import { FakeClock } from '../support/fake-clock.js';

const SCHEDULE: Schedule = {
  name: 'weekly-churn',
  cron: '0 9 * * 1',
  timezone: 'UTC',
  request: 'What drives churn?',
  channel: 'slack:T1:C1',
  platform: 'slack',
  owner: 'U1OWNER',
  review: 'auto',
};
const THREAD = 'slack:T1:C1:1700000000.000100';
const review = (section: string): PendingQuestion => ({ kind: 'review', callId: 'c', section, version: 1 });

/** A thread whose agent drafts `sections` one after the other; `onText` may change what happens. */
function standIn(sections: string[], onText: (text: string, thread: StandIn) => void = () => {}) {
  const watch = new ThreadWatch();
  const thread = {
    roots: [] as string[],
    said: [] as Array<{ user: string; text: string }>,
    posts: [] as Post[],
    pending: undefined as PendingQuestion | undefined,
    post(post: Post) {
      thread.posts.push(post);
      watch.seen(THREAD, post);
    },
  };
  let drafted = 0;
  const options: ScheduleRunOptions = {
    openThread: async (channel, text) => {
      thread.roots.push(`${channel} ${text}`);
      return THREAD;
    },
    post: async (_threadKey, post) => thread.post(post),
    handle: async (inbound: Inbound) => {
      thread.said.push({ user: inbound.user.id, text: inbound.text });
      const section = sections[drafted];
      if (inbound.text === 'report') thread.post({ kind: 'text', markdown: 'Report exported' });
      else if (section) {
        drafted += 1;
        thread.pending = review(section);
      } else thread.pending = undefined;
      onText(inbound.text, thread);
    },
    pending: async () => thread.pending,
    watch: (threadKey, onPost) => watch.watch(threadKey, onPost),
    clock: new FakeClock(Date.parse('2025-01-06T09:00:00Z')),
    stopping: () => false,
    logger: createLogger({ level: 'silent' }),
  };
  return { thread, options };
}
type StandIn = ReturnType<typeof standIn>['thread'];

describe('a scheduled run', () => {
  it('opens its thread with the root message and, with auto, accepts every section and exports', async () => {
    const { thread, options } = standIn(['s1', 's2']);
    const noted: string[] = [];
    const result = await runSchedule(SCHEDULE, options, async (threadKey) => {
      noted.push(threadKey);
    });
    expect(thread.roots).toEqual(['slack:T1:C1 Scheduled: weekly-churn — What drives churn?']);
    expect(rootText(SCHEDULE)).toBe('Scheduled: weekly-churn — What drives churn?');
    expect(thread.said).toEqual([
      { user: 'U1OWNER', text: 'What drives churn?' },
      { user: 'U1OWNER', text: 'accept s1' },
      { user: 'U1OWNER', text: 'accept s2' },
      { user: 'U1OWNER', text: 'report' },
    ]);
    expect(result).toEqual({ threadKey: THREAD, outcome: 'finished' });
    expect(noted).toEqual([THREAD]);
  });

  it('with auto, exports nothing when the agent answered without drafting a section', async () => {
    const { thread, options } = standIn([]);
    const result = await runSchedule(SCHEDULE, options);
    expect(thread.said.map((message) => message.text)).toEqual(['What drives churn?']);
    expect(result.outcome).toBe('finished');
  });

  it('with review, leaves the drafted section waiting for the owner', async () => {
    const { thread, options } = standIn(['s1']);
    const result = await runSchedule({ ...SCHEDULE, review: 'review' }, options);
    expect(thread.said.map((message) => message.text)).toEqual(['What drives churn?']);
    expect(result.outcome).toBe('waiting');
  });

  it('stops on a failed turn: says so in the thread and exports nothing', async () => {
    const { thread, options } = standIn(['s1', 's2'], (text, stand) => {
      if (text === 'accept s1') stand.post({ kind: 'error', text: 'The model endpoint is unavailable.' });
    });
    const result = await runSchedule(SCHEDULE, options);
    expect(result.outcome).toBe('failed');
    expect(thread.said.map((message) => message.text)).toEqual(['What drives churn?', 'accept s1']);
    expect(thread.posts.at(-1)).toEqual({
      kind: 'text',
      markdown: "The scheduled run 'weekly-churn' stopped on the error above. No report was exported.",
    });
  });

  it('posts the failure in its thread when delivering the request throws', async () => {
    const { thread, options } = standIn([]);
    const result = await runSchedule(SCHEDULE, {
      ...options,
      handle: async () => {
        throw new Error('store gone');
      },
    });
    expect(result).toEqual({ threadKey: THREAD, outcome: 'failed' });
    expect(thread.posts).toEqual([
      {
        kind: 'error',
        text: "The scheduled run 'weekly-churn' failed: something went wrong on my side; the details are in the log",
      },
    ]);
  });

  it('hands over to people when the agent asks a question', async () => {
    const { thread, options } = standIn([], (text, stand) => {
      if (text === 'What drives churn?') stand.pending = { kind: 'tool', callId: 'q', text: 'Which period?' };
    });
    const result = await runSchedule(SCHEDULE, options);
    expect(result.outcome).toBe('waiting');
    expect(thread.said.map((message) => message.text)).toEqual(['What drives churn?']);
    expect(thread.posts.at(-1)).toMatchObject({ markdown: expect.stringContaining('the agent asked a question') });
  });

  it('fails without a thread when the channel cannot be posted to', async () => {
    const { thread, options } = standIn([]);
    const result = await runSchedule(SCHEDULE, {
      ...options,
      openThread: async () => {
        throw new Error('channel_not_found');
      },
    });
    expect(result).toEqual({ outcome: 'failed' });
    expect(thread.said).toEqual([]);
  });
});
