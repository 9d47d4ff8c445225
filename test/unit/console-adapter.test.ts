import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsoleAdapter } from '../../adapters/console/console-adapter.js';
import type { Inbound } from '../../src/ports/chat.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-console-'));
});
afterEach(async () => rm(folder, { recursive: true, force: true }));

function console_(): { adapter: ConsoleAdapter; input: PassThrough; output: () => string; received: Inbound[] } {
  const input = new PassThrough();
  const sink = new PassThrough();
  let written = '';
  sink.on('data', (chunk: Buffer) => {
    written += chunk.toString();
  });
  const adapter = new ConsoleAdapter({ input, output: sink, chartDir: folder, prompt: false });
  const received: Inbound[] = [];
  adapter.onInbound(async (inbound) => {
    received.push(inbound);
  });
  return { adapter, input, output: () => written, received };
}

describe('ConsoleAdapter', () => {
  it('turns lines into messages of one thread, joining a fenced block that spans lines', async () => {
    const { adapter, input, received } = console_();
    await adapter.start();
    input.end('How many customers?\n\n```python\nx = 1\nx + 1\n```\nthanks\n');
    await adapter.finished;
    expect(received.map((inbound) => inbound.text)).toEqual([
      'How many customers?',
      '```python\nx = 1\nx + 1\n```',
      'thanks',
    ]);
    expect(new Set(received.map((inbound) => inbound.threadKey))).toEqual(new Set(['console:local:1']));
  });

  it('renders posts for a terminal and saves charts as files, printing their paths', async () => {
    const { adapter, output } = console_();
    await adapter.post('console:local:1', { kind: 'question', text: 'Which measure?', choices: ['rate', 'count'] });
    await adapter.post('console:local:1', {
      kind: 'table',
      columns: ['Contract', 'n'],
      rows: [
        ['Month-to-month', 3123],
        [null, 1],
      ],
      truncated: true,
    });
    await adapter.post('console:local:1', {
      kind: 'code',
      language: 'python',
      code: '1/0',
      error: 'ZeroDivisionError',
    });
    await adapter.post('console:local:1', {
      kind: 'chart',
      title: 'Churn',
      png: Buffer.from('\x89PNG fake'),
      alt: 'chart',
    });
    await adapter.setStatus('console:local:1', 'run_sql: SELECT 1');
    await adapter.post('console:local:1', { kind: 'rerun', messageId: 'm1', text: 'How many customers?' });
    const text = output();
    expect(text).toContain('? Which measure?\n  1. rate\n  2. count');
    expect(text).toMatch(/Contract {8}n\n-{14} {2}-{4}\nMonth-to-month {2}3123\nNULL {12}1\n\(first 2 rows\)/);
    expect(text).toContain('```python\n1/0\n```\nerror:\nZeroDivisionError');
    expect(text).toContain('… run_sql: SELECT 1');
    expect(text).toContain('You edited a message that already ran. Run the edited version? How many customers?\n');
    const chart = /\[chart\] Churn: (\S+)/.exec(text)?.[1] ?? '';
    expect((await readFile(chart)).toString()).toContain('PNG');
  });
});
