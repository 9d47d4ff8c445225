/**
 * How a post looks in Slack, as plain operations the adapter carries out in order: messages (mrkdwn
 * text and Block Kit blocks, cut under Slack's limits), file uploads (charts with alt text, long
 * text, code behind a section, exports), an ephemeral notice, or the thread status. Pure: no I/O.
 */
import { ACTION_IDS, type Post, type ReviewControl } from '../../src/ports/chat.js';
import { cellsFile, chartsAbove, csv, slug, truncate } from '../common/post-text.js';
import { renderTable } from '../common/render-table.js';
import { splitText } from '../common/split-text.js';
import { toMrkdwn } from './slack-mrkdwn.js';

/** Block Kit blocks as plain objects (the SDK's types are wide unions; these are all we send). */
export type Block = Record<string, unknown>;

export type SlackOp =
  | { kind: 'message'; text: string; blocks?: Block[]; remember?: Remembered }
  | { kind: 'upload'; filename: string; title: string; content: Buffer; altText?: string }
  | { kind: 'ephemeral'; user: string; text: string }
  | { kind: 'status'; text: string };

/** What the adapter keeps about a posted message, so reactions and Edit can find their way back. */
export type Remembered =
  | { kind: 'review'; value: string; controls: ReviewControl[] }
  | { kind: 'approval'; value: string; code: string; language: 'python' | 'sql' };

/** Section text is capped at 3,000 characters; longer text goes into several messages or a file. */
const SECTION_CHARS = 2900;
/** More than this many messages for one post is noise: it goes up as a file instead. */
const MAX_PIECES = 4;

