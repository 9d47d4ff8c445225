/**
 * Traces end to end: the whole of tally (real sandbox, MariaDB with telco_db, the openai SDK against the
 * scripted model) with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a stand-in collector that decodes the real
 * exporter's OTLP/HTTP protobuf. A thread asks, the model queries, runs a cell and drafts a section, the
 * section is accepted and the model answers; then, with approval on, a cell is held and run when approved. The
 * spans must form the tree turn -> model requests and tool calls -> SQL statement and cell, the decision be a span
 * of the second turn and the approved cell's call a span of the turn that ran it; and nothing the person
 * wrote, no row, no cell code, output or result, no narrative or answer may appear anywhere in what was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import { childrenOf, type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { postsOf, startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

/** Each marker is somewhere a span must not reach; none is written out whole in the SQL or anywhere it may go. */
const MESSAGE_MARK = 'ZQXMSG4471';
const ROW_MARK = ['ZQX', 'ROW9912'];
const CODE_MARK = 'ZQXCODE5523';
const OUTPUT_MARK = ['ZQX', 'OUT8830'];
const RESULT_MARK = ['ZQX', 'RES6618'];
const NARRATIVE_MARK = 'ZQXNARR3307';
const TITLE_MARK = 'ZQXTITLE2290';
const ANSWER_MARK = 'ZQXANSWER1184';

const SQL = `SELECT customerID, CONCAT('${ROW_MARK[0]}', '${ROW_MARK[1]}') AS marker FROM user_payments ORDER BY customerID LIMIT 3`;
const CODE = `# ${CODE_MARK}
print('${OUTPUT_MARK[0]}' + '${OUTPUT_MARK[1]}')
'${RESULT_MARK[0]}' + '${RESULT_MARK[1]}'`;

/** Refused by the guard, and a cell that raises: their spans fail with the error's kind, not its message. */
const REFUSED_SQL = 'DELETE FROM user_payments';
const FAILING_CODE = `raise ValueError('${OUTPUT_MARK[0]}' + 'ERR4410')`;
/** Held for approval, run when approved. */
const HELD_CODE = `held = '${OUTPUT_MARK[0]}' + 'HELD'\nlen(held)`;

let receiver: OtlpReceiver;
let fixture: TallyFixture;
let sqlResult = '';
let cellResult = '';
let spans: ReceivedSpan[] = [];
let database = '';

const named = (name: string) => spans.filter((span) => span.name === name);
const only = (list: ReceivedSpan[], what: string): ReceivedSpan => {
  expect(list, what).toHaveLength(1);
  return list[0] as ReceivedSpan;
};
const childNames = (span: ReceivedSpan) => childrenOf(spans, span).map((child) => child.name);

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  fixture = await startTallyFixture(
    [
      // Clear one-step requests: no triage.
      callTool('run_sql', { sql: SQL }),
      (context: ScriptContext) => {
        sqlResult = context.lastToolResult?.content ?? '';
        return callTool('run_sql', { sql: REFUSED_SQL });
      },
      callTool('run_python', { code: FAILING_CODE }),
      callTool('run_python', { code: CODE }),
      (context: ScriptContext) => {
        cellResult = context.lastToolResult?.content ?? '';
        return callTool('draft_section', {
          title: `Customers ${TITLE_MARK}`,
          markdown: `Customers ${NARRATIVE_MARK}.`,
        });
      },
      say(`Done: ${ANSWER_MARK}.`),
      callTool('run_python', { code: HELD_CODE }),
      say('The held cell ran.'),
    ],
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'tally-e2e', TALLY_CONSOLE_USER: 'analyst-ann' },
  );
  database = fixture.tally.databases[0]?.name ?? '';
  await fixture.say(`Which customers do we have? ${MESSAGE_MARK}`);
  await fixture.send({ action: { id: 'review.accept', value: 's1@1' } });
  await fixture.say('set approve=always');
  await fixture.say(`One more check ${MESSAGE_MARK}`);
  const held = postsOf(fixture.posts, 'approval').at(-1);
  await fixture.send({ action: { id: 'approval.run', value: held?.id ?? '' } });
  // Stopping is where the spans still buffered are sent (tally's close shuts the tracer provider down).
  await fixture.stop();
  spans = receiver.spans;
}, 180_000);

