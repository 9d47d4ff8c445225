/**
 * How a post looks in Discord, as plain operations the adapter carries out in order: messages (at
 * most 2,000 characters, split on paragraph and line boundaries), attachments (charts with their
 * description, long text, the code behind a section, exports), button rows, an ephemeral notice, or
 * the status. A turn's progress is not rendered here: discord-progress.ts keeps one message per turn
 * up to date. Pure: no I/O.
 */
import { ACTION_IDS, type Post, type ReviewControl } from '../../src/ports/chat.js';
import { cellsFile, chartsAbove, csv, slug, truncate } from '../common/post-text.js';
import { renderTable } from '../common/render-table.js';
import { splitText } from '../common/split-text.js';

export interface DiscordFile {
  name: string;
  content: Buffer;
  description?: string;
}

export interface DiscordButton {
  customId: string;
  label: string;
  style: 'primary' | 'secondary' | 'success' | 'danger';
}

export type DiscordOp =
  | { kind: 'message'; content: string; files?: DiscordFile[]; buttons?: DiscordButton[]; remember?: Remembered }
  | { kind: 'ephemeral'; user: string; content: string }
  | { kind: 'status'; text: string };

export type Remembered =
  | { kind: 'review'; value: string; controls: ReviewControl[] }
  | { kind: 'approval'; value: string; code: string; language: 'python' | 'sql' };

/** Discord's message limit is 2,000 characters; a little is kept for fences. */
export const CONTENT_CHARS = 1900;
const MAX_PIECES = 4;

/** `<action id>|<value>`: what a button carries (custom ids hold at most 100 characters). */
export const customId = (actionId: string, value: string) => `${actionId}|${value}`.slice(0, 100);

export function parseCustomId(id: string): { actionId: string; value: string } {
  const at = id.indexOf('|');
  return at < 0 ? { actionId: id, value: '' } : { actionId: id.slice(0, at), value: id.slice(at + 1) };
}

export const REACTIONS: Record<string, ReviewControl> = {
  '✅': 'accept',
  '👍': 'accept',
  '✏️': 'revise',
  '📝': 'revise',
  '🗑️': 'discard',
  '❌': 'discard',
};

const fence = (code: string) => `\`\`\`\n${code}\n\`\`\``;
/** Markdown block quote, line by line. */
const quote = (text: string) =>
  text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');

function longText(markdown: string, name: string): DiscordOp[] {
  const pieces = splitText(markdown, CONTENT_CHARS);
  if (pieces.length <= MAX_PIECES) return pieces.map((piece) => ({ kind: 'message', content: piece }));
  return [
    {
      kind: 'message',
      content: `${pieces[0]}\n\n*(continued in the attached file)*`,
      files: [{ name, content: Buffer.from(markdown) }],
    },
  ];
}

