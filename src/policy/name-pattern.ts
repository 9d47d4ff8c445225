/** Table and column name patterns of the access policy: `*` any run of characters, `?` one; case-insensitive. */

const cache = new Map<string, RegExp>();

export function matchesPattern(pattern: string, name: string): boolean {
  let regex = cache.get(pattern);
  if (!regex) {
    const body = [...pattern]
      .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
      .join('');
    regex = new RegExp(`^${body}$`, 'i');
    cache.set(pattern, regex);
  }
  return regex.test(name);
}

/** `table.column` against a `table.column` pattern. */
export function matchesColumnPattern(pattern: string, table: string, column: string): boolean {
  const dot = pattern.indexOf('.');
  return matchesPattern(pattern.slice(0, dot), table) && matchesPattern(pattern.slice(dot + 1), column);
}
