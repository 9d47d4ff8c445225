import { describe, expect, it } from 'vitest';
import { JsonLineReader } from '../../sandbox/json-lines.js';

function reader(maxLineBytes = 1024, prefix = '') {
  const seen = { messages: [] as unknown[], garbage: [] as string[], oversize: [] as number[] };
  const instance = new JsonLineReader(
    maxLineBytes,
    {
      message: (value) => seen.messages.push(value),
      garbage: (sample) => seen.garbage.push(sample),
      oversize: (bytes) => seen.oversize.push(bytes),
    },
    prefix,
  );
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

  it('drops a line as soon as it does not start with the prefix, holding only a sample of it', () => {
    const { instance, seen } = reader(200 * 1024 * 1024, '{"v":1,');
    instance.push(Buffer.from('{"v'));
    instance.push(Buffer.from('":1,"id":"a"}\n{"v":2,"id":"b"}\n'));
    expect(seen.messages).toEqual([{ v: 1, id: 'a' }]);
    expect(seen.garbage).toEqual(['{"v":2,"id":"b"}']);
    const megabyte = Buffer.alloc(1024 * 1024, 0x78);
    for (let index = 0; index < 50; index += 1) {
      instance.push(megabyte);
      expect(instance.bufferedBytes).toBeLessThanOrEqual(200);
    }
    instance.push(Buffer.from('\n{"v":1,"after":true}\n'));
    expect(seen.garbage).toHaveLength(2);
    expect(seen.garbage[1]).toBe('x'.repeat(200));
    expect(seen.messages).toEqual([
      { v: 1, id: 'a' },
      { v: 1, after: true },
    ]);
  });

  it('treats a line shorter than the prefix, or not JSON after it, as garbage', () => {
    const { instance, seen } = reader(1024, '{"v":1,');
    instance.push(Buffer.from('{"v"\n{"v":1,broken\n{"v":1,"ok":1}\n'));
    expect(seen.garbage).toEqual(['{"v"', '{"v":1,broken']);
    expect(seen.messages).toEqual([{ v: 1, ok: 1 }]);
  });
});
