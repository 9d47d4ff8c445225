/** The shape of tally's configuration: what `loadConfig` (config.ts) builds from the environment. */

/** Where the Docker engine is: a unix socket, or a host and port over plain HTTP. */
export type DockerEndpoint = { socketPath: string } | { host: string; port: number; protocol: 'http' };

export interface SandboxSettings {
  /** Image reference; undefined means the content-hashed tag built from `sandbox/`. */
  image: string | undefined;
  /**
   * The container runtime kernels run under (TALLY_SANDBOX_RUNTIME, default `auto`): `auto` is gVisor's `runsc` when
   * the engine has it, else `runc`; any other name must be a runtime the engine lists (`runsc`, `kata`, …).
   */
  runtime: string;
  memoryMb: number;
  cpus: number;
  pidsLimit: number;
  tmpMb: number;
  /** Largest file a kernel may write, in MiB (RLIMIT_FSIZE). */
  fileSizeMb: number;
  /** What /workspace and /inputs of one session may hold together, in MiB (TALLY_SANDBOX_DISK_MB). */
  diskMb: number;
  poolSize: number;
  /** The warm pool grows with the arrival rate of new threads up to this (TALLY_SANDBOX_POOL_MAX). */
  poolMax: number;
  /** Kernel starts at once (TALLY_SANDBOX_START_CONCURRENCY; default: the host's cores). */
  startConcurrency: number;
  /**
   * Kernels at once (TALLY_MAX_KERNELS; default: three quarters of the host's memory divided by
   * TALLY_SANDBOX_MEMORY_MB). At the cap idle kernels are parked and new threads wait in line.
   */
  maxKernels: number;
  idleTtlMs: number;
  cellTimeoutMs: number;
  outputLimitBytes: number;
}

/** Running tally as a service: locks, the health and metrics endpoint, shutdown. */
export interface OperationSettings {
  /** A thread's lock expires this long after its holder stops renewing it (TALLY_LOCK_TTL_MS). */
  lockTtlMs: number;
  /** A replica's lease lasts this long unrenewed; then a replica on its engine reaps its kernels (TALLY_REPLICA_LEASE_MS). */
  replicaLeaseMs: number;
  /** Where /healthz, /readyz and /metrics listen (TALLY_HTTP_PORT); 0 picks a free port. */
  httpPort: number | undefined;
  /** On SIGTERM, running turns get this long to finish (TALLY_SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /**
   * Stop start-up when a database account can write or read other schemas (TALLY_REQUIRE_READONLY);
   * unset means the command's default (on for `slack` and `discord`, off otherwise).
   */
  requireReadonly?: boolean;
}

/**
 * Where spans go (OpenTelemetry's OTEL_* variables, read by tracing-settings.ts); absent when no OTLP endpoint is
 * set, OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER does not name `otlp`.
 */
/** The Sentinels to ask where the Redis master is, the name they know it by, and the credentials. */
export interface RedisSentinelSettings {
  sentinels: Array<{ host: string; port: number }>;
  masterName: string;
  /** For the master and replicas (TALLY_REDIS_USERNAME, TALLY_REDIS_PASSWORD). */
  username?: string;
  password?: string;
  /** For the Sentinels themselves (TALLY_REDIS_SENTINEL_PASSWORD). */
  sentinelPassword?: string;
}

/** Some nodes of a Redis Cluster (the client learns the rest from them) and the credentials of every node. */
export interface RedisClusterSettings {
  nodes: Array<{ host: string; port: number }>;
  username?: string;
  password?: string;
}

/** TALLY_REDIS_WAIT_REPLICAS (default 1 behind Sentinel or in a Cluster, else 0) and TALLY_REDIS_WAIT_MS. */
export interface RedisWaitSettings {
  replicas: number;
  timeoutMs: number;
}

export interface TracingSettings {
  /** The full traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces. */
  url: string;
  /** OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL; default `http/protobuf`. */
  protocol: 'http/protobuf' | 'http/json';
  /** OTEL_EXPORTER_OTLP_HEADERS, overridden per key by OTEL_EXPORTER_OTLP_TRACES_HEADERS (often a key: never logged). */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; default `tally`. */
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES (`deployment.environment.name=prod,...`). */
  resourceAttributes: Record<string, string>;
}

