import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.js';
import { type BudgetLimits, DailyBudgets } from '../../src/budget/daily-budgets.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { parsePolicy } from '../../src/policy/policy-file.js';
import type { Inbound } from '../../src/ports/chat.js';
import { NO_METRICS } from '../../src/ports/metrics.js';
import type { Store } from '../../src/ports/store.js';
import { actorOf } from '../../src/sessions/turn-actor.js';
import { FakeClock } from '../support/fake-clock.js';
import { redisBackend, sqliteBackend } from '../support/store-backends.js';

const _logger = createLogger({ level: 'silent' });
const MARCH_14 = Date.UTC(2026, 2, 14);
const MARCH_15 = Date.UTC(2026, 2, 15);
const MINUTE_MS = 60_000;

/** A message from `user` in a Slack channel, as the adapter hands it over. */
const message = (user: string, channel = 'C1ANALYTICS'): Pick<Inbound, 'threadKey' | 'user' | 'place'> => ({
  threadKey: `slack:T0TALLY:${channel}:1700000000.000100`,
  user: { id: user },
  place: { channel, dm: false },
});

const POLICY = `
principals:
  analysts: { slack_users: [U1ANN, U2BOB] }
  leads: { slack_users: [U1ANN] }
  modellers: { slack_channels: [C9MODELS] }
  nobody: { slack_users: [U9NOBODY] }
budgets:
  - { to: [analysts], tokens_per_day: 500, kernel_minutes_per_day: 30 }
  - { to: [leads], tokens_per_day: 2000, kernel_minutes_per_day: 5 }
  - { to: [modellers], kernel_minutes_per_day: 120 }
`;

