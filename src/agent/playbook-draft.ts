/**
 * Drafts a playbook (the prompts/playbooks format, see src/agent/playbooks.ts) from an accepted
 * report, so the method the reviewers accepted can be followed next time. Deterministic, no model:
 * built only from the document's sections, which are the accepted ones at their accepted versions.
 * A person still reads the draft before it joins the shipped playbooks.
 */

import { type Cell, ReviewError } from '../report/report.js';
import type { DocumentSection, ReportDocument } from '../report/report-document.js';
import { stem } from './bm25.js';
import { PLAYBOOK_SECTIONS, type PlaybookSection } from './playbooks.js';

export interface DraftPlaybookOptions {
  /** The playbook's title. Default: the first section's request, shortened to its first sentence. */
  title?: string;
  /** File names already in the playbooks folder; the draft's name gets `-2`, `-3`… to avoid them. Default none. */
  existingFiles?: string[];
}

export interface PlaybookDraft {
  /** `<slug>.md`, not among `existingFiles`. */
  file: string;
  /** The whole file: front matter (title, tags, when) and the four sections. */
  markdown: string;
  title: string;
}

const MAX_TAGS = 6;
const MAX_TITLE_CHARS = 80;
const MAX_SLUG_CHARS = 60;
/** Longest quoted sentence or code line, in characters. */
const MAX_QUOTE_CHARS = 200;
/** The stage of a section that has none. */
const NO_STAGE = 'analysis';

/** Words that say nothing about the method: the BM25 stop words' kind plus the verbs of requests. */
const TAG_STOP_WORDS = new Set(
  (
    'about after all also and any are based been between both but can could data does each find for from get ' +
    'give has have how into its let like look make many more most much need not per please section see should ' +
    'show some tell than that the their them then there these this those using use via want was were what when ' +
    'where which who why will with would you your versus against among within report analysis'
  ).split(' '),
);

/**
 * A playbook drafted from the accepted sections of a report. Throws ReviewError when the document
 * has no sections (nothing accepted yet).
 */
export function draftPlaybook(doc: ReportDocument, options: DraftPlaybookOptions = {}): PlaybookDraft {
  const [first] = doc.sections;
  if (!first)
    throw new ReviewError('Nothing is accepted in this report yet, so there is no method to save as a playbook.');
  const title = oneLine(options.title ?? '') || titleFrom(first);
  const sections: Record<PlaybookSection, string> = {
    Requirements: doc.sections.map(requirement).join('\n'),
    Specs: stages(doc.sections)
      .map(([stage, members]) => stageSpec(stage, members))
      .join('\n'),
    Hints: hints(doc).join('\n'),
    'Example code': exampleCode(doc.sections),
  };
  const frontMatter = [
    '---',
    `title: ${title}`,
    `tags: ${tags(doc.sections).join(', ')}`,
    `when: The user asks something like "${shorten(oneLine(first.request) || title, MAX_QUOTE_CHARS)}"`,
    '---',
  ];
  const body = PLAYBOOK_SECTIONS.map((name) => `## ${name}\n\n${sections[name]}`).join('\n\n');
  const file = freeFileName(slug(title), options.existingFiles ?? []);
  return { file, title, markdown: `${frontMatter.join('\n')}\n${body}\n` };
}

function titleFrom(section: DocumentSection): string {
  const request = firstSentence(section.request).replace(/[\s.?!:;,]+$/, '');
  const title = shorten(request, MAX_TITLE_CHARS) || oneLine(section.title) || 'Accepted analysis';
  return title.charAt(0).toUpperCase() + title.slice(1);
}

// --- front matter -----------------------------------------------------------------------------

/** The most frequent meaningful words of the requests, titles and stages (word forms folded by stem). */
function tags(sections: DocumentSection[]): string[] {
  const counts = new Map<string, { word: string; count: number; order: number }>();
  const text = sections.map((section) => `${section.request} ${section.title} ${section.stage ?? ''}`).join(' ');
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length < 3 || /^\d+$/.test(word) || TAG_STOP_WORDS.has(word)) continue;
    const key = stem(word);
    const entry = counts.get(key) ?? { word, count: 0, order: counts.size };
    entry.count += 1;
    counts.set(key, entry);
  }
  const ranked = [...counts.values()].sort((left, right) => right.count - left.count || left.order - right.order);
  const words = ranked.slice(0, MAX_TAGS).map((entry) => entry.word);
  return words.length > 0 ? words : [NO_STAGE];
}

/** A file-name slug: lower-case ASCII words joined by dashes, cut at a word boundary. */
function slug(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const cut = words.length > MAX_SLUG_CHARS ? words.slice(0, words.lastIndexOf('-', MAX_SLUG_CHARS)) : words;
  return cut || 'playbook';
}

