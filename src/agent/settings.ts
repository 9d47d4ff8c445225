/**
 * Per-thread agent settings, changed by a chat command such as
 * `@tally set temperature=0.2 decompose=on review=off cot=on model=gpt-4o approve=risky grounding=off` and kept
 * with the session.
 */
import { z } from 'zod';
import { APPROVAL_MODES } from './approval.js';

const onOff = z.enum(['on', 'off']);

const settingsSchema = z.object({
  /** Overrides each stage's own temperature. */
  temperature: z.coerce.number().min(0).max(2).optional(),
  /** Plan first: always, never, or when triage says the request takes several steps. */
  decompose: z.enum(['auto', 'on', 'off']).default('auto'),
  /** Have the model review code before it runs. */
  review: onOff.default('off'),
  /** Ask for brief reasoning before each tool call. */
  cot: onOff.default('off'),
  /** Overrides the configured model for every stage. */
  model: z.string().min(1).optional(),
  /** Ask before running cells: never, only risky ones, or always. Default: the channel's, from the config. */
  approve: z.enum(APPROVAL_MODES).optional(),
  /** Check the figures of answers and sections against the thread's results. */
  grounding: onOff.default('on'),
});

export type AgentSettings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: AgentSettings = settingsSchema.parse({});

const KEYS = Object.keys(settingsSchema.shape) as Array<keyof AgentSettings>;

/** `set key=value …` → new settings, or a message saying what is wrong; anything else → undefined. */
export function parseSetCommand(
  text: string,
  current: AgentSettings,
): { settings: AgentSettings } | { error: string } | undefined {
  const match = /^\s*set\s+(.+)$/i.exec(text);
  if (!match?.[1]) return undefined;
  // "set up a churn model" is a request, not a command: a command starts with a setting's name.
  const first = match[1].trim().split(/[\s=]/, 1)[0] ?? '';
  if (!match[1].includes('=') && !KEYS.includes(first as keyof AgentSettings)) return undefined;
  const changes: Record<string, string> = {};
  for (const pair of match[1].trim().split(/\s+/)) {
    const [key, value] = pair.split('=', 2);
    if (!key || value === undefined || value === '')
      return { error: `'${pair}' is not key=value. Settings: ${KEYS.join(', ')}.` };
    if (!KEYS.includes(key as keyof AgentSettings))
      return { error: `Unknown setting '${key}'. Settings: ${KEYS.join(', ')}.` };
    changes[key] = value;
  }
  const parsed = settingsSchema.safeParse({ ...current, ...changes });
  if (!parsed.success) {
    return { error: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ') };
  }
  return { settings: parsed.data };
}

export function describeSettings(settings: AgentSettings): string {
  return KEYS.map((key) => `${key}=${settings[key] ?? 'default'}`).join(' ');
}
