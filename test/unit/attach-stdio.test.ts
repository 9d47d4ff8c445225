import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { demultiplexer } from '../../sandbox/attach-stdio.js';

function frame(stream: number, payload: string): Buffer {
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(Buffer.byteLength(payload), 4);
  return Buffer.concat([header, Buffer.from(payload)]);
}

function collect() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const seen = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  stdout.on('data', (chunk: Buffer) => seen.stdout.push(chunk));
  stderr.on('data', (chunk: Buffer) => seen.stderr.push(chunk));
  return { push: demultiplexer(stdout, stderr), seen };
}

const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');

describe('the attach stream demultiplexer', () => {
  it('splits frames by stream, several to a chunk', () => {
    const { push, seen } = collect();
    push(Buffer.concat([frame(1, 'out '), frame(2, 'err'), frame(1, 'again')]));
    expect(text(seen.stdout)).toBe('out again');
    expect(text(seen.stderr)).toBe('err');
  });

  it('reassembles frames cut at every possible byte, headers included', () => {
    const wire = Buffer.concat([frame(1, 'héllo '), frame(2, 'warn'), frame(1, ''), frame(1, 'wörld')]);
    for (let cut = 1; cut < wire.length; cut += 1) {
      for (let second = cut; second < wire.length; second += 3) {
        const { push, seen } = collect();
        push(wire.subarray(0, cut));
        push(wire.subarray(cut, second));
        push(wire.subarray(second));
        expect(text(seen.stdout)).toBe('héllo wörld');
        expect(text(seen.stderr)).toBe('warn');
      }
    }
  });

  it('hands a large frame on as it arrives, without waiting for its end', () => {
    const { push, seen } = collect();
    const wire = frame(1, 'x'.repeat(100_000));
    push(wire.subarray(0, 50_000));
    expect(text(seen.stdout)).toHaveLength(50_000 - 8);
    push(wire.subarray(50_000));
    expect(text(seen.stdout)).toBe('x'.repeat(100_000));
  });
});