function freeFileName(base: string, existingFiles: string[]): string {
  // loadPlaybooks skips README.md, so a playbook by that name would never be read.
  const names = existingFiles.map((file) => (file.split(/[\\/]/).pop() ?? file).toLowerCase());
  const taken = new Set(['readme.md', ...names]);
  let file = `${base}.md`;
  for (let suffix = 2; taken.has(file); suffix += 1) file = `${base}-${suffix}.md`;
  return file;
}

// --- requirements and specs -------------------------------------------------------------------

function requirement(section: DocumentSection): string {
  const title = oneLine(section.title);
  const subject = /^\p{Lu}\p{Ll}/u.test(title) ? title.charAt(0).toLowerCase() + title.slice(1) : title;
  const finding = firstSentence(section.narrative);
  return `- Establish ${subject}${finding ? `; the accepted report found: ${finding}` : '.'}`;
}

/** The sections grouped by stage, stages in the order they first appear. */
function stages(sections: DocumentSection[]): Array<[string, DocumentSection[]]> {
  const groups = new Map<string, DocumentSection[]>();
  for (const section of sections) {
    const stage = oneLine(section.stage ?? '') || NO_STAGE;
    groups.set(stage, [...(groups.get(stage) ?? []), section]);
  }
  return [...groups];
}

/** One bullet per stage: what its SQL read, the DataFrames it built, the libraries and the charts. */
function stageSpec(stage: string, members: DocumentSection[]): string {
  const cells = members.flatMap((section) => section.cells);
  const sql = cells.filter((cell) => cell.language === 'sql');
  const python = cells.filter((cell) => cell.language === 'python').map((cell) => cell.code);
  const databases = unique(sql.flatMap((cell) => (cell.database ? [cell.database] : [])));
  const tables = unique(sql.flatMap((cell) => tablesRead(cell.code))).map((table) => `\`${table}\``);
  const loaded = sql.flatMap((cell) => (cell.dataframe ? [`\`${cell.dataframe}\`${rowCount(cell)} from SQL`] : []));
  const built = unique(python.flatMap(dataframesBuilt)).map((name) => `\`${name}\` in Python`);
  const modules = unique(python.flatMap(modulesImported));
  const charts = unique(members.flatMap((section) => section.figures.map((figure) => `"${oneLine(figure.title)}"`)));
  const on = databases.length > 0 ? ` on ${databases.join(', ')}` : '';
  const listed = (items: string[], sentence: (list: string) => string) =>
    items.length > 0 ? [sentence(items.join(', '))] : [];
  const lines = [
    ...listed(tables, (list) => `SQL reads ${list}${on}.`),
    ...listed([...loaded, ...built], (list) => `DataFrames: ${list}.`),
    ...listed(modules, (list) => `Python uses ${list}.`),
    ...listed(charts, (list) => `Charts: ${list}.`),
  ];
  const names = members.map((section) => `${section.id} "${oneLine(section.title)}"`).join(', ');
  const heading = `- Stage **${stage}** (${names})`;
  return lines.length > 0
    ? `${heading}:\n${lines.map((line) => `  - ${line}`).join('\n')}`
    : `${heading}: narrative only, no code.`;
}

