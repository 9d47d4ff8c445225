/**
 * The audit trail around a real database (an SQLite file) and the real store: what a query and a refusal leave,
 * who they are recorded for, an extraction replayed into a rebuilt kernel (a real sandbox) marked as such, and that
 * an access whose record cannot be written does not happen.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredAuditTrail } from '../../src/audit/audit-trail.js';
import { loadConfig } from '../../src/base/config.js';
import { SqlRejectedError, StoreUnavailableError } from '../../src/base/errors.js';
import { createLogger } from '../../src/base/logger.js';
import { describeRecord } from '../../src/cli/audit-command.js';
import { openDatabase } from '../../src/db/open-database.js';
import type { AuditRecord } from '../../src/ports/audit.js';
import { SYSTEM_CLOCK } from '../../src/ports/clock.js';
import type { Database as TallyDatabase } from '../../src/ports/database.js';
import { SessionKernels } from '../../src/sessions/session-kernel.js';
import { journalKey } from '../../src/sessions/session-record.js';
import { createStore, type StoreWithAudit } from '../../src/store/create-store.js';
import { startTestSandbox } from '../support/sandbox-fixture.js';

const logger = createLogger({ level: 'silent' });
const ACTOR = { user: 'U1', platform: 'slack', thread: 'slack:T:C:1.1', channel: 'slack:T:C' };

let folder = '';
let store: StoreWithAudit;
let database: TallyDatabase;
const refusals: string[] = [];
let trail: StoredAuditTrail;

async function records(): Promise<AuditRecord[]> {
  return (await store.auditLog().read()).map((stored) => ({ id: stored.id, ...JSON.parse(stored.text) }));
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-audited-'));
  const file = join(folder, 'sales.db');
  const seed = new Database(file);
  seed.exec("CREATE TABLE sales (region TEXT, amount REAL); INSERT INTO sales VALUES ('north', 10), ('south', 32.5);");
  seed.close();
  const config = loadConfig({ TALLY_HOME: folder });
  database = await openDatabase({ name: 'sales', url: `sqlite:${file}` }, config.databaseLimits, logger);
  store = await createStore({ sqlitePath: join(folder, 'state.db'), logger });
  trail = new StoredAuditTrail({
    log: store.auditLog(),
    clock: SYSTEM_CLOCK,
    onRefusal: (reason) => refusals.push(reason),
  });
});

afterAll(async () => {
  await database?.close();
  await store?.close().catch(() => {});
  await rm(folder, { recursive: true, force: true });
});

describe('an audited database', () => {
  it('records a query for the person the task works for: SQL, tables, rows and bytes', async () => {
    const watched = trail.watch(database);
    const sql = 'SELECT region, SUM(amount) AS total FROM sales GROUP BY region';
    const result = await trail.within(ACTOR, () => watched.query(sql));
    expect(result.rows).toHaveLength(2);
    expect('access' in result).toBe(false);
    const [record] = await records();
    expect(record).toMatchObject({
      kind: 'query',
      decision: 'allowed',
      database: 'sales',
      sql,
      tables: ['sales'],
      rows: 2,
      actor: ACTOR,
    });
    expect(record?.bytes).toBe(Buffer.byteLength(JSON.stringify(result.rows)));
    expect(JSON.stringify(record)).not.toContain('north');
  });

  it('records a statement the guard refused, with its reason, and still refuses it', async () => {
    const watched = trail.watch(database);
    await expect(trail.within(ACTOR, () => watched.query('DELETE FROM sales'))).rejects.toBeInstanceOf(
      SqlRejectedError,
    );
    const refused = (await records()).at(-1);
    expect(refused).toMatchObject({
      kind: 'query',
      decision: 'refused',
      reason: 'sql guard',
      sql: 'DELETE FROM sales',
    });
    expect(refused?.rule).toBeTruthy();
    expect(refusals).toEqual(['sql guard']);
    expect((await store.auditLog().verify()).ok).toBe(true);
  });

  it('records what a listing and a description showed, once per message, and a refused description', async () => {
    const before = (await records()).length;
    const watched = trail.watch(database);
    await trail.within(ACTOR, async () => {
      await watched.listTables();
      await watched.listTables();
      await watched.describeTable('sales');
      await watched.describeTable('sales');
      await expect(watched.describeTable('payroll')).rejects.toThrow();
    });
    const shown = (await records()).slice(before);
    expect(shown).toEqual([
      expect.objectContaining({
        kind: 'list',
        database: 'sales',
        tables: ['sales'],
        decision: 'allowed',
        actor: ACTOR,
      }),
      expect.objectContaining({
        kind: 'describe',
        tables: ['sales'],
        columns: ['sales.region', 'sales.amount'],
        decision: 'allowed',
      }),
      expect.objectContaining({ kind: 'describe', tables: ['payroll'], decision: 'refused' }),
    ]);
    // A new message (a new wrapper) records what it is shown again.
    await trail.within(ACTOR, () => trail.watch(database).listTables());
    expect((await records()).slice(before)).toHaveLength(4);
  });

  it('records work done outside any person’s task without an actor', async () => {
    await trail.watch(database).query('SELECT 1 AS one');
    expect((await records()).at(-1)?.actor).toBeUndefined();
  });

  it('marks an extraction replayed to rebuild a kernel from the journal', async () => {
    const sandbox = await startTestSandbox();
    try {
      const sql = 'SELECT region, amount FROM sales';
      await store.append(journalKey(ACTOR.thread), { kind: 'extract', database: 'sales', sql, name: 'sales_df' });
      const kernels = new SessionKernels(sandbox.sandbox, [trail.watch(database)], store);
      const restored = await trail.within(ACTOR, () => kernels.acquire(ACTOR.thread));
      expect(restored).toMatchObject({ replayed: 1, failed: 0 });
      expect((await restored.kernel.run('len(sales_df)')).result?.text).toBe('2');
      const record = (await records()).at(-1);
      expect(record).toMatchObject({ kind: 'extract', decision: 'allowed', sql, rows: 2, replay: true, actor: ACTOR });
      expect(describeRecord(record as AuditRecord)).toContain('(replayed to rebuild a kernel)');
      await restored.kernel.dispose();
    } finally {
      await sandbox.close();
    }
  }, 120_000);

  it('fails an access whose record cannot be written', async () => {
    const watched = trail.watch(database);
    await store.close();
    await expect(trail.within(ACTOR, () => watched.query('SELECT COUNT(*) FROM sales'))).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });
});
