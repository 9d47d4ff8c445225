/**
 * `npm run bench`: the sandbox against its anchors, side by side in one run on one machine and one image, under
 * each container runtime in turn (runc, then gVisor's runsc). Prints a table per runtime with ratios, gVisor's
 * cost as runsc / runc, and the targets; writes bench/results/sandbox.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { resolveRuntime } from '../sandbox/sandbox-runtime.js';
import { BENCH_RUNTIMES, BIG_OUTPUTS, benchSettings, COUNTS, underRuntime } from './bench-settings.js';
import { ensureTables, TABLES } from './extract-tables.js';
import { measureJupyter } from './jupyter-anchor.js';
import { machineInfo } from './machine.js';
import { measureRuntime, type RuntimeMeasures, ratio } from './measure-runtime.js';
import { type BenchResults, formatReport, runtimeLines, type Section } from './report.js';
import { type Summary, summarize } from './stats.js';
import { isolationCostTargets, jupyterTargets, RUNTIME_GOALS, sandboxTargets } from './targets.js';

const RESULTS_DIR = new URL('./results/', import.meta.url);

const NOTES = [
  'raw pipe (anchor a): a bare python3 eval loop in the same image, hardened container spec and runtime, over the ' +
    'same hijacked attach stream; it replies with repr(value) and nothing else (its large replies are the repr of the string).',
  "Large outputs of ours travel as a file in the session's outbox beside a short reply line, not on the attach " +
    'stream (protocol v2, sandbox/kernel/outbox.py), so they can beat the raw pipe, which is the floor of the stream.',
  'Jupyter (anchor b): ipykernel driven by jupyter_client, timed under runc inside its own container with no Docker ' +
    'stream and no CPU quota. That flatters Jupyter, so "Jupyter / ours" is conservative. It has no output cap: for ' +
    'the capped output it prints only the 100 MB that reach us.',
  'Cold kernels (no warm one free) are ready before numpy, pandas and matplotlib are imported and import them in the ' +
    'background once ready; a cell right after ready waits for the rest (the "first import" row), one after a model ' +
    "call's time finds them loaded (the next row). Warm-pool kernels import them before they count as ready.",
  "Our round trips and the raw pipe's are sampled in alternating blocks, so drift during the run falls on both.",
  'Extraction: MariaDB 1M x 10 through our connector into a kernel with 8 GiB, median of 3 after a warm-up.',
  'runsc / runc: the same metric p50 under each runtime, measured one after the other in this run.',
  'Targets are judged on p50; percentiles are nearest-rank. Timings compare within this run only.',
];

/** The metrics whose runsc / runc ratio is gVisor's cost. */
const COSTS = ['coldStart', 'coldFirstImport', 'warmAcquire', 'trivialOurs', 'bigOutputOurs', 'extract1m'] as const;

