/**
 * tally connected to a chat platform: the composition of tally (create-tally.ts) with one adapter,
 * wired both ways. `tally slack` and `tally discord` run through here, and so do the end-to-end tests.
 */
import { type CreateTallyOptions, createTally, type Tally } from './create-tally.js';
import type { ChatAdapter, ThreadKey } from './ports/chat.js';
import type { Store } from './ports/store.js';
import { type SessionRecord, sessionKey } from './sessions/session-record.js';

export interface ChatService<A extends ChatAdapter> {
  tally: Tally;
  adapter: A;
  close(): Promise<void>;
}

export async function serveChat<A extends ChatAdapter>(
  options: Omit<CreateTallyOptions, 'post'> & {
    /**
     * Builds the adapter; `isKnownThread` says whether a thread has a session in the store, and
     * `memory` is the store, for what the adapter must remember across restarts.
     */
    createAdapter: (isKnownThread: (threadKey: ThreadKey) => Promise<boolean>, memory: Store) => A;
  },
): Promise<ChatService<A>> {
  let adapter: A | undefined;
  const tally = await createTally({
    ...options,
    post: (threadKey, post) => {
      if (!adapter) throw new Error('the chat adapter is not ready');
      return adapter.post(threadKey, post);
    },
  });
  const started = options.createAdapter(
    async (threadKey) => (await tally.store.get<SessionRecord>(sessionKey(threadKey))) !== undefined,
    tally.store,
  );
  adapter = started;
  started.onInbound((inbound) => tally.router.handle(inbound));
  try {
    await started.start();
  } catch (error) {
    await tally.close();
    throw error;
  }
  // What a process that died (or this one, before a restart) left unfinished goes on now.
  tally.router.startRecovering();
  return {
    tally,
    adapter: started,
    /**
     * Graceful: messages that still arrive are written down, not run; running turns get
     * TALLY_SHUTDOWN_GRACE_MS to finish and the rest stay in the inbox for the next process; then
     * the adapter disconnects and every kernel is disposed.
     */
    async close() {
      await tally.router.shutdown(options.config.operations.shutdownGraceMs);
      await started.stop();
      await tally.close();
    },
  };
}
