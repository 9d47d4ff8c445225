/**
 * The agent end to end: real sandbox, real MariaDB with telco_db, the real openai SDK against the
 * scripted model server. Each scenario asserts on what the thread shows and on what reached the model.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadPlaybooks } from '../../src/agent/playbooks.js';
import {
  callTool,
  malformedToolCall,
  rateLimit,
  type ScriptContext,
  say,
  serverError,
} from '../../src/demo/scripted-model-server.js';
import { redisTestUrl } from '../support/redis.js';
import { postsOf, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

const TABLES = ['user_demographics', 'user_services', 'user_payments', 'user_churn'];
const COUNTS_SQL = `SELECT ${TABLES.map((table) => `(SELECT COUNT(*) FROM ${table}) AS ${table}`).join(', ')}`;
const answerable = callTool('triage', { verdict: 'answerable' });

let fixture: TallyFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

/** The text of every message the model was sent in request `index` (0-based). */
function sentToModel(index: number): string {
  const request = fixture?.server.chatRequests[index];
  return JSON.stringify(request?.body?.messages ?? []);
}

/** `header\nvalues` of a one-row run_sql preview, as name → number. */
function previewRow(context: ScriptContext): Record<string, number> {
  const [header = '', values = ''] = (context.lastToolResult?.content ?? '').split('\n');
  const names = header.trim().split(/\s+/);
  const numbers = values.trim().split(/\s+/).map(Number);
  return Object.fromEntries(names.map((name, index) => [name, numbers[index] ?? Number.NaN]));
}

