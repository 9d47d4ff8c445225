/**
 * Daily budgets kept in the store: per person and UTC day, `spend:<user>:<yyyy-mm-dd>` holds the
 * tokens and kernel milliseconds spent (kept two days). Charges are added under a per-person lock, so
 * replicas charging at once each count. Limits come from TALLY_BUDGET_* or, for people in a set the
 * policy file's `budgets` names, from there (the largest of each that applies).
 *
 * Charges are made in the background (the model client and the kernel do not wait for the store), so
 * `check` first waits for this process's charges of the person still on their way: the message after
 * the one that used a budget up is refused even when it comes at once.
 */
import type { BudgetResource, Budgets, BudgetVerdict } from '../ports/budget.js';
import type { Inbound } from '../ports/chat.js';
import type { Clock } from '../ports/clock.js';
import type { Metrics } from '../ports/metrics.js';
import type { Store } from '../ports/store.js';

/** Daily limits; absent: unlimited. */
export interface BudgetLimits {
  tokensPerDay?: number | undefined;
  kernelMinutesPerDay?: number | undefined;
}

export interface DailyBudgetsOptions {
  store: Store;
  clock: Clock;
  /** The limits of everyone not covered by `limitsFor`. */
  defaults: BudgetLimits;
  /** The limits of the sender, when the policy sets them for a set they are in. */
  limitsFor?: (inbound: Pick<Inbound, 'threadKey' | 'user' | 'place'>) => BudgetLimits | undefined;
  /** Who the console, `ask` and `eval` run as: they are charged as that person. */
  personOf: (inbound: Pick<Inbound, 'threadKey' | 'user'>) => string;
  metrics: Metrics;
}

interface Spent {
  tokens: number;
  kernelMs: number;
}

const DAY_MS = 86_400_000;
const KEEP_MS = 2 * DAY_MS;
// In a Redis Cluster: one key (and lock) per person and day, so spending spreads over the masters by person.
export const spendKey = (user: string, day: string) => `spend:${user}:${day}`;

export class DailyBudgets implements Budgets {
  /** Charges not yet in the store, by person. */
  private readonly charging = new Map<string, Set<Promise<void>>>();

  constructor(private readonly options: DailyBudgetsOptions) {}

  async check(inbound: Pick<Inbound, 'threadKey' | 'user' | 'place'>): Promise<BudgetVerdict> {
    const limits = { ...this.options.defaults, ...definedOf(this.options.limitsFor?.(inbound)) };
    if (limits.tokensPerDay === undefined && limits.kernelMinutesPerDay === undefined) return { ok: true };
    const person = this.options.personOf(inbound);
    await Promise.allSettled(this.charging.get(person) ?? []);
    const now = this.options.clock.now();
    const spent = await this.spent(person, now);
    const resetsAt = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    const over = (resource: BudgetResource, used: number, limit: number | undefined): BudgetVerdict | undefined =>
      limit !== undefined && used >= limit ? { ok: false, resource, used, limit, resetsAt } : undefined;
    return (
      over('model tokens', spent.tokens, limits.tokensPerDay) ??
      over('kernel minutes', spent.kernelMs / 60_000, limits.kernelMinutesPerDay) ?? { ok: true }
    );
  }

  charge(user: string, spend: { tokens?: number; kernelMs?: number }): Promise<void> {
    const tokens = Math.max(0, spend.tokens ?? 0);
    const kernelMs = Math.max(0, spend.kernelMs ?? 0);
    if (tokens + kernelMs === 0) return Promise.resolve();
    if (tokens > 0) this.options.metrics.spent('tokens', tokens);
    if (kernelMs > 0) this.options.metrics.spent('kernel seconds', kernelMs / 1000);
    // Registered before anything is awaited, so a check that starts after this call sees it.
    const pending = this.add(user, tokens, kernelMs);
    const charges = this.charging.get(user) ?? new Set();
    this.charging.set(user, charges.add(pending));
    const settled = () => {
      charges.delete(pending);
      if (charges.size === 0 && this.charging.get(user) === charges) this.charging.delete(user);
    };
    pending.then(settled, settled);
    return pending;
  }

  /** What `user` spent on the day of `now`. */
  async spent(user: string, now: number): Promise<Spent> {
    return (await this.options.store.get<Spent>(spendKey(user, dayOf(now)))) ?? { tokens: 0, kernelMs: 0 };
  }

  private async add(user: string, tokens: number, kernelMs: number): Promise<void> {
    const key = spendKey(user, dayOf(this.options.clock.now()));
    await this.options.store.withLock(key, async () => {
      const before = (await this.options.store.get<Spent>(key)) ?? { tokens: 0, kernelMs: 0 };
      await this.options.store.set<Spent>(
        key,
        { tokens: before.tokens + tokens, kernelMs: before.kernelMs + kernelMs },
        KEEP_MS,
      );
    });
  }
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function definedOf(limits: BudgetLimits | undefined): BudgetLimits {
  if (!limits) return {};
  return {
    ...(limits.tokensPerDay === undefined ? {} : { tokensPerDay: limits.tokensPerDay }),
    ...(limits.kernelMinutesPerDay === undefined ? {} : { kernelMinutesPerDay: limits.kernelMinutesPerDay }),
  };
}
