/**
 * What a PostgreSQL account may do beyond reading its own schema(s), asked of the server at start-up:
 * role attributes, memberships in the predefined roles that reach files, programs, settings or other
 * sessions, and privileges beyond SELECT and USAGE. tally wants a role that can only SELECT from the
 * analysed schema; everything else is reported, one finding per attribute, role or table.
 */
import pg from 'pg';
import type { GrantFinding } from '../grant-findings.js';
import { postgresConnection } from './postgres-database.js';

/** Role attributes that administer the server. */
const ATTRIBUTES = [
  ['rolsuper', 'SUPERUSER'],
  ['rolcreaterole', 'CREATEROLE'],
  ['rolcreatedb', 'CREATEDB'],
  ['rolreplication', 'REPLICATION'],
  ['rolbypassrls', 'BYPASSRLS'],
] as const;

/** Predefined roles that read or write server files, run programs, read every table or setting, or signal sessions. */
const DANGEROUS_ROLES = [
  'pg_read_server_files',
  'pg_write_server_files',
  'pg_execute_server_program',
  'pg_read_all_data',
  'pg_write_all_data',
  'pg_read_all_settings',
  'pg_read_all_stats',
  'pg_stat_scan_tables',
  'pg_monitor',
  'pg_signal_backend',
  'pg_checkpoint',
];
const WRITING_ROLES = new Set(['pg_write_server_files', 'pg_execute_server_program', 'pg_write_all_data']);

/** Table privileges that change data or definitions. */
const WRITE_PRIVILEGES = ['INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'];
/** Findings of one kind past this many are summed up in one line. */
const LISTED = 10;

export async function postgresAccountFindings(url: string, scope: readonly string[]): Promise<GrantFinding[]> {
  const { connection, schema } = postgresConnection(url);
  const client = new pg.Client(connection);
  await client.connect();
  try {
    const own = schema ?? String((await client.query('SELECT current_schema() AS s')).rows[0]?.s ?? 'public');
    const schemas = [own, ...scope];
    const attributes = await attributeFindings(client);
    // A superuser may do everything; listing every table it could write would bury that one line.
    if (attributes.some((finding) => finding.grant.endsWith('SUPERUSER'))) return attributes;
    return [
      ...attributes,
      ...(await membershipFindings(client)),
      ...(await databaseFindings(client)),
      ...(await tableFindings(client, schemas)),
    ];
  } finally {
    await client.end().catch(() => {});
  }
}

async function attributeFindings(client: pg.Client): Promise<GrantFinding[]> {
  const { rows } = await client.query<Record<string, boolean>>(
    `SELECT ${ATTRIBUTES.map(([column]) => column).join(', ')} FROM pg_catalog.pg_roles WHERE rolname = current_user`,
  );
  const role = rows[0] ?? {};
  return ATTRIBUTES.filter(([column]) => role[column]).map(([, attribute]) => ({
    problem: 'administers',
    grant: `the role has ${attribute}`,
  }));
}

async function membershipFindings(client: pg.Client): Promise<GrantFinding[]> {
  const { rows } = await client.query<{ rolname: string }>(
    `SELECT rolname FROM pg_catalog.pg_roles
      WHERE rolname = ANY($1) AND pg_has_role(current_user, oid, 'MEMBER') ORDER BY rolname`,
    [DANGEROUS_ROLES],
  );
  return rows.map(({ rolname }) => ({
    problem: WRITING_ROLES.has(rolname) ? 'writes' : 'administers',
    grant: `the role is a member of ${rolname}`,
  }));
}

async function databaseFindings(client: pg.Client): Promise<GrantFinding[]> {
  const { rows } = await client.query<{ database: boolean; schemas: string[] }>(
    `SELECT has_database_privilege(current_database(), 'CREATE') AS database,
            ARRAY(SELECT nspname FROM pg_catalog.pg_namespace
                   WHERE has_schema_privilege(oid, 'CREATE') AND nspname NOT LIKE 'pg\\_%'
                     AND nspname <> 'information_schema' ORDER BY nspname)::text[] AS schemas`,
  );
  const found = rows[0];
  const findings: GrantFinding[] = [];
  if (found?.database) findings.push({ problem: 'writes', grant: 'CREATE on the database (it can create schemas)' });
  for (const schema of found?.schemas ?? []) {
    findings.push({ problem: 'writes', grant: `CREATE on schema ${schema} (it can create tables and functions)` });
  }
  return findings;
}

/** Write privileges on any table it can see, and SELECT on tables outside the schemas tally reads. */
async function tableFindings(client: pg.Client, schemas: string[]): Promise<GrantFinding[]> {
  const { rows } = await client.query<{ relation: string; schema: string; privileges: string[] }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS relation, n.nspname AS schema,
            ARRAY(SELECT p FROM unnest($1::text[]) AS p WHERE has_table_privilege(c.oid, p))::text[] AS privileges
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT LIKE 'pg\\_%'
        AND n.nspname <> 'information_schema'
      ORDER BY 1`,
    [['SELECT', ...WRITE_PRIVILEGES]],
  );
  const writes: string[] = [];
  const reads: string[] = [];
  for (const { relation, schema, privileges } of rows) {
    const writing = privileges.filter((privilege) => privilege !== 'SELECT');
    if (writing.length > 0) writes.push(`${writing.join(', ')} ON ${relation}`);
    else if (privileges.includes('SELECT') && !schemas.includes(schema)) reads.push(`SELECT ON ${relation}`);
  }
  return [
    ...summed(writes).map((grant): GrantFinding => ({ problem: 'writes', grant })),
    ...summed(reads).map((grant): GrantFinding => ({ problem: 'reads other schemas', grant })),
  ];
}

function summed(grants: string[]): string[] {
  if (grants.length <= LISTED) return grants;
  return [...grants.slice(0, LISTED), `and ${grants.length - LISTED} more tables`];
}
