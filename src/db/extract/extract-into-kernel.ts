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

/** Rows per chunk: bounds host memory whatever the result size. */
export const CHUNK_ROWS = 65_536;

export interface ExtractColumn {
  name: string;
  type: string;
  encoding: ColumnEncoding;
}

/** A running query, seen as its columns and its rows in batches. */
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
  const chunks: Array<{ file: string; rows: number; columns: ChunkColumn[] }> = [];
  const encodings = source.columns.map((column) => column.encoding);
  let pending: unknown[][] = [];
  let rows = 0;
  let bytes = 0;

  const flush = async () => {
    if (pending.length === 0) return;
    const chunk = encodeChunk(pending, encodings, { exactDecimals: options.exactDecimals ?? false });
    pending = [];
    bytes += chunk.data.length;
    if (bytes > options.maxBytes) throw new ExtractTooLargeError('bytes', options.maxBytes);
    const file = `chunk-${String(chunks.length + 1).padStart(5, '0')}.bin`;
    hash.update(chunk.data);
    await kernel.writeFile(`${folder}/${file}`, chunk.data);
    chunks.push({ file, rows: chunk.rows, columns: chunk.columns });
    options.onProgress?.({ rows, bytes, elapsedMs: Date.now() - request.startedAt });
  };

  try {
    for await (const batch of source.batches) {
      rows += batch.length;
      if (rows > options.maxRows) throw new ExtractTooLargeError('rows', options.maxRows);
      for (const row of batch) {
        pending.push(row);
        if (pending.length === CHUNK_ROWS) await flush();
      }
    }
    await flush();
  } catch (error) {
    await source.cancel();
    await kernel.removeInput(folder);
    throw error;
  }

  const provenance: Provenance = {
    name,
    database: request.database,
    sql: request.sql,
    rows,
    columns: source.columns.map((column) => ({ name: column.name, type: column.type, kind: column.encoding.kind, dtype: '' })),
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
