/**
 * The report as one self-contained HTML page: inline CSS, figures as data URLs, code and SQL folded
 * under each section, and a provenance table. Nothing is fetched when the page opens, and nothing in
 * it runs: narratives come from a model and a chat, so their raw HTML is shown as text.
 */
import { Marked, type Tokens } from 'marked';
import { cellAnchor, cellAnchors, checkedNarrative } from './checked-narrative.js';
import { describeCell, type FigureProvenance, figureProvenance, formatUtc } from './export-markdown.js';
import type { DocumentSection, ReportDocument, ReportFile } from './report-document.js';

const STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --accent: #0b5cad; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff; font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 52rem; margin: 0 auto; padding: 2rem 1.25rem 4rem; }
h1 { font-size: 1.9rem; line-height: 1.25; margin: 0 0 .75rem; }
h2 { font-size: 1.4rem; margin: 2.5rem 0 .25rem; padding-bottom: .25rem; border-bottom: 1px solid var(--line); }
a { color: var(--accent); }
.meta { color: var(--muted); font-size: .9rem; margin: 0 0 1rem; }
dl.header { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; color: var(--muted); font-size: .9rem; }
dl.header dt { font-weight: 600; } dl.header dd { margin: 0; }
figure { margin: 1.5rem 0; break-inside: avoid; }
figure img { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 4px; }
figcaption { color: var(--muted); font-size: .9rem; margin-top: .35rem; }
details { margin: 1rem 0; border: 1px solid var(--line); border-radius: 6px; background: var(--soft); }
summary { cursor: pointer; padding: .5rem .75rem; font-weight: 600; }
ol.cells { margin: 0; padding: 0 .75rem .75rem 2.25rem; }
.cell-label { margin: .75rem 0 .25rem; font-size: .9rem; }
.human { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 3px; padding: 0 .3rem; font-size: .8rem; }
pre, code { font: .85rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { margin: 0; padding: .75rem; overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 4px; white-space: pre-wrap; word-break: break-word; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { border: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { background: var(--soft); }
td code { white-space: pre-wrap; word-break: break-word; }
@media print {
  body { font-size: 11pt; } main { max-width: none; padding: 0; } a { color: inherit; }
  details { border: none; background: none; } section, tr { break-inside: avoid; }
}
`;

/** Page policy, in case a future change lets markup slip through: nothing loads, nothing runs. */
const POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);
const INLINE_IMAGE = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*$/;

/** Escapes text for HTML content and double- or single-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * Links with a scheme other than http(s) or mailto are unsafe (`javascript:`, `data:`, …). The href
 * is written with `&` escaped, so the browser sees exactly this string; it drops whitespace and
 * control characters from a scheme, so they are dropped here too before looking.
 */
function isSafeUrl(href: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers ignore these in a URL's scheme
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href.replace(/[\u0000-\u0020\u007f]/g, ''));
  return !scheme?.[1] || SAFE_SCHEMES.has(scheme[1].toLowerCase());
}

// One instance of our own, so the global `marked` of other modules keeps its defaults.
const narrativeMarkdown = new Marked({
  gfm: true,
  renderer: {
    // The section title is the h2; a narrative's own headings nest below it.
    heading({ tokens, depth }: Tokens.Heading) {
      const level = Math.min(depth + 2, 6);
      return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
    },
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    link({ href, title, tokens }: Tokens.Link) {
      const text = this.parser.parseInline(tokens);
      if (!isSafeUrl(href)) return text;
      return `<a href="${escapeHtml(href)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${text}</a>`;
    },
    // Only inline raster images: a remote one would be fetched when the page opens.
    image({ href, text }: Tokens.Image) {
      if (INLINE_IMAGE.test(href)) return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">`;
      const label = escapeHtml(`[image: ${text || href}]`);
      return isSafeUrl(href) ? `<a href="${escapeHtml(href)}">${label}</a>` : label;
    },
  },
});

/** Renders narrative Markdown with raw HTML escaped and unsafe link URLs dropped. */
export function renderNarrative(markdown: string): string {
  return narrativeMarkdown.parse(markdown, { async: false });
}

