/**
 * `npm run bench`: the sandbox against its anchors, side by side in one run on one machine and one
 * image. Prints a table with ratios and targets, and writes bench/results/sandbox.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { benchSettings, COUNTS } from './bench-settings.js';
import { measureJupyter } from './jupyter-anchor.js';
import { machineInfo } from './machine.js';
import { measureColdKernel, measureWarmPool } from './measure-sandbox.js';
import { measureRawPipe } from './raw-pipe.js';
import { type BenchResults, formatReport, type Row } from './report.js';
import { summarize } from './stats.js';
import { evaluateTargets } from './targets.js';

const RESULTS_DIR = new URL('./results/', import.meta.url);

const RATIO_LABELS: Record<string, string> = {
  trivialOursOverRawPipe: "trivial '1': ours / raw pipe",
  trivialJupyterOverOurs: "trivial '1': Jupyter / ours",
  bigOutputOursOverRawPipe: '1 MB output: ours / raw pipe',
  bigOutputJupyterOverOurs: '1 MB output: Jupyter / ours',
};

const NOTES = [
  'raw pipe (anchor a): a bare python3 eval loop in the same image and hardened container spec, over the same ' +
    'hijacked attach stream; it replies with repr(value) and nothing else (its 1 MB reply is the repr of the string).',
  'Jupyter (anchor b): ipykernel driven by jupyter_client, timed inside its own container with no Docker stream and ' +
    'no CPU quota. That flatters Jupyter, so "Jupyter / ours" is conservative.',
  "Our round trips and the raw pipe's are sampled in alternating blocks, so drift during the run falls on both.",
  'Targets are judged on p50; percentiles are nearest-rank. Timings compare within this run only.',
];

async function main(): Promise<void> {
  const started = performance.now();
  const settings = benchSettings();
  const machine = await machineInfo(settings.docker);
  const say = (message: string) => process.stderr.write(`bench: ${message}\n`);

  say(`cold kernels on ${settings.image}, then round trips alternating with the raw pipe anchor`);
  const cold = await measureColdKernel(settings, (ours) => measureRawPipe(settings, ours));
  const raw = cold.measured;
  say('warm pool');
  const warm = await measureWarmPool(settings);
  say('Jupyter anchor');
  const jupyter = await measureJupyter(settings);

  const metrics = {
    coldStart: summarize(cold.coldStartMs),
    warmAcquire: summarize(warm.acquireMs),
    warmAcquireFirstCell: summarize(warm.acquireFirstCellMs),
    trivialOurs: summarize(raw.oursTrivialMs),
    trivialRawPipe: summarize(raw.trivialMs),
    trivialJupyter: summarize(jupyter.trivialMs),
    bigOutputOurs: summarize(raw.oursBigOutputMs),
    bigOutputRawPipe: summarize(raw.bigOutputMs),
    bigOutputJupyter: summarize(jupyter.bigOutputMs),
    jupyterStartToFirstCell: summarize([jupyter.startToFirstCellMs]),
  };
  const ratio = (numerator: number, denominator: number) => Math.round((numerator / denominator) * 100) / 100;
  const ratios = {
    trivialOursOverRawPipe: ratio(metrics.trivialOurs.p50Ms, metrics.trivialRawPipe.p50Ms),
    trivialJupyterOverOurs: ratio(metrics.trivialJupyter.p50Ms, metrics.trivialOurs.p50Ms),
    bigOutputOursOverRawPipe: ratio(metrics.bigOutputOurs.p50Ms, metrics.bigOutputRawPipe.p50Ms),
    bigOutputJupyterOverOurs: ratio(metrics.bigOutputJupyter.p50Ms, metrics.bigOutputOurs.p50Ms),
  };
  const targets = evaluateTargets({
    oursOverRawPipe: ratios.trivialOursOverRawPipe,
    jupyterOverOurs: ratios.trivialJupyterOverOurs,
    warmAcquireP50Ms: metrics.warmAcquire.p50Ms,
    coldStartP50Ms: metrics.coldStart.p50Ms,
    idleMemoryMib: cold.idleMemory.usageMib,
  });
  const results: BenchResults = {
    timestamp: new Date().toISOString(),
    machine,
    image: settings.image,
    limits: { ...settings.limits },
    counts: { ...COUNTS },
    metrics,
    idleMemory: cold.idleMemory,
    ratios,
    targets,
    notes: NOTES,
    durationS: Math.round((performance.now() - started) / 100) / 10,
  };
  const rows: Row[] = [
    { label: "cold session start (acquire -> first '1', pool 0)", summary: metrics.coldStart },
    { label: 'warm-pool acquire (pool 1)', summary: metrics.warmAcquire },
    { label: "warm-pool acquire + first '1'", summary: metrics.warmAcquireFirstCell },
    { label: "trivial '1': ours (Kernel.run)", summary: metrics.trivialOurs },
    { label: "trivial '1': raw pipe (anchor a)", summary: metrics.trivialRawPipe },
    { label: "trivial '1': Jupyter, in container (anchor b)", summary: metrics.trivialJupyter },
    { label: '1 MB output: ours (Kernel.run)', summary: metrics.bigOutputOurs },
    { label: '1 MB output: raw pipe (anchor a)', summary: metrics.bigOutputRawPipe },
    { label: '1 MB output: Jupyter, in container (anchor b)', summary: metrics.bigOutputJupyter },
    { label: "Jupyter start -> first '1', in container", summary: metrics.jupyterStartToFirstCell },
  ];
  await mkdir(RESULTS_DIR, { recursive: true });
  const output = new URL('sandbox.json', RESULTS_DIR);
  await writeFile(output, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${formatReport(results, rows, RATIO_LABELS)}\n\nwrote ${output.pathname}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
