/**
 * The knowledge store on files, against a real telco_db in SQLite: the shipped telco set loads and
 * is up to date; retrieval puts the right definition, verified query and synonym into the prompt for
 * the requests that need them and nothing for a request it does not cover; `knowledge check` names
 * a renamed column and an unparseable query; invalid files are refused with every problem listed.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKnowledge } from '../../src/agent/knowledge-prompt.js';
import { KnowledgeFileError } from '../../src/base/errors.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import { checkKnowledge } from '../../src/knowledge/check-knowledge.js';
import { FileKnowledge, TELCO_KNOWLEDGE_DIR, telcoAliases } from '../../src/knowledge/file-knowledge.js';
import type { ReadableTables } from '../../src/ports/knowledge.js';
import { loadTelco } from '../../telco_data/load-telco.js';
import { runTally } from '../support/run-tally.js';
import { LIMITS } from '../support/sample-databases.js';

let folder: string;
let database: SqliteDatabase;
let knowledge: FileKnowledge;
let everything: ReadableTables[];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-knowledge-'));
  await loadTelco({ target: `sqlite:${join(folder, 'telco.db')}` });
  database = await SqliteDatabase.open({ name: 'telco', path: join(folder, 'telco.db'), limits: LIMITS });
  knowledge = await FileKnowledge.load([TELCO_KNOWLEDGE_DIR], await telcoAliases([database]));
  everything = [{ database: 'telco', tables: (await database.listTables()).map((table) => table.name) }];
}, 120_000);
afterAll(async () => {
  await database?.close();
  await rm(folder, { recursive: true, force: true });
});

const titles = (request: string) =>
  knowledge.relevant(request, everything).map((piece) => `${piece.kind}: ${piece.title}`);

describe('the telco knowledge set', () => {
  it('is for the database that holds the telco tables, whatever its name', () => {
    expect(knowledge.databases).toEqual(['telco']);
    expect(knowledge.relevant('churn rate by contract', [{ database: 'another', tables: ['user_churn'] }])).toEqual([]);
  });

  it('is up to date with the schema: every table, column and verified query checks', async () => {
    const check = await checkKnowledge(knowledge, [database]);
    expect(check.problems).toEqual([]);
    expect(check.checked.references).toBeGreaterThan(15);
    expect(check.checked.queries).toBe(3);
  });

  it('puts the definition of an active customer into the prompt for a question that uses it', () => {
    const found = titles('How many active customers do we have on fiber optic?');
    expect(found).toContain('definition: active customer');
    expect(found).toContain('query: active customers by internet service');
    expect(formatKnowledge(knowledge.relevant('How many active customers do we have?', everything))).toContain(
      "has not churned (user_churn.Churn = 'No') and has been a customer for at least one whole month",
    );
  });

  it('offers the verified query for the question it answers', () => {
    expect(titles('What is the churn rate by contract type?')).toContain('query: churn rate by contract');
    expect(knowledge.query('telco', 'Churn Rate by Contract')?.verifiedBy).toBe('telco analytics team');
  });

  it('finds a definition by its synonym', () => {
    expect(titles('Which customers show the highest attrition rate?')[0]).toBe('definition: churn rate');
  });

  it('shows nothing that names a table the person may not read', () => {
    const request = 'What is the churn rate by contract type, and how is the Churn column of user_churn coded?';
    expect(JSON.stringify(knowledge.relevant(request, everything))).toContain('user_payments');
    const churnOnly = knowledge.relevant(request, [{ database: 'telco', tables: ['user_churn'] }]);
    expect(churnOnly.map((piece) => piece.title)).toEqual(['user_churn']);
    expect(JSON.stringify(churnOnly)).not.toContain('user_payments');
  });

  it('adds nothing for a request it does not cover', () => {
    expect(titles('Plot the weather in Lisbon last week')).toEqual([]);
  });
});

describe('tally knowledge check', () => {
  it('names a renamed column and an unparseable verified query, with their files, and exits 1', async () => {
    const own = join(folder, 'own');
    await cp(join(TELCO_KNOWLEDGE_DIR, 'telco_db'), join(own, 'telco'), { recursive: true });
    const tables = join(own, 'telco', 'tables.yaml');
    await writeFile(tables, (await readFile(tables, 'utf8')).replace('      PaymentMethod:', '      PaymentMethd:'));
    await writeFile(
      join(own, 'telco', 'broken.yaml'),
      'queries:\n  - name: broken\n    question: Does it parse?\n    sql: SELEC Contract FROM user_payments\n    verified_by: nobody\n',
    );
    const stale = await checkKnowledge(await FileKnowledge.load([own]), [database]);
    expect(stale.problems).toEqual([
      { database: 'telco', source: 'telco/tables.yaml', problem: 'column user_payments.PaymentMethd does not exist' },
      {
        database: 'telco',
        source: 'telco/broken.yaml',
        problem: expect.stringMatching(/^verified query "broken" fails: /),
      },
    ]);
    const run = await runTally(['knowledge', 'check'], {
      TALLY_HOME: folder,
      DATABASE_URL: `sqlite:${join(folder, 'telco.db')}`,
      TALLY_KNOWLEDGE_DIR: own,
      LOG_LEVEL: 'silent',
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('stale: telco/tables.yaml: column user_payments.PaymentMethd does not exist');
    expect(run.stdout).toContain('stale: telco/broken.yaml: verified query "broken" fails');
    expect(run.stdout).toMatch(/2 stale: \d+ table and column references, 7 verified queries checked/);
  }, 120_000);

  it('passes the shipped set on the demo database', async () => {
    const run = await runTally(['knowledge', 'check'], {
      TALLY_HOME: folder,
      DATABASE_URL: `sqlite:${join(folder, 'telco.db')}`,
      LOG_LEVEL: 'silent',
    });
    expect(run.stdout).toMatch(
      /^knowledge is up to date: \d+ table and column references, 3 verified queries checked$/m,
    );
    expect(run.code).toBe(0);
  }, 120_000);
});

describe('knowledge files', () => {
  it('refuses an invalid file, listing every problem by entry and field', async () => {
    const bad = join(folder, 'bad');
    await cp(join(TELCO_KNOWLEDGE_DIR, 'telco_db', 'notes.md'), join(bad, 'shop', 'notes.md'));
    await writeFile(
      join(bad, 'shop', 'wrong.yaml'),
      'definitions:\n  - name: revenue\nqueries:\n  - name: q\n    question: q?\n    sql: SELECT {{region}} AS r\n    verified_by: ann\n    parameters:\n      - name: year\n',
    );
    const error = await FileKnowledge.load([bad]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KnowledgeFileError);
    const message = (error as Error).message;
    expect(message).toContain('definitions.0, definition:');
    const after = await (async () => {
      await writeFile(
        join(bad, 'shop', 'wrong.yaml'),
        'queries:\n  - name: q\n    question: q?\n    sql: SELECT {{region}} AS r\n    verified_by: ann\n    parameters:\n      - name: year\n',
      );
      return FileKnowledge.load([bad]).catch((caught: unknown) => (caught as Error).message);
    })();
    expect(after).toContain('queries.0, sql: {{region}} is not among its parameters');
    expect(after).toContain('queries.0, parameters: year is not used in its sql');
  });

  it('reads Markdown notes, one per section', async () => {
    const notes = knowledge.relevant('Which tables are train and which are test?', everything);
    expect(notes.map((piece) => piece.title)).toContain('Train and test');
  });
});
