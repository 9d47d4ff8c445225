/**
 * The only reader of the environment: `loadConfig` checks it against the schema (environment-schema.ts), reports
 * every problem at once, each message naming the variable to change, and maps it into the Config shape
 * (config-types.ts).
 */
import { homedir, totalmem, userInfo } from 'node:os';
import { basename, resolve } from 'node:path';
import type { ApprovalModeSetting, Config, DatabaseSettings, DockerEndpoint, ReviewSettings } from './config-types.js';
import {
  DATABASE_URL,
  DATABASE_URL_HINT,
  environmentSchema,
  NAMED_DATABASE,
  STAGE_MODEL,
} from './environment-schema.js';
import { ConfigError, type ConfigIssue } from './errors.js';
import { REDIS_FORMS, redisCluster, redisSentinel } from './redis-settings.js';
import { tracingSettings } from './tracing-settings.js';

export type * from './config-types.js';

const DAY_MS = 86_400_000;

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** The approval mode for a thread that has not set one: its channel's, else the default. */
export function approvalModeFor(settings: ReviewSettings, threadKey: string): ApprovalModeSetting {
  const matches = settings.approveChannels.filter((entry) => threadKey.startsWith(entry.prefix));
  const best = matches.sort((left, right) => right.prefix.length - left.prefix.length)[0];
  return best?.mode ?? settings.approve;
}

/** The OS user running tally: the console's principal when TALLY_CONSOLE_USER is not set. */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'console';
  }
}

/** As many kernels as three quarters of the host's memory holds at TALLY_SANDBOX_MEMORY_MB each. */
function defaultMaxKernels(memoryMb: number): number {
  return Math.max(1, Math.floor((totalmem() * 0.75) / (memoryMb * 1024 * 1024)));
}

function dockerEndpoint(value: string | undefined): DockerEndpoint {
  if (value === undefined) return { socketPath: '/var/run/docker.sock' };
  const url = new URL(value);
  if (url.protocol === 'unix:') return { socketPath: url.pathname };
  return { host: url.hostname, port: Number(url.port || 2375), protocol: 'http' };
}

/** The name a database URL is known by: the MySQL database, or the SQLite file without extension. */
export function databaseName(url: string): string {
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : new URL(url).pathname;
  return basename(path).replace(/\.[^.]*$/, '') || 'main';
}