/** Renders the whole report as one self-contained `report.html`. */
export function exportHtml(doc: ReportDocument): ReportFile {
  const provenance = figureProvenance(doc);
  const anchors = cellAnchors(doc);
  const databases = doc.databases.map((database) => `${database.name} (${database.dialect})`).join(', ') || 'none';
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<title>${escapeHtml(doc.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header>
<h1>${escapeHtml(doc.title)}</h1>
<dl class="header">
<dt>Thread</dt><dd><code>${escapeHtml(doc.threadKey)}</code></dd>
<dt>Exported</dt><dd>${escapeHtml(formatUtc(doc.exportedAt))}</dd>
<dt>Databases</dt><dd>${escapeHtml(databases)}</dd>
</dl>
</header>
${doc.sections.map((section) => sectionHtml(section, provenance, anchors)).join('\n')}
${provenanceTable(provenance)}
</main>
</body>
</html>
`;
  return { path: 'report.html', mime: 'text/html', content: Buffer.from(html) };
}

function sectionHtml(section: DocumentSection, provenance: FigureProvenance[], anchors: Map<string, string>): string {
  const accepted = `version ${section.version}, accepted by ${section.acceptedBy} on ${formatUtc(section.acceptedAt)}`;
  const figures = provenance
    .filter((row) => row.section === section)
    .map(
      (row) => `<figure id="${figureAnchor(row)}">
<img src="data:image/png;base64,${row.figure.png.toString('base64')}" alt="${escapeHtml(row.figure.alt)}">
<figcaption>${escapeHtml(row.figure.title)}</figcaption>
</figure>`,
    );
  const cells = section.cells.map((cell, index) => {
    const human = cell.author === 'human' ? ' <span class="human">written by a human</span>' : '';
    return `<li id="${escapeHtml(cellAnchor(section.id, index))}">
<p class="cell-label">${escapeHtml(describeCell({ ...cell, author: 'model' }))}${human}</p>
<pre><code class="language-${cell.language}">${escapeHtml(cell.code)}</code></pre>
</li>`;
  });
  const folded =
    cells.length === 0
      ? ''
      : `<details>
<summary>Code and SQL behind this section (${cells.length} ${cells.length === 1 ? 'cell' : 'cells'})</summary>
<ol class="cells">
${cells.join('\n')}
</ol>
</details>`;
  return `<section id="${escapeHtml(section.id)}">
<h2>${escapeHtml(section.title)}</h2>
<p class="meta">${escapeHtml(`${section.stage ? `${section.stage} · ` : ''}${accepted}`)}</p>
<div class="narrative">
${renderNarrative(checkedNarrative(section, anchors))}
</div>
${figures.join('\n')}
${folded}
</section>`;
}

function provenanceTable(provenance: FigureProvenance[]): string {
  const rows = provenance.map((row) => {
    const sql = row.sql.map(
      (source) =>
        `<div>${escapeHtml(`${source.sectionId} cell ${source.cellNumber}:`)} <code>${escapeHtml(source.cell.code.trim())}</code></div>`,
    );
    const each = (value: (cell: FigureProvenance['sql'][number]['cell']) => string) =>
      row.sql.map((source) => `<div>${escapeHtml(value(source.cell))}</div>`).join('') || '—';
    return `<tr>
<td><a href="#${figureAnchor(row)}">${escapeHtml(row.figure.title)}</a></td>
<td><a href="#${escapeHtml(row.section.id)}">${escapeHtml(row.section.title)}</a></td>
<td>${row.cellNumber ?? 'unknown'}</td>
<td>${sql.join('') || '—'}</td>
<td>${each((cell) => cell.database ?? '?')}</td>
<td>${each((cell) => (cell.rows === undefined ? '?' : String(cell.rows)))}</td>
</tr>`;
  });
  const body = rows.length > 0 ? rows.join('\n') : '<tr><td colspan="6">No figures.</td></tr>';
  return `<section id="provenance">
<h2>Provenance</h2>
<table>
<thead><tr><th>Figure</th><th>Section</th><th>Cell</th><th>SQL</th><th>Database</th><th>Rows</th></tr></thead>
<tbody>
${body}
</tbody>
</table>
</section>`;
}

function figureAnchor(row: FigureProvenance): string {
  return escapeHtml(`figure-${row.path.replace(/^figures\/|\.png$/g, '')}`);
}
