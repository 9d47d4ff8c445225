/**
 * Moves a query's rows into a kernel without giving the sandbox a network or a credential: rows
 * arrive here in batches, are encoded into bounded chunks, delivered read-only under /inputs, and
 * loaded by the kernel's own loader into a typed DataFrame with its provenance.
 */
import { randomBytes } from 'node:crypto';
import { ExtractTooLargeError, SqlRejectedError } from '../../base/errors.js';
import type { ColumnKind, ExtractOptions, Provenance } from '../../ports/database.js';
import type { Kernel } from '../../ports/sandbox.js';
import type { ColumnEncoding } from '../column-kind.js';
import { releaseChunkBuffer } from './chunk-buffers.js';
import { type ChunkColumn, type EncodedChunk, type EncodeOptions, encodeChunk } from './encode-chunk.js';
import { type FrameLoading, startLoading } from './load-frame.js';
import { PartHasher } from './part-hasher.js';

/**
 * Rows per chunk. Small enough that a batch dies young in V8's garbage collector (65,536-row
 * batches were promoted and cost 50% more time end to end), large enough that numpy does the work.
 */
export const CHUNK_ROWS = 8192;
const WRITES_IN_FLIGHT = 3;
const PART_BYTES = 4 * 1024 * 1024;
const partName = (index: number) => `part-${String(index + 1).padStart(5, '0')}.bin`;
const indexName = (part: string) => part.replace(/\.bin$/, '.json');

export interface ExtractColumn {
  name: string;
  type: string;
  encoding: ColumnEncoding;
}

/** A running query, seen as its columns and its rows in batches of at most CHUNK_ROWS. */
export interface RowSource {
  columns: ExtractColumn[];
  batches: AsyncIterable<unknown[][]>;
  /** The rows already encoded, when the source reads its driver's bytes itself (then `batches` is empty). */
  chunks?: AsyncIterable<EncodedChunk>;
  /** Stops the query early (over budget, or a failure downstream). */
  cancel(): Promise<void>;
}

export interface ExtractRequest {
  kernel: Kernel;
  name: string;
  database: string;
  sql: string;
  source: RowSource;
  /** `maxRows`, `maxBytes` and `timeoutMs` resolved to values. */
  options: ExtractOptions & { maxRows: number; maxBytes: number; timeoutMs: number };
  startedAt: number;
}

const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);

/** A DataFrame name must be a plain Python identifier; the message goes back to the model. */
export function checkFrameName(name: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name) || PYTHON_KEYWORDS.has(name) || name.startsWith('_tally')) {
    throw new SqlRejectedError(
      'invalid DataFrame name',
      `'${name}' cannot name a DataFrame: use a Python identifier such as customers or churn_by_contract.`,
    );
  }
}

