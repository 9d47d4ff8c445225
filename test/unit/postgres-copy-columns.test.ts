/**
 * The reader of `COPY … TO STDOUT` text must encode what the row path encodes for the same values (encodeChunk
 * over the values a driver would give), whatever the escapes, NULLs and types, and wherever the socket splits
 * the bytes.
 */
import { describe, expect, it } from 'vitest';
import { encodeChunk } from '../../src/db/extract/encode-chunk.js';
import { PostgresCopyColumns } from '../../src/db/postgres/postgres-copy-columns.js';
import { intervalMicros } from '../../src/db/postgres/postgres-interval-builder.js';
import { PG, type PostgresEncoding, postgresColumnEncoding } from '../../src/db/postgres/postgres-types.js';
import { decode } from '../support/decode-chunk.js';

const TEXT = 25;
const OIDS = [PG.INT4, PG.INT8, PG.FLOAT8, PG.NUMERIC, TEXT, PG.BOOL, PG.DATE, PG.TIMESTAMP, PG.TIMESTAMPTZ];
const encodings = OIDS.map(postgresColumnEncoding);

/** COPY text of three rows, as PostgreSQL 15 writes it with TimeZone UTC and DateStyle ISO. */
const COPY = Buffer.from(
  [
    '1\t9007199254740993\t-2.5e+300\t12.50\ttab\\there\tt\t2024-03-01\t2024-01-02 03:04:05.5\t2024-01-02 01:04:05.5+00',
    '-2\t42\t0.1\t-0.0001\tline\\nbreak \\\\ back\\\\slash ünï\tf\t1999-12-31\t2000-01-01 00:00:00\t1970-01-01 00:00:00+00',
    '\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N',
    '',
  ].join('\n'),
);

/** What the row path would be handed for the same rows. */
const ROWS: unknown[][] = [
  [
    1,
    '9007199254740993',
    -2.5e300,
    '12.50',
    'tab\there',
    Uint8Array.of(1),
    '2024-03-01',
    '2024-01-02 03:04:05.5',
    '2024-01-02 01:04:05.5',
  ],
  [
    -2,
    42,
    0.1,
    '-0.0001',
    'line\nbreak \\ back\\slash ünï',
    Uint8Array.of(0),
    '1999-12-31',
    '2000-01-01 00:00:00',
    '1970-01-01 00:00:00',
  ],
  Array.from({ length: OIDS.length }, () => null),
];

function read(pieces: Buffer[], columns: PostgresEncoding[] = encodings) {
  const reader = new PostgresCopyColumns(columns, { exactDecimals: false });
  const chunks = pieces.flatMap((piece) => reader.feed(piece));
  const last = reader.finish();
  if (last) chunks.push(last);
  return chunks;
}

describe('PostgresCopyColumns', () => {
  it('encodes numbers, text with escapes, booleans, dates and NULLs like the row path', () => {
    const [chunk] = read([COPY]);
    expect(chunk?.rows).toBe(3);
    expect(decode(chunk as never)).toEqual(decode(encodeChunk(ROWS, encodings, { exactDecimals: false })));
  });

  it('reads the same wherever the bytes are split', () => {
    const whole = decode(read([COPY])[0] as never);
    for (let at = 1; at < COPY.length; at++) {
      const chunks = read([COPY.subarray(0, at), COPY.subarray(at)]);
      expect(chunks).toHaveLength(1);
      expect(decode(chunks[0] as never)).toEqual(whole);
    }
    const byteByByte = read([...COPY].map((byte) => Buffer.of(byte)));
    expect(decode(byteByByte[0] as never)).toEqual(whole);
  });

  it('decodes bytea, keeps JSON and arrays as their text, and reads intervals as durations', () => {
    const columns = [PG.BYTEA, PG.JSONB, 1007, PG.INTERVAL, PG.INTERVAL].map(postgresColumnEncoding);
    const copy = Buffer.from('\\\\xdeadbeef\t{"a": "x\\ty"}\t{1,2,NULL}\t1 day -02:00:00.5\t1 year 2 mons\n');
    const [chunk] = read([copy], columns);
    const [bytes, json, array, duration, calendar] = decode(chunk as never);
    expect(bytes?.[0]).toBe('dict');
    expect(json?.[1]).toEqual(['{"a": "x\ty"}']);
    expect(array?.[1]).toEqual(['{1,2,NULL}']);
    expect(duration).toEqual(['m8', [(22 * 3600 - 0.5) * 1e6]]);
    expect(calendar?.[0]).toBe('dict'); // months have no fixed length: the text, not a duration
    expect(calendar?.[1]).toEqual(['1 year 2 mons']);
  });

  it('ends a chunk at its row budget and carries on in the next', () => {
    const reader = new PostgresCopyColumns([postgresColumnEncoding(PG.INT4)], { exactDecimals: false });
    const rows = reader.chunkRows + 5;
    const text = Buffer.from(`${Array.from({ length: rows }, (_, index) => String(index)).join('\n')}\n`);
    const chunks = reader.feed(text);
    const last = reader.finish();
    expect(chunks.map((chunk) => chunk.rows)).toEqual([reader.chunkRows]);
    expect(last?.rows).toBe(5);
  });

  it('refuses output that ends inside a row or has the wrong number of values', () => {
    const reader = new PostgresCopyColumns([postgresColumnEncoding(PG.INT4)], { exactDecimals: false });
    reader.feed(Buffer.from('1\n2'));
    expect(() => reader.finish()).toThrow(/ended inside a row/);
    expect(() => read([Buffer.from('1\t2\n')], [postgresColumnEncoding(PG.INT4)])).toThrow(/as many values/);
    expect(() => read([Buffer.from('1\n')], [PG.INT4, PG.INT4].map(postgresColumnEncoding))).toThrow(/as many values/);
    const none = read([Buffer.from('\n\n\n')], []);
    expect(none.map((chunk) => chunk.rows)).toEqual([3]); // SELECT FROM t: rows without columns
  });
});

describe('intervalMicros', () => {
  it.each([
    ['00:00:01', 1e6],
    ['-00:00:01.25', -1.25e6],
    ['3 days', 3 * 86_400e6],
    ['1 day 02:03:04.000005', (86_400 + 2 * 3600 + 3 * 60 + 4) * 1e6 + 5],
    ['-1 days +02:00:00', (-86_400 + 7200) * 1e6],
    ['1000:00:00', 3.6e12],
  ])('%s is %d µs', (text, micros) => {
    expect(intervalMicros(text)).toBe(micros);
  });

  it.each(['1 year', '2 mons 3 days', '', 'P1D'])('%j is not a fixed duration', (text) => {
    expect(intervalMicros(text)).toBeUndefined();
  });
});
