/**
 * A scripted model that does the golden analyses the right way: it triages each request (answerable,
 * ambiguous with a question, or out of scope), runs the SQL and pandas an analyst would, and answers
 * with numbers read from the tool results, never from the suite's expectations, so a run proves the
 * whole path (triage, playbook, database, kernel, review, scoring). Cases run in parallel, so every
 * step is the same function: it finds the case from the request in the conversation and the point
 * it has reached from the tool results so far.
 *
 * `stale: true` makes one case (STALE_CASE) sloppy: its cell prints the right churn rates by
 * contract, but the answer states the two-year rate of an earlier run, as an analyst who pasted last
 * quarter's number would. No tool printed that figure, so tally's review note asks for a correction;
 * the oracle sends the same answer again, and the figure is posted marked. The case must fail, say
 * why, and count the figure as ungrounded.
 *
 * The knowledge cases (golden/knowledge-cases.ts) name no join and no filter: the oracle reads the
 * definition or verified query it needs from the "what the organisation knows" block of its act
 * system prompt, found by the term (or a synonym) the request uses, and builds its SQL from that.
 * When the piece is not in the prompt it says so instead of answering, so the case fails: a pass
 * proves retrieval. What it found is recorded in `seen`, by case id.
 */
import { requestOfTurnMessage } from '../../src/agent/turn-message.js';
import {
  callTool,
  isFirstRequest,
  isPlanRequest,
  type ScriptContext,
  type ScriptReply,
  type ScriptStep,
  say,
} from '../../src/demo/scripted-model-server.js';
import { loadGoldenCases } from '../../src/eval/golden/golden-suite.js';

/** The case the stale oracle gets wrong. */
export const STALE_CASE = 'golden-churn-by-contract';

/** The two-year churn rate of the earlier run the stale oracle pastes, given this run's (3 decimals). */
export function staleRate(rate: string): string {
  return (Number(rate) + 0.012).toFixed(3);
}

interface ToolResult {
  name: string;
  content: string;
}

/** What the oracle does in a case's tool loop, given the tool results so far and the act prompt. */
type Act = (results: ToolResult[], prompt: ActPrompt) => ScriptReply;

/** The act stage's request as a knowledge case reads it. */
interface ActPrompt {
  system: string;
  request: string;
  /** Records the knowledge line the oracle acted on. */
  saw(line: string): void;
}

interface OracleCase {
  triage: Record<string, unknown>;
  /** The plan, for requests triaged as multi-step. */
  plan?: string;
  act: Act;
}

const ANSWERABLE = { verdict: 'answerable', multi_step: false };
const MULTI_STEP = { verdict: 'answerable', multi_step: true };

// ---- reading tool results --------------------------------------------------------------------

/** A run_sql preview (aligned columns, then `(n rows)`) as records. */
function tableOf(content: string): Array<Record<string, string>> {
  const lines = content.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('('));
  const [header = '', ...rows] = lines;
  const columns = header.trim().split(/\s{2,}/);
  return rows.map((line) => {
    const cells = line.trim().split(/\s{2,}/);
    return Object.fromEntries(columns.map((column, index) => [column, cells[index] ?? '']));
  });
}

