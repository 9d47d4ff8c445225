/**
 * The durable inbox: every inbound message is written to the store before its turn starts and
 * marked done when the turn ends, so a message being worked on when a process dies is picked up
 * again (by a restarted process, or by another replica) instead of being lost. Chat platforms do not
 * redeliver an event they had acknowledged; one whose acknowledgement was lost (a write slower than
 * Slack's 3 s, a connection dropped before the ack, a gateway replay) comes again with the same
 * message id, and `addOnce` writes it down once.
 *
 * Per thread: the list `inbox:<thread>` of messages in arrival order, `inbox-done:<thread>` (how many
 * of them are finished) and `inbox-begun:<thread>` (the one a turn began on, and how often). Only
 * the holder of the thread's lock reads and moves these, so each message runs at most once (again
 * only when the turn that ran it never finished). The list `inbox:all` names every message's thread,
 * so a process finds unfinished threads without knowing them; `inbox:all-cursor` skips its finished
 * head. `inbox-received:<thread>:<message id>` says a platform message was written down (for an hour,
 * past Slack's last retry at about 5 minutes).
 */
import type { Inbound, SharedFile, ThreadKey } from '../ports/chat.js';
import type { Store } from '../ports/store.js';

/** An inbound message as the store keeps it: shared files by name only (their download is not data). */
export type StoredInbound = Omit<Inbound, 'files' | 'received'> & { files?: Array<Omit<SharedFile, 'download'>> };

export interface InboxItem {
  id: string;
  inbound: StoredInbound;
  addedAt: number;
}

/** The next message a thread's lock holder should run. */
export interface NextMessage {
  item: InboxItem;
  /** Its position in the thread's inbox. */
  index: number;
  /** A turn began on it before and never finished: the process died, or was stopped, meanwhile. */
  interrupted: boolean;
  /** Turns that began on it before this one. */
  attempts: number;
}

interface Begun {
  index: number;
  attempts: number;
  /** Put back on purpose (no kernel could start): trying again is no restart. */
  deferred?: boolean;
}

/** What the inbox keeps of a thread: names, and prefixes of names (for the eraser). */
export const inboxNames = (threadKey: ThreadKey) => ({
  names: [listKey(threadKey), doneKey(threadKey), begunKey(threadKey)],
  prefixes: [`inbox-edit:${threadKey}:`, `inbox-received:${threadKey}:`],
});

/** How long a platform message id is remembered as written down: past Slack's last retry (about 5 minutes). */
const REDELIVERY_MS = 60 * 60_000;

// In a Redis Cluster: one list on one master that every new message is appended to (one short script each), by design.
const ALL = 'inbox:all';
const CURSOR = 'inbox:all-cursor';
const listKey = (threadKey: ThreadKey) => `inbox:${threadKey}`;
const doneKey = (threadKey: ThreadKey) => `inbox-done:${threadKey}`;
const begunKey = (threadKey: ThreadKey) => `inbox-begun:${threadKey}`;
const editKey = (threadKey: ThreadKey, index: number) => `inbox-edit:${threadKey}:${index}`;
const receivedKey = (threadKey: ThreadKey, messageId: string) => `inbox-received:${threadKey}:${messageId}`;

/** What became of an edit: it changed a message still waiting, or the message had run (or was running). */
export type EditResult = 'queued' | 'ran' | 'unknown';

export class Inbox {
  constructor(private readonly store: Store) {}

  /** Writes a message down; resolves once it is in the store (and on the replicas the store waits for). */
  async add(inbound: Inbound, id: string, now = Date.now()): Promise<InboxItem> {
    const { files, received: _, ...rest } = inbound;
    const stored: StoredInbound = {
      ...rest,
      ...(files?.length ? { files: files.map(({ name, mime, sizeBytes }) => ({ name, mime, sizeBytes })) } : {}),
    };
    const item: InboxItem = { id, inbound: stored, addedAt: now };
    const length = await this.store.append(listKey(inbound.threadKey), item);
    await this.store.append(ALL, { threadKey: inbound.threadKey, index: length - 1 });
    await this.store.durable(); // a replica holds it before the platform hears "received"
    return item;
  }

  /**
   * Writes down a message the platform identified by `messageId`, unless it was written down already (the platform
   * delivered it again): undefined then. Replicas that receive the same delivery at once write it once. `first`
   * runs before the write, only for a first delivery (the files shared with it are kept then).
   */
  async addOnce(
    inbound: Inbound,
    id: string,
    messageId: string,
    now = Date.now(),
    first: () => Promise<void> = async () => {},
  ): Promise<InboxItem | undefined> {
    const key = receivedKey(inbound.threadKey, messageId);
    return this.store.withLock(key, async () => {
      if ((await this.store.get(key)) !== undefined) return undefined;
      await first();
      const item = await this.add(inbound, id, now);
      await this.store.set(key, id, REDELIVERY_MS);
      return item;
    });
  }

