/**
 * The demo without a model: the real agent, sandbox and database, with the scripted model server
 * (test/support) standing in for the LLM. The script makes the calls a model would make for the
 * demo request, and its answer quotes the numbers the tools returned, not numbers of its own.
 */
import { callTool, type ScriptStep, say } from '../../test/support/scripted-model-server.js';

export const DEMO_REQUEST =
  'Are the telco_db tables consistent? Then tell me which contract types churn most, with a chart.';

const COUNTS_SQL = `SELECT
  (SELECT COUNT(*) FROM user_demographics) AS demographics,
  (SELECT COUNT(*) FROM user_services) AS services,
  (SELECT COUNT(*) FROM user_payments) AS payments,
  (SELECT COUNT(*) FROM user_churn) AS churn`;

const CHURN_SQL = `SELECT p.customerID, p.Contract, c.Churn
FROM user_payments p JOIN user_churn c ON c.customerID = p.customerID`;

const CHURN_CODE = `import matplotlib.pyplot as plt
customers["Contract"] = customers.Contract.replace("", "(blank)")
rates = customers.assign(churned=customers.Churn.eq("Yes")).groupby("Contract").churned.mean().sort_values()
ax = rates.plot.barh(color="#4c72b0", figsize=(6, 3))
ax.set_xlabel("churn rate"); ax.set_ylabel(""); ax.set_title("Churn rate by contract (telco_db train tables)")
plt.tight_layout()
rates.round(3)`;

/** Finds `name  number` pairs in a tool's text output. */
function numbers(text: string): Map<string, string> {
  return new Map(
    [...text.matchAll(/^\s*([A-Za-z][\w() -]*?)\s{2,}(\d[\d.]*)\s*$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
  );
}

export function demoScript(): ScriptStep[] {
  let counts = '';
  return [
    callTool('triage', { verdict: 'answerable', multi_step: true }),
    say(
      '1. Count the rows of the four train tables and compare them.\n2. Load contract and churn per customer.\n3. Compute churn by contract and chart it.',
    ),
    callTool('list_tables', {}),
    callTool('run_sql', { sql: COUNTS_SQL }),
    (context) => {
      counts = context.lastToolResult?.content ?? '';
      return callTool('load_dataframe', { sql: CHURN_SQL, name: 'customers' });
    },
    callTool('run_python', { code: CHURN_CODE }),
    (context) => {
      const [header = '', values = ''] = counts.split('\n');
      const names = header.trim().split(/\s+/);
      const figures = values.trim().split(/\s+/);
      const table = names.map((name, index) => `${name} ${figures[index] ?? '?'}`).join(', ');
      const rates = [...numbers(context.lastToolResult?.content ?? '').entries()]
        .filter(([name]) => name !== 'Contract')
        .map(([name, rate]) => `- ${name}: ${(Number(rate) * 100).toFixed(1)}%`)
        .join('\n');
      return say(
        `**The tables are not consistent.** Rows per train table: ${table}. They should all hold the same customers; ` +
          'demographics is short and services and churn have extra rows, so join on customerID and check which ids are missing before modelling.\n\n' +
          `**Churn by contract** (train customers with a churn label):\n${rates}\n\n` +
          'Month-to-month customers churn far more than those on one- or two-year contracts. The chart is in the thread.',
      );
    },
  ];
}