describe.each([sqliteBackend('budgets'), redisBackend('budgets')])('daily budgets on $name', (backend) => {
  let stores: Store[] = [];
  let clock: FakeClock;

  const budgets = (store: Store, defaults: BudgetLimits, policy?: AccessPolicy) =>
    new DailyBudgets({
      store,
      clock,
      defaults,
      ...(policy ? { limitsFor: (inbound) => policy.budgetFor(inbound) } : {}),
      personOf: (inbound) => actorOf(inbound).user,
      metrics: NO_METRICS,
    });
  const open = async () => {
    const store = await backend.open();
    stores.push(store);
    return store;
  };

  beforeEach(async () => {
    await backend.setUp();
    clock = new FakeClock(MARCH_14 + 9 * 60 * MINUTE_MS);
  });
  afterEach(async () => {
    for (const store of stores) await store.close();
    stores = [];
    await backend.tearDown();
  });

  it('adds up the charges of two replicas made at once, losing none', async () => {
    const replicas = [budgets(await open(), {}), budgets(await open(), {})];
    await Promise.all(
      Array.from({ length: 40 }, (_, index) => replicas[index % 2]?.charge('U1ANN', { tokens: 7, kernelMs: 1_500 })),
    );
    await replicas[0]?.charge('U2BOB', { tokens: 1 });
    for (const replica of replicas) {
      expect(await replica.spent('U1ANN', clock.now())).toEqual({ tokens: 280, kernelMs: 60_000 });
      expect(await replica.spent('U2BOB', clock.now())).toEqual({ tokens: 1, kernelMs: 0 });
    }
  });

  it('refuses at once after a charge still on its way, naming what ran out', async () => {
    const daily = budgets(await open(), { tokensPerDay: 1_000, kernelMinutesPerDay: 1 });
    // Nobody waits for a charge (the model client and the kernel go on); the next check must see it.
    void daily.charge('U1ANN', { tokens: 1_000 });
    expect(await daily.check(message('U1ANN'))).toMatchObject({ ok: false, resource: 'model tokens', used: 1_000 });
    void daily.charge('U2BOB', { kernelMs: MINUTE_MS });
    expect(await daily.check(message('U2BOB'))).toMatchObject({ ok: false, resource: 'kernel minutes', used: 1 });
    expect(await daily.check(message('U3CAROL'))).toEqual({ ok: true });
  });

  it('refuses until the next 00:00 UTC and says so, then starts the new day from nothing', async () => {
    const store = await open();
    const daily = budgets(store, { tokensPerDay: 100 });
    clock.set(MARCH_15 - MINUTE_MS);
    await daily.charge('U1ANN', { tokens: 99 });
    expect(await daily.check(message('U1ANN'))).toEqual({ ok: true });
    await daily.charge('U1ANN', { tokens: 1 });
    expect(await daily.check(message('U1ANN'))).toEqual({
      ok: false,
      resource: 'model tokens',
      used: 100,
      limit: 100,
      resetsAt: MARCH_15,
    });
    clock.advance(MINUTE_MS - 1); // 23:59:59.999
    expect(await daily.check(message('U1ANN'))).toMatchObject({ ok: false, resetsAt: MARCH_15 });
    clock.advance(1); // 00:00 UTC
    expect(await daily.check(message('U1ANN'))).toEqual({ ok: true });
    await daily.charge('U1ANN', { tokens: 100 });
    // Used up again on the new day: it resets at the midnight after, not the one just passed.
    expect(await daily.check(message('U1ANN'))).toMatchObject({ ok: false, resetsAt: MARCH_15 + 86_400_000 });
    // Each day kept apart, read by any replica.
    const replica = budgets(await open(), {});
    expect(await replica.spent('U1ANN', MARCH_15 - 1)).toEqual({ tokens: 100, kernelMs: 0 });
    expect(await replica.spent('U1ANN', MARCH_15)).toEqual({ tokens: 100, kernelMs: 0 });
  });

  it("gives people in the policy's sets the largest limit of each that applies, others the defaults", async () => {
    const policy = new AccessPolicy(parsePolicy(POLICY, 'policy.yaml', []), { consoleUser: 'ops' }, []);
    const daily = budgets(await open(), { tokensPerDay: 100, kernelMinutesPerDay: 1 }, policy);
    for (const user of ['U1ANN', 'U2BOB', 'U3CAROL']) await daily.charge(user, { tokens: 499 });
    await daily.charge('U1ANN', { kernelMs: 29 * MINUTE_MS });
    // Ann, in analysts (500 tokens, 30 min) and leads (2000 tokens, 5 min): 2000 tokens and 30 minutes.
    // Bob, in analysts only: 500 tokens. Carol, in no set: the defaults (100 tokens).
    expect(await daily.check(message('U1ANN'))).toEqual({ ok: true });
    expect(await daily.check(message('U2BOB'))).toEqual({ ok: true });
    expect(await daily.check(message('U3CAROL'))).toMatchObject({ ok: false, resource: 'model tokens', limit: 100 });
    await daily.charge('U2BOB', { tokens: 1 });
    expect(await daily.check(message('U2BOB'))).toMatchObject({ ok: false, resource: 'model tokens', limit: 500 });
    await daily.charge('U1ANN', { kernelMs: MINUTE_MS });
    expect(await daily.check(message('U1ANN'))).toMatchObject({ ok: false, resource: 'kernel minutes', limit: 30 });
    await daily.charge('U1ANN', { tokens: 1_501 });
    expect(await daily.check(message('U1ANN'))).toMatchObject({ ok: false, resource: 'model tokens', limit: 2_000 });

    // A set that sets kernel minutes only: the tokens stay the default; a place's set applies to whoever is there.
    await daily.charge('U4DAN', { tokens: 10, kernelMs: 100 * MINUTE_MS });
    expect(await daily.check(message('U4DAN', 'C9MODELS'))).toEqual({ ok: true });
    expect(await daily.check(message('U4DAN'))).toMatchObject({ ok: false, resource: 'kernel minutes', limit: 1 });
    await daily.charge('U4DAN', { kernelMs: 20 * MINUTE_MS });
    expect(await daily.check(message('U4DAN', 'C9MODELS'))).toMatchObject({
      ok: false,
      resource: 'kernel minutes',
      used: 120,
      limit: 120,
    });
  });

  it('lets everyone spend without limit when nothing sets one', async () => {
    const policy = new AccessPolicy(parsePolicy(POLICY, 'policy.yaml', []), { consoleUser: 'ops' }, []);
    const unlimited = budgets(await open(), {});
    const unlimitedWithPolicy = budgets(await open(), {}, policy);
    await unlimited.charge('U3CAROL', { tokens: 1e9, kernelMs: 1e9 });
    expect(await unlimited.check(message('U3CAROL'))).toEqual({ ok: true });
    // Carol is in no budgeted set: the policy's budgets do not limit her.
    expect(await unlimitedWithPolicy.check(message('U3CAROL'))).toEqual({ ok: true });
    expect(await unlimited.spent('U3CAROL', clock.now())).toEqual({ tokens: 1e9, kernelMs: 1e9 });
  });
});
