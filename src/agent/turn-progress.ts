/**
 * A turn's progress as the thread sees it while it happens: the plan's steps and a task per tool
 * call, each pending → in_progress → complete or error (a retry that works after a failure says
 * "repaired"). Every change is posted as a `progress` post with the whole picture; adapters coalesce
 * and render it (Slack plan and task cards, a Discord message edited in place, a console block).
 */
import { randomUUID } from 'node:crypto';
import type { Post, TaskStatus, TurnProgress } from '../ports/chat.js';
import type { ToolCall } from '../ports/llm.js';
import { callArguments, failureLine, formatRows, rowsOf, taskDetails, taskTitle } from './task-title.js';
import type { ToolOutcome } from './tool.js';

/** Tools whose failure and retry make a repair. */
const REPAIRABLE = new Set(['run_python', 'run_sql', 'load_dataframe']);
/** Calls that are no work to show: triage decides what the turn does (its question, decline or plan shows that). */
const UNSHOWN = new Set(['triage']);
/** Extraction row counts are posted at most this often. */
const ROWS_EVERY_MS = 250;

/** The steps of a numbered (or bulleted) plan, one line each. */
export function planSteps(plan: string): string[] {
  return plan
    .split('\n')
    .map((line) => /^\s*(?:\d+[.)]|[-*•])\s+(.+)$/.exec(line)?.[1]?.trim())
    .filter((step): step is string => Boolean(step))
    .map((step) => step.replace(/\*\*/g, ''))
    .map((step) => (step.length > 120 ? `${step.slice(0, 119)}…` : step));
}

export class TurnProgressTracker {
  private readonly progress: TurnProgress;
  private shown = false;
  private lastFailed = false;
  private rowsPostedAt = 0;

  constructor(
    private readonly emit: (post: Post) => Promise<void>,
    userId: string,
    /** The plan's steps with the statuses they had (a turn resuming after a review keeps its plan). */
    plan: Array<{ title: string; status: TaskStatus }> = [],
    private readonly now: () => number = Date.now,
  ) {
    this.progress = { turnId: randomUUID(), userId, startedAt: now(), state: 'running', plan, tasks: [] };
  }

  /** The plan's steps and their statuses as they stand. */
  get plan(): Array<{ title: string; status: TaskStatus }> {
    return this.progress.plan.map((step) => ({ ...step }));
  }

  async setPlan(steps: string[]): Promise<void> {
    this.progress.plan = steps.map((title) => ({ title, status: 'pending' }));
    if (steps.length > 0) await this.post();
  }

  /** The model asked for these calls: each is a pending task. */
  async requested(calls: ToolCall[]): Promise<void> {
    const shown = calls.filter((call) => !UNSHOWN.has(call.name));
    for (const call of shown) {
      this.progress.tasks.push({ id: call.id, title: taskTitle(call), status: 'pending', ...details(call) });
    }
    if (shown.length > 0) await this.post();
  }

  async started(call: ToolCall): Promise<void> {
    if (UNSHOWN.has(call.name)) return;
    const task = this.task(call);
    task.status = 'in_progress';
    task.startedAt = this.now();
    this.stepFor(call);
    await this.post();
  }

  /** An extraction's rows so far (posted at most every ROWS_EVERY_MS). */
  async rows(call: ToolCall, received: number, expected?: number): Promise<void> {
    const task = this.task(call);
    task.rows = { received, ...(expected !== undefined ? { expected } : {}) };
    if (this.now() - this.rowsPostedAt < ROWS_EVERY_MS) return;
    this.rowsPostedAt = this.now();
    await this.post();
  }

  async finished(call: ToolCall, outcome: ToolOutcome): Promise<void> {
    if (UNSHOWN.has(call.name)) return;
    const task = this.task(call);
    task.endedAt = this.now();
    const failed = outcome.failed ?? false;
    task.status = failed ? 'error' : 'complete';
    const rows = failed ? undefined : rowsOf(outcome.content);
    if (call.name === 'load_dataframe' && rows !== undefined) task.title = `${task.title} (${formatRows(rows)})`;
    if (failed) task.output = failureLine(outcome.content);
    else if (outcome.pause) task.output = 'waiting for you';
    else if (REPAIRABLE.has(call.name) && this.lastFailed) task.output = 'repaired';
    else if (rows !== undefined && call.name !== 'load_dataframe') task.output = formatRows(rows);
    if (REPAIRABLE.has(call.name)) this.lastFailed = failed;
    await this.post();
  }

  /**
   * The turn ended. Answered: the plan is done. Paused for a person: the plan stays where it is.
   * Failed: the step being worked on failed. Nothing is posted for a turn that showed no progress.
   */
  async end(how: 'answered' | 'paused' | 'failed'): Promise<void> {
    for (const step of this.progress.plan) {
      if (how === 'answered') step.status = 'complete';
      else if (how === 'failed' && step.status === 'in_progress') step.status = 'error';
    }
    for (const task of this.progress.tasks) {
      if (task.status === 'pending' || task.status === 'in_progress')
        task.status = how === 'failed' ? 'error' : task.status;
    }
    this.progress.state = how === 'failed' ? 'failed' : 'done';
    if (this.shown) await this.post();
  }

  private task(call: ToolCall) {
    let task = this.progress.tasks.find((candidate) => candidate.id === call.id);
    if (!task) {
      task = { id: call.id, title: taskTitle(call), status: 'pending', ...details(call) };
      this.progress.tasks.push(task);
    }
    return task;
  }

  /**
   * Moves the plan to the step a call works on: the call's `plan_step` when the model gave one,
   * else the first step once work begins. Steps before it are complete.
   */
  private stepFor(call: ToolCall): void {
    const steps = this.progress.plan;
    if (steps.length === 0) return;
    const said = Number(callArguments(call).plan_step);
    const current = steps.findIndex((step) => step.status === 'in_progress');
    const index = Number.isInteger(said) && said >= 1 && said <= steps.length ? said - 1 : Math.max(current, 0);
    steps.forEach((step, position) => {
      if (position < index) step.status = 'complete';
      else if (position === index) step.status = 'in_progress';
      else if (step.status === 'in_progress') step.status = 'pending';
    });
  }

  private async post(): Promise<void> {
    this.shown = true;
    await this.emit({ kind: 'progress', progress: structuredClone(this.progress) });
  }
}

function details(call: ToolCall): { details?: string } {
  const found = taskDetails(call);
  return found ? { details: found } : {};
}