/** The tables a query reads (FROM and JOIN), without its own CTE names. */
function tablesRead(sql: string): string[] {
  const text = sql
    .replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ')
    .replace(/'(?:[^']|'')*'/g, "''")
    .replace(/\b(?:EXTRACT|TRIM|SUBSTRING)\s*\([^)]*\)/gi, ' ');
  const ctes = new Set(
    [...text.matchAll(/(?:\bWITH(?:\s+RECURSIVE)?|,)\s*(\w+)\s+AS\s*\(/gi)].map((match) => match[1]?.toLowerCase()),
  );
  return [...text.matchAll(/\b(?:FROM|JOIN)\s+([`"[]?[\w.$]+[`"\]]?)/gi)]
    .map((match) => (match[1] ?? '').replace(/[`"[\]]/g, ''))
    .filter((name) => name !== '' && !ctes.has(name.toLowerCase()));
}

const FRAME_BUILDER =
  /\bpd\.(?:DataFrame|concat|merge|read_\w+|crosstab|pivot_table|get_dummies)\b|\.(?:merge|groupby|pivot_table)\(/;

/** Names assigned at the top level from a pandas constructor, merge, group-by or pivot. */
function dataframesBuilt(code: string): string[] {
  return [...code.matchAll(/^(\w+)\s*=(?!=)(.*)$/gm)]
    .filter((match) => FRAME_BUILDER.test(match[2] ?? ''))
    .map((match) => match[1] ?? '');
}

function modulesImported(code: string): string[] {
  return [...code.matchAll(/^\s*(?:from\s+([\w.]+)\s+import\b|import\s+([\w., ]+))/gm)].flatMap((match) =>
    match[1] ? [match[1]] : (match[2] ?? '').split(',').flatMap((part) => part.trim().split(/\s+/)[0] || []),
  );
}

// --- hints and example code -------------------------------------------------------------------

/** What the reviewers taught: the feedback that led to the accepted versions, and the cells a person wrote or edited. */
function hints(doc: ReportDocument): string[] {
  const lines: string[] = [];
  for (const section of doc.sections) {
    const title = `"${oneLine(section.title)}"`;
    const revisions = section.version - 1;
    if (revisions > 0) {
      lines.push(
        `- ${title} was accepted only after ${plural(revisions, 'revision')}: follow its accepted code and narrative closely.`,
      );
    }
    for (const feedback of section.feedback ?? []) lines.push(`- Reviewers asked for ${title}: ${oneLine(feedback)}`);
    for (const cell of section.cells.filter((candidate) => candidate.author === 'human')) {
      lines.push(
        `- A person wrote or corrected a ${cell.language === 'sql' ? 'SQL' : 'Python'} step of ${title} by hand; keep what it does: ${codeSpan(firstCodeLine(cell.code))}.`,
      );
    }
  }
  // The report book gives 0 and '' when a decision is missing; fall back to the export time, leave names out.
  const at = Math.max(...doc.sections.map((section) => section.acceptedAt)) || doc.exportedAt;
  const reviewers = unique(doc.sections.map((section) => section.acceptedBy).filter((name) => name !== ''));
  const by = reviewers.length > 0 ? `, accepted by ${reviewers.join(', ')}` : '';
  const date = new Date(at).toISOString().slice(0, 10);
  lines.push(
    `- Drafted from the accepted report of thread \`${doc.threadKey}\` (${plural(doc.sections.length, 'accepted section')}${by}, last on ${date}). Check the numbers on new data before reusing its conclusions.`,
  );
  return lines;
}

/** Each section's SQL and Python cells in order, under a short caption. */
function exampleCode(sections: DocumentSection[]): string {
  const parts = sections
    .filter((section) => section.cells.some((cell) => cell.code.trim() !== ''))
    .map((section) => {
      const caption = `${section.id}, ${oneLine(section.title)}${section.stage ? ` (${oneLine(section.stage)})` : ''}:`;
      const blocks = section.cells.filter((cell) => cell.code.trim() !== '').map(codeBlock);
      return [caption, ...blocks].join('\n\n');
    });
  return parts.length > 0 ? parts.join('\n\n') : 'No code: the accepted sections are narrative only.';
}

function codeBlock(cell: Cell): string {
  const comment = cell.language === 'sql' ? '--' : '#';
  const notes = [
    cell.author === 'human' ? 'written by a person' : '',
    cell.dataframe ? `loaded with load_dataframe into ${cell.dataframe}${rowCount(cell)}` : '',
    cell.language === 'sql' && cell.database ? `on ${cell.database}` : '',
  ].filter((note) => note !== '');
  // A line starting with '## ' would read as a new playbook section; a leading space keeps it a comment.
  const code = cell.code.trim().replace(/^## /gm, ' ## ');
  const text = notes.length > 0 ? `${comment} ${notes.join(', ')}\n${code}` : code;
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((match) => match[0].length + 1)));
  return `${fence}${cell.language}\n${text}\n${fence}`;
}

// --- text helpers -----------------------------------------------------------------------------

function rowCount(cell: Cell): string {
  return cell.rows === undefined ? '' : ` (${cell.rows.toLocaleString('en-US')} rows)`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function shorten(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(0, maxChars - 1);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : cut.length)}…`;
}

/** The first sentence of some Markdown, as plain one-line text. */
function firstSentence(markdown: string): string {
  const plain = oneLine(
    markdown
      .replace(/```[\s\S]*?```/g, ' ')
      .replace(/^\s{0,3}#+\s+.*$/gm, ' ')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\*\*|__|^\s*[-*]\s+/gm, ''),
  );
  return shorten(plain.split(/(?<=[.!?])\s+(?=[\p{Lu}\d"'(])/u)[0] ?? '', MAX_QUOTE_CHARS);
}

function firstCodeLine(code: string): string {
  const line = code.split('\n').find((candidate) => candidate.trim() !== '' && !/^\s*(?:#|--)/.test(candidate));
  return shorten(oneLine(line ?? code), MAX_QUOTE_CHARS);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function codeSpan(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
