/**
 * The start-up check of each configured database's account: tally is read-only in layers (the
 * guard, a read-only session), and the account is the last one. MySQL/MariaDB: the account's
 * grants (`SHOW GRANTS`). SQLite: whether this process could write the file (tally opens it
 * read-only, but a process that can write it is one mistake away). PostgreSQL: the role's attributes,
 * memberships and privileges (`postgres-account.ts`). The demo database tally builds
 * itself is not checked.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import mysql from 'mysql2/promise';
import type { DatabaseSettings } from '../base/config-types.js';
import { type GrantFinding, grantFindings } from './grant-findings.js';
import { isPostgresUrl, sqlitePath } from './open-database.js';
import { postgresAccountFindings } from './postgres/postgres-account.js';

export interface AccountFinding extends GrantFinding {
  /** The variable that names the database: DATABASE_URL or DATABASE_URL_<NAME>. */
  variable: string;
  database: string;
}

export async function checkAccount(settings: DatabaseSettings, variable: string): Promise<AccountFinding[]> {
  if (settings.embedded) return [];
  const of = (findings: GrantFinding[]) =>
    findings.map((finding) => ({ ...finding, variable, database: settings.name }));
  if (settings.url.startsWith('sqlite:')) {
    const path = sqlitePath(settings.url);
    const writable = await access(path, constants.W_OK).then(
      () => true,
      () => false,
    );
    return writable ? of([{ problem: 'writes', grant: `this process may write ${path}` }]) : [];
  }
  if (isPostgresUrl(settings.url)) return of(await postgresAccountFindings(settings.url, settings.schemas ?? []));
  const url = new URL(settings.url.replace(/^mariadb:/, 'mysql:'));
  const connection = await mysql.createConnection({ uri: url.toString(), connectTimeout: 10_000 });
  try {
    const [rows] = await connection.query('SHOW GRANTS');
    const grants = (rows as Array<Record<string, string>>).flatMap((row) => Object.values(row));
    const own = decodeURIComponent(url.pathname.slice(1));
    return of(grantFindings(grants, [own, ...(settings.schemas ?? [])]));
  } finally {
    await connection.end().catch(() => {});
  }
}

/** `DATABASE_URL` for the first (main) database, `DATABASE_URL_<NAME>` for the others. */
export function databaseVariable(index: number, settings: DatabaseSettings): string {
  if (settings.givenBy) return settings.givenBy;
  return index === 0 ? 'DATABASE_URL' : `DATABASE_URL_${settings.name.toUpperCase()}`;
}

export function describeFinding(finding: AccountFinding): string {
  return `The ${finding.database} account (${finding.variable}) ${finding.problem}: ${finding.grant}. tally needs an account that can only SELECT from its schema.`;
}
