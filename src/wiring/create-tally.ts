/**
 * The composition root: builds the real parts from the config and wires them by hand. The CLI
 * (main.ts) and the end-to-end tests both start tally through here. The sandbox, the databases with
 * their account check and the access policy are started by the files named after them beside this one.
 */
import { readFile } from 'node:fs/promises';
import type { DockerSandbox } from '../../sandbox/docker-sandbox.js';
import { Agent } from '../agent/agent.js';
import { loadPlaybooks } from '../agent/playbooks.js';
import { loadSavedPlaybooks, parseSavedPlaybook } from '../agent/saved-playbooks.js';
import { loadStagePrompts } from '../agent/stage-prompts.js';
import { approvalModeFor, type Config } from '../base/config.js';
import type { Logger } from '../base/logger.js';
import type { DailyBudgets } from '../budget/daily-budgets.js';
import { measuredDatabase } from '../db/measured-database.js';
import { FileKnowledge, TELCO_KNOWLEDGE_DIR, telcoAliases } from '../knowledge/file-knowledge.js';
import { measuredLlm } from '../llm/measured-llm-client.js';
import { type OpsServer, startOpsServer } from '../ops/ops-server.js';
import { PrometheusMetrics } from '../ops/prometheus-metrics.js';
import {
  chatCheck,
  checkReadiness,
  databaseCheck,
  engineCheck,
  modelCheck,
  type ReadinessResult,
  storeCheck,
} from '../ops/readiness.js';
import { ReplicaLeases } from '../ops/replica-leases.js';
import type { AccessPolicy } from '../policy/access-policy.js';
import type { AuditTrail } from '../ports/audit.js';
import type { Post, TallyDirectory, ThreadKey } from '../ports/chat.js';
import { type Clock, SYSTEM_CLOCK } from '../ports/clock.js';
import type { Database } from '../ports/database.js';
import type { LlmClient } from '../ports/llm.js';
import type { Sandbox } from '../ports/sandbox.js';
import type { Store } from '../ports/store.js';
import type { RetentionSweeper } from '../retention/retention-sweep.js';
import { backfillDerivations } from '../sessions/backfill-derivations.js';
import { sessionDirectory } from '../sessions/session-directory.js';
import { SessionKernels } from '../sessions/session-kernel.js';
import { SessionRouter } from '../sessions/session-router.js';
import type { AuditLog } from '../store/audit-log.js';
import { storeOf } from '../store/create-store.js';
import { createAccountability } from './accountability.js';
import { checkDatabaseAccounts } from './check-database-accounts.js';
import { createSandbox } from './create-sandbox.js';
import { loadPolicyRules, openAccessPolicy } from './open-access-policy.js';
import { openDatabases } from './open-databases.js';
import { startTracing } from './start-tracing.js';

export interface Tally {
  router: SessionRouter;
  /** A person's sessions, starter prompts and default settings, for the adapters' home surfaces. */
  directory: TallyDirectory;
  databases: Database[];
  /** Who may read what (TALLY_POLICY); absent: everyone reads every configured database. */
  policy: AccessPolicy | undefined;
  sandbox: Sandbox;
  store: Store;
  /** Every data access and model request (TALLY_AUDIT_RETENTION_DAYS). */
  audit: AuditTrail;
  auditLog: AuditLog;
  budgets: DailyBudgets;
  /** The retention sweep, when this process runs it (`sweepRetention`). */
  retention: RetentionSweeper | undefined;
  metrics: PrometheusMetrics;
  /** /healthz, /readyz and /metrics, when a port is configured (TALLY_HTTP_PORT). */
  ops: OpsServer | undefined;
  close(): Promise<void>;
}

export interface CreateTallyOptions {
  config: Config;
  logger: Logger;
  llm: LlmClient;
  /** Where posts go: the adapter of the thread's platform. */
  post: (threadKey: ThreadKey, post: Post) => Promise<unknown>;
  /** Told when the embedded demo database is being built. */
  say?: (line: string) => void;
  /** Serve /healthz, /readyz and /metrics here when TALLY_HTTP_PORT is not set (the chat services). */
  defaultHttpPort?: number;
  /** Whether the chat platform can reach this process now; `/readyz` reports it as `chat` (the chat services). */
  chatConnected?: () => boolean;
  /** Warn at start-up when no access policy is set (the chat services, where many people reach tally). */
  warnWithoutPolicy?: boolean;
  /** Stop when a database account can do more than read, unless TALLY_REQUIRE_READONLY says otherwise. Default false. */
  requireReadonly?: boolean;
  /**
   * Run the retention sweep every TALLY_RETENTION_SWEEP_MINUTES (once across replicas) and drop the kernels of
   * threads `tally forget` deleted: the long-running commands. Default false.
   */
  sweepRetention?: boolean;
  /** On a shared store, keep a replica lease and reap the kernels of dead replicas on this engine (replica-leases.ts). */
  reapDeadReplicas?: boolean;
  /** The clock of the sweep, the budgets and the audit. Default the system's; tests move a fake one. */
  clock?: Clock;
}

