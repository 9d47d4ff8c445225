/**
 * `tally policy explain`: what one person may read in one place under the access policy, table by table and
 * column by column, with the rule behind each answer, so an operator can check a policy before deploying it.
 */
import type { Database } from '../ports/database.js';
import { type DatabaseAccess, type Principal, resolveAccess, setMatches } from './access.js';
import type { Policy } from './policy-file.js';

const HOW = { hash: 'pseudonymised', redact: 'redacted (always NULL)' } as const;

/** The explanation as lines; `databases`: the configured ones that could be opened, to list real tables. */
export async function explainPolicy(
  policy: Policy,
  principal: Principal,
  databases: readonly { name: string; database?: Database; problem?: string }[],
): Promise<string[]> {
  const access = resolveAccess(policy, principal);
  const lines = [describePrincipal(principal), ...memberships(policy, principal)];
  for (const { name, database, problem } of databases) {
    lines.push('');
    const granted = access.databases.get(name);
    if (!granted) {
      lines.push(
        `database ${name}: ${access.hidden.has(name) ? `granted, but not shown here: ${access.hidden.get(name)}` : 'not granted (no grant names a set this person or place is in)'}`,
      );
      continue;
    }
    lines.push(
      `database ${name}: may read, by ${granted.grants.map((applied) => `grants[${applied.index}] via ${applied.via.join(', ')}`).join('; ')}`,
    );
    if (!database) {
      lines.push(
        `  (could not list its tables: ${problem ?? 'not opened'}); granted table patterns: ${patterns(granted)}`,
      );
      continue;
    }
    lines.push(...(await describeTables(database, granted)));
  }
  return lines;
}

function describePrincipal(principal: Principal): string {
  const groups = principal.groups.length > 0 ? `, groups ${principal.groups.join(', ')}` : ', no groups given';
  const where =
    principal.platform === 'console'
      ? 'on the console'
      : `${principal.place.dm ? 'in a direct message' : `in channel ${principal.place.channel}`}${principal.guild ? ` of guild ${principal.guild}` : ''}`;
  return `${principal.platform} user ${principal.userId}${groups}, ${where}`;
}

function memberships(policy: Policy, principal: Principal): string[] {
  const matched = Object.entries(policy.principals).flatMap(([name, set]) => {
    const reasons = setMatches(set, principal);
    return reasons.length > 0 ? [`${name} (${reasons.join(', ')})`] : [];
  });
  return [`in principal sets: ${matched.join(', ') || 'none'}`];
}

function patterns(granted: DatabaseAccess): string {
  return [...new Set(granted.grants.flatMap(({ grant }) => grant.tables))].join(', ');
}

async function describeTables(database: Database, granted: DatabaseAccess): Promise<string[]> {
  const lines: string[] = [];
  const refused: string[] = [];
  for (const table of await database.listTables()) {
    if (!granted.tableGrant(table.name)) {
      refused.push(table.name);
      continue;
    }
    const readable: string[] = [];
    const denied: string[] = [];
    for (const column of (await database.describeTable(table.name)).columns) {
      const { access, rule } = granted.column(table.name, column.name);
      if (access === 'denied') denied.push(`${column.name} (${rule})`);
      else if (access === 'raw') readable.push(column.name);
      else readable.push(`${column.name} [${HOW[access]}: ${rule}]`);
    }
    lines.push(`  ${table.name}: ${readable.join(', ')}`);
    if (denied.length > 0) lines.push(`    not granted: ${denied.join(', ')}`);
  }
  if (refused.length > 0) lines.push(`  tables not granted: ${refused.join(', ')}`);
  return lines;
}