export async function extractIntoKernel(request: ExtractRequest): Promise<Provenance> {
  const { kernel, name, source, options } = request;
  const folder = `extracts/${name}-${randomBytes(4).toString('hex')}`;
  const hasher = new PartHasher();
  const placed: Array<{ file: string; base: number; rows: number; columns: ChunkColumn[] }> = [];
  const encodings = source.columns.map((column) => column.encoding);
  let rows = 0;
  let bytes = 0;
  const exactDecimals = options.exactDecimals ?? false;
  let loading: FrameLoading | undefined;
  // Encoded chunks are grouped into part files of a few MiB: one write per part, not per chunk.
  // Writes overlap with reading and encoding the next rows (awaiting each one stalled the stream);
  // a few in flight bound the memory.
  let part: Buffer[] = [];
  let partBytes = 0;
  let parts = 0;
  let placedBefore = 0;
  const writing: Array<Promise<void>> = [];
  const flushPart = async () => {
    if (part.length === 0) return;
    const data = part.length === 1 && part[0] ? part[0] : Buffer.concat(part, partBytes);
    if (data !== part[0]) for (const chunk of part) releaseChunkBuffer(chunk); // copied into `data`
    const index = JSON.stringify(placed.slice(placedBefore));
    const file = partName(parts);
    part = [];
    partBytes = 0;
    placedBefore = placed.length;
    // Hashed in a worker first (in part order), then written: the main thread goes back to reading rows.
    const written = hasher
      .update(data)
      .then((hashed) => kernel.writeFile(`${folder}/${file}`, hashed))
      .then(() => {
        releaseChunkBuffer(data); // hashed and written: its memory takes a later chunk
        return kernel.writeFile(`${folder}/${indexName(file)}`, index);
      });
    written.catch(() => {}); // awaited below; a failure while others are in flight must not go unhandled
    writing.push(written);
    parts += 1;
    if (writing.length >= WRITES_IN_FLIGHT) await writing.shift();
  };
  // Progress in steps of CHUNK_ROWS rows, whatever the size of the chunks.
  const report = (upTo: number) =>
    options.onProgress?.({ rows: upTo, bytes, elapsedMs: Date.now() - request.startedAt });

  try {
    await kernel.writeFile(
      `${folder}/columns.json`,
      JSON.stringify(source.columns.map((column) => manifestColumn(column, exactDecimals))),
    );
    // The kernel decodes each part as it lands: its index is written once the part is whole.
    loading = startLoading(kernel, name, folder, options.timeoutMs);
    const chunks = source.chunks ?? encodeBatches(source.batches, encodings, { exactDecimals });
    for await (const chunk of chunks) {
      const before = rows;
      rows += chunk.rows;
      if (rows > options.maxRows) throw new ExtractTooLargeError('rows', options.maxRows);
      bytes += chunk.data.length;
      if (bytes > options.maxBytes) throw new ExtractTooLargeError('bytes', options.maxBytes);
      placed.push({ file: partName(parts), base: partBytes, rows: chunk.rows, columns: chunk.columns });
      part.push(chunk.data);
      partBytes += chunk.data.length;
      const padding = (8 - (chunk.data.length % 8)) % 8; // the next chunk starts 8-byte aligned too
      if (padding > 0) {
        part.push(Buffer.alloc(padding));
        partBytes += padding;
      }
      if (partBytes >= PART_BYTES) await flushPart();
      for (let step = (Math.floor(before / CHUNK_ROWS) + 1) * CHUNK_ROWS; step <= rows; step += CHUNK_ROWS) {
        report(step);
      }
    }
    if (rows % CHUNK_ROWS !== 0) report(rows);
    await flushPart();
    await Promise.all(writing);
  } catch (error) {
    await Promise.allSettled(writing);
    void hasher.digest().catch(() => {}); // lets the worker drop this hash
    await source.cancel();
    await kernel.removeInput(folder);
    await loading?.abandon();
    throw error;
  }

  await hasher.update(Buffer.from(JSON.stringify(source.columns.map((column) => column.name))));
  const provenance: Provenance = {
    name,
    database: request.database,
    sql: request.sql,
    rows,
    columns: source.columns.map((column) => ({
      name: column.name,
      type: column.type,
      kind: column.encoding.kind,
      dtype: '',
    })),
    elapsedMs: Date.now() - request.startedAt,
    bytes,
    sha256: await hasher.digest(),
    extractedAt: new Date().toISOString(),
    ...(request.options.described?.masked.length
      ? { masked: request.options.described.masked, maskedBy: request.options.described.enforcedBy }
      : {}),
  };
  const manifest = {
    version: 1,
    columns: source.columns.map((column) => manifestColumn(column, exactDecimals)),
    chunks: placed,
    provenance,
  };
  await kernel.writeFile(`${folder}/manifest.json`, JSON.stringify(manifest));
  provenance.columns = await loading.finish(provenance);
  provenance.elapsedMs = Date.now() - request.startedAt;
  return provenance;
}

async function* encodeBatches(
  batches: AsyncIterable<unknown[][]>,
  encodings: ColumnEncoding[],
  options: EncodeOptions,
): AsyncGenerator<EncodedChunk> {
  for await (const batch of batches) yield encodeChunk(batch, encodings, options);
}

function manifestColumn(column: ExtractColumn, exactDecimals: boolean) {
  const kind: ColumnKind = column.encoding.kind;
  return {
    name: column.name,
    type: column.type,
    kind,
    ...(column.encoding.booleanLike ? { booleanLike: true } : {}),
    ...(kind === 'decimal' && exactDecimals ? { exact: true } : {}),
  };
}
