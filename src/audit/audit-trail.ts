/**
 * The AuditTrail port over an AuditLog: records get their time from the clock and their actor from
 * the task they are made in (AsyncLocalStorage, so tools and connectors deep in a turn need not be
 * told who they work for), and refusals are counted for `/metrics`.
 *
 * A record that cannot be written fails the access it describes: an access that leaves no record
 * does not happen.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditActor, AuditEvent, AuditTrail } from '../ports/audit.js';
import type { Clock } from '../ports/clock.js';
import type { Database } from '../ports/database.js';
import type { AuditLog } from '../store/audit-log.js';
import { auditedDatabase } from './audited-database.js';

export interface StoredAuditTrailOptions {
  log: AuditLog;
  clock: Clock;
  /** Told of every refusal, by its reason (`/metrics` counts them). */
  onRefusal?: (reason: string) => void;
}

export class StoredAuditTrail implements AuditTrail {
  private readonly actors = new AsyncLocalStorage<AuditActor>();

  constructor(private readonly options: StoredAuditTrailOptions) {}

  within<T>(actor: AuditActor, task: () => Promise<T>): Promise<T> {
    return this.actors.run(actor, task);
  }

  actor(): AuditActor | undefined {
    return this.actors.getStore();
  }

  async record(event: AuditEvent): Promise<void> {
    const atMs = this.options.clock.now();
    const actor = this.actor();
    const text = JSON.stringify({ at: new Date(atMs).toISOString(), ...(actor ? { actor } : {}), ...event });
    if (event.decision === 'refused') this.options.onRefusal?.(event.reason ?? 'unspecified');
    await this.options.log.append(text, atMs);
  }

  watch(database: Database): Database {
    return auditedDatabase(database, this);
  }
}
