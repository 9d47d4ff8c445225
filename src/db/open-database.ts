/** Opens a configured database by its URL: MySQL/MariaDB, PostgreSQL, or an embedded SQLite file. */
import { resolve } from 'node:path';
import type { DatabaseLimitSettings, DatabaseSettings } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import type { Database } from '../ports/database.js';
import { MysqlDatabase } from './mysql/mysql-database.js';
import { PostgresDatabase } from './postgres/postgres-database.js';
import { SqliteDatabase } from './sqlite/sqlite-database.js';

export function openDatabase(
  settings: DatabaseSettings,
  limits: DatabaseLimitSettings,
  logger: Logger,
): Promise<Database> {
  if (settings.url.startsWith('sqlite:')) {
    return SqliteDatabase.open({ name: settings.name, path: sqlitePath(settings.url), limits });
  }
  if (isPostgresUrl(settings.url)) {
    return PostgresDatabase.connect({
      name: settings.name,
      url: settings.url,
      ...(settings.schemas ? { schemas: settings.schemas } : {}),
      limits,
      logger: logger.child({ database: settings.name }),
    });
  }
  return MysqlDatabase.connect({
    name: settings.name,
    url: settings.url.replace(/^mariadb:/, 'mysql:'),
    ...(settings.schemas ? { schemas: settings.schemas } : {}),
    limits,
    logger: logger.child({ database: settings.name }),
  });
}

/** `sqlite:data/x.db` (relative to the working folder) or `sqlite:///abs/x.db`. */
export function sqlitePath(url: string): string {
  return resolve(url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, ''));
}

/** `postgres://…` or `postgresql://…`. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}