/** What a run_python cell printed. */
function stdoutOf(content: string): string {
  return /^stdout:\n([\s\S]*?)(?=\n(?:stderr:|result \(|error:|\d+ figure)|$)/.exec(content)?.[1]?.trim() ?? content;
}

const first = (results: ToolResult[], index: number) => tableOf(results[index]?.content ?? '')[0] ?? {};

// ---- tool calls ------------------------------------------------------------------------------

const sql = (query: string) => callTool('run_sql', { sql: query, max_rows: 50 });
const load = (name: string, query: string) => callTool('load_dataframe', { sql: query, name });
const python = (code: string) => callTool('run_python', { code });

/** Acts in order, one per model request; the last answers. */
const sequence =
  (...acts: Act[]): Act =>
  (results, prompt) =>
    (acts[Math.min(results.length, acts.length - 1)] as Act)(results, prompt);

/** Answers with what the last cell printed, under a heading (edited first, when `edit` is given). */
const printed =
  (heading: string, edit: (output: string) => string = (output) => output) =>
  (results: ToolResult[]) =>
    say(`${heading}\n\n${edit(stdoutOf(results.at(-1)?.content ?? ''))}`);

/** One SQL query, then an answer from its first row. */
const fromRow = (query: string, answer: (row: Record<string, string>) => string): Act =>
  sequence(
    () => sql(query),
    (results) => say(answer(first(results, 0))),
  );

/** Rows into a DataFrame, a pandas cell, then an answer with what the cell printed (edited, if so). */
const fromPandas = (frame: string, query: string, code: string, heading: string, edit?: (output: string) => string) =>
  sequence(
    () => load(frame, query),
    () => python(code),
    printed(heading, edit),
  );

/** The cell's output with the two-year rate replaced by the earlier run's. */
const pasteStaleTwoYear = (output: string) =>
  output.replace(/^(Two year: )(\S+)$/m, (_, label: string, rate: string) => `${label}${staleRate(rate)}`);

/** Each train customer's value of a user_payments column, with Churn. */
const churnJoin = (column: string) =>
  `SELECT p.customerID, p.${column}, c.Churn FROM user_payments p JOIN user_churn c ON c.customerID = p.customerID`;

const ratesBy = (frame: string, column: string) =>
  [
    `kept = ${frame}[${frame}.${column} != ""]`,
    `rates = kept.Churn.eq("Yes").groupby(kept.${column}).mean()`,
    'for value, rate in rates.items():',
    '    print(f"{value}: {rate:.3f}")',
  ].join('\n');

const MODEL_COLUMNS =
  'p.customerID, p.Contract, p.PaperlessBilling, p.PaymentMethod, s.tenure, s.InternetService, s.OnlineSecurity, s.TechSupport, c.Churn';
const modelSql = (part: string) =>
  `SELECT ${MODEL_COLUMNS} FROM user_payments${part} p JOIN user_services${part} s ON s.customerID = p.customerID ` +
  `JOIN user_churn${part} c ON c.customerID = p.customerID`;

const MODEL_CODE = `import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

features = ["Contract", "InternetService", "PaymentMethod", "PaperlessBilling", "OnlineSecurity", "TechSupport"]

def prepare(frame):
    X = pd.get_dummies(frame[features].replace("", "unknown"), dtype=float)
    X["log_tenure"] = np.log1p(frame.tenure.astype(float))
    return X

X_train = prepare(train)
X_test = prepare(test).reindex(columns=X_train.columns, fill_value=0.0)
model = LogisticRegression(max_iter=1000).fit(X_train, train.Churn.eq("Yes"))
auc = roc_auc_score(test.Churn.eq("Yes"), model.predict_proba(X_test)[:, 1])
print(f"ROC AUC: {auc:.3f}")`;

const TRAIN_TABLES = ['user_demographics', 'user_services', 'user_payments', 'user_churn'];

// ---- reading the knowledge in the prompt -----------------------------------------------------

const KNOWLEDGE_HEADING = 'what the organisation knows';

/** The knowledge lines of a prompt (`- definition: …`, `- definition (telco_db): …` from several), first lines only. */
export function knowledgeLines(system: string): string[] {
  const start = system.indexOf(KNOWLEDGE_HEADING);
  if (start < 0) return [];
  const lines: string[] = [];
  for (const line of system.slice(start).split('\n').slice(1)) {
    if (line.startsWith('- ')) lines.push(line);
    else if (!line.startsWith('  ')) break;
  }
  return lines;
}

interface Definition {
  line: string;
  name: string;
  synonyms: string[];
  sql: string;
}

/** The definitions in the prompt: `- definition[ (db)]: <name> (also: a, b): <text> SQL: <sql>`. */
function definitionsIn(system: string): Definition[] {
  return knowledgeLines(system).flatMap((line) => {
    const parsed = /^- definition(?: \([^)]*\))?: (.+?)(?: \(also: ([^)]*)\))?: .*?(?: SQL: (.*))?$/.exec(line);
    if (!parsed?.[1]) return [];
    const synonyms = parsed[2]?.split(', ') ?? [];
    return [{ line, name: parsed[1], synonyms, sql: parsed[3] ?? '' }];
  });
}

