/**
 * The audit trail end to end: two replicas of tally on one Redis, each with its own Bolt app against the Slack
 * stand-in (Slack gives each event to one of an app's connections; here they take turns), the real sandbox and
 * MariaDB under an access policy, the scripted model. One analyst's thread queries, is refused a table, extracts,
 * has a section accepted, shares a file and exports the report. The trail must hold exactly those accesses and
 * every model request, in order, with who and where, and no row values; `tally audit` prints and filters them;
 * `tally audit verify` passes, and names the record a test altered in Redis.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlackAdapter } from '../../adapters/slack/slack-adapter.js';
import {
  callTool,
  type ScriptedModelServer,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import type { AuditRecord } from '../../src/ports/audit.js';
import { ACTION_IDS } from '../../src/ports/chat.js';
import type { ChatService } from '../../src/wiring/serve-chat.js';
import { cleanUp } from '../support/clean-up.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';
import { runTally } from '../support/run-tally.js';
import { serveScheduledSlack } from '../support/scheduled-chat.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

/** Records of what a message was shown (tables listed, columns described), besides the accesses. */
const SHOWN = new Set(['list', 'describe']);
const CHANNEL = 'C1ANALYTICS';
const ANN = 'U1ANN';
const AUDITOR = 'auditor-jo';

const COUNT_SQL = 'SELECT Contract, COUNT(*) AS customers FROM user_payments GROUP BY Contract ORDER BY Contract';
const CHURN_SQL = 'SELECT * FROM user_churn';
const EXTRACT_SQL = 'SELECT customerID, Contract FROM user_payments';

let environment: TestEnvironment;
let redis: RedisTestSpace;
let model: ScriptedModelServer;
let slack: SlackStandIn;
const services: Array<ChatService<SlackAdapter>> = [];
let env: Record<string, string> = {};
let threadTs = '';
let records: AuditRecord[] = [];

const botTexts = () =>
  slack
    .messages(CHANNEL, threadTs)
    .filter((message) => message.user === slack.ids.botUserId)
    .map((message) => message.text);

const tally = (args: string[]) => runTally(args, env);

/**
 * The records without a kernel's replay: when the Accept click reaches the replica that did not run the turn (which
 * replica gets an event depends on how many came before it), that replica rebuilds the kernel from the journal and
 * reads the extraction again. The read happened and is recorded, marked as a replay.
 */
function withoutReplays(trail: AuditRecord[]): AuditRecord[] {
  const replays = trail.filter((record) => record.replay === true);
  for (const replay of replays) {
    expect(replay).toMatchObject({ kind: 'extract', decision: 'allowed', sql: EXTRACT_SQL });
  }
  expect(replays.length).toBeLessThanOrEqual(1);
  return trail.filter((record) => record.replay !== true);
}

async function auditJson(...filters: string[]): Promise<AuditRecord[]> {
  const result = await tally(['audit', '--json', ...filters]);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as AuditRecord);
}

beforeAll(async () => {
  environment = await createTestEnvironment('audit');
  redis = await createRedisTestSpace('audit');
  model = await startScriptedModelServer({
    script: [
      // A clear request: no triage, the first request does the work.
      callTool('run_sql', { sql: COUNT_SQL }),
      callTool('run_sql', { sql: CHURN_SQL }),
      callTool('load_dataframe', { sql: EXTRACT_SQL, name: 'payments' }),
      callTool('draft_section', { title: 'Contracts', markdown: 'Most customers pay month to month.' }),
      say('The section on contracts is in the report.'),
    ],
  });
  slack = await startSlackStandIn({ channels: [{ id: CHANNEL, name: 'analytics' }], spread: 'in-turn' });
  const database = environment.database.name;
  const policy = join(environment.home, 'policy.yaml');
  await writeFile(
    policy,
    `principals:
  analysts: { slack_users: [${ANN}] }
databases:
  ${database}:
    sensitive: { user_payments.customerID: hash }
grants:
  - { to: [analysts], database: ${database}, tables: [user_payments, user_services] }
`,
  );
  env = {
    ...environment.env(model.url),
    REDIS_URL: redis.url,
    TALLY_REDIS_PREFIX: redis.keyPrefix,
    TALLY_POLICY: policy,
    TALLY_PSEUDONYM_KEY: 'an-audit-test-secret-key',
    TALLY_CONSOLE_USER: AUDITOR,
    TALLY_HTTP_PORT: '0',
  };
  for (const replica of [0, 1]) {
    const replicaEnv = { ...env, TALLY_INSTANCE: `${environment.instance}-${replica}` };
    services.push(await serveScheduledSlack(slack, CHANNEL, { environment, modelUrl: model.url, env: replicaEnv }));
  }
  await slack.connected();
}, 240_000);

