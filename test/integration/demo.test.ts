import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../../src/db/sqlite-database.js';
import { runTelcoDemo } from '../../src/demo/telco-demo.js';
import { loadTelco } from '../../telco_data/index.js';
import { LIMITS } from '../support/sample-databases.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

let fixture: TestSandbox;
let folder: string;
let database: SqliteDatabase;

beforeAll(async () => {
  fixture = await startTestSandbox();
  folder = await mkdtemp(join(tmpdir(), 'tally-demo-'));
  await loadTelco({ target: `sqlite:${join(folder, 'telco.db')}` });
  database = await SqliteDatabase.open({ name: 'telco', path: join(folder, 'telco.db'), limits: LIMITS });
});
afterAll(async () => {
  await database?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
  await fixture?.close();
});

describe('the telco demo', () => {
  it('lists the tables, analyses an extract in the kernel and saves the chart where it says', async () => {
    const lines: string[] = [];
    const { chartPath } = await runTelcoDemo({
      sandbox: fixture.sandbox,
      database,
      outDir: join(folder, 'out'),
      print: (line) => lines.push(line),
    });
    const output = lines.join('\n');
    expect(output).toMatch(/user_demographics\s+5352 rows/);
    expect(output).toMatch(/user_demographics_new\s+1409 rows/);
    expect(output).toMatch(/5634 rows in \d+ ms/);
    expect(output).toContain('MonthlyCharges: float64');
    const rate = (contract: string) => Number(new RegExp(`${contract}\\s+(0\\.\\d+)`).exec(output)?.[1]);
    expect(rate('Month-to-month')).toBeGreaterThan(rate('One year'));
    expect(rate('One year')).toBeGreaterThan(rate('Two year'));
    expect(output).toContain(`chart saved: ${chartPath}`);
    expect((await readFile(chartPath)).subarray(1, 4).toString()).toBe('PNG');
    expect(fixture.sandbox.sessions.size).toBe(0);
  });
});
