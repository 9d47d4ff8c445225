/**
 * A run's folder as `tally eval --out` leaves it, and its report as a person opens it: rendered by
 * headless Chromium, the accuracy table on screen, the transcripts folded and shown as text, and not
 * one request beyond the file itself.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvalInputError } from '../../src/base/errors.js';
import type { Accuracy, CaseResult, EvalSummary } from '../../src/eval/eval-case.js';
import { readEvalRun, writeEvalRun } from '../../src/eval/write-eval-run.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// Were it markup, the page would fetch this and run the script: the test would see both.
const ATTACK = '<img src="http://127.0.0.1:9/pixel.png"><script>document.title = "pwned"</script>';

/** TALLY_TEST_CHROMIUM, or Debian's chromium on PATH; a missing browser fails with what to do. */
function chromiumPath(): string {
  const configured = process.env.TALLY_TEST_CHROMIUM;
  if (configured && existsSync(configured)) return configured;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      return execFileSync('which', [name], { encoding: 'utf8' }).trim();
    } catch {
      // not this name; try the next
    }
  }
  throw new Error(
    'No Chromium found to render the eval report. Run `apt-get install chromium` (as root), or ' +
      "'bash scripts/ensure-chromium.sh' ('npm run test:all' runs it), or set TALLY_TEST_CHROMIUM to a Chromium binary.",
  );
}

function result(id: string, level: string, correct: boolean, fields: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    suite: 'dabench',
    level,
    concepts: ['Summary Statistics'],
    status: 'done',
    correct,
    parts: [{ name: 'mean', correct, expected: '2.5', got: correct ? '2.5' : '3.1' }],
    answer: correct ? '@mean[2.5]' : '@mean[3.1]',
    toolCalls: 3,
    failedToolCalls: 0,
    tokens: { prompt: 2_000, completion: 150 },
    modelCalls: 3,
    modelMs: 4_000,
    wallMs: 6_000,
    costUsd: 0.002,
    transcript: `user: what is the mean?\nagent: the mean is ${correct ? '2.5' : '3.1'}`,
    ...fields,
  };
}

const accuracy = (cases: number, byQuestion: number): Accuracy => ({
  cases,
  byQuestion,
  bySubQuestion: byQuestion,
  proportional: byQuestion,
});

const results: CaseResult[] = [
  result('dabench-0', 'easy', true),
  result('dabench-1', 'medium', false, { transcript: `agent: done ${ATTACK}` }),
  result('dabench-2', 'hard', false, { status: 'time_budget', error: 'over 300000 ms (tally eval --case-ms)' }),
  result('dabench-3', 'hard', true, { wallMs: 20_000 }),
];

const summary: EvalSummary = {
  suite: 'dabench',
  model: 'gpt-4o-mini',
  startedAt: '2025-03-01T10:00:00.000Z',
  wallMs: 38_000,
  overall: accuracy(4, 0.5),
  byLevel: { easy: accuracy(1, 1), medium: accuracy(1, 0), hard: accuracy(2, 0.5) },
  byConcept: { 'Summary Statistics': accuracy(4, 0.5) },
  statuses: { done: 3, time_budget: 1, token_budget: 0, error: 0 },
  tokens: { prompt: 8_000, completion: 600 },
  costUsd: 0.008,
  perCase: { wallMsP50: 6_000, modelMsP50: 4_000, tokensP50: 2_150 },
};

let folder: string;
let browser: Browser | undefined;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-eval-report-'));
  browser = await chromium.launch({ executablePath: chromiumPath(), headless: true });
});

afterAll(async () => {
  await browser?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('an eval run on disk', () => {
  it('writes results, summary and report into a new folder, and reads them back', async () => {
    const dir = join(folder, 'nested', 'run-a');
    const paths = await writeEvalRun(dir, summary, results);
    expect(paths).toEqual({
      resultsPath: join(dir, 'results.jsonl'),
      summaryPath: join(dir, 'summary.json'),
      reportPath: join(dir, 'report.html'),
    });
    expect((await readFile(paths.resultsPath, 'utf8')).trimEnd().split('\n')).toHaveLength(results.length);
    expect(await readEvalRun(dir)).toEqual({ summary, results });
  });

  it('names the missing file when a folder is not a run', async () => {
    const dir = join(folder, 'half-run');
    const paths = await writeEvalRun(dir, summary, results);
    await rm(paths.resultsPath);
    const error = await readEvalRun(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EvalInputError);
    expect((error as Error).message).toBe(
      `${dir} is not a tally eval run: results.jsonl is missing (tally eval --out DIR writes it).`,
    );
    await expect(readEvalRun(join(folder, 'nowhere'))).rejects.toThrow('summary.json is missing');
  });
});

describe('report.html in headless Chromium', () => {
  it('shows the accuracy table, folds transcripts, and loads nothing but itself', async () => {
    const { reportPath } = await writeEvalRun(join(folder, 'run-b'), summary, results);
    const url = pathToFileURL(reportPath).href;
    if (!browser) throw new Error('the browser did not start');
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const requests: string[] = [];
    const complaints: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') complaints.push(message.text());
    });
    page.on('pageerror', (error) => complaints.push(error.message));
    try {
      await page.goto(url, { waitUntil: 'load' });

      const table = page.locator('#accuracy');
      await expect(table.isVisible()).resolves.toBe(true);
      const labels = await table.locator('tbody th[scope="row"]').allInnerTexts();
      expect(labels).toEqual(['Overall', 'easy', 'medium', 'hard', 'Summary Statistics']);
      const overall = await table.locator('tbody tr').first().locator('th, td').allInnerTexts();
      expect(overall).toEqual(['Overall', '4', '50.0%', '50.0%', '50.0%']);

      const screenshot = join(folder, 'accuracy.png');
      await table.screenshot({ path: screenshot });
      expect((await stat(screenshot)).size).toBeGreaterThan(PNG_SIGNATURE.length);
      expect((await readFile(screenshot)).subarray(0, 8)).toEqual(PNG_SIGNATURE);

      // The transcript is folded until opened, then shows the markup as text.
      const transcript = page.locator('#case-dabench-1 details pre');
      await expect(transcript.isVisible()).resolves.toBe(false);
      await page.locator('#case-dabench-1 details summary').click();
      await expect(transcript.isVisible()).resolves.toBe(true);
      await expect(transcript.textContent()).resolves.toBe(`agent: done ${ATTACK}`);
      await expect(page.title()).resolves.toBe('tally eval: dabench with gpt-4o-mini');
      expect(await page.locator('section.failed-case').evaluateAll((sections) => sections.map((s) => s.id))).toEqual([
        'case-dabench-1',
        'case-dabench-2',
      ]);

      expect(requests).toEqual([url]);
      expect(complaints).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
