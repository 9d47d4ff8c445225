/**
 * `npm run bench` (second part): a million rows of ten columns from MariaDB into a DataFrame in
 * the kernel, side by side with pandas.read_sql over PyMySQL in the same image, plus the raw
 * mysql2 streaming rate and Node's peak memory at two result sizes. Writes bench/results/extract.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import mysql from 'mysql2';
import { DockerSandbox } from '../sandbox/docker-sandbox.js';
import { MysqlDatabase } from '../src/db/mysql-database.js';
import { adminConnection, mysqlAdminUrl } from '../test/support/mariadb.js';
import { benchSettings } from './bench-settings.js';
import { machineInfo } from './machine.js';
import { readSqlBaseline } from './read-sql-baseline.js';

const DATABASE = 'tally_bench';
const ROWS = 1_000_000;
const SQL = 'SELECT * FROM bench_rows';
const RUNS = 5;
const say = (message: string) => process.stderr.write(`bench: ${message}\n`);

async function ensureTable(): Promise<string> {
  const admin = await adminConnection();
  await admin.query(`CREATE DATABASE IF NOT EXISTS ${DATABASE}`);
  await admin.query(`USE ${DATABASE}`);
  const [existing] = await admin.query(
    "SELECT TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'bench_rows'",
    [DATABASE],
  );
  if ((existing as unknown[]).length === 0) {
    say(`creating ${DATABASE}.bench_rows (${ROWS} rows, 10 columns)`);
    await admin.query(`CREATE TABLE bench_rows AS SELECT
        CAST(seq AS SIGNED) AS id, seq * 7919 AS big, seq / 3 AS ratio, CAST(seq % 100000 / 100 AS DECIMAL(10,2)) AS price,
        CONCAT('segment-', seq % 12) AS segment, CONCAT('customer ', seq) AS name,
        DATE_ADD(DATE '2015-01-01', INTERVAL seq % 3650 DAY) AS day,
        TIMESTAMP('2020-01-01 00:00:00') + INTERVAL seq SECOND AS moment,
        CAST(seq % 2 AS SIGNED) AS flag, IF(seq % 9 = 0, NULL, seq % 1000) AS maybe
      FROM seq_1_to_${ROWS}`);
  }
  await admin.end();
  const url = new URL(mysqlAdminUrl());
  url.pathname = `/${DATABASE}`;
  return url.toString();
}

/** The garbage collector, reachable without starting Node with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose_gc');
  return runInNewContext('gc') as () => void;
}

/**
 * Peak live memory (heap + array buffers after a full collection) while `task` runs: absolute, so
 * garbage of earlier work that is collected meanwhile cannot hide growth. Collecting every 25 ms
 * slows the task, so this pass is not timed.
 */
