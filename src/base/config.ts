/**
 * The only reader of the environment: one zod schema, every problem reported at once, each
 * message naming the variable to change.
 */
import { availableParallelism, homedir, totalmem, userInfo } from 'node:os';
import { basename, resolve } from 'node:path';
import { z } from 'zod';
import { MAX_TIMEOUT_MS } from '../ports/sandbox.js';
import type { ApprovalModeSetting, Config, DatabaseSettings, DockerEndpoint, ReviewSettings } from './config-types.js';
import { ConfigError, type ConfigIssue } from './errors.js';

export type * from './config-types.js';

const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** A duration in ms that Node's timers can hold. */
const milliseconds = (fallback: number) =>
  z.coerce
    .number()
    .int()
    .positive()
    .max(MAX_TIMEOUT_MS, `at most ${MAX_TIMEOUT_MS} ms (about 24 days)`)
    .default(fallback);
const DAY_MS = 86_400_000;
/** A number of days; fractions are allowed (0.001 is about a minute and a half, for trials). */
const days = (fallback: number) => z.coerce.number().positive('a number of days above 0').default(fallback);
const DATABASE_URL = /^(mysql|mariadb|postgres|postgresql):\/\/.+\/.+|^sqlite:.+/;
const DATABASE_URL_HINT =
  'use mysql://user:password@host:port/database, postgres://user:password@host:port/database[?schema=name] or sqlite:path/to/file.db';
const NAMED_DATABASE = /^DATABASE_URL_([A-Z0-9_]+)$/;
const STAGE_MODEL = /^LLM_MODEL_([A-Z]+)$/;