export function renderForDiscord(post: Post): DiscordOp[] {
  switch (post.kind) {
    case 'text':
      return longText(post.markdown, 'answer.md');
    case 'status':
      return [{ kind: 'status', text: post.text }];
    case 'error':
      return [{ kind: 'message', content: `⚠️ ${post.text}`.slice(0, CONTENT_CHARS) }];
    case 'notice':
      return [{ kind: 'ephemeral', user: post.userId, content: post.text.slice(0, CONTENT_CHARS) }];
    case 'progress':
      return []; // shown live by discord-progress.ts
    case 'rerun':
      return [
        {
          kind: 'message',
          content: `You edited a message that already ran. It now says:\n${quote(truncate(post.text, 1500))}`,
          buttons: [
            { customId: customId(ACTION_IDS.rerun, post.messageId), label: 'Run the edited version', style: 'primary' },
          ],
        },
      ];
    case 'chart':
      return [
        {
          kind: 'message',
          content: `**${post.title}**`,
          files: [{ name: `${slug(post.title)}.png`, content: post.png, description: post.alt.slice(0, 1000) }],
        },
      ];
    case 'file':
      return [
        {
          kind: 'message',
          content: post.name.includes('/') ? '' : `📎 ${post.name}`,
          files: [{ name: post.name.split('/').pop() ?? post.name, content: post.content }],
        },
      ];
    case 'code': {
      const result = post.error ? `error:\n${post.error}` : (post.output ?? '');
      const content = `${fence(post.code)}${result ? `\n${fence(result)}` : ''}`;
      if (content.length <= CONTENT_CHARS) return [{ kind: 'message', content }];
      return [
        {
          kind: 'message',
          content: `${fence(truncate(post.code, 900))}\n*(the cell and its output are attached)*`,
          files: [
            {
              name: `cell.${post.language === 'sql' ? 'sql' : 'py'}.txt`,
              content: Buffer.from(`${post.code}\n\n${result}`),
            },
          ],
        },
      ];
    }
    case 'table': {
      const table = renderTable(post.columns, post.rows, post.truncated, post.title);
      if (table.length <= CONTENT_CHARS) return [{ kind: 'message', content: fence(table) }];
      return [
        {
          kind: 'message',
          content: `${post.title ?? 'Table'}: ${post.rows.length} rows, attached as CSV.`,
          files: [{ name: `${slug(post.title ?? 'table')}.csv`, content: csv(post.columns, post.rows) }],
        },
      ];
    }
    case 'question': {
      const choices = (post.choices ?? []).slice(0, 5);
      return [
        {
          kind: 'message',
          content: `${post.text}${choices.length > 0 ? '\n*(choose, or reply in the thread)*' : ''}`.slice(
            0,
            CONTENT_CHARS,
          ),
          buttons: choices.map((choice, index) => ({
            customId: customId(ACTION_IDS.choice, String(index + 1)),
            label: truncate(choice, 80),
            style: 'secondary',
          })),
        },
      ];
    }
    case 'review':
      return renderReview(post);
    case 'approval': {
      const shown = post.code.length <= CONTENT_CHARS - 200 ? post.code : truncate(post.code, 1200);
      return [
        {
          kind: 'message',
          content: `**Run this ${post.language} cell?** (${post.reason})\n${fence(shown)}`,
          ...(shown === post.code
            ? {}
            : {
                files: [
                  { name: `cell.${post.language === 'sql' ? 'sql' : 'py'}.txt`, content: Buffer.from(post.code) },
                ],
              }),
          buttons: [
            { customId: customId(ACTION_IDS.run, post.id), label: 'Run', style: 'success' },
            { customId: customId(ACTION_IDS.edit, post.id), label: 'Edit', style: 'primary' },
            { customId: customId(ACTION_IDS.skip, post.id), label: 'Skip', style: 'danger' },
          ],
          remember: { kind: 'approval', value: post.id, code: post.code, language: post.language },
        },
      ];
    }
  }
}

function renderReview(post: Extract<Post, { kind: 'review' }>): DiscordOp[] {
  const value = `${post.id}@${post.version}`;
  // The section's charts were posted when their cells ran: the review refers to them, not again.
  const files: DiscordFile[] = [];
  if (post.cells.length > 0)
    files.push({ name: `${post.id}-v${post.version}-code.txt`, content: cellsFile(post.cells) });
  const heading = `**Review ${post.id} v${post.version}: ${post.title}**${post.stage ? ` · ${post.stage}` : ''}`;
  const charts = chartsAbove(post.figures);
  const hint = `${charts ? `*${charts}*\n` : ''}*React ✅ accept · ✏️ revise · 🗑️ discard*`;
  let pieces = splitText(post.markdown, CONTENT_CHARS - heading.length - hint.length - 10);
  if (pieces.length > MAX_PIECES) {
    files.push({ name: `${post.id}-v${post.version}.md`, content: Buffer.from(post.markdown) });
    pieces = [`${pieces[0]}\n*(full text attached)*`];
  }
  const labels: Record<ReviewControl, [string, DiscordButton['style']]> = {
    accept: ['Accept', 'success'],
    revise: ['Revise', 'primary'],
    discard: ['Discard', 'danger'],
  };
  // The heading opens the first message; the controls and the evidence close the last one.
  const texts = pieces.length > 0 ? pieces : [''];
  return texts.map((piece, index): DiscordOp => {
    const first = index === 0 ? `${heading}\n` : '';
    if (index < texts.length - 1) return { kind: 'message', content: `${first}${piece}` };
    return {
      kind: 'message',
      content: `${first}${piece}\n${hint}`,
      ...(files.length > 0 ? { files: files.slice(0, 10) } : {}),
      buttons: post.controls.map((control) => {
        const [label, style] = labels[control];
        return { customId: customId(ACTION_IDS[control], value), label, style };
      }),
      remember: { kind: 'review', value, controls: post.controls },
    };
  });
}
