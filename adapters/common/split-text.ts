/**
 * Long text cut on sensible boundaries for chat messages: paragraphs first, then lines, then words,
 * never inside a code fence when it can be helped.
 */

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
    // A cut between words drops the space it cut at; a cut at a line keeps the next line's indentation.
    rest = rest.charAt(at) === ' ' ? rest.slice(at + 1) : rest.slice(at).replace(/^\n+/, '');
  }
  if (rest.trim() !== '') pieces.push(rest);
  return pieces;
}
