/**
 * `npm run bench`: the sandbox against its anchors, side by side in one run on one machine and one
 * image. Prints a table with ratios and targets, and writes bench/results/sandbox.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { BIG_OUTPUTS, benchSettings, COUNTS } from './bench-settings.js';
import { measureJupyter } from './jupyter-anchor.js';
import { machineInfo } from './machine.js';
import { measureColdKernel, measureConcurrentStarts, measureWarmPool } from './measure-sandbox.js';
import { measureRawPipe } from './raw-pipe.js';
import { type BenchResults, formatReport, type Row } from './report.js';
import { type Summary, summarize } from './stats.js';
import { evaluateTargets } from './targets.js';

const RESULTS_DIR = new URL('./results/', import.meta.url);

const NOTES = [
  'raw pipe (anchor a): a bare python3 eval loop in the same image and hardened container spec, over the same ' +
    'hijacked attach stream; it replies with repr(value) and nothing else (its large replies are the repr of the string).',
  "Large outputs of ours travel as a file in the session's outbox beside a short reply line, not on the attach " +
    'stream (protocol v2, sandbox/kernel/outbox.py), so they can beat the raw pipe, which is the floor of the stream.',
  'Jupyter (anchor b): ipykernel driven by jupyter_client, timed inside its own container with no Docker stream and ' +
    'no CPU quota. That flatters Jupyter, so "Jupyter / ours" is conservative. It has no output cap: for the capped ' +
    'output it prints only the 100 MB that reach us.',
  'Cold kernels (no warm one free) are ready before numpy, pandas and matplotlib are imported and import them in the ' +
    'background once ready; a cell right after ready waits for the rest (the "first import" row), one after a model ' +
    "call's time finds them loaded (the next row). Warm-pool kernels import them before they count as ready.",
  "Our round trips and the raw pipe's are sampled in alternating blocks, so drift during the run falls on both.",
  'Targets are judged on p50; percentiles are nearest-rank. Timings compare within this run only.',
];

const ratio = (numerator: Summary, denominator: Summary) =>
  Math.round((numerator.p50Ms / denominator.p50Ms) * 100) / 100;

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
  say(`concurrent starts: ${COUNTS.concurrentSessions} sessions at once`);
  const concurrent = await measureConcurrentStarts(settings);
  say('Jupyter anchor');
  const jupyter = await measureJupyter(settings);

  const metrics: Record<string, Summary> = {
    coldStart: summarize(cold.coldStartMs),
    coldFirstImport: summarize([cold.firstImportMs]),
    coldFirstImportAfterPause: summarize([cold.firstImportAfterPauseMs]),
    warmAcquire: summarize(warm.acquireMs),
    warmAcquireFirstCell: summarize(warm.acquireFirstCellMs),
    concurrentStartFirstCell: summarize(concurrent.firstCellMs),
    trivialOurs: summarize(raw.oursTrivialMs),
    trivialRawPipe: summarize(raw.trivialMs),
    trivialJupyter: summarize(jupyter.trivialMs),
  };
  const ratios: Record<string, number> = {
    trivialOursOverRawPipe: ratio(metrics.trivialOurs as Summary, metrics.trivialRawPipe as Summary),
    trivialJupyterOverOurs: ratio(metrics.trivialJupyter as Summary, metrics.trivialOurs as Summary),
  };
  const ratioLabels: Record<string, string> = {
    trivialOursOverRawPipe: "trivial '1': ours / raw pipe",
    trivialJupyterOverOurs: "trivial '1': Jupyter / ours",
  };
  const outputRows: Row[] = [];
  for (const output of BIG_OUTPUTS) {
    const samples = raw.outputs[output.key];
    const jupyterMs = jupyter.outputsMs[output.key];
    if (!samples || !jupyterMs) throw new Error(`no samples for the ${output.label}`);
    const ours = summarize(samples.oursMs);
    const rawPipe = summarize(samples.rawPipeMs);
    const inJupyter = summarize(jupyterMs);
    metrics[`${output.key}Ours`] = ours;
    metrics[`${output.key}RawPipe`] = rawPipe;
    metrics[`${output.key}Jupyter`] = inJupyter;
    ratios[`${output.key}OursOverRawPipe`] = ratio(ours, rawPipe);
    ratios[`${output.key}JupyterOverOurs`] = ratio(inJupyter, ours);
    ratioLabels[`${output.key}OursOverRawPipe`] = `${output.label}: ours / raw pipe`;
    ratioLabels[`${output.key}JupyterOverOurs`] = `${output.label}: Jupyter / ours`;
    outputRows.push(
      { label: `${output.label}: ours (Kernel.run)`, summary: ours },
      { label: `${output.label}: raw pipe (anchor a)`, summary: rawPipe },
      { label: `${output.label}: Jupyter, in container (anchor b)`, summary: inJupyter },
    );
  }
  metrics.jupyterStartToFirstCell = summarize([jupyter.startToFirstCellMs]);
  const targets = evaluateTargets({
    oursOverRawPipe: ratios.trivialOursOverRawPipe ?? Number.NaN,
    jupyterOverOurs: ratios.trivialJupyterOverOurs ?? Number.NaN,
    bigOutputOursOverRawPipe: ratios.bigOutputOursOverRawPipe ?? Number.NaN,
    bigOutputJupyterOverOurs: ratios.bigOutputJupyterOverOurs ?? Number.NaN,
    warmAcquireP50Ms: metrics.warmAcquire?.p50Ms ?? Number.NaN,
    coldStartP50Ms: metrics.coldStart?.p50Ms ?? Number.NaN,
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
    concurrentStarts: {
      sessions: concurrent.sessions,
      startConcurrency: concurrent.startConcurrency,
      wallMs: Math.round(concurrent.wallMs),
      startsPerMinute: concurrent.startsPerMinute,
    },
    ratios,
    targets,
    notes: NOTES,
    durationS: Math.round((performance.now() - started) / 100) / 10,
  };
  const row = (label: string, key: string): Row => ({ label, summary: metrics[key] as Summary });
  const rows: Row[] = [
    row("cold session start (acquire -> first '1', pool 0)", 'coldStart'),
    row('cold kernel: first import of numpy, pandas, matplotlib.pyplot', 'coldFirstImport'),
    row(`the same, ${COUNTS.modelPauseMs / 1000} s after ready (after a model call)`, 'coldFirstImportAfterPause'),
    row('warm-pool acquire (pool 1)', 'warmAcquire'),
    row("warm-pool acquire + first '1'", 'warmAcquireFirstCell'),
    row(`concurrent starts: ${concurrent.sessions} at once, acquire -> first '1'`, 'concurrentStartFirstCell'),
    row("trivial '1': ours (Kernel.run)", 'trivialOurs'),
    row("trivial '1': raw pipe (anchor a)", 'trivialRawPipe'),
    row("trivial '1': Jupyter, in container (anchor b)", 'trivialJupyter'),
    ...outputRows,
    row("Jupyter start -> first '1', in container", 'jupyterStartToFirstCell'),
  ];
  await mkdir(RESULTS_DIR, { recursive: true });
  const output = new URL('sandbox.json', RESULTS_DIR);
  await writeFile(output, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${formatReport(results, rows, ratioLabels)}\n\nwrote ${output.pathname}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
