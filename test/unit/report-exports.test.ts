import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { escapeHtml, exportHtml } from '../../src/report/export-html.js';
import { exportMarkdown } from '../../src/report/export-markdown.js';
import { databaseVariable, exportNotebook } from '../../src/report/export-notebook.js';
import { exportReport } from '../../src/report/export-report.js';
import type { Cell } from '../../src/report/report.js';
import type { DocumentFigure, ReportDocument } from '../../src/report/report-document.js';

/** A real 1x1 PNG of one colour, so each figure's bytes differ. */
function tinyPng(red: number, green: number, blue: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, red, green, blue]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const cell = (fields: Partial<Cell> & Pick<Cell, 'language' | 'code'>): Cell => ({
  author: 'model',
  figures: [],
  ranAt: 1_700_000_000_000,
  ...fields,
});

const EXTRACT = 'SELECT customer, amount, placed\nFROM orders';
const BAR_CHART = "totals = orders.groupby('customer').amount.sum()\ntotals.plot.bar()";
const HUMAN_CODE = 'top = orders.nlargest(2, "amount")\nprint("```")  # a fence inside code';
const PREVIEW = 'SELECT COUNT(*) AS n FROM orders';
const LINE_CHART = "orders['placed'].value_counts().sort_index().plot()";

const revenueBar: DocumentFigure = {
  id: 'f1',
  title: 'Revenue by customer',
  alt: 'Bars: Ann leads',
  png: tinyPng(255, 0, 0),
  cell: 1,
};
const ordersLine: DocumentFigure = {
  id: 'f2',
  title: 'Orders per day',
  alt: 'A flat line',
  png: tinyPng(0, 255, 0),
  cell: 1,
};
const unplaced: DocumentFigure = { id: 'f3', title: 'Loose chart', alt: 'Drawn somewhere', png: tinyPng(0, 0, 255) };

// Given out of id order: the exporters must follow the array (the acceptance order), not the ids.
const doc: ReportDocument = {
  title: 'Shop orders',
  threadKey: 'slack:C1:1700.1',
  createdAt: 1_700_000_000_000,
  exportedAt: 1_700_000_900_000,
  databases: [{ name: 'shop', dialect: 'sqlite' }],
  sections: [
    {
      id: 's2',
      title: 'Revenue by customer',
      narrative:
        'Ann spends most.\n\n## Details\n\n```\n# not a heading\n```\n\n<script>alert(1)</script>\n\nSee [this](javascript:alert(2)).',
      version: 2,
      request: 'who spends most?',
      cells: [
        cell({ language: 'sql', code: EXTRACT, database: 'shop', dataframe: 'orders', rows: 5 }),
        cell({ language: 'python', code: BAR_CHART, figures: ['f1'] }),
        cell({ language: 'python', code: HUMAN_CODE, author: 'human', output: '```\n' }),
      ],
      figures: [revenueBar],
      acceptedBy: 'U1',
      acceptedAt: 1_700_000_500_000,
    },
    {
      id: 's1',
      stage: 'exploration',
      title: 'Orders <over> time',
      narrative: 'Steady, **no** trend.',
      version: 1,
      request: 'orders over time',
      cells: [
        cell({ language: 'sql', code: PREVIEW, database: 'shop', rows: 1 }),
        cell({ language: 'python', code: LINE_CHART, figures: ['f2'] }),
      ],
      figures: [ordersLine, unplaced],
      acceptedBy: 'U2',
      acceptedAt: 1_700_000_600_000,
    },
  ],
};
const TITLES = ['Revenue by customer', 'Orders <over> time'];
const FIGURES = [revenueBar, ordersLine, unplaced];