/** The definition whose name (or, with `synonym`, one of its synonyms only) the request uses. */
function definitionFor(prompt: ActPrompt, by: 'name' | 'synonym'): Definition | undefined {
  const request = prompt.request.toLowerCase();
  const found = definitionsIn(prompt.system).find((definition) =>
    (by === 'name' ? [definition.name] : definition.synonyms).some((term) => request.includes(term.toLowerCase())),
  );
  if (found) prompt.saw(found.line);
  return found;
}

/** The verified query in the prompt whose name the request uses. */
function verifiedQueryFor(prompt: ActPrompt): string | undefined {
  const request = prompt.request.toLowerCase();
  for (const line of knowledgeLines(prompt.system)) {
    const name = /^- query(?: \([^)]*\))?: "([^"]+)"/.exec(line)?.[1];
    if (name && request.includes(name.toLowerCase())) {
      prompt.saw(line);
      return name;
    }
  }
  return undefined;
}

/** The rows of a run_verified_query preview: its table between the title line and `(n rows)`. */
function verifiedRows(content: string): Array<Record<string, string>> {
  const lines = content.split('\n');
  const end = lines.findIndex((line) => /^\(\d+ rows?\)$/.test(line));
  return tableOf(lines.slice(1, end < 0 ? undefined : end).join('\n'));
}

const missingKnowledge = (what: string) =>
  say(`oracle: the act prompt carries no ${what}, so I cannot answer this the organisation's way.`);

/** Active customers, counted with the condition of the definition the prompt carries. */
const activeCustomers: Act = (results, prompt) => {
  const definition = definitionFor(prompt, 'name');
  if (!definition?.sql) return missingKnowledge('definition of active customer with its SQL');
  if (results.length === 0) {
    return sql(
      'SELECT COUNT(*) AS active_customers FROM user_payments p ' +
        'JOIN user_churn c ON c.customerID = p.customerID JOIN user_services s ON s.customerID = p.customerID ' +
        `WHERE ${definition.sql}`,
    );
  }
  // The definition's SQL is not quoted: its month threshold would be a figure no tool printed.
  return say(
    `Counted as the organisation defines an ${definition.name}: not churned, and a customer for at least a month.\n\n` +
      `Active customers: ${first(results, 0).active_customers}`,
  );
};

/** The verified query the prompt offers for the request, then its rows as the answer. */
const verifiedRates: Act = (results, prompt) => {
  const name = verifiedQueryFor(prompt);
  if (!name) return missingKnowledge('verified query for this request');
  if (results.length === 0) return callTool('run_verified_query', { name });
  const rows = verifiedRows(results[0]?.content ?? '');
  const [column = ''] = Object.keys(rows[0] ?? {});
  return say(
    [`From the verified query "${name}":`, '', ...rows.map((row) => `${row[column]}: ${row.churn_rate}`)].join('\n'),
  );
};

/** Churn rate by contract for a request that calls it by a synonym: the definition's SQL, grouped. */
const attritionByContract: Act = (results, prompt) => {
  const definition = definitionFor(prompt, 'synonym');
  const [rate, from] = definition?.sql.split(/ (?=FROM )/) ?? [];
  if (!definition || !rate || !from) return missingKnowledge('definition with a synonym the request uses');
  if (results.length === 0) {
    return sql(`SELECT p.Contract, ${rate} AS churn_rate ${from} WHERE p.Contract <> '' GROUP BY p.Contract`);
  }
  return say(
    [
      `Attrition rate is what the organisation calls ${definition.name}. By contract type (train tables):`,
      '',
      ...tableOf(results[0]?.content ?? '').map((row) => `${row.Contract}: ${row.churn_rate}`),
    ].join('\n'),
  );
};

