/** run_verified_query: a query someone verified, run by name from the knowledge store, and said so in the thread. */
import { z } from 'zod';
import type { VerifiedQuery } from '../../ports/knowledge.js';
import { callOf, defineTool, pickDatabase } from '../tool.js';
import { databaseArgument, modelFacing, previewRows } from './database-tools.js';

export const runVerifiedQuery = defineTool({
  name: 'run_verified_query',
  description: 'A verified query by name, with its parameters: a preview, or all rows as the DataFrame `dataframe`.',
  schema: z.object({
    name: z.string().min(1),
    database: databaseArgument,
    parameters: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
    dataframe: z.string().min(1).optional(),
  }),
  async execute({ name, database: dbName, parameters, dataframe }, context) {
    const db = pickDatabase(context.databases, dbName);
    if (typeof db === 'string') return { content: db, failed: true };
    const query = context.knowledge?.query(db.name, name);
    if (!query) return { content: `There is no verified query named '${name}' for ${db.name}.`, failed: true };
    const filledIn = filled(query, parameters ?? {});
    if ('error' in filledIn) return { content: filledIn.error, failed: true };
    const { sql } = filledIn;
    const label = `the verified query *${query.name}* (verified by ${query.verifiedBy})`;
    return modelFacing(async () => {
      const verified = { verifiedQuery: query.name };
      let content: string;
      if (dataframe) {
        const kernel = await context.kernel();
        const provenance = await db.extract(sql, kernel, dataframe, { signal: context.signal });
        await context.record({ kind: 'extract', database: db.name, sql: sql, name: dataframe });
        content = `${dataframe}: ${provenance.rows} rows loaded from ${db.name} by ${label}.`;
        await context.work.addCell(
          {
            language: 'sql',
            code: sql,
            database: db.name,
            dataframe,
            rows: provenance.rows,
            output: content,
            ...verified,
            ...callOf(context),
          },
          [],
          true,
          context.author,
        );
      } else {
        content = await previewRows(db, sql, { maxRows: 200, heading: `Rows of ${label}:`, cell: verified }, context);
      }
      await context.emit({ kind: 'text', markdown: `Using ${label}.` });
      return { content: `${content}\nTell the user the answer uses the verified query "${query.name}".` };
    });
  },
});

/** The query's SQL with its parameters as literals, or what is wrong with the values the model gave. */
function filled(query: VerifiedQuery, values: Record<string, string | number>): { sql: string } | { error: string } {
  const unknown = Object.keys(values).filter((key) => !query.parameters.some((parameter) => parameter.name === key));
  if (unknown.length > 0) {
    return {
      error: `The verified query '${query.name}' has no parameter ${unknown.join(', ')} (it takes: ${query.parameters.map((parameter) => parameter.name).join(', ') || 'none'}).`,
    };
  }
  let missing = '';
  const text = query.sql.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name] ?? query.parameters.find((parameter) => parameter.name === name)?.default;
    if (value === undefined) {
      missing = name;
      return '';
    }
    if (typeof value === 'number') return String(value);
    return `'${value.replaceAll("'", "''")}'`;
  });
  if (missing) return { error: `The verified query '${query.name}' needs the parameter ${missing}.` };
  const odd = Object.values(values).find((value) => typeof value === 'string' && /[\\\0]/.test(value));
  if (odd !== undefined) return { error: 'Parameter values may not contain backslashes or NUL characters.' };
  return { sql: text };
}
