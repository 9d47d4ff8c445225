/** Small text helpers the chat adapters share. */

export function truncate(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1)}…`;
}

/** A file-name-safe form of a title. */
export function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'file'
  );
}

/** A table as CSV (RFC 4180 quoting). */
export function csv(columns: string[], rows: unknown[][]): Buffer {
  const cell = (value: unknown) => {
    const text = value === null || value === undefined ? '' : String(value);
    return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return Buffer.from([columns, ...rows].map((row) => row.map(cell).join(',')).join('\n'));
}

/** The code behind a report section as one text file, each cell under a header. */
export function cellsFile(cells: Array<{ language: string; code: string; author: string }>): Buffer {
  return Buffer.from(
    cells
      .map(
        (cell, index) =>
          `-- cell ${index + 1} (${cell.language}${cell.author === 'human' ? ', written by a person' : ''})\n${cell.code}`,
      )
      .join('\n\n'),
  );
}

/**
 * How a review names its section's charts: they were posted when their cells ran, so a review
 * refers to them instead of posting the same images again ('' when it has none).
 */
export function chartsAbove(figures: ReadonlyArray<{ title: string }>): string {
  if (figures.length === 0) return '';
  const titles = figures.map((figure) => `'${figure.title}'`).join(', ');
  return `${figures.length === 1 ? 'Chart' : 'Charts'} above: ${titles}`;
}
