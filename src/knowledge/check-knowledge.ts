/**
 * `tally knowledge check`: the knowledge store against the live schema. Every table and column a
 * file names must exist, and every verified query must pass the statement guard and run with its
 * default parameters under `LIMIT 0`. What is stale is named with its file. Tables and columns come from a fresh read of
 * each database's catalogue (which the connector then keeps for the prompts), else from `describeTable`.
 */
import type { Database } from '../ports/database.js';
import type { FileKnowledge } from './file-knowledge.js';

export interface KnowledgeProblem {
  database: string;
  source: string;
  problem: string;
}

export interface KnowledgeCheck {
  problems: KnowledgeProblem[];
  /** Databases with knowledge that is not configured here: not checked. */
  unchecked: string[];
  checked: { references: number; queries: number };
}

export async function checkKnowledge(
  knowledge: FileKnowledge,
  databases: readonly Database[],
): Promise<KnowledgeCheck> {
  const problems: KnowledgeProblem[] = [];
  const byName = new Map(databases.map((database) => [database.name, database]));
  const unchecked = knowledge.databases.filter((name) => !byName.has(name));
  let references = 0;
  let queries = 0;
  const columnsOf = new Map<string, Promise<Set<string> | undefined>>();
  // A fresh catalogue per database: the check also renews what the connector keeps for the prompts.
  const catalogues = new Map<string, Promise<Map<string, Set<string>> | undefined>>();
  const catalogueOf = (database: Database) => {
    let catalogue = catalogues.get(database.name);
    if (!catalogue) {
      catalogue = database.catalogue
        ? database
            .catalogue({ fresh: true })
            .then(
              ({ tables }) =>
                new Map(tables.map((table) => [table.name, new Set(table.columns.map((column) => column.name))])),
            )
        : Promise.resolve(undefined);
      catalogues.set(database.name, catalogue);
    }
    return catalogue;
  };
  const columns = async (database: Database, table: string) => {
    const catalogue = await catalogueOf(database);
    if (catalogue) return catalogue.get(table);
    const key = `${database.name}.${table}`;
    if (!columnsOf.has(key)) {
      columnsOf.set(
        key,
        database.describeTable(table).then(
          (description) => new Set(description.columns.map((column) => column.name)),
          () => undefined,
        ),
      );
    }
    return columnsOf.get(key) as Promise<Set<string> | undefined>;
  };
  for (const reference of knowledge.references) {
    const database = byName.get(reference.database);
    if (!database) continue;
    references += 1;
    const known = await columns(database, reference.table);
    if (!known) problems.push({ ...at(reference), problem: `table ${reference.table} does not exist` });
    else if (reference.column && !known.has(reference.column)) {
      problems.push({ ...at(reference), problem: `column ${reference.table}.${reference.column} does not exist` });
    }
  }
  for (const query of knowledge.verifiedQueries) {
    const database = byName.get(query.database);
    if (!database) continue;
    queries += 1;
    try {
      const sql = query.sql.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
        const value = query.parameters.find((parameter) => parameter.name === name)?.default;
        if (value === undefined) throw new Error(`parameter ${name} has no default to check it with`);
        return typeof value === 'number' ? String(value) : `'${value.replaceAll("'", "''")}'`;
      });
      await database.query(`SELECT * FROM (${sql}) AS verified_query LIMIT 0`, { maxRows: 1 });
    } catch (error) {
      problems.push({ ...at(query), problem: `verified query "${query.name}" fails: ${(error as Error).message}` });
    }
  }
  return { problems: dedupe(problems), unchecked, checked: { references, queries } };
}

const at = (item: { database: string; source: string }) => ({ database: item.database, source: item.source });

function dedupe(problems: KnowledgeProblem[]): KnowledgeProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.source}|${problem.problem}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