// ---- the cases -------------------------------------------------------------------------------

function oracleCases(stale: boolean): Record<string, OracleCase> {
  return {
    'golden-row-counts': {
      triage: ANSWERABLE,
      act: sequence(
        () =>
          sql(
            TRAIN_TABLES.map((table) => `SELECT '${table}' AS table_name, COUNT(*) AS row_count FROM ${table}`).join(
              ' UNION ALL ',
            ),
          ),
        () =>
          sql(
            TRAIN_TABLES.map(
              (table) =>
                `SELECT '${table}' AS table_name, ` +
                `(SELECT COUNT(*) FROM ${table} t WHERE t.customerID NOT IN (SELECT customerID FROM user_payments)) AS extra, ` +
                `(SELECT COUNT(*) FROM user_payments p WHERE p.customerID NOT IN (SELECT customerID FROM ${table})) AS missing`,
            ).join(' UNION ALL '),
          ),
        (results) => {
          const counts = tableOf(results[0]?.content ?? '');
          const disagree = tableOf(results[1]?.content ?? '')
            .filter((row) => Number(row.extra) + Number(row.missing) > 0)
            .map((row) => row.table_name);
          return say(
            [
              'Rows per train table:',
              ...counts.map((row) => `${row.table_name}: ${row.row_count}`),
              `Disagree: ${disagree.length > 0 ? disagree.join(', ') : 'none'}`,
            ].join('\n'),
          );
        },
      ),
    },
    'golden-missing-demographics': {
      triage: ANSWERABLE,
      act: fromRow(
        'SELECT COUNT(*) AS missing, MIN(p.customerID) AS first_id FROM user_payments p ' +
          'LEFT JOIN user_demographics d ON d.customerID = p.customerID WHERE d.customerID IS NULL',
        (row) => `Missing demographics: ${row.missing}\nFirst: ${row.first_id}`,
      ),
    },
    'golden-orphan-keys': {
      triage: ANSWERABLE,
      act: fromRow(
        `SELECT ${['user_services', 'user_churn']
          .map(
            (table) =>
              `(SELECT COUNT(*) FROM ${table} t WHERE NOT EXISTS (SELECT 1 FROM user_payments p WHERE p.customerID = t.customerID)) AS ${table}`,
          )
          .join(', ')}`,
        (row) =>
          `Rows whose customerID is not in user_payments:\nuser_services: ${row.user_services}\nuser_churn: ${row.user_churn}`,
      ),
    },
    'golden-blank-total-charges': {
      triage: ANSWERABLE,
      act: fromRow(
        "SELECT SUM(p.TotalCharges = '') AS blank, SUM(p.TotalCharges IS NULL) AS null_count, " +
          "SUM(p.TotalCharges = '' AND s.tenure > 0) AS blank_with_tenure " +
          'FROM user_payments p LEFT JOIN user_services s ON s.customerID = p.customerID',
        (row) => `Blank: ${row.blank}\nNULL: ${row.null_count}\nBlank with tenure: ${row.blank_with_tenure}`,
      ),
    },
    'golden-blank-cells': {
      triage: ANSWERABLE,
      act: fromPandas(
        'payments',
        'SELECT * FROM user_payments',
        [
          'text_columns = [c for c in payments.columns if payments[c].dtype == object and c != "customerID"]',
          'for column in text_columns:',
          '    print(f"{column}: {int((payments[column] == \'\').sum())}")',
        ].join('\n'),
        "Blank ('') cells per text column of user_payments:",
      ),
    },
    'golden-churn-by-contract': {
      triage: ANSWERABLE,
      // Stale or not, the answer is the same after a review note: the tool results have not changed.
      act: fromPandas(
        'contracts',
        churnJoin('Contract'),
        ratesBy('contracts', 'Contract'),
        'Churn rate by contract (train tables):',
        stale ? pasteStaleTwoYear : undefined,
      ),
    },
    'golden-churn-by-internet': {
      triage: ANSWERABLE,
      act: sequence(
        () =>
          sql(
            "SELECT s.InternetService, ROUND(AVG(c.Churn = 'Yes'), 3) AS churn_rate, COUNT(*) AS customers " +
              'FROM user_services s JOIN user_churn c ON c.customerID = s.customerID GROUP BY s.InternetService',
          ),
        (results) =>
          say(
            tableOf(results[0]?.content ?? '')
              .map((row) => `${row.InternetService}: ${row.churn_rate}`)
              .join('\n'),
          ),
      ),
    },
    'golden-churn-by-payment-method': {
      triage: ANSWERABLE,
      act: fromPandas(
        'methods',
        churnJoin('PaymentMethod'),
        ratesBy('methods', 'PaymentMethod'),
        'Churn rate by payment method (train tables):',
      ),
    },
    'golden-churn-overall': {
      triage: ANSWERABLE,
      act: fromRow(
        "SELECT (SELECT ROUND(AVG(c.Churn = 'Yes'), 3) FROM user_churn c " +
          'WHERE c.customerID IN (SELECT customerID FROM user_payments)) AS train_rate, ' +
          "(SELECT ROUND(AVG(Churn = 'Yes'), 3) FROM user_churn_new) AS test_rate",
        (row) => `Train: ${row.train_rate}\nTest: ${row.test_rate}`,
      ),
    },
    'golden-churn-model': {
      triage: MULTI_STEP,
      plan: '1. Load the train customers (payments, services, churn).\n2. Load the test customers from the _new tables.\n3. Fit a logistic regression on train, score ROC AUC on test.',
      act: sequence(
        () => load('train', modelSql('')),
        () => load('test', modelSql('_new')),
        () => python(MODEL_CODE),
        printed('Logistic regression, trained on the train tables, scored once on the _new tables:'),
      ),
    },
    'golden-clarify-top-churners': {
      triage: {
        verdict: 'ambiguous',
        question: 'Group the customers by what, and on which tables?',
        choices: ['contract', 'internet service', 'payment method'],
        multi_step: true,
      },
      act: fromPandas(
        'methods',
        churnJoin('PaymentMethod'),
        [
          'kept = methods[methods.PaymentMethod != ""]',
          'rates = kept.Churn.eq("Yes").groupby(kept.PaymentMethod).mean()',
          'print(f"Top: {rates.idxmax()} ({rates.max():.3f})")',
        ].join('\n'),
        'By payment method (train tables):',
      ),
    },
    'golden-out-of-scope': {
      triage: {
        verdict: 'out_of_scope',
        reason: 'telco_db holds no call records or cell towers, only customers, their services, payments and churn',
      },
      act: () => say('oracle: this case should have been declined at triage'),
    },
    'golden-audit-revision': {
      triage: MULTI_STEP,
      plan: '1. Count user_payments customers without a user_demographics row.\n2. Draft the data-quality section.',
      act: auditWithRevision,
    },
    'golden-active-customers': { triage: ANSWERABLE, act: activeCustomers },
    'golden-verified-payment-method': { triage: ANSWERABLE, act: verifiedRates },
    'golden-attrition-by-contract': { triage: ANSWERABLE, act: attritionByContract },
  };
}

