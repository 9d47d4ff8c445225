/**
 * The two ways rows leave a PostgreSQL connection. Previews and metadata read a cursor (rows as arrays,
 * `batchRows` at a time, so a huge result is never read past what was asked). Extractions run
 * `COPY (query) TO STDOUT`: the server streams every row as text with no per-row round trip, and the
 * bytes go straight into encoded chunks (`postgres-copy-columns.ts`) without a JavaScript row in between.
 * It measured faster than the cursor (bench/extract.ts).
 */
import type { PoolClient, QueryArrayConfig } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import Cursor from 'pg-cursor';
import type { EncodedChunk, EncodeOptions } from '../extract/encode-chunk.js';
import { CHUNK_ROWS, type ExtractColumn, type RowSource } from '../extract/extract-into-kernel.js';
import { PostgresCopyColumns } from './postgres-copy-columns.js';
import { postgresColumnEncoding, postgresTypeName, previewParser } from './postgres-types.js';

interface Field {
  name: string;
  dataTypeID: number;
  dataTypeModifier: number;
}

const types = { getTypeParser: (oid: number) => previewParser(oid) };

/** Opens a cursor on `statement` and resolves once its first batch (and so its columns) has arrived. */
export async function cursorRows(client: PoolClient, statement: string, batchRows = CHUNK_ROWS): Promise<RowSource> {
  const cursor = client.query(new Cursor(statement, undefined, { rowMode: 'array', types }));
  const { rows: first, fields } = await new Promise<{ rows: unknown[][]; fields: Field[] }>((resolve, reject) => {
    cursor.read(batchRows, (error, rows, result) => {
      if (error) reject(error);
      else resolve({ rows: rows as unknown[][], fields: (result?.fields ?? []) as Field[] });
    });
  });
  let done = first.length < batchRows;
  return {
    columns: fields.map((field) => ({
      name: field.name,
      type: postgresTypeName(field.dataTypeID),
      encoding: postgresColumnEncoding(field.dataTypeID),
    })),
    batches: (async function* () {
      try {
        if (first.length > 0) yield first;
        while (!done) {
          const rows = (await cursor.read(batchRows)) as unknown[][];
          done = rows.length < batchRows;
          if (rows.length > 0) yield rows;
        }
      } finally {
        // Also when the reader stops early: the connection serves nothing else until the portal closes.
        done = true;
        await cursor.close();
      }
    })(),
    // The server makes rows only when asked for them: closing the portal is enough to stop.
    async cancel() {
      if (done) return;
      done = true;
      await cursor.close();
    },
  };
}

/** Starts `COPY (statement) TO STDOUT` once the statement's columns are known (a `LIMIT 0` run of it). */
export async function copyRows(
  client: PoolClient,
  statement: string,
  onCancel: () => Promise<void>,
  options: EncodeOptions,
): Promise<RowSource> {
  // The extended protocol takes one statement only: were the guard bypassed, SQL that closes the parenthesis
  // to run more (`…) x; COMMIT; DELETE …`) fails here, before the COPY (simple protocol) could run it.
  const described = await client.query({
    text: `SELECT * FROM (${statement}) AS tally_columns LIMIT 0`,
    rowMode: 'array',
    queryMode: 'extended',
  } as QueryArrayConfig);
  const columns = await describeFields(client, described.fields as Field[]);
  const reader = new PostgresCopyColumns(
    columns.map((column) => column.encoding),
    options,
  );
  const stream = client.query(copyTo(`COPY (${statement}) TO STDOUT`));
  let stopped = false;
  return {
    columns,
    batches: (async function* () {})(),
    chunks: (async function* (): AsyncGenerator<EncodedChunk> {
      for await (const bytes of stream) yield* reader.feed(bytes as Buffer);
      const last = reader.finish();
      if (last) yield last;
    })(),
    async cancel() {
      if (stopped) return;
      stopped = true;
      await onCancel();
      stream.destroy();
    },
  };
}

/**
 * Names, the catalog's type names (`numeric(10,2)`, `timestamp with time zone`) and encodings. Asked on the
 * statement's own connection before the COPY starts (a cursor holds its connection until it closes, so
 * previews name types from `postgresTypeName` instead).
 */
async function describeFields(client: PoolClient, fields: Field[]): Promise<ExtractColumn[]> {
  if (fields.length === 0) return [];
  const named = await client.query({
    text: 'SELECT format_type(t, NULLIF(m, -1)) FROM unnest($1::oid[], $2::int4[]) WITH ORDINALITY AS f(t, m, i) ORDER BY i',
    values: [fields.map((field) => field.dataTypeID), fields.map((field) => field.dataTypeModifier)],
    rowMode: 'array',
  });
  return fields.map((field, index) => ({
    name: field.name,
    type: String((named.rows[index] as unknown[] | undefined)?.[0] ?? field.dataTypeID),
    encoding: postgresColumnEncoding(field.dataTypeID),
  }));
}
