/**
 * The report, reviewed section by section, end to end in the console flow: real sandbox, MariaDB
 * with telco_db, the openai SDK against the scripted model. Draft -> revise with feedback (which
 * reaches the model) -> accept -> next section -> discard -> accept -> export; then the log, the
 * training export and a playbook saved from the accepted report.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/agent/log-event.js';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import type { Post } from '../../src/ports/chat.js';
import { logKey } from '../../src/sessions/session-log.js';
import { exportTraining } from '../../src/training/export-training.js';
import { validateChatExampleLine, validatePreferenceLine } from '../support/fine-tuning-format.js';
import { postsOf, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

const FEEDBACK = 'break the customers down by contract type';
const CONTRACT_CODE = `import matplotlib.pyplot as plt
by_contract = customers.Contract.replace("", "(blank)").value_counts().sort_index()
ax = by_contract.plot.bar(title="Customers by contract")
by_contract`;
const TREND_CODE = `import matplotlib.pyplot as plt
tenure = customers.tenure.astype(float).dropna()
plt.hist(tenure, bins=12); plt.title("Tenure distribution")
round(tenure.mean(), 1)`;

const last = (context: ScriptContext) => context.lastToolResult?.content ?? '';
const files = (fixture: TallyFixture) =>
  new Map(postsOf(fixture.posts, 'file').map((file) => [file.name, file.content]));

let fixture: TallyFixture;
let seenByModelAfterRevise = '';

beforeAll(async () => {
  fixture = await startTallyFixture(
    [
      callTool('triage', { verdict: 'answerable' }),
      callTool('run_sql', { sql: 'SELECT COUNT(*) AS customers FROM user_payments' }),
      (context) =>
        callTool('draft_section', {
          title: 'Customers',
          stage: 'data overview',
          markdown: `There are ${last(context).split('\n')[1]?.trim()} customers in user_payments.`,
        }),
      // After "revise": the feedback and the previous version are the draft_section call's result.
      (context) => {
        seenByModelAfterRevise = last(context);
        return callTool('load_dataframe', {
          sql: 'SELECT p.customerID, p.Contract, s.tenure FROM user_payments p JOIN user_services s ON s.customerID = p.customerID',
          name: 'customers',
        });
      },
      callTool('run_python', { code: CONTRACT_CODE }),
      (context) =>
        callTool('draft_section', {
          title: 'Customers by contract',
          stage: 'data overview',
          revises: 's1',
          markdown: `Customers per contract type:\n\n\`\`\`\n${last(context)}\n\`\`\``,
        }),
      callTool('draft_section', { title: 'Scratch notes', markdown: 'Nothing worth keeping.' }),
      callTool('run_python', { code: TREND_CODE }),
      (context) =>
        callTool('draft_section', {
          title: 'Tenure',
          stage: 'exploration',
          markdown: `Mean tenure is ${last(context).split('\n').at(-1)} months.`,
        }),
      say('The report has two sections: customers by contract, and tenure.'),
    ],
    { TALLY_REVIEWERS: 'U3' },
  );
}, 120_000);
afterAll(async () => {
  await fixture?.close();
});

describe('the reviewed report', () => {
  it('posts each drafted section for review with its code and SQL, and waits', async () => {
    await fixture.say('Give me an overview of our customers for a report');
    const [review] = postsOf(fixture.posts, 'review');
    expect(review).toMatchObject({ id: 's1', version: 1, title: 'Customers', stage: 'data overview' });
    expect(review?.controls).toEqual(['accept', 'revise', 'discard']);
    expect(review?.cells).toEqual([
      { language: 'sql', code: 'SELECT COUNT(*) AS customers FROM user_payments', author: 'model' },
    ]);
    expect(review?.markdown).toMatch(/There are \d+ customers/);
    expect(fixture.server.remainingSteps).toBe(7); // the turn stopped at the review
  });

  it('takes Revise feedback to the model with the previous version, and posts version 2', async () => {
    await fixture.say(`revise: ${FEEDBACK}`);
    expect(seenByModelAfterRevise).toContain(FEEDBACK);
    expect(seenByModelAfterRevise).toMatch(/Previous version \(1\):\nThere are \d+ customers/);
    const review = postsOf(fixture.posts, 'review').at(-1);
    expect(review).toMatchObject({ id: 's1', version: 2, title: 'Customers by contract' });
    expect(review?.figures).toHaveLength(1);
    expect(review?.cells.map((cell) => cell.language)).toEqual(['sql', 'sql', 'python']);
  });

  it('refuses a decision from someone who is neither the owner nor a reviewer', async () => {
    await fixture.send({ text: 'accept', user: 'U2' });
    const notice = postsOf(fixture.posts, 'notice').at(-1);
    expect(notice).toMatchObject({ userId: 'U2' });
    expect(notice?.text).toMatch(/only the person who started this thread or a configured reviewer/);
    expect(postsOf(fixture.posts, 'review').at(-1)).toMatchObject({ id: 's1', version: 2 }); // nothing moved
  });

  it('accepts, goes on to the next section, discards it (a configured reviewer), and accepts the one after', async () => {
    await fixture.say('accept');
    expect(postsOf(fixture.posts, 'text').some((post) => post.markdown.includes('Accepted s1'))).toBe(true);
    expect(postsOf(fixture.posts, 'review').at(-1)).toMatchObject({ id: 's2', title: 'Scratch notes' });
    await fixture.send({ text: 'discard', user: 'U3' });
    expect(postsOf(fixture.posts, 'review').at(-1)).toMatchObject({ id: 's3', title: 'Tenure' });
    await fixture.send({ action: { id: 'review.accept', value: 's3@1' } });
    expect(postsOf(fixture.posts, 'text').at(-1)?.markdown).toBe(
      'The report has two sections: customers by contract, and tenure.',
    );
  });

  it('exports exactly the accepted sections, in order, with their figures', async () => {
    await fixture.say('report');
    const exported = files(fixture);
    expect([...exported.keys()].sort()).toEqual(
      ['figures/s1-1.png', 'figures/s3-1.png', 'report.html', 'report.ipynb', 'report.md'].sort(),
    );
    const html = exported.get('report.html')?.toString() ?? '';
    expect(html.indexOf('Customers by contract')).toBeGreaterThan(0);
    expect(html.indexOf('Tenure')).toBeGreaterThan(html.indexOf('Customers by contract'));
    expect(html).not.toContain('Scratch notes');
    expect(html).not.toMatch(/There are \d+ customers/); // version 1 was replaced
    expect(html.match(/src="data:image\/png;base64,/g)).toHaveLength(2);

    const notebook = JSON.parse(exported.get('report.ipynb')?.toString() ?? '{}') as {
      nbformat: number;
      cells: Array<{ cell_type: string; source: string[]; outputs?: Array<{ data?: Record<string, unknown> }> }>;
    };
    expect(notebook.nbformat).toBe(4);
    const headings = notebook.cells
      .filter((cell) => cell.cell_type === 'markdown')
      .map((cell) => cell.source.join(''))
      .flatMap((source) => [...source.matchAll(/^## (.+)$/gm)].map((match) => match[1]));
    const titles = ['Customers', 'Customers by contract', 'Scratch notes', 'Tenure'];
    expect(headings.filter((heading) => titles.includes(heading ?? ''))).toEqual(['Customers by contract', 'Tenure']);
    const code = notebook.cells.filter((cell) => cell.cell_type === 'code').map((cell) => cell.source.join(''));
    expect(code.some((source) => source.startsWith('customers = query('))).toBe(true);
    expect(code).toContain(CONTRACT_CODE);
    expect(code).toContain(TREND_CODE);
    const images = notebook.cells.flatMap((cell) => cell.outputs ?? []).filter((output) => output.data?.['image/png']);
    expect(images).toHaveLength(2);

    const markdown = exported.get('report.md')?.toString() ?? '';
    expect(markdown).toContain('](figures/s1-1.png)');
    expect(exported.get('figures/s1-1.png')?.subarray(1, 4).toString()).toBe('PNG');
  });

  it('logs messages, tool calls, cells with their author, decisions and report versions', async () => {
    const log = await fixture.tally.store.range<LogEntry>(logKey(fixture.thread));
    const kinds = new Set(log.map((entry) => entry.kind));
    for (const kind of ['message', 'request', 'post', 'tool_call', 'cell', 'decision', 'report_version']) {
      expect(kinds).toContain(kind);
    }
    const decisions = log.flatMap((entry) =>
      entry.kind === 'decision' ? [[entry.section, entry.action, entry.user]] : [],
    );
    expect(decisions).toEqual([
      ['s1', 'revise', 'U1'],
      ['s1', 'accept', 'U1'],
      ['s2', 'discard', 'U3'],
      ['s3', 'accept', 'U1'],
    ]);
    const cells = log.filter((entry) => entry.kind === 'cell');
    expect(cells.every((entry) => entry.kind === 'cell' && entry.author === 'model')).toBe(true);
    expect(log.filter((entry) => entry.kind === 'report_version')).toHaveLength(4);
  });

  it('exports training data: accepted sections as examples, the revised one as a preference pair', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'tally-training-'));
    try {
      const result = await exportTraining(fixture.tally.store, join(folder, 'train.jsonl'));
      const examples = (await readFile(result.examplesPath, 'utf8')).trim().split('\n');
      const pairs = (await readFile(result.preferencesPath, 'utf8')).trim().split('\n');
      const mine = examples.filter((line) => line.includes('overview of our customers'));
      expect(mine).toHaveLength(2);
      for (const line of examples) expect(validateChatExampleLine(line)).toEqual([]);
      for (const line of pairs) expect(validatePreferenceLine(line)).toEqual([]);
      expect(mine.join('\n')).not.toContain('Scratch notes');
      const pair = pairs.find((line) => line.includes('overview of our customers'));
      const parsed = JSON.parse(pair ?? '{}') as {
        preferred_output: Array<{ content: string }>;
        non_preferred_output: Array<{ content: string }>;
      };
      expect(parsed.preferred_output[0]?.content).toContain('Customers by contract');
      expect(parsed.non_preferred_output[0]?.content).toMatch(/There are \d+ customers/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('saves the accepted report as a playbook after review, and follows it for a like request', async () => {
    await fixture.say('save as playbook: Customer contract overview');
    const draft = postsOf(fixture.posts, 'review').at(-1) as Extract<Post, { kind: 'review' }>;
    expect(draft).toMatchObject({ id: 'playbook', controls: ['accept', 'discard'] });
    expect(draft.markdown).toContain('## Example code');
    expect(draft.markdown).toContain(CONTRACT_CODE.split('\n')[1]);
    expect(draft.markdown).not.toContain('Scratch notes');
    const saved = join(fixture.home, 'playbooks', 'customer-contract-overview.md');
    expect(existsSync(saved)).toBe(false); // shown for review before it is written
    await fixture.say('accept');
    // As reviewed, with the thread it came from (no access policy here, so no grants were tracked to record).
    expect(await readFile(saved, 'utf8')).toBe(draft.markdown.replace(/\n---\n/, `\nthread: ${fixture.thread}\n---\n`));

    await fixture.stop();
    await fixture.restart([
      callTool('triage', { verdict: 'answerable', multi_step: true }),
      say('1. Contracts per customer.'),
      say('ok'),
    ]);
    await fixture.say('customer contract overview for the new quarter', `${fixture.thread}:next`);
    const followed = fixture.posts.filter(
      ({ threadKey, post }) => threadKey === `${fixture.thread}:next` && post.kind === 'text',
    );
    expect(JSON.stringify(followed)).toContain('Following playbook: Customer contract overview');
  });

  it('keeps a waiting section and its decision across a restart of tally', async () => {
    const thread = `${fixture.thread}:restart`;
    await fixture.stop();
    await fixture.restart([
      callTool('triage', { verdict: 'answerable' }),
      callTool('run_sql', { sql: "SELECT COUNT(*) AS churned FROM user_churn WHERE Churn = 'Yes'" }),
      (context) => callTool('draft_section', { title: 'Churned customers', markdown: `Churned: ${last(context)}` }),
    ]);
    await fixture.say('How many customers churned? Write it up as a report section.', thread);
    const posted = fixture.posts.filter((posted) => posted.threadKey === thread && posted.post.kind === 'review');
    expect(posted).toHaveLength(1);

    await fixture.stop();
    let told = '';
    await fixture.restart([
      (context) => {
        told = last(context);
        return say('Finished after the restart.');
      },
    ]);
    await fixture.send({ threadKey: thread, action: { id: 'review.accept', value: 's1@1' } });
    expect(told).toContain('The user accepted section s1 (version 1)');
    const texts = fixture.posts.filter((posted) => posted.threadKey === thread).map(({ post }) => post);
    expect(texts.at(-1)).toEqual({ kind: 'text', markdown: 'Finished after the restart.' });
    const report = await fixture.tally.store.get<{ accepted: string[] }>(`report:${thread}`);
    expect(report?.accepted).toEqual(['s1']);
  });
});
