/**
 * One evaluation case as a person would go through it in a fresh thread: share the files, send
 * the message, answer the agent's questions and decide on its sections as the case file says,
 * until the agent stops asking; then read what the thread showed. The case's wall-clock budget
 * stops its running turn the way a person's "stop" does.
 */
import { type LogEntry, workCalls } from '../agent/log-event.js';
import { OUT_OF_SCOPE_TEXT } from '../agent/open-request.js';
import type { Inbound, Post, ThreadKey } from '../ports/chat.js';
import type { Store } from '../ports/store.js';
import { ReportBook } from '../report/report-book.js';
import { driveThread } from '../sessions/drive-thread.js';
import { localSharedFile } from '../sessions/local-shared-file.js';
import { logKey } from '../sessions/session-log.js';
import type { CaseGrounding, CaseOutcome, EvalCase } from './eval-case.js';
import { type HeadlessThreads, postText } from './headless-threads.js';

export const EVAL_USER = 'eval';
export const DEFAULT_ANSWER = 'Use your best judgement and go on.';
/** Questions and reviews answered per case at most, so a looping agent cannot hold a run. */
const MAX_ROUNDS = 12;

export interface CaseRunContext {
  handle(inbound: Inbound): Promise<void>;
  threads: HeadlessThreads;
  store: Store;
  wallMs: number;
}

export interface CaseRun {
  outcome: CaseOutcome;
  timedOut: boolean;
  /** The infrastructure error the thread was told, if its turn failed. */
  error?: string;
  toolCalls: number;
  failedToolCalls: number;
  grounding: CaseGrounding;
}

export async function runCase(evalCase: EvalCase, threadKey: ThreadKey, context: CaseRunContext): Promise<CaseRun> {
  const answers = [...(evalCase.answers ?? [])];
  const reviews = [...(evalCase.reviews ?? [])];
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void context.handle({ threadKey, user: { id: EVAL_USER }, text: 'stop', receivedAt: Date.now() });
  }, context.wallMs);
  try {
    await driveThread(
      {
        text: evalCase.message,
        files: await Promise.all(evalCase.files.map((file) => localSharedFile(file.path, { name: file.name }))),
      },
      {
        handle: context.handle,
        store: context.store,
        threadKey,
        userId: EVAL_USER,
        maxRounds: MAX_ROUNDS,
        stopped: () => timedOut,
        reply: (waiting) => {
          if (waiting.kind === 'review') {
            const step = reviews.shift() ?? 'accept';
            return typeof step === 'string' ? step : `revise: ${step.revise}`;
          }
          if (waiting.kind === 'approval') return 'run';
          if (waiting.kind === 'playbook') return undefined; // cases never save playbooks
          return answers.shift() ?? DEFAULT_ANSWER;
        },
      },
    );
  } finally {
    clearTimeout(timer);
  }
  const posts = context.threads.of(threadKey);
  const log = await context.store.range<LogEntry>(logKey(threadKey));
  const calls = workCalls(log);
  const error = posts.findLast((post): post is Extract<Post, { kind: 'error' }> => post.kind === 'error')?.text;
  return {
    outcome: await outcomeOf(posts, context.store, threadKey),
    timedOut,
    ...(error ? { error } : {}),
    toolCalls: calls.length,
    failedToolCalls: calls.filter((entry) => entry.failed).length,
    grounding: caseGrounding(log),
  };
}

/**
 * The figures of the texts the thread posted, from the log's grounding checks: only `posted` ones
 * count, as a `noted` text went back to the model and was redone.
 */
export function caseGrounding(log: LogEntry[]): CaseGrounding {
  const posted = log.flatMap((entry) => (entry.kind === 'grounding' && entry.outcome === 'posted' ? [entry] : []));
  return {
    figures: posted.reduce((total, entry) => total + entry.figures, 0),
    grounded: posted.reduce((total, entry) => total + entry.grounded, 0),
    ungrounded: posted.flatMap((entry) => entry.ungrounded),
  };
}

const FOLLOWING = /^Following playbook: .* \(([^()]+)\)$/;

async function outcomeOf(posts: Post[], store: Store, threadKey: ThreadKey): Promise<CaseOutcome> {
  const texts = posts.flatMap((post) => (post.kind === 'text' ? [post.markdown] : []));
  const playbook = texts.map((text) => FOLLOWING.exec(text)?.[1]).find((file) => file !== undefined);
  const document = await new ReportBook(store, threadKey).document([]);
  return {
    answer: texts.filter((text) => !FOLLOWING.test(text)).join('\n\n'),
    sections: document.sections.map((section) => section.narrative),
    questions: posts.flatMap((post) => (post.kind === 'question' ? [post.text] : [])),
    ...(playbook ? { playbook } : {}),
    declined: texts.some((text) => text.startsWith(OUT_OF_SCOPE_TEXT)),
    transcript: posts.map(postText).join('\n\n'),
  };
}