describe('exportMarkdown', () => {
  const [markdown, ...figures] = exportMarkdown(doc);
  const text = markdown?.content.toString('utf8') ?? '';

  it('writes report.md with each section exactly once, in the given order', () => {
    expect(markdown?.path).toBe('report.md');
    expect([...text.matchAll(/^## (.+)$/gm)].map((match) => match[1])).toEqual([...TITLES, 'Provenance']);
    expect(text).toMatch(/^# Shop orders\n/);
    expect(text).toContain('slack:C1:1700.1');
    expect(text).toContain('2023-11-14 22:28 UTC');
    expect(text).toContain('shop (sqlite)');
  });

  it('links every figure to a returned PNG with the same bytes, with alt text', () => {
    const links = [...text.matchAll(/!\[([^\]]*)\]\(([^)]+)\)/g)].map((match) => ({ alt: match[1], path: match[2] }));
    expect(links.map((link) => link.alt)).toEqual(FIGURES.map((figure) => figure.alt));
    expect(links.map((link) => link.path)).toEqual(['figures/s2-1.png', 'figures/s1-1.png', 'figures/s1-2.png']);
    expect(figures.map((file) => file.path)).toEqual(links.map((link) => link.path));
    figures.forEach((file, index) => {
      expect(file.mime).toBe('image/png');
      expect(file.content.equals(FIGURES[index]?.png ?? Buffer.alloc(0))).toBe(true);
    });
  });

  it('shows the code and SQL behind each section, labelled, with human cells marked', () => {
    expect(text).toContain(
      '**Cell 1**: SQL on shop → orders (5 rows)\n\n```sql\nSELECT customer, amount, placed\nFROM orders\n```',
    );
    expect(text).toContain('**Cell 1**: SQL on shop (preview) (1 row)\n\n```sql\n');
    expect(text).toContain(`**Cell 2**: Python\n\n\`\`\`python\n${BAR_CHART}\n\`\`\``);
    // The code holds ``` itself, so the fence must be longer.
    expect(text).toContain(`**Cell 3**: Python, written by a human\n\n\`\`\`\`python\n${HUMAN_CODE}\n\`\`\`\``);
    expect(text.match(/written by a human/g)).toHaveLength(1);
    expect(text.indexOf('Ann spends most.')).toBeLessThan(text.indexOf('![Bars: Ann leads]'));
    // The narrative's own heading nests under its section; code in a fence is left alone.
    expect(text).toContain('#### Details\n\n```\n# not a heading\n```');
  });

  it('ends with a provenance row per figure, naming the SQL it rests on', () => {
    const table = text.slice(text.indexOf('## Provenance'));
    const rows = table.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Figure'));
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatch(
      /^\| Revenue by customer \| Revenue by customer \| 2 \| s2 cell 1: ` SELECT customer, amount, placed FROM orders ` \| shop \| 5 \|$/,
    );
    // s1's chart uses `orders`, loaded by s2, accepted earlier.
    expect(rows[1]).toContain('| Orders per day | Orders <over> time | 2 | s2 cell 1:');
    expect(rows[2]).toContain('| Loose chart | Orders <over> time | unknown | s2 cell 1:');
  });

  it('falls back to the section’s own SQL when no loaded DataFrame is mentioned', () => {
    const alone = { ...doc, sections: doc.sections.slice(1) };
    const table = exportMarkdown(alone)[0]?.content.toString('utf8') ?? '';
    expect(table).toContain(
      '| Orders per day | Orders <over> time | 2 | s1 cell 1: ` SELECT COUNT(*) AS n FROM orders ` | shop | 1 |',
    );
  });
});

describe('exportHtml', () => {
  const file = exportHtml(doc);
  const html = file.content.toString('utf8');

  it('is one page with the sections exactly once, in the given order', () => {
    expect(file).toMatchObject({ path: 'report.html', mime: 'text/html' });
    expect([...html.matchAll(/<h2>(.*?)<\/h2>/g)].map((match) => match[1])).toEqual([
      ...TITLES.map(escapeHtml),
      'Provenance',
    ]);
  });

  it('loads and runs nothing: no scripts, no external references', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link|@import|url\(|https?:\/\//i);
    expect(
      [...html.matchAll(/\bsrc="([^"]*)"/g)].every((match) => match[1]?.startsWith('data:image/png;base64,')),
    ).toBe(true);
  });

  it('shows raw HTML and javascript: links of a narrative as text', () => {
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).not.toMatch(/href="[^"]*javascript/i);
    expect(html).toContain('See this.');
    expect(html).toContain('Steady, <strong>no</strong> trend.');
    expect(html).toContain('<h4>Details</h4>');
  });

  it('inlines every figure as base64 PNG with its alt text', () => {
    const images = [...html.matchAll(/<img src="data:image\/png;base64,([^"]+)" alt="([^"]*)">/g)];
    expect(images.map((match) => match[1])).toEqual(FIGURES.map((figure) => figure.png.toString('base64')));
    expect(images.map((match) => match[2])).toEqual(FIGURES.map((figure) => figure.alt));
  });

  it('folds each section’s code and SQL in <details>', () => {
    const folds = [...html.matchAll(/<details>([\s\S]*?)<\/details>/g)].map((match) => match[1] ?? '');
    expect(folds).toHaveLength(2);
    expect(folds[0]).toMatch(/<summary>[^<]*\(3 cells\)<\/summary>/);
    expect(folds[0]).toContain(escapeHtml(EXTRACT));
    expect(folds[0]).toContain(`${escapeHtml(HUMAN_CODE)}</code>`);
    expect(folds[0]).toContain('<span class="human">written by a human</span>');
    expect(folds[1]).toContain(escapeHtml(LINE_CHART));
  });

  it('has a provenance row per figure', () => {
    const body = html.slice(html.indexOf('<tbody>'), html.indexOf('</tbody>'));
    const rows = body.split('<tr>').slice(1);
    expect(rows).toHaveLength(3);
    expect(rows.map((row) => /<a href="#[^"]+">([^<]+)<\/a>/.exec(row)?.[1])).toEqual(
      FIGURES.map((figure) => figure.title),
    );
    expect(rows[0]).toContain('<td>2</td>');
    expect(rows[0]).toContain('s2 cell 1:');
    expect(rows[0]).toContain('<div>shop</div></td>\n<td><div>5</div>');
    expect(rows[2]).toContain('<td>unknown</td>');
  });
});

