/** The run's results as one JSON document, and as the table printed at the end of `npm run bench`. */
import type { ContainerMemory } from './container-memory.js';
import type { MachineInfo } from './machine.js';
import type { Summary } from './stats.js';
import type { Target } from './targets.js';

export interface Row {
  label: string;
  summary: Summary;
}

/** One runtime's part of the results. */
export interface RuntimeResults {
  metrics: Record<string, Summary>;
  idleMemory: ContainerMemory;
  /** Sessions asking for a kernel at once on an empty pool, through the start queue. */
  concurrentStarts: { sessions: number; startConcurrency: number; wallMs: number; startsPerMinute: number };
  /** p50 over p50, each. */
  ratios: Record<string, number>;
}

export interface BenchResults {
  timestamp: string;
  machine: MachineInfo;
  image: string;
  limits: Record<string, number>;
  /** Samples per metric and warm-up rounds. */
  counts: Record<string, number>;
  runtimes: Record<string, RuntimeResults>;
  /** The Jupyter anchor, under runc, and its ratios to ours under runc. */
  jupyter: { metrics: Record<string, Summary>; ratios: Record<string, number> };
  /** gVisor's cost: each metric's p50 under runsc over its p50 under runc. */
  runscOverRunc: Record<string, number>;
  targets: Target[];
  notes: string[];
  durationS: number;
}

/** A titled part of the printed report: its latency rows and its ratios. */
export interface Section {
  title: string;
  rows: Row[];
  ratios: Array<[label: string, value: number]>;
  lines?: string[];
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

function formatValue(value: number, unit: Target['unit']): string {
  if (unit === 'x') return `${value.toFixed(2)}x`;
  return unit === 'ms' ? `${ms(value)} ms` : `${value.toFixed(1)} MiB`;
}

function table(header: string[], rows: string[][], rightAligned: (column: number) => boolean): string[] {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => {
        const width = widths[column] ?? cell.length;
        return rightAligned(column) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}

function formatSection(section: Section): string[] {
  const latency = table(
    ['metric', 'n', 'p50 ms', 'p95 ms', 'mean ms'],
    section.rows.map(({ label, summary }) => [
      label,
      String(summary.samples),
      ms(summary.p50Ms),
      ms(summary.p95Ms),
      ms(summary.meanMs),
    ]),
    (column) => column > 0,
  );
  const ratios = table(
    ['ratio (p50 / p50)', 'value'],
    section.ratios.map(([label, value]) => [label, `${value.toFixed(2)}x`]),
    (column) => column > 0,
  );
  return [
    `== ${section.title}`,
    ...(section.rows.length > 0 ? latency : []),
    ...(section.lines ?? []),
    '',
    ...ratios,
    '',
  ];
}

/** The idle memory and concurrent-start lines of one runtime. */
export function runtimeLines(results: RuntimeResults): string[] {
  const { idleMemory, concurrentStarts } = results;
  return [
    `idle session memory: ${idleMemory.usageMib.toFixed(1)} MiB ` +
      `(usage ${idleMemory.rawUsageMib.toFixed(1)} MiB minus ${idleMemory.cacheField} ${idleMemory.cacheMib.toFixed(1)} MiB` +
      `${idleMemory.anonymousMib === undefined ? '' : `; of it anonymous ${idleMemory.anonymousMib.toFixed(1)} MiB`})`,
    `concurrent starts: ${concurrentStarts.sessions} sessions at once, ${concurrentStarts.startConcurrency} starting at a time: ` +
      `${concurrentStarts.startsPerMinute} kernel starts per minute (all ready in ${(concurrentStarts.wallMs / 1000).toFixed(1)} s)`,
  ];
}

export function formatReport(results: BenchResults, sections: Section[]): string {
  const { machine } = results;
  const targets = table(
    ['target', 'value', 'goal', 'result'],
    results.targets.map((goal) => [
      goal.name,
      formatValue(goal.value, goal.unit),
      `${goal.comparison} ${formatValue(goal.limit, goal.unit)}`,
      goal.pass ? 'PASS' : 'MISS',
    ]),
    (column) => column === 1 || column === 2,
  );
  return [
    `tally sandbox benchmark, ${results.timestamp} (${results.durationS.toFixed(0)} s)`,
    `${machine.platform}, ${machine.cpus} x ${machine.cpuModel}, ${machine.totalMemoryMib} MiB, node ${machine.node}, ` +
      `docker ${machine.dockerServerVersion} (cgroup ${machine.cgroupVersion}), image ${results.image}`,
    `sandbox limits: ${Object.entries(results.limits)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ')}`,
    '',
    ...sections.flatMap(formatSection),
    ...targets,
    '',
    ...results.notes.map((note) => `note: ${note}`),
  ].join('\n');
}
