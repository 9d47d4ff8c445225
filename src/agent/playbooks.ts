/**
 * Playbooks in prompts/playbooks/*.md: the organisation's prior analysis methods (front matter with
 * title, tags and when to use, optionally the question it answers and what it is about; then
 * requirements, specs, hints and example code). Loaded and checked at start-up; the playbook that
 * fits a request, if one does, is put into the plan and act prompts (how "fits" was calibrated: the
 * header of playbook-ranking.ts).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PromptFileError } from '../base/errors.js';
import type { Derivation } from '../ports/access.js';
import { bm25Scores, tokenize } from './bm25.js';
import { splitFrontMatter } from './front-matter.js';
import { parseDerivation } from './playbook-derivation.js';
import { PROMPTS_DIR } from './stage-prompts.js';

export const PLAYBOOK_SECTIONS = ['Requirements', 'Specs', 'Hints', 'Example code'] as const;
export type PlaybookSection = (typeof PLAYBOOK_SECTIONS)[number];

const FRONT_MATTER_KEYS = ['title', 'tags', 'when'] as const;
/**
 * Optional front matter: a question the playbook answers, offered as a starter prompt; what the
 * playbook is about (see {@link Playbook.about}); and, for one saved from a thread, the thread and
 * what it read (see {@link Playbook.derivedFrom}).
 */
const OPTIONAL_KEYS = ['ask', 'about', 'thread', 'grants'] as const;

export interface Playbook {
  /** File name inside the playbooks folder, e.g. `churn-drivers.md`. */
  file: string;
  title: string;
  tags: string[];
  /** One line: when to follow this playbook. */
  when: string;
  /** A question the playbook answers, offered as a starter prompt (Slack's suggested prompts). */
  ask?: string;
  /**
   * What the playbook is about: the things its data describes, as a request about them would name
   * them (`churn, customers`). A request that names none of them does not follow the playbook,
   * however many of its method words it uses. Each entry matches when all its words are in the
   * request, word forms folded. Absent: no such check.
   */
  about?: string[];
  /**
   * Saved from a thread: which, and what it had read (front matter `thread:` and `grants:`), so it is
   * offered only to people who may read all of that. Absent: a shipped playbook, offered to anyone.
   */
  derivedFrom?: Derivation;
  /** Everything after the front matter. */
  body: string;
  /** The text of each section, without its heading. */
  sections: Record<PlaybookSection, string>;
}

export interface RankOptions {
  /** How many playbooks to return at most. Default 1. */
  top?: number;
  /**
   * The fit (BM25 per distinct word of the request) a playbook must reach, or it is not returned (so a
   * request no playbook fits follows none). Default {@link BM25_MIN_SCORE}.
   */
  minScore?: number;
  /**
   * Distinct words of the request that the playbook's title, tags, `when` or `ask` must hold; a playbook
   * with fewer has no fit. Default {@link MIN_MATCHED_TERMS}.
   */
  minMatchedTerms?: number;
}

export interface RankedPlaybook {
  playbook: Playbook;
  /** The fit: BM25 of the playbook for the request, divided by the request's distinct words. */
  score: number;
}

/**
 * The fit a playbook needs to be followed: BM25 per distinct word of the request (words as
 * `tokenize` makes them). Calibrated on src/eval/playbook-choice.ts; the measurement is in the header
 * of playbook-ranking.ts.
 */
export const BM25_MIN_SCORE = 0.33;

/** Words of the request that a playbook's title, tags, `when` or `ask` must hold before it can fit: one is chance. */
export const MIN_MATCHED_TERMS = 2;

export const PLAYBOOKS_DIR = join(PROMPTS_DIR, 'playbooks');

/** Every `*.md` in the folder except README.md, sorted by file name. An empty folder gives no playbooks. */
export async function loadPlaybooks(folder = PLAYBOOKS_DIR): Promise<Playbook[]> {
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    throw new PromptFileError(folder, error.code === 'ENOENT' ? 'the playbooks folder is missing' : error.message);
  });
  const files = names.filter((name) => name.endsWith('.md') && name.toLowerCase() !== 'readme.md').sort();
  const playbooks: Playbook[] = [];
  for (const name of files) {
    const path = join(folder, name);
    playbooks.push(parsePlaybook(path, await readFile(path, 'utf8')));
  }
  return playbooks;
}

export function parsePlaybook(path: string, text: string): Playbook {
  const { fields, body } = splitFrontMatter(path, text);
  const known: readonly string[] = [...FRONT_MATTER_KEYS, ...OPTIONAL_KEYS];
  const unknown = Object.keys(fields).find((key) => !known.includes(key));
  if (unknown) {
    throw new PromptFileError(path, `unknown front matter key '${unknown}' (allowed: ${known.join(', ')})`);
  }
  const missing = FRONT_MATTER_KEYS.filter((key) => !fields[key]);
  if (missing.length > 0) throw new PromptFileError(path, `front matter needs ${missing.join(', ')}`);
  const derivedFrom = parseDerivation(path, fields);
  return {
    file: path.split(/[\\/]/).pop() ?? path,
    title: fields.title ?? '',
    tags: list(fields.tags ?? ''),
    when: fields.when ?? '',
    ...(fields.ask ? { ask: fields.ask } : {}),
    ...(fields.about ? { about: list(fields.about) } : {}),
    ...(derivedFrom ? { derivedFrom } : {}),
    body,
    sections: parseSections(path, body),
  };
}

