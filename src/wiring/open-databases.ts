/**
 * The configured databases of a tally, opened: the embedded demo database is built first when no DATABASE_URL is
 * set and its file is not there yet; each one's catalogue is read in the background as soon as it is open.
 */
import { existsSync } from 'node:fs';
import { loadTelco } from '../../telco_data/index.js';
import type { Config } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import { openDatabase, sqlitePath } from '../db/open-database.js';
import type { Database } from '../ports/database.js';

/** Opens every configured database, building the embedded demo database first if it is not there. */
export async function openDatabases(config: Config, logger: Logger, say: (line: string) => void): Promise<Database[]> {
  const databases: Database[] = [];
  try {
    for (const settings of config.databases) {
      if (settings.embedded && !existsSync(sqlitePath(settings.url))) {
        say(`building the demo database ${settings.url} (no DATABASE_URL is set)`);
        const report = await loadTelco({ target: settings.url });
        say(`  ${report.trainCustomers} train and ${report.testCustomers} test customers in ${report.durationMs} ms`);
      }
      const database = await openDatabase(settings, config.databaseLimits, logger);
      databases.push(database);
      // Read now, not awaited: the first turn finds the catalogue kept instead of reading a warehouse's.
      database
        .catalogue?.()
        .catch((error: unknown) =>
          logger.warn(
            { database: database.name, err: error },
            'reading the catalogue at start-up failed; a turn reads it',
          ),
        );
    }
  } catch (error) {
    await Promise.all(databases.map((database) => database.close()));
    throw error;
  }
  return databases;
}
