/**
 * The first README command's job for now: a session on the telco database. Lists the tables,
 * extracts a join into the session's sandboxed kernel, analyses churn there, saves the chart, and
 * says where it is. (The agent, driven by a model, takes over this script in a later issue.)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Database } from '../ports/database.js';
import type { Execution, Sandbox } from '../ports/sandbox.js';

export interface TelcoDemoOptions {
  sandbox: Sandbox;
  database: Database;
  /** Folder for the chart; created if missing. */
  outDir: string;
  print: (line: string) => void;
}

export const DEMO_SQL = `SELECT p.customerID, p.Contract, p.PaymentMethod, p.MonthlyCharges, s.InternetService, s.tenure, c.Churn
FROM user_payments p
JOIN user_services s ON s.customerID = p.customerID
JOIN user_churn c ON c.customerID = p.customerID`;

const CELLS = [
  {
    title: 'Churn rate by contract, in the kernel (the train tables have blanked cells on purpose)',
    code: `customers["Contract"] = customers.Contract.replace("", "(blank)")
rates = (customers.assign(churned=customers.Churn.eq("Yes"))
         .groupby("Contract").churned.agg(["mean", "size"])
         .rename(columns={"mean": "churn_rate", "size": "customers"}))
rates.round(3)`,
  },
  {
    title: 'Churn by contract and internet service, as a chart',
    code: `import matplotlib.pyplot as plt
table = customers.assign(churned=customers.Churn.eq("Yes")).pivot_table(
    index="Contract", columns="InternetService", values="churned", aggfunc="mean")
ax = table.plot.barh(figsize=(7, 3.5), color=["#4c72b0", "#dd8452", "#55a868"])
ax.set_xlabel("churn rate"); ax.set_ylabel(""); ax.set_title("Churn by contract and internet service (telco_db)")
plt.tight_layout()`,
  },
];

export async function runTelcoDemo(options: TelcoDemoOptions): Promise<{ chartPath: string }> {
  const { sandbox, database, print } = options;
  print(`database ${database.name} (${database.dialect}):`);
  for (const table of await database.listTables()) {
    print(`  ${table.name.padEnd(24)} ${String(table.rows).padStart(6)} rows${table.rowsExact ? '' : ' (estimate)'}`);
  }
  const started = performance.now();
  const kernel = await sandbox.acquire('console:local:demo');
  print(`\nsession console:local:demo has a sandboxed kernel (${Math.round(performance.now() - started)} ms)`);
  print(`\nextracting into the kernel as 'customers':\n${indent(DEMO_SQL, '  > ')}`);
  const provenance = await database.extract(DEMO_SQL, kernel, 'customers');
  print(`  ${provenance.rows} rows in ${provenance.elapsedMs} ms, sha256 ${provenance.sha256.slice(0, 12)}…`);
  print(`  ${provenance.columns.map((column) => `${column.name}: ${column.dtype}`).join(', ')}`);
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
  const [figure] = execution.figures;
  if (figure) parts.push(`(${execution.figures.length} figure, ${figure.png.length} bytes PNG)`);
  parts.push(`(${execution.durationMs.toFixed(1)} ms)`);
  return parts.filter(Boolean).join('\n');
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}
