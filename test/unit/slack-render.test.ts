/** How posts look in Slack: mrkdwn, limits, uploads, review and approval controls. */
import { describe, expect, it } from 'vitest';
import { splitText } from '../../adapters/common/split-text.js';
import { toMrkdwn } from '../../adapters/slack/slack-mrkdwn.js';
import { renderForSlack } from '../../adapters/slack/slack-render.js';
import { ACTION_IDS } from '../../src/ports/chat.js';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

describe('Slack rendering', () => {
  it('turns Markdown into mrkdwn and leaves code alone', () => {
    expect(toMrkdwn('## Result\n**Month-to-month** churns *most*: see [docs](https://example.com).\n- a\n- b')).toBe(
      '*Result*\n*Month-to-month* churns _most_: see <https://example.com|docs>.\n• a\n• b',
    );
    expect(toMrkdwn('x < y & **z**\n```python\nif a < b: print(**kw)\n```')).toBe(
      'x &lt; y &amp; *z*\n```\nif a < b: print(**kw)\n```',
    );
  });

  it('splits long text on paragraph boundaries and never loses a character of it', () => {
    const paragraphs = Array.from({ length: 40 }, (_, index) => `Paragraph ${index} ${'word '.repeat(30)}`.trim());
    const text = paragraphs.join('\n\n');
    const pieces = splitText(text, 1000);
    expect(pieces.every((piece) => piece.length <= 1000)).toBe(true);
    expect(pieces.every((piece) => /^Paragraph \d+/.test(piece))).toBe(true);
    expect(pieces.join('\n\n')).toBe(text);
  });

  it('cuts text without paragraphs at the last line break that fits', () => {
    // Lines of 29 characters and a newline: the first 100 characters end inside line 4.
    const lines = Array.from({ length: 10 }, (_, index) => `line ${index} ${'x'.repeat(22)}`);
    const pieces = splitText(lines.join('\n'), 100);
    expect(pieces[0]).toBe(lines.slice(0, 3).join('\n'));
    expect(pieces[1]).toBe(lines.slice(3, 6).join('\n'));
    expect(pieces).toHaveLength(4);
    expect(pieces.join('\n')).toBe(lines.join('\n'));
  });

  it('cuts a single long line at the last space that fits, never inside a word', () => {
    const words = Array.from({ length: 40 }, (_, index) => `word${index}`);
    const text = words.join(' ');
    const pieces = splitText(text, 50);
    // 'word0 … word7' is 47 characters; with ' word8' it would be 53.
    expect(pieces[0]).toBe(words.slice(0, 8).join(' '));
    // The space cut at is dropped: the next piece starts with the next word.
    expect(pieces[1]?.startsWith('word8 ')).toBe(true);
    expect(pieces.every((piece) => piece.length <= 50 && piece === piece.trim())).toBe(true);
    expect(pieces.join(' ')).toBe(text);
  });

  it('posts long answers as a few messages, and very long ones as a file with a preview', () => {
    const medium = renderForSlack({ kind: 'text', markdown: `${'a '.repeat(1200)}\n\n${'b '.repeat(1200)}` });
    expect(medium.map((op) => op.kind)).toEqual(['message', 'message']);
    const huge = renderForSlack({ kind: 'text', markdown: 'word '.repeat(20_000) });
    expect(huge.map((op) => op.kind)).toEqual(['message', 'upload']);
  });

  it('uploads charts with their alt text, and large tables as CSV', () => {
    expect(renderForSlack({ kind: 'chart', title: 'Churn by contract', png, alt: 'bars per contract' })).toEqual([
      {
        kind: 'upload',
        filename: 'churn-by-contract.png',
        title: 'Churn by contract',
        content: png,
        altText: 'bars per contract',
      },
    ]);
    const rows = Array.from({ length: 300 }, (_, index) => [index, `customer, "${index}"`]);
    const [message, upload] = renderForSlack({
      kind: 'table',
      title: 'Customers',
      columns: ['n', 'name'],
      rows,
      truncated: false,
    });
    expect(message).toMatchObject({ kind: 'message', text: 'Customers: 300 rows, attached as CSV.' });
    expect(upload?.kind === 'upload' && upload.content.toString().split('\n')[2]).toBe('1,"customer, ""1"""');
  });

  it('posts a review with its code first, naming the charts already above, then the narrative with Accept / Revise / Discard', () => {
    const ops = renderForSlack({
      kind: 'review',
      id: 's2',
      version: 3,
      title: 'Churn by contract',
      stage: 'drivers',
      markdown: 'Month-to-month churns **most**.',
      figures: [{ title: 'Figure 1', png, alt: 'bars' }],
      cells: [{ language: 'sql', code: 'SELECT 1', author: 'human' }],
      controls: ['accept', 'revise', 'discard'],
    });
    expect(ops.map((op) => op.kind)).toEqual(['upload', 'message']); // the chart is not uploaded again
    expect(ops[0]?.kind === 'upload' && ops[0].content.toString()).toContain('written by a person');
    const message = ops[1];
    if (message?.kind !== 'message') throw new Error('no message');
    expect(JSON.stringify(message.blocks)).toContain("Chart above: 'Figure 1'");
    expect(message.remember).toEqual({ kind: 'review', value: 's2@3', controls: ['accept', 'revise', 'discard'] });
    const actions = message.blocks?.find((block) => block.type === 'actions') as {
      elements: Array<{ action_id: string; value: string }>;
    };
    expect(actions.elements.map((element) => [element.action_id, element.value])).toEqual([
      [ACTION_IDS.accept, 's2@3'],
      [ACTION_IDS.revise, 's2@3'],
      [ACTION_IDS.discard, 's2@3'],
    ]);
  });

  it('holds a cell for approval with Run / Edit / Skip, attaching code too long to show', () => {
    const code = 'x = 1\n'.repeat(1000);
    const ops = renderForSlack({
      kind: 'approval',
      id: 'call_7',
      language: 'python',
      code,
      reason: 'approval mode is always',
    });
    expect(ops.map((op) => op.kind)).toEqual(['upload', 'message']);
    const message = ops[1];
    expect(message?.kind === 'message' && message.remember).toEqual({
      kind: 'approval',
      value: 'call_7',
      code,
      language: 'python',
    });
  });

  it('turns question choices into buttons and a notice into an ephemeral message', () => {
    const [question] = renderForSlack({ kind: 'question', text: 'Which period?', choices: ['2024', '2025'] });
    const actions = (question?.kind === 'message' ? question.blocks : [])?.find(
      (block) => block.type === 'actions',
    ) as {
      elements: Array<{ action_id: string; value: string }>;
    };
    expect(actions.elements.map((element) => element.value)).toEqual(['2024', '2025']);
    expect(renderForSlack({ kind: 'notice', userId: 'U2', text: 'no' })).toEqual([
      { kind: 'ephemeral', user: 'U2', text: 'no' },
    ]);
  });
});
