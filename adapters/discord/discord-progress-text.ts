/**
 * A turn's progress as the text of one Discord message: a header with the state and the time taken,
 * the plan as a checklist (☐ pending, ▶ in progress, ☑ done, ✗ failed) and the tool steps (◦ waiting,
 * ⏳ running, ✓ done, ✗ failed, ↻ repaired) with their short outputs. Kept under Discord's 2,000
 * characters by folding the oldest finished steps into "… n more steps". Pure: no I/O.
 */
import type { ProgressTask, TaskStatus, TurnProgress } from '../../src/ports/chat.js';

/** Discord's limit for a message's content. */
export const PROGRESS_CHARS = 2000;
/** No step line is longer than this; long titles and outputs are cut with "…". */
const LINE_CHARS = 200;

export const PLAN_MARKS: Record<TaskStatus, string> = {
  pending: '☐',
  in_progress: '▶',
  complete: '☑',
  error: '✗',
};

export const STEP_MARKS = {
  pending: '◦',
  in_progress: '⏳',
  complete: '✓',
  error: '✗',
  /** A retry that worked after a failure. */
  repaired: '↻',
} as const;

export interface ProgressTextOptions {
  /** The clock the elapsed time is read against: now while running, when it ended after. */
  now: number;
  /** A transient line under the steps ("… stopping"), from a status post during the turn. */
  note?: string;
  /** Default {@link PROGRESS_CHARS}. */
  maxChars?: number;
}

/** Markdown characters in titles and outputs shown as themselves (SQL and tracebacks are full of them). */
const plain = (text: string) => text.replace(/\s+/g, ' ').replace(/([\\*_~`|<>])/g, '\\$1');

const cut = (text: string, chars: number) => (text.length <= chars ? text : `${text.slice(0, chars - 1)}…`);

export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min${seconds % 60 ? ` ${seconds % 60} s` : ''}`;
}

function header(progress: TurnProgress, now: number): string {
  const elapsed = formatElapsed(now - progress.startedAt);
  if (progress.state === 'running') return `**Working…** · ${elapsed}`;
  // Failed: an error, or someone stopped the turn; the thread says which.
  if (progress.state === 'failed') return `**Stopped** · ${elapsed}`;
  const waiting = progress.tasks.some((task) => task.output === 'waiting for you');
  return `**${waiting ? 'Waiting for you' : 'Done'}** · ${elapsed}`;
}

function stepMark(task: ProgressTask): string {
  if (task.status === 'complete' && task.output === 'repaired') return STEP_MARKS.repaired;
  return STEP_MARKS[task.status];
}

function stepLine(task: ProgressTask): string {
  let said = task.output;
  if (task.status === 'in_progress' && task.rows) {
    const { received, expected } = task.rows;
    said = `${received.toLocaleString('en-US')}${expected === undefined ? '' : ` of ${expected.toLocaleString('en-US')}`} rows`;
  }
  const output = said ? ` — ${plain(said)}` : '';
  return cut(`${stepMark(task)} ${plain(task.title)}${output}`, LINE_CHARS);
}

const finished = (task: ProgressTask) => task.status === 'complete';

/**
 * The message text. When it would be too long, the oldest completed steps are folded first, then
 * the oldest of any kind, then completed plan steps; the order of what is shown never changes.
 */
export function renderProgress(progress: TurnProgress, options: ProgressTextOptions): string {
  const maxChars = options.maxChars ?? PROGRESS_CHARS;
  const plan = progress.plan.map((step, index) => ({
    line: cut(`${PLAN_MARKS[step.status]} ${index + 1}. ${plain(step.title)}`, LINE_CHARS),
    done: step.status === 'complete',
  }));
  const steps = progress.tasks.map((task) => ({ line: stepLine(task), done: finished(task) }));
  let foldedSteps = 0;
  let foldedPlan = 0;
  const compose = () => {
    const lines = [header(progress, options.now)];
    if (plan.length > 0 || foldedPlan > 0) {
      lines.push('**Plan**');
      if (foldedPlan > 0) lines.push(`… ${foldedPlan} more done`);
      lines.push(...plan.map((step) => step.line));
    }
    if (steps.length > 0 || foldedSteps > 0) {
      lines.push('**Steps**');
      if (foldedSteps > 0) lines.push(`… ${foldedSteps} more ${foldedSteps === 1 ? 'step' : 'steps'}`);
      lines.push(...steps.map((step) => step.line));
    }
    if (options.note) lines.push(`*… ${plain(cut(options.note, LINE_CHARS))}*`);
    return lines.join('\n');
  };
  let text = compose();
  while (text.length > maxChars) {
    const doneStep = steps.findIndex((step) => step.done);
    const doneInPlan = plan.findIndex((step) => step.done);
    if (doneStep >= 0 || steps.length > 1) {
      steps.splice(Math.max(doneStep, 0), 1);
      foldedSteps += 1;
    } else if (doneInPlan >= 0) {
      plan.splice(doneInPlan, 1);
      foldedPlan += 1;
    } else break;
    text = compose();
  }
  return cut(text, maxChars);
}

/** The header of a progress message a dead process left half-edited, once the thread's next turn stopped it. */
export const LEFT_OPEN_HEADER = '**Stopped** · tally restarted while working on this; it went on below.';

/** A progress message a dead process left: its last picture, under LEFT_OPEN_HEADER. */
export function leftOpenText(content: string): string {
  const [, ...rest] = content.split('\n');
  return [LEFT_OPEN_HEADER, ...rest].join('\n');
}
