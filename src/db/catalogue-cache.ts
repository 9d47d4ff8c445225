/**
 * A connector's catalogue kept between calls: read once in bulk, then checked with one cheap fingerprint query (at
 * most every `checkEveryMs`) and read again when the fingerprint moved, after `maxAgeMs` (row counts drift without
 * changing the schema), or when asked for a fresh one. Calls that overlap share one read. A call that asks for what
 * is kept (a turn's prompts) gets it at once while it was checked lately, and leaves the check that is due running
 * for the calls after it: during a conversation no turn waits on the catalogue, and none is told a schema older than
 * its last check.
 */
import type { Catalogue, CatalogueOptions, TableDescription } from '../ports/database.js';

export interface CatalogueCacheOptions {
  /** Least time between two fingerprint checks; calls in between trust what is kept. Default 2000 ms. */
  checkEveryMs?: number;
  /** Read again after this long whatever the fingerprint says (row counts, estimates). Default 600000 ms. */
  maxAgeMs?: number;
  /**
   * A `kept` call gets what is kept at once while its last check is at most this old (a conversation under way);
   * after a longer quiet it waits for the check like any call. Default 60000 ms.
   */
  keptForMs?: number;
  /** Milliseconds now. Default `Date.now`. */
  now?: () => number;
}

export interface CatalogueSource {
  /** Every table with its columns, in a few bulk queries. */
  read(): Promise<TableDescription[]>;
  /** A short text that changes when tables, columns or comments do. */
  fingerprint(): Promise<string>;
}

interface Kept {
  catalogue: Catalogue;
  readAt: number;
  checkedAt: number;
}

export class CatalogueCache {
  private kept: Kept | undefined;
  private pending: Promise<Catalogue> | undefined;
  private readonly checkEveryMs: number;
  private readonly maxAgeMs: number;
  private readonly keptForMs: number;
  private readonly now: () => number;

  constructor(
    private readonly source: CatalogueSource,
    options: CatalogueCacheOptions = {},
  ) {
    this.checkEveryMs = options.checkEveryMs ?? 2000;
    this.maxAgeMs = options.maxAgeMs ?? 600_000;
    this.keptForMs = options.keptForMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  get(options: CatalogueOptions = {}): Promise<Catalogue> {
    if (options.fresh) return this.share(() => this.read());
    const kept = this.kept;
    const atOnce = options.kept === true && kept !== undefined && this.now() - kept.checkedAt < this.keptForMs;
    if (this.pending && !atOnce) return this.pending;
    if (!kept) return this.share(() => this.read());
    const due = this.pending ? undefined : this.due(kept);
    if (!due) return Promise.resolve(kept.catalogue);
    const refreshed = this.share(due);
    if (!atOnce) return refreshed;
    // A failed check or read is seen by the next call that waits for one; this one has its answer.
    refreshed.catch(() => undefined);
    return Promise.resolve(kept.catalogue);
  }

  /** A read when what is kept is too old, a fingerprint check when one is due, else nothing. */
  private due(kept: Kept): (() => Promise<Catalogue>) | undefined {
    const now = this.now();
    if (now - kept.readAt >= this.maxAgeMs) return () => this.read();
    if (now - kept.checkedAt >= this.checkEveryMs) return () => this.check(kept);
    return undefined;
  }

  private share(task: () => Promise<Catalogue>): Promise<Catalogue> {
    const running = task().finally(() => {
      if (this.pending === running) this.pending = undefined;
    });
    this.pending = running;
    return running;
  }

  private async check(kept: Kept): Promise<Catalogue> {
    const version = await this.source.fingerprint();
    if (version !== kept.catalogue.version) return this.read(version);
    kept.checkedAt = this.now();
    return kept.catalogue;
  }

  /** The fingerprint is taken before the read: a change during the read shows at the next check. */
  private async read(known?: string): Promise<Catalogue> {
    const version = known ?? (await this.source.fingerprint());
    const tables = await this.source.read();
    const now = this.now();
    const catalogue = { tables, version };
    this.kept = { catalogue, readAt: now, checkedAt: now };
    return catalogue;
  }
}
