/**
 * The first README command's job for now: open a session, run a short analysis in its sandboxed
 * kernel, save the chart, and say where it is. (The agent demo on the telco data replaces it.)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Execution, Sandbox } from '../ports/sandbox.js';

export interface SandboxDemoOptions {
  sandbox: Sandbox;
  /** Folder for the chart; created if missing. */
  outDir: string;
  /** Where progress lines go. */
  print: (line: string) => void;
}

const CELLS = [
  {
    title: 'Make a small customer table (seeded, so every run is the same)',
    code: `import numpy as np, pandas as pd
rng = np.random.default_rng(7)
n = 500
contract = rng.choice(["Month-to-month", "One year", "Two year"], n, p=[0.55, 0.21, 0.24])
tenure = rng.integers(0, 72, n)
base = np.select([contract == "Month-to-month", contract == "One year"], [0.42, 0.11], 0.03)
churn = rng.random(n) < np.clip(base + 0.15 * (tenure < 6), 0, 0.95)
customers = pd.DataFrame({"contract": contract, "tenure": tenure, "churn": np.where(churn, "Yes", "No")})
customers.head()`,
  },
  {
    title: 'Churn rate by contract type',
    code: `rates = customers.assign(churned=customers.churn.eq("Yes")).groupby("contract").churned.agg(["mean", "size"])
rates.rename(columns={"mean": "churn_rate", "size": "customers"}).round(3)`,
  },
  {
    title: 'Chart it',
    code: `import matplotlib.pyplot as plt
ax = rates["mean"].sort_values().plot.barh(color="#4c72b0", figsize=(6, 3))
ax.set_xlabel("churn rate"); ax.set_ylabel(""); ax.set_title("Churn by contract (demo data)")
plt.tight_layout()`,
  },
];

export async function runSandboxDemo(options: SandboxDemoOptions): Promise<{ chartPath: string }> {
  const { sandbox, print } = options;
  const started = performance.now();
  const kernel = await sandbox.acquire('console:local:demo');
  print(`session console:local:demo has a sandboxed kernel (${Math.round(performance.now() - started)} ms)`);
  let chart: Buffer | undefined;
  for (const [index, cell] of CELLS.entries()) {
    print(`\n[${index + 1}/${CELLS.length}] ${cell.title}`);
    print(indent(cell.code, '  > '));
    const execution = await kernel.run(cell.code);
    print(indent(describe(execution), '    '));
    if (execution.error) throw new Error(`demo cell ${index + 1} failed: ${execution.error.value}`);
    chart = execution.figures[0]?.png ?? chart;
  }
  if (chart === undefined) throw new Error('the demo produced no chart');
  await mkdir(options.outDir, { recursive: true });
  const chartPath = join(options.outDir, 'churn-by-contract.png');
  await writeFile(chartPath, chart);
  print(`\nchart saved: ${chartPath}`);
  await kernel.dispose();
  return { chartPath };
}

function describe(execution: Execution): string {
  const parts = [execution.stdout.trimEnd(), execution.result?.text ?? ''];
  if (execution.figures.length > 0)
    parts.push(`(${execution.figures.length} figure, ${execution.figures[0]?.png.length} bytes PNG)`);
  parts.push(`(${execution.durationMs.toFixed(1)} ms)`);
  return parts.filter(Boolean).join('\n');
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}
