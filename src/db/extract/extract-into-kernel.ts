/**
 * Moves a query's rows into a kernel without giving the sandbox a network or a credential: rows
 * arrive here in batches, are encoded into bounded chunks, delivered read-only under /inputs, and
 * loaded by the kernel's own loader into a typed DataFrame with its provenance.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ExtractFailedError, ExtractTooLargeError, SqlRejectedError } from '../../errors.js';
import type { ColumnKind, ExtractOptions, Provenance } from '../../ports/database.js';
import type { Kernel } from '../../ports/sandbox.js';
import type { ColumnEncoding } from '../column-kind.js';
import { type ChunkColumn, encodeChunk } from './encode-chunk.js';

/**
 * Rows per chunk. Small enough that a batch dies young in V8's garbage collector (65,536-row
 * batches were promoted and cost 50% more time end to end), large enough that numpy does the work.
 */
export const CHUNK_ROWS = 8192;
const WRITES_IN_FLIGHT = 3;
const PART_BYTES = 4 * 1024 * 1024;
const partName = (index: number) => `part-${String(index + 1).padStart(5, '0')}.bin`;

export interface ExtractColumn {
  name: string;
  type: string;
  encoding: ColumnEncoding;
}

/** A running query, seen as its columns and its rows in batches of at most CHUNK_ROWS. */
export interface RowSource {
  columns: ExtractColumn[];
  batches: AsyncIterable<unknown[][]>;
  /** Stops the query early (over budget, or a failure downstream). */
  cancel(): Promise<void>;
}

export interface ExtractRequest {
  kernel: Kernel;
  name: string;
  database: string;
  sql: string;
  source: RowSource;
  /** `maxRows`, `maxBytes` and `exactDecimals` resolved to values. */
  options: ExtractOptions & { maxRows: number; maxBytes: number };
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
  const hash = createHash('sha256');
  const chunks: Array<{ file: string; base: number; rows: number; columns: ChunkColumn[] }> = [];
  const encodings = source.columns.map((column) => column.encoding);
  let rows = 0;
  let bytes = 0;
  // Encoded chunks are grouped into part files of a few MiB: one write per part, not per chunk.
  // Writes overlap with reading and encoding the next rows (awaiting each one stalled the stream);
  // a few in flight bound the memory.
  let part: Buffer[] = [];
  let partBytes = 0;
  let parts = 0;
  const writing: Array<Promise<void>> = [];
  const flushPart = async () => {
    if (part.length === 0) return;
    const data = Buffer.concat(part, partBytes);
    part = [];
    partBytes = 0;
    writing.push(kernel.writeFile(`${folder}/${partName(parts)}`, data));
    parts += 1;
    if (writing.length >= WRITES_IN_FLIGHT) await writing.shift();
  };

  try {
    // Sources deliver batches of at most CHUNK_ROWS rows; each is encoded as one chunk.
    for await (const batch of source.batches) {
      rows += batch.length;
      if (rows > options.maxRows) throw new ExtractTooLargeError('rows', options.maxRows);
      const chunk = encodeChunk(batch, encodings, { exactDecimals: options.exactDecimals ?? false });
      bytes += chunk.data.length;
      if (bytes > options.maxBytes) throw new ExtractTooLargeError('bytes', options.maxBytes);
      hash.update(chunk.data);
      chunks.push({ file: partName(parts), base: partBytes, rows: chunk.rows, columns: chunk.columns });
      const padding = (8 - (chunk.data.length % 8)) % 8; // the next chunk starts 8-byte aligned too
      part.push(chunk.data, Buffer.alloc(padding));
      partBytes += chunk.data.length + padding;
      if (partBytes >= PART_BYTES) await flushPart();
      options.onProgress?.({ rows, bytes, elapsedMs: Date.now() - request.startedAt });
    }
    await flushPart();
    await Promise.all(writing);
  } catch (error) {
    await Promise.allSettled(writing);
    await source.cancel();
    await kernel.removeInput(folder);
    throw error;
  }

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
    sha256: hash.update(JSON.stringify(source.columns.map((column) => column.name))).digest('hex'),
    extractedAt: new Date().toISOString(),
  };
  const manifest = {
    version: 1,
    columns: source.columns.map((column) => manifestColumn(column, options.exactDecimals ?? false)),
    chunks,
    provenance,
  };
  await kernel.writeFile(`${folder}/manifest.json`, JSON.stringify(manifest));
  provenance.columns = await loadFrame(kernel, name, folder, provenance);
  provenance.elapsedMs = Date.now() - request.startedAt;
  return provenance;
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

async function loadFrame(kernel: Kernel, name: string, folder: string, provenance: Provenance) {
  const code = [
    'from tally_extract import load_extract as _tally_load_extract',
    `${name} = _tally_load_extract(${JSON.stringify(`/inputs/${folder}`)})`,
    `globals().setdefault("_tally_extracts", {})[${JSON.stringify(name)}] = ${name}.attrs["provenance"]`,
    `print(__import__("json").dumps([str(dtype) for dtype in ${name}.dtypes]))`,
  ].join('\n');
  const execution = await kernel.run(code);
  if (execution.error) {
    throw new ExtractFailedError(`${execution.error.name}: ${execution.error.value}`, { folder });
  }
  const dtypes = JSON.parse(execution.stdout.trim().split('\n').pop() ?? '[]') as string[];
  return provenance.columns.map((column, index) => ({ ...column, dtype: dtypes[index] ?? 'unknown' }));
}
