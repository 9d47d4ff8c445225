/**
 * `npm run bench` (second part): query results into a DataFrame in the kernel, end to end, next to
 * the driver alone and pandas.read_sql on the same query in the same run: MariaDB 1M x 10 (with
 * where the time goes, stage by stage), a 100-column table, 10M rows (Node's memory must stay
 * flat), SQLite, and the same for PostgreSQL (`extract-postgres.ts`; `BENCH_ONLY=postgres` runs that part
 * alone). Writes bench/results/extract.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MysqlDatabase } from '../src/db/mysql/mysql-database.js';
import { SqliteDatabase } from '../src/db/sqlite/sqlite-database.js';
import { benchSettings } from './bench-settings.js';
import { columnarRead, mysqlFloor, rawMysqlStream, rawSqlite } from './extract-anchors.js';
import { measurePostgres, mergePostgres, postgresOnly, postgresReportLines } from './extract-postgres.js';
import { livePeakMib, memorySampler, stageProbe } from './extract-probes.js';
import { type Comparison, extractTargets, formatExtractReport } from './extract-report.js';
import { kernelChores, EXTRACT_LIMITS as LIMITS, startExtractSandbox } from './extract-sandbox.js';
import { ensureSqliteFile, ensureTables, TABLES } from './extract-tables.js';
import { machineInfo } from './machine.js';
import { readSqlBaseline, readSqlSqliteBaseline } from './read-sql-baseline.js';

const RUNS = 5;
const say = (message: string) => process.stderr.write(`bench: ${message}\n`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Every list of seconds rounded to the millisecond, for the JSON. */
function roundAll(lists: Record<string, Record<string, number[]>>): Record<string, Record<string, number[]>> {
  return Object.fromEntries(
    Object.entries(lists).map(([key, group]) => [
      key,
      Object.fromEntries(Object.entries(group).map(([name, values]) => [name, values.map((value) => round(value))])),
    ]),
  );
}

async function seconds(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return (performance.now() - started) / 1000;
}

