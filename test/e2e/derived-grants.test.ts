/**
 * What is derived keeps its sources' grants, end to end (issue 33): a finance user's thread on Slack loads the
 * salaries, prints them in a Python cell, accepts a section quoting them and saves it as a playbook (which quotes
 * the rows and never names the table), then accepts a SQL section and saves its query as a verified query. An
 * analyst with no finance grant then asks about top earners on Slack and in the console (a second tally on the same
 * playbook and knowledge folders): neither is given any of it, and no request the model received holds a finance
 * value. The finance user, in the finance channel, is offered the playbook; publishing and offering are audited.
 *
 * Real parts: the Bolt app against the Slack stand-in, the console adapter, the sandbox, MariaDB (telco_db and a
 * `finance` database), and the openai SDK against the scripted model, which records every request.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { rankPlaybooks } from '../../src/agent/playbooks.js';
import { loadSavedPlaybooks } from '../../src/agent/saved-playbooks.js';
import { loadConfig } from '../../src/base/config.js';
import { createLogger } from '../../src/base/logger.js';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import type { AuditRecord } from '../../src/ports/audit.js';
import { createTally } from '../../src/wiring/create-tally.js';
import { containersOf } from '../support/docker.js';
import { PlainOutput } from '../support/fake-terminal.js';
import type { TestDatabase } from '../support/mariadb.js';
import { createFinanceDatabase, SALARIES } from '../support/policy-databases.js';
import { ALLOWED_CHANNEL, type SlackTallyFixture, startSlackTallyFixture } from '../support/slack-tally-fixture.js';
import type { TestEnvironment } from '../support/test-environment.js';

const ANN = 'U1ANN'; // an analyst (user group S1ANALYSTS): telco only
const FINN = 'U4FINN'; // finance, shown only in #finance
const ANALYSTS = 'S1ANALYSTS';
const FINANCE_CHANNEL = 'C3FINANCE';
const CONSOLE_ANALYST = 'ann-at-the-console';
const QUESTION = 'Who are the top earners?';
const PRINT = 'print(pay.sort_values("salary", ascending=False).to_string(index=False))';
const TOP_SQL = 'SELECT name, salary FROM salaries ORDER BY salary DESC LIMIT 2';
/** Every finance value that must not reach the analyst or the model on her behalf. */
const FINANCE_VALUES = SALARIES.flatMap(([name, title, salary]) => [name, title, String(salary)]);
const TOP = `${SALARIES[0][0]} (${SALARIES[0][1]}) earns ${SALARIES[0][2]} and ${SALARIES[1][0]} (${SALARIES[1][1]}) earns ${SALARIES[1][2]}.`;

const prompts: Record<string, string> = {};
const tools: Record<string, string[]> = {};
/** Records the request the model received at a step, by name. */
const seen = (name: string, then: ReturnType<typeof callTool>) => (context: ScriptContext) => {
  prompts[name] = JSON.stringify(context.messages);
  tools[name] = context.tools.map((tool) => tool.function.name);
  return then;
};

let fixture: SlackTallyFixture;
let finance: TestDatabase;
let environment: TestEnvironment | undefined;
let shared: string;
let policyPath = '';
let finnThread = '';

const botTexts = (channel: string, threadTs: string) =>
  fixture.slack
    .messages(channel, threadTs)
    .filter((message) => message.user === fixture.slack.ids.botUserId)
    .map((message) => message.text);
const waitForText = (channel: string, threadTs: string, part: string) =>
  fixture.slack.waitFor(() => botTexts(channel, threadTs).find((text) => text.includes(part)), 90_000);
const finnSays = async (text: string, until: string) => {
  await fixture.slack.reply({ user: FINN, channel: FINANCE_CHANNEL, threadTs: finnThread, text });
  return waitForText(FINANCE_CHANNEL, finnThread, until);
};
const modelRequests = (from = 0) =>
  JSON.stringify(fixture.server.chatRequests.slice(from).map((request) => request.body));

async function auditRecords(): Promise<AuditRecord[]> {
  const stored = await fixture.service.tally.auditLog.read({ limit: 10_000 });
  return stored.map((record) => ({ id: record.id, ...(JSON.parse(record.text) as Omit<AuditRecord, 'id'>) }));
}

function policyText(telco: string): string {
  return `
principals:
  analysts: { slack_usergroups: [${ANALYSTS}], console_users: [${CONSOLE_ANALYST}] }
  finance-team: { slack_users: [${FINN}] }
  finance-room: { slack_channels: [${FINANCE_CHANNEL}] }
databases:
  finance:
    show_in: [finance-room]
grants:
  - { to: [analysts, finance-team], database: ${telco}, tables: ["*"] }
  - { to: [finance-team], database: finance, tables: ["*"] }
`;
}

