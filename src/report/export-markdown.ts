/**
 * The report as Markdown: `report.md` plus one PNG per figure under `figures/`. Also home of what
 * every exporter shares: where a figure's file goes, how a cell is labelled, and which SQL a figure
 * rests on.
 */
import { checkedNarrative } from './checked-narrative.js';
import type { Cell } from './report.js';
import type { DocumentFigure, DocumentSection, ReportDocument, ReportFile } from './report-document.js';

/** A SQL cell a figure rests on, located in the document. */
export interface SqlSource {
  sectionId: string;
  /** 1-based, within its section. */
  cellNumber: number;
  cell: Cell;
}

/** Where a figure came from: its section, the cell that drew it, and the SQL behind that cell. */
export interface FigureProvenance {
  section: DocumentSection;
  figure: DocumentFigure;
  /** Relative path of the figure's PNG in the Markdown export, e.g. `figures/s1-1.png`. */
  path: string;
  /** 1-based number of the drawing cell in its section; absent when unknown. */
  cellNumber?: number;
  sql: SqlSource[];
}

/** `figures/<section>-<n>.png`, n counting from 1 within the section. */
export function figurePath(section: DocumentSection, index: number): string {
  return `figures/${section.id.replace(/[^A-Za-z0-9_-]/g, '_')}-${index + 1}.png`;
}

/** The index of the cell that drew a figure, when it points at a Python cell of its section. */
export function drawingCell(section: DocumentSection, figure: DocumentFigure): number | undefined {
  const index = figure.cell;
  return index !== undefined && section.cells[index]?.language === 'python' ? index : undefined;
}

/** `2024-05-01 09:30 UTC`: one fixed zone, so an export does not depend on the host's. */
export function formatUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `SQL on shop → orders (5 rows), written by a human`: what a reader needs to trust a cell. */
export function describeCell(cell: Cell): string {
  const parts: string[] = [];
  if (cell.language === 'sql') {
    parts.push(`SQL on ${cell.database ?? 'an unnamed database'}`);
    if (cell.verifiedQuery) parts.push(`(verified query "${cell.verifiedQuery}")`);
    parts.push(cell.dataframe ? `→ ${cell.dataframe}` : '(preview)');
    if (cell.rows !== undefined) parts.push(`(${cell.rows} ${cell.rows === 1 ? 'row' : 'rows'})`);
  } else {
    parts.push('Python');
  }
  return `${parts.join(' ')}${cell.author === 'human' ? ', written by a human' : ''}`;
}

/**
 * Pushes a narrative's ATX headings two levels down (capped at 6), so they nest under the section's
 * `##` instead of posing as sections of their own. Lines inside fenced code are left alone.
 */
export function nestHeadings(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (marker && (!fence || (marker[0] === fence[0] && marker.length >= fence.length))) {
        fence = fence ? undefined : marker;
        return line;
      }
      if (fence) return line;
      return line.replace(/^( {0,3})(#{1,6})(?=\s|$)/, (_, indent: string, hashes: string) => {
        return `${indent}${'#'.repeat(Math.min(hashes.length + 2, 6))}`;
      });
    })
    .join('\n');
}

/**
 * Every figure of the document with its provenance. The SQL behind a figure is found by name: the
 * latest SQL cell (in this or an earlier section) loading each DataFrame that the section's Python
 * mentions up to the drawing cell. A kernel keeps DataFrames across sections, so a chart in s3 can
 * rest on s1's extract. When no name matches, the section's SQL cells before the drawing cell stand in.
 */
export function figureProvenance(doc: ReportDocument): FigureProvenance[] {
  const loaded = new Map<string, SqlSource>();
  const result: FigureProvenance[] = [];
  for (const section of doc.sections) {
    const loadedBefore = new Map(loaded);
    section.figures.forEach((figure, index) => {
      const drawn = drawingCell(section, figure);
      const last = drawn ?? section.cells.length - 1;
      result.push({
        section,
        figure,
        path: figurePath(section, index),
        ...(drawn !== undefined ? { cellNumber: drawn + 1 } : {}),
        sql: sqlBehind(section, last, loadedBefore),
      });
    });
    section.cells.forEach((cell, index) => {
      if (cell.language === 'sql' && cell.dataframe) {
        loaded.set(cell.dataframe, { sectionId: section.id, cellNumber: index + 1, cell });
      }
    });
  }
  return result;
}

