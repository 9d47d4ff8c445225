/**
 * One scenario, every chat platform: the same steps drive Slack (Bolt against the Slack stand-in)
 * and Discord (discord.js against the Discord stand-in), with the real sandbox, MariaDB and the
 * scripted model. A session starts, a chart arrives in the thread, a section is reviewed with the
 * platform's controls (a stranger is refused, a form carries the revision feedback, a reaction
 * accepts), and the report is exported into the thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import type { ChatDriver } from '../support/chat-driver.js';
import { discordDriver } from '../support/discord-driver.js';
import { slackDriver } from '../support/slack-driver.js';

const OWNER = 'U1ANN';
const STRANGER = 'U2BOB';
const SQL = 'SELECT Contract, COUNT(*) AS customers FROM user_payments GROUP BY Contract ORDER BY Contract';
const CODE = `import matplotlib.pyplot as plt
counts = contracts.set_index("Contract").customers
counts.plot.bar(title="Customers by contract")
int(counts.sum())`;

const last = (context: ScriptContext) => context.lastToolResult?.content ?? '';

function script(feedback: string[]) {
  return [
    callTool('triage', { verdict: 'answerable' }),
    callTool('load_dataframe', { sql: SQL, name: 'contracts' }),
    callTool('run_python', { code: CODE }),
    (context: ScriptContext) =>
      callTool('draft_section', {
        title: 'Contracts',
        stage: 'data overview',
        markdown: `Customers: ${last(context).split('\n').at(-1)}`,
      }),
    (context: ScriptContext) => {
      feedback.push(last(context));
      return callTool('draft_section', {
        title: 'Contracts by type',
        revises: 's1',
        markdown: 'Month-to-month leads.',
      });
    },
    say('The report has one section.'),
  ];
}

describe.each([
  ['Slack', slackDriver],
  ['Discord', discordDriver],
])('the chat contract on %s', (_platform, createDriver) => {
  let driver: ChatDriver;
  const feedback: string[] = [];

  beforeAll(async () => {
    driver = createDriver();
    await driver.start(script(feedback));
  }, 120_000);
  afterAll(async () => {
    await driver?.close();
  });

  it('starts a session, posts the chart into the thread with its description, and asks for review', async () => {
    await driver.ask(OWNER, 'How many customers per contract? Write it up.');
    await driver.waitFor(() => driver.thread().texts.find((text) => text.includes('Review s1 v1')));
    const chart = driver.thread().files.find((file) => file.bytes.subarray(1, 4).toString() === 'PNG');
    expect(chart?.description).toBe("Chart 'Customers by contract'; x axis: Contract");
  });

  it("refuses a stranger's decision, telling only them", async () => {
    await driver.press(STRANGER, 'Review s1 v1', 'accept');
    const notice = await driver.waitFor(() => driver.noticesFor(STRANGER)[0]);
    expect(notice).toMatch(/only the person who started this thread/);
  });

  it('takes revision feedback through the form, and the model reads it', async () => {
    await driver.press(OWNER, 'Review s1 v1', 'revise');
    await driver.submitForm(OWNER, 'split it by contract type');
    await driver.waitFor(() => driver.thread().texts.find((text) => text.includes('Review s1 v2')));
    expect(feedback[0]).toContain('split it by contract type');
  });

  it('accepts by reaction and exports the report into the thread', async () => {
    await driver.react(OWNER, 'Review s1 v2', 'accept');
    await driver.waitFor(() => driver.thread().texts.find((text) => text.includes('The report has one section.')));
    await driver.reply(OWNER, 'report');
    const html = await driver.waitFor(() => driver.thread().files.find((file) => file.name === 'report.html'));
    const page = html.bytes.toString();
    expect(page).toContain('Contracts by type');
    expect(page).not.toContain('Customers: ');
    await driver.waitFor(() => driver.thread().files.find((file) => file.name === 'report.ipynb'));
  });
});
