/**
 * The knowledge store in a thread, end to end (MariaDB telco_db, real sandbox, the openai SDK
 * against the scripted model): the definition a request uses reaches the act prompt, the
 * verified query that answers it is offered as a tool and, when run, the thread says so and the
 * report's cells name it; a request the store does not cover gets none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import { shownForRequest } from '../support/shown-for-request.js';
import { postsOf, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

const QUERY = 'active customers by internet service';
const prompts: string[] = [];
const tools: string[][] = [];
const seen = (context: ScriptContext) => {
  prompts.push(shownForRequest(context));
  tools.push(context.tools.map((tool) => tool.function.name));
};
/** `Fiber optic  1234` rows of the verified query's result, as the model reads them. */
const counts = (context: ScriptContext) =>
  [...(context.lastToolResult?.content ?? '').matchAll(/^(DSL|Fiber optic|No)\s+(\d+)\s*$/gm)]
    .map((match) => `- ${match[1]}: ${match[2]}`)
    .join('\n');

let fixture: TallyFixture;

beforeAll(async () => {
  fixture = await startTallyFixture([
    // A clear request: no triage, the first act request runs the query.
    (context) => {
      seen(context);
      return callTool('run_verified_query', { name: QUERY });
    },
    (context) =>
      callTool('draft_section', {
        title: 'Active customers',
        markdown: `Active customers per internet service, from the verified query "${QUERY}":\n${counts(context)}`,
      }),
    say(`Done: the counts use the verified query "${QUERY}".`),
    (context) => {
      seen(context);
      return say('Nothing to do here.');
    },
  ]);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

describe('what tally knows, in a thread', () => {
  it('gives the work the definition the request uses, and offers the verified query', async () => {
    await fixture.say('How many active customers do we have per internet service? Write it up.');
    for (const prompt of prompts.slice(0, 1)) {
      expect(prompt).toContain('what the organisation knows (');
      expect(prompt).toContain(
        "has not churned (user_churn.Churn = 'No') and has been a customer for at least one whole month",
      );
      expect(prompt).toContain(`- query: "${QUERY}" (verified by telco analytics team)`);
    }
    expect(tools[0]).toContain('run_verified_query');
  });

  it('says in the thread that the verified query was used, and the section rests on it', async () => {
    const texts = postsOf(fixture.posts, 'text').map((post) => post.markdown);
    expect(texts).toContain(`Using the verified query *${QUERY}* (verified by telco analytics team).`);
    const review = postsOf(fixture.posts, 'review').at(-1);
    expect(review?.markdown).toMatch(/- Fiber optic: \d+/);
    expect(review?.markdown).not.toContain('⚠');
    expect(review?.cells[0]?.code).toContain("WHERE c.Churn = 'No' AND s.tenure >= 1");
  });

  it("names the verified query in the report's cells", async () => {
    await fixture.say('accept');
    await fixture.say('report');
    const html =
      postsOf(fixture.posts, 'file')
        .find((file) => file.name === 'report.html')
        ?.content.toString() ?? '';
    expect(html).toContain(`(verified query &#34;${QUERY}&#34;)`);
  });

  it('adds nothing to the prompts of a request the store does not cover, and keeps the same tools', async () => {
    await fixture.say('Plot the weather in Lisbon last week');
    expect(prompts).toHaveLength(2);
    for (const prompt of prompts.slice(1)) expect(prompt).not.toContain('what the organisation knows');
    // The tool list is the same on every request of the thread, so the provider can cache the prefix.
    expect(tools.at(-1)).toEqual(tools[0]);
  });
});