beforeAll(async () => {
  finance = await createFinanceDatabase();
  shared = await mkdtemp(join(tmpdir(), 'tally-derived-'));
  fixture = await startSlackTallyFixture(
    [
      // Finn: the payroll loaded in a section he discards, so the accepted one holds only the Python cell.
      callTool('triage', { verdict: 'answerable' }),
      callTool('load_dataframe', { sql: 'SELECT name, title, salary FROM salaries', name: 'pay', database: 'finance' }),
      callTool('draft_section', { title: 'Payroll loaded', markdown: 'The payroll is loaded as `pay`.' }),
      say('The payroll is loaded.'),
      // The top earners, printed in Python and quoted in the section he accepts.
      callTool('triage', { verdict: 'answerable' }),
      callTool('run_python', { code: PRINT }),
      callTool('draft_section', { title: 'Top earners', markdown: TOP }),
      say('The top earners are in the report.'),
      // The same asked of SQL: the query behind the numbers becomes a verified query. Triaged multi-step, he is
      // offered his playbook.
      callTool('triage', { verdict: 'answerable', multi_step: true }),
      say('1. Query the two top salaries.\n2. Draft the section.'),
      seen('finnPlaybook', callTool('run_sql', { sql: TOP_SQL, database: 'finance' })),
      callTool('draft_section', { title: 'Top two salaries', markdown: TOP }),
      say('The SQL agrees.'),
      // Ann, on Slack: triaged multi-step too, so a playbook would be given if one were hers.
      seen('annTriage', callTool('triage', { verdict: 'answerable', multi_step: true })),
      say('1. Look for salary data.'),
      seen('annAct', say('I have no salary data to answer that from.')),
      // Ann, at the console.
      seen('consoleTriage', callTool('triage', { verdict: 'answerable', multi_step: true })),
      say('1. Look for salary data.'),
      seen('consoleAct', say('I have no salary data to answer that from.')),
    ],
    {
      DATABASE_URL_FINANCE: finance.url,
      SLACK_ALLOWED_CHANNELS: `${ALLOWED_CHANNEL},${FINANCE_CHANNEL}`,
      TALLY_PLAYBOOK_DIR: join(shared, 'playbooks'),
      TALLY_KNOWLEDGE_DIR: join(shared, 'knowledge'),
    },
    {
      channels: [{ id: FINANCE_CHANNEL, name: 'finance' }],
      async prepare(prepared) {
        environment = prepared;
        policyPath = join(prepared.home, 'policy.yaml');
        await writeFile(policyPath, policyText(prepared.database.name));
        return { TALLY_POLICY: policyPath };
      },
    },
  );
  fixture.slack.setUsergroup(ANALYSTS, [ANN]);
}, 180_000);

afterAll(async () => {
  await fixture?.close();
  await finance?.drop();
  await rm(shared, { recursive: true, force: true });
});

