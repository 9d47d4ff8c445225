/**
 * The scripted model of the number-grounding end-to-end tests (test/e2e/checked-numbers*.test.ts):
 * it queries churn by payment method in telco_db and writes a section quoting two rates from the
 * result. The rates are read from the tool output as a model would; the wrong figure is the
 * electronic-check rate with the digits either side of the point swapped (41.2% -> 42.1%), a number
 * no result holds. What the model was told back (review notes, decisions) is kept in `Heard`.
 */
import { callTool, type ScriptContext, type ScriptStep, say } from '../../src/demo/scripted-model-server.js';

export const CHURN_SQL = `SELECT p.PaymentMethod, ROUND(AVG(c.Churn = 'Yes'), 4) AS churn_rate, COUNT(*) AS customers
FROM user_payments p JOIN user_churn c ON c.customerID = p.customerID
GROUP BY p.PaymentMethod ORDER BY churn_rate DESC`;

export const CHURN_REQUEST = 'Which payment methods churn most? Write it up as a report section.';
export const SECTION_TITLE = 'Churn by payment method';
/** How a review note, as a tool result or a user message, starts. */
export const NOTE_START = 'Review note from tally, not from the user';

/** The figures as the section writes them: `41.2%`. */
export interface ChurnFigures {
  electronic: string;
  mailed: string;
  /** The electronic-check rate with two digits swapped: in no result. */
  wrong: string;
}

/** What the scripted model read and heard during a run. */
export interface Heard {
  figures?: ChurnFigures;
  /** The tool results and user messages that started with NOTE_START, in order. */
  notes: string[];
}

export const heard = (): Heard => ({ notes: [] });

const lastToolResult = (context: ScriptContext) => context.lastToolResult?.content ?? '';

/** Reads the two rates off the run_sql result (`Electronic check  0.4121  1844`). */
export function churnFigures(result: string): ChurnFigures {
  const rate = (method: string) => {
    const found = new RegExp(`^${method}\\s+(0\\.\\d+)\\s`, 'm').exec(result)?.[1];
    if (!found) throw new Error(`no churn rate of ${method} in the result:\n${result}`);
    return (Number(found) * 100).toFixed(1);
  };
  const electronic = rate('Electronic check');
  const wrong = electronic.replace(/(\d)\.(\d)/, '$2.$1');
  if (wrong === electronic) throw new Error(`swapping the digits of ${electronic} leaves it unchanged`);
  return { electronic: `${electronic}%`, mailed: `${rate('Mailed check')}%`, wrong: `${wrong}%` };
}

/** The section's narrative, quoting `electronic` as the electronic-check rate. */
export const churnNarrative = (figures: ChurnFigures, electronic: string) =>
  `Customers paying by electronic check churn most: ${electronic} of them left, against ${figures.mailed} of those paying by mailed check.`;

/** Keeps a review note the model got back (as the last tool result or as the user's last message). */
function listen(context: ScriptContext, into: Heard): void {
  const last = context.lastMessage;
  const text = last?.role === 'tool' ? lastToolResult(context) : typeof last?.content === 'string' ? last.content : '';
  if (text.startsWith(NOTE_START)) into.notes.push(text);
}

/** Drafts the section quoting the electronic-check rate `right` or `wrong`. */
function draft(into: Heard, which: 'right' | 'wrong'): (context: ScriptContext) => ScriptStep {
  return (context) => {
    listen(context, into);
    const figures = into.figures;
    if (!figures) throw new Error('the section is drafted before the rates were read');
    return callTool('draft_section', {
      title: SECTION_TITLE,
      stage: 'drivers',
      markdown: churnNarrative(figures, which === 'right' ? figures.electronic : figures.wrong),
    });
  };
}

/** Triage and the query; the rates are read from its result by the step after it. */
function query(into: Heard): ScriptStep[] {
  return [
    callTool('triage', { verdict: 'answerable' }),
    callTool('run_sql', { sql: CHURN_SQL }),
    (context) => {
      into.figures = churnFigures(lastToolResult(context));
      return draft(into, 'wrong')(context);
    },
  ];
}

/** A section with the wrong figure; after the note it is drafted again with the right one. */
export function correctingSectionScript(into: Heard): ScriptStep[] {
  return [...query(into), draft(into, 'right')];
}

/** A section with the wrong figure, drafted again unchanged after the note; after acceptance a closing line. */
export function insistingSectionScript(into: Heard): ScriptStep[] {
  return [
    ...query(into),
    draft(into, 'wrong'),
    (context) => {
      listen(context, into);
      return say('The section is in the report.');
    },
  ];
}

/** A section with the wrong figure, posted as it is (grounding off); after acceptance an answer with it. */
export function uncheckedSectionScript(into: Heard): ScriptStep[] {
  return [
    ...query(into),
    (context) => {
      listen(context, into);
      return say(`Electronic check churns most, at ${into.figures?.wrong}.`);
    },
  ];
}

/** A final answer (no section) with the wrong figure; after the note the right one. */
export function correctingAnswerScript(into: Heard): ScriptStep[] {
  const answer =
    (which: 'right' | 'wrong'): ScriptStep =>
    (context) => {
      listen(context, into);
      if (which === 'wrong') into.figures = churnFigures(lastToolResult(context));
      const figures = into.figures;
      if (!figures) throw new Error('the answer is given before the rates were read');
      return say(churnNarrative(figures, which === 'right' ? figures.electronic : figures.wrong));
    };
  return [
    callTool('triage', { verdict: 'answerable' }),
    callTool('run_sql', { sql: CHURN_SQL }),
    answer('wrong'),
    answer('right'),
  ];
}
