/** Markdown files with `key: value` front matter between --- lines (stage prompts, playbooks). */
import { PromptFileError } from '../base/errors.js';

export interface FrontMatterFile {
  fields: Record<string, string>;
  body: string;
}

export function splitFrontMatter(file: string, text: string): FrontMatterFile {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text.replace(/\r\n/g, '\n'));
  if (!match) throw new PromptFileError(file, 'it must start with front matter between --- lines');
  const fields: Record<string, string> = {};
  for (const line of (match[1] ?? '').split('\n')) {
    if (line.trim() === '') continue;
    const pair = /^([A-Za-z]+):\s*(.*)$/.exec(line);
    if (!pair?.[1]) throw new PromptFileError(file, `front matter line '${line}' is not 'key: value'`);
    fields[pair[1]] = (pair[2] ?? '').trim();
  }
  return { fields, body: (match[2] ?? '').trim() };
}