describe('the agent', () => {
  it('checks whether the tables are consistent in one turn, with no user input, and names the real counts', async () => {
    fixture = await startTallyFixture([
      answerable,
      callTool('list_tables', {}),
      callTool('run_sql', { sql: COUNTS_SQL }),
      (context) => {
        const counts = previewRow(context);
        const distinct = new Set(Object.values(counts));
        const lines = Object.entries(counts).map(([table, rows]) => `${table}: ${rows}`);
        return say(`Row counts:\n${lines.join('\n')}\n${distinct.size > 1 ? 'They disagree.' : 'They agree.'}`);
      },
    ]);
    await fixture.say('Check whether the row counts of the tables in telco_db are consistent');
    const answer = postsOf(fixture.posts, 'text').at(-1)?.markdown ?? '';
    for (const table of TABLES) {
      const rows = (await fixture.tally.databases[0]?.query(`SELECT COUNT(*) FROM ${table}`))?.rows[0]?.[0];
      expect(answer).toContain(`${table}: ${rows}`);
    }
    expect(answer).toContain('They disagree.');
    expect(fixture.server.chatRequests).toHaveLength(4); // triage + three act steps, no user input
    expect(postsOf(fixture.posts, 'question')).toHaveLength(0);
    const progress = postsOf(fixture.posts, 'progress').at(-1)?.progress;
    expect(progress?.state).toBe('done');
    expect(progress?.tasks.map((task) => [task.title, task.status])).toEqual([
      ['List tables', 'complete'],
      ['Count rows per table', 'complete'],
    ]);
  });

  it('repairs failing code from its traceback, and gives up after three failures of the same step', async () => {
    fixture = await startTallyFixture([
      answerable,
      callTool('load_dataframe', { sql: 'SELECT customerID, Contract FROM user_payments', name: 'payments' }),
      callTool('run_python', { code: 'payments["Contrat"].value_counts()' }),
      (context) =>
        context.lastToolResult?.content.includes("KeyError: 'Contrat'")
          ? callTool('run_python', { code: 'payments["Contract"].value_counts().to_dict()' })
          : say('the traceback did not arrive'),
      (context) => say(`Counts: ${context.lastToolResult?.content.split('\n').slice(1).join(' ')}`),
      answerable,
      callTool('run_python', { code: 'payments["A"]' }),
      callTool('run_python', { code: 'payments["B"]' }),
      callTool('run_python', { code: 'payments["C"]' }),
    ]);
    await fixture.say('How many customers are on each contract?');
    expect(sentToModel(3)).toContain('Traceback');
    expect(sentToModel(3)).toContain("KeyError: 'Contrat'");
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toMatch(/Counts: .*'Month-to-month': \d+/);

    await fixture.say('Now the A, B and C columns please');
    const giveUp = postsOf(fixture.posts, 'error').at(-1)?.text ?? '';
    expect(giveUp).toContain('gave up on this step after 3 failed attempts');
    expect(giveUp).toContain("KeyError: 'A'");
    expect(giveUp).toContain("KeyError: 'C'");
    expect(fixture.server.remainingSteps).toBe(0);
  });

  it('asks when the request is ambiguous, and resumes with the answer', async () => {
    fixture = await startTallyFixture([
      callTool('triage', {
        verdict: 'ambiguous',
        question: 'Which churn measure?',
        choices: ['Churn rate', 'Churned customers'],
      }),
      callTool('run_sql', { sql: "SELECT COUNT(*) AS churned FROM user_churn WHERE Churn = 'Yes'" }),
      callTool('ask_user', { question: 'Train tables only, or also the _new ones?', choices: ['train', 'both'] }),
      (context) => say(`Answer noted: ${context.lastToolResult?.content}`),
    ]);
    await fixture.say('Show me churn');
    expect(postsOf(fixture.posts, 'question')).toEqual([
      { kind: 'question', text: 'Which churn measure?', choices: ['Churn rate', 'Churned customers'] },
    ]);
    expect(fixture.server.chatRequests).toHaveLength(1); // the turn paused after triage

    await fixture.say('2');
    expect(sentToModel(1)).toContain('Show me churn');
    // The answer is triage's call result; the request stays as it was sent, before it.
    expect(sentToModel(1)).toContain('The user answered: Churned customers');
    expect(postsOf(fixture.posts, 'question').at(-1)?.text).toBe('Train tables only, or also the _new ones?');

    await fixture.say('both');
    expect(sentToModel(3)).toContain('The user answered: both');
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe('Answer noted: The user answered: both');
  });

  it('follows the playbook that fits the request, says which, and puts it in the plan and act prompts', async () => {
    fixture = await startTallyFixture([
      callTool('triage', { verdict: 'answerable', multi_step: true }),
      say('1. Churn rate per segment with counts.\n2. Chi-square test per factor.\n3. Chart.'),
      say('Contract type matters most.'),
    ]);
    await fixture.say('Which factors drive churn?');
    const drivers = (await loadPlaybooks()).find((playbook) => playbook.file === 'churn-drivers.md');
    expect(postsOf(fixture.posts, 'text')[0]?.markdown).toBe(
      `Following playbook: ${drivers?.title} (churn-drivers.md)`,
    );
    // Plan and act carry it after the request's own message (the system prompt stays the same for the thread).
    const sent = (index: number) => JSON.stringify(fixture?.server.chatRequests[index]?.body?.messages ?? []);
    for (const index of [1, 2]) {
      expect(sent(index)).toContain('Playbook to follow: ');
      expect(sent(index)).toContain('### Requirements');
      expect(sent(index)).toContain('chi2_contingency');
    }
  });

  it('with an embedding model, finds the playbook for a request in other words', async () => {
    // A stand-in embedding where "attrition" and "leave" mean churn; BM25 alone finds nothing here.
    const embed = (text: string) => {
      const lower = text.toLowerCase();
      const churny = /churn|attrition|leave/.test(lower) ? 1 : 0;
      const drivers = /driver|factor|reason|why/.test(lower) ? 1 : 0;
      return [churny, drivers, churny && drivers ? 1 : 0, 0.05];
    };
    fixture = await startTallyFixture(
      [
        callTool('triage', { verdict: 'answerable', multi_step: true }),
        say('1. Churn rate per segment.'),
        say('Contract type matters most.'),
      ],
      { LLM_EMBEDDING_MODEL: 'scripted-embedding' },
      { embed },
    );
    await fixture.say('Reasons for attrition?');
    expect(postsOf(fixture.posts, 'text')[0]?.markdown).toMatch(/^Following playbook: .+ \(churn-drivers\.md\)$/);
    expect(fixture.server.requests.some((request) => request.path.startsWith('/v1/embeddings'))).toBe(true);
  });

  it('says honestly when the data cannot answer, and names what is there', async () => {
    fixture = await startTallyFixture([
      callTool('triage', { verdict: 'out_of_scope', reason: 'there is no call-centre or complaint data' }),
    ]);
    await fixture.say('How many complaints did the call centre log last week?');
    const answer = postsOf(fixture.posts, 'text').at(-1)?.markdown ?? '';
    expect(answer).toContain("I can't answer that from the data I have: there is no call-centre or complaint data");
    for (const table of TABLES) expect(answer).toContain(table);
  });

  it('keeps a DataFrame from one turn for the next', async () => {
    fixture = await startTallyFixture([
      answerable,
      callTool('load_dataframe', { sql: 'SELECT customerID, MonthlyCharges FROM user_payments', name: 'payments' }),
      say('Loaded.'),
      answerable,
      callTool('run_python', { code: 'round(payments.MonthlyCharges.mean(), 2)' }),
      (context) => say(`Mean monthly charge: ${context.lastToolResult?.content.split('\n').at(-1)}`),
    ]);
    await fixture.say('Load the payments');
    await fixture.say('What is the mean monthly charge?');
    const result = await fixture.tally.databases[0]?.query('SELECT ROUND(AVG(MonthlyCharges), 2) FROM user_payments');
    const mean = result?.rows[0]?.[0];
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe(`Mean monthly charge: ${Number(mean)}`);
  });

  it.each([
    ['the embedded store', {}],
    ['Redis', { REDIS_URL: redisTestUrl() }],
  ])(
    'continues a thread after tally restarts (%s): the kernel is rebuilt and the old variables are back',
    async (_, env) => {
      fixture = await startTallyFixture(
        [
          answerable,
          callTool('load_dataframe', { sql: 'SELECT customerID, tenure FROM user_services', name: 'services' }),
          callTool('run_python', { code: 'long_tenure = int((services.tenure > 48).sum())' }),
          say('Done.'),
        ],
        env,
      );
      await fixture.say('Count the long-tenure customers');
      await fixture.stop();
      await fixture.restart([
        answerable,
        callTool('run_python', { code: 'long_tenure, len(services)' }),
        (context) => say(`Still here: ${context.lastToolResult?.content.split('\n').at(-1)}`),
      ]);
      await fixture.say('Remind me of the number');
      expect(postsOf(fixture.posts, 'status').map((post) => post.text)).toContain(
        "Restored this session's kernel: 2 steps replayed.",
      );
      expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toMatch(/^Still here: \(\d+, 5734\)$/);
      expect(sentToModel(1)).toContain('Count the long-tenure customers'); // the conversation came back too
    },
  );

  it('rides out a rate limit, reports a model that keeps failing, and lets the model repair malformed arguments', async () => {
    fixture = await startTallyFixture([
      rateLimit({ retryAfterSeconds: 1 }),
      answerable,
      malformedToolCall('run_sql', '{"sql": "SELECT 1",'),
      (context) =>
        context.lastToolResult?.content.includes('not valid JSON')
          ? callTool('run_sql', { sql: 'SELECT 1 AS one' })
          : say('no'),
      say('Fixed it.'),
      serverError(),
      serverError(),
      serverError(),
    ]);
    await fixture.say('Run a trivial query');
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe('Fixed it.');
    const [limited, retried] = fixture.server.chatRequests;
    expect((retried?.receivedAt ?? 0) - (limited?.receivedAt ?? 0)).toBeGreaterThanOrEqual(900);

    await fixture.say('And again');
    const error = postsOf(fixture.posts, 'error').at(-1)?.text ?? '';
    expect(error).toMatch(/LLM_BASE_URL/);
    expect(fixture.server.remainingSteps).toBe(0);
  });
});
