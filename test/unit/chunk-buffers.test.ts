import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chunkBuffer, releaseChunkBuffer } from '../../src/db/extract/chunk-buffers.js';
import { encodeChunk } from '../../src/db/extract/encode-chunk.js';
import { PartHasher } from '../../src/db/extract/part-hasher.js';

const rows = [
  [1, 'a', true],
  [null, 'bcd', null],
];
const encodings = [{ kind: 'integer' as const }, { kind: 'text' as const }, { kind: 'boolean' as const }];
const encode = () => encodeChunk(rows, encodings, { exactDecimals: false });

describe('chunk buffers', () => {
  it('gives a released buffer to the next chunk that fits in it, once', () => {
    const first = chunkBuffer(5000);
    releaseChunkBuffer(first);
    releaseChunkBuffer(first); // twice: still one entry
    const second = chunkBuffer(4000);
    expect(second.buffer).toBe(first.buffer);
    expect(second.length).toBe(4000);
    expect(chunkBuffer(4000).buffer).not.toBe(first.buffer);
  });

  it('zeroes the padding of a reused buffer, so equal rows always make equal bytes and hashes', async () => {
    const clean = encode();
    const bytes = Buffer.from(clean.data);
    releaseChunkBuffer(clean.data);
    const dirty = chunkBuffer(1 << 20);
    dirty.fill(0xee);
    releaseChunkBuffer(dirty);
    const again = encode();
    expect(again.data.buffer).toBe(dirty.buffer);
    expect(again.data.equals(bytes)).toBe(true);
    // The hash worker reads shared memory in place and hands back the same bytes.
    const hasher = new PartHasher();
    const back = await hasher.update(again.data);
    expect(back.equals(bytes)).toBe(true);
    expect(await hasher.digest()).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});