/** A comma-separated front matter value as its non-empty entries. */
function list(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Splits the body on `## ` headings; exactly the four known sections, each with some text. */
function parseSections(path: string, body: string): Record<PlaybookSection, string> {
  const parts = body.split(/^## +(.+?)\s*$/m);
  if ((parts[0] ?? '').trim() !== '') {
    throw new PromptFileError(path, `text before the first section; start the body with '## ${PLAYBOOK_SECTIONS[0]}'`);
  }
  const sections: Partial<Record<PlaybookSection, string>> = {};
  for (let index = 1; index < parts.length; index += 2) {
    const heading = parts[index] ?? '';
    if (!(PLAYBOOK_SECTIONS as readonly string[]).includes(heading)) {
      throw new PromptFileError(path, `unknown section '## ${heading}' (allowed: ${PLAYBOOK_SECTIONS.join(', ')})`);
    }
    const content = (parts[index + 1] ?? '').trim();
    if (content === '') throw new PromptFileError(path, `section '## ${heading}' is empty`);
    sections[heading as PlaybookSection] = content;
  }
  const missing = PLAYBOOK_SECTIONS.filter((section) => sections[section] === undefined);
  if (missing.length > 0) {
    throw new PromptFileError(
      path,
      `missing section${missing.length > 1 ? 's' : ''} ${missing.map((name) => `'## ${name}'`).join(', ')}`,
    );
  }
  return sections as Record<PlaybookSection, string>;
}

/**
 * The playbooks that fit the request best, best first; empty when none fits. The fit is BM25 over the
 * playbook (the title counts three times, the tags twice, `when` and the body once) divided by the
 * number of distinct words in the request, so a long request that shares many common analysis words
 * with a playbook does not outscore a short one that asks for it; a playbook whose title, tags, `when`
 * and `ask` hold fewer than `minMatchedTerms` of the request's words, or whose subject (`about`) the
 * request does not name, has no fit at all. A playbook the request names by file comes first, fit or not.
 */
export function rankPlaybooks(playbooks: Playbook[], request: string, options: RankOptions = {}): RankedPlaybook[] {
  const { top = 1, minScore = BM25_MIN_SCORE, minMatchedTerms = MIN_MATCHED_TERMS } = options;
  const query = tokenize(request);
  const words = new Set(query);
  if (words.size === 0) return [];
  const scores = bm25Scores(
    playbooks.map((playbook) =>
      tokenize(
        [
          ...Array<string>(3).fill(playbook.title),
          ...Array<string>(2).fill(playbook.tags.join(', ')),
          playbook.when,
          playbook.body,
        ].join('\n'),
      ),
    ),
    query,
  );
  return playbooks
    .map((playbook, index) => {
      const described = new Set(
        tokenize([playbook.title, playbook.tags.join(', '), playbook.when, playbook.ask ?? ''].join('\n')),
      );
      const matched = [...words].filter((word) => described.has(word)).length;
      const fits = matched >= minMatchedTerms && namesSubject(playbook, words);
      return { playbook, score: fits ? (scores[index] ?? 0) / words.size : 0 };
    })
    .filter((entry) => namesPlaybook(request, entry.playbook) || (entry.score > 0 && entry.score >= minScore))
    .sort(byFit(request))
    .slice(0, top);
}

/** Ranked best first: a playbook the request names, then the higher score, then by file name. */
export function byFit(request: string): (left: RankedPlaybook, right: RankedPlaybook) => number {
  return (left, right) =>
    Number(namesPlaybook(request, right.playbook)) - Number(namesPlaybook(request, left.playbook)) ||
    right.score - left.score ||
    left.playbook.file.localeCompare(right.playbook.file);
}

/**
 * The request names the playbook's file (`Follow the playbook 'Churn driver analysis' (churn-drivers.md)`,
 * as a schedule asks): it is followed whatever its fit, before any other.
 */
export function namesPlaybook(request: string, playbook: Playbook): boolean {
  return request.toLowerCase().includes(playbook.file.toLowerCase());
}

/** The request names one of the playbook's `about` entries (all of its words), or the playbook has none. */
function namesSubject(playbook: Playbook, words: ReadonlySet<string>): boolean {
  const entries = (playbook.about ?? []).map(tokenize).filter((tokens) => tokens.length > 0);
  return entries.length === 0 || entries.some((tokens) => tokens.every((token) => words.has(token)));
}

const PLAYBOOK_HEADING = 'Playbook to follow: ';

/** The file of the playbook a message carries (it starts as {@link formatPlaybookForPrompt} writes one), if any. */
export function guidancePlaybookFile(content: string): string | undefined {
  if (!content.startsWith(PLAYBOOK_HEADING)) return undefined;
  const end = content.indexOf('\n');
  const firstLine = end < 0 ? content : content.slice(0, end);
  return /\(([^()]+)\)$/.exec(firstLine)?.[1];
}

/** The playbook as prompt text: its title, then its sections in order (when it applies was decided already). */
export function formatPlaybookForPrompt(playbook: Playbook): string {
  const sections = PLAYBOOK_SECTIONS.map((section) => `### ${section}\n${playbook.sections[section]}`);
  return [`${PLAYBOOK_HEADING}${playbook.title} (${playbook.file})`, ...sections].join('\n\n');
}

const EXAMPLE_CODE = `\n\n### ${PLAYBOOK_SECTIONS[3]}\n`;

/** The playbook's prompt text without its example code: what planning the steps needs. */
export function playbookWithoutCode(text: string): string {
  const at = text.indexOf(EXAMPLE_CODE);
  return at < 0 ? text : text.slice(0, at);
}