async function main(): Promise<void> {
  const started = performance.now();
  const settings = benchSettings();
  const machine = await machineInfo(settings.docker);
  const say = (message: string) => process.stderr.write(`bench: ${message}\n`);
  for (const runtime of BENCH_RUNTIMES) await resolveRuntime(settings.docker, runtime); // each must be registered
  const url = await ensureTables(say, [TABLES.rows]);

  const measured: Record<string, RuntimeMeasures> = {};
  for (const runtime of BENCH_RUNTIMES)
    measured[runtime] = await measureRuntime(underRuntime(settings, runtime), url, say);
  const runc = measured.runc as RuntimeMeasures;
  const runsc = measured.runsc as RuntimeMeasures;
  say('Jupyter anchor (runc)');
  const jupyter = await measureJupyter(settings);

  const jupyterMetrics: Record<string, Summary> = {
    trivialJupyter: summarize(jupyter.trivialMs),
    jupyterStartToFirstCell: summarize([jupyter.startToFirstCellMs]),
  };
  const jupyterRatios: Record<string, number> = {
    trivialJupyterOverOurs: ratio(jupyterMetrics.trivialJupyter as Summary, runc.metrics.trivialOurs as Summary),
  };
  for (const output of BIG_OUTPUTS) {
    const samples = jupyter.outputsMs[output.key];
    if (!samples) throw new Error(`no Jupyter samples for the ${output.label}`);
    jupyterMetrics[`${output.key}Jupyter`] = summarize(samples);
    jupyterRatios[`${output.key}JupyterOverOurs`] = ratio(
      summarize(samples),
      runc.metrics[`${output.key}Ours`] as Summary,
    );
  }
  const runscOverRunc: Record<string, number> = Object.fromEntries(
    COSTS.map((key) => [key, ratio(runsc.metrics[key] as Summary, runc.metrics[key] as Summary)]),
  );
  runscOverRunc.idleMemory = Math.round((runsc.idleMemory.usageMib / runc.idleMemory.usageMib) * 100) / 100;

  const targets = [
    ...Object.values(measured).flatMap((one) =>
      sandboxTargets(
        one.runtime,
        {
          oursOverRawPipe: one.ratios.trivialOursOverRawPipe ?? Number.NaN,
          bigOutputOursOverRawPipe: one.ratios.bigOutputOursOverRawPipe ?? Number.NaN,
          warmAcquireP50Ms: one.metrics.warmAcquire?.p50Ms ?? Number.NaN,
          coldStartP50Ms: one.metrics.coldStart?.p50Ms ?? Number.NaN,
          idleMemoryMib: one.idleMemory.usageMib,
        },
        RUNTIME_GOALS[one.runtime] ?? { coldStartMs: 1000, idleMemoryMib: 120 },
      ),
    ),
    ...jupyterTargets(
      jupyterRatios.trivialJupyterOverOurs ?? Number.NaN,
      jupyterRatios.bigOutputJupyterOverOurs ?? Number.NaN,
    ),
    ...isolationCostTargets(runscOverRunc.extract1m ?? Number.NaN),
  ];
  const results: BenchResults = {
    timestamp: new Date().toISOString(),
    machine,
    image: settings.image,
    limits: { ...settings.limits },
    counts: { ...COUNTS },
    runtimes: Object.fromEntries(
      Object.values(measured).map(({ runtime, metrics, idleMemory, concurrentStarts, ratios }) => [
        runtime,
        { metrics, idleMemory, concurrentStarts, ratios },
      ]),
    ),
    jupyter: { metrics: jupyterMetrics, ratios: jupyterRatios },
    runscOverRunc,
    targets,
    notes: NOTES,
    durationS: Math.round((performance.now() - started) / 100) / 10,
  };
  const sections: Section[] = [
    ...Object.values(measured).map((one) => ({
      title: `under ${one.runtime}`,
      rows: one.rows,
      ratios: Object.entries(one.ratios).map(([key, value]): [string, number] => [one.ratioLabels[key] ?? key, value]),
      lines: runtimeLines(results.runtimes[one.runtime] as BenchResults['runtimes'][string]),
    })),
    {
      title: 'Jupyter (anchor b, under runc) against ours under runc',
      rows: [
        { label: "trivial '1': Jupyter, in container", summary: jupyterMetrics.trivialJupyter as Summary },
        ...BIG_OUTPUTS.map((output) => ({
          label: `${output.label}: Jupyter, in container`,
          summary: jupyterMetrics[`${output.key}Jupyter`] as Summary,
        })),
        {
          label: "Jupyter start -> first '1', in container",
          summary: jupyterMetrics.jupyterStartToFirstCell as Summary,
        },
      ],
      ratios: [
        ["trivial '1': Jupyter / ours", jupyterRatios.trivialJupyterOverOurs ?? Number.NaN],
        ...BIG_OUTPUTS.map((output): [string, number] => [
          `${output.label}: Jupyter / ours`,
          jupyterRatios[`${output.key}JupyterOverOurs`] ?? Number.NaN,
        ]),
      ],
    },
    {
      title: "gVisor's cost: runsc / runc",
      rows: [],
      ratios: Object.entries(runscOverRunc).map(([key, value]): [string, number] => [key, value]),
    },
  ];
  await mkdir(RESULTS_DIR, { recursive: true });
  const output = new URL('sandbox.json', RESULTS_DIR);
  await writeFile(output, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${formatReport(results, sections)}\n\nwrote ${output.pathname}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
