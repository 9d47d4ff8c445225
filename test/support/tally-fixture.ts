/**
 * The whole of tally for end-to-end tests: real sandbox, real MariaDB (or PostgreSQL) with telco_db, the real
 * `openai` SDK talking to the scripted model server, the store in a temporary TALLY_HOME. What a
 * thread would see is recorded as posts. Everything is cleaned up by close().
 */
import { loadConfig } from '../../src/base/config.js';
import { createLogger } from '../../src/base/logger.js';
import {
  type ScriptedModelServer,
  type ScriptedModelServerOptions,
  type ScriptStep,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { createLlmClient } from '../../src/llm/create-llm-client.js';
import type { Post, SharedFile } from '../../src/ports/chat.js';
import { createTally, type Tally } from '../../src/wiring/create-tally.js';
import { cleanUp } from './clean-up.js';
import { createTestEnvironment, type TestBackend } from './test-environment.js';

export interface PostedMessage {
  threadKey: string;
  post: Post;
}

export interface TallyFixture {
  tally: Tally;
  /** This fixture's own thread, so state kept in a shared Redis never meets another run's. */
  thread: string;
  server: ScriptedModelServer;
  posts: PostedMessage[];
  /** TALLY_HOME of this run. */
  home: string;
  /** Sends a message to a thread and waits until it has been handled. */
  say(text: string, threadKey?: string): Promise<void>;
  /** Sends a message or a click as someone (default U1, the owner of threads U1 starts). */
  send(message: {
    text?: string;
    user?: string;
    action?: { id: string; value: string };
    files?: SharedFile[];
    threadKey?: string;
  }): Promise<void>;
  /** Text of the posts of a thread (charts as "[chart]"). */
  transcript(threadKey?: string): string;
  /** Stops tally but keeps TALLY_HOME and the database, as a process that is stopped would. */
  stop(): Promise<void>;
  /** Starts tally again on the same home, database and instance, with a new script. */
  restart(script: ScriptStep[]): Promise<void>;
  close(): Promise<void>;
}

export async function startTallyFixture(
  script: ScriptStep[],
  env: Record<string, string> = {},
  model: Omit<ScriptedModelServerOptions, 'script'> = {},
  backend: TestBackend = 'mariadb',
): Promise<TallyFixture> {
  const environment = await createTestEnvironment('e2e', backend);
  const { home, instance } = environment;
  const thread = `console:test:${instance}`;
  const posts: PostedMessage[] = [];
  let server = await startScriptedModelServer({ ...model, script });
  let tally: Tally | undefined;

  const start = async () => {
    const config = loadConfig({
      ...environment.env(server.url),
      ...env,
    });
    const logger = createLogger({ level: config.logLevel });
    tally = await createTally({
      config,
      logger,
      llm: createLlmClient(config.llm, logger),
      post: async (threadKey, post) => {
        posts.push({ threadKey, post });
      },
    });
  };
  await start();

  const fixture: TallyFixture = {
    get tally() {
      if (!tally) throw new Error('tally is stopped');
      return tally;
    },
    get server() {
      return server;
    },
    posts,
    thread,
    home,
    async say(text, threadKey = thread) {
      await fixture.send({ text, threadKey });
    },
    async send({ text = '', user = 'U1', action, files, threadKey = thread }) {
      await fixture.tally.router.handle({
        threadKey,
        user: { id: user },
        text,
        receivedAt: Date.now(),
        ...(action ? { action } : {}),
        ...(files ? { files } : {}),
      });
    },
    transcript(threadKey = thread) {
      return posts
        .filter((posted) => posted.threadKey === threadKey)
        .map(({ post }) => (post.kind === 'chart' ? '[chart]' : JSON.stringify(post)))
        .join('\n');
    },
    async stop() {
      await tally?.close();
      tally = undefined;
    },
    async restart(next) {
      await server.close();
      server = await startScriptedModelServer({ ...model, script: next });
      await start();
    },
    async close() {
      await cleanUp(
        () => tally?.close(),
        () => server.close(),
        () => environment.close(),
      );
    },
  };
  return fixture;
}

/** The posts of a kind, in order. */
export function postsOf<K extends Post['kind']>(posts: PostedMessage[], kind: K): Array<Extract<Post, { kind: K }>> {
  return posts.map(({ post }) => post).filter((post): post is Extract<Post, { kind: K }> => post.kind === kind);
}
