/**
 * Discord's option suggestions: `/analyze` offers a person's recent questions and the starter
 * questions that contain what they typed (within Discord's limits, long questions behind a token),
 * without waiting on a slow directory; `/settings` offers the allowed values, which are the values
 * the agent's settings take.
 */
import { describe, expect, it } from 'vitest';
import { DiscordAutocomplete, MAX_CHOICES } from '../../adapters/discord/discord-autocomplete.js';
import {
  SETTING_VALUES,
  SLASH_COMMANDS,
  settingProblem,
  TEMPERATURES,
} from '../../adapters/discord/discord-commands.js';
import { DEFAULT_SETTINGS, parseSetCommand } from '../../src/agent/settings.js';
import type { SessionSummary, TallyDirectory, Viewer } from '../../src/ports/chat.js';

const VIEWER: Viewer = {
  channel: 'discord:1300000000000000001:1300000000000000500',
  user: { id: 'U1', groups: ['1300000000000000100'] },
  place: { channel: '1300000000000000500', dm: false },
};
const LONG = `Compare the churn of customers on fibre and DSL, by tenure band and contract, ${'and more '.repeat(10)}`;

/** A directory with these recent requests; `viewers` records who each lookup was for. */
function directory(requests: string[], delayMs = 0, viewers: Viewer[] = []): TallyDirectory {
  return {
    recentSessions: async (viewer, limit) => {
      viewers.push(viewer);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return requests.slice(0, limit).map(
        (request): SessionSummary => ({
          threadKey: `discord:G:${request.length}`,
          request,
          status: 'idle',
          sectionsAccepted: 0,
          exports: [],
          updatedAt: 0,
        }),
      );
    },
    starterPrompts: (viewer) => {
      viewers.push(viewer);
      return [
        { title: 'Check telco_db', message: 'Are the telco_db tables consistent?' },
        { title: 'Churn drivers', message: 'What drives churn?' },
      ];
    },
    defaultSettings: () => ['temperature: default', 'decompose: auto', 'review: off', 'cot: off', 'approve: default'],
  };
}

describe('Discord autocomplete', () => {
  it("offers the person's recent questions, then the starters, holding every word typed", async () => {
    const viewers: Viewer[] = [];
    const complete = new DiscordAutocomplete({
      directory: directory(['How does churn differ by contract?', LONG], 0, viewers),
    });
    const churn = await complete.choices('analyze', { name: 'question', value: 'CHURN' }, VIEWER);
    expect(churn.map((choice) => choice.name)).toEqual([
      'How does churn differ by contract?',
      expect.stringMatching(/^Compare the churn .*…$/),
      'What drives churn?',
    ]);
    for (const choice of churn) {
      expect(choice.name.length).toBeLessThanOrEqual(100);
      expect(String(choice.value).length).toBeLessThanOrEqual(100);
    }
    expect(await complete.question(String(churn[1]?.value), VIEWER)).toBe(LONG);
    expect(await complete.question('typed by hand', VIEWER)).toBe('typed by hand');
    const words = await complete.choices('analyze', { name: 'question', value: 'tables consistent' }, VIEWER);
    expect(words).toEqual([
      { name: 'Are the telco_db tables consistent?', value: 'Are the telco_db tables consistent?' },
    ]);
    // The directory shows what this viewer may see where they type.
    expect(viewers.length).toBeGreaterThan(0);
    for (const viewer of viewers) expect(viewer).toBe(VIEWER);
  });

  it('offers at most 25, and does not wait on a slow directory', async () => {
    const many = Array.from({ length: 40 }, (_, index) => `Question ${index}?`);
    const fast = new DiscordAutocomplete({ directory: directory(many), recentLimit: 40 });
    expect(await fast.choices('analyze', { name: 'question', value: '' }, VIEWER)).toHaveLength(MAX_CHOICES);
    const slow = new DiscordAutocomplete({ directory: directory(many, 2000), budgetMs: 100 });
    const started = Date.now();
    const choices = await slow.choices('analyze', { name: 'question', value: '' }, VIEWER);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(choices.map((choice) => choice.value)).toEqual([
      'Are the telco_db tables consistent?',
      'What drives churn?',
    ]);
  });

  it('offers the values of a setting, the default marked, and refuses one typed outside them', async () => {
    const complete = new DiscordAutocomplete({ directory: directory([]) });
    const decompose = await complete.choices('settings', { name: 'decompose', value: '' }, VIEWER);
    expect(decompose.map((choice) => choice.value)).toEqual(['auto', 'on', 'off']);
    expect(decompose[0]?.name).toMatch(/^auto — .*\(default\)$/);
    expect(await complete.choices('settings', { name: 'approve', value: 'ri' }, VIEWER)).toEqual([
      { name: 'risky — ask before risky cells', value: 'risky' },
    ]);
    const temperatures = await complete.choices('settings', { name: 'temperature', value: '0.' }, VIEWER);
    expect(temperatures.map((choice) => choice.value)).toEqual([0.2, 0.5, 0.7]);
    expect(settingProblem('cot', 'maybe')).toBe('`cot` is one of on, off (not `maybe`).');
    expect(settingProblem('cot', 'on')).toBeUndefined();
  });

  it("offers exactly the values the agent's settings take, and declares every option as autocompleting", () => {
    for (const [name, values] of Object.entries(SETTING_VALUES)) {
      for (const value of Object.keys(values)) {
        expect(parseSetCommand(`set ${name}=${value}`, DEFAULT_SETTINGS)).toHaveProperty('settings');
      }
      expect(parseSetCommand(`set ${name}=bogus`, DEFAULT_SETTINGS)).toHaveProperty('error');
    }
    for (const value of Object.keys(TEMPERATURES)) {
      expect(parseSetCommand(`set temperature=${value}`, DEFAULT_SETTINGS)).toHaveProperty('settings');
    }
    const settings = SLASH_COMMANDS.find((command) => command.name === 'settings');
    expect(settings?.options?.map((option) => [option.name, 'autocomplete' in option && option.autocomplete])).toEqual([
      ['temperature', true],
      ...Object.keys(SETTING_VALUES).map((name) => [name, true]),
    ]);
  });
});
