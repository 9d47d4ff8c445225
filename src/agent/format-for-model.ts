/** Turning tool output into text the model reads: tables as aligned text, long output cut with a note. */

const DEFAULT_MAX_CHARS = 6000;

/** Keeps the head and the tail of long text and says how much was cut, so the model knows. */
export function truncateForModel(text: string, maxChars = DEFAULT_MAX_CHARS): string {
  if (text.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  return `${text.slice(0, half)}\n… [${text.length - maxChars} characters cut; print less, or summarise in code] …\n${text.slice(-half)}`;
}

export function formatRows(columns: string[], rows: unknown[][]): string {
  const cells = [columns, ...rows.map((row) => row.map(cellText))];
  const widths = columns.map((_, index) => Math.min(40, Math.max(...cells.map((row) => (row[index] ?? '').length))));
  return cells
    .map((row) =>
      row
        .map((cell, index) => (cell ?? '').slice(0, 40).padEnd(widths[index] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Uint8Array) return `<${value.byteLength} bytes>`;
  if (typeof value === 'string') return value === '' ? "''" : value;
  return String(value);
}
