/**
 * Markdown as Slack mrkdwn: bold, italics, links, headings and lists; code left as it is.
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
