/**
 * Markdown as Slack mrkdwn (bold, italics, links, headings, lists) and long text cut on sensible
 * boundaries: paragraphs first, then lines, never inside a code fence when it can be helped.
 */

export function toMrkdwn(markdown: string): string {
  const parts = markdown.split(/(```[\s\S]*?```|`[^`\n]+`)/);
  return parts
    .map((part, index) => (index % 2 === 1 ? part.replace(/^```\w+\n/, '```\n') : convertProse(part)))
    .join('');
}

/** Holds `**bold**` while single-star italics are converted (a character Markdown text never has). */
const BOLD = '\u{F8FF}';

function convertProse(text: string): string {
  return text
    .replace(/[&<>]/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[character] ?? character)
    .replace(/^#{1,6}\s+(.+)$/gm, `${BOLD}$1${BOLD}`)
    .replace(/\*\*(.+?)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/(^|[^*\w])\*(?!\s)([^*\n]+?)\*(?!\w)/g, '$1_$2_')
    .replaceAll(BOLD, '*')
    .replace(/~~(.+?)~~/g, '~$1~')
    .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, '<$2|$1>')
    .replace(/^(\s*)[-*]\s+/gm, '$1• ');
}

/** Splits text into pieces of at most `maxChars`, on paragraph or line boundaries where possible. */
export function splitText(text: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const window = rest.slice(0, maxChars);
    const fenceOpen = (window.match(/```/g) ?? []).length % 2 === 1;
    const boundary = fenceOpen ? window.lastIndexOf('```') : -1;
    const cut = [
      boundary > maxChars / 4 ? boundary : -1,
      window.lastIndexOf('\n\n'),
      window.lastIndexOf('\n'),
      window.lastIndexOf(' '),
    ].find((index) => index > maxChars / 4);
    const at = cut ?? maxChars;
    pieces.push(rest.slice(0, at).trimEnd());
    rest = rest.slice(at).replace(/^\n+/, '');
  }
  if (rest.trim() !== '') pieces.push(rest);
  return pieces;
}
