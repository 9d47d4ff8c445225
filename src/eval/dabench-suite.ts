/**
 * The DABench suite (InfiAgent-DABench dev set, Apache-2.0; see eval/dabench/SOURCE.md): 257
 * questions over 64 CSV files. Each case shares its CSV into a fresh thread as a person would, and
 * sends the question, its constraints and its answer format as the message. Each is scored twice: by
 * tally's scorer, and as the benchmark's published script scores it (dabench-published-score.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EvalInputError } from '../base/errors.js';
import { scoreAsPublished } from './dabench-published-score.js';
import { scoreDabench } from './dabench-score.js';
import type { EvalCase } from './eval-case.js';

/** The copy in this repository. */
export const DABENCH_DIR = join(import.meta.dirname, '..', '..', 'eval', 'dabench');

export interface DabenchQuestion {
  id: number;
  question: string;
  concepts: string[];
  constraints: string;
  format: string;
  file_name: string;
  level: string;
}

export interface DabenchItem extends DabenchQuestion {
  /** `[name, value]` pairs, as labelled. */
  labels: Array<[string, string]>;
}

/** The questions with their labels, in the files' order. */
export async function loadDabench(dir = DABENCH_DIR): Promise<DabenchItem[]> {
  const read = async (file: string) => {
    const text = await readFile(join(dir, file), 'utf8').catch(() => {
      throw new EvalInputError(`No DABench ${file} in ${dir} (tally eval --data DIR names the folder).`);
    });
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  const labels = new Map(
    (await read('da-dev-labels.jsonl')).map((row) => [row.id as number, row.common_answers as Array<[string, string]>]),
  );
  return (await read('da-dev-questions.jsonl')).map((row) => {
    const question = row as unknown as DabenchQuestion;
    return { ...question, labels: labels.get(question.id) ?? [] };
  });
}

/** What the user writes: the question, its constraints and the answer format, as the benchmark gives them. */
export function dabenchMessage(item: DabenchQuestion): string {
  return [
    item.question,
    `Constraints: ${item.constraints}`,
    `Answer format: ${item.format}`,
    'Finish with the answer in exactly that format, one @name[value] per value.',
  ].join('\n\n');
}

export function dabenchCases(items: DabenchItem[], dir = DABENCH_DIR): EvalCase[] {
  return items.map((item) => ({
    id: `dabench-${item.id}`,
    suite: 'dabench',
    level: item.level,
    concepts: item.concepts,
    message: dabenchMessage(item),
    files: [{ name: item.file_name, path: join(dir, 'da-dev-tables', item.file_name) }],
    // Someone else's CSV: no playbook (they are methods for telco_db) fits. Counted in the run's
    // playbook choice, not scored as a part, so DABench accuracy stays the benchmark's.
    playbook: null,
    score: (outcome) => scoreDabench(outcome.answer, item.labels),
    scoreAsPublished: (answer) => scoreAsPublished(answer, item.labels),
  }));
}

/**
 * Picks cases by position (1-based, in the suite's order): `1-40,77`. Throws naming --cases when
 * the selection is malformed or out of range.
 */
export function selectCases<T>(all: T[], selection: string | undefined): T[] {
  if (selection === undefined) return all;
  const picked = new Set<number>();
  for (const part of selection.split(',').map((text) => text.trim())) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part);
    const from = Number(match?.[1]);
    const to = Number(match?.[2] ?? match?.[1]);
    if (!match || from < 1 || to < from || to > all.length) {
      throw new EvalInputError(`--cases ${selection}: '${part}' is not a position or range within 1-${all.length}`);
    }
    for (let position = from; position <= to; position += 1) picked.add(position);
  }
  return [...picked].sort((a, b) => a - b).map((position) => all[position - 1] as T);
}
