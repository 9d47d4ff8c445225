/** How a post looks in a terminal: plain text with light markers, tables aligned, choices numbered. */
import type { Post } from '../../src/ports/chat.js';

const MAX_CELL = 30;

/** Posts with bytes (charts, files, a review's figures) are saved by the adapter; this renders the text. */
export function renderPost(post: Exclude<Post, { kind: 'chart' | 'file' }>): string {
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

export function renderTable(columns: string[], rows: unknown[][], truncated: boolean, title?: string): string {
  const text = (value: unknown) => {
    const raw = value === null || value === undefined ? 'NULL' : String(value);
    return raw.length > MAX_CELL ? `${raw.slice(0, MAX_CELL - 1)}…` : raw;
  };
  const cells = [columns, ...rows.map((row) => row.map(text))];
  const widths = columns.map((_, index) => Math.max(...cells.map((row) => (row[index] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join('  ')
      .trimEnd();
  const body = [line(columns), widths.map((width) => '-'.repeat(width)).join('  '), ...cells.slice(1).map(line)];
  if (title) body.unshift(title);
  if (truncated) body.push(`(first ${rows.length} rows)`);
  return body.join('\n');
}
