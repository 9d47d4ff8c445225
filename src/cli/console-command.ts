/**
 * `tally demo` and `tally chat [--new]`: tally in this terminal, through the console adapter. The
 * demo plays a request and its review in a thread of its own, with a recorded script in the model's
 * place when no LLM_BASE_URL is set. Chat reads what is typed, in the thread it talked in last
 * (chat-thread.ts), until `exit`, `quit` or Ctrl-D. Ctrl-C, a closed terminal or SIGTERM cancels
 * the running turn and disposes the session's container and disk image before the process exits
 * (watch-signals.ts).
 */
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ConsoleAdapter } from '../../adapters/console/console-adapter.js';
import { loadConfig } from '../base/config.js';
import { createLogger } from '../base/logger.js';
import { DEMO_REQUEST, DEMO_REVIEW, demoScript } from '../demo/demo-script.js';
import { startScriptedModelServer } from '../demo/scripted-model-server.js';
import { createLlmClient } from '../llm/create-llm-client.js';
import { type SessionRecord, sessionKey } from '../sessions/session-record.js';
import { createTally, type Tally } from '../wiring/create-tally.js';
import { currentChatThread, startChatThread } from './chat-thread.js';
import { type SignalWatch, watchSignals } from './watch-signals.js';

/** Runs `tally demo` or `tally chat …words`; resolves with the process's exit code. */
export async function consoleCommand(command: 'demo' | 'chat', words: string[]): Promise<number> {
  const fresh = command === 'chat' && words.length === 1 && words[0] === '--new';
  if (words.length > 0 && !fresh) {
    const takes = command === 'chat' ? 'chat takes only --new' : 'demo takes no arguments';
    process.stderr.write(`tally ${command}: unexpected '${words.join(' ')}' (${takes})\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const signals = watchSignals({ say: (line) => process.stderr.write(`\n${line}\n`) });
  try {
    const interactive = command === 'chat';
    // The demo starts a new thread each time; chat goes on with its latest across runs.
    const threadKey = !interactive
      ? `console:local:demo-${Date.now()}`
      : fresh
        ? await startChatThread(config.home)
        : await currentChatThread(config.home);
    const adapter = new ConsoleAdapter({
      input: interactive ? process.stdin : Readable.from([]),
      output: process.stdout,
      chartDir: join(config.home, interactive ? 'charts' : 'demo'),
      fileDir: join(config.home, interactive ? 'reports' : join('demo', 'report')),
      prompt: interactive,
      threadKey,
      ...(interactive ? { newThread: () => startChatThread(config.home) } : {}),
    });
    // Without a model the demo runs a recorded script in the model's place; chat needs one.
    const scripted =
      !interactive && config.llm.baseUrl === undefined
        ? await startScriptedModelServer({ script: demoScript() })
        : undefined;
    try {
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
        post: (key, post) => adapter.post(key, post),
        say: print,
        sweepRetention: interactive,
      });
      adapter.onInbound((inbound) => tally.router.handle(inbound));
      try {
        // A signal during start-up (building the database, starting the sandbox) ends it here.
        if (!signals.received) {
          const work = interactive ? chat(tally, adapter, fresh, print) : demo(tally, adapter, signals, print);
          await untilDoneOrInterrupted(work, tally, adapter, signals);
        }
      } finally {
        await tally.close();
      }
    } finally {
      await scripted?.close();
    }
    return signals.received?.exitCode ?? 0;
  } finally {
    signals.dispose();
  }
}

/** The conversation in this terminal, until the input ends or `exit` is typed. */
async function chat(tally: Tally, adapter: ConsoleAdapter, fresh: boolean, print: (line: string) => void) {
  const resumed = !fresh && (await tally.store.get<SessionRecord>(sessionKey(adapter.threadKey))) !== undefined;
  print(
    'tally: ask about your data. "set key=value" changes settings, ```python blocks run as they are, "stop" cancels.',
  );
  print(
    `${resumed ? 'Resuming thread' : 'New thread'} ${adapter.threadKey} ("new" starts another). ` +
      '"help" lists the commands; exit, quit or Ctrl-D ends the session.',
  );
  await adapter.start();
  await adapter.finished;
}

/** The demo plays the reviewer too: it revises the first section, accepts, and exports. */
async function demo(tally: Tally, adapter: ConsoleAdapter, signals: SignalWatch, print: (line: string) => void) {
  for (const text of [DEMO_REQUEST, ...DEMO_REVIEW]) {
    if (signals.received) return;
    print(`\nyou> ${text}\n`);
    await tally.router.handle({ threadKey: adapter.threadKey, user: { id: 'local' }, text, receivedAt: Date.now() });
  }
}

/**
 * Waits for the work; at a signal, cancels the running turn and stops reading first, so closing
 * tally (which disposes the kernels) does not wait for a cell or a model reply.
 */
async function untilDoneOrInterrupted(
  work: Promise<void>,
  tally: Tally,
  adapter: ConsoleAdapter,
  signals: SignalWatch,
): Promise<void> {
  await Promise.race([work, signals.interrupted]);
  if (!signals.received) return;
  await tally.router.cancel();
  await adapter.stop();
  await work.catch(() => {});
}
