/**
 * The access policy the policed-database tests hold the crm tables (`policy-databases.ts`) to: analysts read both
 * tables, support only customers, both without customers.tenure; e-mail addresses pseudonymised, phones redacted.
 */
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { SqlRejectedError } from '../../src/base/errors.js';
import { type Principal, resolveAccess } from '../../src/policy/access.js';
import { pseudonymKey } from '../../src/policy/masked-view.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import type { Database } from '../../src/ports/database.js';

export const KEY = pseudonymKey('secret', 'crm');

/** The pseudonym worked out here, independently: 16 hex digits of SHA-256 over key and value. */
export const pseudonym = (value: string, key = KEY) =>
  createHash('sha256').update(`${key}${value}`).digest('hex').slice(0, 16);

export const POLICY = parsePolicy(
  `
principals:
  analysts: { slack_users: [U0ANALYST] }
  support: { slack_users: [U0SUPPORT] }
databases:
  crm:
    sensitive:
      customers.email: hash
      tickets.email: hash
      customers.phone: redact
grants:
  - to: [analysts]
    database: crm
    tables: [customers, tickets]
    columns: [customers.id, customers.name, customers.email, customers.phone, customers.segment, "tickets.*"]
  - to: [support]
    database: crm
    tables: [customers]
    columns: [customers.id, customers.name, customers.email, customers.phone, customers.segment]
`,
  'policy.yaml',
  ['crm', 'finance'],
);

export const slackUser = (userId: string): Principal => ({
  platform: 'slack',
  userId,
  groups: [],
  place: { channel: 'C0GENERAL', dm: false },
});

export function crmAccessOf(userId: string) {
  const access = resolveAccess(POLICY, slackUser(userId)).databases.get('crm');
  if (!access) throw new Error(`crm is not granted to ${userId}`);
  return access;
}

/** The customers' columns the analysts may read, as the refusals list them. */
export const READABLE_CUSTOMERS = 'id, name, email (pseudonymised), phone (redacted: always NULL), segment';
export const METADATA_HINT = 'use the list_tables and describe_table tools';

/** The refusal `sql` meets: a SqlRejectedError, whose message is returned. */
export async function refusalOf(db: Database, sql: string): Promise<string> {
  const error = await db.query(sql).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error, sql).toBeInstanceOf(SqlRejectedError);
  return (error as Error).message;
}
