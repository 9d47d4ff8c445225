import { availableParallelism, totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/base/config.js';
import { environmentSchema } from '../../src/base/environment-schema.js';
import { ConfigError } from '../../src/base/errors.js';

describe('loadConfig', () => {
  it('runs on embedded defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config.docker).toEqual({ socketPath: '/var/run/docker.sock' });
    expect(config.sandbox).toMatchObject({
      image: undefined,
      memoryMb: 1024,
      cpus: 1,
      poolSize: 1,
      cellTimeoutMs: 120_000,
      fileSizeMb: 4096,
    });
    expect(config.home.endsWith('.tally')).toBe(true);
    expect(config.instance).toBe('default');
  });

  it('reads sandbox limits and the Docker endpoint', () => {
    const config = loadConfig({
      DOCKER_HOST: 'tcp://10.0.0.5:2375',
      TALLY_SANDBOX_MEMORY_MB: '2048',
      TALLY_SANDBOX_CPUS: '1.5',
      TALLY_SANDBOX_POOL_SIZE: '0',
      TALLY_SANDBOX_IMAGE: 'registry.example/tally-sandbox:1',
      TALLY_SANDBOX_FILE_SIZE_MB: '64',
    });
    expect(config.docker).toEqual({ host: '10.0.0.5', port: 2375, protocol: 'http' });
    expect(config.sandbox).toMatchObject({
      memoryMb: 2048,
      cpus: 1.5,
      poolSize: 0,
      image: 'registry.example/tally-sandbox:1',
      fileSizeMb: 64,
    });
    expect(loadConfig({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' }).docker).toEqual({
      socketPath: '/run/user/1000/docker.sock',
    });
  });

  it('sizes capacity from the host, and reads the operating settings', () => {
    const defaults = loadConfig({ TALLY_SANDBOX_MEMORY_MB: '512' });
    expect(defaults.sandbox.maxKernels).toBe(Math.max(1, Math.floor((totalmem() * 0.75) / (512 * 1024 * 1024))));
    expect(defaults.sandbox.startConcurrency).toBe(availableParallelism());
    expect(defaults.sandbox.poolMax).toBe(4);
    expect(defaults.operations).toEqual({
      lockTtlMs: 20_000,
      replicaLeaseMs: 60_000,
      httpPort: undefined,
      shutdownGraceMs: 30_000,
    });
    expect(loadConfig({ TALLY_SANDBOX_POOL_SIZE: '0' }).sandbox.poolMax).toBe(0); // 0 still disables the pool
    const set = loadConfig({
      TALLY_MAX_KERNELS: '5',
      TALLY_SANDBOX_START_CONCURRENCY: '3',
      TALLY_SANDBOX_POOL_SIZE: '2',
      TALLY_SANDBOX_POOL_MAX: '8',
      TALLY_LOCK_TTL_MS: '5000',
      TALLY_HTTP_PORT: '0',
      TALLY_SHUTDOWN_GRACE_MS: '1000',
      TALLY_REPLICA_LEASE_MS: '3000',
    });
    expect(set.sandbox).toMatchObject({ maxKernels: 5, startConcurrency: 3, poolSize: 2, poolMax: 8 });
    expect(set.operations).toEqual({ lockTtlMs: 5000, replicaLeaseMs: 3000, httpPort: 0, shutdownGraceMs: 1000 });
    expect(() => loadConfig({ TALLY_REPLICA_LEASE_MS: '500' })).toThrow(/TALLY_REPLICA_LEASE_MS: at least 1000 ms/);
    expect(() => loadConfig({ TALLY_MAX_KERNELS: '0' })).toThrow(/TALLY_MAX_KERNELS/);
    expect(() => loadConfig({ TALLY_LOCK_TTL_MS: '10' })).toThrow(/TALLY_LOCK_TTL_MS/);
  });

  it('reads the disk quota, the runtime, the read-only requirement and the schemas a database may read', () => {
    const defaults = loadConfig({});
    expect(defaults.sandbox.diskMb).toBe(2048);
    expect(defaults.sandbox.runtime).toBe('auto'); // gVisor when the engine lists runsc
    expect(defaults.operations.requireReadonly).toBeUndefined();
    const set = loadConfig({
      TALLY_SANDBOX_DISK_MB: '512',
      TALLY_REQUIRE_READONLY: 'true',
      DATABASE_URL: 'mysql://tally_ro@db:3306/telco_db',
      DATABASE_SCHEMAS_TELCO_DB: 'telco_archive, telco_ref',
    });
    expect(set.sandbox.diskMb).toBe(512);
    expect(set.operations.requireReadonly).toBe(true);
    expect(set.databases[0]).toMatchObject({ name: 'telco_db', schemas: ['telco_archive', 'telco_ref'] });
    expect(() => loadConfig({ TALLY_REQUIRE_READONLY: 'yes' })).toThrow(/TALLY_REQUIRE_READONLY/);
  });

  it('reads a price table for the models, and refuses a malformed one naming it', () => {
    expect(loadConfig({}).llm.prices).toEqual({});
    expect(loadConfig({ TALLY_MODEL_PRICES: 'gpt-4o-mini=0.15/0.60, gpt-4o=2.5/10' }).llm.prices).toEqual({
      'gpt-4o-mini': { promptPerMillion: 0.15, completionPerMillion: 0.6 },
      'gpt-4o': { promptPerMillion: 2.5, completionPerMillion: 10 },
    });
    expect(() => loadConfig({ TALLY_MODEL_PRICES: 'gpt-4o=cheap' })).toThrow(/TALLY_MODEL_PRICES/);
    // A third figure is the price of prompt tokens the provider served from its cache.
    expect(loadConfig({ TALLY_MODEL_PRICES: 'gpt-4o-mini=0.15/0.60/0.075' }).llm.prices).toEqual({
      'gpt-4o-mini': { promptPerMillion: 0.15, completionPerMillion: 0.6, cachedPromptPerMillion: 0.075 },
    });
  });

  it('defaults to the embedded demo database and reads named ones', () => {
    const embedded = loadConfig({ TALLY_HOME: '/srv/tally' });
    expect(embedded.databases).toEqual([{ name: 'telco', url: 'sqlite:/srv/tally/telco.db', embedded: true }]);
    expect(embedded.databaseLimits).toEqual({
      queryTimeoutMs: 30_000,
      extractTimeoutMs: 600_000,
      extractMaxRows: 5_000_000,
      extractMaxBytes: 2 * 1024 ** 3,
    });
    const configured = loadConfig({
      DATABASE_URL: 'mysql://tally_ro:secret@db.internal:3306/telco_db',
      DATABASE_URL_SALES: 'sqlite:data/sales.db',
      DATABASE_URL_WAREHOUSE: 'postgres://tally_ro:secret@pg.internal:5432/warehouse?schema=marts',
      TALLY_QUERY_TIMEOUT_MS: '5000',
    });
    expect(configured.databases.map((database) => database.name)).toEqual(['telco_db', 'sales', 'warehouse']);
    expect(configured.databaseLimits.queryTimeoutMs).toBe(5000);
    expect(() => loadConfig({ DATABASE_URL_BAD: 'oracle://x/y' })).toThrow(/DATABASE_URL_BAD/);
  });

  it('reads the model endpoint, per-stage models and the store', () => {
    expect(loadConfig({}).llm).toEqual({
      baseUrl: undefined,
      apiKey: undefined,
      model: 'gpt-4o-mini',
      stageModels: {},
      timeoutMs: 120_000,
      maxRetries: 3,
      prices: {},
    });
    expect(loadConfig({ TALLY_CONTEXT_TOKENS: '9000' }).agent).toEqual({ contextTokens: 9000, groundingApprox: 0.05 });
    const config = loadConfig({
      LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
      LLM_API_KEY: 'sk-x',
      LLM_MODEL: 'qwen2.5-coder',
      LLM_MODEL_PLAN: 'deepseek-reasoner',
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(config.llm).toMatchObject({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5-coder',
      stageModels: { plan: 'deepseek-reasoner' },
    });
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(() => loadConfig({ LLM_BASE_URL: 'not a url' })).toThrow(/LLM_BASE_URL/);
  });

  it('reads Redis behind Sentinel, with credentials and how many replicas to wait for', () => {
    const single = loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(single.redisSentinel).toBeUndefined();
    expect(single.redisWait).toEqual({ replicas: 0, timeoutMs: 1000 });
    const config = loadConfig({
      TALLY_REDIS_SENTINELS: 'sentinel-a:26379,10.0.0.7:26380',
      TALLY_REDIS_MASTER_NAME: 'tally-main',
      TALLY_REDIS_PASSWORD: 'data-secret',
      TALLY_REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
    });
    expect(config.redisUrl).toBeUndefined();
    expect(config.redisSentinel).toEqual({
      sentinels: [
        { host: 'sentinel-a', port: 26379 },
        { host: '10.0.0.7', port: 26380 },
      ],
      masterName: 'tally-main',
      password: 'data-secret',
      sentinelPassword: 'sentinel-secret',
    });
    expect(config.redisWait).toEqual({ replicas: 1, timeoutMs: 1000 });
    expect(loadConfig({ TALLY_REDIS_SENTINELS: 'a:1', TALLY_REDIS_WAIT_REPLICAS: '0' }).redisWait.replicas).toBe(0);
    expect(loadConfig({ TALLY_REDIS_SENTINELS: 'a:1' }).redisSentinel?.masterName).toBe('mymaster');
    expect(() => loadConfig({ TALLY_REDIS_SENTINELS: 'a:1', REDIS_URL: 'redis://b:6379' })).toThrow(
      /TALLY_REDIS_SENTINELS: set one of REDIS_URL \(one Redis\), TALLY_REDIS_SENTINELS .* not REDIS_URL and TALLY_REDIS_SENTINELS/,
    );
    expect(() => loadConfig({ TALLY_REDIS_SENTINELS: 'sentinel-a' })).toThrow(/TALLY_REDIS_SENTINELS: host:port/);
    expect(() => loadConfig({ TALLY_REDIS_WAIT_REPLICAS: '-1' })).toThrow(/TALLY_REDIS_WAIT_REPLICAS/);
  });

  it('reads a Redis Cluster, with credentials, waiting for one replica by default', () => {
    const config = loadConfig({
      TALLY_REDIS_CLUSTER: 'redis-a:7000,10.0.0.8:7001',
      TALLY_REDIS_USERNAME: 'tally',
      TALLY_REDIS_PASSWORD: 'data-secret',
    });
    expect(config.redisUrl).toBeUndefined();
    expect(config.redisSentinel).toBeUndefined();
    expect(config.redisCluster).toEqual({
      nodes: [
        { host: 'redis-a', port: 7000 },
        { host: '10.0.0.8', port: 7001 },
      ],
      username: 'tally',
      password: 'data-secret',
    });
    expect(config.redisWait).toEqual({ replicas: 1, timeoutMs: 1000 });
    expect(loadConfig({}).redisCluster).toBeUndefined();
    expect(() => loadConfig({ TALLY_REDIS_CLUSTER: 'a:1', TALLY_REDIS_SENTINELS: 'b:2' })).toThrow(
      /TALLY_REDIS_CLUSTER: set one of .* not TALLY_REDIS_SENTINELS and TALLY_REDIS_CLUSTER/,
    );
    expect(() => loadConfig({ TALLY_REDIS_CLUSTER: 'redis-a' })).toThrow(/TALLY_REDIS_CLUSTER: host:port/);
  });

  it('refuses time limits longer than Node timers can hold, naming the variable', () => {
    expect(loadConfig({ TALLY_CELL_TIMEOUT_MS: '2147483647' }).sandbox.cellTimeoutMs).toBe(2 ** 31 - 1);
    expect(() => loadConfig({ TALLY_CELL_TIMEOUT_MS: '3000000000' })).toThrow(
      /TALLY_CELL_TIMEOUT_MS: 1 to 2147483647 ms/,
    );
    expect(() => loadConfig({ TALLY_SANDBOX_IDLE_TTL_MS: '3000000000' })).toThrow(/TALLY_SANDBOX_IDLE_TTL_MS/);
  });

  it('refuses every duration setting out of its range, naming the variable and the range', () => {
    // Every setting read as a duration, by the unit in its name: each feeds a timer or an age.
    const durations = Object.keys(environmentSchema.shape).filter((name) => /_(MS|MINUTES|DAYS)$/.test(name));
    expect(durations).toEqual(
      expect.arrayContaining(['TALLY_RETENTION_SWEEP_MINUTES', 'TALLY_LOCK_TTL_MS', 'TALLY_CELL_TIMEOUT_MS']),
    );
    for (const variable of durations) {
      for (const value of ['1e12', '0', '-5', 'soon']) {
        let error: unknown;
        try {
          loadConfig({ [variable]: value });
        } catch (caught) {
          error = caught;
        }
        expect(error, `${variable}=${value}`).toBeInstanceOf(ConfigError);
        const issue = (error as ConfigError).issues.find((each) => each.variable === variable);
        expect(issue?.message, `${variable}=${value}`).toMatch(/\d/);
      }
    }
    // The sweep that once ran every millisecond: 100000 minutes is past a timer's reach, a second too often.
    expect(() => loadConfig({ TALLY_RETENTION_SWEEP_MINUTES: '100000' })).toThrow(
      /TALLY_RETENTION_SWEEP_MINUTES: 1 to 35791 minutes/,
    );
    expect(() => loadConfig({ TALLY_RETENTION_SWEEP_MINUTES: '0.01' })).toThrow(/TALLY_RETENTION_SWEEP_MINUTES/);
    expect(loadConfig({ TALLY_RETENTION_SWEEP_MINUTES: '35791' }).retention.sweepEveryMs).toBeLessThanOrEqual(
      2 ** 31 - 1,
    );
  });

  it('reports every problem at once, each naming its variable', () => {
    let error: unknown;
    try {
      loadConfig({
        TALLY_SANDBOX_MEMORY_MB: 'lots',
        DOCKER_HOST: 'ssh://box',
        LOG_LEVEL: 'chatty',
        TALLY_INSTANCE: 'a b',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues.map((issue) => issue.variable).sort();
    expect(issues).toEqual(['DOCKER_HOST', 'LOG_LEVEL', 'TALLY_INSTANCE', 'TALLY_SANDBOX_MEMORY_MB']);
    expect((error as ConfigError).message).toContain('TALLY_SANDBOX_MEMORY_MB:');
    expect((error as ConfigError).code).toBe('CONFIG_INVALID');
  });
});
