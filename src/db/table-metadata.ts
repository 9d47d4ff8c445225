/** What both connectors share about describing tables and their limits. */
import type { ColumnInfo, TableDescription, TableInfo } from '../ports/database.js';

export interface DatabaseLimits {
  /** Server-side time limit for `query`. */
  queryTimeoutMs: number;
  /** Server-side time limit for `extract` (it streams every row). */
  extractTimeoutMs: number;
  extractMaxRows: number;
  extractMaxBytes: number;
}

const SAMPLES_PER_COLUMN = 5;
const SAMPLE_TEXT_CHARS = 60;

export type ColumnWithoutSamples = Omit<ColumnInfo, 'samples' | 'key' | 'comment'> & {
  key?: ColumnInfo['key'] | undefined;
  comment?: string | undefined;
};

/** A table description with a few distinct sample values per column, taken from its first rows. */
export function describeFromSample(
  info: TableInfo,
  columns: ColumnWithoutSamples[],
  sample: unknown[][],
): TableDescription {
  return {
    ...info,
    columns: columns.map((column, index) => {
      const samples = new Set<string>();
      for (const row of sample) {
        if (samples.size >= SAMPLES_PER_COLUMN) break;
        const value = row[index];
        if (value !== null && value !== undefined) samples.add(sampleText(value));
      }
      const { key, comment, ...rest } = column;
      return { ...rest, ...(key ? { key } : {}), ...(comment ? { comment } : {}), samples: [...samples] };
    }),
  };
}

function sampleText(value: unknown): string {
  if (value instanceof Uint8Array) return `<${value.byteLength} bytes>`;
  const text = typeof value === 'string' ? value : String(value);
  return text.length > SAMPLE_TEXT_CHARS ? `${text.slice(0, SAMPLE_TEXT_CHARS)}…` : text;
}
