/**
 * The environment tally reads, as one zod schema: each variable with its check, its default and a message that
 * says what to write instead; also the patterns of the variables read by name prefix (DATABASE_URL_<NAME>,
 * LLM_MODEL_<STAGE>). config.ts parses the environment with it and maps the result into the Config shape.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { MAX_TIMEOUT_MS } from '../ports/sandbox.js';

const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/**
 * Every duration is bounded where it is read: a timer past Node's limit (2^31-1 ms) fires at once, so a setting that
 * long would run its job every millisecond. Each says its range when refused.
 */
const MS_RANGE = `1 to ${MAX_TIMEOUT_MS} ms (about 24.8 days, the longest a timer holds)`;
/** A duration in ms that Node's timers can hold. */
const milliseconds = (fallback: number) =>
  z.coerce
    .number({ error: MS_RANGE })
    .int(`whole ms, ${MS_RANGE}`)
    .min(1, MS_RANGE)
    .max(MAX_TIMEOUT_MS, MS_RANGE)
    .default(fallback);
const MAX_MINUTES = Math.floor(MAX_TIMEOUT_MS / 60_000);
const MINUTES_RANGE = `1 to ${MAX_MINUTES} minutes (about 24.8 days, the longest a timer holds)`;
/** A period in minutes for a timer: from a minute (a shorter one would keep the store busy) to the timer's limit. */
const minutes = (fallback: number) =>
  z.coerce.number({ error: MINUTES_RANGE }).min(1, MINUTES_RANGE).max(MAX_MINUTES, MINUTES_RANGE).default(fallback);
const DAYS_RANGE = 'above 0 and at most 36500 days (100 years)';
/** A number of days; fractions are allowed (0.001 is about a minute and a half, for trials). */
const days = (fallback: number) =>
  z.coerce.number({ error: DAYS_RANGE }).positive(DAYS_RANGE).max(36_500, DAYS_RANGE).default(fallback);
export const DATABASE_URL = /^(mysql|mariadb|postgres|postgresql):\/\/.+\/.+|^sqlite:.+/;
export const DATABASE_URL_HINT =
  'use mysql://user:password@host:port/database, postgres://user:password@host:port/database[?schema=name] or sqlite:path/to/file.db';
/** DATABASE_URL_<NAME>: a database besides the main one, known by that name. */
export const NAMED_DATABASE = /^DATABASE_URL_([A-Z0-9_]+)$/;
/** LLM_MODEL_<STAGE>: the model of one stage of a turn instead of LLM_MODEL. */
export const STAGE_MODEL = /^LLM_MODEL_([A-Z]+)$/;

const HTTP_URL = /^https?:\/\/[^/\s]+/;
/** OTLP over HTTP only: the gRPC exporter is not included. */
const otlpProtocol = z
  .enum(
    ['http/protobuf', 'http/json'],
    "http/protobuf or http/json (grpc is not supported: use the collector's HTTP port, 4318)",
  )
  .optional();

/** Every variable tally reads by name, with its check and default. */
export const environmentSchema = z.object({
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
      /^(\s*[^=,\s]+=\d+(\.\d+)?\/\d+(\.\d+)?(\/\d+(\.\d+)?)?\s*(,|$))*$/,
      'use <model>=<USD per 1M prompt tokens>/<USD per 1M completion tokens>[/<USD per 1M cached prompt tokens>], comma-separated',
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
  TALLY_REDIS_SENTINELS: z
    .string()
    .regex(/^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/, 'host:port of each Sentinel, comma-separated')
    .optional(),
  TALLY_REDIS_CLUSTER: z
    .string()
    .regex(/^[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*$/, 'host:port of some cluster nodes, comma-separated')
    .optional(),
  TALLY_REDIS_MASTER_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}$/, 'the name the Sentinels monitor (letters, digits and _ . -)')
    .default('mymaster'),
  TALLY_REDIS_USERNAME: z.string().min(1).optional(),
  TALLY_REDIS_PASSWORD: z.string().min(1).optional(),
  TALLY_REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  TALLY_REDIS_WAIT_REPLICAS: z.coerce
    .number({ error: 'a whole number of replicas, 0 or more' })
    .int('a whole number of replicas, 0 or more')
    .min(0, 'a whole number of replicas, 0 or more')
    .max(16, 'at most 16 replicas')
    .optional(),
  TALLY_REDIS_WAIT_MS: milliseconds(1000),
  TALLY_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'letters, digits and _ . : -')
    .default('tally'),
  TALLY_LOCK_TTL_MS: milliseconds(20_000).refine((value) => value >= 1000, 'at least 1000 ms'),
  TALLY_REPLICA_LEASE_MS: milliseconds(60_000).refine((value) => value >= 1000, 'at least 1000 ms'),
  TALLY_HTTP_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  TALLY_SHUTDOWN_GRACE_MS: milliseconds(30_000),
  TALLY_REQUIRE_READONLY: z.enum(['true', 'false']).optional(),
  TALLY_SCHEDULES: z.string().min(1, 'a path to a YAML or JSON file of schedules').optional(),
  TALLY_POLICY: z.string().min(1, 'a path to a YAML or JSON access policy').optional(),
  TALLY_PSEUDONYM_KEY: z.string().min(16, 'at least 16 characters of secret (e.g. openssl rand -hex 32)').optional(),
  TALLY_CONSOLE_USER: z.string().min(1).optional(),
  TALLY_RETENTION_DAYS: days(90),
  TALLY_AUDIT_RETENTION_DAYS: days(400),
  TALLY_RETENTION_SWEEP_MINUTES: minutes(60),
  TALLY_BUDGET_TOKENS_PER_DAY: z.coerce.number().int().positive('a whole number of tokens above 0').optional(),
  TALLY_BUDGET_KERNEL_MINUTES_PER_DAY: z.coerce.number().positive('a number of minutes above 0').optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().regex(HTTP_URL, 'an http(s) URL, e.g. http://collector:4318').optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .string()
    .regex(HTTP_URL, 'the full URL, e.g. http://collector:4318/v1/traces')
    .optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: z.string().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol,
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_SDK_DISABLED: z.string().optional(),
  OTEL_TRACES_EXPORTER: z.string().optional(),
});
