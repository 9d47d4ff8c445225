/**
 * The lines of the console's live progress block (a terminal redraws them in place): the plan as a
 * checklist, then one line per tool step with its mark (a spinner while it runs), elapsed time and
 * short output, and a progress bar under a long step. Pure: the clock comes in as `now`.
 */
import type { ProgressTask, TaskStatus, TurnProgress } from '../../src/ports/chat.js';
import { meterOf, progressBar } from './progress-bar.js';
import {
  clip,
  doneMark,
  elapsedOf,
  formatElapsed,
  isDone,
  oneLine,
  planMark,
  spinnerFrame,
} from './progress-format.js';

/** What a frozen block above (left in place when another post was printed) already shows. */
export interface ShownAbove {
  /** Tasks that were finished there: not repeated. */
  taskIds: Set<string>;
  /** The plan's statuses there: the plan is shown again only when a step started or failed since. */
  plan: TaskStatus[];
}

export interface BlockOptions {
  now: number;
  /** The terminal's width: longer lines are cut (a wrapped line would spoil the redraw). */
  columns: number;
  /** The most lines the block may take: a block taller than the screen cannot be redrawn. */
  maxLines: number;
  shownAbove?: ShownAbove;
}

const MAX_TITLE = 40;
const BAR_WIDTH = 20;

export function blockLines(progress: TurnProgress, options: BlockOptions): string[] {
  const { now, shownAbove } = options;
  const plan = planMoved(progress.plan, shownAbove?.plan) ? planLines(progress.plan) : [];
  const tasks = progress.tasks.filter((task) => !shownAbove?.taskIds.has(task.id));
  const width = Math.min(MAX_TITLE, Math.max(0, ...tasks.map((task) => oneLine(task.title).length)));
  const entries = tasks.map((task) => ({ task, lines: taskLines(task, now, width) }));
  const heading = plan.length > 0 && entries.length > 0 ? ['Steps'] : [];
  // Too tall for the screen: the earliest finished steps fold into one line.
  const budget = options.maxLines - plan.length - heading.length;
  const folded: ProgressTask[] = [];
  const height = () => entries.reduce((sum, entry) => sum + entry.lines.length, folded.length > 0 ? 1 : 0);
  while (height() > budget) {
    const index = entries.findIndex((entry) => isDone(entry.task.status));
    if (index < 0) break;
    folded.push(...entries.splice(index, 1).map((entry) => entry.task));
  }
  const lines = [
    ...plan,
    ...heading,
    ...(folded.length > 0 ? [foldLine(folded)] : []),
    ...entries.flatMap((entry) => entry.lines),
  ];
  return lines.slice(-options.maxLines).map((line) => clip(line, Math.max(10, options.columns - 1)));
}

function planMoved(plan: TurnProgress['plan'], above: TaskStatus[] | undefined): boolean {
  if (plan.length === 0) return false;
  if (above === undefined || above.length !== plan.length) return true;
  return plan.some(
    (step, index) => (step.status === 'in_progress' || step.status === 'error') && above[index] !== step.status,
  );
}

function planLines(plan: TurnProgress['plan']): string[] {
  return ['Plan', ...plan.map((step, index) => `  ${planMark(step.status)} ${index + 1}. ${oneLine(step.title)}`)];
}

function taskLines(task: ProgressTask, now: number, width: number): string[] {
  const meter = meterOf(task, now);
  const mark = isDone(task.status) ? doneMark(task) : task.status === 'in_progress' ? spinnerFrame(now) : '·';
  const title = clip(oneLine(task.title), width).padEnd(width);
  // With a bar, the bar says how long; the column stays empty.
  const elapsed = meter ? undefined : elapsedOf(task, now);
  const time = elapsed === undefined ? '' : formatElapsed(elapsed);
  const output = task.output ? `  ${oneLine(task.output)}` : '';
  const line = `  ${mark} ${title}  ${time.padStart(6)}${output}`.trimEnd();
  return meter ? [line, `      ${progressBar(meter, BAR_WIDTH)}`] : [line];
}

function foldLine(tasks: ProgressTask[]): string {
  const failed = tasks.filter((task) => task.status === 'error').length;
  const steps = `${tasks.length} earlier step${tasks.length === 1 ? '' : 's'}`;
  return `  ✓ ${steps}${failed > 0 ? ` (${failed} failed)` : ''}`;
}