describe('a playbook and a verified query derived from a finance thread', () => {
  it('are saved from the thread with what it read, though the playbook names no table', async () => {
    finnThread = await fixture.slack.mention({ user: FINN, channel: FINANCE_CHANNEL, text: QUESTION });
    await waitForText(FINANCE_CHANNEL, finnThread, 'Payroll loaded');
    await finnSays('discard s1', 'The payroll is loaded.');
    await finnSays(`${QUESTION} Print them.`, 'Top earners');
    await finnSays('accept s2', 'The top earners are in the report.');
    await finnSays('save as playbook', 'Playbook draft');
    await finnSays('accept playbook', 'Saved playbook');

    const [file] = await readdir(join(shared, 'playbooks'));
    const text = await readFile(join(shared, 'playbooks', file ?? ''), 'utf8');
    // The rows are quoted and the body (what the old filter read) names no table: table names let it through.
    const body = text.slice(text.indexOf('\n---\n') + 5);
    expect(body).toContain('Frank Hale (CFO) earns 412000');
    expect(body).not.toMatch(/\bsalaries\b/);
    expect(text).toContain(`thread: ${fixture.threadKey(finnThread, FINANCE_CHANNEL)}`);
    expect(text).toContain('grants: {"finance/salaries":{"name":"raw","title":"raw","salary":"raw"}}');
  });

  it('offers the playbook to the finance user in the finance channel, and saves the verified query', async () => {
    await finnSays(`${QUESTION} Check it with SQL.`, 'Top two salaries');
    // Said when the work starts, in the turn's streamed message.
    await waitForText(
      FINANCE_CHANNEL,
      finnThread,
      'Following playbook: Who are the top earners (who-are-the-top-earners.md)',
    );
    expect(prompts.finnPlaybook).toContain('Frank Hale (CFO) earns 412000');
    await finnSays('accept s3', 'Save as a verified query: Top two salaries');
    await finnSays('accept query', 'Saved the verified query');

    const folder = join(shared, 'knowledge', 'finance');
    const [file] = await readdir(folder);
    expect(parse(await readFile(join(folder, file ?? ''), 'utf8'))).toMatchObject({
      queries: [{ name: 'Top two salaries', question: `${QUESTION} Check it with SQL.`, verified_by: FINN }],
      thread: fixture.threadKey(finnThread, FINANCE_CHANNEL),
      grants: { 'finance/salaries': { name: 'raw', salary: 'raw' } },
    });
  });

  it('gives an analyst without a finance grant nothing of them on Slack', async () => {
    const before = fixture.server.chatRequests.length;
    const ts = await fixture.slack.mention({ user: ANN, channel: ALLOWED_CHANNEL, text: QUESTION });
    await waitForText(ALLOWED_CHANNEL, ts, 'I have no salary data');

    expect(botTexts(ALLOWED_CHANNEL, ts).join('\n')).not.toContain('Following playbook');
    // run_verified_query may be listed (the telco set's queries are hers to run), but not the derived one, by name.
    const requests = modelRequests(before);
    expect(requests).toContain(QUESTION);
    for (const value of FINANCE_VALUES) expect(requests, value).not.toContain(value);
    expect(requests).not.toContain('Top two salaries');
    expect(requests).not.toContain('who-are-the-top-earners.md');
    // Her thread holds nothing of finance, so her colleagues may go on with it.
    const posted = JSON.stringify(fixture.slack.messages(ALLOWED_CHANNEL, ts));
    for (const value of FINANCE_VALUES) expect(posted, value).not.toContain(value);
  });

  it('gives the analyst nothing of them at the console either, from the files alone', async () => {
    if (!environment) throw new Error('the test environment was not prepared');
    // The playbook would be followed on its fit: only its grants keep it from her.
    const saved = await loadSavedPlaybooks(join(shared, 'playbooks'));
    expect(rankPlaybooks(saved, QUESTION).map((ranked) => ranked.playbook.file)).toEqual([
      'who-are-the-top-earners.md',
    ]);

    const home = await mkdtemp(join(tmpdir(), 'tally-derived-console-'));
    const instance = `derived-console-${randomBytes(4).toString('hex')}`;
    const output = new PlainOutput();
    const before = fixture.server.chatRequests.length;
    try {
      const config = loadConfig({
        ...environment.env(fixture.server.url),
        TALLY_HOME: home,
        TALLY_INSTANCE: instance,
        DATABASE_URL_FINANCE: finance.url,
        TALLY_POLICY: policyPath,
        TALLY_CONSOLE_USER: CONSOLE_ANALYST,
        TALLY_PLAYBOOK_DIR: join(shared, 'playbooks'),
        TALLY_KNOWLEDGE_DIR: join(shared, 'knowledge'),
      });
      const logger = createLogger({ level: config.logLevel });
      const adapter = new ConsoleAdapter({
        input: Readable.from([`${QUESTION}\n`]),
        output: output.stream,
        chartDir: join(home, 'charts'),
        prompt: false,
        threadKey: 'console:local:1',
      });
      const tally = await createTally({
        config,
        logger,
        llm: createLlmClient(config.llm, logger),
        post: (threadKey, post) => adapter.post(threadKey, post),
      });
      try {
        adapter.onInbound((inbound) => tally.router.handle(inbound));
        await adapter.start();
        await adapter.finished;
      } finally {
        await tally.close();
      }
    } finally {
      const left = await containersOf(instance);
      await rm(home, { recursive: true, force: true });
      expect(left).toEqual([]);
    }

    expect(output.text).toContain('I have no salary data');
    expect(output.text).not.toContain('Following playbook');
    const requests = modelRequests(before);
    expect(requests).toContain(QUESTION);
    for (const value of FINANCE_VALUES) expect(requests, value).not.toContain(value);
    expect(requests).not.toContain('Top two salaries');
    expect(output.text).not.toContain(FINANCE_VALUES[0]);
  }, 120_000);

  it('audits publishing both and offering the playbook, to the finance user only', async () => {
    const records = await auditRecords();
    const published = records.filter((record) => record.kind === 'publish');
    expect(published.map((record) => [record.actor?.user, record.derived?.kind, record.tables])).toEqual([
      [FINN, 'playbook', ['finance.salaries']],
      [FINN, 'verified-query', ['finance.salaries']],
    ]);
    const offers = records.filter((record) => record.kind === 'offer');
    expect(offers.map((record) => [record.actor?.user, record.derived?.name])).toEqual([
      [FINN, 'Who are the top earners'],
    ]);
    expect(offers[0]?.derived?.thread).toBe(fixture.threadKey(finnThread, FINANCE_CHANNEL));
  });
});
