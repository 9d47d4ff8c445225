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
}

export const NO_METRICS: Metrics = {
  turnStarted: () => () => {},
  kernelStarted: () => {},
  cellRan: () => {},
  modelCalled: () => {},
  rowsExtracted: () => {},
  errorSeen: () => {},
};