function sqlBehind(section: DocumentSection, last: number, loadedBefore: Map<string, SqlSource>): SqlSource[] {
  const available = new Map(loadedBefore);
  const ownSql: SqlSource[] = [];
  let python = '';
  section.cells.slice(0, last + 1).forEach((cell, index) => {
    const source = { sectionId: section.id, cellNumber: index + 1, cell };
    if (cell.language === 'python') python += `${cell.code}\n`;
    else ownSql.push(source);
    if (cell.language === 'sql' && cell.dataframe) available.set(cell.dataframe, source);
  });
  const named = [...available].filter(([name]) => mentions(python, name)).map(([, source]) => source);
  return named.length > 0 ? named : ownSql;
}

function mentions(code: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.])${escaped}(?!\\w)`, 'u').test(code);
}

/** Renders the report as `report.md` followed by its figures' PNGs, linked by relative paths. */
export function exportMarkdown(doc: ReportDocument): ReportFile[] {
  const provenance = figureProvenance(doc);
  const databases = doc.databases.map((database) => `${database.name} (${database.dialect})`).join(', ');
  const lines = [
    `# ${oneLine(doc.title)}`,
    '',
    `- Thread: \`${oneLine(doc.threadKey).replaceAll('`', "'")}\``,
    `- Exported: ${formatUtc(doc.exportedAt)}`,
    `- Databases: ${databases || 'none'}`,
    '',
  ];
  for (const section of doc.sections) {
    lines.push(...sectionLines(section, provenance));
  }
  lines.push('## Provenance', '', '| Figure | Section | Cell | SQL | Database | Rows |', '|---|---|---|---|---|---|');
  for (const row of provenance) lines.push(provenanceRow(row));
  if (provenance.length === 0) lines.push('| (no figures) | | | | | |');
  const markdown: ReportFile = {
    path: 'report.md',
    mime: 'text/markdown',
    content: Buffer.from(`${lines.join('\n')}\n`),
  };
  const figures = provenance.map((row) => ({ path: row.path, mime: 'image/png', content: row.figure.png }));
  return [markdown, ...figures];
}

function sectionLines(section: DocumentSection, provenance: FigureProvenance[]): string[] {
  const accepted = `version ${section.version}, accepted by ${section.acceptedBy} on ${formatUtc(section.acceptedAt)}`;
  const lines = [`## ${oneLine(section.title)}`, '', `_${section.stage ? `${section.stage} · ` : ''}${accepted}_`, ''];
  const narrative = checkedNarrative(section).trim();
  if (narrative) lines.push(nestHeadings(narrative), '');
  for (const row of provenance.filter((candidate) => candidate.section === section)) {
    lines.push(`![${altText(row.figure.alt)}](${row.path})`, '', `*${oneLine(row.figure.title)}*`, '');
  }
  if (section.cells.length > 0) lines.push('### Code and SQL', '');
  section.cells.forEach((cell, index) => {
    lines.push(`**Cell ${index + 1}**: ${describeCell(cell)}`, '', ...fenced(cell.code, cell.language), '');
  });
  return lines;
}

function provenanceRow(row: FigureProvenance): string {
  const sql = row.sql.map((source) => `${source.sectionId} cell ${source.cellNumber}: ${codeSpan(source.cell.code)}`);
  const cells = [
    oneLine(row.figure.title),
    oneLine(row.section.title),
    row.cellNumber === undefined ? 'unknown' : String(row.cellNumber),
    sql.join('<br>') || '—',
    row.sql.map((source) => source.cell.database ?? '?').join('<br>') || '—',
    row.sql.map((source) => source.cell.rows ?? '?').join('<br>') || '—',
  ];
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}

/** A fence longer than any backtick run in the code, so code holding ``` cannot close it early. */
function fenced(code: string, language: string): string[] {
  const longest = Math.max(0, ...[...code.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return [`${fence}${language}`, code.replace(/\n+$/, ''), fence];
}

/** A single-line code span that survives any backticks inside it (CommonMark's padding rule). */
function codeSpan(code: string): string {
  const text = oneLine(code);
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks} ${text} ${ticks}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function altText(text: string): string {
  return oneLine(text).replace(/[[\]\\]/g, '\\$&');
}
