/**
 * Fine-tuning data from reviewed work. Pure: reports (and their logs) in, OpenAI-format lines out.
 *
 * - `examples` (supervised, chat format): one per accepted section, at the version the reviewer
 *   accepted. The conversation replays the section's cells as tool calls (a person's cell or edit
 *   is replayed as if the model had written it, so the model learns the corrected code), then the
 *   `draft_section` call and a closing assistant line.
 * - `preferences` (DPO format): for an accepted section, each earlier version a reviewer sent back
 *   with `revise` against the accepted one. The input is the system prompt and the request only,
 *   not the reviewer's feedback: both outputs must answer the same input, and the rejected version
 *   was written without that feedback.
 *
 * Discarded sections, drafts, sections awaiting revision and superseded versions never become
 * positive examples. A section without a request (and none in its log) is left out.
 */

import type { LogEntry } from '../agent/log-event.js';
import type { Cell, Report, Section, SectionVersion } from '../report/report.js';
import { type ToolDefinition, type TrainingToolName, toolDefinitions } from './training-tools.js';

export type { ToolDefinition } from './training-tools.js';

/** The system prompt of every example unless `options.system` replaces it. */
export const DEFAULT_TRAINING_SYSTEM_PROMPT =
  'You are tally, a data-analysis agent working in a chat thread. Explore the databases with run_sql, ' +
  'load data with load_dataframe, analyse it with run_python, then record what you found with draft_section ' +
  'for a reviewer to accept or send back.';

/** One call in an assistant message; `arguments` is a JSON string, as the model writes it. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: TrainingToolName; arguments: string };
}

export interface SystemMessage {
  role: 'system';
  content: string;
}
export interface UserMessage {
  role: 'user';
  content: string;
}
export interface AssistantTextMessage {
  role: 'assistant';
  content: string;
}
/** An assistant turn that only calls tools (no `content`). */
export interface AssistantToolCallMessage {
  role: 'assistant';
  tool_calls: ToolCall[];
}
/** A tool's result, answering the call with the same id. */
export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantTextMessage | AssistantToolCallMessage | ToolMessage;

/** One line of a supervised chat fine-tuning file. */
export interface ChatExample {
  messages: ChatMessage[];
  /** Definitions of the tools this example calls. */
  tools: ToolDefinition[];
  /** Tally makes one call per turn. */
  parallel_tool_calls: false;
}

/** One line of a DPO (preference) fine-tuning file. */
export interface PreferencePair {
  input: { messages: [SystemMessage, UserMessage] };
  preferred_output: [AssistantTextMessage];
  non_preferred_output: [AssistantTextMessage];
}

/** A session's reviewed work, as read from the store. */
export interface TrainingSession {
  threadKey: string;
  report: Report;
  /** The session log; only consulted for a section's request when the section has none. */
  log: LogEntry[];
}

export interface TrainingOptions {
  /** The system message of every example and pair. Default: DEFAULT_TRAINING_SYSTEM_PROMPT. */
  system?: string;
}

/** Builds the supervised examples and the preference pairs of every session's reviewed sections. */
export function buildTrainingData(
  sessions: TrainingSession[],
  options: TrainingOptions = {},
): { examples: ChatExample[]; preferences: PreferencePair[] } {
  const system: SystemMessage = { role: 'system', content: options.system ?? DEFAULT_TRAINING_SYSTEM_PROMPT };
  const examples: ChatExample[] = [];
  const preferences: PreferencePair[] = [];
  for (const session of sessions) {
    for (const section of session.report.sections) {
      const accepted = acceptedVersion(section);
      const request = accepted ? requestOf(section, session.log) : undefined;
      if (!accepted || request === undefined) continue;
      const user: UserMessage = { role: 'user', content: request };
      examples.push(chatExample(system, user, section, accepted));
      preferences.push(...preferencePairs(system, user, section, accepted));
    }
  }
  return { examples, preferences };
}

/** The version a reviewer accepted, when the section is accepted and that version is its latest. */
function acceptedVersion(section: Section): SectionVersion | undefined {
  if (section.status !== 'accepted') return undefined;
  const final = section.versions.at(-1);
  if (!final) return undefined;
  const wasAccepted = section.decisions.some(
    (decision) => decision.action === 'accept' && decision.version === final.version,
  );
  return wasAccepted ? final : undefined;
}

/**
 * The section's request; without one, the last request the agent took up at or before the first
 * draft, found by timestamp so the log's order does not matter.
 */
