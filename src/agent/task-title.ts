/**
 * Titles and one-line outputs for the task cards of a turn's progress: what an analyst would call
 * the step ("Count rows per table", "Load customers (5,634 rows)", "Run Python"), not the tool name.
 */
import type { ToolCall } from '../ports/llm.js';

const MAX_TITLE = 80;

export function callArguments(call: ToolCall): Record<string, unknown> {
  try {
    const parsed = JSON.parse(call.arguments) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The tables a query reads, in order of appearance, without the schema prefix. */
function tablesOf(sql: string): string[] {
  const names = [...sql.matchAll(/\b(?:from|join)\s+([`"[]?[\w.]+[`"\]]?)/gi)].map((match) =>
    (match[1] ?? '')
      .replace(/[`"[\]]/g, '')
      .split('.')
      .pop(),
  );
  return [...new Set(names.filter((name): name is string => Boolean(name)))];
}

function sqlTitle(sql: string): string {
  const tables = tablesOf(sql);
  const counts = /\bgroup\s+by\b/i.test(sql) ? 0 : (sql.match(/\bcount\s*\(/gi) ?? []).length;
  if (counts > 1 && tables.length > 1) return 'Count rows per table';
  if (counts > 0 && tables.length === 1) return `Count rows in ${tables[0]}`;
  if (counts > 0 && tables.length > 1) return `Count matches across ${tables.slice(0, 3).join(', ')}`;
  if (tables.length > 0) return `Query ${tables.slice(0, 3).join(', ')}${tables.length > 3 ? '…' : ''}`;
  return 'Run SQL';
}

/** A Python cell's first comment, when it says what the cell does. */
function pythonTitle(code: string): string {
  const comment = code
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.startsWith('#') && line.replace(/^#+/, '').trim().length > 3);
  if (!comment) return 'Run Python';
  const said = comment.replace(/^#+/, '').trim();
  return said.charAt(0).toUpperCase() + said.slice(1);
}

/** The card's title when the call starts. */
export function taskTitle(call: ToolCall): string {
  const args = callArguments(call);
  const title = (() => {
    switch (call.name) {
      case 'list_tables':
        return 'List tables';
      case 'describe_table':
        return text(args.table) ? `Describe ${text(args.table)}` : 'Describe a table';
      case 'run_sql':
        return sqlTitle(text(args.sql));
      case 'load_dataframe':
        return `Load ${text(args.name) || 'a DataFrame'}`;
      case 'run_python':
        return pythonTitle(text(args.code));
      case 'ask_user':
        return 'Ask a question';
      case 'draft_section':
        return text(args.title) ? `Draft section: ${text(args.title)}` : 'Draft a section';
      default:
        return call.name;
    }
  })();
  return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE - 1)}…` : title;
}

/** The call's code or SQL on one line, for the card's details. */
export function taskDetails(call: ToolCall): string | undefined {
  const args = callArguments(call);
  const code = text(args.sql) || text(args.code);
  if (!code) return undefined;
  const line = code.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** How many rows a successful call returned or loaded, from its result text. */
export function rowsOf(content: string): number | undefined {
  const match = /(?:^|\()(\d[\d,]*) rows\b/m.exec(content) ?? /: (\d[\d,]*) rows loaded/.exec(content);
  return match?.[1] ? Number(match[1].replace(/,/g, '')) : undefined;
}

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** The line of a failure that says what went wrong: the `error:` line, else the exception, else the first. */
export function failureLine(content: string): string {
  const lines = content
    .replace(ANSI_COLOUR, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const said = lines.find((line) => line.startsWith('error: '))?.slice('error: '.length);
  const error = said ?? lines.findLast((line) => /^\w*(Error|Exception)\b/.test(line)) ?? lines[0] ?? 'failed';
  return error.length > 150 ? `${error.slice(0, 149)}…` : error;
}

export const formatRows = (rows: number) => `${rows.toLocaleString('en-US')} ${rows === 1 ? 'row' : 'rows'}`;
