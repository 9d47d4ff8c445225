/**
 * The extraction bench's PostgreSQL data, made once and kept: in the database `tally_bench`, the same
 * three tables as MariaDB's (`extract-tables.ts`), with the same values and corresponding types (MariaDB's
 * BIGINT, DECIMAL, DOUBLE, VARCHAR, DATE and DATETIME as bigint, numeric, double precision, varchar, date and
 * timestamp), so the frames compare. Rows come from generate_series on the server in one statement.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { BIG_ROWS, ROWS, WIDE_COLUMNS, WIDE_ROWS } from './extract-tables.js';
import { adminClient, postgresAdminUrlFor } from './postgres-admin.js';

export const POSTGRES_DATABASE = 'tally_bench';

interface Column {
  name: string;
  type: string;
  /** The value for the row number `seq` (bigint, from 1). */
  value: string;
}

const column = (name: string, type: string, value: string): Column => ({ name, type, value });

/** The ten columns of `bench_rows`: the types MariaDB infers for extract-tables.ts's expressions. */
const TEN_COLUMNS: Column[] = [
  column('id', 'bigint NOT NULL', 'seq'),
  column('big', 'bigint NOT NULL', 'seq * 7919'),
  column('ratio', 'numeric(24,4)', 'round(seq / 3.0, 4)'),
  column('price', 'numeric(10,2)', '(seq % 100000) / 100.0'),
  column('segment', 'varchar(28)', `'segment-' || seq % 12`),
  column('name', 'varchar(29)', `'customer ' || seq`),
  column('day', 'date', `DATE '2015-01-01' + (seq % 3650)::int`),
  column('moment', 'timestamp', `TIMESTAMP '2020-01-01 00:00:00' + seq * INTERVAL '1 second'`),
  column('flag', 'bigint', 'seq % 2'),
  column('maybe', 'bigint', 'CASE WHEN seq % 9 = 0 THEN NULL ELSE seq % 1000 END'),
];

/** Ten groups of ten, as in `bench_wide`: an int, a double, a decimal, short text, a date, a nullable int, ... */
function wideColumns(): Column[] {
  const kinds = [
    (n: number) => column(`i${n}`, 'bigint NOT NULL', `seq + ${n}`),
    (n: number) => column(`f${n}`, 'double precision', `seq * 1.25 + ${n}`),
    (n: number) => column(`d${n}`, 'numeric(10,2)', `((seq + ${n}) % 100000) / 100.0`),
    (n: number) => column(`s${n}`, 'varchar(22)', `'k' || (seq + ${n}) % 50`),
    (n: number) => column(`t${n}`, 'date', `DATE '2015-01-01' + ((seq + ${n}) % 3650)::int`),
    (n: number) => column(`m${n}`, 'bigint', `CASE WHEN (seq + ${n}) % 7 = 0 THEN NULL ELSE seq % 1000 END`),
    (n: number) => column(`b${n}`, 'bigint', `(seq + ${n}) % 2`),
    (n: number) => column(`u${n}`, 'varchar(27)', `'user ' || (seq + ${n})`),
    (n: number) => column(`g${n}`, 'bigint NOT NULL', `seq * ${n + 3}`),
    (n: number) => column(`w${n}`, 'timestamp', `TIMESTAMP '2020-01-01 00:00:00' + (seq + ${n}) * INTERVAL '1 second'`),
  ];
  return Array.from({ length: WIDE_COLUMNS }, (_, n) => (kinds[n % kinds.length] as (n: number) => Column)(n));
}

export const POSTGRES_TABLES = {
  rows: { name: 'bench_rows', rows: ROWS, columns: TEN_COLUMNS },
  big: { name: 'bench_rows_10m', rows: BIG_ROWS, columns: TEN_COLUMNS },
  wide: { name: 'bench_wide', rows: WIDE_ROWS, columns: wideColumns() },
} as const;

type Table = (typeof POSTGRES_TABLES)[keyof typeof POSTGRES_TABLES];

/**
 * What a complete table carries as its comment: its row count and a hash of its definition. Set only once
 * the rows are in and vacuumed, so a load that was interrupted, or a table of an older definition, is rebuilt.
 */
function seal(table: Table): string {
  const definition = table.columns.map((each) => `${each.name} ${each.type} = ${each.value}`).join('\n');
  const hash = createHash('sha256').update(definition).digest('hex').slice(0, 12);
  return `tally bench: ${table.rows} rows, definition ${hash}`;
}

/** Creates the database if missing (CREATE DATABASE has no IF NOT EXISTS). */
async function ensureDatabase(say: (message: string) => void): Promise<void> {
  const admin = await adminClient();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [POSTGRES_DATABASE]);
    if (found.rowCount) return;
    say(`creating the PostgreSQL database ${POSTGRES_DATABASE}`);
    await admin.query(`CREATE DATABASE ${POSTGRES_DATABASE} ENCODING 'UTF8' TEMPLATE template0`).catch((error) => {
      if ((error as { code?: string }).code !== '42P04') throw error; // made by a run alongside: fine
    });
  } finally {
    await admin.end();
  }
}

async function build(client: pg.Client, table: Table): Promise<void> {
  const name = client.escapeIdentifier(table.name);
  await client.query('BEGIN');
  try {
    // Off for the load only: a crash loses the table, and a missing seal has it rebuilt.
    await client.query('SET LOCAL synchronous_commit = off');
    await client.query(`DROP TABLE IF EXISTS ${name}`);
    await client.query(`CREATE TABLE ${name} (${table.columns.map((each) => `${each.name} ${each.type}`).join(', ')})`);
    await client.query(
      `INSERT INTO ${name} SELECT ${table.columns.map((each) => each.value).join(', ')}
         FROM generate_series(1::bigint, ${table.rows}) AS g(seq)`,
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  // Freezing sets every row's hint bits now: otherwise the first timed reads would write them back.
  await client.query(`VACUUM (FREEZE, ANALYZE) ${name}`);
  await client.query(`COMMENT ON TABLE ${name} IS '${seal(table)}'`);
}

/** Creates what is missing; returns the admin URL of `tally_bench`. */
export async function ensurePostgresTables(say: (message: string) => void): Promise<string> {
  await ensureDatabase(say);
  const client = await adminClient(POSTGRES_DATABASE);
  try {
    for (const table of Object.values(POSTGRES_TABLES)) {
      const found = await client.query<{ comment: string | null }>(
        `SELECT obj_description(to_regclass($1), 'pg_class') AS comment`,
        [`public.${table.name}`],
      );
      if (found.rows[0]?.comment === seal(table)) continue;
      say(`creating PostgreSQL ${POSTGRES_DATABASE}.${table.name} (${table.rows.toLocaleString('en')} rows)`);
      await build(client, table);
    }
  } finally {
    await client.end();
  }
  return postgresAdminUrlFor(POSTGRES_DATABASE);
}
