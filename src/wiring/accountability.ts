/**
 * The accountability parts of a tally, wired by hand for create-tally.ts: the audit trail on the store,
 * daily budgets charged for the person a turn works for (model tokens from the model client, kernel
 * time from the sandbox), and, in the long-running commands, the retention sweep and the watch that
 * drops what running services still hold of forgotten threads.
 */
import { basename } from 'node:path';
import { StoredAuditTrail } from '../audit/audit-trail.js';
import { auditedLlm } from '../audit/audited-llm.js';
import type { Config } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import { DailyBudgets } from '../budget/daily-budgets.js';
import type { AccessPolicy } from '../policy/access-policy.js';
import type { Clock } from '../ports/clock.js';
import type { LlmClient } from '../ports/llm.js';
import type { Metrics } from '../ports/metrics.js';
import type { Sandbox } from '../ports/sandbox.js';
import { watchForgottenKernels } from '../retention/forgotten-kernels.js';
import { RetentionSweeper } from '../retention/retention-sweep.js';
import { actorOf } from '../sessions/turn-actor.js';
import type { StoreWithAudit } from '../store/create-store.js';

export interface AccountabilityOptions {
  config: Config;
  store: StoreWithAudit;
  policy: AccessPolicy | undefined;
  clock: Clock;
  metrics: Metrics;
  logger: Logger;
}

export function createAccountability(options: AccountabilityOptions) {
  const { config, store, policy, clock, metrics, logger } = options;
  const auditLog = store.auditLog();
  const audit = new StoredAuditTrail({ log: auditLog, clock, onRefusal: (reason) => metrics.refused(reason) });
  const consoleUser = config.access.consoleUser;
  const budgets = new DailyBudgets({
    store,
    clock,
    defaults: config.budgets,
    ...(policy ? { limitsFor: (inbound) => policy.budgetFor(inbound) } : {}),
    personOf: (inbound) => actorOf(inbound, consoleUser).user,
    metrics,
  });
  // Token charges are awaited (the next check, on any replica, sees them); the sandbox's cell callback cannot wait.
  const charge = async (spend: { tokens?: number; kernelMs?: number }): Promise<void> => {
    const actor = audit.actor();
    if (!actor) return;
    await budgets
      .charge(actor.user, spend)
      .catch((error: unknown) => logger.warn({ err: error }, 'could not charge a budget'));
  };
  return {
    audit,
    auditLog,
    budgets,
    consoleUser,
    /** For the sandbox: a cell ran for `kernelMs` (charged to the person the turn works for). */
    onCell: (kernelMs: number) => void charge({ kernelMs }),
    /** The model client as the agent uses it: every request audited and charged. */
    llm: (llm: LlmClient) =>
      auditedLlm(llm, {
        audit,
        endpoint: endpointOf(config.llm.baseUrl),
        onTokens: (_actor, tokens) => charge({ tokens }),
      }),
    /**
     * Starts the retention sweep and the watch of forgotten threads (the long-running commands); returns
     * the sweeper and a function that stops both.
     */
    startRetention(parts: { sandbox: Sandbox; dropPlaybook: (file: string) => void }) {
      const retentionLogger = logger.child({ component: 'retention' });
      const sweeper = new RetentionSweeper({
        store,
        auditLog,
        audit,
        sandbox: parts.sandbox,
        clock,
        ...config.retention,
        home: config.home,
        instance: config.instance,
        metrics,
        logger: retentionLogger,
      });
      sweeper.start();
      const stopWatching = watchForgottenKernels({
        store,
        sandbox: parts.sandbox,
        dropPlaybook: (path) => parts.dropPlaybook(basename(path)),
        clock,
        logger: retentionLogger,
      });
      return {
        sweeper,
        async stop() {
          stopWatching();
          await sweeper.stop();
        },
      };
    },
  };
}

/** Where model requests go, as the audit records it: without a user or password in the URL. */
function endpointOf(baseUrl: string | undefined): string {
  if (!baseUrl) return 'none (recorded script)';
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return 'unparsable LLM_BASE_URL';
  }
}
