/** Tools that look at the databases: list_tables, describe_table, run_sql, load_dataframe. */
import { z } from 'zod';
import { AppError } from '../../base/errors.js';
import type { Database } from '../../ports/database.js';
import { formatRows, truncateForModel } from '../format-for-model.js';
import { callOf, defineTool, pickDatabase, type ToolContext, type ToolOutcome, type WorkCell } from '../tool.js';

/** Which database; the first when left out (the system prompt lists them in order). */
export const databaseArgument = z.string().optional().describe('default: the first database listed');

/** Mistakes in the SQL or the request go back to the model; a broken connection does not. */
const MODEL_FACING = new Set(['SQL_REJECTED', 'QUERY_FAILED', 'QUERY_TIMEOUT', 'EXTRACT_TOO_LARGE', 'EXTRACT_FAILED']);

export async function modelFacing(action: () => Promise<ToolOutcome>): Promise<ToolOutcome> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof AppError && MODEL_FACING.has(error.code)) return { content: error.message, failed: true };
    throw error;
  }
}

export const listTables = defineTool({
  name: 'list_tables',
  description: "Every database's tables, with row counts.",
  schema: z.object({}),
  async execute(_, context) {
    const lines: string[] = [];
    for (const db of context.databases) {
      lines.push(`database ${db.name} (${db.dialect}):`);
      for (const table of await db.listTables()) {
        lines.push(`  ${table.name}: ${table.rows}${table.rowsExact ? '' : ' (estimate)'} rows`);
      }
    }
    return { content: lines.join('\n') };
  },
});

export const describeTable = defineTool({
  name: 'describe_table',
  description: "A table's columns (type, nulls, keys, comments) and sample values.",
  schema: z.object({ table: z.string().min(1), database: databaseArgument }),
  async execute({ table, database: name }, context) {
    const db = pickDatabase(context.databases, name);
    if (typeof db === 'string') return { content: db, failed: true };
    return modelFacing(async () => {
      const description = await db.describeTable(table);
      const lines = description.columns.map((column) => {
        const notes = [column.nullable ? 'nullable' : 'not null', column.key, column.comment]
          .filter(Boolean)
          .join(', ');
        const samples = column.samples?.length
          ? ` e.g. ${column.samples.map((sample) => JSON.stringify(sample)).join(', ')}`
          : '';
        return `  ${column.name} ${column.type} [${column.kind}] (${notes})${samples}`;
      });
      return { content: `${table}: ${description.rows} rows\n${lines.join('\n')}` };
    });
  },
});

export const runSql = defineTool({
  name: 'run_sql',
  description: 'One read-only SELECT; shows up to max_rows rows.',
  schema: z.object({
    sql: z.string().min(1),
    database: databaseArgument,
    max_rows: z.number().int().min(1).max(200).default(20),
  }),
  async execute({ sql, database: name, max_rows }, context) {
    const db = pickDatabase(context.databases, name);
    if (typeof db === 'string') return { content: db, failed: true };
    return modelFacing(async () => ({ content: await previewRows(db, sql, { maxRows: max_rows }, context) }));
  },
});

/**
 * A preview of a statement's rows, as run_sql and run_verified_query show it: the rows as a table for the model
 * (at most `maxRows`, saying when there are more), and the cell recorded in the turn's work for the report.
 */
export async function previewRows(
  db: Database,
  sql: string,
  options: { maxRows: number; heading?: string; cell?: Partial<WorkCell> },
  context: ToolContext,
): Promise<string> {
  const result = await db.query(sql, { maxRows: options.maxRows, signal: context.signal });
  const table = formatRows(
    result.columns.map((column) => column.name),
    result.rows,
  );
  const more = result.truncated
    ? `\n(first ${result.rows.length} rows; there are more)`
    : `\n(${result.rows.length} rows)`;
  const content = truncateForModel(`${options.heading ? `${options.heading}\n` : ''}${table}${more}`);
  await context.work.addCell(
    {
      language: 'sql',
      code: sql,
      database: db.name,
      rows: result.rows.length,
      output: truncateForModel(content, 2000),
      ...options.cell,
      ...callOf(context),
    },
    [],
    true,
    context.author,
  );
  return content;
}

export const loadDataframe = defineTool({
  name: 'load_dataframe',
  description: 'One read-only SELECT, all rows loaded into the kernel as the DataFrame `name`.',
  schema: z.object({
    sql: z.string().min(1),
    name: z.string().min(1),
    database: databaseArgument,
  }),
  async execute({ sql, name, database: dbName }, context) {
    const db = pickDatabase(context.databases, dbName);
    if (typeof db === 'string') return { content: db, failed: true };
    return modelFacing(async () => {
      const kernel = await context.kernel();
      const provenance = await db.extract(sql, kernel, name, {
        signal: context.signal,
        ...(context.onRows ? { onProgress: ({ rows }) => context.onRows?.(rows) } : {}),
      });
      await context.record({ kind: 'extract', database: db.name, sql, name });
      const dtypes = provenance.columns.map((column) => `${column.name}: ${column.dtype}`).join(', ');
      const content = `${name}: ${provenance.rows} rows loaded from ${db.name}. Columns: ${dtypes}`;
      await context.work.addCell(
        {
          language: 'sql',
          code: sql,
          database: db.name,
          dataframe: name,
          rows: provenance.rows,
          output: content,
          ...callOf(context),
        },
        [],
        true,
        context.author,
      );
      return { content };
    });
  },
});