async function main(): Promise<void> {
  const started = performance.now();
  // An instance of its own: the sandbox bench reaps the containers of instance 'bench' when it starts.
  const settings = { ...benchSettings(), instance: 'bench-extract-anchors' };
  const url = await ensureTables(say);
  const sqlitePath = ensureSqliteFile(join(tmpdir(), 'tally-bench-data'), say);
  const machine = await machineInfo(settings.docker);
  const mysqlDb = await MysqlDatabase.connect({ name: 'tally_bench', url, limits: LIMITS, logger: settings.logger });
  const sqliteDb = await SqliteDatabase.open({ name: 'bench_sqlite', path: sqlitePath, limits: LIMITS });
  const sandbox = await startExtractSandbox(settings);
  try {
    const kernel = await sandbox.acquire('bench');
    const probe = stageProbe(kernel);
    const { settle, forget } = kernelChores(kernel);

    const SQL = `SELECT * FROM ${TABLES.rows.name}`;
    say('MariaDB 1M x 10: ours, raw mysql2, the floor and our read alone, interleaved');
    await mysqlDb.extract(SQL, probe.kernel, 'frame'); // warm-up: JIT, kernel memory, page cache
    const runs = { ours: [] as number[], raw: [] as number[], floor: [] as number[], read: [] as number[] };
    const untilManifest: number[] = [];
    const rss1m = memorySampler();
    for (let run = 0; run < RUNS; run++) {
      runs.raw.push((await rawMysqlStream(url, SQL)).seconds);
      runs.floor.push((await mysqlFloor(url, SQL)).seconds);
      runs.read.push((await columnarRead(url, SQL)).seconds);
      probe.reset();
      rss1m.start();
      runs.ours.push(await seconds(() => mysqlDb.extract(SQL, probe.kernel, 'frame')));
      await settle();
      rss1m.stop();
      untilManifest.push(probe.untilManifestSeconds());
    }
    const check = await kernel.run('[len(frame), [str(d) for d in frame.dtypes]]');
    const decodeAlone = await probe.decodeAloneSeconds();
    await forget('frame');
    say('MariaDB 1M x 10: pandas.read_sql over PyMySQL');
    const readSql = [];
    for (let run = 0; run < 3; run++) readSql.push((await readSqlBaseline(settings, url, SQL)).seconds);

    const WIDE = `SELECT * FROM ${TABLES.wide.name}`;
    say('MariaDB 100k x 100: ours, raw mysql2, read_sql');
    await mysqlDb.extract(WIDE, kernel, 'wide');
    const wide = { ours: [] as number[], raw: [] as number[] };
    for (let run = 0; run < 3; run++) {
      wide.raw.push((await rawMysqlStream(url, WIDE)).seconds);
      wide.ours.push(await seconds(() => mysqlDb.extract(WIDE, kernel, 'wide')));
      await settle();
    }
    await forget('wide');
    const wideReadSql = [];
    for (let run = 0; run < 3; run++) wideReadSql.push((await readSqlBaseline(settings, url, WIDE)).seconds);

    say('SQLite 1M x 10: ours, raw better-sqlite3, read_sql over sqlite3');
    const LITE = 'SELECT * FROM bench_rows';
    await sqliteDb.extract(LITE, kernel, 'lite');
    const lite = { ours: [] as number[], raw: [] as number[] };
    for (let run = 0; run < RUNS; run++) {
      lite.raw.push(rawSqlite(sqlitePath, LITE).seconds);
      lite.ours.push(await seconds(() => sqliteDb.extract(LITE, kernel, 'lite')));
      await settle();
    }
    await forget('lite');
    const liteReadSql = [];
    for (let run = 0; run < 3; run++)
      liteReadSql.push((await readSqlSqliteBaseline(settings, sqlitePath, LITE)).seconds);

    const BIG = `SELECT * FROM ${TABLES.big.name}`;
    say('MariaDB 10M x 10: ours (peak RSS sampled), raw mysql2, then Node live memory at 1M and 10M');
    // Three interleaved rounds: single 10M-row runs swing by a fifth on a shared machine.
    const rss10m = memorySampler();
    const big = { ours: [] as number[], raw: [] as number[] };
    let bigCheck: Awaited<ReturnType<typeof kernel.run>> | undefined;
    for (let run = 0; run < 3; run++) {
      big.raw.push((await rawMysqlStream(url, BIG)).seconds);
      rss10m.start();
      big.ours.push(await seconds(() => mysqlDb.extract(BIG, kernel, 'big')));
      rss10m.stop();
      bigCheck = await kernel.run('len(big)');
      await forget('big');
    }
    const live1m = await livePeakMib(() => mysqlDb.extract(SQL, kernel, 'frame'));
    await forget('frame');
    const live10m = await livePeakMib(() => mysqlDb.extract(BIG, kernel, 'big'));
    await forget('big');

    const postgres = await measurePostgres({ settings, kernel, say });

    const comparisons: Comparison[] = [
      {
        label: 'MariaDB 1M x 10',
        oursSeconds: median(runs.ours),
        driverSeconds: median(runs.raw),
        driverLabel: 'raw mysql2 streaming',
        readSqlSeconds: median(readSql),
        readSqlLabel: 'read_sql (PyMySQL)',
      },
      {
        label: 'MariaDB 100k x 100',
        oursSeconds: median(wide.ours),
        driverSeconds: median(wide.raw),
        driverLabel: 'raw mysql2 streaming',
        readSqlSeconds: median(wideReadSql),
        readSqlLabel: 'read_sql (PyMySQL)',
      },
      {
        label: 'MariaDB 10M x 10',
        oursSeconds: median(big.ours),
        driverSeconds: median(big.raw),
        driverLabel: 'raw mysql2 streaming',
      },
      {
        label: 'SQLite 1M x 10',
        oursSeconds: median(lite.ours),
        driverSeconds: median(lite.raw),
        driverLabel: 'raw better-sqlite3',
        readSqlSeconds: median(liteReadSql),
        readSqlLabel: 'read_sql (sqlite3)',
        // Issue 15's targets name mysql2; SQLite is measured the same way and reported.
        gated: false,
      },
    ];
    const floor = median(runs.floor);
    const read = median(runs.read);
    const manifest = median(untilManifest);
    const ours = median(runs.ours);
    const stages = [
      { stage: 'server sends rows, mysql2 frames packets (the floor)', seconds: floor },
      { stage: 'our parsing and encoding (columnar read - floor)', seconds: Math.max(0, read - floor) },
      { stage: 'writing parts and hashing (until the manifest)', seconds: Math.max(0, manifest - read) },
      { stage: 'kernel: decoding left after the last row, DataFrame', seconds: Math.max(0, ours - manifest) },
    ];
    const targets = extractTargets(comparisons, { small: live1m, large: live10m });
    const results = {
      timestamp: new Date().toISOString(),
      machine,
      loadAverage: (await import('node:os')).loadavg().map((value) => round(value, 2)),
      durationS: Math.round((performance.now() - started) / 1000),
      comparisons: comparisons.map((comparison) => ({
        ...comparison,
        oursSeconds: round(comparison.oursSeconds),
        driverSeconds: round(comparison.driverSeconds),
        ...(comparison.readSqlSeconds === undefined ? {} : { readSqlSeconds: round(comparison.readSqlSeconds) }),
      })),
      runs: roundAll({
        mysql1m: { ...runs, readSql, untilManifest },
        wide: { ...wide, readSql: wideReadSql },
        sqlite: { ...lite, readSql: liteReadSql },
        mysql10m: big,
      }),
      stages: stages.map((stage) => ({ ...stage, seconds: round(stage.seconds) })),
      kernelDecodeAloneSeconds: round(decodeAlone),
      nodeMemoryMib: {
        livePeak1m: live1m,
        livePeak10m: live10m,
        rssPeak1m: rss1m.peakMib(),
        rssPeak10m: rss10m.peakMib(),
      },
      frame: check.result?.text,
      bigRows: bigCheck?.result?.text,
      targets,
    };
    process.stdout.write(
      [
        `tally extraction benchmark, ${results.timestamp} (${results.durationS} s, load average ${results.loadAverage.join(' ')})`,
        '',
        ...formatExtractReport([...comparisons, ...postgres.comparisons], stages, [...targets, ...postgres.targets]),
        '',
        `kernel decoding alone, had it waited for the last row (load_extract of the 1M folder): ${round(decodeAlone)} s`,
        `Node memory: live peak ${live1m} MiB at 1M rows, ${live10m} MiB at 10M rows; ` +
          `peak RSS ${results.nodeMemoryMib.rssPeak1m} MiB at 1M, ${results.nodeMemoryMib.rssPeak10m} MiB at 10M`,
        `frame: ${results.frame}; 10M frame rows: ${results.bigRows}`,
        '',
        ...postgresReportLines(postgres),
        '',
      ].join('\n'),
    );
    await mkdir(new URL('./results/', import.meta.url), { recursive: true });
    await writeFile(
      new URL('./results/extract.json', import.meta.url),
      `${JSON.stringify(mergePostgres(results, postgres), null, 2)}\n`,
    );
    say('wrote bench/results/extract.json');
  } finally {
    await sandbox.close();
    await mysqlDb.close();
    await sqliteDb.close();
  }
}

if (process.env.BENCH_ONLY === 'postgres') await postgresOnly(say);
else if (process.env.BENCH_ONLY) throw new Error(`BENCH_ONLY=${process.env.BENCH_ONLY}: only 'postgres' is known`);
else await main();
