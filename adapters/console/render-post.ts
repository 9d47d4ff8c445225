/** How a post looks in a terminal: plain text with light markers, tables aligned, choices numbered. */
import type { Post } from '../../src/ports/chat.js';
import { renderTable } from '../common/render-table.js';

/**
 * Posts with bytes (charts, files, a review's figures) are saved by the adapter, and progress has its
 * own live block (console-progress.ts); this renders the text of the others.
 */
export function renderPost(post: Exclude<Post, { kind: 'chart' | 'file' | 'progress' }>): string {
  switch (post.kind) {
    case 'text':
      return post.markdown;
    case 'code': {
      const block = `\`\`\`${post.language}\n${post.code}\n\`\`\``;
      const result = post.error ? `error:\n${post.error}` : (post.output ?? '');
      return result ? `${block}\n${result}` : block;
    }
    case 'table':
      return renderTable(post.columns, post.rows, post.truncated, post.title);
    case 'question': {
      const choices = post.choices?.map((choice, index) => `  ${index + 1}. ${choice}`).join('\n');
      return `? ${post.text}${choices ? `\n${choices}\n  (answer with a number or in your own words)` : ''}`;
    }
    case 'status':
      return `… ${post.text}`;
    case 'error':
      return `! ${post.text}`;
    case 'notice':
      return `(only for ${post.userId}) ${post.text}`;
    case 'rerun':
      return `You edited a message that already ran. Run the edited version? ${post.text}`;
    case 'review':
      return renderReview(post);
    case 'approval':
      return [
        `── approve this ${post.language} cell? (${post.reason}) ──`,
        `\`\`\`${post.language}\n${post.code}\n\`\`\``,
        'Reply: run · skip · edit followed by a ```python (or ```sql) block with the code to run instead',
      ].join('\n');
  }
}

const CONTROL_HINTS = { accept: 'accept', revise: 'revise: <what to change>', discard: 'discard' } as const;

function renderReview(post: Extract<Post, { kind: 'review' }>): string {
  const stage = post.stage ? ` [${post.stage}]` : '';
  const lines = [`── review ${post.id} v${post.version}${stage}: ${post.title} ──`, post.markdown];
  if (post.cells.length > 0) {
    lines.push(`▸ code and SQL behind it (${post.cells.length} cell${post.cells.length === 1 ? '' : 's'}):`);
    for (const cell of post.cells) {
      const who = cell.author === 'human' ? ' (written by a person)' : '';
      lines.push(`  ${cell.language}${who}:`, ...cell.code.split('\n').map((line) => `    ${line}`));
    }
  }
  lines.push(`Reply: ${post.controls.map((control) => CONTROL_HINTS[control]).join(' · ')}`);
  return lines.join('\n');
}
