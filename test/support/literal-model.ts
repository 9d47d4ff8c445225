/**
 * A scripted model that follows its prompts literally (issue 22): it knows only the sources listed
 * under "Databases and their tables" and "For this request" in the prompts it is sent. In its first reply (triage) it finds the
 * columns a request uses and declines the request (`out_of_scope`, naming the columns) unless every
 * one of them is listed there; when it acts, it writes code only with the columns and the file path
 * it was shown. A model like this fails on shared files whose columns the prompts do not list, which
 * is what the profiles of shared files are for.
 *
 * What it answers is not its own work. For DABench it reads the case's CSV with the shown columns
 * (so a wrong path or column fails the cell), then prints the labelled values as the DABench oracle
 * does: the cell prints the labels, it does not compute them (see `labelCell`), and the answer
 * quotes what the cell printed, so every figure is grounded. For the golden suite it checks the telco
 * columns the request names at triage, then hands every step to the golden oracle, which computes
 * its answers with SQL and pandas. The model proves what the prompts show, not what a model can do.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { requestOfTurnMessage } from '../../src/agent/turn-message.js';
import {
  callTool,
  isFirstRequest,
  isPlanRequest,
  type ScriptContext,
  type ScriptStep,
  say,
} from '../../src/demo/scripted-model-server.js';
import { labelCell, labelledAnswer } from '../../src/eval/dabench-oracle.js';
import { DABENCH_DIR, type DabenchItem } from '../../src/eval/dabench-suite.js';
import { loadGoldenCases } from '../../src/eval/golden/golden-suite.js';
import { parseCsv, TELCO_TABLES } from '../../telco_data/index.js';
import { goldenOracleStep } from './golden-oracle.js';

/** Said in a triage reason when the listed sources lack a column the request uses. */
export const NOT_LISTED = 'the sources listed do not name the columns';

/** A request's step, or undefined when the request is not one this part of the model knows. */
type LiteralStep = (context: ScriptContext) => ScriptStep | undefined;

// ---- what the prompts show -------------------------------------------------------------------

/** One entry of the sources block: a table (`user_payments`) or a shared file (`/inputs/uploads/x.csv`). */
export interface ListedSource {
  name: string;
  /** The entry as listed: its line and any continuation lines (sheets, notes). */
  text: string;
}

/** The headings sources are listed under: the system prompt's overview, a request's own message. */
const SOURCES_HEADING = /^(?:Databases and their tables|For this request)[^\n]*:\n/gm;

/** The sources listed under the sources headings of the prompts' text (see {@link shownText}). */
export function listedSources(shown: string): ListedSource[] {
  const sources: ListedSource[] = [];
  for (const heading of shown.matchAll(SOURCES_HEADING)) {
    for (const line of shown.slice(heading.index + heading[0].length).split('\n')) {
      const entry = /^- (\S+) \(/.exec(line);
      const last = sources.at(-1);
      if (entry?.[1]) sources.push({ name: entry[1], text: line });
      else if (last && line.startsWith('  ')) last.text += `\n${line}`;
      else if (line.trim() === '') break;
    }
  }
  // A table listed with "the columns of user_churn" has that table's columns: read them there.
  return sources.map((source) => {
    const other = /\): the columns of (\S+)$/.exec(source.text)?.[1];
    const columns =
      other &&
      sources
        .find((candidate) => candidate.name === other)
        ?.text.split('): ')
        .slice(1)
        .join('): ');
    return columns
      ? { ...source, text: `${source.text.slice(0, source.text.lastIndexOf(': the columns of '))}: ${columns}` }
      : source;
  });
}

/** Whether the entry lists the column, as `name type` after the colon or a comma. */
export function listsColumn(source: ListedSource, column: string): boolean {
  return new RegExp(`(?:: |, )${escapeRegExp(column)} [\\w\\[\\]]+`).test(source.text);
}

/** What the prompts of a request show: its system prompt and the user's messages (what was found for each request). */
function shownText(context: ScriptContext): string {
  return context.messages
    .filter((message) => message.role === 'system' || message.role === 'user')
    .map((message) => String(message.content ?? ''))
    .join('\n\n');
}

/** The first request of the thread, without what was found for it. */
function requestOf(context: ScriptContext): string {
  return requestOfTurnMessage(String(context.messages.find((message) => message.role === 'user')?.content ?? ''));
}

// ---- what a request uses ---------------------------------------------------------------------

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The pattern of a column name as a request may write it: any case, `_`, `.` or space between its
 * words, and a word ending in a dot as an abbreviation (`Mar.2019` for "March 2019").
 */
function mentionPattern(column: string): RegExp {
  const words = column.split(/([\s_.]+)/);
  const pattern = words
    .map((part, index) => {
      if (index % 2 === 0) return escapeRegExp(part);
      return part.includes('.') ? '\\w*[\\s_.]*' : '[\\s_.]+';
    })
    .join('');
  return new RegExp(`(?<!\\w)${pattern}(?!\\w)`, 'i');
}

/** The columns among `columns` that the text mentions, in `columns`' order. */
export function mentionedColumns(text: string, columns: readonly string[]): string[] {
  return columns.filter((column) => column.trim() !== '' && mentionPattern(column).test(text));
}

// ---- DABench ---------------------------------------------------------------------------------

/** A DABench question with the header of its CSV: where the model finds the columns a question uses. */
export interface LiteralDabenchCase {
  item: DabenchItem;
  columns: string[];
}

/** The header of a CSV, read from its first 64 KiB. */
async function csvHeader(path: string): Promise<string[]> {
  const file = await open(path);
  try {
    const { buffer, bytesRead } = await file.read({ buffer: Buffer.alloc(65_536) });
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    return parseCsv(text.slice(0, text.indexOf('\n') + 1 || undefined))[0]?.fields ?? [];
  } finally {
    await file.close();
  }
}

