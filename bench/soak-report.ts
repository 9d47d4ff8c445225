/**
 * The soak benchmark's readings and verdicts: one sample of both stores, the process and the traffic
 * (`sampleSoak`), and the series' trends over the run with the table printed at the end (`soakReport`).
 */
import type { DockerSandbox } from '../sandbox/docker-sandbox.js';
import type { Tally } from '../src/wiring/create-tally.js';
import type { SoakTraffic } from './soak-traffic.js';
import { summarize } from './stats.js';
import {
  type Families,
  processMemory,
  type RedisProbe,
  type RedisReading,
  readSqliteStore,
  type SqliteReading,
} from './store-probes.js';
import { judgeTrend, type Point, type Trend } from './trend.js';

/** One tally of the soak and its traffic. */
export interface SoakSide {
  name: 'redis' | 'sqlite';
  tally: Tally;
  traffic: SoakTraffic;
  /** Its SQLite state file (read for the embedded store only). */
  statePath: string;
}

export interface SoakSample {
  minutes: number;
  redis: RedisReading;
  sqlite: SqliteReading;
  process: ReturnType<typeof processMemory>;
  /** The audit chain of each side, walked whole: its records and whether it links. */
  audit: Array<{ name: string; records: number; ok: boolean; problem?: string }>;
  kernels: Array<{ name: string; live: number; pooled: number; waiting: number; parked: number; started: number }>;
  traffic: Array<{ name: string; threads: number; sent: number; answered: number; lost: number; errors: number }>;
}

export async function sampleSoak(minutes: number, sides: readonly SoakSide[], probe: RedisProbe): Promise<SoakSample> {
  const sqliteSide = sides.find((side) => side.name === 'sqlite');
  const audit = await Promise.all(
    sides.map(async (side) => {
      const check = await side.tally.auditLog.verify();
      return { name: side.name, records: check.records, ok: check.ok, ...(check.ok ? {} : { problem: check.problem }) };
    }),
  );
  return {
    minutes: Math.round(minutes * 1000) / 1000,
    redis: await probe.read(),
    sqlite: sqliteSide
      ? readSqliteStore(sqliteSide.statePath)
      : { fileBytes: 0, dbBytes: 0, walBytes: 0, freeBytes: 0, families: {} },
    process: processMemory(),
    audit,
    kernels: sides.map((side) => {
      const stats = (side.tally.sandbox as DockerSandbox).stats();
      const { live, pooled, waiting, parked, started } = stats;
      return { name: side.name, live, pooled, waiting, parked, started };
    }),
    traffic: sides.map(({ name, traffic: { counts } }) => ({
      name,
      threads: counts.threads,
      sent: counts.sent,
      answered: counts.answered,
      lost: counts.lost,
      errors: counts.errors,
    })),
  };
}

type Unit = 'bytes' | 'keys' | 'rows';

/**
 * The least rise across the window that counts as growth: a key's few more bytes (a counter that
 * gains a digit) or a key or two more at the end of a window is not a leak a soak of minutes can tell.
 */
const MINIMUM_RISE: Record<Unit, number> = { bytes: 16 * 1024, keys: 5, rows: 5 };

const SERIES: Array<[string, Unit, (sample: SoakSample) => number]> = [
  ['redis prefix bytes (MEMORY USAGE)', 'bytes', (sample) => sample.redis.prefixBytes],
  ['redis prefix keys', 'keys', (sample) => sample.redis.prefixKeys],
  ['redis used_memory (whole server)', 'bytes', (sample) => sample.redis.usedMemoryBytes],
  ['redis DBSIZE (whole server)', 'keys', (sample) => sample.redis.dbSize],
  ['sqlite file (state.db + wal)', 'bytes', (sample) => sample.sqlite.fileBytes],
  ['sqlite rows', 'rows', (sample) => sumOf(sample.sqlite.families, 'keys')],
  ['sqlite row bytes', 'bytes', (sample) => sumOf(sample.sqlite.families, 'bytes')],
  ['process rss', 'bytes', (sample) => sample.process.rssBytes],
  ['process heapUsed', 'bytes', (sample) => sample.process.heapUsedBytes],
];

const sumOf = (families: Families, field: 'keys' | 'bytes') =>
  Object.values(families).reduce((sum, size) => sum + size[field], 0);

const pointsOf = (samples: readonly SoakSample[], value: (sample: SoakSample) => number): Point[] =>
  samples.map((sample) => ({ minutes: sample.minutes, value: value(sample) }));

