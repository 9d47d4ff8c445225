/**
 * Shows the running turn's progress on the console. On a terminal it is a live block redrawn in
 * place (cursor up, clear, print) at most ten times a second, by a timer that runs only while the
 * turn does; another post freezes the block where it is and a new block, without what the frozen
 * one already shows as finished, starts under the post. Elsewhere (pipes, CI, files) it is plain
 * lines from `ProgressLog`, with no escape codes.
 */
import type { TurnProgress } from '../../src/ports/chat.js';
import { blockLines, type ShownAbove } from './progress-block.js';
import { ProgressLog } from './progress-log.js';

/** The console's output stream; `isTTY`, `columns` and `rows` as a terminal's `process.stdout` has them. */
export type ConsoleOutput = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

export interface ConsoleProgressOptions {
  output: ConsoleOutput;
  /** The clock. Default `Date.now`. */
  now?: () => number;
}

/** Least time between two redraws of the block on a terminal (ms). */
const REDRAW_MS = 100;
/** How often plain output looks at running steps for a long-step line (ms). */
const LOG_TICK_MS = 1_000;
const ESC = '\u001b';

export class ConsoleProgress {
  private current: TurnProgress | undefined;
  private shownAbove: ShownAbove | undefined;
  /** Lines of the live block on screen, right above the cursor. */
  private drawnLines = 0;
  private drawnAt = Number.NEGATIVE_INFINITY;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly log = new ProgressLog();
  private readonly now: () => number;

  constructor(private readonly options: ConsoleProgressOptions) {
    this.now = options.now ?? Date.now;
  }

  private get live(): boolean {
    return this.options.output.isTTY === true;
  }

  /** A new picture of a turn's progress. */
  show(progress: TurnProgress): void {
    if (this.current && this.current.turnId !== progress.turnId) this.settle();
    this.current = progress;
    const running = progress.state === 'running';
    if (!this.live) this.print(this.log.lines(progress, this.now()));
    else {
      this.dirty = true;
      if (!running || this.now() - this.drawnAt >= REDRAW_MS) this.draw();
    }
    if (running) this.startTimer();
    else this.settle();
  }

  /** Another post is about to be printed: leave the block as it stands; a new one starts below. */
  freeze(): void {
    const progress = this.current;
    if (!this.live || !progress) return;
    if (this.dirty) this.draw();
    const finished = progress.tasks.filter((task) => task.status === 'complete' || task.status === 'error');
    const taskIds = new Set([...(this.shownAbove?.taskIds ?? []), ...finished.map((task) => task.id)]);
    this.shownAbove = { taskIds, plan: progress.plan.map((step) => step.status) };
    this.drawnLines = 0;
  }

  /** The turn is over (or the console stops): the block stays as last drawn and the timer ends. */
  settle(): void {
    if (this.live && this.dirty) this.draw();
    this.stopTimer();
    this.current = undefined;
    this.shownAbove = undefined;
    this.drawnLines = 0;
  }

  private tick(): void {
    const progress = this.current;
    if (!progress) return;
    const now = this.now();
    if (!this.live) this.print(this.log.lines(progress, now));
    else if (this.dirty || progress.tasks.some((task) => task.status === 'in_progress')) this.draw();
  }

  private draw(): void {
    const progress = this.current;
    if (!progress) return;
    const { output } = this.options;
    const lines = blockLines(progress, {
      now: this.now(),
      columns: output.columns ?? 80,
      maxLines: Math.max(3, (output.rows ?? 24) - 2),
      ...(this.shownAbove ? { shownAbove: this.shownAbove } : {}),
    });
    // Back to the block's first line, rewrite each line, clear whatever the old block had below.
    const up = this.drawnLines > 0 ? `${ESC}[${this.drawnLines}A` : '';
    const body = lines.map((line) => `\r${ESC}[2K${line}\n`).join('');
    const rest = this.drawnLines > lines.length ? `${ESC}[J` : '';
    if (up || body) output.write(`${up}${body}${rest}`);
    this.drawnLines = lines.length;
    this.drawnAt = this.now();
    this.dirty = false;
  }

  private print(lines: string[]): void {
    if (lines.length > 0) this.options.output.write(lines.map((line) => `${line}\n`).join(''));
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.live ? REDRAW_MS : LOG_TICK_MS);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
