/**
 * The access policy end to end on Discord: who may read what comes from the sender's Discord id and the role ids
 * their events carry. An analyst role reads every telco table with customer ids pseudonymised; one person reads
 * only user_churn; everyone else reads nothing. What each person sees in their threads, and what the model was
 * sent, are read back from the Discord stand-in and the scripted model server.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import { type DiscordTallyFixture, startDiscordTallyFixture } from '../support/discord-tally-fixture.js';
import { adminConnection } from '../support/mariadb.js';

const ANN = '1300000000000000101';
const BOB = '1300000000000000102';
const CAROL = '1300000000000000103';
/** Not a reviewer role: the policy alone gives it its meaning. */
const ANALYST_ROLE = '1300000000000000910';

const JOIN_SQL =
  'SELECT p.customerID, p.Contract, c.Churn FROM user_payments p JOIN user_churn c ON c.customerID = p.customerID';
const RAW_CUSTOMER_ID = /\d{4}-[A-Z]{5}/;
const PSEUDONYM = /\b[0-9a-f]{16}\b/g;

let fixture: DiscordTallyFixture;
let database = '';
/** What the model was sent back after each tool call it made, by what it did. */
const seen = { loaded: '', printed: '', refused: '' };

const last = (context: ScriptContext) => context.lastToolResult?.content ?? '';
const bot = () => fixture.discord.ids.botUserId;
const botTexts = (threadId: string) =>
  fixture.discord
    .messages(threadId)
    .filter((message) => message.author.id === bot())
    .map((message) => message.content);
const saidIn = (threadId: string, marker: string, timeoutMs = 60_000) =>
  fixture.discord.waitFor(() => botTexts(threadId).find((text) => text.includes(marker)), timeoutMs);
/** The system prompt of a chat request: for triage, the schema the sender may read. */
const systemText = (index: number) => {
  const messages = fixture.server.chatRequests[index]?.body?.messages as Array<{ role: string; content: string }>;
  return messages.find((message) => message.role === 'system')?.content ?? '';
};

/** `/analyze question` as `user`; the id of the thread it opens. */
async function analyze(user: string, question: string): Promise<string> {
  const before = fixture.discord.threads().length;
  await fixture.discord.slashCommand({
    user,
    channel: fixture.discord.channelId,
    name: 'analyze',
    options: { question },
  });
  return (await fixture.discord.waitFor(() => fixture.discord.threads()[before], 30_000)).id;
}

beforeAll(async () => {
  fixture = await startDiscordTallyFixture(
    [
      // Ann, an analyst: which contracts churn most?
      callTool('triage', { verdict: 'answerable' }),
      callTool('load_dataframe', { sql: JOIN_SQL, name: 'churn' }),
      (context) => {
        seen.loaded = last(context);
        return callTool('run_python', { code: "print(churn['customerID'].head(3).tolist())" });
      },
      (context) => {
        seen.printed = last(context);
        return say('Month-to-month contracts churn most.');
      },
      // Bob, in his own thread, told to read the payments.
      callTool('triage', { verdict: 'answerable' }),
      callTool('run_sql', { sql: 'SELECT * FROM user_payments' }),
      (context) => {
        seen.refused = last(context);
        return say('I may not read user_payments; I can read user_churn.');
      },
      // Carol, once she has the analyst role.
      callTool('triage', { verdict: 'answerable' }),
      say('There are four telco tables of customers for you to read.'),
    ],
    async (environment) => {
      database = environment.database.name;
      const policy = join(environment.home, 'policy.yaml');
      await writeFile(
        policy,
        toYaml({
          principals: { analysts: { discord_roles: [ANALYST_ROLE] }, 'churn-only': { discord_users: [BOB] } },
          databases: { [database]: { sensitive: { '*.customerID': 'hash' } } },
          grants: [
            { to: ['analysts'], database, tables: ['*'] },
            { to: ['churn-only'], database, tables: ['user_churn'] },
          ],
        }),
      );
      return { TALLY_POLICY: policy, TALLY_PSEUDONYM_KEY: 'a secret of the e2e test, 32 chars' };
    },
  );
  await fixture.discord.addRole({ id: ANALYST_ROLE, name: 'data-analysts' });
  fixture.discord.setRoles(ANN, [ANALYST_ROLE]);
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

describe('the access policy on Discord', () => {
  let annThread = '';

  it("answers an analyst from every table, with customer ids pseudonymised and the join's rows all there", async () => {
    const first = fixture.server.chatRequests.length;
    annThread = await analyze(ANN, 'which contracts churn most?');
    await saidIn(annThread, 'Month-to-month contracts churn most.', 60_000);

    const schema = systemText(first);
    expect(schema).toContain('user_payments');
    expect(schema).toContain('user_churn');
    const admin = await adminConnection(database);
    try {
      const [rows] = await admin.query(`SELECT COUNT(*) AS n FROM (${JOIN_SQL}) joined`);
      const { n } = (rows as Array<{ n: number }>)[0] ?? { n: 0 };
      expect(Number(n)).toBeGreaterThan(0);
      expect(seen.loaded).toContain(`churn: ${Number(n)} rows loaded from ${database}`);
    } finally {
      await admin.end();
    }
    expect(seen.printed.match(PSEUDONYM)).toHaveLength(3);
    expect(seen.printed).not.toMatch(RAW_CUSTOMER_ID);
    expect(botTexts(annThread).join('\n')).not.toMatch(RAW_CUSTOMER_ID);
  }, 90_000);

  it("refuses to work in the analyst's thread for someone who may not read what it read", async () => {
    const before = fixture.server.chatRequests.length;
    await fixture.discord.message({ user: BOB, channel: annThread, content: 'and by payment method?' });
    const refusal = await saidIn(annThread, 'Start your own thread and ask there.');
    expect(refusal).toContain(`this thread has read data you may not read (${database}.user_payments)`);
    expect(fixture.server.chatRequests).toHaveLength(before);
  });

  it('refuses an ungranted table in his own thread, naming the tables he may read', async () => {
    const first = fixture.server.chatRequests.length;
    const thread = await analyze(BOB, 'Run SELECT * FROM user_payments and show me the rows');
    await saidIn(thread, 'I can read user_churn.');
    const schema = systemText(first);
    expect(schema).toContain('user_churn');
    expect(schema).not.toContain('user_payments');
    expect(seen.refused).toContain(
      'table user_payments is not granted to you by the access policy. Tables you may read here: user_churn.',
    );
  });

  it('tells someone granted nothing so, without asking the model', async () => {
    const before = fixture.server.chatRequests.length;
    const thread = await analyze(CAROL, 'how many customers churned?');
    await saidIn(thread, 'Not granted by the access policy: it grants you no data here');
    expect(fixture.server.chatRequests).toHaveLength(before);
  });

  it('reads roles from each event: given the analyst role, she is answered', async () => {
    fixture.discord.setRoles(CAROL, [ANALYST_ROLE]);
    const first = fixture.server.chatRequests.length;
    const before = fixture.discord.threads().length;
    await fixture.discord.message({
      user: CAROL,
      channel: fixture.discord.channelId,
      content: 'what can I read?',
      mentionsBot: true,
    });
    const thread = (await fixture.discord.waitFor(() => fixture.discord.threads()[before], 30_000)).id;
    await saidIn(thread, 'four telco tables');
    expect(systemText(first)).toContain('user_payments');
    expect(botTexts(thread).join('\n')).not.toContain('grants you no data');
    expect(fixture.server.remainingSteps).toBe(0);
  });
});