export async function createTally(options: CreateTallyOptions): Promise<Tally> {
  const { config, logger } = options;
  // Checked before anything starts: a bad policy stops start-up listing every problem.
  const policyRules = await loadPolicyRules(config, logger, options);
  const prompts = await loadStagePrompts();
  let sandbox: DockerSandbox | undefined;
  let readiness: () => Promise<ReadinessResult> = async () => ({ ready: false, checks: {} });
  const metrics = new PrometheusMetrics({
    sandboxStats: () => sandbox?.stats() ?? NO_KERNELS,
    readiness: () => readiness(),
    sandboxDiskQuotaMb: () => sandbox?.diskQuotaMb,
    sandboxRuntime: () => sandbox?.runtime,
  });
  const databases = (await openDatabases(config, logger, options.say ?? (() => {}))).map((database) =>
    measuredDatabase(database, metrics),
  );
  let policy: AccessPolicy | undefined;
  try {
    await checkDatabaseAccounts(config, logger, options);
    policy =
      policyRules &&
      (await openAccessPolicy({
        config,
        logger,
        policyRules,
        databases,
        metrics,
        ...(options.say ? { say: options.say } : {}),
      }));
  } catch (error) {
    await Promise.all(databases.map((database) => database.close()));
    throw error;
  }
  const store = await storeOf(config, logger);
  // Saved playbooks and queries carry their thread's grants; older ones get them here while the thread is known.
  const backfilled = await backfillDerivations({
    store,
    playbookDir: config.review.playbookDir,
    knowledgeDir: config.review.knowledgeDir,
    logger,
  }).catch((error: unknown) => {
    // Failing closed: what was not filled in stays without grants, and offered to no one under a policy.
    logger.warn({ err: error }, 'could not record the grants of saved playbooks and queries');
    return { filled: [], unknown: [] };
  });
  if (policy && backfilled.unknown.length > 0) {
    logger.warn(
      { files: backfilled.unknown, variable: 'TALLY_POLICY' },
      'saved playbooks and verified queries whose thread grants are not known are offered to no one',
    );
  }
  const playbooks = [...(await loadPlaybooks()), ...(await loadSavedPlaybooks(config.review.playbookDir))];
  const accountability = createAccountability({
    config,
    store,
    policy,
    clock: options.clock ?? SYSTEM_CLOCK,
    metrics,
    logger,
  });
  const { audit, auditLog, budgets } = accountability;
  sandbox = await createSandbox(config, logger, metrics, accountability.onCell);
  const traced = await startTracing(config, logger);
  const telco = await telcoAliases(databases);
  const loadKnowledge = () =>
    FileKnowledge.load([TELCO_KNOWLEDGE_DIR, config.review.knowledgeDir], telco, {
      learnedDir: config.review.knowledgeDir,
    });
  const agent = new Agent({
    llm: accountability.llm(measuredLlm(traced.llm(options.llm), metrics)),
    databases,
    prompts,
    stageModels: config.llm.stageModels,
    contextTokens: config.agent.contextTokens,
    groundingApprox: config.agent.groundingApprox,
    knowledge: await loadKnowledge(),
    playbooks,
    extractBudgetRows: config.review.extractBudgetRows,
    tracing: traced.tracing,
    logger: logger.child({ component: 'agent' }),
  });
  const router = new SessionRouter({
    agent,
    kernels: new SessionKernels(traced.sandbox(sandbox), databases, store),
    databases,
    store,
    post: options.post,
    reviewers: config.review.reviewers,
    approvalMode: (threadKey) => approvalModeFor(config.review, threadKey),
    playbookDir: config.review.playbookDir,
    maxUploadBytes: config.review.maxUploadBytes,
    profileFiles: config.review.profileFiles,
    ...(policy ? { access: policy } : {}),
    audit: traced.audit(audit),
    tracing: traced.tracing,
    budgets,
    consoleUser: accountability.consoleUser,
    clock: options.clock ?? SYSTEM_CLOCK,
    lockTtlMs: config.operations.lockTtlMs,
    metrics,
    onPlaybookSaved: async (path) => agent.addPlaybook(parseSavedPlaybook(path, await readFile(path, 'utf8'))),
    knowledgeDir: config.review.knowledgeDir,
    onQueryVerified: async () => agent.useKnowledge(await loadKnowledge()),
    logger: logger.child({ component: 'sessions' }),
  });
  const port = config.operations.httpPort ?? options.defaultHttpPort;
  const engine = sandbox;
  readiness = () =>
    checkReadiness([
      engineCheck(
        () => engine.ping(),
        'engine',
        () => `runtime ${engine.runtime}`,
      ),
      storeCheck(store),
      ...databases.map((database) => databaseCheck(database)),
      ...(config.llm.baseUrl ? [modelCheck(config.llm.baseUrl)] : []),
      ...(options.chatConnected ? [chatCheck(options.chatConnected)] : []),
    ]);
  const ops =
    port === undefined
      ? undefined
      : await startOpsServer({
          port,
          metrics,
          readiness,
          logger,
        });
  const retention = options.sweepRetention
    ? accountability.startRetention({ sandbox, dropPlaybook: (file) => agent.dropPlaybook(file) })
    : undefined;
  const shared = [config.redisUrl, config.redisSentinel, config.redisCluster].some((form) => form !== undefined);
  const leases =
    options.reapDeadReplicas && shared
      ? await ReplicaLeases.start({
          store,
          sandbox,
          instance: config.instance,
          leaseMs: config.operations.replicaLeaseMs,
          logger: logger.child({ component: 'replicas' }),
        })
      : undefined;
  const directory = sessionDirectory({
    store,
    databases,
    playbooks: () => agent.playbooks,
    working: (threadKey) => router.isWorking(threadKey),
    ...(policy ? { access: policy } : {}),
  });
  return {
    router,
    directory,
    databases,
    policy,
    sandbox,
    store,
    audit,
    auditLog,
    budgets,
    retention: retention?.sweeper,
    metrics,
    ops,
    async close() {
      await retention?.stop();
      await leases?.stop();
      await router.idle();
      await engine.close();
      await Promise.all(databases.map((database) => database.close()));
      await policy?.close();
      await store.close();
      await ops?.close();
      // Last, so the spans of the turns that finished above are sent.
      await traced.tracing.shutdown();
    },
  };
}

const NO_KERNELS = { live: 0, pooled: 0, starting: 0, waiting: 0, parked: 0 };
