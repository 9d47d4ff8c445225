import { describe, expect, it } from 'vitest';
import { RowFramer } from '../../src/db/extract/row-framer.js';

function packet(sequence: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = sequence & 0xff;
  return Buffer.concat([header, payload]);
}

/** A row of one text value (length-encoded, as the text protocol sends it). */
function row(text: string): Buffer {
  const value = Buffer.from(text);
  if (value.length < 251) return Buffer.concat([Buffer.of(value.length), value]);
  const prefix = Buffer.alloc(4);
  prefix[0] = 0xfd;
  prefix.writeUIntLE(value.length, 1, 3);
  return Buffer.concat([prefix, value]);
}

const EOF = Buffer.from([0xfe, 0, 0, 0x22, 0]);

/** Feeds `stream` in the given pieces; returns the rows seen and what was given back. */
function run(stream: Buffer, cuts: number[], before = Buffer.alloc(0)) {
  const rows: string[] = [];
  const framer = new RowFramer((packet) => {
    const prefix = packet.buffer[packet.offset] === 0xfd ? 4 : 1;
    rows.push(packet.buffer.toString('utf8', packet.offset + prefix, packet.end));
  });
  framer.prepend(before);
  let rest: Buffer | undefined;
  let from = 0;
  for (const cut of [...cuts, stream.length]) {
    const piece = stream.subarray(from, cut);
    from = cut;
    if (rest) rest = Buffer.concat([rest, piece]);
    else rest = framer.push(piece);
  }
  return { rows, rest: rest?.toString('hex') };
}

describe('RowFramer', () => {
  const texts = ['a', '', 'héllo', 'x'.repeat(300), 'y'.repeat(70_000), 'z'];
  const rows = texts.map((text, index) => packet(index + 2, row(text)));
  const end = Buffer.concat([packet(texts.length + 2, EOF), Buffer.from('next command')]);
  const stream = Buffer.concat([...rows, end]);

  it('frames every row and gives back the end, wherever the reads split the bytes', () => {
    for (let cut = 0; cut <= stream.length; cut += cut < 400 || cut > stream.length - 400 ? 1 : 997) {
      expect(run(stream, [cut])).toEqual({ rows: texts, rest: end.toString('hex') });
    }
    expect(
      run(
        stream,
        Array.from({ length: 200 }, (_, index) => index * 3 + 1),
      ),
    ).toEqual({
      rows: texts,
      rest: end.toString('hex'),
    });
  });

  it("reads the driver's partial packet first", () => {
    for (const split of [1, 2, 3, 4, 5]) {
      expect(run(stream.subarray(split), [], stream.subarray(0, split))).toEqual({
        rows: texts,
        rest: end.toString('hex'),
      });
    }
  });

  it('stops at an error, and at a row long enough to span packets, before framing anything after it', () => {
    const error = packet(
      3,
      Buffer.concat([Buffer.of(0xff, 0x19, 0x05), Buffer.from('#70100Query execution was interrupted')]),
    );
    expect(run(Buffer.concat([rows[0] as Buffer, error, rows[1] as Buffer]), [7])).toEqual({
      rows: ['a'],
      rest: Buffer.concat([error, rows[1] as Buffer]).toString('hex'),
    });
    const longHeader = Buffer.from([0xff, 0xff, 0xff, 3, 0xfc]);
    expect(run(Buffer.concat([rows[0] as Buffer, longHeader]), [])).toEqual({ rows: ['a'], rest: undefined });
    const whole = Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 3]), Buffer.alloc(0xffffff, 0x61)]);
    expect(run(Buffer.concat([rows[0] as Buffer, whole]), [9, 100_000]).rest?.slice(0, 10)).toBe('ffffff0361');
  });
});
