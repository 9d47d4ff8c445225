/** A table as aligned plain text (console output, code blocks in chat): cells cut at 30 characters. */

const MAX_CELL = 30;

export function renderTable(columns: string[], rows: unknown[][], truncated: boolean, title?: string): string {
  const text = (value: unknown) => {
    const raw = value === null || value === undefined ? 'NULL' : String(value);
    return raw.length > MAX_CELL ? `${raw.slice(0, MAX_CELL - 1)}…` : raw;
  };
  const cells = [columns, ...rows.map((row) => row.map(text))];
  const widths = columns.map((_, index) => Math.max(...cells.map((row) => (row[index] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  const body = [line(columns), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)];
  if (title) body.unshift(title);
  if (truncated) body.push(`(first ${rows.length} rows)`);
  return body.join('\n');
}
