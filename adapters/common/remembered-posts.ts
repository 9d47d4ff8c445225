/**
 * What an adapter needs to know later about a post it made (which review or held cell a message
 * is), so reactions and Edit still work after a restart: kept in memory and, when given, in the
 * store (the `Store` port satisfies `PostMemory`) for 30 days. The memory holds the most recent
 * ones only (a service runs for months; the store has the rest).
 */
import { REMEMBERED_POST_PREFIX } from '../../src/ports/chat.js';

export interface PostMemory {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T, ttlMs?: number): Promise<void>;
  delete?(key: string): Promise<void>;
}

const KEEP_MS = 30 * 24 * 60 * 60_000;
/** Posts kept in memory at most, the most recently used. */
const IN_MEMORY = 2_000;

export class RememberedPosts<T> {
  private readonly local = new Map<string, T>();

  constructor(
    /** Names the platform in the store's keys, e.g. `slack`. */
    private readonly platform: string,
    private readonly memory?: PostMemory,
  ) {}

  async remember(id: string, value: T): Promise<void> {
    this.keep(id, value);
    await this.memory?.set(this.key(id), value, KEEP_MS);
  }

  async recall(id: string): Promise<T | undefined> {
    const known = this.local.get(id);
    if (known !== undefined) {
      this.keep(id, known);
      return known;
    }
    const kept = await this.memory?.get<T>(this.key(id));
    if (kept !== undefined) this.keep(id, kept);
    return kept;
  }

  /** Keeps the post in memory as the most recent, letting the least recently used go past the cap. */
  private keep(id: string, value: T): void {
    this.local.delete(id);
    this.local.set(id, value);
    if (this.local.size > IN_MEMORY) {
      const oldest = this.local.keys().next().value;
      if (oldest !== undefined) this.local.delete(oldest);
    }
  }

  private key(id: string): string {
    return `${REMEMBERED_POST_PREFIX}${this.platform}:${id}`;
  }
}
