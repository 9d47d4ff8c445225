/**
 * Shared files profiled in the real sandbox, as pandas reads them: CSV, TSV, a two-sheet workbook,
 * JSON lines, a 200 MB CSV profiled from a sample, a file that is not UTF-8, one pandas cannot read;
 * and how the prompts list them. The profile leaves nothing in the kernel's namespace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summariseSharedFiles } from '../../src/agent/shared-file-profile.js';
import type { Kernel } from '../../src/ports/sandbox.js';
import { profileSharedFile, SAMPLE_ABOVE_BYTES } from '../../src/sessions/profile-shared-file.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

let fixture: TestSandbox;
let kernel: Kernel;

beforeAll(async () => {
  fixture = await startTestSandbox({ limits: { memoryMb: 1024 } });
  kernel = await fixture.sandbox.acquire('profiles');
}, 180_000);
afterAll(async () => {
  await fixture?.close();
}, 120_000);

async function shared(name: string, content: Buffer | string, kind: string) {
  await kernel.writeFile(`uploads/${name}`, content);
  return profileSharedFile(kernel, { path: `/inputs/uploads/${name}`, kind });
}

describe('profiling a shared file in the kernel', () => {
  it('profiles a CSV: rows, columns with dtype, NULLs and samples', async () => {
    const csv = 'retention_time,compound,score\n1.5,alpha,0.9\n2.25,beta,\n3.0,,0.4\n';
    const profile = await shared('scores.csv', csv, 'CSV');
    expect(profile).toEqual({
      path: '/inputs/uploads/scores.csv',
      kind: 'CSV',
      notes: [],
      tables: [
        {
          rows: 3,
          rowsExact: true,
          moreColumns: 0,
          columns: [
            { name: 'retention_time', dtype: 'float64', nulls: 0, samples: ['1.5', '2.25', '3.0'] },
            { name: 'compound', dtype: 'object', nulls: 1, samples: ['alpha', 'beta'] },
            { name: 'score', dtype: 'float64', nulls: 1, samples: ['0.9', '0.4'] },
          ],
        },
      ],
    });
    expect((await kernel.run("'_tally_profile' in globals()")).result?.text).toBe('False');
  });

  it('profiles a TSV and JSON lines', async () => {
    const tsv = await shared('visits.tsv', 'day\tvisits\nmon\t10\ntue\t12\n', 'TSV');
    expect(tsv.tables[0]?.columns.map((column) => `${column.name} ${column.dtype}`)).toEqual([
      'day object',
      'visits int64',
    ]);
    const lines = await shared(
      'events.jsonl',
      '{"user": "a", "n": 1}\n{"user": "b", "n": 2}\n{"user": "c"}\n',
      'JSON lines',
    );
    expect(lines.tables[0]).toMatchObject({ rows: 3, rowsExact: true });
    expect(lines.tables[0]?.columns.find((column) => column.name === 'n')).toMatchObject({ nulls: 1 });
  });

  it('lists each sheet of a workbook', async () => {
    const made = await kernel.run(
      [
        'import pandas as pd',
        'with pd.ExcelWriter("book.xlsx") as writer:',
        '    pd.DataFrame({"region": ["north", "south"], "sales": [10.5, 20.0]}).to_excel(writer, sheet_name="Sales", index=False)',
        '    pd.DataFrame({"name": ["Ann", "Bob", "Cy"]}).to_excel(writer, sheet_name="Staff", index=False)',
      ].join('\n'),
    );
    expect(made.error).toBeUndefined();
    const profile = await shared('book.xlsx', await kernel.readFile('book.xlsx'), 'Excel');
    expect(
      profile.tables.map((table) => [table.sheet, table.rows, table.columns.map((column) => column.name)]),
    ).toEqual([
      ['Sales', 2, ['region', 'sales']],
      ['Staff', 3, ['name']],
    ]);
  });

  it('profiles a 200 MB CSV from its first rows and says so', async () => {
    const line = '12345,some text here,3.14159\n';
    const rows = Math.ceil((200 * 1024 * 1024) / line.length);
    expect(rows * line.length).toBeGreaterThan(SAMPLE_ABOVE_BYTES);
    const profile = await shared('big.csv', `id,label,value\n${line.repeat(rows)}`, 'CSV');
    expect(profile.tables[0]).toMatchObject({ rows, rowsExact: false });
    expect(profile.notes[0]).toMatch(/^profiled from the first 100,000 rows of 200 MB/);
    expect(summariseSharedFiles([profile])).toContain(`(about ${rows.toLocaleString('en-US')} rows)`);
  }, 180_000);

  it('reads a file that is not UTF-8 with a clear note, and one pandas cannot read with another', async () => {
    const latin1 = Buffer.from('city,temp\nZürich,12\nMálaga,25\n', 'latin1');
    const profile = await shared('cities.csv', latin1, 'CSV');
    expect(profile.tables[0]?.rows).toBe(2);
    expect(profile.notes).toEqual([expect.stringMatching(/^not valid UTF-8: .*encoding='latin-1'/)]);
    const broken = await shared('broken.json', '{"a": [1, 2', 'JSON');
    expect(broken.tables).toEqual([]);
    expect(broken.notes[0]).toMatch(/^pandas could not read it as JSON: ValueError/);
  });
});

describe('summariseSharedFiles', () => {
  it('lists files beside the tables, one line per file or sheet, with notes', () => {
    const text = summariseSharedFiles([
      {
        path: '/inputs/uploads/scores.csv',
        kind: 'CSV',
        notes: [],
        tables: [
          {
            rows: 1234,
            rowsExact: true,
            moreColumns: 0,
            columns: [
              { name: 'retention_time', dtype: 'float64', nulls: 0, samples: ['1.5'] },
              { name: 'compound', dtype: 'object', nulls: 2, samples: ['alpha', 'beta'] },
            ],
          },
        ],
      },
      {
        path: '/inputs/uploads/book.xlsx',
        kind: 'Excel',
        notes: ['2 more sheets not profiled'],
        tables: [{ sheet: 'Sales', rows: 2, rowsExact: true, moreColumns: 3, columns: [] }],
      },
    ]);
    expect(text).toBe(
      [
        'shared files (in the kernel; read them with pandas):',
        '- /inputs/uploads/scores.csv (CSV) (1,234 rows): retention_time float64 e.g. "1.5", compound object 2 null e.g. "alpha", "beta"',
        '- /inputs/uploads/book.xlsx (Excel)',
        '  sheet "Sales" (2 rows): … 3 more columns',
        '  note: 2 more sheets not profiled',
      ].join('\n'),
    );
    expect(summariseSharedFiles([])).toBe('');
  });
});