interface NotebookJson {
  nbformat: number;
  nbformat_minor: number;
  metadata: { kernelspec: { name: string }; language_info: { name: string } };
  cells: Array<{
    cell_type: string;
    id: string;
    source: string[];
    metadata: { tally?: { section: string; cell: number; author: string } };
    execution_count?: null;
    outputs?: Array<{ output_type: string; data?: Record<string, string> }>;
  }>;
}

describe('exportNotebook', () => {
  const file = exportNotebook(doc);
  const notebook = JSON.parse(file.content.toString('utf8')) as NotebookJson;
  const source = (index: number) => notebook.cells[index]?.source.join('') ?? '';
  const codeOf = (section: string, number: number) =>
    notebook.cells.find(
      (candidate) => candidate.metadata.tally?.section === section && candidate.metadata.tally.cell === number,
    );

  it('is nbformat 4.5 with unique, valid cell ids and a python3 kernel', () => {
    expect(file.path).toBe('report.ipynb');
    expect([notebook.nbformat, notebook.nbformat_minor]).toEqual([4, 5]);
    expect(notebook.metadata.kernelspec.name).toBe('python3');
    expect(notebook.metadata.language_info.name).toBe('python');
    const ids = notebook.cells.map((candidate) => candidate.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9-_]{1,64}$/);
    for (const candidate of notebook.cells.filter((each) => each.cell_type === 'code')) {
      expect(candidate.execution_count).toBeNull();
      expect(Array.isArray(candidate.outputs)).toBe(true);
    }
  });

  it('starts with the title and how to run, then a setup cell defining query()', () => {
    expect(source(0)).toMatch(/^# Shop orders\n/);
    expect(source(0)).toContain('`TALLY_DB_SHOP` for **shop** (sqlite)');
    expect(notebook.cells[1]?.cell_type).toBe('code');
    expect(source(1)).toContain('def query(database, sql):');
    expect(source(1)).toContain('"shop": "sqlite"');
    expect(source(1)).toContain('mode=ro');
    // Lazily, inside the function: SQLite-only notebooks need no SQLAlchemy.
    expect(source(1)).toMatch(/\n {8}from sqlalchemy import create_engine\n/);
    expect(source(1)).not.toMatch(/^(from sqlalchemy|import sqlalchemy)/m);
  });

  it('has one heading cell per section, in the given order, each followed by its cells', () => {
    const headings = notebook.cells.filter(
      (candidate) => candidate.cell_type === 'markdown' && candidate.source[0]?.startsWith('## '),
    );
    expect(headings.map((candidate) => candidate.source[0]?.replace(/^## |\n$/g, ''))).toEqual(TITLES);
    expect(notebook.cells.slice(2).map((candidate) => candidate.metadata.tally?.cell ?? candidate.cell_type)).toEqual([
      'markdown',
      1,
      2,
      3,
      'markdown',
      1,
      2,
      'markdown',
    ]);
  });

  it('turns SQL into query() calls and keeps Python verbatim', () => {
    expect(codeOf('s2', 1)?.source.join('')).toBe(`orders = query("shop", """\n${EXTRACT}\n""")`);
    expect(codeOf('s1', 1)?.source.join('')).toBe(`query("shop", """\n${PREVIEW}\n""")`);
    expect(codeOf('s2', 2)?.source).toEqual([
      "totals = orders.groupby('customer').amount.sum()\n",
      'totals.plot.bar()',
    ]);
    expect(codeOf('s2', 3)?.source.join('')).toBe(HUMAN_CODE);
    expect(codeOf('s2', 3)?.metadata.tally?.author).toBe('human');
    expect(codeOf('s1', 2)?.source.join('')).toBe(LINE_CHART);
  });

  it('attaches each figure to the cell that drew it, and names the one without a cell', () => {
    const images = notebook.cells.flatMap((candidate) =>
      (candidate.outputs ?? [])
        .filter((output) => output.data?.['image/png'])
        .map((output) => [
          candidate.metadata.tally?.section,
          candidate.metadata.tally?.cell,
          output.data?.['image/png'],
          output.data?.['text/plain'],
        ]),
    );
    expect(images).toEqual([
      ['s2', 2, revenueBar.png.toString('base64'), revenueBar.alt],
      ['s1', 2, ordersLine.png.toString('base64'), ordersLine.alt],
    ]);
    expect(source(notebook.cells.length - 1)).toContain('*Loose chart*: Drawn somewhere');
    expect(codeOf('s2', 3)?.outputs).toEqual([{ output_type: 'stream', name: 'stdout', text: ['```\n'] }]);
  });

  it('names database variables upper-cased with non-alphanumerics as _', () => {
    expect(databaseVariable('sales-eu.db')).toBe('TALLY_DB_SALES_EU_DB');
  });
});

describe('exportReport', () => {
  it('returns the Markdown and its figures, then the HTML, then the notebook', () => {
    expect(exportReport(doc).map((file) => file.path)).toEqual([
      'report.md',
      'figures/s2-1.png',
      'figures/s1-1.png',
      'figures/s1-2.png',
      'report.html',
      'report.ipynb',
    ]);
  });
});

describe('checked figures in the exports', () => {
  const narrative = 'Ann spent 1,250.5 of 2,100 (59.5%); Bob spent 611.';
  const checked: ReportDocument = {
    ...doc,
    sections: [
      {
        id: 's1',
        title: 'Spend',
        narrative,
        version: 1,
        request: 'who spends most?',
        cells: [
          cell({ language: 'sql', code: PREVIEW, database: 'shop', rows: 1, call: 'call_a' }),
          cell({ language: 'python', code: BAR_CHART, call: 'call_b' }),
        ],
        figures: [],
        acceptedBy: 'U1',
        acceptedAt: 1_700_000_500_000,
        checks: [
          { text: '1,250.5', start: 10, end: 17, status: 'grounded', source: 'call_b' },
          { text: '2,100', start: 21, end: 26, status: 'grounded', source: 'call_a' },
          { text: '59.5%', start: 28, end: 33, status: 'derived' },
          { text: '611', start: 46, end: 49, status: 'ungrounded' },
        ],
      },
    ],
  };

  it('links each grounded figure of report.html to the cell holding it, and marks the unfound one', () => {
    const html = exportHtml(checked).content.toString('utf8');
    expect(html).toContain('Ann spent <a href="#s1-cell-2">1,250.5</a> of <a href="#s1-cell-1">2,100</a> (59.5%)');
    expect(html).toContain('Bob spent 611⚠.');
    expect(html).toContain('⚠ not found in any result: 611');
    expect(html).toContain('<li id="s1-cell-1">');
    expect(html).toContain('<li id="s1-cell-2">');
  });

  it('gives the notebook the same links, with an anchor before each cell they land on', () => {
    const notebook = JSON.parse(exportNotebook(checked).content.toString('utf8')) as NotebookJson;
    const sources = notebook.cells.map((entry) => entry.source.join(''));
    expect(sources.find((text) => text.startsWith('## Spend'))).toContain(
      'Ann spent [1,250.5](#s1-cell-2) of [2,100](#s1-cell-1) (59.5%); Bob spent 611⚠.',
    );
    const anchor = sources.findIndex((text) => text.startsWith('<a id="s1-cell-2"></a>'));
    expect(sources[anchor]).toBe('<a id="s1-cell-2"></a>Cell 2 of s1: the result behind 1,250.5');
    expect(notebook.cells[anchor + 1]?.metadata.tally).toMatchObject({ section: 's1', cell: 2 });
  });

  it('marks the unfound figure in report.md, without links', () => {
    const markdown = exportMarkdown(checked)[0]?.content.toString('utf8') ?? '';
    expect(markdown).toContain('Ann spent 1,250.5 of 2,100 (59.5%); Bob spent 611⚠.\n\n⚠ not found in any result: 611');
  });
});
