/**
 * `tally export-training`: every session's reviewed work from the store, written as two JSONL files
 * ready for OpenAI fine-tuning: supervised chat examples at `outPath`, DPO preference pairs beside
 * it at `<outPath without .jsonl>.preferences.jsonl`. Each file is written to a temporary file in
 * the same folder and renamed into place, so a reader never sees half a file.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { LogEntry } from '../agent/log-event.js';
import type { Store } from '../ports/store.js';
import type { Report } from '../report/report.js';
import { reportKey } from '../report/report-book.js';
import { listSessions, logKey } from '../sessions/session-log.js';
import { buildTrainingData, type TrainingOptions, type TrainingSession } from './training-examples.js';

/** What an export wrote. */
export interface TrainingExport {
  /** Sessions with a report (sessions without one are skipped). */
  sessions: number;
  /** Lines in `examplesPath`. */
  examples: number;
  /** Lines in `preferencesPath`. */
  preferences: number;
  examplesPath: string;
  preferencesPath: string;
}

/**
 * Every file an export wrote, so deletion on request can write them again without what went, and
 * retention can remove them when they are old.
 */
export const TRAINING_EXPORTS = 'training-exports';

/** Where the preference pairs of an export to `outPath` go: `<outPath without .jsonl>.preferences.jsonl`. */
export const preferencesPathFor = (outPath: string) => `${outPath.replace(/\.jsonl$/, '')}.preferences.jsonl`;

/** Reads every session's report and log from `store` and writes the training files (see the module doc). */
export async function exportTraining(
  store: Store,
  outPath: string,
  options: TrainingOptions & {
    /** Remember the file for deletion and retention (`training-exports`). Default true. */
    record?: boolean;
  } = {},
): Promise<TrainingExport> {
  const sessions: TrainingSession[] = [];
  for (const threadKey of await listSessions(store)) {
    const report = await store.get<Report>(reportKey(threadKey));
    if (!report) continue;
    sessions.push({ threadKey, report, log: await store.range<LogEntry>(logKey(threadKey)) });
  }
  const { examples, preferences } = buildTrainingData(sessions, options);
  const preferencesPath = preferencesPathFor(outPath);
  await writeJsonLines(outPath, examples);
  await writeJsonLines(preferencesPath, preferences);
  if (options.record !== false) await store.append(TRAINING_EXPORTS, resolve(outPath));
  return {
    sessions: sessions.length,
    examples: examples.length,
    preferences: preferences.length,
    examplesPath: outPath,
    preferencesPath,
  };
}

/**
 * Every recorded export still on disk, written again from what the store holds now (after deletion:
 * without what went). Each file keeps its date, so it still expires when it would have. Returns how many.
 */
export async function rewriteTrainingExports(store: Store): Promise<number> {
  let rewritten = 0;
  for (const path of new Set(await store.range<string>(TRAINING_EXPORTS))) {
    const files = [path, preferencesPathFor(path)];
    const ages = await Promise.all(files.map((file) => stat(file).catch(() => undefined)));
    if (!ages[0]) continue;
    await exportTraining(store, path, { record: false });
    for (const [index, file] of files.entries()) {
      const age = ages[index];
      if (age) await utimes(file, age.atime, age.mtime);
    }
    rewritten += 1;
  }
  return rewritten;
}

async function writeJsonLines(path: string, items: readonly unknown[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // Same folder as the target, so the rename stays on one file system and is atomic.
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, items.map((item) => `${JSON.stringify(item)}\n`).join(''), 'utf8');
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
