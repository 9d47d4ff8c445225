/**
 * The command line: `tally demo`, `tally chat`, `tally ask "question"` (src/ask/), `tally slack`,
 * `tally discord`, `tally schedules`, `tally eval`, `tally export-training`. Builds tally through
 * create-tally.ts and connects it to the console or a chat platform.
 */

import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ConsoleAdapter } from '../adapters/console/console-adapter.js';
import { askCommand } from './ask/ask-command.js';
import { discordAdapter, slackAdapter } from './chat-adapters.js';
import { type DiscordSettings, loadConfig, type SlackSettings } from './config.js';
import { createTally } from './create-tally.js';
import { DEMO_REQUEST, DEMO_REVIEW, demoScript } from './demo/demo-script.js';
import { startScriptedModelServer } from './demo/scripted-model-server.js';
import { AppError, EvalInputError } from './errors.js';
import { evalCommand } from './eval/eval-command.js';
import { createLlmClient } from './llm/create-llm-client.js';
import { createLogger } from './logger.js';
import { policyCommand } from './policy/policy-command.js';
import { schedulesCommand } from './schedules/schedules-command.js';
import { serveChat } from './serve-chat.js';
import { createStore } from './store/create-store.js';
import { exportTraining } from './training/export-training.js';

const USAGE = `usage: tally <command>
  demo                 the telco demo: a full agent turn in the console (no model needed)
  chat                 talk to tally in this terminal (needs LLM_BASE_URL)
  ask "question" [--db URL] [--out DIR] [--review accept|discard|stop] [--approve run|skip] [--json]
                       one question, answered without anyone at the keyboard (needs LLM_BASE_URL):
                       --review decides every drafted section (default accept; stop leaves the
                       first draft undecided), --approve every cell held for approval (without it
                       a held cell ends the run), --db reads that database (like DATABASE_URL),
                       --out saves the charts and the report (report.md, .html, .ipynb) there,
                       --json prints one JSON object on stdout (the rest goes to stderr).
                       Exit 0 answered, 1 the agent gave up or failed, 2 bad input or
                       configuration (also: a question it asks back, a cell held without
                       --approve), 3 out of scope
  slack                connect to Slack (SLACK_BOT_TOKEN, and SLACK_APP_TOKEN or
                       SLACK_SIGNING_SECRET; needs LLM_BASE_URL); runs until stopped
  discord              connect to Discord (DISCORD_TOKEN; needs LLM_BASE_URL); runs until stopped
  schedules list       the schedules of TALLY_SCHEDULES with their next due times, in their time zones
  schedules run NAME   run one schedule now: connects to its platform like slack/discord, opens its
                       thread and runs it; exits when it is done or waits for review in the thread
  eval --suite dabench|golden [--cases 1-40,77] [--concurrency N] [--model NAME] [--out DIR]
                       measure the agent on questions with known answers (see the README,
                       Evaluating tally); eval --compare A B puts two runs side by side
  policy explain --user ID [--channel ID | --dm] [--groups ID,ID] [--platform slack|discord|console]
                       what that person may read there under TALLY_POLICY, column by column,
                       and which rule decides (see the README, Who sees what)
  export-training --out FILE.jsonl
                       fine-tuning data from reviewed work: accepted sections as chat
                       examples in FILE.jsonl, revised versions paired with the accepted
                       ones in FILE.preferences.jsonl
  help                 this text
Charts and report exports are saved under $TALLY_HOME (default .tally).`;

/** Where `tally slack` and `tally discord` serve /healthz, /readyz and /metrics unless TALLY_HTTP_PORT says otherwise. */
const DEFAULT_HTTP_PORT = 9464;

