import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConsoleAdapter, type ConsoleAdapterOptions } from '../../adapters/console/console-adapter.js';
import type { Inbound } from '../../src/ports/chat.js';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'tally-console-'));
});
afterEach(async () => rm(folder, { recursive: true, force: true }));

function console_(options: Partial<ConsoleAdapterOptions> = {}): {
  adapter: ConsoleAdapter;
  input: PassThrough;
  output: () => string;
  received: Inbound[];
} {
  const input = new PassThrough();
  const sink = new PassThrough();
  let written = '';
  sink.on('data', (chunk: Buffer) => {
    written += chunk.toString();
  });
  const adapter = new ConsoleAdapter({ input, output: sink, chartDir: folder, prompt: false, ...options });
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

  it('ends the session at exit or quit, as at the end of the input, after what was typed before', async () => {
    for (const word of ['exit', ' Quit ', '/quit']) {
      const { adapter, input, received } = console_();
      await adapter.start();
      // The input stays open: the word alone ends the session, and nothing after it is read.
      input.write(`How many customers?\n${word}\nnot read\n`);
      await adapter.finished;
      expect(received.map((inbound) => inbound.text)).toEqual(['How many customers?']);
      input.end('nor this\n');
      await new Promise((resolve) => setImmediate(resolve));
      expect(received).toHaveLength(1);
    }
  });

  it('lists the chat commands at help, in turn with the messages, without sending it to the thread', async () => {
    const { adapter, input, output, received } = console_();
    adapter.onInbound(async (inbound) => {
      received.push(inbound);
      await adapter.post(inbound.threadKey, { kind: 'text', markdown: `answer to ${inbound.text}` });
    });
    await adapter.start();
    input.end('How many customers?\nhelp\nthanks\n');
    await adapter.finished;
    expect(received.map((inbound) => inbound.text)).toEqual(['How many customers?', 'thanks']);
    const text = output();
    const lines = text.split('\n');
    for (const command of [
      'set key=value',
      'accept | revise: … | discard',
      'report',
      'save as playbook[: title]',
      'run | skip[: why] | edit',
      'share PATH',
      'reset',
      'stop',
      'new',
      'help',
      'exit, quit or Ctrl-D',
    ]) {
      expect(lines.filter((line) => line.startsWith(`  ${command}`)).length, command).toBeGreaterThan(0);
    }
    expect(text.indexOf('answer to How many customers?')).toBeLessThan(text.indexOf('exit, quit or Ctrl-D'));
    expect(text.indexOf('exit, quit or Ctrl-D')).toBeLessThan(text.indexOf('answer to thanks'));
  });

  it('starts a new thread at new: the lines after it go there, the ones before stay where they were', async () => {
    let started = 0;
    const { adapter, input, output, received } = console_({
      threadKey: 'console:local:chat',
      newThread: async () => `console:local:chat-${++started}`,
    });
    await adapter.start();
    input.end('first\nnew\nsecond\n```python\nnew\n```\nNEW\nthird\n');
    await adapter.finished;
    expect(received.map((inbound) => [inbound.threadKey, inbound.text])).toEqual([
      ['console:local:chat', 'first'],
      ['console:local:chat-1', 'second'],
      ['console:local:chat-1', '```python\nnew\n```'],
      ['console:local:chat-2', 'third'],
    ]);
    expect(adapter.threadKey).toBe('console:local:chat-2');
    expect(output()).toContain('Started a new thread, console:local:chat-1.\n');
    expect(output()).toContain('Started a new thread, console:local:chat-2.\n');
  });

  it('shares a file on this machine at share PATH, as a file shared with no text, read when it is taken', async () => {
    const { adapter, input, output, received } = console_();
    await writeFile(join(folder, 'regional revenue.csv'), 'region,revenue\nnorth,10\n');
    await writeFile(join(folder, 'q3.xlsx'), 'not really a workbook');
    await adapter.start();
    input.end(
      [
        `share "${join(folder, 'regional revenue.csv')}"`,
        'what is the revenue per region?',
        `/share ${join(folder, 'q3.xlsx')}`,
        `share ${join(folder, 'missing.csv')}`,
        `share ${folder}/`,
        'share of churners by contract?',
        'share q4.csv',
        '',
      ].join('\n'),
    );
    await adapter.finished;
    expect(received.map((inbound) => [inbound.text, inbound.files?.map((file) => file.name)])).toEqual([
      ['', ['regional revenue.csv']],
      ['what is the revenue per region?', undefined],
      ['', ['q3.xlsx']],
      ['share of churners by contract?', undefined],
    ]);
    const [csv] = received[0]?.files ?? [];
    expect(csv).toMatchObject({ mime: 'text/csv', sizeBytes: 24 });
    expect((await csv?.download())?.toString()).toBe('region,revenue\nnorth,10\n');
    expect(received[2]?.files?.[0]?.mime).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(output()).toContain(`Nothing shared: there is no file at ${join(folder, 'missing.csv')}.`);
    expect(output()).toContain(`Nothing shared: ${folder} is not a file.`);
    expect(output()).toMatch(/Nothing shared: there is no file at \S+\/q4\.csv\./);
  });

  it('sends new as a message where the console has no other thread to start', async () => {
    const { adapter, input, received } = console_();
    await adapter.start();
    input.end('new\n');
    await adapter.finished;
    expect(received.map((inbound) => [inbound.threadKey, inbound.text])).toEqual([['console:local:1', 'new']]);
  });

  it('drops what was read but not yet handled when stopped (Ctrl-C), letting the running message end', async () => {
    const { adapter, input, received } = console_();
    let release: () => void = () => {};
    adapter.onInbound(async (inbound) => {
      received.push(inbound);
      if (received.length === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    await adapter.start();
    input.write('running\nqueued\n');
    await vi.waitFor(() => expect(received).toHaveLength(1));
    await adapter.stop();
    release();
    await adapter.finished;
    expect(received.map((inbound) => inbound.text)).toEqual(['running']);
  });

  it('sends stop at once while a message is being handled, so it can cancel the turn it waits behind', async () => {
    const { adapter, input, received } = console_();
    let cancel: () => void = () => {};
    adapter.onInbound(async (inbound) => {
      received.push(inbound);
      if (inbound.text === 'stop') cancel();
      else if (inbound.text === 'long question') await new Promise<void>((resolve) => (cancel = resolve));
    });
    await adapter.start();
    input.write('long question\n');
    await vi.waitFor(() => expect(received).toHaveLength(1));
    input.end('stop\nnext\n');
    await adapter.finished;
    expect(received.map((inbound) => inbound.text)).toEqual(['long question', 'stop', 'next']);
  });
});