afterAll(async () => {
  await cleanUp(
    ...services.map((service) => () => service.close()),
    () => slack?.close(),
    () => model?.close(),
    () => redis?.cleanup(),
    () => environment?.close(),
  );
});

describe('the audit trail', () => {
  it('records a thread that queries, is refused, extracts, shares a file and exports, across two replicas', async () => {
    threadTs = await slack.mention({ user: ANN, channel: CHANNEL, text: 'How are customers spread over contracts?' });
    const review = await slack.waitFor(
      () =>
        slack
          .messages(CHANNEL, threadTs)
          .find((message) => message.user === slack.ids.botUserId && message.text.includes('Contracts')),
      120_000,
    );
    const acceptValue = JSON.stringify(review.blocks ?? []).match(/"action_id":"[^"]*accept[^"]*","value":"([^"]*)"/);
    await slack.click({
      user: ANN,
      channel: CHANNEL,
      messageTs: review.ts,
      actionId: ACTION_IDS.accept,
      value: acceptValue?.[1] ?? '',
    });
    await slack.waitFor(
      () => botTexts().find((text) => text.includes('The section on contracts is in the report')),
      120_000,
    );
    await slack.shareFile({
      user: ANN,
      channel: CHANNEL,
      threadTs,
      name: 'targets.csv',
      mimetype: 'text/csv',
      content: Buffer.from('contract,target\nOne year,100\n'),
    });
    await slack.waitFor(() => botTexts().find((text) => text.includes('targets.csv')), 60_000);
    await slack.reply({ user: ANN, channel: CHANNEL, threadTs, text: 'report' });
    await slack.waitFor(() => botTexts().find((text) => text.includes('Report exported')), 60_000);

    records = await auditJson();
    const threadKey = `slack:${slack.ids.teamId}:${CHANNEL}:${threadTs}`;
    const firstReads = withoutReplays(records);
    const accesses = firstReads
      .filter((record) => record.kind !== 'model' && !SHOWN.has(record.kind))
      .map((record) => [record.kind, record.decision, record.reason ?? '', record.sql ?? record.file ?? '']);
    expect(accesses).toEqual([
      ['query', 'allowed', '', COUNT_SQL],
      ['query', 'refused', 'access policy', CHURN_SQL],
      ['extract', 'allowed', '', EXTRACT_SQL],
      ['shared-file', 'allowed', '', 'targets.csv'],
      ['export', 'allowed', '', 'report.md'],
      ['export', 'allowed', '', 'report.html'],
      ['export', 'allowed', '', 'report.ipynb'],
    ]);
    // Every model request is there too, in its place between the accesses it led to.
    expect(firstReads.filter((record) => !SHOWN.has(record.kind)).map((record) => record.kind)).toEqual([
      'model', // asks for the count
      'query',
      'model', // asks for user_churn
      'query',
      'model', // asks for the extraction
      'extract',
      'model', // drafts the section
      'model', // after the accept: the closing answer
      'shared-file',
      'export',
      'export',
      'export',
    ]);
    expect(records.filter((record) => record.kind === 'model')).toHaveLength(model.chatRequests.length);
    for (const record of records) {
      expect(record.actor).toMatchObject({ user: ANN, platform: 'slack', thread: threadKey });
      expect(record.actor?.channel).toContain(CHANNEL);
    }
    // Positions are the stream's, in order, from both replicas' appends.
    const ids = records.map((record) => record.id);
    expect([...ids].sort((left, right) => compareStreamIds(left, right))).toEqual(ids);
  }, 300_000);

  it('says what each access read: tables, columns, masks, rows and bytes; the refusal names its rule', () => {
    const [count, refusal, extract] = records.filter((record) => record.kind !== 'model' && !SHOWN.has(record.kind));
    expect(count).toMatchObject({ database: environment.database.name, tables: ['user_payments'], rows: 4 });
    expect(count?.columns).toEqual(expect.arrayContaining(['user_payments.Contract', 'user_payments.customerID']));
    expect(count?.masked).toEqual(['user_payments.customerID (hash)']);
    expect(count?.bytes).toBeGreaterThan(0);
    expect(refusal?.rule).toContain('user_churn');
    expect(refusal?.rows).toBeUndefined();
    expect(extract).toMatchObject({ tables: ['user_payments'], masked: ['user_payments.customerID (hash)'] });
    expect(extract?.rows).toBeGreaterThan(1000);
    expect(extract?.bytes).toBeGreaterThan(10_000);
  });

  it('says which tables and columns each message showed, granted ones only', () => {
    const lists = records.filter((record) => record.kind === 'list');
    const descriptions = records.filter((record) => record.kind === 'describe');
    expect(lists.length).toBeGreaterThan(0);
    expect(descriptions.length).toBeGreaterThan(0);
    for (const list of lists) expect(list.tables).not.toContain('user_churn');
    const described = descriptions.filter((record) => record.decision === 'allowed');
    expect(described.flatMap((record) => record.tables ?? [])).not.toContain('user_churn');
    expect(described.flatMap((record) => record.columns ?? [])).toContain('user_payments.customerID');
  });

  it('says where each model request went and which tool results went into it, by name and size only', () => {
    const requests = records.filter((record) => record.kind === 'model');
    for (const request of requests) {
      expect(request.model).toMatchObject({
        endpoint: expect.stringContaining('127.0.0.1'),
        model: expect.any(String),
      });
      expect(request.model?.promptTokens).toBeGreaterThan(0);
    }
    const drafting = requests[3];
    expect(drafting?.model?.toolResults.map((result) => result.tool)).toEqual(['run_sql', 'run_sql', 'load_dataframe']);
    expect(drafting?.model?.toolResults.every((result) => result.bytes > 0)).toBe(true);
    // Names and sizes, never values: no contract type, no customer id, no message text in the trail.
    const trail = JSON.stringify(records);
    expect(trail).not.toMatch(/Month-to-month|\d{4}-[A-Z]{5}/);
    expect(trail).not.toContain('How are customers spread');
    expect(trail).not.toContain('an-audit-test-secret-key');
  });

  it('filters as an auditor asks, and counts the refusal in /metrics', async () => {
    expect(await auditJson('--user', 'U9NOBODY')).toEqual([]);
    const onTheDatabase = await auditJson('--db', environment.database.name);
    expect(
      withoutReplays(onTheDatabase)
        .filter((record) => !SHOWN.has(record.kind))
        .map((record) => record.kind),
    ).toEqual(['query', 'query', 'extract']);
    const recent = await auditJson('--since', '1h', '--thread', records[0]?.actor?.thread ?? '');
    expect(recent).toHaveLength(records.length);
    const printed = await tally(['audit', '--user', ANN]);
    expect(printed.stdout).toContain(`slack:${ANN}  query  REFUSED (access policy)`);
    const refusals = await Promise.all(
      services.map(async (service) => {
        const body = (await service.tally.metrics.render()).body;
        return Number(/tally_refusals_total\{reason="access policy"\} (\d+)/.exec(body)?.[1] ?? 'NaN');
      }),
    );
    expect(refusals.reduce((sum, count) => sum + count, 0)).toBe(1);
  });

  it('verifies the chain, and names the record altered in Redis', async () => {
    const intact = await tally(['audit', 'verify']);
    expect(intact.code, intact.stderr).toBe(0);
    expect(intact.stdout).toContain(`intact: ${records.length} records`);

    const refused = records.find((record) => record.decision === 'refused');
    if (!refused) throw new Error('no refused record');
    await rewriteStream(`${redis.keyPrefix}:audit`, (id, fields) =>
      id === refused.id ? { ...fields, record: (fields.record ?? '').replace('"refused"', '"allowed"') } : fields,
    );
    const broken = await tally(['audit', 'verify']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`BROKEN at record ${refused.id}`);
    expect(broken.stdout).toContain('altered');
  });
});

/** Replaces a Redis stream by a copy (same ids) with some entries' fields changed, as someone with access to Redis could. */
async function rewriteStream(
  key: string,
  change: (id: string, fields: Record<string, string>) => Record<string, string>,
): Promise<void> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    const entries = await client.xRange(key, '-', '+');
    const copy = `${key}:tampered`;
    for (const entry of entries) await client.xAdd(copy, entry.id, change(entry.id, entry.message));
    await client.rename(copy, key);
  } finally {
    await client.close();
  }
}

function compareStreamIds(left: string, right: string): number {
  const [leftMs = 0, leftSeq = 0] = left.split('-').map(Number);
  const [rightMs = 0, rightSeq = 0] = right.split('-').map(Number);
  return leftMs - rightMs || leftSeq - rightSeq;
}