const section = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text } });
const context = (text: string): Block => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });
const button = (text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Block => ({
  type: 'button',
  text: { type: 'plain_text', text },
  action_id: actionId,
  value,
  ...(style ? { style } : {}),
});

/** Long text as messages of at most one section each, or as a file with a preview when very long. */
function longText(markdown: string, filename: string, title: string): SlackOp[] {
  const pieces = splitText(toMrkdwn(markdown), SECTION_CHARS);
  if (pieces.length <= MAX_PIECES) return pieces.map((piece) => ({ kind: 'message', text: piece }));
  return [
    { kind: 'message', text: `${pieces[0]}\n\n_(continued in the attached file)_` },
    { kind: 'upload', filename, title, content: Buffer.from(markdown) },
  ];
}

const fence = (code: string) => `\`\`\`\n${code}\n\`\`\``;

export const REACTIONS: Record<string, ReviewControl> = {
  white_check_mark: 'accept',
  heavy_check_mark: 'accept',
  '+1': 'accept',
  pencil2: 'revise',
  memo: 'revise',
  x: 'discard',
  wastebasket: 'discard',
};

export function renderForSlack(post: Post): SlackOp[] {
  switch (post.kind) {
    case 'text':
      return longText(post.markdown, 'answer.md', 'Answer');
    case 'status':
      return [{ kind: 'status', text: post.text }];
    case 'error':
      return [{ kind: 'message', text: `:warning: ${toMrkdwn(post.text)}`.slice(0, SECTION_CHARS) }];
    case 'notice':
      return [{ kind: 'ephemeral', user: post.userId, text: post.text }];
    case 'progress':
      return [];
    case 'rerun': {
      const quoted = truncate(post.text, SECTION_CHARS - 200)
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
      const text = `You edited a message that already ran. Run the edited version?\n${quoted}`;
      return [
        {
          kind: 'message',
          text,
          blocks: [
            section(text),
            {
              type: 'actions',
              block_id: 'rerun',
              elements: [button('Run the edited version', ACTION_IDS.rerun, post.messageId.slice(0, 2000), 'primary')],
            },
          ],
        },
      ];
    }
    case 'chart':
      return [
        {
          kind: 'upload',
          filename: `${slug(post.title)}.png`,
          title: post.title,
          content: post.png,
          altText: post.alt,
        },
      ];
    case 'file':
      return [
        {
          kind: 'upload',
          filename: post.name.split('/').pop() ?? post.name,
          title: post.title ? `${post.title}: ${post.name}` : post.name,
          content: post.content,
        },
      ];
    case 'code': {
      const result = post.error ? `error:\n${post.error}` : (post.output ?? '');
      const text = `${fence(post.code)}${result ? `\n${fence(result)}` : ''}`;
      if (text.length <= SECTION_CHARS) return [{ kind: 'message', text }];
      return [
        { kind: 'message', text: `${fence(truncate(post.code, 1200))}\n_(the cell and its output are attached)_` },
        {
          kind: 'upload',
          filename: `cell.${post.language === 'sql' ? 'sql' : 'py'}.txt`,
          title: 'Cell and output',
          content: Buffer.from(`${post.code}\n\n${result}`),
        },
      ];
    }
    case 'table': {
      const table = renderTable(post.columns, post.rows, post.truncated, post.title);
      if (table.length <= SECTION_CHARS) return [{ kind: 'message', text: fence(table) }];
      return [
        { kind: 'message', text: `${post.title ?? 'Table'}: ${post.rows.length} rows, attached as CSV.` },
        {
          kind: 'upload',
          filename: `${slug(post.title ?? 'table')}.csv`,
          title: post.title ?? 'Table',
          content: csv(post.columns, post.rows),
        },
      ];
    }
    case 'question': {
      const text = toMrkdwn(post.text).slice(0, SECTION_CHARS);
      const blocks: Block[] = [section(text)];
      if (post.choices?.length) {
        blocks.push({
          type: 'actions',
          block_id: 'question',
          elements: post.choices
            .slice(0, 5)
            .map((choice, index) =>
              button(choice.slice(0, 75), `${ACTION_IDS.choice}.${index}`, choice.slice(0, 2000)),
            ),
        });
        blocks.push(context('or reply in the thread'));
      }
      return [{ kind: 'message', text, blocks }];
    }
    case 'review':
      return renderReview(post);
    case 'approval': {
      const value = post.id;
      const shown = post.code.length <= SECTION_CHARS - 200 ? post.code : truncate(post.code, 1500);
      const ops: SlackOp[] = [];
      if (shown !== post.code) {
        ops.push({
          kind: 'upload',
          filename: `cell.${post.language === 'sql' ? 'sql' : 'py'}.txt`,
          title: 'Cell waiting for approval',
          content: Buffer.from(post.code),
        });
      }
      const text = `*Run this ${post.language} cell?* (${post.reason})`;
      ops.push({
        kind: 'message',
        text,
        blocks: [
          section(text),
          section(fence(shown)),
          {
            type: 'actions',
            block_id: 'approval',
            elements: [
              button('Run', ACTION_IDS.run, value, 'primary'),
              button('Edit', ACTION_IDS.edit, value),
              button('Skip', ACTION_IDS.skip, value, 'danger'),
            ],
          },
        ],
        remember: { kind: 'approval', value, code: post.code, language: post.language },
      });
      return ops;
    }
  }
}

function renderReview(post: Extract<Post, { kind: 'review' }>): SlackOp[] {
  const value = `${post.id}@${post.version}`;
  // The section's charts were posted when their cells ran: the review refers to them, not again.
  const ops: SlackOp[] = [];
  if (post.cells.length > 0) {
    ops.push({
      kind: 'upload',
      filename: `${post.id}-v${post.version}-code.txt`,
      title: `Code and SQL behind ${post.id}`,
      content: cellsFile(post.cells),
    });
  }
  const pieces = splitText(toMrkdwn(post.markdown), SECTION_CHARS);
  if (pieces.length > 8) {
    ops.push({
      kind: 'upload',
      filename: `${post.id}-v${post.version}.md`,
      title: post.title,
      content: Buffer.from(post.markdown),
    });
  }
  const heading = `Review ${post.id} v${post.version}: ${post.title}`;
  const labels: Record<ReviewControl, [string, 'primary' | 'danger' | undefined]> = {
    accept: ['Accept', 'primary'],
    revise: ['Revise', undefined],
    discard: ['Discard', 'danger'],
  };
  const hints = post.controls.map(
    (control) =>
      `${{ accept: ':white_check_mark:', revise: ':pencil2:', discard: ':wastebasket:' }[control]} ${control}`,
  );
  ops.push({
    kind: 'message',
    text: heading,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: truncate(heading, 150) } },
      ...pieces.slice(0, 8).map(section),
      context(
        [
          post.stage,
          chartsAbove(post.figures),
          post.cells.length > 0 ? `${post.cells.length} cell(s): code attached above` : undefined,
          `or react ${hints.join(' · ')}`,
        ]
          .filter(Boolean)
          .join(' · '),
      ),
      {
        type: 'actions',
        block_id: 'review',
        elements: post.controls.map((control) => {
          const [label, style] = labels[control];
          return button(label, ACTION_IDS[control], value, style);
        }),
      },
    ],
    remember: { kind: 'review', value, controls: post.controls },
  });
  return ops;
}
