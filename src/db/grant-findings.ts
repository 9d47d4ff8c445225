/**
 * What a MySQL/MariaDB account's grants allow beyond reading its own schema, read from the lines
 * `SHOW GRANTS` prints. tally asks for an account that can only SELECT from the analysed schema;
 * an account that can write, administer the server, or read other schemas is reported, grant by grant.
 */

export type GrantProblem = 'writes' | 'administers' | 'reads other schemas';

export interface GrantFinding {
  problem: GrantProblem;
  /** The grant line as the server printed it. */
  grant: string;
}

/** Privileges that only read data or metadata. */
const READING = new Set(['SELECT', 'SHOW VIEW', 'USAGE']);
/** Privileges that see other sessions, schemas or the server's files, without writing data. */
const ADMINISTERING = new Set(['PROCESS', 'SHOW DATABASES', 'FILE', 'SUPER', 'REPLICATION CLIENT', 'BINLOG MONITOR']);

const GRANT = /^GRANT\s+(.+?)\s+ON\s+(?:(?:TABLE|FUNCTION|PROCEDURE)\s+)?(\S+)\s+TO\s+/i;

/** The unquoted, lower-cased schema a grant's target names, or `*` for all of them. */
function targetSchema(target: string): string {
  const schema = target.split('.')[0] ?? '';
  return schema.replace(/^[`'"]|[`'"]$/g, '').toLowerCase();
}

/** Findings for `grants`, given the schemas the database may read (the URL's and DATABASE_SCHEMAS_<NAME>). */
export function grantFindings(grants: string[], scope: string[]): GrantFinding[] {
  const allowed = new Set(scope.map((schema) => schema.toLowerCase()));
  const findings: GrantFinding[] = [];
  for (const grant of grants) {
    const match = GRANT.exec(grant.trim());
    if (!match) continue; // role grants (`GRANT role TO user`) and proxies: their own grants show on their lines
    const privileges = (match[1] ?? '')
      .replace(/\([^)]*\)/g, '') // column lists
      .split(',')
      .map((privilege) => privilege.trim().toUpperCase().replace(/\s+/g, ' '));
    const schema = targetSchema(match[2] ?? '');
    const everything = privileges.some((privilege) => privilege.startsWith('ALL'));
    if (everything || privileges.some((privilege) => !READING.has(privilege) && !ADMINISTERING.has(privilege))) {
      findings.push({ problem: 'writes', grant });
    } else if (privileges.some((privilege) => ADMINISTERING.has(privilege))) {
      findings.push({ problem: 'administers', grant });
    } else if (privileges.includes('SELECT') && !allowed.has(schema) && schema !== 'information_schema') {
      findings.push({ problem: 'reads other schemas', grant });
    }
  }
  return findings;
}
