/**
 * The measuring decorators, around small hand-written clients: what reaches the metrics port, and
 * that everything else passes through untouched (embed absent or present, detached calls, getters).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LlmCancelledError, LlmTimeoutError } from '../../src/base/errors.js';
import { measuredDatabase } from '../../src/db/measured-database.js';
import { measuredLlm } from '../../src/llm/measured-llm-client.js';
import type { Database, Provenance, QueryResult } from '../../src/ports/database.js';
import type { Completion, CompletionRequest, LlmClient } from '../../src/ports/llm.js';
import type { Metrics, TurnEnd } from '../../src/ports/metrics.js';
import type { Kernel } from '../../src/ports/sandbox.js';

/** A Metrics that writes down every call. */
function recordingMetrics() {
  const calls: Array<[keyof Metrics, ...unknown[]]> = [];
  const metrics: Metrics = {
    turnStarted: () => (end: TurnEnd) => void calls.push(['turnStarted', end]),
    kernelStarted: (durationMs, ok) => void calls.push(['kernelStarted', durationMs, ok]),
    cellRan: (durationMs) => void calls.push(['cellRan', durationMs]),
    modelCalled: (durationMs, tokens, ok) => void calls.push(['modelCalled', durationMs, tokens, ok]),
    rowsExtracted: (rows) => void calls.push(['rowsExtracted', rows]),
    errorSeen: (code) => void calls.push(['errorSeen', code]),
    refused: (reason) => void calls.push(['refused', reason]),
    swept: (what, count) => void calls.push(['swept', what, count]),
    sweepEnded: (result) => void calls.push(['sweepEnded', result]),
    spent: (resource, amount) => void calls.push(['spent', resource, amount]),
  };
  return { metrics, calls };
}

const COMPLETION: Completion = {
  message: { role: 'assistant', content: 'hello' },
  toolCalls: [],
  usage: { promptTokens: 120, completionTokens: 7 },
  finishReason: 'stop',
};

class StubLlm implements LlmClient {
  model = 'model-a';
  readonly requests: CompletionRequest[] = [];
  failure: Error | undefined;
  /** How long the request takes on the faked `performance.now()` clock, in ms; 0 leaves the clock alone. */
  takesMs = 0;

  async complete(request: CompletionRequest): Promise<Completion> {
    this.requests.push(request);
    if (this.takesMs > 0) vi.advanceTimersByTime(this.takesMs);
    if (this.failure) throw this.failure;
    return COMPLETION;
  }
}

/** Like OpenAiLlmClient with an embedding model: `embed` reads `this`, so a lost binding would show. */
class EmbeddingStubLlm extends StubLlm {
  private readonly dimensions = 2;
  embed(texts: string[]): Promise<number[][]> {
    return Promise.resolve(texts.map((text) => Array.from({ length: this.dimensions }, () => text.length)));
  }
}

describe('measuredLlm', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reports a completion with its duration and tokens, and returns it unchanged', async () => {
    // Only performance.now() is faked: the stub's request moves it on by exactly 250 ms.
    vi.useFakeTimers({ toFake: ['performance'] });
    const { metrics, calls } = recordingMetrics();
    const inner = new StubLlm();
    inner.takesMs = 250;
    const llm = measuredLlm(inner, metrics);
    const request: CompletionRequest = { messages: [{ role: 'user', content: 'hi' }] };

    expect(await llm.complete(request)).toBe(COMPLETION);
    expect(inner.requests).toEqual([request]);
    expect(calls).toEqual([['modelCalled', 250, { prompt: 120, completion: 7 }, true]]);
  });

  it('reports a failed request with its duration and no tokens, and rethrows the same error', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { metrics, calls } = recordingMetrics();
    const inner = new StubLlm();
    inner.failure = new LlmTimeoutError('http://model.test/v1', 1000);
    inner.takesMs = 1000;
    const llm = measuredLlm(inner, metrics);

    await expect(llm.complete({ messages: [] })).rejects.toBe(inner.failure);
    expect(calls).toEqual([['modelCalled', 1000, { prompt: 0, completion: 0 }, false]]);
  });

  it('does not count a request the caller cancelled as a model failure', async () => {
    const { metrics, calls } = recordingMetrics();
    const inner = new StubLlm();
    inner.failure = new LlmCancelledError();
    const controller = new AbortController();
    controller.abort();

    await expect(measuredLlm(inner, metrics).complete({ messages: [], signal: controller.signal })).rejects.toBe(
      inner.failure,
    );
    expect(calls).toEqual([]);
  });

  it('forwards the model name as it changes', () => {
    const inner = new StubLlm();
    const llm = measuredLlm(inner, recordingMetrics().metrics);
    expect(llm.model).toBe('model-a');
    inner.model = 'model-b';
    expect(llm.model).toBe('model-b');
  });

  it('has no embed when the inner client has none', () => {
    const llm = measuredLlm(new StubLlm(), recordingMetrics().metrics);
    expect(llm.embed).toBeUndefined();
    expect('embed' in llm).toBe(false);
  });

  it('passes embed through, also called detached, without reporting it', async () => {
    const { metrics, calls } = recordingMetrics();
    const { embed } = measuredLlm(new EmbeddingStubLlm(), metrics);
    if (!embed) throw new Error('embed should be present');
    expect(await embed(['ab', 'abcd'])).toEqual([
      [2, 2],
      [4, 4],
    ]);
    expect(calls).toEqual([]);
  });
});