const schema = z.object({
  TALLY_HOME: z.string().min(1).default('.tally'),
  TALLY_INSTANCE: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_.-]{0,62}$/i, 'letters, digits, dot, dash or underscore')
    .default('default'),
  LOG_LEVEL: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  DOCKER_HOST: z
    .string()
    .regex(/^(unix|tcp):\/\/.+/, 'use unix:///path/to/docker.sock or tcp://host:port')
    .optional(),
  TALLY_SANDBOX_IMAGE: z.string().min(1).optional(),
  TALLY_SANDBOX_RUNTIME: z
    .string()
    .regex(/^[\w.-]+$/, 'auto, runsc, runc or the name of a runtime the Docker engine lists')
    .default('auto'),
  TALLY_SANDBOX_MEMORY_MB: count(1024),
  TALLY_SANDBOX_CPUS: z.coerce.number().positive().max(64).default(1),
  TALLY_SANDBOX_PIDS: count(256),
  TALLY_SANDBOX_TMP_MB: count(256),
  TALLY_SANDBOX_FILE_SIZE_MB: count(4096),
  TALLY_SANDBOX_DISK_MB: count(2048),
  TALLY_SANDBOX_POOL_SIZE: z.coerce.number().int().min(0).max(32).default(1),
  TALLY_SANDBOX_POOL_MAX: z.coerce.number().int().min(0).max(64).optional(),
  TALLY_SANDBOX_START_CONCURRENCY: count(availableParallelism()),
  TALLY_MAX_KERNELS: z.coerce.number().int().positive().optional(),
  TALLY_SANDBOX_IDLE_TTL_MS: milliseconds(30 * 60_000),
  TALLY_CELL_TIMEOUT_MS: milliseconds(120_000),
  TALLY_OUTPUT_LIMIT_BYTES: count(64 * 1024),
  DATABASE_URL: z.string().regex(DATABASE_URL, DATABASE_URL_HINT).optional(),
  TALLY_QUERY_TIMEOUT_MS: milliseconds(30_000),
  TALLY_EXTRACT_TIMEOUT_MS: milliseconds(10 * 60_000),
  TALLY_EXTRACT_MAX_ROWS: count(5_000_000),
  TALLY_EXTRACT_MAX_BYTES: count(2 * 1024 ** 3),
  LLM_BASE_URL: z.string().url('an http(s) URL such as https://api.openai.com/v1').optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  LLM_MODEL: z.string().min(1).default('gpt-4o-mini'),
  LLM_EMBEDDING_MODEL: z.string().min(1).optional(),
  LLM_TIMEOUT_MS: milliseconds(120_000),
  TALLY_MODEL_PRICES: z
    .string()
    .regex(
      /^(\s*[^=,\s]+=\d+(\.\d+)?\/\d+(\.\d+)?\s*(,|$))*$/,
      'use <model>=<USD per 1M prompt tokens>/<USD per 1M completion tokens>, comma-separated',
    )
    .default(''),
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  TALLY_CONTEXT_TOKENS: count(48_000),
  TALLY_GROUNDING_APPROX: z.coerce.number().min(0).max(1, 'a fraction between 0 and 1, e.g. 0.05').default(0.05),
  TALLY_REVIEWERS: z.string().default(''),
  TALLY_APPROVE: z.enum(['never', 'risky', 'always']).default('never'),
  TALLY_APPROVE_CHANNELS: z
    .string()
    .regex(
      /^(\s*[^=,\s]+=(never|risky|always)\s*(,|$))*$/,
      'use <thread key prefix>=never|risky|always, comma-separated',
    )
    .default(''),
  TALLY_APPROVE_EXTRACT_ROWS: count(1_000_000),
  TALLY_PLAYBOOK_DIR: z.string().min(1).optional(),
  TALLY_KNOWLEDGE_DIR: z.string().min(1).optional(),
  TALLY_MAX_UPLOAD_MB: count(50),
  TALLY_PROFILE_FILES: z.enum(['on', 'off']).default('on'),
  SLACK_BOT_TOKEN: z
    .string()
    .regex(/^xoxb-/, 'a bot token, xoxb-…')
    .optional(),
  SLACK_APP_TOKEN: z
    .string()
    .regex(/^xapp-/, 'an app-level token, xapp-… (scope connections:write)')
    .optional(),
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
  SLACK_PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  SLACK_API_URL: z.string().url().optional(),
  SLACK_ALLOWED_CHANNELS: z.string().default(''),
  SLACK_ALLOWED_USERS: z.string().default(''),
  DISCORD_TOKEN: z.string().min(1).optional(),
  DISCORD_GUILD_ID: z.string().regex(/^\d+$/, 'a guild id (digits)').optional(),
  DISCORD_API_URL: z.string().url().optional(),
  DISCORD_ALLOWED_GUILDS: z.string().default(''),
  DISCORD_ALLOWED_CHANNELS: z.string().default(''),
  DISCORD_REVIEWER_ROLES: z.string().default(''),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/.+/, 'use redis://host:port or rediss://…')
    .optional(),
  TALLY_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'letters, digits and _ . : -')
    .default('tally'),
  TALLY_LOCK_TTL_MS: milliseconds(20_000).refine((value) => value >= 1000, 'at least 1000 ms'),
  TALLY_HTTP_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  TALLY_SHUTDOWN_GRACE_MS: milliseconds(30_000),
  TALLY_REQUIRE_READONLY: z.enum(['true', 'false']).optional(),
  TALLY_SCHEDULES: z.string().min(1, 'a path to a YAML or JSON file of schedules').optional(),
  TALLY_POLICY: z.string().min(1, 'a path to a YAML or JSON access policy').optional(),
  TALLY_PSEUDONYM_KEY: z.string().min(16, 'at least 16 characters of secret (e.g. openssl rand -hex 32)').optional(),
  TALLY_CONSOLE_USER: z.string().min(1).optional(),
  TALLY_RETENTION_DAYS: days(90),
  TALLY_AUDIT_RETENTION_DAYS: days(400),
  TALLY_RETENTION_SWEEP_MINUTES: z.coerce.number().positive('a number of minutes above 0').default(60),
  TALLY_BUDGET_TOKENS_PER_DAY: z.coerce.number().int().positive('a whole number of tokens above 0').optional(),
  TALLY_BUDGET_KERNEL_MINUTES_PER_DAY: z.coerce.number().positive('a number of minutes above 0').optional(),
});

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
  const parsed = schema.safeParse(env);
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
          const [prompt, completion] = price.split('/').map(Number);
          return [model, { promptPerMillion: prompt ?? 0, completionPerMillion: completion ?? 0 }];
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
    redisPrefix: e.TALLY_REDIS_PREFIX,
    operations: {
      lockTtlMs: e.TALLY_LOCK_TTL_MS,
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
  };
}
