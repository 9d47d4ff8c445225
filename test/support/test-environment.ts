/**
 * What every end-to-end fixture starts from: a temporary TALLY_HOME, a MariaDB (or PostgreSQL) database
 * loaded with telco_db, and an instance name of its own (so its containers are told apart). close() drops the
 * database, removes the home, and fails if a container of the instance was left behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTelco } from '../../telco_data/index.js';
import { containersOf, requireSandboxImage } from './docker.js';
import { createTestDatabase, type TestDatabase } from './mariadb.js';
import { createTestDatabase as createPostgresDatabase } from './postgres.js';

/** Where telco_db is loaded. */
export type TestBackend = 'mariadb' | 'postgres';

export interface TestEnvironment {
  home: string;
  instance: string;
  database: TestDatabase;
  /** The environment tally reads, with the model at `llmUrl`. */
  env(llmUrl: string): Record<string, string>;
  close(): Promise<void>;
}

export async function createTestEnvironment(
  prefix: string,
  backend: TestBackend = 'mariadb',
): Promise<TestEnvironment> {
  await requireSandboxImage();
  const home = await mkdtemp(join(tmpdir(), `tally-${prefix}-`));
  const database = await (backend === 'postgres' ? createPostgresDatabase : createTestDatabase)(`tally_${prefix}`);
  await loadTelco({ url: database.url });
  const instance = `${prefix}-${randomBytes(4).toString('hex')}`;
  return {
    home,
    instance,
    database,
    env: (llmUrl) => ({
      TALLY_HOME: home,
      TALLY_INSTANCE: instance,
      DATABASE_URL: database.url,
      LLM_BASE_URL: llmUrl,
      LLM_MODEL: 'scripted',
      LLM_MAX_RETRIES: '2',
      TALLY_SANDBOX_POOL_SIZE: '0',
      LOG_LEVEL: 'silent',
      // The test database is reached with the admin account; tests of the account check set it to true.
      TALLY_REQUIRE_READONLY: 'false',
    }),
    async close() {
      await database.drop();
      const left = await containersOf(instance);
      await rm(home, { recursive: true, force: true });
      if (left.length > 0) throw new Error(`leaked ${left.length} containers of ${instance}`);
    },
  };
}
