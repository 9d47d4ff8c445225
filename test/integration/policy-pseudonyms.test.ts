/**
 * One value, one pseudonym, whichever database holds it: the access policy's keyed hash gives the same 16 hex digits
 * on real MariaDB, PostgreSQL and SQLite (and as worked out here, independently) for text in any script, quotes,
 * spaces, the empty string, integers and dates; NULL stays NULL. Pseudonyms from two databases can then be joined
 * or compared in the kernel.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.js';
import { MysqlDatabase } from '../../src/db/mysql/mysql-database.js';
import { PostgresDatabase } from '../../src/db/postgres/postgres-database.js';
import { SqliteDatabase } from '../../src/db/sqlite/sqlite-database.js';
import { resolveAccess } from '../../src/policy/access.js';
import { pseudonymKey } from '../../src/policy/masked-view.js';
import { policedDatabase } from '../../src/policy/policed-database.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import type { Database } from '../../src/ports/database.js';
import { cleanUp } from '../support/clean-up.js';
import * as mariadb from '../support/mariadb.js';
import { pseudonym, slackUser } from '../support/policy-grants.js';
import * as postgres from '../support/postgres.js';
import { LIMITS } from '../support/sample-databases.js';

const logger = createLogger({ level: 'silent' });
const KEY = pseudonymKey('secret', 'people');

/** id, contact, score, joined */
const PEOPLE = [
  [1, 'ann.lee@example.com', 12, '2024-01-05'],
  [2, 'Chloé Müller', -3, '1999-12-31'],
  [3, '東京都 渋谷区', 0, '2024-02-29'],
  [4, 'fox 🦊 emoji', 2_147_483_647, '1970-01-01'],
  [5, "O'Brien; DROP", 7, '2000-06-15'],
  [6, '  spaces  ', 8, '2010-10-10'],
  [7, '', 9, '2020-03-01'],
  [8, null, null, null],
] as const;

const SCHEMA = 'CREATE TABLE people (id INT PRIMARY KEY, contact VARCHAR(100) NULL, score INT NULL, joined DATE NULL)';

const POLICY = parsePolicy(
  `
principals: { analysts: { slack_users: [U0ANALYST] } }
databases: { people: { sensitive: { people.contact: hash, people.score: hash, people.joined: hash } } }
grants: [{ to: [analysts], database: people, tables: [people] }]
`,
  'policy.yaml',
  ['people'],
);

const policed = (inner: Database) => {
  const access = resolveAccess(POLICY, slackUser('U0ANALYST')).databases.get('people');
  if (!access) throw new Error('people is not granted');
  return policedDatabase(inner, { access, pseudonymKey: KEY });
};

let mysqlDatabase: mariadb.TestDatabase;
let postgresDatabase: postgres.TestDatabase;
let folder: string;
const opened: Database[] = [];

beforeAll(async () => {
  mysqlDatabase = await mariadb.createTestDatabase('tally_pseudonyms');
  const mysqlAdmin = await mariadb.adminConnection(mysqlDatabase.name);
  try {
    await mysqlAdmin.query(SCHEMA);
    await mysqlAdmin.query('INSERT INTO people VALUES ?', [PEOPLE.map((row) => [...row])]);
  } finally {
    await mysqlAdmin.end();
  }
  postgresDatabase = await postgres.createTestDatabase('tally_pseudonyms');
  const postgresAdmin = await postgres.adminClient(postgresDatabase.name);
  try {
    await postgresAdmin.query(SCHEMA);
    for (const row of PEOPLE) await postgresAdmin.query('INSERT INTO people VALUES ($1, $2, $3, $4)', [...row]);
  } finally {
    await postgresAdmin.end();
  }
  folder = await mkdtemp(join(tmpdir(), 'tally-pseudonyms-'));
  const sqlite = new BetterSqlite(join(folder, 'people.db'));
  sqlite.exec(SCHEMA);
  const insert = sqlite.prepare('INSERT INTO people VALUES (?, ?, ?, ?)');
  for (const row of PEOPLE) insert.run(...row);
  sqlite.close();
});

afterAll(() =>
  cleanUp(
    ...opened.map((database) => () => database.close()),
    () => mysqlDatabase?.drop(),
    () => postgresDatabase?.drop(),
    () => folder && rm(folder, { recursive: true, force: true }),
  ),
);

const EXPECTED = PEOPLE.map(([id, ...values]) => [
  id,
  ...values.map((value) => (value === null ? null : pseudonym(String(value), KEY))),
]);

describe('the pseudonym of a value', () => {
  it.each([
    {
      dialect: 'MariaDB',
      open: () => MysqlDatabase.connect({ name: 'people', url: mysqlDatabase.url, limits: LIMITS, logger }),
    },
    {
      dialect: 'PostgreSQL',
      open: () => PostgresDatabase.connect({ name: 'people', url: postgresDatabase.url, limits: LIMITS, logger }),
    },
    {
      dialect: 'SQLite',
      open: () => SqliteDatabase.open({ name: 'people', path: join(folder, 'people.db'), limits: LIMITS }),
    },
  ])('is the same 16 hex digits on $dialect', async ({ open }) => {
    const inner = await open();
    opened.push(inner);
    const result = await policed(inner).query('SELECT id, contact, score, joined FROM people ORDER BY id');
    expect(result.rows).toEqual(EXPECTED);
  });
});