afterAll(async () => {
  await fixture?.close();
  await receiver?.close();
});

describe('traces of a thread', () => {
  it('ran the thread as a person sees it (the markers reached the model and the thread)', () => {
    expect(sqlResult).toContain(ROW_MARK.join(''));
    expect(cellResult).toContain(OUTPUT_MARK.join(''));
    expect(cellResult).toContain(RESULT_MARK.join(''));
    expect(postsOf(fixture.posts, 'review')[0]?.title).toContain(TITLE_MARK);
    expect(fixture.transcript()).toContain(ANSWER_MARK);
  });

  it('makes one root span per message turn, in the thread, from the configured service', () => {
    const turns = named('tally.turn');
    expect(turns).toHaveLength(5);
    for (const turn of turns) {
      expect(turn.parentSpanId).toBe('');
      expect(turn.attributes['gen_ai.conversation.id']).toBe(fixture.thread);
      // A console thread works for the console user (TALLY_CONSOLE_USER), as the audit trail records it.
      expect(turn.attributes['tally.user.id']).toBe('analyst-ann');
      expect(turn.resource['service.name']).toBe('tally-e2e');
    }
    // `set approve=always` is a turn that makes no request.
    expect(turns.map((turn) => turn.attributes['tally.turn.handled'])).toEqual([
      'request',
      'resume',
      'done',
      'request',
      'resume',
    ]);
    expect(turns[1]?.attributes['tally.message.action']).toBe('review.accept');
    expect(turns[4]?.attributes['tally.message.action']).toBe('approval.run');
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(5);
  });

  it('nests model requests with their tokens, and tool calls, under the first turn', () => {
    const [first] = named('tally.turn');
    const children = childrenOf(spans, first as ReceivedSpan);
    const chats = children.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats.length).toBeGreaterThanOrEqual(4); // one request per step of the loop
    for (const chat of chats) {
      expect(chat.name).toBe('chat scripted');
      expect(chat.kind).toBe(3);
      expect(chat.attributes).toMatchObject({
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'scripted',
        'gen_ai.response.model': 'scripted',
      });
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      // The stand-in reports what its prompt cache served, as OpenAI does.
      expect(typeof chat.attributes['gen_ai.usage.cache_read.input_tokens']).toBe('number');
    }
    // Each request after the first repeats the prefix sent before: the provider served part of it from its cache.
    expect(chats.slice(1).every((chat) => Number(chat.attributes['gen_ai.usage.cache_read.input_tokens']) > 0)).toBe(
      true,
    );
    expect(
      children.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool').map((span) => span.name),
    ).toEqual([
      'execute_tool run_sql',
      'execute_tool run_sql',
      'execute_tool run_python',
      'execute_tool run_python',
      'execute_tool draft_section',
    ]);
    const draft = only(named('execute_tool draft_section'), 'draft_section');
    expect(draft.attributes).toMatchObject({ 'gen_ai.tool.name': 'draft_section', 'tally.tool.paused': true });
  });

  it('marks a refused statement and a failing cell failed with their kind, and the tool calls with them', () => {
    const [, refusedCall] = named('execute_tool run_sql');
    const [failingCall] = named('execute_tool run_python');
    const refused = only(childrenOf(spans, refusedCall as ReceivedSpan), 'refused statement');
    expect(refused.attributes).toMatchObject({ 'db.query.text': REFUSED_SQL, 'error.type': 'SQL_REJECTED' });
    expect(refused.status.code).toBe(2);
    const cell = only(
      childrenOf(spans, failingCall as ReceivedSpan).filter((span) => span.name === 'tally.cell'),
      'failing cell',
    );
    expect(cell.attributes['error.type']).toBe('ValueError');
    expect(cell.status.code).toBe(2);
    for (const call of [refusedCall, failingCall]) expect(call?.attributes['error.type']).toBe('tool_failed');
    expect(receiver.payload()).not.toContain(`${OUTPUT_MARK[0]}ERR4410`);
  });

  it('puts the SQL statement as written under its tool call, with the engine, database and row count', () => {
    const [tool] = named('execute_tool run_sql');
    if (!tool) throw new Error('no run_sql span');
    const statement = only(
      childrenOf(spans, tool).filter((span) => span.attributes['db.query.text'] !== undefined),
      'statement',
    );
    expect(statement.name).toBe(`SELECT ${database}`);
    expect(statement.kind).toBe(3);
    expect(statement.attributes).toMatchObject({
      'db.system.name': 'mysql',
      'db.namespace': database,
      'db.query.text': SQL,
      'db.operation.name': 'SELECT',
      'db.response.returned_rows': 3,
      'tally.sql.kind': 'query',
    });
  });

  it('puts the cell under its tool call, with sizes and no code, and the decision in the second turn', () => {
    const tool = named('execute_tool run_python')[1];
    if (!tool) throw new Error('no second run_python span');
    expect(childNames(tool)).toContain('tally.cell');
    const cell = only(
      childrenOf(spans, tool).filter((span) => span.name === 'tally.cell'),
      'cell',
    );
    expect(cell.attributes['tally.cell.code_bytes']).toBe(Buffer.byteLength(CODE));
    expect(cell.attributes['tally.cell.stdout_bytes']).toBeGreaterThan(0);
    expect(cell.attributes['tally.cell.result_type']).toBe('str');
    expect(cell.status.code).not.toBe(2);

    const [, second] = named('tally.turn');
    const decision = only(named('tally.report.decide'), 'decision');
    expect(decision.parentSpanId).toBe(second?.spanId);
    expect(decision.attributes).toEqual({
      'tally.report.action': 'accept',
      'tally.report.section': 's1',
      'tally.report.version': 1,
      'tally.report.decided': true,
    });
    expect(childNames(second as ReceivedSpan)).toContain('chat scripted');
  });

  it('puts a held cell, run when approved, under its tool call in the turn that ran it', () => {
    const last = named('tally.turn')[4] as ReceivedSpan;
    const tool = only(
      childrenOf(spans, last).filter((span) => span.name === 'execute_tool run_python'),
      'approved run_python',
    );
    const cell = only(
      childrenOf(spans, tool).filter((span) => span.name === 'tally.cell'),
      'approved cell',
    );
    expect(cell.attributes['tally.cell.code_bytes']).toBe(Buffer.byteLength(HELD_CODE));
    expect(tool.attributes['tally.tool.result_bytes']).toBeGreaterThan(0);
    // Held in the turn before: its call ran no cell there.
    const held = childrenOf(spans, named('tally.turn')[3] as ReceivedSpan).filter(
      (span) => span.name === 'execute_tool run_python',
    );
    expect(held.flatMap((span) => childNames(span))).not.toContain('tally.cell');
  });

  it('sends no message text, row, cell code, output or result, narrative or answer', () => {
    const payload = receiver.payload();
    expect(payload).toContain('user_payments'); // the statement as written is there: the search can find text
    const customerIds = sqlResult.match(/\d{4}-[A-Z]{5}/g) ?? [];
    expect(customerIds).toHaveLength(3);
    for (const leak of [
      MESSAGE_MARK,
      ROW_MARK.join(''),
      CODE_MARK,
      OUTPUT_MARK.join(''),
      RESULT_MARK.join(''),
      NARRATIVE_MARK,
      TITLE_MARK,
      ANSWER_MARK,
      ...customerIds,
    ]) {
      expect(payload, leak).not.toContain(leak);
    }
  });
});
