/**
 * What `tally help`, `tally <command> --help` and `-h` print: one usage text per command, and the whole list.
 * Asking for help runs nothing and exits 0.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const EXIT_CODES = `Exit codes (every command): 0 done, 1 failed (the agent gave up, or an unexpected error),
2 configuration or bad input, or a dependency that cannot be reached (a database, the Docker engine,
the store, no LLM_BASE_URL), 3 out of scope (ask: the data cannot answer it).`;

export const COMMAND_USAGE: Readonly<Record<string, string>> = {
  demo: `tally demo
  the telco demo: a full reviewed analysis in the console, on embedded defaults (no model needed:
  without LLM_BASE_URL a recorded script stands in for it)`,
  chat: `tally chat [--new]
  talk to tally in this terminal (needs LLM_BASE_URL); goes on with the last chat thread, or a new one
  with --new; in the session, help lists the chat commands and exit, quit or Ctrl-D ends it`,
  ask: `tally ask "question" [--file PATH]… [--db URL] [--out DIR] [--review accept|discard|stop] [--approve run|skip]
  [--json]
  one question, answered without anyone at the keyboard (needs LLM_BASE_URL):
  --file shares a data file (CSV, TSV, Excel, JSON) with the question, as in Slack or Discord (repeatable),
  --review decides every drafted section (default accept; stop leaves the first draft undecided),
  --approve every cell held for approval (without it a held cell ends the run),
  --db reads that database (like DATABASE_URL),
  --out saves the charts and the report (report.md, .html, .ipynb) there,
  --json prints one JSON object on stdout (the rest goes to stderr).
  Exit 0 answered, 1 the agent gave up or failed, 2 bad input or configuration (also: a question it
  asks back, a cell held without --approve, nothing granted by the access policy), 3 out of scope`,
  slack: `tally slack
  connect to Slack (SLACK_BOT_TOKEN, and SLACK_APP_TOKEN or SLACK_SIGNING_SECRET; needs LLM_BASE_URL);
  runs until stopped, with its schedules (TALLY_SCHEDULES)`,
  discord: `tally discord
  connect to Discord (DISCORD_TOKEN; needs LLM_BASE_URL); runs until stopped, with its schedules`,
  schedules: `tally schedules list | tally schedules run NAME
  list: the schedules of TALLY_SCHEDULES with their next due times, in their time zones
  run NAME: run one schedule now: connects to its platform like slack/discord, opens its thread and
  runs it; exits when it is done or waits for review in the thread`,
  eval: `tally eval --suite dabench|golden [--cases 1-40,77] [--concurrency N] [--model NAME] [--out DIR]
           [--data DIR] [--case-seconds S] [--case-tokens N]
tally eval --compare RUN_DIR_A RUN_DIR_B
  measure the agent on questions with known answers (see the README, Evaluating tally)`,
  policy: `tally policy explain --user ID [--channel ID | --dm] [--groups ID,ID] [--platform slack|discord|console] [--guild ID]
  what that person may read there under TALLY_POLICY, column by column, and which rule decides`,
  audit: `tally audit [--since 7d|2026-11-01] [--user ID] [--db NAME] [--thread KEY] [--json] | tally audit verify
  the audit trail: every data access, shared file, export, model request, refusal and deletion, with who,
  where and what (never message text or rows); --json prints JSON Lines for export;
  verify checks the hash chain and names the first record that was altered or removed (exit 1)`,
  forget: `tally forget --user ID | tally forget --thread THREAD_KEY
  deletion on request: that person's (or thread's) messages, sessions, conversations, logs, reports,
  workspaces and playbooks go from the store, TALLY_HOME and the playbooks folder; training exports
  are written again without them; the audit keeps that the deletion happened (who asked, scope, counts)`,
  knowledge: `tally knowledge check
  the knowledge store (TALLY_KNOWLEDGE_DIR, and tally's own telco set) against the configured databases:
  every table and column it names exists, every verified query passes the guard and runs with LIMIT 0;
  exit 1 naming what is stale`,
  'export-training': `tally export-training --out FILE.jsonl
  fine-tuning data from reviewed work: accepted sections as chat examples in FILE.jsonl, revised
  versions paired with the accepted ones in FILE.preferences.jsonl (reads the store only)`,
  help: `tally help [COMMAND]
  this text, or one command's (also: tally COMMAND --help, -h); tally --version prints the version`,
};

/** The whole list, for `tally help`. */
export function usage(): string {
  const commands = Object.values(COMMAND_USAGE).join('\n\n');
  return `usage: tally <command> [flags]\n\n${commands}\n\n${EXIT_CODES}\nCharts and report exports are saved under $TALLY_HOME (default .tally).`;
}

/** One command's usage, with the exit codes. */
export function commandUsage(command: string): string | undefined {
  const text = COMMAND_USAGE[command];
  return text === undefined ? undefined : `usage: ${text}\n\n${EXIT_CODES}`;
}

/** `--help` or `-h` anywhere among a command's words. */
export function wantsHelp(words: readonly string[]): boolean {
  return words.includes('--help') || words.includes('-h');
}

/** The version in package.json. */
export function version(): string {
  const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}
