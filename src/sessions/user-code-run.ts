/**
 * A person's own code block, run without the model: SQL as a preview table, Python in the session
 * kernel. What runs is work behind the next section like any cell, written by a human.
 */

import { randomUUID } from 'node:crypto';
import { formatRows } from '../agent/format-for-model.js';
import type { KernelJournalEntry, Workbench } from '../agent/tool.js';
import { describeExecution } from '../agent/tools/kernel-tools.js';
import { AppError } from '../base/errors.js';
import type { Post } from '../ports/chat.js';
import type { Database } from '../ports/database.js';
import type { Kernel } from '../ports/sandbox.js';
import type { UserCode } from './user-code.js';

export interface UserCodeContext {
  kernel: () => Promise<Kernel>;
  record: (entry: KernelJournalEntry) => Promise<void>;
  emit: (post: Post) => Promise<void>;
  work: Workbench;
  databases: Database[];
  signal: AbortSignal;
  /** Keeps what the cell showed as a result the agent's figures may quote (and its code's parameters). */
  keep?: (source: { id: string; tool: string; text: string; code: string }) => void;
}

export async function runUserCode(code: UserCode, context: UserCodeContext): Promise<void> {
  const { emit, work, signal } = context;
  const call = `user-${randomUUID().slice(0, 8)}`;
  if (code.language === 'sql') {
    const database = context.databases[0];
    if (!database) throw new Error('no database is configured');
    try {
      const result = await database.query(code.code, { maxRows: 50, signal });
      const columns = result.columns.map((column) => column.name);
      context.keep?.({ id: call, tool: 'user_sql', text: formatRows(columns, result.rows), code: code.code });
      await work.addCell(
        { language: 'sql', code: code.code, database: database.name, rows: result.rows.length, call },
        [],
        true,
        'human',
      );
      await emit({
        kind: 'table',
        columns,
        rows: result.rows,
        truncated: result.truncated,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.code === 'DATABASE_UNAVAILABLE') throw error;
      await work.addCell({ language: 'sql', code: code.code, database: database.name }, [], false, 'human');
      await emit({ kind: 'code', language: 'sql', code: code.code, error: error.message });
    }
    return;
  }
  const execution = await (await context.kernel()).run(code.code, { signal });
  const ok = execution.error === undefined;
  if (ok) await context.record({ kind: 'python', code: code.code });
  const figures = execution.figures.map((figure) => ({
    png: figure.png,
    title: figure.title ?? 'Figure',
    alt: figure.description ?? 'chart from your code',
  }));
  for (const figure of figures) await emit({ kind: 'chart', ...figure });
  const output = describeExecution(execution);
  if (ok) context.keep?.({ id: call, tool: 'user_python', text: output, code: code.code });
  await work.addCell(
    { language: 'python', code: code.code, output: output.slice(0, 2000), call },
    figures,
    ok,
    'human',
  );
  await emit({ kind: 'code', language: 'python', code: code.code, ...(ok ? { output } : { error: output }) });
}
