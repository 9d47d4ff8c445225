/**
 * The knowledge store under the access policy: a piece learned from a thread reaches only readers who hold that
 * thread's grants (a learned file from before they were recorded reaches none), a verified query is not run by
 * name for anyone else, and a description of a column the reader may not read is not shown, in a table's piece or
 * in any other piece that names it.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { knowledgeFor } from '../../src/agent/knowledge-prompt.js';
import { FileKnowledge } from '../../src/knowledge/file-knowledge.js';
import { resolveAccess } from '../../src/policy/access.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import { missingGrants } from '../../src/policy/thread-grants.js';
import type { Reader } from '../../src/ports/access.js';
import type { ReadableTables } from '../../src/ports/knowledge.js';

const POLICY = parsePolicy(
  `
principals:
  analysts: { slack_users: [U0ANALYST] }
  support: { slack_users: [U0SUPPORT] }
  finance-team: { slack_users: [U0FINANCE] }
grants:
  - { to: [analysts, finance-team], database: crm, tables: [customers] }
  - { to: [support], database: crm, tables: [customers], columns: [customers.id, customers.name, customers.segment] }
  - { to: [finance-team], database: finance, tables: ["*"] }
`,
  'policy.yaml',
  ['crm', 'finance'],
);

const readerOf = (userId: string): Reader => {
  const access = resolveAccess(POLICY, {
    platform: 'slack',
    userId,
    groups: [],
    place: { channel: 'C0GENERAL', dm: false },
  });
  return { mayRead: (used) => missingGrants(used, access).length === 0 };
};

const CRM: ReadableTables = { database: 'crm', tables: ['customers'] };
const FINANCE: ReadableTables = { database: 'finance', tables: ['salaries'] };

let root: string;
let knowledge: FileKnowledge;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tally-derived-knowledge-'));
  const org = join(root, 'org');
  const learned = join(root, 'learned');
  const write = async (folder: string, database: string, file: string, content: unknown) => {
    await mkdir(join(folder, database), { recursive: true });
    await writeFile(join(folder, database, file), stringify(content));
  };
  await write(org, 'crm', 'tables.yaml', {
    tables: {
      customers: {
        description: 'one row per customer account',
        columns: {
          id: 'the customer number',
          segment: 'retail or business customer segment',
          tenure: 'months the customer has been with us',
        },
      },
    },
    definitions: [
      { name: 'loyal customer', definition: 'a customer whose tenure is at least 24 months (customers.tenure)' },
      { name: 'business customer', definition: 'a customer in the business segment (customers.segment)' },
    ],
  });
  const query = (name: string, question: string, sql: string) => ({
    queries: [{ name, question, sql, verified_by: 'U0FINANCE' }],
  });
  await write(learned, 'finance', 'verified-top-earners.yaml', {
    ...query('top earners', 'who are the top earners by salary', 'SELECT name, salary FROM salaries'),
    thread: 'slack:T0:C0FINANCE:1.0',
    grants: { 'finance/salaries': { name: 'raw', salary: 'raw' } },
  });
  await write(learned, 'crm', 'verified-customers-by-segment.yaml', {
    ...query('customers by segment', 'how many customers per segment', 'SELECT segment, COUNT(*) FROM customers'),
    thread: 'slack:T0:C0GENERAL:2.0',
    grants: { 'crm/customers': { segment: 'raw' } },
  });
  // Saved before tally recorded grants: which thread, and what it read, is not known.
  await write(learned, 'crm', 'verified-segment-tenure.yaml', {
    ...query('segment tenure', 'how many customers per segment and tenure', 'SELECT segment, tenure FROM customers'),
  });
  // The organisation's own file in the same folder is not learned from a thread.
  await write(learned, 'crm', 'segments.yaml', {
    definitions: [{ name: 'segment mix', definition: 'the share of customers per segment (customers.segment)' }],
  });
  knowledge = await FileKnowledge.load([org, learned], {}, { learnedDir: learned });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const titles = (request: string, readable: ReadableTables[], reader?: Reader) =>
  knowledge.relevant(request, readable, reader).map((piece) => piece.title);

describe('knowledge learned from a thread', () => {
  it('reaches a reader who holds the thread’s grants, and no one else', () => {
    const request = 'who are the top earners by salary';
    expect(titles(request, [CRM, FINANCE], readerOf('U0FINANCE'))).toContain('top earners');
    // Even told the finance tables are readable (they are not), the analyst's reader withholds it.
    expect(titles(request, [CRM, FINANCE], readerOf('U0ANALYST'))).not.toContain('top earners');
    expect(titles(request, [CRM], readerOf('U0ANALYST'))).toEqual([]);
  });

  it('is not run by name for a reader who lacks the grants', () => {
    expect(knowledge.query('finance', 'top earners', readerOf('U0FINANCE'))?.derivedFrom?.thread).toBe(
      'slack:T0:C0FINANCE:1.0',
    );
    expect(knowledge.query('finance', 'top earners', readerOf('U0ANALYST'))).toBeUndefined();
    expect(knowledgeFor(knowledge, readerOf('U0SUPPORT')).query('finance', 'Top Earners')).toBeUndefined();
    expect(knowledge.query('finance', 'top earners')).toBeDefined();
  });

  it('withholds a learned file without recorded grants from everyone under a policy', () => {
    const request = 'how many customers per segment and tenure';
    for (const user of ['U0ANALYST', 'U0FINANCE', 'U0SUPPORT']) {
      expect(titles(request, [CRM], readerOf(user))).not.toContain('segment tenure');
    }
    expect(titles(request, [CRM])).toContain('segment tenure');
    expect(knowledge.query('crm', 'segment tenure', readerOf('U0ANALYST'))).toBeUndefined();
  });

  it('offers a learned query whose thread read only what the reader may', () => {
    expect(titles('how many customers per segment', [CRM], readerOf('U0SUPPORT'))).toContain('customers by segment');
    expect(titles('the segment mix: share per segment', [CRM], readerOf('U0SUPPORT'))).toContain('segment mix');
  });
});

describe('knowledge of columns', () => {
  const request = 'loyal customer accounts: tenure in months, retail or business segment';

  it('shows a reader with the whole table every column’s description', () => {
    const pieces = knowledgeFor(knowledge, readerOf('U0ANALYST')).relevant(request, [CRM]);
    const table = pieces.find((piece) => piece.kind === 'table');
    expect(table?.text).toContain('tenure: months the customer has been with us');
    expect(pieces.map((piece) => piece.title)).toContain('loyal customer');
  });

  it('leaves out the description of a column the reader may not read, and any piece that names it', () => {
    const pieces = knowledgeFor(knowledge, readerOf('U0SUPPORT')).relevant(request, [CRM]);
    const table = pieces.find((piece) => piece.kind === 'table');
    expect(table?.text).toContain('segment: retail or business customer segment');
    expect(table?.text).toContain('id: the customer number');
    expect(JSON.stringify(pieces)).not.toContain('tenure');
    expect(pieces.map((piece) => piece.title)).not.toContain('loyal customer');
    expect(pieces.map((piece) => piece.title)).toContain('business customer');
  });

  it('filters nothing without a policy', () => {
    const pieces = knowledge.relevant(request, [CRM]);
    expect(pieces.find((piece) => piece.kind === 'table')?.text).toContain('tenure');
  });
});
