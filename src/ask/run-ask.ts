/**
 * One unattended question in a fresh thread of a built tally: the question is sent, every section
 * (and playbook draft) is decided as `--review` says and every held cell as `--approve` says, by
 * the same clicks a reviewer would make, until the agent answers or stops; then the accepted
 * report is exported into `--out`, and the run is summed up.
 */

import { type LogEntry, workCalls } from '../agent/log-event.js';
import { ACTION_IDS, type Inbound, type Post, type SharedFile, type ThreadKey } from '../ports/chat.js';
import { latest, type Report } from '../report/report.js';
import { ReportBook } from '../report/report-book.js';
import { driveThread, reviewClick, type ThreadReply, type Waiting } from '../sessions/drive-thread.js';
import { logKey } from '../sessions/session-log.js';
import type { Tally } from '../wiring/create-tally.js';
import type { AskFlags } from './ask-flags.js';
import { type AskResult, type AskSection, EXIT_CODES, outcomeOf } from './ask-result.js';

/** The person the ask speaks for: the thread's owner, so their decisions count. */
export const ASK_USER = 'local';
/** Decisions sent at most; each section, revision or held cell takes one. */
const MAX_ROUNDS = 50;

export interface RunAskOptions {
  tally: Tally;
  threadKey: ThreadKey;
  /** Every post tally has made in the thread so far (the caller records them as they are posted). */
  posts: readonly Post[];
  /** A line for the person watching (what the ask decided in their place). */
  say: (line: string) => void;
  /** Shared with the question (`--file`). */
  files?: SharedFile[];
}

/** Runs the ask; `files`, tokens and model calls are the caller's to fill in. */
export async function runAsk(
  flags: AskFlags,
  options: RunAskOptions,
): Promise<Omit<AskResult, 'files' | 'tokens' | 'modelCalls' | 'elapsedMs'>> {
  const { tally, threadKey, posts, say } = options;
  let lastFrom = 0;
  const handle = (inbound: Inbound) => {
    lastFrom = posts.length;
    return tally.router.handle(inbound);
  };
  say(`\nyou> ${flags.question}\n`);
  const drive = await driveThread(
    { text: flags.question, files: options.files ?? [] },
    {
      handle,
      store: tally.store,
      threadKey,
      userId: ASK_USER,
      maxRounds: MAX_ROUNDS,
      reply: (waiting) => decide(waiting, flags, say),
    },
  );
  const lastPosts = posts.slice(lastFrom);
  const book = new ReportBook(tally.store, threadKey);
  const sections = sectionsOf(await book.load());
  const ended = outcomeOf(drive, lastPosts, { thread: threadKey, sections });
  if (flags.out && sections.some((section) => section.status === 'accepted')) {
    say('\nask> report (--out)\n');
    await handle({ threadKey, user: { id: ASK_USER }, text: 'report', receivedAt: Date.now() });
  } else if (flags.out) say(`\nNo section was accepted, so no report was exported to ${flags.out}.`);
  const log = await tally.store.range<LogEntry>(logKey(threadKey));
  const calls = workCalls(log);
  return {
    outcome: ended.outcome,
    exitCode: EXIT_CODES[ended.outcome],
    request: flags.question,
    ...(ended.answer !== undefined ? { answer: ended.answer } : {}),
    ...(ended.message !== undefined ? { message: ended.message } : {}),
    ...(drive.waiting ? { waiting: drive.waiting } : {}),
    thread: threadKey,
    sections,
    toolCalls: calls.length,
    failedToolCalls: calls.filter((entry) => entry.failed).length,
  };
}

/** The click a reviewer would make, as the flags say; undefined leaves the thread waiting. */
function decide(waiting: Waiting, flags: AskFlags, say: (line: string) => void): ThreadReply | undefined {
  if (waiting.kind === 'review' || waiting.kind === 'playbook') {
    if (flags.review === 'stop') return undefined;
    const what = waiting.kind === 'review' ? `${waiting.section} (version ${waiting.version})` : 'the playbook draft';
    say(`\nask> ${flags.review} ${what} (--review ${flags.review})\n`);
    return reviewClick(flags.review, waiting);
  }
  if (waiting.kind === 'approval') {
    if (!flags.approve) return undefined;
    say(`\nask> ${flags.approve} the held ${waiting.language} cell (--approve ${flags.approve})\n`);
    return { text: '', action: { id: ACTION_IDS[flags.approve], value: waiting.callId } };
  }
  return undefined; // a question: no one is here to answer it
}

function sectionsOf(report: Report): AskSection[] {
  return report.sections.map((section) => {
    const current = latest(section);
    return {
      id: section.id,
      title: current.title,
      ...(section.stage ? { stage: section.stage } : {}),
      status: section.status,
      version: current.version,
    };
  });
}
