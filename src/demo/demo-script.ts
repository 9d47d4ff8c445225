/**
 * The demo without a model: the real agent, sandbox and database, with the scripted model server
 * (scripted-model-server.ts) standing in for the LLM. The script makes the calls a model would make for the
 * demo request, and the demo plays the reviewer (DEMO_REVIEW): the first section is sent back with
 * feedback, the revision and the next section are accepted, and the report is exported. Narratives
 * quote the numbers the tools returned, not numbers of their own. Calls name the plan step they work
 * on (`plan_step`), as the prompt asks a model to, so the progress moves through the plan.
 */
import { callTool, type ScriptContext, type ScriptStep, say } from './scripted-model-server.js';

export const DEMO_REQUEST =
  'Are the telco_db tables consistent? Then tell me which contract types churn most, with a chart.';

/** What the reviewer replies in the demo, in order, after the request. */
export const DEMO_REVIEW = [
  'revise: say how many customers are missing from the demographics table',
  'accept',
  'accept',
  'report',
];

const COUNTS_SQL = `SELECT
  (SELECT COUNT(*) FROM user_demographics) AS demographics,
  (SELECT COUNT(*) FROM user_services) AS services,
  (SELECT COUNT(*) FROM user_payments) AS payments,
  (SELECT COUNT(*) FROM user_churn) AS churn`;

const MISSING_SQL = `SELECT
  (SELECT COUNT(*) FROM user_churn c
    WHERE NOT EXISTS (SELECT 1 FROM user_demographics d WHERE d.customerID = c.customerID)) AS churn_without_demographics,
  (SELECT COUNT(*) FROM user_payments p
    WHERE NOT EXISTS (SELECT 1 FROM user_demographics d WHERE d.customerID = p.customerID)) AS payments_without_demographics`;

// Named columns: PostgreSQL returns unquoted names in lower case, and the code below reads these spellings.
const CHURN_SQL = `SELECT p.customerID AS "customerID", p.Contract AS "Contract", c.Churn AS "Churn"
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

/** A one-row result (header line, value line) as `name value` pairs. */
function oneRow(text: string): string {
  const [header = '', values = ''] = text.split('\n');
  const figures = values.trim().split(/\s+/);
  return header
    .trim()
    .split(/\s+/)
    .map((name, index) => `${name.replaceAll('_', ' ')} ${figures[index] ?? '?'}`)
    .join(', ');
}

const last = (context: ScriptContext) => context.lastToolResult?.content ?? '';

export function demoScript(): ScriptStep[] {
  let counts = '';
  const consistency = (extra: string) =>
    `**The tables are not consistent.** Rows per train table: ${oneRow(counts)}. They should all hold the same customers; ` +
    `demographics is short and services and churn have extra rows.${extra} Join on customerID and check which ids are missing before modelling.`;
  return [
    callTool('triage', { verdict: 'answerable', multi_step: true }),
    say(
      '1. Count the rows of the four train tables and compare them (section: data quality).\n2. Load contract and churn per customer.\n3. Compute churn by contract and chart it (section: drivers).',
    ),
    callTool('list_tables', { plan_step: 1 }),
    callTool('run_sql', { sql: COUNTS_SQL, plan_step: 1 }),
    (context) => {
      counts = last(context);
      return callTool('draft_section', {
        title: 'Table consistency',
        stage: 'data quality',
        markdown: consistency(''),
        plan_step: 1,
      });
    },
    // The reviewer asks for the missing customers: the feedback is in the draft_section result.
    (context) =>
      last(context).includes('missing from the demographics')
        ? callTool('run_sql', { sql: MISSING_SQL, plan_step: 1 })
        : say('(the demo expected revision feedback about missing customers)'),
    (context) =>
      callTool('draft_section', {
        title: 'Table consistency',
        stage: 'data quality',
        revises: 's1',
        markdown: consistency(` Customers without demographics: ${oneRow(last(context))}.`),
        plan_step: 1,
      }),
    callTool('load_dataframe', { sql: CHURN_SQL, name: 'customers', plan_step: 2 }),
    callTool('run_python', { code: CHURN_CODE, plan_step: 3 }),
    (context) => {
      const rates = [...numbers(last(context)).entries()]
        .filter(([name]) => name !== 'Contract')
        .map(([name, rate]) => `- ${name}: ${(Number(rate) * 100).toFixed(1)}%`)
        .join('\n');
      return callTool('draft_section', {
        title: 'Churn by contract',
        stage: 'drivers',
        markdown: `Churn rate by contract type (train customers with a churn label):\n${rates}\n\nMonth-to-month customers churn far more than those on one- or two-year contracts.`,
        plan_step: 3,
      });
    },
    say(
      'Both sections are in the report: table consistency (revised) and churn by contract. Ask for "report" to export it.',
    ),
  ];
}
