/**
 * Runs the masking battery's statements and judges what came back. Each statement runs on the masked copy (the
 * reference) and, through the policed database, as the analyst and for some as the support user; with `query`
 * (run_sql) always and with `extract` (load_dataframe) into a real kernel for a sample, the DataFrames read back as
 * JSON. A problem is a withheld value in any row, message or DataFrame; rows the masked copy does not have; rows
 * of a table not granted; an oracle that counts anything but 0.
 */
import type { Database } from '../../src/ports/database.js';
import type { Kernel } from '../../src/ports/sandbox.js';
import { leaksIn, type Outcome, outcomeLeaks, outcomeOf, rowDifference, tenureIn, type User } from './masking-leaks.js';
import { CATALOG, SCHEMA, SCHEMA_UPPER_CASE } from './masking-references.js';
import type { MaskingStatement } from './masking-sources.js';

export interface ExaminerConnections {
  /** The connector on the raw tables, without the policy: shows that an oracle tells raw from masked. */
  raw: Database;
  /** The connector on the masked copy, without the policy. */
  copy: Database;
  policed: Record<User, Database>;
  /** What SCHEMA and CATALOG stand for in the policed database, and in the copy. */
  names: DatabaseNames;
  copyNames: DatabaseNames;
  kernel: Kernel;
}

export interface DatabaseNames {
  /** The own schema: MariaDB's database, `public`, `main`. */
  schema: string;
  /** PostgreSQL's database (the first part of `db.schema.table`). */
  catalog: string;
}

/** `sql` with the database's names where the battery wrote placeholders. */
function resolved(sql: string, names: DatabaseNames): string {
  return sql
    .replaceAll(SCHEMA, names.schema)
    .replaceAll(SCHEMA_UPPER_CASE, names.schema.toUpperCase())
    .replaceAll(CATALOG, names.catalog);
}

export interface ExamineOptions {
  /** Who runs the statement through the policed database. */
  users(statement: MaskingStatement): readonly User[];
  /** Whether it is also extracted into the kernel (by the first of `users`). */
  extract(statement: MaskingStatement): boolean;
}

export interface Examination {
  problems: string[];
  /** Outcomes of the analyst's queries. */
  answered: number;
  refused: number;
  failed: number;
  /** Statements the masked copy answered: where the analyst could have been answered too. */
  copyAnswered: number;
  extracted: number;
}

interface Loaded {
  name: string;
  statement: MaskingStatement;
  sql: string;
  user: User;
  copy: Outcome;
}

/**
 * The statement as the copy runs it: its schema's name; the tables in lower case, because MariaDB resolves a CTE's
 * name (the policy's view) ignoring case but a table's name exactly, so `CUSTOMERS` reads the view, and the copy's
 * `customers` only when so spelt; and a leading WITH not followed by the statement's own CTE, as it is not behind
 * the views (`WITH rollup AS (…)` is WITH ROLLUP to MariaDB, `WITH ordinality` to the guard, `WITH views, rollup
 * AS (…)` a CTE).
 */
function inCopy(sql: string, names: DatabaseNames): string {
  return resolved(sql, names)
    .replace(/^WITH( RECURSIVE)? /i, (lead) => `${lead}tally_copy_lead AS (SELECT 1), `)
    .replace(/\b(customers|tickets)\b/gi, (name) => name.toLowerCase());
}

/** One line for all that leaked: the first few, and how many more. */
function leakReport(prefix: string, leaked: readonly string[]): string[] {
  if (leaked.length === 0) return [];
  const more = leaked.length > 3 ? ` and ${leaked.length - 3} more` : '';
  return [`${prefix} ${leaked.slice(0, 3).join('; ')}${more}`];
}

