/**
 * What tally knows of a file shared in the thread, profiled in the kernel when it arrived: rows,
 * columns with their dtype, NULL count and a few sample values, a workbook's sheets. Listed beside the
 * databases' tables in the stage prompts, so triage sees a question about the file's columns as
 * answerable and the model writes code with the columns it was shown.
 */

export interface ProfiledColumn {
  name: string;
  /** pandas dtype: int64, float64, object, datetime64[ns], bool. */
  dtype: string;
  nulls: number;
  samples: string[];
}

export interface ProfiledTable {
  /** A workbook's sheet name; absent for a flat file. */
  sheet?: string;
  rows: number;
  /** False when the rows were counted from lines of a large file, profiled from a sample. */
  rowsExact: boolean;
  columns: ProfiledColumn[];
  /** Columns left out of the profile (very wide files). */
  moreColumns: number;
}

export interface SharedFileProfile {
  /** Where the kernel reads it, e.g. `/inputs/uploads/orders.csv`. */
  path: string;
  /** CSV, TSV, Excel, JSON, JSON lines. */
  kind: string;
  tables: ProfiledTable[];
  /** What a reader should know: sampled, an encoding problem, could not be read. */
  notes: string[];
}

const MAX_CHARS_PER_FILE = 2500;

/** The shared files as compact text for the stage prompts ('' when none). */
export function summariseSharedFiles(profiles: readonly SharedFileProfile[]): string {
  if (profiles.length === 0) return '';
  const lines = ['shared files (in the kernel; read them with pandas):'];
  for (const profile of profiles) {
    const parts = [`- ${profile.path} (${profile.kind})`];
    for (const table of profile.tables) {
      const rows = `${table.rowsExact ? '' : 'about '}${table.rows.toLocaleString('en-US')} rows`;
      const more = table.moreColumns > 0 ? [`… ${table.moreColumns} more columns`] : [];
      const columns = [...table.columns.map(describeColumn), ...more].join(', ');
      const sheet = table.sheet === undefined ? ' ' : `\n  sheet ${JSON.stringify(table.sheet)} `;
      parts.push(`${sheet}(${rows}): ${columns}`);
    }
    const notes = profile.notes.length > 0 ? `\n  note: ${profile.notes.join('; ')}` : '';
    const text = `${parts.join('')}${notes}`;
    lines.push(text.length <= MAX_CHARS_PER_FILE ? text : `${text.slice(0, MAX_CHARS_PER_FILE)} …`);
  }
  return lines.join('\n');
}

function describeColumn(column: ProfiledColumn): string {
  const nulls = column.nulls > 0 ? ` ${column.nulls} null` : '';
  const samples =
    column.samples.length > 0 ? ` e.g. ${column.samples.map((sample) => JSON.stringify(sample)).join(', ')}` : '';
  return `${column.name} ${column.dtype}${nulls}${samples}`;
}
