/**
 * Playbooks in prompts/playbooks/*.md: the organisation's prior analysis methods (front matter with
 * title, tags and when to use; then requirements, specs, hints and example code). Loaded and checked
 * at start-up; the best match for a request is put into the plan and act prompts.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PromptFileError } from '../errors.js';
import { bm25Scores, tokenize } from './bm25.js';
import { splitFrontMatter } from './front-matter.js';
import { PROMPTS_DIR } from './stage-prompts.js';

export const PLAYBOOK_SECTIONS = ['Requirements', 'Specs', 'Hints', 'Example code'] as const;
export type PlaybookSection = (typeof PLAYBOOK_SECTIONS)[number];

const FRONT_MATTER_KEYS = ['title', 'tags', 'when'] as const;
/** Optional front matter: a question the playbook answers, offered as a starter prompt. */
const OPTIONAL_KEYS = ['ask'] as const;

export interface Playbook {
  /** File name inside the playbooks folder, e.g. `churn-drivers.md`. */
  file: string;
  title: string;
  tags: string[];
  /** One line: when to follow this playbook. */
  when: string;
  /** A question the playbook answers, offered as a starter prompt (Slack's suggested prompts). */
  ask?: string;
  /** Everything after the front matter. */
  body: string;
  /** The text of each section, without its heading. */
  sections: Record<PlaybookSection, string>;
}

export interface RankOptions {
  /** How many playbooks to return at most. Default 1. */
  top?: number;
  /**
   * BM25 score the best playbook must reach, or none is returned (so an unrelated request follows
   * no playbook). Default 1.5, calibrated on the shipped playbooks: short related requests score about 2,
   * longer ones 4 to 8; a request sharing no word with any playbook scores 0.
   */
  minScore?: number;
}

export interface RankedPlaybook {
  playbook: Playbook;
  score: number;
}

/** The default `minScore` of `rankPlaybooks`: a BM25 score this high is a match on words alone. */
export const BM25_MIN_SCORE = 1.5;

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
  return {
    file: path.split(/[\\/]/).pop() ?? path,
    title: fields.title ?? '',
    tags: (fields.tags ?? '')
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== ''),
    when: fields.when ?? '',
    ...(fields.ask ? { ask: fields.ask } : {}),
    body,
    sections: parseSections(path, body),
  };
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
 * The playbooks that fit the request best, best first (BM25; the title counts three times, the tags
 * twice, `when` and the body once). Empty when even the best one scores below `minScore`.
 */
export function rankPlaybooks(playbooks: Playbook[], request: string, options: RankOptions = {}): RankedPlaybook[] {
  const { top = 1, minScore = BM25_MIN_SCORE } = options;
  const documents = playbooks.map((playbook) =>
    tokenize(
      [
        ...Array<string>(3).fill(playbook.title),
        ...Array<string>(2).fill(playbook.tags.join(', ')),
        playbook.when,
        playbook.body,
      ].join('\n'),
    ),
  );
  const scores = bm25Scores(documents, tokenize(request));
  const ranked = playbooks
    .map((playbook, index) => ({ playbook, score: scores[index] ?? 0 }))
    .filter((entry) => entry.score > 0)
    .sort((left, right) => right.score - left.score || left.playbook.file.localeCompare(right.playbook.file));
  if ((ranked[0]?.score ?? 0) < minScore) return [];
  return ranked.filter((entry) => entry.score >= minScore).slice(0, top);
}

/** The playbook as prompt text: title, when to use, then its sections in order. */
export function formatPlaybookForPrompt(playbook: Playbook): string {
  const sections = PLAYBOOK_SECTIONS.map((section) => `### ${section}\n${playbook.sections[section]}`);
  return [`Playbook to follow: ${playbook.title} (${playbook.file})`, `When: ${playbook.when}`, ...sections].join(
    '\n\n',
  );
}
