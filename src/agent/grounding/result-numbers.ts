/**
 * The numbers a tool result holds, read liberally: every numeric token of a SQL preview, a cell's
 * output or an extraction summary, as a value. A figure in the agent's text is grounded when one of
 * them rounds to it, so reading too many here only costs precision a little, and reading too few
 * marks a correct figure.
 */

/** Numbers kept per result at most; a huge table's numbers beyond it are dropped. */
export const MAX_NUMBERS_PER_RESULT = 4000;

const NUMBER = /[-−]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?%?/g;

/** The distinct numbers in a text, in order of appearance (at most MAX_NUMBERS_PER_RESULT). */
export function numbersIn(text: string): number[] {
  const found = new Set<number>();
  const add = (value: number) => {
    if (Number.isFinite(value) && found.size < MAX_NUMBERS_PER_RESULT) found.add(Number(value.toPrecision(12)));
  };
  for (const match of text.matchAll(NUMBER)) {
    const token = match[0].replace('−', '-');
    const percent = token.endsWith('%');
    const bare = percent ? token.slice(0, -1) : token;
    for (const value of readings(bare)) {
      add(value);
      if (percent) add(value / 100);
    }
  }
  return [...found];
}

/**
 * What a token may mean: `1,879` is 1879 (and, in a list like `1,2,3`, each part); a trailing dot
 * ends a sentence.
 */
function readings(token: string): number[] {
  const trimmed = token.replace(/[.,]+$/, '');
  if (!trimmed.includes(',')) return [Number(trimmed)];
  const [head = '', ...groups] = trimmed.split(',');
  const thousands = /^-?\d{1,3}$/.test(head) && groups.slice(0, -1).every((group) => /^\d{3}$/.test(group));
  const last = groups.at(-1) ?? '';
  const values =
    thousands && /^\d{3}(?:\.\d+)?(?:[eE][-+]?\d+)?$/.test(last) ? [Number(trimmed.replaceAll(',', ''))] : [];
  return [...values, ...[head, ...groups].filter((part) => /\d/.test(part)).map(Number)];
}
