/**
 * Learning from accepted work, through the Slack stand-in and the real Bolt SDK: a section is
 * accepted, the SQL behind its numbers is proposed as a verified query, a reviewer's Accept writes it
 * into the knowledge store as a file, and the next request is offered it.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import { ACTION_IDS } from '../../src/ports/chat.js';
import type { SlackMessage } from '../support/slack/slack-state.js';
import { ALLOWED_CHANNEL, type SlackTallyFixture, startSlackTallyFixture } from '../support/slack-tally-fixture.js';

const ANN = 'U1ANN';
const SQL = `SELECT p.PaperlessBilling, COUNT(*) AS customers
FROM user_payments p GROUP BY p.PaperlessBilling ORDER BY customers DESC`;
const TITLE = 'Customers by paperless billing';

let fixture: SlackTallyFixture;
let knowledgeDir: string;
let threadTs = '';
const laterTools: string[][] = [];

const rows = (context: ScriptContext) =>
  [...(context.lastToolResult?.content ?? '').matchAll(/^(Yes|No)\s+(\d+)\s*$/gm)]
    .map((m) => `- ${m[1]}: ${m[2]}`)
    .join('\n');

beforeAll(async () => {
  knowledgeDir = await mkdtemp(join(tmpdir(), 'tally-learned-'));
  fixture = await startSlackTallyFixture(
    [
      callTool('triage', { verdict: 'answerable' }),
      callTool('run_sql', { sql: SQL }),
      (context) =>
        callTool('draft_section', { title: TITLE, markdown: `Customers by paperless billing:\n${rows(context)}` }),
      say('The section is in the report.'),
      callTool('triage', { verdict: 'answerable' }),
      (context) => {
        laterTools.push(context.tools.map((tool) => tool.function.name));
        return say('It is among the verified queries now.');
      },
    ],
    { TALLY_KNOWLEDGE_DIR: knowledgeDir },
  );
}, 120_000);
afterAll(async () => {
  await fixture?.close();
  await rm(knowledgeDir, { recursive: true, force: true });
});

const botMessages = () =>
  fixture.slack.messages(ALLOWED_CHANNEL, threadTs).filter((message) => message.user === fixture.slack.ids.botUserId);
const message = (starts: string) => botMessages().find((candidate: SlackMessage) => candidate.text.includes(starts));

describe('learning from accepted work, on Slack', () => {
  it('proposes the SQL behind an accepted section as a verified query, with buttons', async () => {
    threadTs = await fixture.slack.mention({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      text: 'how many customers use paperless billing?',
    });
    const review = await fixture.slack.waitFor(() => message(TITLE), 60_000);
    await fixture.slack.click({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      messageTs: review.ts,
      actionId: ACTION_IDS.accept,
      value: 's1@1',
    });
    const proposal = await fixture.slack.waitFor(() => message(`Save as a verified query: ${TITLE}`), 60_000);
    const blocks = JSON.stringify(proposal.blocks);
    expect(blocks).toContain('SELECT p.PaperlessBilling, COUNT(*) AS customers');
    expect(blocks).toContain(ACTION_IDS.accept);
    expect(blocks).toContain(ACTION_IDS.discard);
  });

  it("writes it into the knowledge store on a reviewer's Accept, and offers it to the next request", async () => {
    const proposal = message(`Save as a verified query: ${TITLE}`);
    await fixture.slack.click({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      messageTs: proposal?.ts ?? '',
      actionId: ACTION_IDS.accept,
      value: 'query@1',
    });
    await fixture.slack.waitFor(() => message('Saved the verified query'), 60_000);
    const [database] = await readdir(knowledgeDir);
    const file = join(knowledgeDir, database ?? '', 'verified-customers-by-paperless-billing.yaml');
    // The thread it was learned from; with no access policy what it read is not tracked, so no grants.
    expect(parse(await readFile(file, 'utf8'))).toEqual({
      queries: [{ name: TITLE, question: 'how many customers use paperless billing?', sql: SQL, verified_by: ANN }],
      thread: fixture.threadKey(threadTs),
    });
    await fixture.slack.reply({
      user: ANN,
      channel: ALLOWED_CHANNEL,
      threadTs,
      text: 'how many customers per paperless billing again?',
    });
    await fixture.slack.waitFor(() => message('It is among the verified queries now.'), 60_000);
    expect(laterTools[0]).toContain('run_verified_query');
  });
});
