/**
 * The budget port: what one person may spend per day (UTC) on model tokens and kernel time, and what
 * they spent. A turn is checked when it starts and runs to its end; the next one is refused once a
 * budget is used up, saying which and when it resets. Implemented in `src/budget/`.
 */
import type { Inbound } from './chat.js';

export type BudgetResource = 'model tokens' | 'kernel minutes';

export type BudgetVerdict =
  | { ok: true }
  | { ok: false; resource: BudgetResource; used: number; limit: number /** ms since the epoch */; resetsAt: number };

export interface Budgets {
  /** Whether the sender of `inbound` may start a turn now. */
  check(inbound: Pick<Inbound, 'threadKey' | 'user' | 'place'>): Promise<BudgetVerdict>;
  /** Adds to what `user` spent today. */
  charge(user: string, spend: { tokens?: number; kernelMs?: number }): Promise<void>;
}

/** What a person is told when a budget stops their message. */
export function budgetRefusal(verdict: Extract<BudgetVerdict, { ok: false }>, now: number): string {
  // Whole minutes, rounded up, before splitting: 2 h 59.5 min left reads "3 h", never "2 h 60 min".
  const totalMinutes = Math.max(1, Math.ceil((verdict.resetsAt - now) / 60_000));
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes % 60;
  const left = hours === 0 ? `${minutes} min` : minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
  const used =
    verdict.resource === 'model tokens'
      ? `${verdict.used.toLocaleString('en')} of your ${verdict.limit.toLocaleString('en')} model tokens`
      : `${kernelMinutes(verdict.used)} of your ${kernelMinutes(verdict.limit)} kernel minutes`;
  return (
    `Your daily budget is used up: ${used} for today. It resets at ${new Date(verdict.resetsAt).toISOString().slice(0, 16).replace('T', ' ')} UTC (in ${left}). ` +
    'This message was not run: send it again after the reset, or ask an operator for a larger budget.'
  );
}

/** Minutes as a person reads them: whole from 10 up, else two significant digits (a tiny limit is not "0"). */
function kernelMinutes(value: number): string {
  return value.toLocaleString('en', value >= 10 ? { maximumFractionDigits: 0 } : { maximumSignificantDigits: 2 });
}
