/**
 * A kernel's journal: the cells that succeeded, each with the time limit it ran under, and their
 * replay into a fresh interpreter after a restart, so a session keeps its variables. A replayed cell
 * that fails or runs over is counted and the replay goes on; one that kills or hangs the kernel
 * costs a fresh container, and what was replayed before it is gone.
 */
import { awaitReply } from './await-reply.js';
import { succeeded } from './execution.js';

interface JournalEntry {
  code: string;
  timeoutMs: number;
}

/** What a replay needs of the kernel it replays into. */
export interface ReplayTarget {
  /** Sends a cell with this output cap and resolves with its reply. */
  request: (code: string, outputLimitBytes: number) => Promise<Record<string, unknown>>;
  /** Interrupts the cell that runs (SIGINT). */
  interrupt: () => Promise<void>;
  /** Puts a fresh container in place of one a replayed cell killed or hung. */
  replaceContainer: () => Promise<unknown>;
  /** How long an interrupted cell may take to stop. */
  graceMs: number;
}

/** Replayed output is thrown away; a small cap keeps replies short. */
const REPLAY_OUTPUT_LIMIT = 1024;

type ReplayOutcome = 'replayed' | 'failed' | 'reset';

export class KernelJournal {
  private readonly entries: JournalEntry[] = [];

  /** Cells journaled so far. */
  get length(): number {
    return this.entries.length;
  }

  /** Journals a cell that succeeded, with the time limit it ran under. */
  record(code: string, timeoutMs: number): void {
    this.entries.push({ code, timeoutMs });
  }

  /** Replays every cell in order; resolves with how many succeeded in the interpreter that is left. */
  async replay(target: ReplayTarget): Promise<number> {
    let replayed = 0;
    for (const entry of this.entries) {
      const outcome = await replayOne(entry, target);
      if (outcome === 'replayed') replayed += 1;
      else if (outcome === 'reset') replayed = 0; // a fresh interpreter again: what came before is gone
    }
    return replayed;
  }
}

/** Replays one cell under the time limit it first ran with. */
async function replayOne(entry: JournalEntry, target: ReplayTarget): Promise<ReplayOutcome> {
  const pending = target.request(entry.code, REPLAY_OUTPUT_LIMIT);
  let outcome = await awaitReply(pending, entry.timeoutMs);
  if (outcome.kind === 'timeout') {
    await target.interrupt();
    outcome = await awaitReply(pending, target.graceMs);
  }
  if (outcome.kind === 'reply') return succeeded(outcome.reply) ? 'replayed' : 'failed';
  if (outcome.kind === 'lost') return 'failed'; // an over-long reply: the kernel lives on
  await target.replaceContainer();
  return 'reset';
}