/** How long what tally keeps is kept (see the README, Retention and deletion). */
export interface RetentionSettings {
  /** Threads (inbox, logs, conversations, reports), workspaces, exports and eval runs (TALLY_RETENTION_DAYS). */
  retentionMs: number;
  /** The audit trail (TALLY_AUDIT_RETENTION_DAYS). */
  auditRetentionMs: number;
  /** How often the sweep runs, once across replicas (TALLY_RETENTION_SWEEP_MINUTES). */
  sweepEveryMs: number;
}

/** Per person per UTC day; absent: unlimited (the policy file's `budgets` override them for its sets). */
export interface BudgetSettings {
  /** TALLY_BUDGET_TOKENS_PER_DAY. */
  tokensPerDay: number | undefined;
  /** TALLY_BUDGET_KERNEL_MINUTES_PER_DAY. */
  kernelMinutesPerDay: number | undefined;
}

/** A database tally may read: `mysql://…`, `postgres://…` or `sqlite:path`. */
export interface DatabaseSettings {
  /** How people and the model name it, e.g. `telco_db`. */
  name: string;
  url: string;
  /** The demo database tally builds itself in TALLY_HOME when no DATABASE_URL is set. */
  embedded?: boolean;
  /** Where it was given when not an environment variable (`--db` of `tally ask`), for messages. */
  givenBy?: string;
  /**
   * MySQL/PostgreSQL: schemas besides the URL's database (or schema) that statements may read (DATABASE_SCHEMAS_<NAME>,
   * e.g. DATABASE_SCHEMAS_TELCO_DB=telco_archive).
   */
  schemas?: string[];
}

export interface DatabaseLimitSettings {
  queryTimeoutMs: number;
  extractTimeoutMs: number;
  extractMaxRows: number;
  extractMaxBytes: number;
}

export interface LlmSettings {
  /** Any OpenAI-compatible endpoint; undefined means no model (the demo runs a recorded script). */
  baseUrl: string | undefined;
  /** Secret: never logged, never sent to the sandbox. */
  apiKey: string | undefined;
  model: string;
  /** Model per stage (LLM_MODEL_<STAGE>, e.g. LLM_MODEL_PLAN), overriding `model`. */
  stageModels: Record<string, string>;
  /**
   * Embedding model on the same endpoint (LLM_EMBEDDING_MODEL, e.g. `text-embedding-3-small`); unset
   * means no embeddings, and playbooks are ranked by BM25 alone.
   */
  embeddingModel?: string;
  timeoutMs: number;
  maxRetries: number;
  /**
   * USD per million prompt and completion tokens by model name, and optionally per million prompt tokens the
   * provider served from its cache (TALLY_MODEL_PRICES, e.g. `gpt-4o-mini=0.15/0.60/0.075`); `tally eval`
   * turns tokens into money with it.
   */
  prices?: Record<string, ModelPrice>;
}

/** USD per million tokens; cached prompt tokens cost the prompt price when no cached price is given. */
export interface ModelPrice {
  promptPerMillion: number;
  completionPerMillion: number;
  cachedPromptPerMillion?: number;
}

export interface AgentLimitSettings {
  /** Tokens of conversation history sent to the model; older turns are summarised beyond it. */
  contextTokens: number;
  /** How far (relative) a figure the text calls approximate may be from a result (TALLY_GROUNDING_APPROX). */
  groundingApprox: number;
}

export type ApprovalModeSetting = 'never' | 'risky' | 'always';

