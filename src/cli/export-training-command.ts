/** `tally export-training --out FILE.jsonl` (or `--out=FILE.jsonl`): reads the store only (no sandbox, no database). */

import { loadConfig } from '../base/config.js';
import { createLogger } from '../base/logger.js';
import { storeOf } from '../store/create-store.js';
import { exportTraining } from '../training/export-training.js';
import { commandUsage } from './cli-usage.js';

/** The output file of `--out FILE` or `--out=FILE`, or why the words are not that. */
export function parseExportFlags(words: readonly string[]): { out: string } | { problem: string } {
  const [first = '', second] = words;
  if (first.startsWith('--out=') && words.length === 1 && first.length > '--out='.length) {
    return { out: first.slice('--out='.length) };
  }
  if (first === '--out' && second && !second.startsWith('--') && words.length === 2) return { out: second };
  const unknown = words.find((word) => word.startsWith('-') && word !== '--out' && !word.startsWith('--out='));
  return { problem: unknown ? `unknown flag ${unknown}` : 'needs --out FILE.jsonl' };
}

export async function exportTrainingCommand(words: string[]): Promise<number> {
  const flags = parseExportFlags(words);
  if ('problem' in flags) {
    process.stderr.write(`tally export-training: ${flags.problem}\n${commandUsage('export-training')}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  const store = await storeOf(config, logger);
  try {
    const result = await exportTraining(store, flags.out);
    process.stdout.write(
      `${result.examples} examples from ${result.sessions} sessions -> ${result.examplesPath}\n` +
        `${result.preferences} preference pairs -> ${result.preferencesPath}\n`,
    );
  } finally {
    await store.close();
  }
  return 0;
}
