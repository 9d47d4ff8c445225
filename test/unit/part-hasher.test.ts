import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PartHasher } from '../../src/db/extract/part-hasher.js';

describe('PartHasher', () => {
  it('gives the SHA-256 of its parts in order, and hands each part back intact', async () => {
    const parts = [Buffer.alloc(3 * 1024 * 1024, 7), Buffer.from('small, from the pool'), Buffer.alloc(9, 1)];
    const expected = createHash('sha256');
    for (const part of parts) expected.update(part);
    const copies = parts.map((part) => Buffer.from(part));
    const hasher = new PartHasher();
    const other = new PartHasher();
    const back = await Promise.all(parts.map((part) => hasher.update(part)));
    await other.update(Buffer.from('another extract at the same time'));
    expect(await hasher.digest()).toBe(expected.digest('hex'));
    expect(back.map((part) => part.equals(copies[back.indexOf(part)] ?? Buffer.alloc(0)))).toEqual([true, true, true]);
    expect(await other.digest()).toBe(createHash('sha256').update('another extract at the same time').digest('hex'));
  });
});
