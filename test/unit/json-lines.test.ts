import { describe, expect, it } from 'vitest';
import { JsonLineReader } from '../../sandbox/json-lines.js';

function reader(maxLineBytes = 1024) {
  const seen = { messages: [] as unknown[], garbage: [] as string[], oversize: [] as number[] };
  const instance = new JsonLineReader(maxLineBytes, {
    message: (value) => seen.messages.push(value),
    garbage: (sample) => seen.garbage.push(sample),
    oversize: (bytes) => seen.oversize.push(bytes),
  });
  return { instance, seen };
}

describe('JsonLineReader', () => {
  it('joins messages split across chunks and skips blank lines', () => {
    const { instance, seen } = reader();
    instance.push(Buffer.from('\n{"a":'));
    instance.push(Buffer.from('1}\n\n{"b":"é'));
    instance.push(Buffer.from('"}\n{"c"'));
    expect(seen.messages).toEqual([{ a: 1 }, { b: 'é' }]);
    instance.push(Buffer.from(':3}\n'));
    expect(seen.messages).toHaveLength(3);
  });

  it('keeps a multi-byte character split between chunks intact', () => {
    const { instance, seen } = reader();
    const bytes = Buffer.from('{"city":"東京"}\n');
    instance.push(bytes.subarray(0, 11));
    instance.push(bytes.subarray(11));
    expect(seen.messages).toEqual([{ city: '東京' }]);
  });

  it('reports garbage and non-object JSON without stopping', () => {
    const { instance, seen } = reader();
    instance.push(Buffer.from('\u0000\u00ffnoise\n[1,2]\n{"ok":true}\n'));
    expect(seen.garbage).toHaveLength(2);
    expect(seen.messages).toEqual([{ ok: true }]);
  });

  it('drops an over-long line without buffering it, then reads on', () => {
    const { instance, seen } = reader(16);
    instance.push(Buffer.from('x'.repeat(10)));
    instance.push(Buffer.from('y'.repeat(100)));
    instance.push(Buffer.from('z\n{"after":1}\n'));
    expect(seen.oversize).toEqual([111]);
    expect(seen.messages).toEqual([{ after: 1 }]);
  });
});
