/**
 * A run's folder (`tally eval --out DIR`): `results.jsonl` with one case per line, `summary.json`,
 * and `report.html` for people. The JSON files are what `tally eval --compare` reads back.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EvalInputError } from '../base/errors.js';
import type { CaseResult, EvalSummary } from './eval-case.js';
import { renderEvalReport } from './eval-report-html.js';

/** The file names inside a run's folder. */
export const EVAL_RUN_FILES = {
  results: 'results.jsonl',
  summary: 'summary.json',
  report: 'report.html',
} as const;

/** A run as read back from its folder. */
export interface EvalRun {
  summary: EvalSummary;
  results: CaseResult[];
}

/** Where {@link writeEvalRun} wrote each file. */
export interface EvalRunPaths {
  resultsPath: string;
  summaryPath: string;
  reportPath: string;
}

/** Writes the three files into `dir`, creating it (and its parents) when missing; existing files are replaced. */
export async function writeEvalRun(dir: string, summary: EvalSummary, results: CaseResult[]): Promise<EvalRunPaths> {
  await mkdir(dir, { recursive: true });
  const paths: EvalRunPaths = {
    resultsPath: join(dir, EVAL_RUN_FILES.results),
    summaryPath: join(dir, EVAL_RUN_FILES.summary),
    reportPath: join(dir, EVAL_RUN_FILES.report),
  };
  await writeFile(paths.resultsPath, results.map((result) => `${JSON.stringify(result)}\n`).join(''));
  await writeFile(paths.summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  await writeFile(paths.reportPath, renderEvalReport(summary, results));
  return paths;
}

async function readRunFile(dir: string, name: string): Promise<string> {
  try {
    return await readFile(join(dir, name), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new EvalInputError(`${dir} is not a tally eval run: ${name} is missing (tally eval --out DIR writes it).`);
    }
    throw error;
  }
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new EvalInputError(`${where} is not valid JSON (${(error as Error).message}).`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a run written by {@link writeEvalRun}. Throws `EvalInputError` naming the file (and line)
 * when the folder is not a run: a file missing, not JSON, or not shaped like a summary or a case.
 */
export async function readEvalRun(dir: string): Promise<EvalRun> {
  const summaryPath = join(dir, EVAL_RUN_FILES.summary);
  const resultsPath = join(dir, EVAL_RUN_FILES.results);
  const summary = parseJson(await readRunFile(dir, EVAL_RUN_FILES.summary), summaryPath);
  // Only the fields a comparison cannot do without are checked: a summary.json of some other tool
  // should fail here, not as a TypeError deep in the comparison.
  const fields = ['overall', 'byLevel', 'statuses', 'tokens', 'perCase'];
  const missing = isObject(summary) ? fields.filter((field) => !isObject(summary[field])) : fields;
  if (missing.length > 0) {
    throw new EvalInputError(`${summaryPath} is not a tally eval summary (missing ${missing.join(', ')}).`);
  }
  const results: CaseResult[] = [];
  const lines = (await readRunFile(dir, EVAL_RUN_FILES.results)).split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const where = `${resultsPath} line ${index + 1}`;
    const result = parseJson(line, where);
    if (!isObject(result) || typeof result.id !== 'string' || typeof result.correct !== 'boolean') {
      throw new EvalInputError(`${where} is not a tally eval case result (no id or correct).`);
    }
    results.push(result as unknown as CaseResult);
  }
  return { summary: summary as unknown as EvalSummary, results };
}
