import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseToolArguments, toolSpec } from '../../src/agent/tool-schema.js';

const runSql = z.object({
  sql: z.string().describe('One read-only SELECT.'),
  database: z.string().optional(),
  maxRows: z.number().int().min(1).max(1000).default(100),
  filters: z.array(z.object({ column: z.string(), value: z.string() })).optional(),
});

describe('toolSpec', () => {
  it('turns a zod object into a JSON Schema object the model can read', () => {
    const spec = toolSpec('run_sql', 'Run SQL.', runSql);
    expect(spec.name).toBe('run_sql');
    expect(spec.description).toBe('Run SQL.');
    expect(spec.parameters).toMatchObject({
      type: 'object',
      properties: {
        sql: { type: 'string', description: 'One read-only SELECT.' },
        database: { type: 'string' },
        maxRows: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
        filters: { type: 'array', items: { type: 'object', required: ['column', 'value'] } },
      },
      // Fields with a default are optional for the model.
      required: ['sql'],
    });
    expect(spec.parameters).not.toHaveProperty('$schema');
  });

  it('leaves out the safe-integer bounds zod puts on every int', () => {
    const spec = toolSpec('pick', 'Pick a row.', z.object({ row: z.number().int() }));
    expect(spec.parameters).toMatchObject({ properties: { row: { type: 'integer' } } });
    expect(JSON.stringify(spec.parameters)).not.toContain('9007199254740991');
  });

  it('describes a tool without parameters as an empty object', () => {
    expect(toolSpec('list_tables', 'List tables.', z.object({})).parameters).toMatchObject({
      type: 'object',
      properties: {},
    });
  });
});

describe('parseToolArguments', () => {
  it('returns the parsed value with defaults applied', () => {
    expect(parseToolArguments(runSql, '{"sql":"SELECT 1"}', 'run_sql')).toEqual({
      ok: true,
      value: { sql: 'SELECT 1', maxRows: 100 },
    });
  });

  it('reads empty arguments as an empty object', () => {
    expect(parseToolArguments(z.object({}), '', 'list_tables')).toEqual({ ok: true, value: {} });
  });

  it('tells the model where the JSON breaks', () => {
    const result = parseToolArguments(runSql, '{"sql": "SELECT 1",}', 'run_sql');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain("tool 'run_sql'");
    expect(result.message).toContain('not valid JSON');
    expect(result.message).toContain('position 19 (line 1, column 20)');
    expect(result.message).toContain('Call the tool again');
  });

  it('points at the end of truncated JSON', () => {
    const raw = '{"sql":\n "SELECT';
    const result = parseToolArguments(runSql, raw, 'run_sql');
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.message).toContain(`position ${raw.length} (line 2, column 9)`);
  });

  it('lists every schema problem with its path', () => {
    const result = parseToolArguments(
      runSql,
      JSON.stringify({ maxRows: 5000, filters: [{ column: 'churn', value: 1 }] }),
      'run_sql',
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const lines = result.message.split('\n');
    expect(lines[0]).toBe("The arguments of tool 'run_sql' do not match its parameters:");
    expect(lines).toContain('- sql: Invalid input: expected string, received undefined');
    expect(lines.some((line) => line.startsWith('- maxRows: ') && line.includes('1000'))).toBe(true);
    expect(lines.some((line) => line.startsWith('- filters[0].value: '))).toBe(true);
  });

  it('names the whole arguments when they are not an object', () => {
    const result = parseToolArguments(runSql, '"SELECT 1"', 'run_sql');
    expect(result).toMatchObject({ ok: false });
    if (!result.ok) expect(result.message).toContain('- (arguments): Invalid input: expected object');
  });
});
