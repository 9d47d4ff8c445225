/**
 * Shutdown whose grace runs out while a turn waits on the model: the turn is interrupted and its
 * message stays unfinished in the inbox; the next tally on the same store goes on with it from the
 * last save, tells the thread, and answers once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, say } from '../../src/demo/scripted-model-server.js';
import { RESTARTED_TEXT } from '../../src/sessions/message-turn.js';
import { postsOf, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

let fixture: TallyFixture;
let reachedModel: () => void = () => {};
const modelReached = new Promise<void>((resolve) => {
  reachedModel = resolve;
});
let releaseModel: () => void = () => {};

beforeAll(async () => {
  fixture = await startTallyFixture([
    callTool('triage', { verdict: 'answerable' }),
    callTool('run_python', { code: 'x = 41' }),
    async () => {
      reachedModel();
      await new Promise<void>((resolve) => {
        releaseModel = resolve;
      });
      return say('too late');
    },
  ]);
}, 120_000);

afterAll(async () => {
  releaseModel();
  await fixture?.close();
}, 60_000);

describe('shutdown', () => {
  it('interrupts a turn still running at the deadline, and the next process finishes it', async () => {
    const handled = fixture.say('what is x plus one?');
    await modelReached;
    await fixture.tally.router.shutdown(200);
    await handled;
    expect(fixture.transcript()).toContain('tally is restarting');
    expect(fixture.transcript()).not.toContain('too late');
    await fixture.stop();
    releaseModel();

    await fixture.restart([
      callTool('run_python', { code: 'print(x + 1)' }),
      (context) => say(`The answer is ${context.lastToolResult?.content.match(/\d+/)?.[0]}.`),
    ]);
    await fixture.tally.router.recover();
    await fixture.tally.router.idle();
    const texts = postsOf(fixture.posts, 'text').map((post) => post.markdown);
    expect(texts.filter((text) => text === RESTARTED_TEXT)).toHaveLength(1);
    expect(texts.filter((text) => text.startsWith('The answer is'))).toEqual(['The answer is 42.']);
    // It went on from the saved turn: no second triage, the first cell's call in the model's history.
    expect(fixture.server.requests.filter((request) => request.path.endsWith('/chat/completions'))).toHaveLength(2);
    expect(JSON.stringify(fixture.server.requests[0]?.body)).toContain('x = 41');
  }, 120_000);
});
