/**
 * `tally <args>` as an operator runs it, in its own process, to completion: only the environment given is
 * passed (plus PATH and HOME). For commands that end by themselves (audit, forget, policy, export-training);
 * services that run until stopped go through tally-process.ts.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

export interface TallyRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runTally(args: string[], env: Record<string, string>): Promise<TallyRun> {
  return run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['src/cli/main.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    timeout: 120_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}