/** `tally export-training --out FILE.jsonl`: reads the store only (no sandbox, no database). */
async function exportTrainingCommand(words: string[]): Promise<number> {
  const out = words[0] === '--out' && words.length === 2 ? words[1] : undefined;
  if (!out) {
    process.stderr.write(`export-training needs --out FILE.jsonl\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  const store = await createStore({
    redisUrl: config.redisUrl,
    keyPrefix: config.redisPrefix,
    sqlitePath: join(config.home, 'state.db'),
    logger,
  });
  try {
    const result = await exportTraining(store, out);
    process.stdout.write(
      `${result.examples} examples from ${result.sessions} sessions -> ${result.examplesPath}\n` +
        `${result.preferences} preference pairs -> ${result.preferencesPath}\n`,
    );
  } finally {
    await store.close();
  }
  return 0;
}

/** `tally slack` / `tally discord`: serves the platform until SIGINT or SIGTERM. */
async function chatCommand(platform: 'slack' | 'discord'): Promise<number> {
  const config = loadConfig(process.env);
  const slack = config.slack;
  const discord = config.discord;
  if (platform === 'slack' ? !slack : !discord) {
    const needs =
      platform === 'slack' ? 'SLACK_BOT_TOKEN and SLACK_APP_TOKEN (or SLACK_SIGNING_SECRET)' : 'DISCORD_TOKEN';
    process.stderr.write(`tally ${platform} needs ${needs}; see the README\n`);
    return 2;
  }
  if (!config.llm.baseUrl) {
    process.stderr.write(`tally ${platform} needs a model: set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL)\n`);
    return 2;
  }
  const logger = createLogger({ level: config.logLevel });
  const service = await serveChat({
    config,
    logger,
    defaultHttpPort: DEFAULT_HTTP_PORT,
    requireReadonly: true,
    llm: createLlmClient(config.llm, logger.child({ component: 'llm' })),
    platform,
    createAdapter: (context) =>
      platform === 'slack'
        ? slackAdapter(slack as SlackSettings, logger, context)
        : discordAdapter(discord as DiscordSettings, logger, context),
  });
  logger.info({ platform, metrics: service.tally.ops?.url }, 'tally is connected');
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // A second signal does not wait for the running turns (their messages stay in the inbox).
  const hurry = () => process.exit(1);
  process.once('SIGINT', hurry);
  process.once('SIGTERM', hurry);
  logger.info({ signal, graceMs: config.operations.shutdownGraceMs }, 'stopping: letting running turns finish');
  await service.close();
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command = 'help', ...rest] = argv;
  if (command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'export-training') return exportTrainingCommand(rest);
  if (command === 'eval') {
    return evalCommand(rest, (line) => process.stdout.write(`${line}\n`)).catch((error: unknown) => {
      if (!(error instanceof EvalInputError)) throw error;
      process.stderr.write(`${error.message}\n`);
      return 2;
    });
  }
  if (command === 'slack' || command === 'discord') return chatCommand(command);
  if (command === 'schedules') return schedulesCommand(rest);
  if (command === 'policy') return policyCommand(rest, (line) => process.stdout.write(`${line}\n`));
  if (command === 'ask') {
    return askCommand(rest, {
      env: process.env,
      stdout: process.stdout,
      stderr: process.stderr,
      openConsole: (options) => new ConsoleAdapter({ ...options, input: Readable.from([]), prompt: false }),
    });
  }
  if (command !== 'demo' && command !== 'chat') {
    process.stderr.write(`unknown command '${command}'\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const interactive = command === 'chat';
  // chat goes on with the same thread across runs; the demo starts a new one each time.
  const adapter = new ConsoleAdapter({
    input: interactive ? process.stdin : Readable.from([]),
    output: process.stdout,
    chartDir: join(config.home, command === 'demo' ? 'demo' : 'charts'),
    fileDir: join(config.home, command === 'demo' ? join('demo', 'report') : 'reports'),
    prompt: interactive,
    threadKey: interactive ? 'console:local:chat' : `console:local:${command}-${Date.now()}`,
  });
  // Without a model the demo runs a recorded script in the model's place; chat needs one.
  const scripted =
    command === 'demo' && config.llm.baseUrl === undefined
      ? await startScriptedModelServer({ script: demoScript() })
      : undefined;
  if (scripted) {
    print('No LLM_BASE_URL is set: a recorded script stands in for the model (set LLM_BASE_URL, LLM_API_KEY and');
    print('LLM_MODEL to use a real one). The database, the sandbox and the agent are real.\n');
  }
  const llm = createLlmClient(
    scripted ? { ...config.llm, baseUrl: scripted.url, model: 'scripted-demo' } : config.llm,
    logger.child({ component: 'llm' }),
  );
  const tally = await createTally({
    config,
    logger,
    llm,
    post: (threadKey, post) => adapter.post(threadKey, post),
    say: print,
  });
  adapter.onInbound((inbound) => tally.router.handle(inbound));
  try {
    if (interactive) {
      print(
        'tally: ask about your data. "set key=value" changes settings, ```python blocks run as they are, "stop" cancels.',
      );
      await adapter.start();
      await adapter.finished;
    } else {
      // The demo plays the reviewer too: it revises the first section, accepts, and exports.
      for (const text of [DEMO_REQUEST, ...DEMO_REVIEW]) {
        print(`\nyou> ${text}\n`);
        await tally.router.handle({
          threadKey: adapter.threadKey,
          user: { id: 'local' },
          text,
          receivedAt: Date.now(),
        });
      }
    }
  } finally {
    await tally.close();
    await scripted?.close();
  }
  return 0;
}

/** Errors that are the operator's to fix in the configuration: exit code 2, like bad arguments. */
const CONFIGURATION_ERRORS = new Set([
  'CONFIG_INVALID',
  'DATABASE_ACCOUNT_NOT_READONLY',
  'SCHEDULES_INVALID',
  'POLICY_INVALID',
]);

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof AppError ? error.message : error instanceof Error ? error.stack : String(error);
    process.stderr.write(`tally: ${message}\n`);
    process.exit(error instanceof AppError && CONFIGURATION_ERRORS.has(error.code) ? 2 : 1);
  },
);