/** Drafts the section, redoes it once with the reviewer's feedback, answers when it is accepted. */
function auditWithRevision(results: ToolResult[]): ScriptReply {
  const missing = first(results, 0).missing;
  const narrative = `Of the customers in user_payments, some have no row in user_demographics.\n\nMissing demographics: ${missing}`;
  const last = results.at(-1)?.content ?? '';
  if (results.length === 0) {
    return sql(
      'SELECT COUNT(*) AS missing FROM user_payments p WHERE NOT EXISTS ' +
        '(SELECT 1 FROM user_demographics d WHERE d.customerID = p.customerID)',
    );
  }
  if (results.length === 1)
    return callTool('draft_section', { title: 'Data quality', stage: 'data quality', markdown: narrative });
  if (/asked for a revision/.test(last)) {
    return sql(
      'SELECT COUNT(*) AS fake_services FROM user_services s WHERE NOT EXISTS ' +
        '(SELECT 1 FROM user_payments p WHERE p.customerID = s.customerID)',
    );
  }
  const revision = results.findIndex((result) => /asked for a revision/.test(result.content));
  if (revision >= 0 && results.length === revision + 2) {
    const section = /revises="([^"]+)"/.exec(results[revision]?.content ?? '')?.[1] ?? 's1';
    const fake = first(results, revision + 1).fake_services;
    return callTool('draft_section', {
      title: 'Data quality',
      stage: 'data quality',
      markdown: `${narrative}\n\nRows of user_services whose customerID is in no other table:\n\nFake services: ${fake}`,
      revises: section,
    });
  }
  return say('The data-quality section is in the report.');
}