/** Trends of every key family of one store (keys and bytes), a family absent from a sample counting 0. */
function familyTrends(
  samples: readonly SoakSample[],
  familiesOf: (sample: SoakSample) => Families,
  windowMinutes: number,
): Record<string, { keys: Trend; bytes: Trend }> {
  const names = new Set(samples.flatMap((sample) => Object.keys(familiesOf(sample))));
  return Object.fromEntries(
    [...names].sort().map((name) => [
      name,
      {
        keys: judgeTrend(
          pointsOf(samples, (sample) => familiesOf(sample)[name]?.keys ?? 0),
          windowMinutes,
          MINIMUM_RISE.keys,
        ),
        bytes: judgeTrend(
          pointsOf(samples, (sample) => familiesOf(sample)[name]?.bytes ?? 0),
          windowMinutes,
          MINIMUM_RISE.bytes,
        ),
      },
    ]),
  );
}

export function soakReport(samples: readonly SoakSample[], sides: readonly SoakSide[], windowMinutes: number) {
  const series = Object.fromEntries(
    SERIES.map(([name, unit, value]) => [
      name,
      { unit, ...judgeTrend(pointsOf(samples, value), windowMinutes, MINIMUM_RISE[unit]) },
    ]),
  );
  const families = {
    redis: familyTrends(samples, (sample) => sample.redis.families, windowMinutes),
    sqlite: familyTrends(samples, (sample) => sample.sqlite.families, windowMinutes),
  };
  const growingFamilies = Object.entries(families).flatMap(([store, trends]) =>
    Object.entries(trends)
      .filter(([, trend]) => trend.keys.verdict === 'growing' || trend.bytes.verdict === 'growing')
      .map(([family, trend]) => ({
        store,
        family,
        keys: { first: trend.keys.first, last: trend.keys.last, slopePerMinute: round(trend.keys.slopePerMinute) },
        bytes: { first: trend.bytes.first, last: trend.bytes.last, slopePerMinute: round(trend.bytes.slopePerMinute) },
      })),
  );
  const traffic = Object.fromEntries(
    sides.map(({ name, traffic: { counts } }) => [
      name,
      {
        threads: counts.threads,
        sent: counts.sent,
        answered: counts.answered,
        lost: counts.sent - counts.answered,
        wrong: counts.wrong,
        errors: counts.errors,
        turn: counts.turnMs.length > 0 ? summarize(counts.turnMs) : undefined,
      },
    ]),
  );
  const verdict = (name: string) => series[name]?.verdict;
  const targets = {
    redisStoreFlat: verdict('redis prefix bytes (MEMORY USAGE)') === 'flat',
    sqliteStoreFlat: verdict('sqlite file (state.db + wal)') === 'flat',
    noneLost: Object.values(traffic).every((side) => side.lost === 0),
    auditChainsIntact: samples.every((sample) => sample.audit.every((check) => check.ok)),
  };
  const text = [
    `| series | first | last | slope, last ${windowMinutes} min | noise (residual sd) | first-half slope | verdict |`,
    '|---|---|---|---|---|---|---|',
    ...Object.entries(series).map(
      ([name, trend]) =>
        `| ${name} | ${show(trend.first, trend.unit)} | ${show(trend.last, trend.unit)} | ` +
        `${show(trend.slopePerMinute, trend.unit, true)}/min | ${show(trend.residualSd, trend.unit)} | ` +
        `${show(trend.firstHalfSlopePerMinute, trend.unit, true)}/min | ${trend.verdict} |`,
    ),
    '',
    '| store | threads | sent | answered | lost | wrong | error posts | turn p50 / p95 |',
    '|---|---|---|---|---|---|---|---|',
    ...Object.entries(traffic).map(
      ([name, side]) =>
        `| ${name} | ${side.threads} | ${side.sent} | ${side.answered} | ${side.lost} | ${side.wrong} | ${side.errors} | ` +
        `${side.turn ? `${(side.turn.p50Ms / 1000).toFixed(1)} s / ${(side.turn.p95Ms / 1000).toFixed(1)} s` : '-'} |`,
    ),
    '',
    growingFamilies.length === 0
      ? 'no key family grows'
      : `growing key families: ${growingFamilies.map((family) => `${family.store} ${family.family} (${family.keys.first} -> ${family.keys.last} keys)`).join(', ')}`,
    `targets: ${JSON.stringify(targets)}`,
  ].join('\n');
  return { json: { series, traffic, targets, growingFamilies, families }, text };
}

const round = (value: number) => Math.round(value * 10) / 10;

/** A value in its unit: bytes in KiB or MiB, counts as they are; `signed` shows a + on growth. */
function show(value: number, unit: Unit, signed = false): string {
  const sign = signed && value > 0 ? '+' : '';
  if (unit !== 'bytes') return `${sign}${round(value)}`;
  const magnitude = Math.abs(value);
  if (magnitude >= 1024 * 1024) return `${sign}${(value / 1024 / 1024).toFixed(2)} MiB`;
  return `${sign}${(value / 1024).toFixed(1)} KiB`;
}
