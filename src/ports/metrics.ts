/**
 * The metrics port: what tally counts and times while it works, for operators (Prometheus at
 * `/metrics`, see `src/ops/`). Components are told only this interface; `NO_METRICS` counts nothing.
 */

/** How a turn (one inbound message) ended. */
export type TurnEnd = 'done' | 'failed' | 'deferred' | 'interrupted';

export interface Metrics {
  /** A turn began; call the returned function once when it ends. */
  turnStarted(): (end: TurnEnd) => void;
  /** A kernel start finished (it worked, or failed), after `durationMs`. */
  kernelStarted(durationMs: number, ok: boolean): void;
  /** A cell ran in a kernel for `durationMs`. */
  cellRan(durationMs: number): void;
  /** A model request ended after `durationMs`, with the tokens it used (0 when it failed). */
  modelCalled(durationMs: number, tokens: { prompt: number; completion: number }, ok: boolean): void;
  /** Rows extracted from a database into a kernel. */
  rowsExtracted(rows: number): void;
  /** An infrastructure error reached a thread, by its code (AppError.code, or `UNEXPECTED`). */
  errorSeen(code: string): void;
  /** An access was refused and audited, by reason (`access policy`, `sql guard`, `budget`, `file size`, …). */
  refused(reason: string): void;
  /** The retention sweep deleted `count` of `what` (`threads`, `audit records`, `files`, `inbox entries`). */
  swept(what: string, count: number): void;
  /** A retention sweep ended: it ran here, or another replica had it (`skipped`). */
  sweepEnded(result: 'done' | 'skipped' | 'failed'): void;
  /** What people spent against their daily budgets: model tokens, kernel seconds. */
  spent(resource: 'tokens' | 'kernel seconds', amount: number): void;
}

export const NO_METRICS: Metrics = {
  turnStarted: () => () => {},
  kernelStarted: () => {},
  cellRan: () => {},
  modelCalled: () => {},
  rowsExtracted: () => {},
  errorSeen: () => {},
  refused: () => {},
  swept: () => {},
  sweepEnded: () => {},
  spent: () => {},
};