function namedDatabases(env: NodeJS.ProcessEnv, issues: ConfigIssue[]): DatabaseSettings[] {
  const found: DatabaseSettings[] = [];
  for (const [variable, url] of Object.entries(env)) {
    const match = NAMED_DATABASE.exec(variable);
    if (!match?.[1] || url === undefined) continue;
    if (DATABASE_URL.test(url)) found.push({ name: match[1].toLowerCase(), url });
    else issues.push({ variable, message: DATABASE_URL_HINT });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/** Other schemas a MySQL database may read besides its own (DATABASE_SCHEMAS_<NAME>, comma-separated). */
function withSchemas(database: DatabaseSettings, env: NodeJS.ProcessEnv): DatabaseSettings {
  const listed = list(env[`DATABASE_SCHEMAS_${database.name.toUpperCase()}`] ?? '');
  return listed.length > 0 ? { ...database, schemas: listed } : database;
}

/** The config from the environment; `overrides` (command-line flags) win over it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Record<string, string> = {}): Config {
  env = { ...env, ...overrides };
  const parsed = environmentSchema.safeParse(env);
  const issues: ConfigIssue[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '(environment)'),
        message: issue.message,
      }));
  const named = namedDatabases(env, issues);
  if (
    parsed.success &&
    parsed.data.SLACK_BOT_TOKEN &&
    !parsed.data.SLACK_APP_TOKEN &&
    !parsed.data.SLACK_SIGNING_SECRET
  ) {
    issues.push({
      variable: 'SLACK_APP_TOKEN',
      message: 'set SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP events) with SLACK_BOT_TOKEN',
    });
  }
  const redisForms = parsed.success ? REDIS_FORMS.filter((name) => parsed.data[name]) : [];
  if (redisForms.length > 1) {
    issues.push({
      variable: redisForms[1] as string,
      message: `set one of REDIS_URL (one Redis), TALLY_REDIS_SENTINELS (Redis behind Sentinel) or TALLY_REDIS_CLUSTER (Redis Cluster), not ${redisForms.join(' and ')}`,
    });
  }
  if (!parsed.success || issues.length > 0) throw new ConfigError(issues);
  const e = parsed.data;
  const home = e.TALLY_HOME.startsWith('~/') ? resolve(homedir(), e.TALLY_HOME.slice(2)) : resolve(e.TALLY_HOME);
  const main = e.DATABASE_URL ?? `sqlite:${resolve(home, 'telco.db')}`;
  return {
    home,
    instance: e.TALLY_INSTANCE,
    logLevel: e.LOG_LEVEL,
    docker: dockerEndpoint(e.DOCKER_HOST),
    sandbox: {
      image: e.TALLY_SANDBOX_IMAGE,
      runtime: e.TALLY_SANDBOX_RUNTIME,
      memoryMb: e.TALLY_SANDBOX_MEMORY_MB,
      cpus: e.TALLY_SANDBOX_CPUS,
      pidsLimit: e.TALLY_SANDBOX_PIDS,
      tmpMb: e.TALLY_SANDBOX_TMP_MB,
      fileSizeMb: e.TALLY_SANDBOX_FILE_SIZE_MB,
      diskMb: e.TALLY_SANDBOX_DISK_MB,
      poolSize: e.TALLY_SANDBOX_POOL_SIZE,
      poolMax: Math.max(e.TALLY_SANDBOX_POOL_SIZE, e.TALLY_SANDBOX_POOL_MAX ?? (e.TALLY_SANDBOX_POOL_SIZE > 0 ? 4 : 0)),
      startConcurrency: e.TALLY_SANDBOX_START_CONCURRENCY,
      maxKernels: e.TALLY_MAX_KERNELS ?? defaultMaxKernels(e.TALLY_SANDBOX_MEMORY_MB),
      idleTtlMs: e.TALLY_SANDBOX_IDLE_TTL_MS,
      cellTimeoutMs: e.TALLY_CELL_TIMEOUT_MS,
      outputLimitBytes: e.TALLY_OUTPUT_LIMIT_BYTES,
    },
    databases: [{ name: databaseName(main), url: main, ...(e.DATABASE_URL ? {} : { embedded: true }) }, ...named].map(
      (database) => withSchemas(database, env),
    ),
    llm: {
      baseUrl: e.LLM_BASE_URL,
      apiKey: e.LLM_API_KEY,
      model: e.LLM_MODEL,
      stageModels: Object.fromEntries(
        Object.entries(env).flatMap(([variable, value]) => {
          const stage = STAGE_MODEL.exec(variable)?.[1];
          return stage && value ? [[stage.toLowerCase(), value]] : [];
        }),
      ),
      ...(e.LLM_EMBEDDING_MODEL === undefined ? {} : { embeddingModel: e.LLM_EMBEDDING_MODEL }),
      timeoutMs: e.LLM_TIMEOUT_MS,
      prices: Object.fromEntries(
        list(e.TALLY_MODEL_PRICES).map((entry) => {
          const [model = '', price = ''] = entry.split('=');
          const [prompt, completion, cached] = price.split('/').map(Number);
          const cachedPrice = cached === undefined ? {} : { cachedPromptPerMillion: cached };
          return [model, { promptPerMillion: prompt ?? 0, completionPerMillion: completion ?? 0, ...cachedPrice }];
        }),
      ),
      maxRetries: e.LLM_MAX_RETRIES,
    },
    agent: { contextTokens: e.TALLY_CONTEXT_TOKENS, groundingApprox: e.TALLY_GROUNDING_APPROX },
    review: {
      reviewers: list(e.TALLY_REVIEWERS),
      approve: e.TALLY_APPROVE,
      approveChannels: list(e.TALLY_APPROVE_CHANNELS).map((entry) => {
        const [prefix = '', mode] = entry.split('=');
        return { prefix, mode: mode as ApprovalModeSetting };
      }),
      extractBudgetRows: e.TALLY_APPROVE_EXTRACT_ROWS,
      playbookDir: e.TALLY_PLAYBOOK_DIR ? resolve(e.TALLY_PLAYBOOK_DIR) : resolve(home, 'playbooks'),
      knowledgeDir: e.TALLY_KNOWLEDGE_DIR ? resolve(e.TALLY_KNOWLEDGE_DIR) : resolve(home, 'knowledge'),
      maxUploadBytes: e.TALLY_MAX_UPLOAD_MB * 1024 * 1024,
      profileFiles: e.TALLY_PROFILE_FILES === 'on',
    },
    slack: e.SLACK_BOT_TOKEN
      ? {
          botToken: e.SLACK_BOT_TOKEN,
          appToken: e.SLACK_APP_TOKEN,
          signingSecret: e.SLACK_SIGNING_SECRET,
          port: e.SLACK_PORT,
          apiUrl: e.SLACK_API_URL,
          allowedChannels: list(e.SLACK_ALLOWED_CHANNELS),
          allowedUsers: list(e.SLACK_ALLOWED_USERS),
        }
      : undefined,
    discord: e.DISCORD_TOKEN
      ? {
          token: e.DISCORD_TOKEN,
          guildId: e.DISCORD_GUILD_ID,
          apiUrl: e.DISCORD_API_URL,
          allowedGuilds: list(e.DISCORD_ALLOWED_GUILDS),
          allowedChannels: list(e.DISCORD_ALLOWED_CHANNELS),
          reviewerRoles: list(e.DISCORD_REVIEWER_ROLES),
        }
      : undefined,
    redisUrl: e.REDIS_URL,
    redisSentinel: redisSentinel(e),
    redisCluster: redisCluster(e),
    redisPrefix: e.TALLY_REDIS_PREFIX,
    redisWait: {
      // Behind Sentinel and in a Cluster there is a replica to wait for; a single REDIS_URL may have none.
      replicas: e.TALLY_REDIS_WAIT_REPLICAS ?? (e.TALLY_REDIS_SENTINELS || e.TALLY_REDIS_CLUSTER ? 1 : 0),
      timeoutMs: e.TALLY_REDIS_WAIT_MS,
    },
    operations: {
      lockTtlMs: e.TALLY_LOCK_TTL_MS,
      replicaLeaseMs: e.TALLY_REPLICA_LEASE_MS,
      httpPort: e.TALLY_HTTP_PORT,
      shutdownGraceMs: e.TALLY_SHUTDOWN_GRACE_MS,
      ...(e.TALLY_REQUIRE_READONLY === undefined ? {} : { requireReadonly: e.TALLY_REQUIRE_READONLY === 'true' }),
    },
    ...(e.TALLY_SCHEDULES === undefined ? {} : { schedulesFile: resolve(e.TALLY_SCHEDULES) }),
    access: {
      ...(e.TALLY_POLICY === undefined ? {} : { policyFile: resolve(e.TALLY_POLICY) }),
      ...(e.TALLY_PSEUDONYM_KEY === undefined ? {} : { pseudonymSecret: e.TALLY_PSEUDONYM_KEY }),
      consoleUser: e.TALLY_CONSOLE_USER ?? osUser(),
    },
    retention: {
      retentionMs: e.TALLY_RETENTION_DAYS * DAY_MS,
      auditRetentionMs: e.TALLY_AUDIT_RETENTION_DAYS * DAY_MS,
      sweepEveryMs: e.TALLY_RETENTION_SWEEP_MINUTES * 60_000,
    },
    budgets: {
      tokensPerDay: e.TALLY_BUDGET_TOKENS_PER_DAY,
      kernelMinutesPerDay: e.TALLY_BUDGET_KERNEL_MINUTES_PER_DAY,
    },
    databaseLimits: {
      queryTimeoutMs: e.TALLY_QUERY_TIMEOUT_MS,
      extractTimeoutMs: e.TALLY_EXTRACT_TIMEOUT_MS,
      extractMaxRows: e.TALLY_EXTRACT_MAX_ROWS,
      extractMaxBytes: e.TALLY_EXTRACT_MAX_BYTES,
    },
    tracing: tracingSettings(e),
  };
}
