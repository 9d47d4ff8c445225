/**
 * Approval mode end to end: with `approve=always` every cell is posted before it runs, Run runs it,
 * Edit runs the person's version (logged as a human edit), Skip runs nothing; with `approve=risky`
 * ordinary cells run at once and only risky ones wait. Real sandbox, MariaDB and openai SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/agent/log-event.js';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import { logKey } from '../../src/sessions/session-log.js';
import { postsOf, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

const answerable = callTool('triage', { verdict: 'answerable' });
const seen: string[] = [];
const remember = (context: ScriptContext) => {
  seen.push(context.lastToolResult?.content ?? '');
  return say('done');
};

let fixture: TallyFixture;

/** Runs a code block of the user's own in the thread and returns what it printed. */
async function inspect(expression: string): Promise<string> {
  await fixture.say(`\`\`\`python\n${expression}\n\`\`\``);
  const shown = postsOf(fixture.posts, 'code').at(-1);
  return shown?.output ?? shown?.error ?? '';
}

beforeAll(async () => {
  fixture = await startTallyFixture([
    answerable,
    callTool('run_python', { code: 'approved = 40 + 2\napproved' }),
    remember,
    answerable,
    callTool('run_python', { code: 'edited = 1' }),
    remember,
    answerable,
    callTool('run_python', { code: 'skipped = 5' }),
    remember,
    answerable,
    callTool('run_python', { code: 'harmless = 7\nharmless' }),
    callTool('run_python', { code: 'import subprocess\nsubprocess.run(["pip", "install", "left-pad"])' }),
    remember,
  ]);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

describe('approval mode', () => {
  it('always: posts the cell before it runs, and Run runs it', async () => {
    await fixture.say('set approve=always');
    await fixture.say('compute the answer');
    const held = postsOf(fixture.posts, 'approval').at(-1);
    expect(held).toMatchObject({ language: 'python', code: 'approved = 40 + 2\napproved' });
    expect(await inspect("'approved' in globals()")).toContain('False'); // not run yet
    await fixture.send({ action: { id: 'approval.run', value: held?.id ?? '' } });
    expect(seen.at(-1)).toContain('42');
    expect(await inspect('approved')).toContain('42');
  });

  it('always: Edit runs the edited code instead, logged as a human edit', async () => {
    await fixture.say('set a flag');
    expect(postsOf(fixture.posts, 'approval').at(-1)?.code).toBe('edited = 1');
    await fixture.say('edit\n```python\nedited = 2\n```');
    expect(seen.at(-1)).toContain('The user edited the code before it ran');
    expect(await inspect('edited')).toContain('2');
    const log = await fixture.tally.store.range<LogEntry>(logKey(fixture.thread));
    expect(log.find((entry) => entry.kind === 'edit')).toMatchObject({
      user: 'U1',
      original: 'edited = 1',
      edited: 'edited = 2',
    });
    expect(log.filter((entry) => entry.kind === 'cell' && entry.code === 'edited = 2')).toMatchObject([
      { author: 'human', ok: true },
    ]);
  });

  it('always: Skip runs nothing, and the model is told', async () => {
    await fixture.say('set another flag');
    await fixture.say('skip');
    expect(seen.at(-1)).toContain('The user skipped this cell; it did not run.');
    expect(await inspect("'skipped' in globals()")).toContain('False');
  });

  it('risky: ordinary cells run at once, an install waits for approval', async () => {
    await fixture.say('set approve=risky');
    const before = postsOf(fixture.posts, 'approval').length;
    await fixture.say('try the install');
    const held = postsOf(fixture.posts, 'approval');
    expect(held).toHaveLength(before + 1); // only the install
    expect(held.at(-1)?.reason).toMatch(/install/i);
    expect(await inspect('harmless')).toContain('7');
    // Not the owner: told so, only them, and nothing runs: no cell, no model request.
    const postsBefore = fixture.posts.length;
    const requestsBefore = fixture.server.chatRequests.length;
    const seenBefore = seen.length;
    const logBefore = await fixture.tally.store.range<LogEntry>(logKey(fixture.thread));
    await fixture.send({ text: 'no installs please', user: 'U2' });
    expect(fixture.posts.slice(postsBefore).map(({ post }) => post)).toEqual([
      {
        kind: 'notice',
        userId: 'U2',
        text: 'Sorry, only the person who started this thread or a configured reviewer can approve cells.',
      },
    ]);
    expect(fixture.server.chatRequests).toHaveLength(requestsBefore);
    expect(seen).toHaveLength(seenBefore);
    // The session log has the message and the refusal, and no request, cell or decision after them.
    const logged = (await fixture.tally.store.range<LogEntry>(logKey(fixture.thread))).slice(logBefore.length);
    expect(logged).toEqual([
      { kind: 'message', user: 'U2', text: 'no installs please', at: expect.any(Number) },
      { kind: 'post', post: 'notice', text: expect.stringMatching(/^Sorry, only/), at: expect.any(Number) },
    ]);
    // The install still waits for the owner's decision.
    await fixture.say('skip: no installs please');
    expect(seen.at(-1)).toContain('They said: no installs please');
  });

  it('reset gives the thread a fresh kernel: earlier variables are gone, the model is told', async () => {
    expect(await inspect('approved')).toContain('42');
    await fixture.say('reset');
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toMatch(/^Fresh kernel/);
    expect(await inspect("'approved' in globals()")).toContain('False');
  });
});