function requestOf(section: Section, log: LogEntry[]): string | undefined {
  if (section.request.trim() !== '') return section.request;
  const draftedAt = section.versions[0]?.createdAt;
  if (draftedAt === undefined) return undefined;
  let best: { text: string; at: number } | undefined;
  for (const entry of log) {
    if (entry.kind !== 'request' || entry.at > draftedAt || entry.text.trim() === '') continue;
    if (!best || entry.at >= best.at) best = { text: entry.text, at: entry.at };
  }
  return best?.text;
}

function chatExample(system: SystemMessage, user: UserMessage, section: Section, version: SectionVersion): ChatExample {
  const messages: ChatMessage[] = [system, user];
  const used = new Set<TrainingToolName>();
  let calls = 0;
  const call = (name: TrainingToolName, args: Record<string, unknown>, result: string) => {
    calls += 1;
    const id = `call_${calls}`;
    messages.push({
      role: 'assistant',
      tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: result });
    used.add(name);
  };
  for (const cell of version.cells) {
    const step = cellCall(cell);
    call(step.name, step.arguments, step.result);
  }
  const title = oneLine(version.title);
  call(
    'draft_section',
    { title: version.title, markdown: version.narrative, ...(section.stage ? { stage: section.stage } : {}) },
    `Section ${section.id} is posted for review.`,
  );
  messages.push({ role: 'assistant', content: `I drafted the section '${title}' for review.` });
  return { messages, tools: toolDefinitions(used), parallel_tool_calls: false };
}

/** The tool call that reproduces a cell, and the result the model read back. */
function cellCall(cell: Cell): { name: TrainingToolName; arguments: Record<string, unknown>; result: string } {
  const output = cell.output?.trim() ? cell.output : undefined;
  const database = cell.database === undefined ? {} : { database: cell.database };
  if (cell.language === 'python') {
    const figures = cell.figures.length > 0 ? `${cell.figures.length} figure(s) posted to the thread` : '(no output)';
    return { name: 'run_python', arguments: { code: cell.code }, result: output ?? figures };
  }
  if (cell.dataframe !== undefined) {
    const from = cell.database === undefined ? '' : ` from ${cell.database}`;
    const loaded =
      cell.rows === undefined
        ? `${cell.dataframe} loaded${from}.`
        : `${cell.dataframe}: ${cell.rows} rows loaded${from}.`;
    return {
      name: 'load_dataframe',
      arguments: { sql: cell.code, name: cell.dataframe, ...database },
      result: output ?? loaded,
    };
  }
  const rows = cell.rows === undefined ? 'ok' : `(${cell.rows} rows)`;
  return { name: 'run_sql', arguments: { sql: cell.code, ...database }, result: output ?? rows };
}

/** Each earlier version a reviewer sent back, paired with the accepted one (identical renderings are skipped). */
function preferencePairs(
  system: SystemMessage,
  user: UserMessage,
  section: Section,
  accepted: SectionVersion,
): PreferencePair[] {
  const preferred = renderVersion(accepted);
  return section.versions
    .filter((version) => version.version !== accepted.version)
    .filter((version) =>
      section.decisions.some((decision) => decision.action === 'revise' && decision.version === version.version),
    )
    .map((version) => renderVersion(version))
    .filter((rejected) => rejected !== preferred)
    .map((rejected) => ({
      input: { messages: [system, user] },
      preferred_output: [{ role: 'assistant', content: preferred }],
      non_preferred_output: [{ role: 'assistant', content: rejected }],
    }));
}

/** A version as one assistant answer: title, narrative, then each cell's code fenced. */
export function renderVersion(version: SectionVersion): string {
  const parts = [`## ${oneLine(version.title)}`, version.narrative.trim()];
  for (const cell of version.cells) {
    const where = [
      cell.database === undefined ? '' : `on \`${cell.database}\``,
      cell.dataframe === undefined ? '' : `loaded as \`${cell.dataframe}\``,
    ].filter(Boolean);
    if (where.length > 0) parts.push(`SQL ${where.join(', ')}:`);
    const fence = '`'.repeat(Math.max(3, longestBacktickRun(cell.code) + 1));
    parts.push(`${fence}${cell.language}\n${cell.code.trimEnd()}\n${fence}`);
  }
  return parts.filter((part) => part !== '').join('\n\n');
}

function longestBacktickRun(text: string): number {
  return Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
