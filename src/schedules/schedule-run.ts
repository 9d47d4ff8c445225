/**
 * One run of a schedule, as an ordinary session: a root message in the schedule's channel opens a
 * thread, and the request goes into the router as a message from the schedule's owner, so the run
 * has its log and people can revise it in the thread like any other. With `review: auto` each
 * drafted section is accepted as the owner would accept it, and the report is exported into the
 * thread at the end. A run that fails says so in its thread.
 */
import type { PendingQuestion } from '../agent/conversation.js';
import { AppError } from '../base/errors.js';
import type { Logger } from '../base/logger.js';
import type { ChannelKey, ChatUser, Inbound, Place, Post, ThreadKey } from '../ports/chat.js';
import type { Clock } from '../ports/clock.js';
import type { Schedule } from './schedule-file.js';
import type { RunOutcome } from './schedule-state.js';

/** Who a run speaks as: the owner, with the groups and place their permissions are decided by. */
export interface ScheduleSender {
  user: ChatUser;
  place: Place;
  /** Why the owner may not run it now (the access policy, checked at every run); nothing runs then. */
  refusal?: string;
}

export interface ScheduleRunOptions {
  /** The owner as the run's messages carry them; default the owner's id alone. */
  sender?: ScheduleSender;
  /** Posts the root message in the channel and opens its thread (the adapter's `openThread`). */
  openThread(channel: ChannelKey, text: string): Promise<ThreadKey>;
  post(threadKey: ThreadKey, post: Post): Promise<unknown>;
  /** Delivers a message into the thread's session (the router); resolves once it has been handled. */
  handle(inbound: Inbound): Promise<void>;
  /** What the thread's session waits for after its last turn, if anything. */
  pending(threadKey: ThreadKey): Promise<PendingQuestion | undefined>;
  /** Calls `onPost` with every post to the thread until the returned function is called. */
  watch(threadKey: ThreadKey, onPost: (post: Post) => void): () => void;
  clock: Clock;
  /** True once tally is stopping: an `auto` run sends no more decisions (the thread goes on by hand). */
  stopping(): boolean;
  logger: Logger;
}

export interface ScheduleRunResult {
  /** The run's thread, unless it could not be opened. */
  threadKey?: ThreadKey;
  outcome: RunOutcome;
}

/** More sections than any analysis drafts: an `auto` run that keeps drafting is stopped. */
const MAX_AUTO_DECISIONS = 30;

/** The root message that opens a run's thread. */
export const rootText = (schedule: Schedule) => `Scheduled: ${schedule.name} — ${schedule.request}`;

/** Runs the schedule once; `onThread` learns the thread as soon as it is open. Never throws. */
export async function runSchedule(
  schedule: Schedule,
  options: ScheduleRunOptions,
  onThread: (threadKey: ThreadKey) => Promise<void> = async () => {},
): Promise<ScheduleRunResult> {
  const logger = options.logger.child({ schedule: schedule.name });
  let threadKey: ThreadKey;
  try {
    threadKey = await options.openThread(schedule.channel, rootText(schedule));
  } catch (error) {
    logger.error({ err: error, channel: schedule.channel }, 'could not open the thread of a scheduled run');
    return { outcome: 'failed' };
  }
  await onThread(threadKey).catch((error: unknown) => logger.warn({ err: error }, 'could not note the run'));
  let failure: string | undefined;
  const stopWatching = options.watch(threadKey, (post) => {
    if (post.kind === 'error') failure ??= post.text;
  });
  const { sender } = options;
  if (sender?.refusal) {
    const note = `The scheduled run '${schedule.name}' did not run: ${sender.refusal} No report was made. Its owner can ask the people who run tally for access, or the schedule can be given another owner.`;
    await tell(options, threadKey, note);
    stopWatching();
    return { threadKey, outcome: 'failed' };
  }
  const say = (text: string) =>
    options.handle({
      threadKey,
      user: sender?.user ?? { id: schedule.owner },
      ...(sender ? { place: sender.place } : {}),
      text,
      receivedAt: options.clock.now(),
    });
  const stoppedOnError = async (): Promise<ScheduleRunResult> => {
    const exported = schedule.review === 'auto' ? ' No report was exported.' : '';
    await tell(options, threadKey, `The scheduled run '${schedule.name}' stopped on the error above.${exported}`);
    return { threadKey, outcome: 'failed' };
  };
  try {
    await say(schedule.request);
    if (failure !== undefined) return await stoppedOnError();
    if (schedule.review === 'review') {
      return { threadKey, outcome: (await options.pending(threadKey)) ? 'waiting' : 'finished' };
    }
    let accepted = 0;
    for (;;) {
      if (options.stopping()) return { threadKey, outcome: 'waiting' };
      const pending = await options.pending(threadKey);
      if (!pending) break;
      if (pending.kind !== 'review' || accepted >= MAX_AUTO_DECISIONS) {
        await tell(options, threadKey, waitingText(schedule, pending));
        return { threadKey, outcome: 'waiting' };
      }
      await say(`accept ${pending.section}`);
      accepted += 1;
      if (failure !== undefined) return await stoppedOnError();
    }
    // An answer without sections is the whole result: there is no report to export.
    if (accepted > 0) await say('report');
    if (failure !== undefined) return await stoppedOnError();
    return { threadKey, outcome: 'finished' };
  } catch (error) {
    logger.error({ err: error, threadKey }, 'scheduled run failed');
    const why =
      error instanceof AppError ? error.message : 'something went wrong on my side; the details are in the log';
    await options
      .post(threadKey, { kind: 'error', text: `The scheduled run '${schedule.name}' failed: ${why}` })
      .catch(() => {});
    return { threadKey, outcome: 'failed' };
  } finally {
    stopWatching();
  }
}

/** Why an `auto` run stops before its report: a question or a held cell only a person can answer. */
function waitingText(schedule: Schedule, pending: PendingQuestion): string {
  const what =
    pending.kind === 'approval'
      ? 'a cell waits for approval'
      : pending.kind === 'review'
        ? `it drafted more than ${MAX_AUTO_DECISIONS} sections`
        : 'the agent asked a question';
  return `The scheduled run '${schedule.name}' stopped accepting by itself: ${what}. The owner or a reviewer can go on here; say \`report\` to export the report.`;
}

async function tell(options: ScheduleRunOptions, threadKey: ThreadKey, markdown: string): Promise<void> {
  await options.post(threadKey, { kind: 'text', markdown }).catch(() => {});
}