async function livePeakMib(gc: () => void, task: () => Promise<unknown>): Promise<number> {
  const live = () => {
    gc();
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  let peak = live();
  const sampler = setInterval(() => {
    peak = Math.max(peak, live());
  }, 25);
  await task();
  clearInterval(sampler);
  return Math.round((Math.max(peak, live()) / 1024 ** 2) * 10) / 10;
}

async function timedSeconds(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return (performance.now() - started) / 1000;
}

function rawStream(url: string, sql: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const connection = mysql.createConnection({
      uri: url,
      rowsAsArray: true,
      dateStrings: true,
      supportBigNumbers: true,
    });
    let rows = 0;
    connection
      .query(sql)
      .stream({ highWaterMark: 4096 })
      .on('data', () => {
        rows += 1;
      })
      .on('error', reject)
      .on('end', () => {
        connection.end();
        resolve(rows);
      });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const settings = benchSettings();
  const url = await ensureTable();
  const machine = await machineInfo(settings.docker);
  const database = await MysqlDatabase.connect({
    name: DATABASE,
    url,
    limits: {
      queryTimeoutMs: 60_000,
      extractTimeoutMs: 600_000,
      extractMaxRows: 10_000_000,
      extractMaxBytes: 8 * 1024 ** 3,
    },
    logger: settings.logger,
  });
  const sandbox = await DockerSandbox.start({
    docker: settings.docker,
    image: settings.image,
    instance: 'bench-extract',
    workspaceRoot: join(tmpdir(), 'tally-bench-extract'),
    limits: { ...settings.limits, memoryMb: 4096 },
    poolSize: 0,
    idleTtlMs: 3_600_000,
    cellTimeoutMs: 600_000,
    outputLimitBytes: settings.outputLimitBytes,
    logger: settings.logger,
  });
  try {
    const kernel = await sandbox.acquire('bench');
    await database.extract(SQL, kernel, 'frame'); // warm-up: JIT, kernel memory, page cache
    say('ours: extract into the kernel');
    const ours: number[] = [];
    for (let run = 0; run < RUNS; run++) ours.push(await timedSeconds(() => database.extract(SQL, kernel, 'frame')));
    const check = await kernel.run('[len(frame), [str(d) for d in frame.dtypes]]');
    say('Node live memory at 250k and 1M rows');
    const gc = collector();
    const quarterMib = await livePeakMib(gc, () => database.extract(`${SQL} LIMIT ${ROWS / 4}`, kernel, 'quarter'));
    const fullMib = await livePeakMib(gc, () => database.extract(SQL, kernel, 'frame'));
    say('raw mysql2 streaming');
    const raw = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const rows = await rawStream(url, SQL);
      raw.push(rows / ((performance.now() - started) / 1000));
    }
    say('baseline: pandas.read_sql over PyMySQL');
    const baseline = [];
    for (let run = 0; run < 3; run++) baseline.push(await readSqlBaseline(settings, url, SQL));

    const oursSeconds = median(ours);
    const baselineSeconds = median(baseline.map((run) => run.seconds));
    const results = {
      timestamp: new Date().toISOString(),
      machine,
      rows: ROWS,
      columns: 10,
      oursSeconds: ours.map((seconds) => round(seconds, 3)),
      baselineSeconds: baseline.map((run) => round(run.seconds, 3)),
      speedup: round(baselineSeconds / oursSeconds),
      mysql2RowsPerSecond: Math.round(median(raw)),
      nodeLivePeakMib: { rows250k: quarterMib, rows1m: fullMib },
      frame: check.result?.text,
      targets: { speedupAtLeast: 5, memoryFlat: 'live peak at 1M rows within 1.5x of the live peak at 250k rows' },
    };
    const flat = results.nodeLivePeakMib.rows1m <= 1.5 * Math.max(results.nodeLivePeakMib.rows250k, 1);
    process.stdout.write(
      [
        `tally extraction benchmark, ${results.timestamp}`,
        `${ROWS} rows x 10 columns, MariaDB -> DataFrame in the kernel`,
        '',
        `ours (MysqlDatabase.extract, end to end)     median ${round(oursSeconds, 3)} s   runs ${results.oursSeconds.join(', ')}`,
        `baseline (pandas.read_sql over PyMySQL)      median ${round(baselineSeconds, 3)} s   runs ${results.baselineSeconds.join(', ')}`,
        `raw mysql2 streaming                         ${results.mysql2RowsPerSecond.toLocaleString('en')} rows/s`,
        `Node live memory peak during extract         ${results.nodeLivePeakMib.rows250k} MiB at 250k rows, ${results.nodeLivePeakMib.rows1m} MiB at 1M rows`,
        '',
        `speedup over read_sql   ${results.speedup}x   (target >= 5x)  ${results.speedup >= 5 ? 'PASS' : 'MISS'}`,
        `Node memory flat        ${flat ? 'PASS' : 'MISS'}   (1M-row peak within 1.5x of the 250k-row peak)`,
        '',
      ].join('\n'),
    );
    await mkdir(new URL('./results/', import.meta.url), { recursive: true });
    await writeFile(new URL('./results/extract.json', import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
    say('wrote bench/results/extract.json');
  } finally {
    await sandbox.close();
    await database.close();
  }
}

await main();