// ---- the script ------------------------------------------------------------------------------

/** Tool results of the conversation so far, with the names of the tools that gave them. */
function toolResults(context: ScriptContext): ToolResult[] {
  const names = new Map(
    context.messages.flatMap((message) => (message.tool_calls ?? []).map((call) => [call.id, call.function.name])),
  );
  return context.messages
    .filter((message) => message.role === 'tool')
    .map((message) => ({
      name: names.get(String(message.tool_call_id)) ?? '',
      content: String(message.content ?? ''),
    }))
    .filter((result) => result.name !== 'triage');
}

export interface GoldenOracleOptions {
  /** Makes STALE_CASE paste a stale rate (see the file header). Default false. */
  stale?: boolean;
  /** Filled with the knowledge lines each knowledge case acted on, by case id. */
  seen?: Map<string, string[]>;
}

/** The one step that serves every golden case: it reads the case and its progress from the request. */
export function goldenOracleStep(options: GoldenOracleOptions = {}): (context: ScriptContext) => ScriptStep {
  const cases = oracleCases(options.stale ?? false);
  // Longest first, so a message that starts another cannot take its place.
  const messages = loadGoldenCases()
    .map((evalCase) => ({ id: evalCase.id, message: evalCase.message }))
    .sort((left, right) => right.message.length - left.message.length);
  return (context) => {
    const request = requestOfTurnMessage(
      String(context.messages.find((message) => message.role === 'user')?.content ?? ''),
    );
    const found = messages.find((candidate) => request.startsWith(candidate.message));
    const oracle = found ? cases[found.id] : undefined;
    if (!found || !oracle) return say(`oracle: no golden case starts like this request: ${request.slice(0, 80)}`);
    if (isPlanRequest(context)) return say(oracle.plan ?? '1. Query the tables.\n2. Answer.');
    // Triage is the first call of a request that is not a clear one-step question; a clear one starts at once.
    if (isFirstRequest(context) && oracle.triage !== ANSWERABLE) return callTool('triage', oracle.triage);
    // What the prompts show: the system prompt, and the turn's own message with what was found for it.
    const system = context.messages
      .filter((message) => message.role === 'system' || message.role === 'user')
      .map((message) => String(message.content ?? ''))
      .join('\n');
    const saw = (line: string) => {
      const lines = options.seen?.get(found.id) ?? [];
      if (!lines.includes(line)) options.seen?.set(found.id, [...lines, line]);
    };
    return oracle.act(toolResults(context), { system, request, saw });
  };
}

/** The script: `copies` of {@link goldenOracleStep}, as the server takes one step per model request. */
export function goldenOracle(options: GoldenOracleOptions & { copies?: number } = {}): ScriptStep[] {
  const step = goldenOracleStep(options);
  return Array.from({ length: options.copies ?? 400 }, () => step);
}
