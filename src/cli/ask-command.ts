/**
 * `tally ask "question"`: one question, answered without anyone at the keyboard, for people and
 * for scripts. Reads the flags and the configuration (a mistake is one line on stderr, exit 2),
 * builds tally with the console as its chat, runs the ask (run-ask.ts) and prints what it came to:
 * the thread's transcript and a summary, or with `--json` one JSON object on stdout and everything
 * else on stderr. The exit code says how it ended (ask-result.ts).
 */
import { join } from 'node:path';
import { type AskFlags, parseAskFlags } from '../ask/ask-flags.js';
import { type AskResult, summaryLines } from '../ask/ask-result.js';
import { runAsk } from '../ask/run-ask.js';
import { filesWrittenSince, snapshotFiles } from '../ask/written-files.js';
import { type Config, loadConfig } from '../base/config.js';
import { ConfigError } from '../base/errors.js';
import { createLogger } from '../base/logger.js';
import { createLlmClient } from '../llm/create-llm-client.js';
import { measuredLlm } from '../llm/measured-llm-client.js';
import type { ChatAdapter, Post, ThreadKey } from '../ports/chat.js';
import { NO_METRICS } from '../ports/metrics.js';
import { localSharedFile } from '../sessions/local-shared-file.js';
import { createTally, type Tally } from '../wiring/create-tally.js';
import { isConfigurationError } from './exit-codes.js';
import { watchSignals } from './watch-signals.js';

export interface AskCommandOptions {
  env: NodeJS.ProcessEnv;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The console the thread is shown in (the composition root builds the console adapter). */
  openConsole(options: {
    output: NodeJS.WritableStream;
    chartDir: string;
    fileDir: string;
    threadKey: ThreadKey;
  }): Pick<ChatAdapter, 'post'>;
}

/** Runs `tally ask …`; resolves with the process's exit code. */
export async function askCommand(words: string[], options: AskCommandOptions): Promise<number> {
  const fail = (line: string, code = 2) => {
    options.stderr.write(`tally ask: ${oneLine(line)}\n`);
    return code;
  };
  const flags = parseAskFlags(words);
  if (typeof flags === 'string') return fail(`${flags} (tally ask --help lists the flags)`);
  const files = await Promise.all(flags.files.map((path) => localSharedFile(path))).catch(
    (error: unknown) => (error as Error).message,
  );
  if (typeof files === 'string') return fail(`--file: ${files}`);
  let config: Config;
  try {
    config = loadConfig(options.env, flags.db ? { DATABASE_URL: flags.db } : {});
    const [first, ...rest] = config.databases;
    if (flags.db && first) config = { ...config, databases: [{ ...first, givenBy: '--db' }, ...rest] };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail(error.issues.map((issue) => describeIssue(issue, flags)).join('; '));
  }
  if (!config.llm.baseUrl) return fail('needs a model: set LLM_BASE_URL (and LLM_API_KEY, LLM_MODEL)');
  const transcript = flags.json ? options.stderr : options.stdout;
  const say = (line: string) => transcript.write(`${line}\n`);
  const threadKey = `console:local:ask-${Date.now()}`;
  const chartDir = flags.out ?? join(config.home, 'charts');
  const fileDir = flags.out ?? join(config.home, 'reports');
  const chat = options.openConsole({ output: transcript, chartDir, fileDir, threadKey });
  const posts: Post[] = [];
  const usage = { prompt: 0, completion: 0, modelCalls: 0 };
  const logger = createLogger({ level: config.logLevel, destination: options.stderr });
  const llm = measuredLlm(createLlmClient(config.llm, logger.child({ component: 'llm' })), {
    ...NO_METRICS,
    modelCalled: (_durationMs, tokens) => {
      usage.prompt += tokens.prompt;
      usage.completion += tokens.completion;
      usage.modelCalls += 1;
    },
  });
  const started = performance.now();
  const before = await snapshotFiles([chartDir, fileDir]);
  // Ctrl-C, a closed terminal or SIGTERM: the turn is cancelled and its kernel disposed before exiting.
  const signals = watchSignals({ say: (line) => options.stderr.write(`\n${line}\n`) });
  let tally: Tally;
  try {
    tally = await createTally({
      config,
      logger,
      llm,
      post: async (key, post) => {
        posts.push(post);
        return chat.post(key, post);
      },
      say,
    });
  } catch (error) {
    signals.dispose();
    if (!isConfigurationError(error)) throw error;
    const fromFlag = flags.db && error.code === 'DATABASE_UNAVAILABLE' ? `--db ${hidePassword(flags.db)}: ` : '';
    return fail(`${fromFlag}${error.message}`);
  }
  let result: AskResult;
  try {
    // A signal during start-up ends it here; one while it runs cancels the turn first.
    if (signals.received) return signals.received.exitCode;
    const asking = runAsk(flags, { tally, threadKey, posts, say, files });
    const ended = await Promise.race([asking.then((ran) => ({ ran })), signals.interrupted]);
    if (!('ran' in ended)) {
      await tally.router.cancel();
      await asking.catch(() => {});
      return ended.exitCode;
    }
    const { ran } = ended;
    result = {
      ...ran,
      files: await filesWrittenSince(before, [chartDir, fileDir]),
      modelCalls: usage.modelCalls,
      tokens: { prompt: usage.prompt, completion: usage.completion },
      elapsedMs: Math.round(performance.now() - started),
    };
  } finally {
    await tally.close();
    signals.dispose();
  }
  if (flags.json) options.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    say('');
    for (const line of summaryLines(result)) say(line);
  }
  if (result.message) (result.exitCode === 0 ? transcript : options.stderr).write(`${result.message}\n`);
  return result.exitCode;
}

/** A configuration problem as one line; the database URL is named as the flag it came from. */
function describeIssue(issue: { variable: string; message: string }, flags: AskFlags): string {
  if (issue.variable === 'DATABASE_URL' && flags.db) return `--db ${hidePassword(flags.db)}: ${issue.message}`;
  return `${issue.variable}: ${issue.message}`;
}

/** `mysql://user:secret@host/db` → `mysql://user:***@host/db`: error lines end up in logs. */
function hidePassword(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@]*@/i, '$1:***@');
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
