/**
 * The baseline the seed projects use: pandas.read_sql over PyMySQL, from a Python process in the
 * same image. It alone runs in a network-enabled container (the host's network, so it reaches the
 * server on 127.0.0.1); only the read_sql call is timed, not the start-up or the imports. For PostgreSQL,
 * pandas.read_sql over psycopg2 the same way (in `psycopg2Image`). For SQLite, pandas.read_sql over the
 * standard sqlite3 module, on the same file mounted read-only.
 */
import { basename, dirname } from 'node:path';
import type Docker from 'dockerode';
import type { ContainerCreateOptions } from 'dockerode';
import { anchorSpec, withContainer } from './anchor-container.js';
import type { BenchSettings } from './bench-settings.js';

const SCRIPT = `
import json, os, sys, time, warnings
import pandas as pd, pymysql
warnings.simplefilter("ignore")  # pandas warns that PyMySQL is not SQLAlchemy
connection = pymysql.connect(host=os.environ["DB_HOST"], port=int(os.environ["DB_PORT"]), user=os.environ["DB_USER"],
                             password=os.environ["DB_PASSWORD"], database=os.environ["DB_NAME"])
started = time.perf_counter()
frame = pd.read_sql(os.environ["DB_SQL"], connection)
print(json.dumps({"seconds": time.perf_counter() - started, "rows": len(frame), "columns": len(frame.columns)}))
`;

export interface BaselineRun {
  seconds: number;
  rows: number;
}

export function readSqlBaseline(settings: BenchSettings, url: string, sql: string): Promise<BaselineRun> {
  return runOnHostNetwork(settings, 'read-sql', SCRIPT, url, 3306, sql);
}

const POSTGRES_SCRIPT = `
import json, os, sys, time, warnings
import pandas as pd, psycopg2
warnings.simplefilter("ignore")  # pandas warns that psycopg2 is not SQLAlchemy
connection = psycopg2.connect(host=os.environ["DB_HOST"], port=int(os.environ["DB_PORT"]), user=os.environ["DB_USER"],
                              password=os.environ["DB_PASSWORD"], dbname=os.environ["DB_NAME"])
started = time.perf_counter()
frame = pd.read_sql(os.environ["DB_SQL"], connection)
print(json.dumps({"seconds": time.perf_counter() - started, "rows": len(frame), "columns": len(frame.columns)}))
`;

/** pandas.read_sql over psycopg2; `image` is one that has it (`psycopg2Image`). */
export function readSqlPostgresBaseline(
  settings: BenchSettings,
  image: string,
  url: string,
  sql: string,
): Promise<BaselineRun> {
  return runOnHostNetwork({ ...settings, image }, 'read-sql-postgres', POSTGRES_SCRIPT, url, 5432, sql);
}

function runOnHostNetwork(
  settings: BenchSettings,
  role: string,
  script: string,
  url: string,
  defaultPort: number,
  sql: string,
): Promise<BaselineRun> {
  const target = new URL(url);
  const base = anchorSpec(settings, {
    role,
    cmd: ['python3', '-c', script],
    env: [
      `DB_HOST=${target.hostname}`,
      `DB_PORT=${target.port || defaultPort}`,
      `DB_USER=${decodeURIComponent(target.username)}`,
      `DB_PASSWORD=${decodeURIComponent(target.password)}`,
      `DB_NAME=${target.pathname.slice(1)}`,
      `DB_SQL=${sql}`,
    ],
    unlimitedCpu: true,
  });
  const spec = {
    ...base,
    NetworkDisabled: false,
    HostConfig: { ...base.HostConfig, NetworkMode: 'host', Memory: 8 * 1024 ** 3, MemorySwap: 8 * 1024 ** 3 },
  };
  return runBaseline(settings, spec);
}

function runBaseline(settings: BenchSettings, spec: ContainerCreateOptions): Promise<BaselineRun> {
  return withContainer(settings.docker, spec, async (container: Docker.Container) => {
    await container.start();
    const exit = (await container.wait()) as { StatusCode: number };
    const logs = (await container.logs({ stdout: true, stderr: true })).toString('utf8');
    const line = logs.split('\n').find((text) => text.includes('"seconds"'));
    if (exit.StatusCode !== 0 || !line)
      throw new Error(`read_sql baseline failed (${exit.StatusCode}): ${logs.slice(-2000)}`);
    const parsed = JSON.parse(line.slice(line.indexOf('{'))) as BaselineRun;
    return { seconds: parsed.seconds, rows: parsed.rows };
  });
}

const SQLITE_SCRIPT = `
import json, os, sqlite3, time
import pandas as pd
connection = sqlite3.connect("file:/data/" + os.environ["DB_FILE"] + "?mode=ro", uri=True)
started = time.perf_counter()
frame = pd.read_sql(os.environ["DB_SQL"], connection)
print(json.dumps({"seconds": time.perf_counter() - started, "rows": len(frame), "columns": len(frame.columns)}))
`;

export async function readSqlSqliteBaseline(settings: BenchSettings, path: string, sql: string): Promise<BaselineRun> {
  const base = anchorSpec(settings, {
    role: 'read-sql-sqlite',
    cmd: ['python3', '-c', SQLITE_SCRIPT],
    env: [`DB_FILE=${basename(path)}`, `DB_SQL=${sql}`],
    unlimitedCpu: true,
  });
  const spec = {
    ...base,
    HostConfig: {
      ...base.HostConfig,
      Binds: [`${dirname(path)}:/data:ro`],
      Memory: 8 * 1024 ** 3,
      MemorySwap: 8 * 1024 ** 3,
    },
  };
  return runBaseline(settings, spec);
}
