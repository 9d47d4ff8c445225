/** When a turn's tool loop stops, as small composable checks (the first that answers wins). */

export interface LoopState {
  steps: number;
  tokens: number;
  startedAt: number;
  /** Failed tool runs (user-code errors, rejected SQL) since the last success. */
  consecutiveFailures: number;
  /** A tool paused the turn for a person (a question, a review, an approval). */
  asked: boolean;
  /** Tools called in the last step. */
  lastTools: string[];
}

export type StopReason = 'asked' | 'repair_limit' | 'step_limit' | 'token_limit' | 'time_limit' | 'finished';
export type StopCondition = (state: LoopState) => StopReason | undefined;

export const whenAsked: StopCondition = (state) => (state.asked ? 'asked' : undefined);
export const afterSteps =
  (maxSteps: number): StopCondition =>
  (state) =>
    state.steps >= maxSteps ? 'step_limit' : undefined;
export const afterTokens =
  (maxTokens: number): StopCondition =>
  (state) =>
    state.tokens >= maxTokens ? 'token_limit' : undefined;
export const afterFailures =
  (maxFailures: number): StopCondition =>
  (state) =>
    state.consecutiveFailures >= maxFailures ? 'repair_limit' : undefined;
/** Stops once the model has called `tool` (a finishing tool, e.g. one that hands in a draft). */
export const afterTool =
  (tool: string): StopCondition =>
  (state) =>
    state.lastTools.includes(tool) ? 'finished' : undefined;
export const afterMs =
  (maxMs: number, now: () => number = Date.now): StopCondition =>
  (state) =>
    now() - state.startedAt >= maxMs ? 'time_limit' : undefined;

export function firstStop(conditions: StopCondition[], state: LoopState): StopReason | undefined {
  for (const condition of conditions) {
    const reason = condition(state);
    if (reason) return reason;
  }
  return undefined;
}
