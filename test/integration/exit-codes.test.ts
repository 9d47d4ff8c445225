/**
 * The README's exit-code table, run: each row this test can set up (help, an unknown flag, no model, an
 * unreachable database, a bad configuration value) is read from the README and every command it names is run as
 * a process, the way a newcomer would, expecting the documented code. The other rows are covered where their
 * cause lives: ask's outcomes (ask-cli), the account check (account-check), bad schedules and policy files
 * (schedule-file, policy-cli), the agent giving up (agent-scenarios).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
let home: string;

/** How each command is called when a row names it. */
const INVOCATIONS: Record<string, string[]> = {
  demo: ['demo'],
  chat: ['chat'],
  ask: ['ask', 'How many customers are there?'],
  slack: ['slack'],
  discord: ['discord'],
  schedules: ['schedules', 'list'],
  eval: ['eval', '--suite', 'dabench', '--cases', '1'],
  'export-training': ['export-training', '--out', 'training.jsonl'],
  policy: ['policy', 'explain', '--user', 'U1'],
  audit: ['audit'],
  forget: ['forget', '--user', 'U1'],
  knowledge: ['knowledge', 'check'],
  help: ['help'],
};
const EVERY = Object.keys(INVOCATIONS);

/** What each row this test runs needs: more arguments, more environment. */
const SET_UPS: Record<string, { args?: string[]; env?: Record<string, string> }> = {
  '`--help`, `-h`': { args: ['--help'] },
  'an unknown flag': { args: ['--frobnicate'] },
  'no `LLM_BASE_URL`': {},
  'an unreachable `DATABASE_URL`': {
    env: { DATABASE_URL: 'mysql://nobody@127.0.0.1:9/nothing', LLM_BASE_URL: 'http://127.0.0.1:9/v1' },
  },
  'a bad configuration value (e.g. `TALLY_SANDBOX_CPUS=lots`)': { env: { TALLY_SANDBOX_CPUS: 'lots' } },
};

/** Platform tokens, so slack and discord get as far as the cause under test. */
const PLATFORMS = { SLACK_BOT_TOKEN: 'xoxb-unused', SLACK_APP_TOKEN: 'xapp-unused', DISCORD_TOKEN: 'unused' };

interface Row {
  cause: string;
  commands: string[];
  code: number;
}

async function readTable(): Promise<Row[]> {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Exit codes');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
  return [...section.matchAll(/^\| (.+?) \| (.+?) \| (\d) \|$/gm)].map(([, cause = '', commands = '', code = '']) => ({
    cause,
    commands: commands.startsWith('every command but ')
      ? EVERY.filter((command) => !commands.includes(`\`${command}\``))
      : commands === 'every command'
        ? EVERY
        : [...commands.matchAll(/`([a-z-]+)(?: [a-z]+)?`/g)].map((match) => match[1] ?? ''),
    code: Number(code),
  }));
}

async function tally(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  return run(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'src', 'cli', 'main.ts'), ...args], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TALLY_HOME: home, LOG_LEVEL: 'silent', ...env },
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout + stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      out: (error.stdout ?? '') + (error.stderr ?? ''),
    }),
  );
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'tally-exit-codes-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe("the README's exit codes", () => {
  it('hold for every command of every row this test can set up', async () => {
    const rows = (await readTable()).filter((row) => SET_UPS[row.cause]);
    expect(rows.map((row) => row.cause).sort()).toEqual(Object.keys(SET_UPS).sort());
    const runs = rows.flatMap((row) =>
      row.commands.map((command) => ({ row, command, setUp: SET_UPS[row.cause] ?? {} })),
    );
    expect(runs.length).toBeGreaterThan(30);
    const failures: string[] = [];
    // Two at a time: each is a Node process starting tsx.
    for (let at = 0; at < runs.length; at += 2) {
      await Promise.all(
        runs.slice(at, at + 2).map(async ({ row, command, setUp }) => {
          const args = [...(INVOCATIONS[command] ?? [command]), ...(setUp.args ?? [])];
          const result = await tally(args, { ...PLATFORMS, ...setUp.env });
          if (result.code !== row.code) {
            failures.push(
              `${row.cause}: tally ${args.join(' ')} exited ${result.code}, not ${row.code}: ${result.out.slice(0, 300)}`,
            );
          }
          if (row.cause.startsWith('`--help`') && !result.out.startsWith('usage: ')) {
            failures.push(`tally ${args.join(' ')} printed no usage: ${result.out.slice(0, 200)}`);
          }
        }),
      );
    }
    expect(failures).toEqual([]);
  }, 600_000);
});
