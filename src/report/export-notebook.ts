/**
 * The report as a Jupyter notebook (nbformat 4.5) that reruns the accepted sections from the SQL
 * onward: a setup cell defines `query(database, sql)`, SQL cells become calls to it, Python cells are
 * copied verbatim, and each figure is attached as an output of the cell that drew it.
 *
 * A figure whose drawing cell is unknown is named in a markdown cell after its section's cells
 * rather than attached to some Python cell: a wrong output would misstate where the chart came from.
 */
import { cellAnchor, cellAnchors, checkedNarrative, figuresFrom } from './checked-narrative.js';
import { describeCell, drawingCell, formatUtc, nestHeadings } from './export-markdown.js';
import type { Cell } from './report.js';
import type { DocumentSection, ReportDocument, ReportFile } from './report-document.js';

type Output =
  | { output_type: 'display_data'; data: Record<string, string>; metadata: Record<string, never> }
  | { output_type: 'stream'; name: 'stdout'; text: string[] };

type NotebookCell =
  | { cell_type: 'markdown'; id: string; metadata: Record<string, unknown>; source: string[] }
  | {
      cell_type: 'code';
      id: string;
      metadata: Record<string, unknown>;
      source: string[];
      execution_count: null;
      outputs: Output[];
    };

/** `TALLY_DB_<NAME>`: the variable the notebook reads a database's location from. */
export function databaseVariable(name: string): string {
  return `TALLY_DB_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * A Python triple-quoted string holding `text` exactly. Backslashes are doubled first; then each
 * quote that starts a run of three, or ends the text, is escaped, so no `"""` can close it early.
 * Carriage returns and NULs are written as escapes: Python would alter the one and refuse the other.
 */
export function pythonTripleQuoted(text: string): string {
  const escaped = text
    .replaceAll('\\', '\\\\')
    .replace(/"(?=""|$)/g, '\\"')
    .replaceAll('\r', '\\r')
    .replaceAll('\0', '\\x00');
  return `"""${escaped}"""`;
}

/** Renders the notebook `report.ipynb`. */
export function exportNotebook(doc: ReportDocument): ReportFile {
  const anchors = cellAnchors(doc);
  const ids = new Set<string>();
  // nbformat 4.5 wants unique ids of 1-64 characters from [a-zA-Z0-9-_].
  const id = (wanted: string): string => {
    const base = wanted.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 56) || 'cell';
    let candidate = base;
    for (let n = 2; ids.has(candidate); n++) candidate = `${base}-${n}`;
    ids.add(candidate);
    return candidate;
  };
  const cells: NotebookCell[] = [
    markdown(id('about'), introduction(doc)),
    code(id('setup'), setupSource(doc)),
    ...doc.sections.flatMap((section) => sectionCells(doc, section, id, anchors)),
  ];
  const notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: 'python', file_extension: '.py', mimetype: 'text/x-python' },
      tally: { threadKey: doc.threadKey, exportedAt: new Date(doc.exportedAt).toISOString() },
    },
    cells,
  };
  return {
    path: 'report.ipynb',
    mime: 'application/x-ipynb+json',
    content: Buffer.from(`${JSON.stringify(notebook, null, 1)}\n`),
  };
}

function sectionCells(
  doc: ReportDocument,
  section: DocumentSection,
  id: (wanted: string) => string,
  anchors: Map<string, string>,
): NotebookCell[] {
  const heading = `## ${section.title.replace(/\s+/g, ' ').trim()}`;
  const narrative = nestHeadings(checkedNarrative(section, anchors).trim());
  const cells: NotebookCell[] = [markdown(id(`${section.id}-text`), [heading, narrative].filter(Boolean).join('\n\n'))];
  section.cells.forEach((cell, index) => {
    // The cell's output holds figures the narrative quotes: an anchor their links land on.
    const anchor = cellAnchor(section.id, index);
    const quoted = figuresFrom(doc, anchors, anchor);
    if (quoted.length > 0) {
      cells.push(
        markdown(
          id(`${anchor}-figures`),
          `<a id="${anchor}"></a>Cell ${index + 1} of ${section.id}: the result behind ${quoted.join(', ')}`,
        ),
      );
    }
    const outputs: Output[] = cell.output ? [{ output_type: 'stream', name: 'stdout', text: lines(cell.output) }] : [];
    for (const figure of section.figures) {
      if (drawingCell(section, figure) !== index) continue;
      outputs.push({
        output_type: 'display_data',
        data: { 'image/png': figure.png.toString('base64'), 'text/plain': figure.alt },
        metadata: {},
      });
    }
    const metadata = { tally: { section: section.id, cell: index + 1, author: cell.author } };
    cells.push({ ...code(id(`${section.id}-cell-${index + 1}`), cellSource(cell)), metadata, outputs });
  });
  const unplaced = section.figures.filter((figure) => drawingCell(section, figure) === undefined);
  if (unplaced.length > 0) {
    const list = unplaced.map((figure) => `- *${figure.title}*: ${figure.alt}`).join('\n');
    const text = `Figures of this section whose drawing cell was not recorded (see the HTML or Markdown report):\n\n${list}`;
    cells.push(markdown(id(`${section.id}-figures`), text));
  }
  return cells;
}

function cellSource(cell: Cell): string {
  if (cell.language === 'python') return cell.code;
  const call = `query(${JSON.stringify(cell.database ?? '')}, ${pythonTripleQuoted(`\n${cell.code.trim()}\n`)})`;
  // A name that is no Python identifier cannot be assigned; the query still shows its result.
  if (cell.dataframe && /^[\p{L}_][\p{L}\p{N}_]*$/u.test(cell.dataframe)) return `${cell.dataframe} = ${call}`;
  return call;
}

const CONNECTION_HINTS: Record<ReportDocument['databases'][number]['dialect'], string> = {
  sqlite: 'the path of the SQLite file (opened read-only)',
  mysql: 'a SQLAlchemy URL such as `mysql+pymysql://user:password@host:3306/name` (needs `sqlalchemy` and `pymysql`)',
  postgres:
    'a SQLAlchemy URL such as `postgresql+psycopg2://user:password@host:5432/name` (needs `sqlalchemy` and `psycopg2`)',
};

function introduction(doc: ReportDocument): string {
  const sections = doc.sections.map(
    (section) =>
      `- **${section.title}** (${section.id}, version ${section.version}): accepted by ${section.acceptedBy} on ${formatUtc(section.acceptedAt)}`,
  );
  const extracts = doc.sections.flatMap((section) =>
    section.cells.filter((cell) => cell.language === 'sql').map((cell) => `- ${section.id}: ${describeCell(cell)}`),
  );
  const variables = doc.databases.map(
    (database) =>
      `- \`${databaseVariable(database.name)}\` for **${database.name}** (${database.dialect}): ${
        CONNECTION_HINTS[database.dialect]
      }`,
  );
  return [
    `# ${doc.title}`,
    '',
    `Exported from thread \`${doc.threadKey}\` on ${formatUtc(doc.exportedAt)}. It reruns the accepted sections from their SQL onward; cells marked \`author: human\` in their metadata were written by a person.`,
    '',
    '## Sections',
    '',
    ...(sections.length > 0 ? sections : ['- none']),
    '',
    '## Data',
    '',
    ...(extracts.length > 0 ? extracts : ['- no SQL']),
    '',
    '## How to run',
    '',
    'Set one environment variable per database before starting Jupyter, then run all cells:',
    '',
    ...(variables.length > 0 ? variables : ['- none needed: no SQL in this report']),
  ].join('\n');
}

function setupSource(doc: ReportDocument): string {
  const dialects = doc.databases.map(
    (database) => `    ${JSON.stringify(database.name)}: ${JSON.stringify(database.dialect)},`,
  );
  return `import os
import pathlib
import re
import sqlite3

import pandas as pd

# Each database the report's SQL ran on, and its dialect.
DATABASES = {
${dialects.join('\n')}
}
_engines = {}


def query(database, sql):
    """Runs SQL on one of the report's databases and returns a DataFrame."""
    if database not in DATABASES:
        raise KeyError(f"{database!r} is not one of this report's databases: {sorted(DATABASES)}")
    variable = "TALLY_DB_" + re.sub(r"[^A-Z0-9]", "_", database.upper())
    location = os.environ.get(variable)
    if not location:
        hint = "the path of the SQLite file" if DATABASES[database] == "sqlite" else "a SQLAlchemy URL"
        raise RuntimeError(f"Set the environment variable {variable} to {hint} for database {database!r}.")
    if DATABASES[database] == "sqlite":
        # Read-only, so rerunning the report can never change the data.
        uri = pathlib.Path(location).resolve().as_uri() + "?mode=ro"
        connection = sqlite3.connect(uri, uri=True)
        try:
            return pd.read_sql_query(sql, connection)
        finally:
            connection.close()
    if database not in _engines:
        # Imported here so a notebook over SQLite alone does not need SQLAlchemy.
        from sqlalchemy import create_engine

        _engines[database] = create_engine(location)
    return pd.read_sql_query(sql, _engines[database])
`;
}

function markdown(id: string, text: string): NotebookCell {
  return { cell_type: 'markdown', id, metadata: {}, source: lines(text) };
}

function code(id: string, text: string): NotebookCell & { cell_type: 'code' } {
  return { cell_type: 'code', id, metadata: {}, source: lines(text), execution_count: null, outputs: [] };
}

/** nbformat's multiline string: lines that keep their `\n`, the last one without. */
function lines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/);
}
