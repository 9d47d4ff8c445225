/**
 * What an operator scrapes from a running tally (TALLY_HTTP_PORT): /healthz, /readyz over the real
 * engine, store, MariaDB and model endpoint, and /metrics, read with an independent text-format
 * parser, moving when real turns run (a code block in a kernel, an agent turn with the model).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, say } from '../../src/demo/scripted-model-server.js';
import { type ParsedFamily, parseExposition, sampleValue } from '../support/prometheus-text.js';
import { startTallyFixture, type TallyFixture } from '../support/tally-fixture.js';

let fixture: TallyFixture;

beforeAll(async () => {
  fixture = await startTallyFixture([callTool('triage', { verdict: 'answerable' }), say('Seven tables.')], {
    TALLY_HTTP_PORT: '0',
  });
}, 120_000);

afterAll(async () => {
  await fixture?.close();
}, 60_000);

function endpoint(path: string): string {
  const ops = fixture.tally.ops;
  if (!ops) throw new Error('the ops server did not start');
  return `${ops.url}${path}`;
}

async function scrape(): Promise<ParsedFamily[]> {
  const response = await fetch(endpoint('/metrics'));
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await response.text());
}

describe('operating tally', () => {
  it('is healthy, and ready when the engine, the store, the database and the model answer', async () => {
    expect((await fetch(endpoint('/healthz'))).status).toBe(200);
    const response = await fetch(endpoint('/readyz'));
    const body = (await response.json()) as { ready: boolean; checks: Record<string, { ok: boolean }> };
    expect(response.status).toBe(200);
    expect(body.ready).toBe(true);
    expect(Object.keys(body.checks).sort()).toEqual(
      ['engine', 'model', 'store', `database:${fixture.tally.databases[0]?.name}`].sort(),
    );
  });

  it('counts turns, kernel starts, cells, model calls and tokens as they happen', async () => {
    const before = await scrape();
    await fixture.say('```python\nimport pandas as pd\npd.DataFrame({"x": [1, 2, 3]}).x.sum()\n```');
    await fixture.say('how many tables are there?');
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sampleValue(after, name, labels) - sampleValue(before, name, labels);
    expect(moved('tally_turns_total', { end: 'done' })).toBe(2);
    expect(moved('tally_kernel_starts_total', { result: 'ok' })).toBe(1);
    expect(moved('tally_cell_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(moved('tally_model_request_duration_seconds_count', { result: 'ok' })).toBe(2);
    expect(moved('tally_model_tokens_total', { kind: 'prompt' })).toBeGreaterThan(0);
    expect(sampleValue(after, 'tally_turns_in_flight')).toBe(0);
    expect(sampleValue(after, 'tally_kernels', { state: 'live' })).toBe(1);
    expect(sampleValue(after, 'tally_kernel_start_queue_length')).toBe(0);
  }, 60_000);
});
