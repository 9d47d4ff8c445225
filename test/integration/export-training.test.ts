/**
 * `exportTraining` against the real embedded store: sessions written the way tally writes them,
 * exported to JSONL files whose every line passes the independent format check.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/agent/log-event.js';
import { createLogger } from '../../src/base/logger.js';
import type { Store } from '../../src/ports/store.js';
import { addDraft, type Cell, decide, emptyReport, type Report } from '../../src/report/report.js';
import { logKey, SESSIONS_LIST } from '../../src/sessions/session-log.js';
import { createStore } from '../../src/store/create-store.js';
import { exportTraining } from '../../src/training/export-training.js';
import { cleanUp } from '../support/clean-up.js';
import { validateChatExampleLine, validatePreferenceLine } from '../support/fine-tuning-format.js';

const cell = (code: string, extra: Partial<Cell> = {}): Cell => ({
  language: 'sql',
  code,
  author: 'model',
  database: 'telco',
  figures: [],
  ranAt: 1,
  ...extra,
});

function draft(report: Report, request: string, title: string, cells: Cell[], revises?: string): string {
  const input = { title, narrative: `About ${title}.`, request, cells, figures: [], at: 10 };
  return addDraft(report, revises ? { ...input, revises } : input).section.id;
}

function firstSession(): Report {
  const report = emptyReport('slack:C1:1', 0);
  const overview = draft(report, 'Overview of customers', 'Overview', [
    cell('SELECT * FROM customers', { dataframe: 'customers' }),
  ]);
  decide(report, overview, { action: 'accept', by: 'U1', at: 11 });
  const churn = draft(report, 'Why do customers churn?', 'Churn v1', [cell('SELECT churn FROM customers')]);
  decide(report, churn, { action: 'revise', by: 'U1', at: 12, feedback: 'split by contract' });
  draft(report, '', 'Churn v2', [cell('SELECT contract, AVG(churn) FROM customers GROUP BY contract')], churn);
  decide(report, churn, { action: 'accept', by: 'U1', at: 13 });
  return report;
}

function secondSession(): Report {
  const report = emptyReport('discord:G1:2', 0);
  const plans = draft(report, '', 'Plans', [
    { ...cell('df.plan.value_counts()'), language: 'python', author: 'human' },
  ]);
  decide(report, plans, { action: 'accept', by: 'U2', at: 21 });
  const dropped = draft(report, 'Something else', 'Dropped', [cell('SELECT 1')]);
  decide(report, dropped, { action: 'discard', by: 'U2', at: 22 });
  return report;
}

describe('exportTraining', () => {
  let directory: string;
  let store: Store;

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'tally-export-training-'));
    store = await createStore({ sqlitePath: join(directory, 'state.db'), logger: createLogger({ level: 'silent' }) });
  });

  afterEach(async () => {
    await cleanUp(
      () => store.close(),
      () => rmSync(directory, { recursive: true, force: true }),
    );
  });

  async function putSession(report: Report, log: LogEntry[]): Promise<void> {
    await store.set(`report:${report.threadKey}`, report);
    for (const entry of log) await store.append(logKey(report.threadKey), entry);
    await store.append(SESSIONS_LIST, report.threadKey);
  }

  it('writes every accepted section and every revision pair as valid JSONL', async () => {
    await putSession(firstSession(), [{ kind: 'request', text: 'Overview of customers', at: 5 }]);
    await putSession(secondSession(), [{ kind: 'request', text: 'Which plans do people use?', at: 9 }]);
    await store.append(SESSIONS_LIST, 'slack:C1:1'); // listed twice: exported once
    await store.append(SESSIONS_LIST, 'slack:C9:no-report');

    const outPath = join(directory, 'exports', 'training.jsonl');
    const result = await exportTraining(store, outPath);

    expect(result).toEqual({
      sessions: 2,
      examples: 3,
      preferences: 1,
      examplesPath: outPath,
      preferencesPath: join(directory, 'exports', 'training.preferences.jsonl'),
    });
    const examples = readFileSync(result.examplesPath, 'utf8');
    const preferences = readFileSync(result.preferencesPath, 'utf8');
    expect(examples.endsWith('\n')).toBe(true);
    expect(preferences.endsWith('\n')).toBe(true);

    const exampleLines = examples.slice(0, -1).split('\n');
    const preferenceLines = preferences.slice(0, -1).split('\n');
    expect(exampleLines).toHaveLength(3);
    expect(preferenceLines).toHaveLength(1);
    for (const line of exampleLines) expect(validateChatExampleLine(line)).toEqual([]);
    for (const line of preferenceLines) expect(validatePreferenceLine(line)).toEqual([]);

    const requests = exampleLines.map((line) => JSON.parse(line).messages[1].content);
    expect(requests).toEqual(['Overview of customers', 'Why do customers churn?', 'Which plans do people use?']);
    expect(examples).toContain('GROUP BY contract');
    expect(examples).not.toContain('SELECT churn FROM customers');
    expect(examples).not.toContain('Dropped');
    expect(examples).toContain('df.plan.value_counts()');
    expect(JSON.parse(preferenceLines[0] ?? '').non_preferred_output[0].content).toContain(
      'SELECT churn FROM customers',
    );
    expect(readdirSync(join(directory, 'exports')).sort()).toEqual(['training.jsonl', 'training.preferences.jsonl']);
  });

  it('writes empty files when there is nothing reviewed, replacing an earlier export', async () => {
    const outPath = join(directory, 'training.jsonl');
    await putSession(firstSession(), []);
    expect((await exportTraining(store, outPath)).examples).toBe(2);

    await store.set('report:slack:C1:1', emptyReport('slack:C1:1', 0));
    const result = await exportTraining(store, outPath);

    expect(result).toMatchObject({ sessions: 1, examples: 0, preferences: 0 });
    expect(readFileSync(outPath, 'utf8')).toBe('');
    expect(readFileSync(result.preferencesPath, 'utf8')).toBe('');
  });
});