const PROVENANCE: Provenance = {
  name: 'df',
  database: 'telco',
  sql: 'SELECT * FROM calls',
  rows: 4_321,
  columns: [],
  elapsedMs: 12,
  bytes: 2_048,
  sha256: '0'.repeat(64),
  extractedAt: '2024-01-01T00:00:00.000Z',
};

const QUERY_RESULT: QueryResult = { columns: [], rows: [[1]], truncated: false, elapsedMs: 1 };

/** A Database that writes down what it was asked. */
function recordingDatabase() {
  const asked: unknown[][] = [];
  const db: Database = {
    name: 'telco',
    dialect: 'sqlite',
    listTables: async () => {
      asked.push(['listTables']);
      return [{ name: 'calls', rows: 3, rowsExact: true }];
    },
    describeTable: async (table) => {
      asked.push(['describeTable', table]);
      return { name: table, rows: 3, rowsExact: true, columns: [] };
    },
    query: async (sql, options) => {
      asked.push(['query', sql, options]);
      return QUERY_RESULT;
    },
    extract: async (sql, kernel, name, options) => {
      asked.push(['extract', sql, kernel, name, options]);
      if (sql.includes('fail')) throw new Error('extract failed');
      return PROVENANCE;
    },
    close: async () => void asked.push(['close']),
  };
  return { db, asked };
}

describe('measuredDatabase', () => {
  it('counts the rows of each extraction and returns its provenance', async () => {
    const { metrics, calls } = recordingMetrics();
    const { db, asked } = recordingDatabase();
    const kernel = { sessionId: 's1' } as unknown as Kernel;
    const options = { maxRows: 10_000 };

    const measured = measuredDatabase(db, metrics);
    expect(await measured.extract('SELECT * FROM calls', kernel, 'df', options)).toBe(PROVENANCE);
    expect(asked).toEqual([['extract', 'SELECT * FROM calls', kernel, 'df', options]]);
    expect(calls).toEqual([['rowsExtracted', 4_321]]);
  });

  it('counts nothing when an extraction fails, and rethrows', async () => {
    const { metrics, calls } = recordingMetrics();
    const measured = measuredDatabase(recordingDatabase().db, metrics);
    await expect(measured.extract('SELECT fail', {} as Kernel, 'df')).rejects.toThrow('extract failed');
    expect(calls).toEqual([]);
  });

  it('forwards every other member untouched', async () => {
    const { metrics, calls } = recordingMetrics();
    const { db, asked } = recordingDatabase();
    const measured = measuredDatabase(db, metrics);

    expect(measured.name).toBe('telco');
    expect(measured.dialect).toBe('sqlite');
    expect(await measured.listTables()).toEqual([{ name: 'calls', rows: 3, rowsExact: true }]);
    expect((await measured.describeTable('calls')).name).toBe('calls');
    expect(await measured.query('SELECT 1', { maxRows: 1 })).toBe(QUERY_RESULT);
    await measured.close();

    expect(asked).toEqual([
      ['listTables'],
      ['describeTable', 'calls'],
      ['query', 'SELECT 1', { maxRows: 1 }],
      ['close'],
    ]);
    expect(calls).toEqual([]);
  });
});
