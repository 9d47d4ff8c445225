/**
 * The exported notebook against the real sandbox image: the real `nbformat` accepts it, and its code
 * cells rerun from a fresh kernel against a real SQLite file, rebuilding the report's DataFrames.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportNotebook } from '../../src/report/export-notebook.js';
import type { Cell } from '../../src/report/report.js';
import type { ReportDocument } from '../../src/report/report-document.js';
import { type SampleDatabase, sampleSqlite } from '../support/sample-databases.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
// Triple quotes and a backslash: the SQL must reach the database unchanged through a Python literal.
const PHRASE = 'say """hi""" \\ then "quote"';

const cell = (fields: Partial<Cell> & Pick<Cell, 'language' | 'code'>): Cell => ({
  author: 'model',
  figures: [],
  ranAt: 0,
  ...fields,
});

const doc: ReportDocument = {
  title: 'Orders',
  threadKey: 'console:local:1',
  createdAt: 0,
  exportedAt: 1_700_000_000_000,
  // A name with a dash, so the variable is TALLY_DB_SHOP_DB.
  databases: [{ name: 'shop-db', dialect: 'sqlite' }],
  sections: [
    {
      id: 's1',
      title: 'Who spends most',
      narrative: 'Ann and Dmitri.',
      version: 1,
      request: 'who spends most?',
      cells: [
        cell({
          language: 'sql',
          code: 'SELECT id, customer, amount, paid FROM orders ORDER BY id',
          database: 'shop-db',
          dataframe: 'orders',
          rows: 5,
        }),
        cell({
          language: 'python',
          code: 'import matplotlib.pyplot as plt\norders.plot.bar(x="customer", y="amount")',
          figures: ['f1'],
        }),
        cell({ language: 'python', code: 'big = orders[orders.amount > 50]\nprint(len(big))', author: 'human' }),
      ],
      figures: [{ id: 'f1', title: 'Amount per order', alt: 'Bars', png: PNG, cell: 1 }],
      acceptedBy: 'U1',
      acceptedAt: 0,
    },
    {
      id: 's2',
      title: 'Paid orders',
      narrative: 'Two of five are paid.',
      version: 1,
      request: 'how many are paid?',
      cells: [
        cell({ language: 'sql', code: 'SELECT COUNT(*) AS n FROM orders', database: 'shop-db', rows: 1 }),
        cell({
          language: 'sql',
          code: 'SELECT * FROM orders WHERE paid = 1',
          database: 'shop-db',
          dataframe: 'paid',
          rows: 2,
        }),
        cell({
          language: 'sql',
          code: `SELECT '${PHRASE}' AS phrase`,
          database: 'shop-db',
          dataframe: 'tricky',
          rows: 1,
        }),
        cell({ language: 'python', code: 'share = len(paid) / len(orders)\nshare' }),
      ],
      figures: [],
      acceptedBy: 'U1',
      acceptedAt: 0,
    },
  ],
};

interface NotebookJson {
  cells: Array<{ cell_type: string; id: string; source: string[] }>;
}

let fixture: TestSandbox;
let database: SampleDatabase;
const notebook = exportNotebook(doc).content;
const codeCells = (JSON.parse(notebook.toString('utf8')) as NotebookJson).cells.filter(
  (candidate) => candidate.cell_type === 'code',
);

beforeAll(async () => {
  fixture = await startTestSandbox();
  database = await sampleSqlite();
});
afterAll(async () => {
  await database?.drop();
  await fixture?.close();
});

describe('the exported notebook', () => {
  it('passes the real nbformat validator as nbformat 4.5, which rejects a broken one', async () => {
    const kernel = await fixture.sandbox.acquire('notebook-validate');
    await kernel.writeFile('report/report.ipynb', notebook);
    const broken = JSON.parse(notebook.toString('utf8')) as NotebookJson;
    broken.cells[1] = { ...(broken.cells[1] as NotebookJson['cells'][number]), id: broken.cells[0]?.id ?? '' };
    await kernel.writeFile('report/broken.ipynb', JSON.stringify(broken));
    // Files written by the host are read-only at /inputs in the container; warnings such as a
    // missing or repaired cell id count as failures.
    const validate = (name: string) =>
      kernel.run(
        `import warnings, nbformat\nwith warnings.catch_warnings():\n    warnings.simplefilter("error")\n    nb = nbformat.read("/inputs/report/${name}", as_version=4)\n    nbformat.validate(nb)\n(nb.nbformat, nb.nbformat_minor, len(nb.cells))`,
      );
    const valid = await validate('report.ipynb');
    expect(valid.error).toBeUndefined();
    expect(valid.result?.text).toBe(`(4, 5, ${2 + 4 + 5})`);
    const invalid = await validate('broken.ipynb');
    expect(invalid.error?.name).toBe('DuplicateCellId');
  });

  it('says which variable to set when a database has none', async () => {
    const kernel = await fixture.sandbox.acquire('notebook-unset');
    const setup = await kernel.run(codeCells[0]?.source.join('') ?? '');
    expect(setup.error).toBeUndefined();
    const execution = await kernel.run('query("shop-db", "SELECT 1")');
    expect(execution.error?.name).toBe('RuntimeError');
    expect(execution.error?.value).toContain('TALLY_DB_SHOP_DB');
  });

  it('reruns cell by cell in a fresh kernel and rebuilds the DataFrames from the SQL', async () => {
    const kernel = await fixture.sandbox.acquire('notebook-run');
    expect((await kernel.run('"orders" in globals()')).result?.text).toBe('False');
    await kernel.writeFile('shop.db', await readFile(database.location));
    expect((await kernel.run('import os\nos.environ["TALLY_DB_SHOP_DB"] = "/inputs/shop.db"')).error).toBeUndefined();
    const figures: number[] = [];
    for (const code of codeCells) {
      const execution = await kernel.run(code.source.join(''));
      expect(execution.error, `cell ${code.id}: ${execution.error?.traceback}`).toBeUndefined();
      figures.push(execution.figures.length);
    }
    expect(codeCells.map((code) => code.id)).toEqual([
      'setup',
      's1-cell-1',
      's1-cell-2',
      's1-cell-3',
      's2-cell-1',
      's2-cell-2',
      's2-cell-3',
      's2-cell-4',
    ]);
    expect(figures).toEqual([0, 0, 1, 0, 0, 0, 0, 0]);
    expect((await kernel.run('len(orders)')).result?.text).toBe('5');
    expect((await kernel.run('len(paid)')).result?.text).toBe('2');
    expect((await kernel.run('print(tricky.iloc[0, 0])')).stdout).toBe(`${PHRASE}\n`);
    expect((await kernel.run('share')).result?.text).toBe('0.4');
  });
});