export interface ReviewSettings {
  /** User ids who may decide on any thread's sections besides its owner (TALLY_REVIEWERS). */
  reviewers: string[];
  /** Approval mode of threads that set none (TALLY_APPROVE). */
  approve: ApprovalModeSetting;
  /**
   * Per-channel defaults: thread-key prefix → mode, longest prefix wins (TALLY_APPROVE_CHANNELS,
   * e.g. `slack:T1:C123=always,discord:G1=risky`).
   */
  approveChannels: Array<{ prefix: string; mode: ApprovalModeSetting }>;
  /** `risky`: extractions above this many rows ask first (TALLY_APPROVE_EXTRACT_ROWS). */
  extractBudgetRows: number;
  /** Where playbooks saved from accepted reports are written and read from (TALLY_PLAYBOOK_DIR). */
  playbookDir: string;
  /** The organisation's knowledge store: one folder per database (TALLY_KNOWLEDGE_DIR). */
  knowledgeDir: string;
  /** Files people share in a thread above this size are refused (TALLY_MAX_UPLOAD_MB). */
  maxUploadBytes: number;
  /** Profile shared files in the kernel and list them in the prompts (TALLY_PROFILE_FILES). */
  profileFiles: boolean;
}

export interface SlackSettings {
  botToken: string;
  /** Socket Mode when set (the default way to connect). */
  appToken: string | undefined;
  /** The HTTP Events API when set and no app token is. */
  signingSecret: string | undefined;
  port: number;
  /** The Web API's base URL; only for a stand-in. */
  apiUrl: string | undefined;
  allowedChannels: string[];
  allowedUsers: string[];
}

export interface DiscordSettings {
  token: string;
  /** Slash commands are registered in this guild (instant); globally otherwise. */
  guildId: string | undefined;
  /** The REST base URL; only for a stand-in. */
  apiUrl: string | undefined;
  allowedGuilds: string[];
  allowedChannels: string[];
  /** Members with one of these roles decide in any thread. */
  reviewerRoles: string[];
}

export interface Config {
  /** Data directory (workspaces, local store, demo output), absolute. */
  home: string;
  /** Names this process's containers, so start-up reaps only its own orphans. */
  instance: string;
  logLevel: string;
  docker: DockerEndpoint;
  sandbox: SandboxSettings;
  /** The first is the default. Without DATABASE_URL: the embedded demo database in TALLY_HOME. */
  databases: DatabaseSettings[];
  databaseLimits: DatabaseLimitSettings;
  llm: LlmSettings;
  agent: AgentLimitSettings;
  review: ReviewSettings;
  /** Present when SLACK_BOT_TOKEN is set. */
  slack: SlackSettings | undefined;
  /** Present when DISCORD_TOKEN is set. */
  discord: DiscordSettings | undefined;
  /** keyv on Redis when set (several replicas); else a SQLite file in TALLY_HOME. */
  redisUrl: string | undefined;
  /** Redis behind Sentinel (TALLY_REDIS_SENTINELS), instead of REDIS_URL. */
  redisSentinel: RedisSentinelSettings | undefined;
  /** A Redis Cluster (TALLY_REDIS_CLUSTER), instead of REDIS_URL. */
  redisCluster: RedisClusterSettings | undefined;
  /** How many Redis replicas must hold an inbox entry before the platform hears "received", and how long to wait. */
  redisWait: RedisWaitSettings;
  /** Prefix of every Redis key (TALLY_REDIS_PREFIX), so deployments can share one Redis. */
  redisPrefix: string;
  operations: OperationSettings;
  /** The schedules file (TALLY_SCHEDULES, YAML or JSON), absolute; `tally slack|discord` runs its schedules. */
  schedulesFile?: string;
  access: AccessSettings;
  retention: RetentionSettings;
  budgets: BudgetSettings;
  /** The OTLP trace export; absent: no spans are made or sent. */
  tracing: TracingSettings | undefined;
}

/** Who may read what: the access policy and what it needs. */
export interface AccessSettings {
  /** The access policy (TALLY_POLICY, YAML or JSON), absolute; absent: every user reads every table. */
  policyFile?: string;
  /** The secret behind pseudonymised columns (TALLY_PSEUDONYM_KEY); needed when the policy hashes a column. */
  pseudonymSecret?: string;
  /** Who the console, `ask` and `eval` run as under the policy (TALLY_CONSOLE_USER; default the OS user). */
  consoleUser: string;
}
