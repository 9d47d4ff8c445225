/**
 * What a `tally ask` run came to, for people and scripts: the outcome and its exit code, read from
 * how the drive of the thread ended and what the thread was last shown; the sections with their
 * status, the files written, and what the run used (tool calls, tokens, time).
 */
import { OUT_OF_SCOPE_TEXT } from '../agent/open-request.js';
import { NOT_GRANTED_TEXT } from '../ports/access.js';
import type { Post } from '../ports/chat.js';
import type { SectionStatus } from '../report/report.js';
import type { DriveResult, Waiting } from '../sessions/drive-thread.js';

/**
 * `answered`; `review_stopped`: `--review stop` left the first draft undecided; `needs_answer`: a
 * clarifying question no one can answer here; `approval_needed`: a cell held without `--approve`;
 * `out_of_scope`: the data cannot answer it; `not_granted`: the access policy grants the console user
 * (TALLY_CONSOLE_USER) nothing to answer it with; `failed`: the agent gave up, hit a limit, or the model or
 * another part failed.
 */
export type AskOutcome =
  | 'answered'
  | 'review_stopped'
  | 'needs_answer'
  | 'approval_needed'
  | 'out_of_scope'
  | 'not_granted'
  | 'failed';

/** The process's exit code per outcome (the README's *One-shot use* lists them). */
export const EXIT_CODES: Record<AskOutcome, number> = {
  answered: 0,
  review_stopped: 0,
  failed: 1,
  needs_answer: 2,
  approval_needed: 2,
  not_granted: 2,
  out_of_scope: 3,
};

export interface AskSection {
  id: string;
  title: string;
  stage?: string;
  status: SectionStatus;
  /** The latest version. */
  version: number;
}

export interface AskResult {
  outcome: AskOutcome;
  exitCode: number;
  request: string;
  /** The agent's final answer, when it answered. */
  answer?: string;
  /** Why the run ended without an answer, and what to do. */
  message?: string;
  /** What the thread was left waiting on (a question, a held cell, an undecided draft). */
  waiting?: Waiting;
  thread: string;
  sections: AskSection[];
  /** Absolute paths of the charts and report files written. */
  files: string[];
  toolCalls: number;
  failedToolCalls: number;
  modelCalls: number;
  tokens: { prompt: number; completion: number };
  elapsedMs: number;
}

/** The outcome, with the answer or the message that goes with it. */
export function outcomeOf(
  drive: DriveResult,
  lastPosts: Post[],
  context: { thread: string; sections: AskSection[] },
): Pick<AskResult, 'outcome' | 'answer' | 'message'> {
  const { waiting } = drive;
  if (drive.end === 'round_limit') {
    return {
      outcome: 'failed',
      message: `Stopped after ${drive.rounds} decisions without an answer: the agent kept asking for more.`,
    };
  }
  if (waiting) return { outcome: outcomeWaiting(waiting), message: waitingMessage(waiting, context) };
  const last = lastPosts.findLast((post) => post.kind === 'text' || post.kind === 'error');
  if (last?.kind === 'error') return { outcome: 'failed', message: last.text };
  if (last?.kind !== 'text') return { outcome: 'failed', message: 'The thread ended without an answer.' };
  if (last.markdown.startsWith(NOT_GRANTED_TEXT)) return { outcome: 'not_granted', message: last.markdown };
  if (last.markdown.startsWith(OUT_OF_SCOPE_TEXT)) {
    return { outcome: 'out_of_scope', message: last.markdown.split('\n\n')[0] ?? last.markdown };
  }
  return { outcome: 'answered', answer: last.markdown };
}

function outcomeWaiting(waiting: Waiting): AskOutcome {
  if (waiting.kind === 'review' || waiting.kind === 'playbook') return 'review_stopped';
  if (waiting.kind === 'approval') return 'approval_needed';
  return 'needs_answer';
}

function waitingMessage(waiting: Waiting, context: { thread: string; sections: AskSection[] }): string {
  const nobody = `An ask runs in its own thread (${context.thread}) and nothing picks that thread up again; \`tally chat\` works in a thread of its own.`;
  if (waiting.kind === 'review' || waiting.kind === 'playbook') {
    const section = context.sections.find((candidate) => waiting.kind === 'review' && candidate.id === waiting.section);
    const what = section
      ? `section ${section.id} '${section.title}' (version ${section.version})`
      : `the playbook draft '${waiting.kind === 'playbook' ? waiting.title : ''}'`;
    return `Stopped at the first draft (--review stop): ${what} is saved undecided. ${nobody} To finish, run the ask again with --review accept, or ask in tally chat and review each section there.`;
  }
  if (waiting.kind === 'approval') {
    return `A ${waiting.language} cell is held for approval (${waiting.reason}) and an ask cannot wait for a reply. Run again with --approve run (run every held cell) or --approve skip (skip them), or set TALLY_APPROVE=never.`;
  }
  const choices = waiting.choices?.length ? ` (${waiting.choices.join(' / ')})` : '';
  return `The agent asks: ${waiting.text}${choices}. An ask cannot answer questions: ask again with the answer in the question, or use tally chat.`;
}

/** The closing lines a person reads under the thread's transcript: how it ended, the answer, what it made. */
export function summaryLines(result: AskResult): string[] {
  const seconds = (result.elapsedMs / 1000).toFixed(1);
  const tokens = (result.tokens.prompt + result.tokens.completion).toLocaleString('en-US');
  const outcome = result.outcome.replaceAll('_', ' ');
  const lines = [
    `── ${outcome} in ${seconds} s (${result.toolCalls} tool calls, ${tokens} tokens, exit ${result.exitCode}) ──`,
  ];
  if (result.answer) lines.push(result.answer);
  if (result.sections.length > 0) {
    const sections = result.sections.map((section) => `${section.id} '${section.title}' ${section.status}`);
    lines.push(`sections: ${sections.join(', ')}`);
  }
  if (result.files.length > 0) lines.push('files:', ...result.files.map((file) => `  ${file}`));
  return lines;
}
