/** The flags of `tally audit` and `tally forget`, and how a record reads as a line. */
import { describe, expect, it } from 'vitest';
import { toolResultsOf } from '../../src/audit/audited-llm.js';
import { describeRecord, parseAuditFlags } from '../../src/cli/audit-command.js';
import { parseForgetFlags } from '../../src/cli/forget-command.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');

describe('tally audit flags', () => {
  it('reads filters given as two words or with =, and ages or dates for --since', () => {
    expect(parseAuditFlags(['--user', 'U1', '--db=telco', '--thread', 'slack:T:C:1', '--json'], NOW)).toEqual({
      verify: false,
      json: true,
      filter: { user: 'U1', database: 'telco', thread: 'slack:T:C:1' },
    });
    expect(parseAuditFlags(['--since', '7d'], NOW)).toMatchObject({ filter: { sinceMs: NOW - 7 * 86_400_000 } });
    expect(parseAuditFlags(['--since=90m'], NOW)).toMatchObject({ filter: { sinceMs: NOW - 90 * 60_000 } });
    expect(parseAuditFlags(['--since', '2026-11-01'], NOW)).toMatchObject({
      filter: { sinceMs: Date.parse('2026-11-01') },
    });
    expect(parseAuditFlags(['verify'], NOW)).toEqual({ verify: true });
  });

  it('says what is wrong with bad flags', () => {
    expect(parseAuditFlags(['--since', 'last week'], NOW)).toEqual({
      problem: "--since takes a date (2026-11-01, ISO 8601) or an age (30m, 12h, 7d), not 'last week'",
    });
    expect(parseAuditFlags(['--user'], NOW)).toEqual({ problem: '--user needs a value' });
    expect(parseAuditFlags(['--table', 'x'], NOW)).toEqual({ problem: 'unknown flag --table' });
    expect(parseAuditFlags(['verify', '--json'], NOW)).toEqual({ problem: 'audit verify takes no flags (got --json)' });
  });
});

describe('tally forget flags', () => {
  it('takes exactly one of --user and --thread', () => {
    expect(parseForgetFlags(['--user', 'U1'])).toEqual({ scope: 'user', target: 'U1' });
    expect(parseForgetFlags(['--thread=slack:T:C:1.2'])).toEqual({ scope: 'thread', target: 'slack:T:C:1.2' });
    for (const words of [[], ['--user'], ['--user', 'U1', '--thread', 'x'], ['--everyone'], ['--user', '--thread']]) {
      expect(parseForgetFlags(words)).toEqual({ problem: 'needs exactly one of --user ID or --thread THREAD_KEY' });
    }
  });
});

describe('an audit record as a line', () => {
  const base = { id: '17', at: '2026-11-26T12:00:00.000Z', actor: { user: 'U1', platform: 'slack', thread: 't' } };

  it('shows a refused query with its reason, tables, masks and SQL on one line', () => {
    const line = describeRecord({
      ...base,
      kind: 'query',
      decision: 'refused',
      reason: 'access policy',
      database: 'crm',
      sql: 'SELECT *\n  FROM customers',
      tables: ['customers'],
      masked: ['customers.email (hash)'],
    });
    expect(line).toBe(
      '2026-11-26T12:00:00.000Z  #17  slack:U1  query  REFUSED (access policy)  crm 0 rows 0 B tables=customers masked=customers.email (hash): SELECT * FROM customers',
    );
  });

  it('shows a model request by endpoint, tokens and tool results by name and size', () => {
    const line = describeRecord({
      ...base,
      kind: 'model',
      decision: 'allowed',
      model: {
        endpoint: 'https://api.example.com/v1',
        model: 'gpt-x',
        promptTokens: 900,
        completionTokens: 40,
        messages: 5,
        toolResults: [{ tool: 'run_sql', bytes: 120 }],
      },
    });
    expect(line).toContain('gpt-x at https://api.example.com/v1 900+40 tokens, 5 messages, tool results run_sql:120B');
  });
});

describe('the tool results in a model request', () => {
  it('names each by the tool whose call it answers, with its size in bytes', () => {
    expect(
      toolResultsOf([
        { role: 'user', content: 'how many?' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: 'a', name: 'run_sql', arguments: '{}' },
            { id: 'b', name: 'run_python', arguments: '{}' },
          ],
        },
        { role: 'tool', toolCallId: 'a', content: 'n\n7043' },
        { role: 'tool', toolCallId: 'b', content: 'é' },
        { role: 'tool', toolCallId: 'zz', content: '' },
      ]),
    ).toEqual([
      { tool: 'run_sql', bytes: 6 },
      { tool: 'run_python', bytes: 2 },
      { tool: 'unknown', bytes: 0 },
    ]);
  });
});
