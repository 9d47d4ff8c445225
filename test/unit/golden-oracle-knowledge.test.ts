/**
 * The golden oracle on the knowledge cases, one act step at a time: with the act prompt tally would
 * build (the telco knowledge retrieved for the request), it writes SQL from the definition it finds
 * or runs the verified query by the name it finds; without the piece it says so and answers nothing,
 * so a knowledge case passes only when retrieval worked.
 */
import { describe, expect, it } from 'vitest';
import { formatKnowledge } from '../../src/agent/knowledge-prompt.js';
import type { ScriptContext, ScriptReply } from '../../src/demo/scripted-model-server.js';
import { loadGoldenCases } from '../../src/eval/golden/golden-suite.js';
import { FileKnowledge, TELCO_KNOWLEDGE_DIR } from '../../src/knowledge/file-knowledge.js';
import { goldenOracleStep, knowledgeLines } from '../support/golden-oracle.js';

const knowledge = await FileKnowledge.load([TELCO_KNOWLEDGE_DIR], { telco_db: ['telco_db'] });
const READABLE = [
  { database: 'telco_db', tables: ['user_demographics', 'user_services', 'user_payments', 'user_churn'] },
];
/** What the oracle acted on, by case id; emptied before each act. */
const seen = new Map<string, string[]>();
const step = goldenOracleStep({ seen });
const messageOf = (id: string) => loadGoldenCases().find((evalCase) => evalCase.id === id)?.message ?? '';

/** The first act request of a case, its system prompt carrying `known` (what retrieval gave). */
function actContext(request: string, known: string): ScriptContext {
  const tool = (name: string) => ({ type: 'function', function: { name } });
  const messages = [
    { role: 'system', content: `Databases, tables and shared files:\n- user_payments (telco_db)\n${known}` },
    { role: 'user', content: request },
  ];
  return {
    messages,
    tools: [tool('run_sql'), tool('run_python'), tool('run_verified_query')],
    model: 'scripted',
    temperature: undefined,
    stream: false,
    body: {},
    requestIndex: 0,
    lastMessage: messages.at(-1),
    lastToolResult: undefined,
  };
}

function firstAct(id: string, withKnowledge: boolean) {
  seen.clear();
  const request = messageOf(id);
  const known = withKnowledge ? formatKnowledge(knowledge.relevant(request, READABLE)) : '';
  const reply = step(actContext(request, known)) as ScriptReply;
  const [call] = reply.toolCalls ?? [];
  return { reply, call: call ? { name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown> } : {} };
}

describe('the golden oracle on the knowledge cases', () => {
  it('counts active customers with the condition of the definition in its prompt, and records it', () => {
    const { call } = firstAct('golden-active-customers', true);
    expect(call).toMatchObject({ name: 'run_sql' });
    expect(String(call.args?.sql)).toMatch(/JOIN user_services s .* WHERE c\.Churn = 'No' AND s\.tenure >= 1$/);
    expect(seen.get('golden-active-customers')).toEqual([expect.stringMatching(/^- definition: active customer /)]);
  });

  it('runs the verified query it finds by name', () => {
    expect(firstAct('golden-verified-payment-method', true).call).toEqual({
      name: 'run_verified_query',
      args: { name: 'churn rate by payment method' },
    });
  });

  it('finds churn rate by the synonym the request uses and groups its SQL by contract', () => {
    const { call } = firstAct('golden-attrition-by-contract', true);
    expect(call).toMatchObject({ name: 'run_sql' });
    expect(String(call.args?.sql)).toBe(
      "SELECT p.Contract, AVG(c.Churn = 'Yes') AS churn_rate FROM user_payments p JOIN user_churn c " +
        "ON c.customerID = p.customerID WHERE p.Contract <> '' GROUP BY p.Contract",
    );
  });

  it('says the piece is missing, and answers nothing, when the prompt does not carry it', () => {
    for (const id of ['golden-active-customers', 'golden-verified-payment-method', 'golden-attrition-by-contract']) {
      const { reply } = firstAct(id, false);
      expect(reply.toolCalls).toBeUndefined();
      expect(reply.text).toMatch(/^oracle: the act prompt carries no /);
      expect(reply.text).not.toMatch(/\d/);
      expect(seen.size).toBe(0);
    }
  });

  it('reads the knowledge lines of a prompt, not the lines after the block', () => {
    const block = formatKnowledge(knowledge.relevant(messageOf('golden-attrition-by-contract'), READABLE));
    const lines = knowledgeLines(`Schema\n${block}\n\nPlan to follow:\n- step one`);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.every((line) => /^- (definition|table|join|query|note): /.test(line))).toBe(true);
  });
});