export function createExaminer(connections: ExaminerConnections) {
  const { raw, copy, policed, names, copyNames, kernel } = connections;
  let frames = 0;

  function judge(statement: MaskingStatement, sql: string, user: User, outcome: Outcome, reference: Outcome): string[] {
    const found = leakReport('leaked', outcomeLeaks(outcome, sql, user));
    if (outcome.kind === 'rows') {
      if (user === 'support' && statement.tables.includes('tickets')) {
        found.push('returned rows of tickets, which support is not granted');
      } else if (reference.kind !== 'rows') {
        found.push(`returned rows where the masked copy fails (${reference.message})`);
      } else {
        const difference = rowDifference(outcome, reference);
        if (difference) found.push(`returned ${difference}`);
      }
      const [first] = outcome.rows;
      if (statement.oracle && (outcome.rows.length !== 1 || Number(first?.[0]) !== 0)) {
        found.push(`oracle counted ${JSON.stringify(outcome.rows)}, where the masked view matches no row`);
      }
    }
    return found;
  }

  async function examineOne(
    statement: MaskingStatement,
    options: ExamineOptions,
    result: Examination,
    loaded: Loaded[],
  ) {
    const sql = resolved(statement.sql, names);
    const reference = await outcomeOf(() => copy.query(inCopy(statement.sql, copyNames)));
    if (reference.kind === 'rows') result.copyAnswered += 1;
    const report = (user: User, what: string) =>
      result.problems.push(`[${user}] ${statement.name}\n    ${sql}\n    -> ${what}`);
    for (const user of options.users(statement)) {
      const outcome = await outcomeOf(() => policed[user].query(sql));
      if (user === 'analyst') result[outcome.kind === 'rows' ? 'answered' : outcome.kind] += 1;
      for (const problem of judge(statement, sql, user, outcome, reference)) report(user, problem);
    }
    if (statement.oracle) {
      const unmasked = await outcomeOf(() => raw.query(sql));
      if (unmasked.kind === 'rows' && Number(unmasked.rows[0]?.[0]) === 0) {
        report('analyst', 'the oracle counts 0 on the raw table too, so it cannot tell raw values from masked ones');
      }
    }
    if (!options.extract(statement)) return;
    // The first user extracts: the analyst in the battery, the user a regression names.
    const [user = 'analyst'] = options.users(statement);
    const name = `masking_frame_${frames++}`;
    result.extracted += 1;
    try {
      const provenance = await policed[user].extract(sql, kernel, name);
      for (const what of leakReport('extract leaked', leaksIn([JSON.stringify(provenance)], sql, user, 'data'))) {
        report(user, what);
      }
      loaded.push({ name, statement, sql, user, copy: reference });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      for (const what of leakReport('extract error leaked', leaksIn([message], sql, user, 'message'))) {
        report(user, what);
      }
    }
  }

  /** Reads the DataFrames back as JSON, drops them, and holds each against the withheld values and the copy. */
  async function readBack(loaded: readonly Loaded[], result: Examination): Promise<void> {
    if (loaded.length === 0) return;
    const code = [
      `for _name in ${JSON.stringify(loaded.map((entry) => entry.name))}:`,
      `    print(_name + '\\t' + globals().pop(_name).to_json(orient='split', default_handler=str))`,
    ].join('\n');
    const execution = await kernel.run(code, { journal: false, outputLimitBytes: 8 * 1024 * 1024 });
    if (execution.error) {
      result.problems.push(`reading the DataFrames back failed: ${execution.error.name}: ${execution.error.value}`);
      return;
    }
    const printed = new Map(
      execution.stdout
        .split('\n')
        .filter((line) => line.includes('\t'))
        .map((line) => [line.slice(0, line.indexOf('\t')), line.slice(line.indexOf('\t') + 1)]),
    );
    for (const { name, statement, sql, user, copy: reference } of loaded) {
      const report = (what: string) =>
        result.problems.push(`[${user}, kernel] ${statement.name}\n    ${sql}\n    -> ${what}`);
      const json = printed.get(name);
      if (json === undefined) {
        report('the DataFrame was not found in the kernel');
        continue;
      }
      for (const what of leakReport('DataFrame leaked', [...leaksIn([json], sql, user, 'data'), ...tenureIn([json])])) {
        report(what);
      }
      const rows = (JSON.parse(json) as { data: unknown[] }).data.length;
      if (user === 'support' && statement.tables.includes('tickets'))
        report(`a DataFrame of ${rows} rows of tickets, which support is not granted`);
      else if (reference.kind !== 'rows')
        report(`a DataFrame of ${rows} rows where the masked copy fails (${reference.message})`);
      else if (rows !== reference.rows.length)
        report(`a DataFrame of ${rows} rows where the masked copy has ${reference.rows.length}`);
    }
  }

  return {
    async examine(statements: readonly MaskingStatement[], options: ExamineOptions): Promise<Examination> {
      const result: Examination = { problems: [], answered: 0, refused: 0, failed: 0, copyAnswered: 0, extracted: 0 };
      const loaded: Loaded[] = [];
      for (const statement of statements) await examineOne(statement, options, result, loaded);
      await readBack(loaded, result);
      return result;
    },
  };
}
