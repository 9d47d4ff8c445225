/**
 * The extraction bench's targets (issue 15 for MariaDB; PostgreSQL's own, which ask read_sql for 8x at
 * 1M x 10 only) and the table it prints: each measure with its anchors, ratio and PASS/MISS.
 */
import type { Target } from './targets.js';

export interface Comparison {
  /** e.g. `MariaDB 1M x 10`. */
  label: string;
  oursSeconds: number;
  /** The driver alone on the same query: raw mysql2 or pg streaming, or better-sqlite3 iterating. */
  driverSeconds: number;
  driverLabel: string;
  readSqlSeconds?: number;
  readSqlLabel?: string;
  /** read_sql must be at least this many times slower than ours; false: reported, not gated. Default 12. */
  readSqlAtLeast?: number | false;
  /**
   * Judged against the targets (issue 15 sets them for MariaDB against raw mysql2 and read_sql);
   * false: measured and reported the same way, without PASS/MISS. Default true.
   */
  gated?: boolean;
}

export interface StageShare {
  stage: string;
  seconds: number;
}

const AT_MOST_DRIVER = 1.5;
const AT_LEAST_READ_SQL = 12;
const MEMORY_FLAT = 1.5;

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

function target(name: string, value: number, comparison: '<=' | '>=', limit: number): Target {
  const pass = comparison === '<=' ? value <= limit : value >= limit;
  return { name, value: round(value), unit: 'x', comparison, limit, pass };
}

/** `memoryLabel` names the live-memory target (one per connector: `PostgreSQL: Node live memory`). */
export function extractTargets(
  comparisons: Comparison[],
  livePeakMib: { small: number; large: number },
  memoryLabel = 'Node live memory',
): Target[] {
  const targets: Target[] = [];
  for (const comparison of comparisons) {
    if (comparison.gated === false) continue;
    targets.push(
      target(
        `${comparison.label}: ours / ${comparison.driverLabel}`,
        comparison.oursSeconds / comparison.driverSeconds,
        '<=',
        AT_MOST_DRIVER,
      ),
    );
    if (comparison.readSqlSeconds !== undefined && comparison.readSqlAtLeast !== false) {
      targets.push(
        target(
          `${comparison.label}: ${comparison.readSqlLabel ?? 'read_sql'} / ours`,
          comparison.readSqlSeconds / comparison.oursSeconds,
          '>=',
          comparison.readSqlAtLeast ?? AT_LEAST_READ_SQL,
        ),
      );
    }
  }
  targets.push(
    target(
      `${memoryLabel}, 10M-row peak / 1M-row peak`,
      livePeakMib.large / Math.max(livePeakMib.small, 1),
      '<=',
      MEMORY_FLAT,
    ),
  );
  return targets;
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? cell.length))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}

const seconds = (value: number) => `${value.toFixed(3)} s`;

/** Each stage's seconds and share of their sum, under `title` (e.g. `stage (MariaDB 1M x 10, medians)`). */
export function formatStages(title: string, stages: StageShare[]): string[] {
  const total = stages.reduce((sum, stage) => sum + stage.seconds, 0);
  return table(
    [title, 'seconds', 'share'],
    stages.map((stage) => [stage.stage, stage.seconds.toFixed(3), `${((stage.seconds / total) * 100).toFixed(0)}%`]),
  );
}

export function formatExtractReport(
  comparisons: Comparison[],
  stages: StageShare[],
  targets: Target[],
  stagesTitle = 'stage (MariaDB 1M x 10, medians)',
): string[] {
  const measures = table(
    ['measure', 'tally (median)', 'anchors in the same run (median)', 'ratios'],
    comparisons.map((comparison) => [
      comparison.label,
      seconds(comparison.oursSeconds),
      [
        `${comparison.driverLabel} ${seconds(comparison.driverSeconds)}`,
        ...(comparison.readSqlSeconds === undefined
          ? []
          : [`${comparison.readSqlLabel ?? 'read_sql'} ${seconds(comparison.readSqlSeconds)}`]),
      ].join('; '),
      [
        `ours/driver ${round(comparison.oursSeconds / comparison.driverSeconds)}x`,
        ...(comparison.readSqlSeconds === undefined
          ? []
          : [
              `read_sql/ours ${round(comparison.readSqlSeconds / comparison.oursSeconds)}x` +
                (comparison.readSqlAtLeast === false ? ' (not gated)' : ''),
            ]),
      ].join(', ') + (comparison.gated === false ? ' (reported, not gated)' : ''),
    ]),
  );
  const profile = formatStages(stagesTitle, stages);
  const goals = table(
    ['target', 'value', 'goal', 'result'],
    targets.map((goal) => [
      goal.name,
      `${goal.value.toFixed(2)}x`,
      `${goal.comparison} ${goal.limit}x`,
      goal.pass ? 'PASS' : 'MISS',
    ]),
  );
  return [...measures, '', ...profile, '', ...goals];
}