/** The items with their CSV headers, read from the suite's tables in `dir`. */
export async function withCsvColumns(items: DabenchItem[], dir = DABENCH_DIR): Promise<LiteralDabenchCase[]> {
  return Promise.all(
    items.map(async (item) => ({ item, columns: await csvHeader(join(dir, 'da-dev-tables', item.file_name)) })),
  );
}

/** The columns of its CSV a question uses: those its question and constraints mention. */
export function usedColumns({ item, columns }: LiteralDabenchCase): string[] {
  return mentionedColumns(`${item.question}\n${item.constraints}`, columns);
}

/** The cell: the shared file read with the shown columns only, then the labels printed. */
export function dabenchCell(path: string, columns: string[], item: DabenchItem): string {
  const read = `df = pd.read_csv(${JSON.stringify(path)}, usecols=[${columns.map((name) => JSON.stringify(name)).join(', ')}])`;
  return ['import pandas as pd', read, 'print("columns read:", ", ".join(df.columns))', labelCell(item)].join('\n');
}

/** The result of the run_python call with exactly this code, if it ran. */
function resultOf(context: ScriptContext, code: string): string | undefined {
  const ids = new Set(
    context.messages.flatMap((message) =>
      (message.tool_calls ?? [])
        .filter((call) => call.function.name === 'run_python' && codeOf(call.function.arguments) === code)
        .map((call) => call.id),
    ),
  );
  const result = context.messages.find((message) => message.role === 'tool' && ids.has(String(message.tool_call_id)));
  return result === undefined ? undefined : String(result.content ?? '');
}

function codeOf(json: string): string | undefined {
  try {
    const parsed = JSON.parse(json) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

function dabenchStep(cases: readonly LiteralDabenchCase[]): LiteralStep {
  // Longest question first: a question that is a prefix of another must not take its place.
  const byLength = [...cases].sort((left, right) => right.item.question.length - left.item.question.length);
  return (context) => {
    const request = requestOf(context);
    const found = byLength.find((candidate) => request.includes(candidate.item.question));
    if (!found) return undefined;
    const used = usedColumns(found);
    const sources = listedSources(shownText(context));
    const missing = used.filter((column) => !sources.some((source) => listsColumn(source, column)));
    if (isFirstRequest(context) && (used.length === 0 || missing.length > 0)) {
      const listed = sources.map((source) => source.name).join(', ') || 'none';
      const reason =
        used.length === 0
          ? `I find no column of a listed source that the question uses (listed: ${listed})`
          : `${NOT_LISTED} ${missing.join(', ')} that the question uses (listed: ${listed})`;
      return callTool('triage', { verdict: 'out_of_scope', reason });
    }
    if (isPlanRequest(context)) return say('1. Read the shared file.\n2. Answer in the requested format.');
    const file = sources.find((source) => source.name.startsWith('/') && used.every((c) => listsColumn(source, c)));
    if (!file || used.length === 0) {
      return say(`I was shown no shared file with the columns ${used.join(', ')}, so I wrote no code.`);
    }
    const code = dabenchCell(file.name, used, found.item);
    const result = resultOf(context, code);
    if (result === undefined) return callTool('run_python', { code });
    if (/^error: /m.test(result)) return say(`The cell failed, so I have no answer:\n${result}`);
    return say(labelledAnswer(found.item));
  };
}

// ---- the golden suite ------------------------------------------------------------------------

/** The telco columns a request names: `table.column` for each column of a table it names. */
export function namedTelcoColumns(request: string): Array<{ table: string; column: string }> {
  return TELCO_TABLES.filter((table) => new RegExp(`(?<!\\w)${table.name}(?!\\w)`).test(request)).flatMap((table) =>
    mentionedColumns(
      request,
      table.columns.map((column) => column.name),
    ).map((column) => ({ table: table.name, column })),
  );
}

function goldenStep(): LiteralStep {
  const oracle = goldenOracleStep();
  const messages = loadGoldenCases().map((evalCase) => evalCase.message);
  return (context) => {
    const request = requestOf(context);
    if (!messages.some((message) => request.startsWith(message))) return undefined;
    if (isFirstRequest(context)) {
      const sources = listedSources(shownText(context));
      const missing = namedTelcoColumns(request)
        .filter(({ table, column }) => !sources.some((source) => source.name === table && listsColumn(source, column)))
        .map(({ table, column }) => `${table}.${column}`);
      if (missing.length > 0) {
        const reason = `${NOT_LISTED} ${missing.join(', ')} that the request uses`;
        return callTool('triage', { verdict: 'out_of_scope', reason });
      }
    }
    return oracle(context);
  };
}

// ---- the script ------------------------------------------------------------------------------

export interface LiteralModelOptions {
  /** The DABench cases it knows, with their CSV headers (see {@link withCsvColumns}). */
  dabench?: readonly LiteralDabenchCase[];
  /** Whether it knows the telco golden suite. Default false. */
  golden?: boolean;
  /** Model requests the script serves (one step each). Default 2,000. */
  copies?: number;
}

/** The script: one step for every request, which finds its case in the conversation. */
export function literalModel(options: LiteralModelOptions): ScriptStep[] {
  const parts = [...(options.dabench ? [dabenchStep(options.dabench)] : []), ...(options.golden ? [goldenStep()] : [])];
  const step = (context: ScriptContext): ScriptStep => {
    for (const part of parts) {
      const reply = part(context);
      if (reply) return reply;
    }
    return say(`literal model: I know no case that starts like this request: ${requestOf(context).slice(0, 80)}`);
  };
  return Array.from({ length: options.copies ?? 2000 }, () => step);
}
