/** Session features end to end: stop, queueing, code the user runs, settings and review, summaries. */
import { afterEach, describe, expect, it } from 'vitest';
import type { DockerSandbox } from '../../sandbox/docker-sandbox.js';
import { callTool, say } from '../../src/demo/scripted-model-server.js';
import { postsOf, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

const answerable = callTool('triage', { verdict: 'answerable' });

let fixture: TallyFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

async function until(check: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 400 && !check(); attempt++) await new Promise((resolve) => setTimeout(resolve, 25));
  expect(check()).toBe(true);
}

describe('a session', () => {
  it('stops a running turn on "stop", keeps the session, and takes the next message', async () => {
    fixture = await startTallyFixture([
      answerable,
      callTool('run_python', { code: 'kept = 7\nimport time\ntime.sleep(60)' }),
      answerable,
      callTool('run_python', { code: 'kept * 6' }),
      (context) => say(`Result: ${context.lastToolResult?.content.split('\n').at(-1)}`),
    ]);
    const running = fixture.say('Run the long thing');
    const sandbox = fixture.tally.sandbox as DockerSandbox;
    await until(() => sandbox.sessions.get(fixture?.thread ?? '')?.isBusy === true); // the cell is in the kernel
    await new Promise((resolve) => setTimeout(resolve, 300));
    await fixture.say('stop');
    await running;
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe('Stopped. The session and its variables are kept.');
    await fixture.say('Continue');
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe('Result: 42');
  });

  it('queues messages that arrive during a turn and answers them in order', async () => {
    fixture = await startTallyFixture([answerable, say('first'), answerable, say('second'), answerable, say('third')]);
    await Promise.all([fixture.say('one'), fixture.say('two'), fixture.say('three')]);
    expect(postsOf(fixture.posts, 'text').map((post) => post.markdown)).toEqual(['first', 'second', 'third']);
    expect(JSON.stringify(fixture.server.chatRequests[3]?.body?.messages)).toContain('two');
  });

  it('runs the python and sql blocks a user writes, without the model, and keeps them for a restart', async () => {
    fixture = await startTallyFixture([]);
    await fixture.say('```python\nanswer = 21 * 2\nanswer\n```');
    await fixture.say('```sql\nSELECT Churn, COUNT(*) AS n FROM user_churn GROUP BY Churn ORDER BY Churn\n```');
    const [code] = postsOf(fixture.posts, 'code');
    expect(code).toMatchObject({ language: 'python', code: 'answer = 21 * 2\nanswer' });
    expect(code?.output).toContain('42');
    const [table] = postsOf(fixture.posts, 'table');
    expect(table?.columns).toEqual(['Churn', 'n']);
    expect(table?.rows.map((row) => row[0])).toEqual(['No', 'Yes']);
    await fixture.say('```python\nanswer +\n```');
    expect(postsOf(fixture.posts, 'code').at(-1)?.error).toContain('SyntaxError');
    expect(fixture.server.chatRequests).toHaveLength(0);
    await fixture.stop();
    await fixture.restart([]);
    await fixture.say('```python\nanswer\n```');
    expect(postsOf(fixture.posts, 'code').at(-1)?.output).toContain('42');
  });

  it('changes settings by command, keeps them, and reviews code before it runs when asked', async () => {
    fixture = await startTallyFixture([
      answerable,
      callTool('run_python', { code: 'print(undefined_name)' }),
      callTool('review', { approve: false, problems: 'undefined_name is not defined', fixed_code: 'print("fixed")' }),
      (context) => say(context.lastToolResult?.content.includes('fixed') ? 'reviewed and ran' : 'not reviewed'),
    ]);
    await fixture.say('set temperature=0.3 review=on decompose=off');
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe(
      'Settings: temperature=0.3 decompose=off review=on cot=off model=default approve=default grounding=on',
    );
    await fixture.say('set speed=fast');
    expect(postsOf(fixture.posts, 'error').at(-1)?.text).toContain("Unknown setting 'speed'");
    await fixture.say('Print something');
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe('reviewed and ran');
    const temperatures = fixture.server.chatRequests.map((request) => request.body?.temperature);
    expect(temperatures).toEqual([0.3, 0.3, 0.3, 0.3]);
    expect(JSON.stringify(fixture.server.chatRequests[2]?.body?.messages)).toContain('Review this code before it runs');
  });

  it('summarises older turns once the history outgrows the token budget', async () => {
    fixture = await startTallyFixture(
      [
        answerable,
        callTool('run_sql', { sql: 'SELECT customerID, Contract, PaymentMethod FROM user_payments', max_rows: 200 }),
        say('Listed the payments.'),
        answerable,
        say('Listed them again, shorter.'),
        // Trimmed before the turn's first request, so triage and the work repeat the same shorter prefix.
        (context) => say(context.messages[0]?.role === 'system' ? 'Earlier: the user listed payments.' : 'no'),
        answerable,
        say('Third answer.'),
      ],
      { TALLY_CONTEXT_TOKENS: '1000' },
    );
    await fixture.say('List the payments');
    await fixture.say('Again');
    await fixture.say('And now something else');
    const requests = fixture.server.chatRequests.map((request) => JSON.stringify(request.body?.messages));
    const summary = requests.findIndex((text) => text.includes('Summarise the earlier part'));
    expect(summary).toBe(5);
    for (const request of [requests[6], requests[7]]) {
      expect(request).toContain('(Summary of the earlier conversation: Earlier: the user listed payments.)');
      expect(request).not.toContain('Listed the payments.');
    }
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe('Third answer.');
  });
});
