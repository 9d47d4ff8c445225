/**
 * Suggestions while someone types a slash command option. `/analyze question`: their recent
 * questions (newest first), then the starter questions built from the databases and playbooks,
 * keeping those that contain every word typed. `/settings`: the option's allowed values, the default
 * marked. Discord drops an answer that comes after 3 seconds, so the directory lookup is capped
 * (`budgetMs`; nothing recent is offered past it) and a person's recent questions are cached briefly.
 * Only what the access policy lets the viewer see where they type is offered (the directory decides).
 *
 * A choice's value holds at most 100 characters; a longer question is offered under a token
 * (`suggestion:<hash>`) that `/analyze` turns back into the question (`question()`).
 */
import { createHash } from 'node:crypto';
import type { TallyDirectory, Viewer } from '../../src/ports/chat.js';
import { SETTING_VALUES, TEMPERATURES } from './discord-commands.js';

export interface Choice {
  name: string;
  value: string | number;
}

export interface DiscordAutocompleteOptions {
  directory?: TallyDirectory | undefined;
  /** How long the directory may take before suggestions go out without recent questions. Default 1500 ms. */
  budgetMs?: number;
  /** How long a person's recent questions (in one place, with their roles then) are reused. Default 15 s. */
  cacheMs?: number;
  /** Recent sessions looked at. Default 20. */
  recentLimit?: number;
  now?: () => number;
}

/** Discord's limits: 25 choices, names and string values of 1–100 characters. */
export const MAX_CHOICES = 25;
const CHOICE_CHARS = 100;
const TOKEN = /^suggestion:([0-9a-f]{12})$/;

const cut = (text: string, chars = CHOICE_CHARS) => (text.length <= chars ? text : `${text.slice(0, chars - 1)}…`);
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const tokenOf = (text: string) => `suggestion:${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;

/** Whether `text` contains every word of `typed` (case-insensitive). */
export function matches(text: string, typed: string): boolean {
  const lower = text.toLowerCase();
  return typed
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => lower.includes(word));
}

export class DiscordAutocomplete {
  private readonly recent = new Map<string, { at: number; questions: string[] }>();
  private readonly now: () => number;

  constructor(private readonly options: DiscordAutocompleteOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The choices `viewer` gets for the option being typed (`focused`) of `command`; none for anything else. */
  async choices(command: string, focused: { name: string; value: string }, viewer: Viewer): Promise<Choice[]> {
    if (command === 'analyze' && focused.name === 'question') return this.questions(focused.value, viewer);
    if (command === 'settings') return this.settingValues(focused.name, focused.value);
    return [];
  }

  /** The question a `/analyze` value stands for: itself, or the long question behind a token `viewer` was offered. */
  async question(value: string, viewer: Viewer): Promise<string | undefined> {
    if (!TOKEN.test(value)) return value;
    const all = [...(await this.recentQuestions(viewer)), ...this.starters(viewer)];
    return all.find((question) => tokenOf(question) === value);
  }

  private async questions(typed: string, viewer: Viewer): Promise<Choice[]> {
    const all = [...(await this.recentQuestions(viewer)), ...this.starters(viewer)];
    const seen = new Set<string>();
    const choices: Choice[] = [];
    for (const question of all) {
      const text = oneLine(question);
      if (!text || seen.has(text.toLowerCase()) || !matches(text, typed)) continue;
      seen.add(text.toLowerCase());
      choices.push({ name: cut(text), value: question.length <= CHOICE_CHARS ? question : tokenOf(question) });
      if (choices.length === MAX_CHOICES) break;
    }
    return choices;
  }

  private starters(viewer: Viewer): string[] {
    return (this.options.directory?.starterPrompts(viewer) ?? []).map((prompt) => prompt.message);
  }

  /** The viewer's recent requests, newest first; none when the directory is slow or fails. */
  private async recentQuestions(viewer: Viewer): Promise<string[]> {
    const directory = this.options.directory;
    if (!directory) return [];
    // What the policy shows depends on the place and the roles as well as the person.
    const key = JSON.stringify([viewer.user.id, viewer.channel, viewer.place.dm, viewer.user.groups ?? []]);
    const cached = this.recent.get(key);
    if (cached && this.now() - cached.at < (this.options.cacheMs ?? 15_000)) return cached.questions;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.options.budgetMs ?? 1500);
    });
    const lookup = directory
      .recentSessions(viewer, this.options.recentLimit ?? 20)
      .then((sessions) => sessions.map((session) => session.request).filter(Boolean))
      .catch(() => undefined);
    const questions = await Promise.race([lookup, late]);
    clearTimeout(timer);
    if (!questions) return cached?.questions ?? [];
    this.recent.set(key, { at: this.now(), questions });
    if (this.recent.size > 1000) this.recent.delete(this.recent.keys().next().value ?? '');
    return questions;
  }

  private settingValues(name: string, typed: string): Choice[] {
    const defaults = new Map(
      (this.options.directory?.defaultSettings() ?? []).map((line) => {
        const [key = '', value = ''] = line.split(':').map((part) => part.trim());
        return [key, value] as const;
      }),
    );
    const marked = (value: string, words: string) =>
      cut(`${value} — ${words}${defaults.get(name) === value ? ' (default)' : ''}`);
    if (name === 'temperature') {
      return Object.entries(TEMPERATURES)
        .filter(([value]) => value.startsWith(typed.trim()))
        .map(([value, words]) => ({ name: marked(value, words), value: Number(value) }));
    }
    const values = Object.entries(SETTING_VALUES[name] ?? {});
    const wanted = typed.trim().toLowerCase();
    const starting = values.filter(([value]) => value.startsWith(wanted));
    // Nothing starts so: look in the descriptions ("ask" finds risky and always).
    const shown = starting.length > 0 ? starting : values.filter(([, words]) => matches(words, wanted));
    return shown.map(([value, words]) => ({ name: marked(value, words), value }));
  }
}
