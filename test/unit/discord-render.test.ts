/** How posts look in Discord: the 2,000-character limit, attachments, buttons. */
import { describe, expect, it } from 'vitest';
import { CONTENT_CHARS, parseCustomId, renderForDiscord } from '../../adapters/discord/discord-render.js';
import { ACTION_IDS } from '../../src/ports/chat.js';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe('Discord rendering', () => {
  it('splits long text under the message limit on paragraph boundaries, and attaches very long text', () => {
    const paragraphs = Array.from({ length: 6 }, (_, index) => `Paragraph ${index}: ${'word '.repeat(100)}`.trim());
    const ops = renderForDiscord({ kind: 'text', markdown: paragraphs.join('\n\n') });
    expect(ops.length).toBeGreaterThan(1);
    for (const op of ops) {
      expect(op.kind === 'message' && op.content.length <= CONTENT_CHARS).toBe(true);
      expect(op.kind === 'message' && op.content.startsWith('Paragraph')).toBe(true);
    }
    const huge = renderForDiscord({ kind: 'text', markdown: 'word '.repeat(5000) });
    expect(huge).toHaveLength(1);
    expect(huge[0]?.kind === 'message' && huge[0].files?.[0]?.name).toBe('answer.md');
  });

  it('attaches charts with their description', () => {
    const [op] = renderForDiscord({ kind: 'chart', title: 'Churn by contract', png, alt: 'bars per contract' });
    expect(op?.kind === 'message' && op.files).toEqual([
      { name: 'churn-by-contract.png', content: png, description: 'bars per contract' },
    ]);
  });

  it('puts Accept / Revise / Discard on a review, carrying the section and version', () => {
    const ops = renderForDiscord({
      kind: 'review',
      id: 's1',
      version: 2,
      title: 'Overview',
      markdown: 'Short.',
      figures: [{ title: 'Figure 1', png, alt: 'bars' }],
      cells: [{ language: 'python', code: 'x = 1', author: 'model' }],
      controls: ['accept', 'revise', 'discard'],
    });
    expect(ops).toHaveLength(1);
    const op = ops[0];
    if (op?.kind !== 'message') throw new Error('no message');
    expect(op.files?.map((file) => file.name)).toEqual(['s1-v2-code.txt']); // the chart is not posted again
    expect(op.content).toContain("Chart above: 'Figure 1'");
    expect(op.buttons?.map((button) => parseCustomId(button.customId))).toEqual([
      { actionId: ACTION_IDS.accept, value: 's1@2' },
      { actionId: ACTION_IDS.revise, value: 's1@2' },
      { actionId: ACTION_IDS.discard, value: 's1@2' },
    ]);
    expect(op.remember).toEqual({ kind: 'review', value: 's1@2', controls: ['accept', 'revise', 'discard'] });
  });

  it('numbers question choices on their buttons, and sends a notice only to its person', () => {
    const [question] = renderForDiscord({ kind: 'question', text: 'Which year?', choices: ['2024', '2025'] });
    expect(
      question?.kind === 'message' &&
        question.buttons?.map((button) => [button.label, parseCustomId(button.customId).value]),
    ).toEqual([
      ['2024', '1'],
      ['2025', '2'],
    ]);
    expect(renderForDiscord({ kind: 'notice', userId: '7', text: 'no' })).toEqual([
      { kind: 'ephemeral', user: '7', content: 'no' },
    ]);
  });
});