  /** The thread's first unfinished message, if any (as last edited). Call it holding the thread's lock. */
  async next(threadKey: ThreadKey): Promise<NextMessage | undefined> {
    const index = await this.doneCount(threadKey);
    const [item] = await this.store.range<InboxItem>(listKey(threadKey), index, 1);
    if (!item) return undefined;
    const edited = await this.store.get<string>(editKey(threadKey, index));
    if (edited !== undefined) item.inbound.text = edited;
    const begun = await this.store.get<Begun>(begunKey(threadKey));
    const before = begun?.index === index ? begun : undefined;
    return {
      item,
      index,
      interrupted: before !== undefined && !before.deferred,
      attempts: before?.attempts ?? 0,
    };
  }

  /**
   * The person edited their message `messageId`: while it waits its turn, the edit replaces its text
   * (`queued`); once a turn began on it, it is `ran`. A message tally never received is `unknown`.
   */
  async edit(threadKey: ThreadKey, messageId: string, text: string): Promise<EditResult> {
    const items = await this.store.range<InboxItem>(listKey(threadKey));
    const index = items.findLastIndex((item) => item.inbound.messageId === messageId && !item.inbound.edited);
    if (index < 0) return 'unknown';
    const begun = await this.store.get<Begun>(begunKey(threadKey));
    const started = begun !== undefined && begun.index >= index && !(begun.index === index && begun.deferred);
    if (index < (await this.doneCount(threadKey)) || started) return 'ran';
    await this.store.set(editKey(threadKey, index), text);
    return 'queued';
  }

  /** A turn begins on the message. */
  async begin(threadKey: ThreadKey, next: NextMessage): Promise<void> {
    await this.store.set<Begun>(begunKey(threadKey), { index: next.index, attempts: next.attempts + 1 });
  }

  /** The message's turn ended (answered, or failed honestly): it is never run again. */
  async finish(threadKey: ThreadKey, next: NextMessage): Promise<void> {
    await this.store.set(doneKey(threadKey), next.index + 1);
  }

  /** Puts the message back to run later, without counting it as interrupted. */
  async defer(threadKey: ThreadKey, next: NextMessage): Promise<void> {
    await this.store.set<Begun>(begunKey(threadKey), { index: next.index, attempts: next.attempts, deferred: true });
  }

  /**
   * Drops the finished head of the list of every message (it only grows otherwise); positions stay, so
   * the cursor stays right. Returns how many entries went.
   */
  async compact(): Promise<number> {
    const cursor = (await this.store.get<number>(CURSOR)) ?? 0;
    return cursor > 0 ? this.store.trim(ALL, cursor) : 0;
  }

  /** The messages of a thread, oldest first. */
  items(threadKey: ThreadKey): Promise<InboxItem[]> {
    return this.store.range<InboxItem>(listKey(threadKey));
  }

  /** Replaces a thread's messages (positions kept: replace, never drop). Call it holding the thread's lock. */
  async rewrite(threadKey: ThreadKey, items: InboxItem[]): Promise<void> {
    await this.store.delete(listKey(threadKey));
    for (const item of items) await this.store.append(listKey(threadKey), item);
  }

  /** Threads with unfinished messages, oldest first. */
  async unfinishedThreads(): Promise<ThreadKey[]> {
    const cursor = (await this.store.get<number>(CURSOR)) ?? 0;
    const entries = await this.store.range<{ threadKey: ThreadKey; index: number }>(ALL, cursor);
    const done = new Map<ThreadKey, number>();
    const unfinished = new Set<ThreadKey>();
    let finishedHead = 0;
    for (const entry of entries) {
      if (!done.has(entry.threadKey)) done.set(entry.threadKey, await this.finishedUpTo(entry.threadKey));
      if (entry.index < (done.get(entry.threadKey) ?? 0)) {
        if (unfinished.size === 0) finishedHead += 1;
      } else unfinished.add(entry.threadKey);
    }
    // Any value written here was a finished prefix when computed, so a race between replicas only
    // leaves the cursor further back than it could be.
    if (finishedHead > 0) await this.store.set(CURSOR, cursor + finishedHead);
    return [...unfinished];
  }

  /** How many of a thread's messages are finished; all of them when the thread was erased meanwhile. */
  private async finishedUpTo(threadKey: ThreadKey): Promise<number> {
    const done = await this.doneCount(threadKey);
    const [pending] = await this.store.range<InboxItem>(listKey(threadKey), done, 1);
    return pending ? done : Number.POSITIVE_INFINITY;
  }

  private async doneCount(threadKey: ThreadKey): Promise<number> {
    return (await this.store.get<number>(doneKey(threadKey))) ?? 0;
  }
}
